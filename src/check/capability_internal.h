/* SPDX-License-Identifier: MIT */
/*
 * capability_internal.h - what the probes of perfev/capability.h share:
 * opening an event for a probe, judging a count, and busy work whose
 * symbol a callchain can be resolved to.
 */
#ifndef PERFEV_CAPABILITY_INTERNAL_H
#define PERFEV_CAPABILITY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/util.h"
#include "perfev/capability.h"
#include "perfev/counter.h"
#include "perfev/event.h"
#include "perfev/opts.h"

/* Replaces the text in buf (size bytes) with the formatted one, cut short when it does not fit. */
void pev__cap_set(char *buf, size_t size, const char *fmt, ...) PEV_PRINTF(3, 4);

/*
 * Marks out PEV_CAP_UNAVAILABLE with code, the detail formatted from fmt,
 * and fix (NULL: none).
 */
void pev__cap_unavailable(struct pev_capability *out, int code, const char *fix, const char *fmt,
                          ...) PEV_PRINTF(4, 5);

/*
 * Marks out PEV_CAP_UNAVAILABLE with err's diagnosis: its code (code when
 * err has none), its message as the detail and its hint as the fix.
 */
void pev__cap_refused(struct pev_capability *out, const struct pev_error *err, int code);

/*
 * Opens ev with opts on target for a probe. When the kernel refuses for
 * lack of privilege and user_retry is true, opens it again user space only
 * and notes in out that the class is partial (out->code, out->fix).
 * Returns 0 with *c open, or a negative code with out filled as
 * PEV_CAP_UNAVAILABLE (detail: the diagnosis, fix: its hint).
 */
int pev__cap_open(struct pev_capability *out, const struct pev_event *ev, struct pev_opts *opts,
                  const struct pev_target *target, bool user_retry, struct pev_counter **c);

/*
 * Sets the verdict of a counting probe that caused `expected` events and
 * read `measured`: SILENT for 0, WORKS when measured is at least expected
 * (and, when exact, equal), PARTIAL otherwise. `what` names the cause
 * ("writes"), `event` the event ("a write watchpoint"). Keeps a PARTIAL
 * set by pev__cap_open (user space only) when the count is right.
 */
void pev__cap_judge(struct pev_capability *out, uint64_t expected, uint64_t measured, bool exact,
                    const char *what, const char *event);

/* Writes the fix for a SILENT verdict of class cap (the cause and what to do). */
void pev__cap_silent_fix(struct pev_capability *out);

/*
 * Spins for about ns nanoseconds of this thread's CPU time, doing only
 * arithmetic between clock reads, and returns the CPU time it took. Not
 * static and never inlined: the callchain probe looks its name up.
 */
uint64_t pev__cap_spin(uint64_t ns);

/* This thread's CPU time and the monotonic clock, in ns. */
uint64_t pev__cap_thread_ns(void);
uint64_t pev__cap_now_ns(void);

/* The sampling probes (capability_sampling.c). */
void pev__cap_probe_sampling(struct pev_capability *out, const struct pev_machine *m);
void pev__cap_probe_callchain(struct pev_capability *out, const struct pev_machine *m);
void pev__cap_probe_kernel_sampling(struct pev_capability *out, const struct pev_machine *m);
void pev__cap_probe_ring(struct pev_capability *out, const struct pev_machine *m);
void pev__cap_probe_offcpu(struct pev_capability *out, const struct pev_machine *m);

#endif /* PERFEV_CAPABILITY_INTERNAL_H */
