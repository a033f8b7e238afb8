/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the perfev commands share: the command table entry, error
 * reporting in git's style, and number formatting.
 */
#ifndef PERFEV_CLI_H
#define PERFEV_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "perfev.h"

/* One perfev command: `perfev <name> ...` runs fn(argc, argv) with argv[0] = name. */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_buildid_cache(int argc, char **argv);
int cmd_archive(int argc, char **argv);

/*
 * Adds the file a perf.data's BUILD_ID entry b names to the build-id cache
 * when it is here with that build id (cmd_buildid_cache.c: `buildid-cache
 * -i`, `archive`), warning when it is another build; says "Adding ..."
 * when verbose. Returns 0, or 1 when the cache could not be written (said why).
 */
int buildid_cache_add_recorded(const char *cache, const struct pev_perfdata_build_id *b,
			       bool verbose);

/*
 * s as a terminal or a line of text may show it: s itself when it is clean,
 * else its control bytes and invalid UTF-8 escaped as \xHH
 * (pev_text_escape) in one of 8 buffers used in turn, so that up to 8
 * results may be printed by one call. NULL is "".
 */
const char *cli_shown(const char *s);
/*
 * Reads a task's name from its comm file (/proc/PID/comm,
 * /proc/PID/task/TID/comm) into buf, whole: a newline that is part of the
 * name stays, the one the kernel writes after it goes. False when it
 * cannot be read.
 */
bool cli_read_comm(const char *path, char *buf, size_t size);

struct json_object;

/*
 * json-c's string of s made valid UTF-8 first (pev_text_utf8: a byte that
 * is not UTF-8 becomes U+FFFD; json-c escapes control characters), so that
 * every JSON perfev writes loads in strict parsers. NULL s is "".
 */
struct json_object *cli_json_string(const char *s);

/* Prints "perfev: error: <formatted>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "perfev: warning: <formatted>" to stderr. */
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Finishes writing to f: flushes it and, unless it is stdout or stderr,
 * closes it. When any write to f failed (a full disk, a closed pipe, a
 * file system error), prints "perfev: error: cannot write NAME: REASON"
 * (where stderr still takes it) and returns 1; returns 0 when every byte
 * reached its destination. NULL f returns 0.
 */
int cli_finish_output(FILE *f, const char *name);

/*
 * Reads option -C's CPU list `text` (NULL: every online CPU) against the CPUs
 * online now. On success stores the CPUs ascending, each once, as text
 * ("0,2,3") in *list and, when cpus is not NULL, as numbers in *cpus (*n of
 * them); both malloc'ed, the caller frees them. Returns 0, or 129 after
 * printing why for a malformed list or a CPU that is not online.
 */
int cli_parse_cpus(const char *text, char **list, int **cpus, int *n);

/*
 * The input report and script read when no -i is given, as perf does: "-"
 * (standard input) when that is a pipe or FIFO, else "perf.data".
 */
const char *cli_default_input(void);

/* cli_output_fd flag: open for reading too (a perf.data writer reads back what it wrote). */
#define CLI_OUTPUT_RDWR 1u
/* cli_output_fd flag: only a regular file will do (perf.data, an archive: written out of order). */
#define CLI_OUTPUT_FILE_ONLY 2u

/*
 * Opens the output a user names (option, e.g. "-o"; NULL for a default no
 * option named) by perfev's rules for outputs (output.c, docs/OPTIONS.md):
 * created with O_EXCL when new, a regular file truncated, a FIFO opened
 * without blocking, a character device only when it is /dev/null-like or
 * perfev's own terminal or output, a link followed only to what perfev
 * itself has open, one of those devices or a FIFO, and nothing another
 * user put in a sticky shared directory. how: CLI_OUTPUT_* flags. Returns
 * a close-on-exec descriptor, or -1 after saying why.
 */
int cli_output_fd(const char *option, const char *path, unsigned how);

/* cli_output_fd() for writing, as a stream. Returns it, or NULL after saying why. */
FILE *cli_open_output(const char *option, const char *path);

/*
 * Creates a new temporary file dir/PREFIX<random letters>SUFFIX, read-write,
 * mode 0600, with O_EXCL (never a file, FIFO or link that was there),
 * close-on-exec, and stores its path in path (size bytes). Returns the
 * descriptor, or -1 with errno set.
 */
int cli_temp_create(const char *dir, const char *prefix, const char *suffix, char *path,
		    size_t size);

/*
 * Prints the library's warnings (pev_set_log) on stderr as
 * "perfev: warning: <line>": a JIT map skipped, kernel symbols unavailable.
 */
void cli_log_warnings(void);

/*
 * The exit status of `perfev report` and `perfev script` when the file was
 * never finished (pev_perfdata_unfinished) and they read what it holds.
 */
#define CLI_STATUS_UNFINISHED 2

/*
 * Warns that pd (read from path) was never finished, when it was not. In
 * pipe mode the end of the stream tells: call it again once the records
 * are read (it warns once).
 */
void cli_warn_unfinished(struct pev_perfdata *pd, const char *path);

/*
 * Prints a library error: "perfev: error: <message>" then "hint: ..." lines
 * (cli_hint's wording where the command line has a better fix).
 */
void cli_print_error(const struct pev_error *err);

/*
 * The hint to print for err: the library's, or one in the command line's
 * terms (ESRCH: let perfev start the command). Points into err or static text.
 */
const char *cli_hint(const struct pev_error *err);

/*
 * Appends ":u" to name (size bytes) when counter c counts user space only
 * though its event string (levels) chose no privilege level: libperfev fell
 * back to user space because counting the kernel was refused, as perf does.
 */
void cli_name_user_only(char *name, size_t size, const struct pev_opts *levels,
			const struct pev_counter *c);

/*
 * The wake pipe (cli/wake.c): SIGCHLD, SIGTERM, SIGHUP and SIGINT (unless
 * ignore_sigint) write a byte into a pipe that a command's loop polls
 * (cli_wake_fd); SIGTERM, SIGHUP and SIGINT are kept as the request to stop
 * (cli_stop_signal, 0 until one comes). Setup returns 0, or 1 after saying
 * why; restore puts the default handlers back and closes the pipe.
 */
int cli_wake_setup(bool ignore_sigint);
void cli_wake_restore(void);
int cli_wake_fd(void);
void cli_wake_drain(void);
int cli_stop_signal(void);

/*
 * Loads libjson-c (cli/lazy_libs.c) for the JSON output option names:
 * true when it is there, else false after saying why and what to install.
 */
bool cli_json_available(const char *option);

/* Prints "usage: <usage>" and returns the exit status for bad usage (129, as git). */
int cli_usage(const char *usage);

/*
 * For getopt_long run with opterr = 0 and a ':'-led option string: says
 * which option is missing its value (opt ':') or is unknown (opt '?'), then
 * prints the usage. Returns the exit status for bad usage.
 */
int cli_bad_option(int opt, char **argv, const char *usage);

/*
 * Formats the whole number in digits (a run of decimal digits) into buf with
 * sep between groups of three ("1,234,567" with ","; unchanged with "").
 * Returns buf.
 */
char *cli_group_digits(const char *digits, const char *sep, char *buf, size_t size);

/*
 * The thousands separator of the user's locale (LC_ALL, LC_NUMERIC, LANG),
 * as perf's big numbers use it: "" for C and POSIX, "," for en_US. A static
 * string; read once.
 */
const char *cli_thousands_sep(void);

/*
 * How the commands parse -e: as perf 6.1 does, guest excluded by default
 * (pev_parse_opts.perf_guest). A static struct.
 */
const struct pev_parse_opts *cli_event_parse_opts(void);

/*
 * Checks a comma-separated list of process or thread ids given to option
 * opt (--pid, --tid). Returns 0, or the usage status (129) after saying
 * what the option needs.
 */
int cli_check_ids(const char *opt, const char *list);

/* Whether the comma-separated list holds name, byte for byte. */
bool cli_list_has(const char *list, const char *name);

/* Whether the comma-separated list of ids (checked by cli_check_ids) holds id. */
bool cli_list_has_id(const char *list, int64_t id);

/* The decimal point of the user's locale, as cli_thousands_sep: "." for C, "," for de_DE. */
const char *cli_decimal_point(void);

/*
 * Prints text word-wrapped to `width` columns. The cursor is assumed to be
 * at column `indent` already; continuation lines are indented to it.
 * Ends with a newline.
 */
void cli_print_wrapped(FILE *out, const char *text, int indent, int width);

/*
 * Parses a decimal number (digits only: no sign, no spaces) at the start of
 * text, which must end there or at one of the characters of `stops`, and
 * lie in [min, max]. Stores it in *out and returns true, or returns false.
 */
bool cli_parse_long(const char *text, const char *stops, long min, long max, long *out);

/*
 * Parses a decimal number (strtod's syntax, NaN refused) that is all of
 * text and lies in [min, max]. Stores it in *out and returns true, or
 * returns false.
 */
bool cli_parse_double(const char *text, double min, double max, double *out);

/* The process thread tid belongs to (Tgid in /proc/TID/status), or 0 when it is gone. */
pid_t cli_tgid_of(pid_t tid);

/* Copies the first sentence of text (up to ". ") into buf. Returns buf. */
char *cli_first_sentence(const char *text, char *buf, size_t size);

/*
 * Finds the file and file offset of this program's code at addr through
 * /proc/self/maps (for probing uprobes on perfev itself). Returns false when
 * addr is in no file-backed mapping.
 */
bool cli_code_location(const void *addr, char *file, size_t size, uint64_t *offset);

/*
 * Starts argv with SIGINT, SIGTERM, SIGHUP, SIGCHLD and SIGPIPE at their
 * defaults and no signal blocked: path, the file cli_check_command found for
 * argv[0], or argv[0] searched in PATH when path is NULL. The command gets
 * SIGTERM when perfev dies (it never outlives a killed recorder). Counters
 * opened on perfev itself with inherit and enable_on_exec follow the child
 * and start at its exec, which may complete a moment after this returns.
 * Stores its pid in *child; returns 0, or the exec's errno (the child is
 * then reaped and *child is -1) (spawn.c).
 */
int cli_spawn_command(char **argv, const char *path, pid_t *child);

/* A command forked but held before its exec (cli_spawn_paused). */
struct cli_paused {
	pid_t pid;  /* the command's pid, or 0 when none is held */
	int go;     /* written to let it exec; closed to end it */
	int report; /* where its exec's errno comes back, or -1 */
};

/*
 * Forks argv's command and holds it before its exec, so that counters can
 * be opened on its own pid (as perf opens them); the counters' attributes
 * decide what its exec enables. path as for cli_spawn_command. Fills *p;
 * returns 0 or the errno of the fork (spawn.c).
 */
int cli_spawn_paused(char **argv, const char *path, struct cli_paused *p);

/*
 * Lets a held command exec, as cli_spawn_command would have started it.
 * Stores its pid in *child; returns 0, or the exec's errno (the child then
 * reaped and *child -1). *p holds no command afterwards.
 */
int cli_spawn_resume(struct cli_paused *p, pid_t *child);

/* Ends a held command before its exec and reaps it. A p that holds none is ignored. */
void cli_spawn_abort(struct cli_paused *p);

/*
 * Whether command `cmd` can be started, looked up as the exec will look it
 * up (PATH unless it holds a '/'): 0, or the errno the exec would give
 * (ENOENT, EACCES). Lets a command fail before it touches its outputs.
 * On 0, when path is not NULL, *path gets the file found (malloc'ed): given
 * to cli_spawn_command, it spares the exec a second search of PATH.
 */
int cli_check_command(const char *cmd, char **path);

/* Says why argv[0] `cmd` could not start (errno e); returns 127 (not found) or 126. */
int cli_exec_error(const char *cmd, int e);

/* calloc that never returns NULL: out of memory, it says so and exits 1. */
void *cli_xcalloc(size_t n, size_t size);

#endif /* PERFEV_CLI_H */
