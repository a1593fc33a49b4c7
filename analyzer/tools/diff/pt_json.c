/* SPDX-License-Identifier: MIT */
/* The JSON reader (pt_json.h): recursive descent over the whole text. */
#include "pt_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_JSON_DEPTH 64 /* nesting past this is refused, not a stack overflow */

typedef struct jp {
	const char *s;
	size_t len, i;
	char *err;
	size_t errlen;
	int failed;
} jp;

static int fail(jp *p, const char *what)
{
	if (!p->failed)
		snprintf(p->err, p->errlen, "offset %zu: %s", p->i, what);
	p->failed = 1;
	return -1;
}

static void skip_ws(jp *p)
{
	while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
	                         p->s[p->i] == '\r'))
		p->i++;
}

static int hex4(jp *p, unsigned *v)
{
	if (p->i + 4 > p->len)
		return fail(p, "short \\u escape");
	*v = 0;
	for (int k = 0; k < 4; k++) {
		char c = p->s[p->i++];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
		             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		             : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
		                                    : 16;
		if (d == 16)
			return fail(p, "bad \\u escape");
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* At the opening quote: the unescaped string (malloc'ed), NULL on error. */
static char *string(jp *p)
{
	p->i++;
	/* unescaped, it is never longer than escaped */
	size_t start = p->i;
	while (p->i < p->len && p->s[p->i] != '"')
		p->i += p->s[p->i] == '\\' ? 2 : 1;
	if (p->i >= p->len) {
		fail(p, "string not closed");
		return NULL;
	}
	char *out = malloc(p->i - start + 1);
	if (!out) {
		fail(p, "out of memory");
		return NULL;
	}
	size_t n = 0;
	int bad = 0;
	for (p->i = start; !bad && p->s[p->i] != '"';) {
		char c = p->s[p->i++];
		if ((unsigned char)c < 0x20) {
			fail(p, "control character in a string");
			bad = 1;
			continue;
		}
		if (c != '\\') {
			out[n++] = c;
			continue;
		}
		c = p->s[p->i++];
		const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
		const char *k = strchr(from, c);
		if (c && k) {
			out[n++] = to[k - from];
			continue;
		}
		unsigned cp, lo;
		if (c != 'u' || hex4(p, &cp)) {
			bad = 1;
			continue;
		}
		if (cp >= 0xd800 && cp < 0xdc00 && p->i + 6 <= p->len && p->s[p->i] == '\\' &&
		    p->s[p->i + 1] == 'u') {
			size_t back = p->i;
			p->i += 2;
			if (hex4(p, &lo)) {
				bad = 1;
				continue;
			}
			if (lo >= 0xdc00 && lo < 0xe000)
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			else
				p->i = back;
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd;
		/* "\uXXXX" is 6 bytes, its UTF-8 at most 4 (a pair: 12 and 4) */
		n += put_utf8(out + n, cp);
	}
	if (bad || p->failed) {
		fail(p, "bad escape in a string");
		free(out);
		return NULL;
	}
	p->i++;
	out[n] = 0;
	return out;
}

static int value(jp *p, pt_json *v, int depth);

static int push(jp *p, pt_json *v, size_t *cap, pt_json **slot)
{
	if (v->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 8;
		pt_json *k = realloc(v->kids, nc * sizeof *k);
		if (!k)
			return fail(p, "out of memory");
		v->kids = k;
		*cap = nc;
	}
	*slot = &v->kids[v->n];
	memset(*slot, 0, sizeof **slot);
	return 0;
}

static int container(jp *p, pt_json *v, int depth)
{
	int obj = p->s[p->i] == '{';
	char close = obj ? '}' : ']';
	v->type = obj ? PT_JSON_OBJECT : PT_JSON_ARRAY;
	if (depth >= PT_JSON_DEPTH)
		return fail(p, "nested too deep");
	p->i++;
	skip_ws(p);
	if (p->i < p->len && p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	size_t cap = 0;
	for (;;) {
		pt_json *k;
		if (push(p, v, &cap, &k))
			return -1;
		v->n++; /* freed with the rest from here on, its name too */
		skip_ws(p);
		if (obj) {
			if (p->i >= p->len || p->s[p->i] != '"')
				return fail(p, "expected a member's name");
			if (!(k->key = string(p)))
				return -1;
			skip_ws(p);
			if (p->i >= p->len || p->s[p->i] != ':')
				return fail(p, "expected ':'");
			p->i++;
		}
		if (value(p, k, depth + 1))
			return -1;
		skip_ws(p);
		if (p->i < p->len && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->len && p->s[p->i] == close) {
			p->i++;
			return 0;
		}
		return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int number(jp *p, pt_json *v)
{
	const char *b = p->s + p->i;
	size_t k = 0;
	while (p->i + k < p->len && strchr("+-0123456789.eE", b[k]))
		k++;
	char buf[64];
	if (!k || k >= sizeof buf)
		return fail(p, "expected a value");
	memcpy(buf, b, k);
	buf[k] = 0;
	char *e;
	v->num = strtod(buf, &e);
	if (*e || !isfinite(v->num))
		return fail(p, "bad number");
	v->type = PT_JSON_NUMBER;
	p->i += k;
	return 0;
}

static int word(jp *p, pt_json *v, const char *w, enum pt_json_type t, double num)
{
	size_t n = strlen(w);
	if (p->len - p->i < n || memcmp(p->s + p->i, w, n))
		return fail(p, "expected a value");
	p->i += n;
	v->type = t;
	v->num = num;
	return 0;
}

static int value(jp *p, pt_json *v, int depth)
{
	skip_ws(p);
	if (p->i >= p->len)
		return fail(p, "unexpected end");
	switch (p->s[p->i]) {
	case '{':
	case '[':
		return container(p, v, depth);
	case '"':
		v->type = PT_JSON_STRING;
		return (v->str = string(p)) ? 0 : -1;
	case 't':
		return word(p, v, "true", PT_JSON_BOOL, 1);
	case 'f':
		return word(p, v, "false", PT_JSON_BOOL, 0);
	case 'n':
		return word(p, v, "null", PT_JSON_NULL, 0);
	default:
		return number(p, v);
	}
}

static void free_kids(pt_json *v)
{
	for (size_t i = 0; i < v->n; i++)
		free_kids(&v->kids[i]);
	free(v->kids);
	free(v->str);
	free(v->key);
}

void pt_json_free(pt_json *v)
{
	if (!v)
		return;
	free_kids(v);
	free(v);
}

pt_json *pt_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	jp p = {.s = text, .len = len, .err = err, .errlen = errlen};
	pt_json *v = calloc(1, sizeof *v);
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (value(&p, v, 0) == 0) {
		skip_ws(&p);
		if (p.i < p.len)
			fail(&p, "text after the value");
	}
	if (p.failed) {
		pt_json_free(v);
		return NULL;
	}
	return v;
}

const pt_json *pt_json_get(const pt_json *v, const char *key)
{
	if (!v || v->type != PT_JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->kids[i].key, key))
			return &v->kids[i];
	return NULL;
}

double pt_json_num(const pt_json *obj, const char *key)
{
	const pt_json *v = pt_json_get(obj, key);
	return v && v->type == PT_JSON_NUMBER ? v->num : 0;
}

const char *pt_json_strv(const pt_json *obj, const char *key)
{
	const pt_json *v = pt_json_get(obj, key);
	return v && v->type == PT_JSON_STRING ? v->str : NULL;
}
