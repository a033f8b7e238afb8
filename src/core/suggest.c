/* SPDX-License-Identifier: MIT */
/*
 * suggest.c - ranking known names by their distance to a misspelled one.
 */
#include "core/suggest.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "core/error_internal.h"
#include "core/util.h"

/* Words longer than this are not compared (they are not names). */
#define MAX_WORD 95

int pev__edit_distance(const char *a, const char *b, int limit)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[MAX_WORD + 1];

	if (la > MAX_WORD || lb > MAX_WORD)
		return limit + 1;
	if ((la > lb ? la - lb : lb - la) > (size_t)limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diagonal = row[0], best = row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int v = diagonal + cost;
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diagonal = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb] > limit ? limit + 1 : row[lb];
}

void pev__suggest_init(struct pev_suggest *s, const char *word)
{
	size_t len = strlen(word);

	memset(s, 0, sizeof(*s));
	s->word = word;
	/* One mistake per three characters, at least two. */
	s->limit = len / 3 > 2 ? (int)(len / 3) : 2;
}

void pev__suggest_add(struct pev_suggest *s, const char *candidate)
{
	int d, at;

	if (!candidate || !*candidate || strlen(candidate) > MAX_WORD)
		return;
	d = pev__edit_distance(s->word, candidate, s->limit);
	if (d > s->limit || strcmp(candidate, s->word) == 0)
		return;
	for (int i = 0; i < s->n; i++)
		if (strcasecmp(s->name[i], candidate) == 0)
			return;
	/* Insert sorted by distance; drop the farthest when full. */
	for (at = s->n; at > 0 && s->dist[at - 1] > d; at--)
		;
	if (at >= PEV_SUGGEST_MAX)
		return;
	int last = s->n < PEV_SUGGEST_MAX ? s->n : PEV_SUGGEST_MAX - 1;
	for (int i = last; i > at; i--) {
		s->dist[i] = s->dist[i - 1];
		memcpy(s->name[i], s->name[i - 1], sizeof(s->name[i]));
	}
	s->dist[at] = d;
	pev__strlcpy(s->name[at], candidate, sizeof(s->name[at]));
	if (s->n < PEV_SUGGEST_MAX)
		s->n++;
}

bool pev__suggest_hint(const struct pev_suggest *s, const char *prefix, struct pev_error *err)
{
	char text[600] = "did you mean ";

	if (!s->n)
		return false;
	for (int i = 0; i < s->n; i++)
		pev__appendf(text, sizeof(text), "%s'%s%s'",
			     i == 0 ? "" : i == s->n - 1 ? " or " : ", ", prefix ? prefix : "",
			     s->name[i]);
	pev__error_hint(err, "%s?", text);
	return true;
}
