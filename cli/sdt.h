/* SPDX-License-Identifier: MIT */
/*
 * sdt.h - the SDT events of perf's build-id cache (list_sdt.c), for
 * `perfev list`.
 */
#ifndef PERFEV_CLI_SDT_H
#define PERFEV_CLI_SDT_H

/* One SDT event of one cached binary. */
struct cli_sdt_event {
	char *name;         /* "provider:event", as in the cache's probes file */
	char *path;         /* the binary's path when it was cached */
	char build_id[41];  /* its build id, hex */
};

/*
 * Reads the SDT events of every binary in perf's build-id cache
 * ($PERF_BUILDID_DIR, else $HOME/.debug). Returns how many (0 without a
 * cache) with *out malloc'ed, sorted by name and then build id (free with
 * cli_sdt_events_free), or -1 when out of memory.
 */
int cli_sdt_events_read(struct cli_sdt_event **out);

/* Frees what cli_sdt_events_read returned. */
void cli_sdt_events_free(struct cli_sdt_event *events, int n);

#endif /* PERFEV_CLI_SDT_H */
