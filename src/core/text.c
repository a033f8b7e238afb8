/* SPDX-License-Identifier: MIT */
/*
 * text.c - names made safe to show: escaped for terminals and text lines,
 * or made valid UTF-8 for JSON and protobuf (perfev/text.h).
 */
#include "perfev/text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int pev_text_utf8_char(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c, cp;
	int len;

	if (!u || !u[0])
		return 0;
	c = u[0];
	if (c < 0x80)
		return 1;
	len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	if (!len)
		return 0;
	/* A NUL is not a continuation byte: the loop stops there. */
	for (int i = 1; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	cp = c & (0x7fu >> len);
	for (int i = 1; i < len; i++)
		cp = cp << 6 | (u[i] & 0x3fu);
	/* Overlong forms, surrogates and code points above U+10FFFF are not UTF-8. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* Whether the valid character of len bytes at u is a control character. */
static bool is_control(const unsigned char *u, int len)
{
	if (len == 1)
		return u[0] < 0x20 || u[0] == 0x7f;
	return len == 2 && u[0] == 0xc2 && u[1] < 0xa0; /* C1: U+0080-U+009F */
}

bool pev_text_is_clean(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!s)
		return true;
	while (*u) {
		int len;

		/* Printable ASCII, nearly every name, byte by byte without decoding. */
		if (*u >= 0x20 && *u < 0x7f) {
			u++;
			continue;
		}
		len = pev_text_utf8_char((const char *)u);
		if (!len || is_control(u, len))
			return false;
		u += len;
	}
	return true;
}

/* Output into a bounded buffer, counting what did not fit too. */
struct sink {
	char *dst;
	size_t size, used;
};

static void put(struct sink *k, const void *bytes, size_t n)
{
	if (k->used < k->size) {
		size_t room = k->size - 1 - k->used;
		memcpy(k->dst + k->used, bytes, n < room ? n : room);
	}
	k->used += n;
}

static size_t finish(struct sink *k)
{
	if (k->size)
		k->dst[k->used < k->size ? k->used : k->size - 1] = '\0';
	return k->used;
}

static void put_hex(struct sink *k, unsigned char c)
{
	static const char digits[] = "0123456789abcdef";
	char e[4] = {'\\', 'x', digits[c >> 4], digits[c & 0xf]};

	put(k, e, sizeof(e));
}

size_t pev_text_escape(char *dst, size_t size, const char *src, unsigned flags)
{
	struct sink k = {dst, size, 0};
	const unsigned char *u = (const unsigned char *)(src ? src : "");

	while (*u) {
		int len = (flags & PEV_TEXT_ASCII) && *u >= 0x80 ? 0
							: pev_text_utf8_char((const char *)u);

		if (len && !is_control(u, len)) {
			put(&k, u, (size_t)len);
			u += len;
			continue;
		}
		/* A control character, or one byte that starts nothing valid. */
		for (int i = 0; i < (len ? len : 1); i++)
			put_hex(&k, u[i]);
		u += len ? len : 1;
	}
	return finish(&k);
}

int pev_text_fputs(const char *s, FILE *out)
{
	const unsigned char *u = (const unsigned char *)s, *run;

	if (!out)
		return EOF;
	if (!s)
		return 0;
	while (*u) {
		int len = 0;

		/* The longest run of bytes shown as they are, written at once. */
		for (run = u; *u && (len = pev_text_utf8_char((const char *)u)) && !is_control(u, len);)
			u += len;
		if (u > run && fwrite(run, 1, (size_t)(u - run), out) != (size_t)(u - run))
			return EOF;
		if (!*u)
			break;
		for (int i = 0; i < (len ? len : 1); i++)
			if (fprintf(out, "\\x%02x", u[i]) < 0)
				return EOF;
		u += len ? len : 1;
	}
	return 0;
}

size_t pev_text_utf8(char *dst, size_t size, const char *src)
{
	struct sink k = {dst, size, 0};
	const unsigned char *u = (const unsigned char *)(src ? src : "");

	while (*u) {
		int len = pev_text_utf8_char((const char *)u);

		if (len) {
			put(&k, u, (size_t)len);
			u += len;
		} else {
			put(&k, "\xef\xbf\xbd", 3); /* U+FFFD */
			u++;
		}
	}
	return finish(&k);
}
