/* SPDX-License-Identifier: MIT */
/*
 * names.h - names of attribute bits, for messages and listings.
 */
#ifndef PERFEV_NAMES_H
#define PERFEV_NAMES_H

/* The attr field name of flags bit `bit` ("exclude_kernel"), or NULL. */
const char *pev__flag_bit_name(int bit);

/* The name of sample_type bit `bit` ("CALLCHAIN"), or NULL. */
const char *pev__sample_bit_name(int bit);

/* The name of read_format bit `bit` ("TOTAL_TIME_ENABLED"), or NULL. */
const char *pev__read_format_bit_name(int bit);

/* The name of aux_action bit `bit` ("aux_pause"), or NULL. */
const char *pev__aux_bit_name(int bit);

#endif /* PERFEV_NAMES_H */
