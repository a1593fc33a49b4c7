/* SPDX-License-Identifier: MIT */
/* Strings from a trace as each kind of output writes them (pt_text.h has
 * the policies). */
#include "pt_text.h"

#include <stdlib.h>
#include <string.h>

static const char hex[] = "0123456789abcdef";

/* The UTF-8 sequence at p (at most avail bytes): its length (1 to 4) when
 * it is valid (RFC 3629: no overlong form, no surrogate, nothing above
 * U+10FFFF), else 0 with *bad set to the bytes of its maximal invalid
 * part, the longest start of a valid sequence there (at least 1): what one
 * U+FFFD replaces (Unicode's recommended practice). */
static size_t utf8_seq(const unsigned char *p, size_t avail, size_t *bad)
{
	unsigned c = p[0];
	*bad = 1;
	if (c < 0x80)
		return 1;
	unsigned lo = 0x80, hi = 0xbf;
	size_t n;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : lo;
		hi = c == 0xed ? 0x9f : hi;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : lo;
		hi = c == 0xf4 ? 0x8f : hi;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if (i >= avail || p[i] < lo || p[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

static size_t utf8_len(const unsigned char *p, size_t avail)
{
	size_t bad;
	return utf8_seq(p, avail, &bad);
}

/* A C1 control, U+0080..U+009F, encoded (2 bytes). */
static int is_c1(const unsigned char *p, size_t n)
{
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

/* The text policy at p: the bytes of the character there in *n; 1 when it
 * is written as it is, 0 when as \xNN escapes, one per byte. */
static int text_keeps(const unsigned char *p, size_t avail, unsigned flags, size_t *n)
{
	unsigned c = *p;
	*n = 1;
	if (c < 0x80)
		return c >= 0x20 && c != 0x7f && c != '\\' &&
		       !(c == ' ' && (flags & PT_TEXT_SPACE));
	size_t k = utf8_len(p, avail);
	if (!k)
		return 0;
	*n = k;
	return !is_c1(p, k);
}

static void put_escape(FILE *o, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char e[4] = {'\\', 'x', hex[p[i] >> 4], hex[p[i] & 15]};
		fwrite(e, 1, sizeof e, o);
	}
}

/* What a kept ASCII character becomes in a CSV cell or in markup (NULL:
 * itself). */
typedef const char *special_fn(unsigned char c);

static const char *csv_special(unsigned char c)
{
	return c == '"' ? "\"\"" : NULL;
}

static const char *xml_special(unsigned char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	default:
		return NULL;
	}
}

/* The text policy, with `special` for what it keeps; runs of kept bytes go
 * out in one write. */
static void text_write(FILE *o, const char *s, unsigned flags, special_fn *special)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t avail = strlen((const char *)p);
	const unsigned char *run = p;
	while (*p) {
		size_t n;
		int keep = text_keeps(p, avail, flags, &n);
		const char *sp = keep && special && n == 1 ? special(*p) : NULL;
		if (keep && !sp) {
			p += n;
			avail -= n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), o);
		if (sp)
			fputs(sp, o);
		else
			put_escape(o, p, n);
		p += n;
		avail -= n;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), o);
}

void pt_text_put(FILE *o, const char *s, unsigned flags)
{
	text_write(o, s, flags, NULL);
}

void pt_csv_str(FILE *o, const char *s)
{
	fputc('"', o);
	text_write(o, s, 0, csv_special);
	fputc('"', o);
}

void pt_label_put(FILE *o, const char *s)
{
	text_write(o, s, 0, NULL);
}

void pt_xml_str(FILE *o, const char *s)
{
	text_write(o, s, 0, xml_special);
}

size_t pt_text_escape(char *out, size_t outlen, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t avail = strlen((const char *)p), w = 0;
	while (*p) {
		size_t n;
		int keep = text_keeps(p, avail, 0, &n);
		size_t need = keep ? n : 4 * n;
		if (w + need >= outlen)
			break;
		if (keep) {
			memcpy(out + w, p, n);
		} else {
			for (size_t i = 0; i < n; i++) {
				char *e = out + w + 4 * i;
				e[0] = '\\';
				e[1] = 'x';
				e[2] = hex[p[i] >> 4];
				e[3] = hex[p[i] & 15];
			}
		}
		w += need;
		p += n;
		avail -= n;
	}
	out[w] = '\0';
	return w;
}

/* Bytes of the unit of escaped text at e: an escape, or a character. */
static size_t unit_len(const char *e)
{
	if (*e == '\\')
		return strnlen(e, 4);
	size_t n = utf8_len((const unsigned char *)e, strnlen(e, 4));
	return n ? n : 1;
}

/* Columns of e's first n bytes: one per byte that starts a character. */
static size_t cols_n(const char *e, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)e[i] & 0xc0) != 0x80;
	return c;
}

size_t pt_text_cols(const char *esc)
{
	return cols_n(esc, strlen(esc));
}

size_t pt_text_prefix(const char *esc, size_t max)
{
	size_t w = 0;
	while (esc[w]) {
		size_t u = unit_len(esc + w);
		if (w + u > max)
			break;
		w += u;
	}
	return w;
}

/* The longest start of esc in at most `cols` columns, in bytes. */
static size_t head_for_cols(const char *esc, size_t cols)
{
	size_t w = 0, c = 0;
	while (esc[w]) {
		size_t u = unit_len(esc + w), uc = cols_n(esc + w, u);
		if (c + uc > cols)
			break;
		w += u;
		c += uc;
	}
	return w;
}

/* Where the shortest end of esc in at most `cols` columns starts. */
static size_t tail_for_cols(const char *esc, size_t cols)
{
	size_t w = 0, left = pt_text_cols(esc);
	while (esc[w] && left > cols) {
		size_t u = unit_len(esc + w);
		left -= cols_n(esc + w, u);
		w += u;
	}
	return w;
}

size_t pt_text_cut(char *out, size_t outlen, const char *esc, size_t width, int keep_end)
{
	if (!outlen)
		return 0;
	if (width < 3)
		width = 3;
	const char *part = esc, *before = "", *after = "";
	size_t len;
	if (pt_text_cols(esc) <= width) {
		len = strlen(esc);
	} else if (keep_end) {
		part = esc + tail_for_cols(esc, width - 2);
		len = strlen(part);
		before = "..";
	} else {
		len = head_for_cols(esc, width - 2);
		after = "..";
	}
	size_t nb = strlen(before), na = strlen(after);
	char *all = malloc(nb + len + na + 1);
	if (!all) {
		out[0] = '\0';
		return 0;
	}
	memcpy(all, before, nb);
	memcpy(all + nb, part, len);
	memcpy(all + nb + len, after, na + 1);
	size_t w = pt_text_prefix(all, outlen - 1);
	memcpy(out, all, w);
	out[w] = '\0';
	free(all);
	return w;
}

size_t pt_text_fit(char *out, size_t outlen, const char *s, size_t width, int keep_end)
{
	size_t cap = 4 * strlen(s ? s : "") + 1;
	char *esc = malloc(cap);
	if (!esc) {
		if (outlen)
			out[0] = '\0';
		return 0;
	}
	pt_text_escape(esc, cap, s);
	size_t n = pt_text_cut(out, outlen, esc, width, keep_end);
	free(esc);
	return n;
}

void pt_xml_fit(FILE *o, const char *s, size_t width, int keep_end)
{
	size_t cap = 4 * strlen(s ? s : "") + 8;
	char *fit = malloc(cap);
	if (!fit)
		return;
	pt_text_fit(fit, cap, s, width, keep_end);
	/* already in the text policy: only the markup's own characters left */
	const char *run = fit, *p = fit;
	for (; *p; p++) {
		const char *sp = xml_special((unsigned char)*p);
		if (!sp)
			continue;
		fwrite(run, 1, (size_t)(p - run), o);
		fputs(sp, o);
		run = p + 1;
	}
	fwrite(run, 1, (size_t)(p - run), o);
	free(fit);
}

void pt_json_str(FILE *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t avail = strlen((const char *)p);
	const unsigned char *run = p;
	fputc('"', o);
	while (*p) {
		unsigned c = *p;
		size_t bad, n = utf8_seq(p, avail, &bad);
		if (n && c >= 0x20 && c != 0x7f && c != '"' && c != '\\' && !is_c1(p, n)) {
			p += n;
			avail -= n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), o);
		if (c == '"' || c == '\\') {
			fputc('\\', o);
			fputc((int)c, o);
		} else if (!n) {
			fputs("\\ufffd", o);
			n = bad;
		} else {
			fprintf(o, "\\u%04x", n == 2 ? p[1] : c); /* C0, DEL or C1 */
		}
		p += n;
		avail -= n;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), o);
	fputc('"', o);
}

size_t pt_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t k = utf8_len(p + i, n - i);
		if (!k)
			break;
		i += k;
	}
	return i;
}

size_t pt_utf8_fix(char *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		size_t bad, k = utf8_seq(p + i, n - i, &bad);
		if (k) {
			memcpy(out + w, p + i, k);
			w += k;
			i += k;
		} else {
			memcpy(out + w, "\xef\xbf\xbd", 3);
			w += 3;
			i += bad;
		}
	}
	out[w] = '\0';
	return w;
}
