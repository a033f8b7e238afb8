/* SPDX-License-Identifier: MIT */
/*
 * suggest.h - "did you mean ...?": the closest known names to a misspelling.
 */
#ifndef PERFEV_SUGGEST_H
#define PERFEV_SUGGEST_H

#include <stdbool.h>

#include "perfev/error.h"

/* How many suggestions are kept. */
#define PEV_SUGGEST_MAX 3

/*
 * Collects the candidates closest to `word` (Levenshtein distance, ignoring
 * case), keeping those within a distance that grows with the word's length.
 * Candidates are copied, so they may be temporary.
 */
struct pev_suggest {
	const char *word;
	int limit;
	int n;
	int dist[PEV_SUGGEST_MAX];
	char name[PEV_SUGGEST_MAX][96];
};

/* Starts collecting suggestions for word. */
void pev__suggest_init(struct pev_suggest *s, const char *word);

/* Offers one candidate. */
void pev__suggest_add(struct pev_suggest *s, const char *candidate);

/*
 * Adds "did you mean '<prefix>a', '<prefix>b' or '<prefix>c'?" to err's hint
 * (prefix may be NULL). Returns true when there was a suggestion to add.
 */
bool pev__suggest_hint(const struct pev_suggest *s, const char *prefix, struct pev_error *err);

/*
 * The edit distance between a and b, ignoring case, or limit + 1 when it is
 * larger than limit (computation stops early).
 */
int pev__edit_distance(const char *a, const char *b, int limit);

#endif /* PERFEV_SUGGEST_H */
