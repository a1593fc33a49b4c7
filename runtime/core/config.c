/* SPDX-License-Identifier: MIT */
/* PARATRACE_* environment variables, read once at init by one parser from
 * the settings the parts declare (settings_list.h). A value that does not
 * parse turns tracing off with one line on stderr: a half-understood
 * configuration would produce a trace the user did not ask for. */
#define _GNU_SOURCE
#include "core.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

pt_config pt_cfg;
const char *pt_config_clock = "auto";

const pt_config *pt_config_get(void)
{
	return &pt_cfg;
}

static int parse_bool(const char *s, int *out)
{
	static const char *const yes[] = {"1", "yes", "true", "on"};
	static const char *const no[] = {"0", "no", "false", "off"};
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* Unsigned decimal prefix; returns the rest of the string or NULL. */
static const char *parse_u64(const char *s, uint64_t *out)
{
	if (!isdigit((unsigned char)*s))
		return NULL;
	uint64_t v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	*out = v;
	return s;
}

int pt_parse_size(const char *s, uint64_t *out)
{
	uint64_t v;
	const char *r = parse_u64(s, &v);
	if (!r)
		return -1;
	unsigned shift = 0;
	switch (*r) {
	case 'k': case 'K': shift = 10; r++; break;
	case 'm': case 'M': shift = 20; r++; break;
	case 'g': case 'G': shift = 30; r++; break;
	default: break;
	}
	if (shift && (*r == 'i' || *r == 'I') && (r[1] == 'b' || r[1] == 'B'))
		r += 2;
	else if (*r == 'b' || *r == 'B')
		r++;
	if (*r)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int pt_parse_duration_ns(const char *s, uint64_t *out)
{
	uint64_t v;
	const char *r = parse_u64(s, &v);
	if (!r)
		return -1;
	uint64_t mul;
	if (!*r || !strcmp(r, "ns"))
		mul = 1;
	else if (!strcmp(r, "us"))
		mul = 1000;
	else if (!strcmp(r, "ms"))
		mul = 1000000;
	else if (!strcmp(r, "s"))
		mul = 1000000000;
	else
		return -1;
	if (v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_int_range(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v;
	const char *r = parse_u64(s, &v);
	if (!r || *r || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The index of s among the '|'-separated words (the first len bytes of
 * s when len is not -1), or -1. */
static int word_index(const char *words, const char *s, size_t len)
{
	if (len == (size_t)-1)
		len = strlen(s);
	for (int i = 0; *words; i++) {
		const char *end = strchr(words, '|');
		size_t n = end ? (size_t)(end - words) : strlen(words);
		if (n == len && !strncmp(words, s, len))
			return i;
		words += n + (end != NULL);
	}
	return -1;
}

/* A LIST: a comma-separated list of words, bit i for word i, "all" for
 * all the others. Empty items are skipped; at least one word. */
static int parse_list(const char *words, const char *s, unsigned *out)
{
	int all = word_index(words, "all", (size_t)-1);
	unsigned mask = 0;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		int i = len ? word_index(words, s, len) : -2;
		if (i == -1)
			return -1;
		if (i >= 0)
			mask |= i == all ? (1u << all) - 1 : 1u << i;
		s += len + (end != NULL);
	}
	*out = mask;
	return mask ? 0 : -1;
}

typedef enum {
	PT_SET_BOOL,
	PT_SET_INT,
	PT_SET_SIZE,
	PT_SET_DURATION,
	PT_SET_ENUM,
	PT_SET_WORD,
	PT_SET_LIST,
	PT_SET_STRING,
	PT_SET_PATH
} pt_setting_kind;

typedef struct pt_setting {
	pt_setting_kind kind;
	const char *name;
	size_t offset;
	int64_t def;
	const char *def_str;
	uint64_t lo, hi;
	const char *words, *expect;
} pt_setting;

#define PT_SET_POINTER_BOOL 0
#define PT_SET_POINTER_INT 0
#define PT_SET_POINTER_SIZE 0
#define PT_SET_POINTER_DURATION 0
#define PT_SET_POINTER_ENUM 0
#define PT_SET_POINTER_LIST 0
#define PT_SET_POINTER_WORD 1
#define PT_SET_POINTER_STRING 1
#define PT_SET_POINTER_PATH 1
/* The default as a number or as a string, by kind; the other one is 0. */
#define PT_SET_DEF_0(def) ((int64_t)(def))
#define PT_SET_DEF_1(def) 0
#define PT_SET_DEF_STR_0(def) NULL
#define PT_SET_DEF_STR_1(def) (def)
#define PT_SET_CAT(a, b) a##b
#define PT_SET_PICK(macro, pointer, def) PT_SET_CAT(macro, pointer)(def)

static const pt_setting settings[] = {
#define PT_SETTING(kind, field, var, def, lo, hi, words, expect, shown, help)                      \
	{PT_SET_##kind,                                                                            \
	 #var,                                                                                     \
	 offsetof(pt_config, field),                                                               \
	 PT_SET_PICK(PT_SET_DEF_, PT_SET_POINTER_##kind, def),                                     \
	 PT_SET_PICK(PT_SET_DEF_STR_, PT_SET_POINTER_##kind, def),                                 \
	 (lo),                                                                                     \
	 (hi),                                                                                     \
	 words,                                                                                    \
	 expect},
#include "settings_list.h"
#undef PT_SETTING
};

static void set_default(const pt_setting *s, char *field)
{
	switch (s->kind) {
	case PT_SET_BOOL:
	case PT_SET_INT:
	case PT_SET_ENUM:
		*(int *)field = (int)s->def;
		break;
	case PT_SET_SIZE:
	case PT_SET_DURATION:
		*(uint64_t *)field = (uint64_t)s->def;
		break;
	case PT_SET_LIST:
		*(unsigned *)field = (unsigned)s->def;
		break;
	case PT_SET_WORD:
	case PT_SET_STRING:
	case PT_SET_PATH:
		*(const char **)field = s->def_str;
		break;
	}
}

/* Reads v (set, maybe empty) into the field. 0, or -1 with the error. */
static int parse_setting(const pt_setting *s, const char *v, char *field, char *err, size_t errlen)
{
	const char *expect = s->expect;
	uint64_t n = 0;
	int b, bad = 0;
	if (!*v && s->kind != PT_SET_PATH)
		return 0; /* empty: the default */
	switch (s->kind) {
	case PT_SET_BOOL:
		if (s->words && !strcmp(v, s->words))
			*(int *)field = -1;
		else if (!(bad = parse_bool(v, &b)))
			*(int *)field = b;
		break;
	case PT_SET_INT:
		if (!(bad = parse_int_range(v, s->lo, s->hi, &n)))
			*(int *)field = (int)n;
		break;
	case PT_SET_SIZE:
	case PT_SET_DURATION:
		/* `words` (what 0 means) lets 0 in below lo; a duration's 0
		 * may also be written as a word of BOOL's for off. */
		if (s->kind == PT_SET_DURATION && s->words && !parse_bool(v, &b) && !b)
			n = 0;
		else if (s->kind == PT_SET_SIZE ? pt_parse_size(v, &n)
		                                : pt_parse_duration_ns(v, &n))
			bad = 1;
		bad = bad || ((n || !s->words) && (n < s->lo || n > s->hi));
		if (!bad)
			*(uint64_t *)field = n;
		break;
	case PT_SET_ENUM:
		if (!(bad = (b = word_index(s->words, v, (size_t)-1)) < 0))
			*(int *)field = b;
		break;
	case PT_SET_WORD:
		if (!(bad = word_index(s->words, v, (size_t)-1) < 0))
			*(const char **)field = v;
		break;
	case PT_SET_LIST:
		bad = parse_list(s->words, v, (unsigned *)field);
		break;
	case PT_SET_PATH:
		if (!(bad = !*v) && strlen(v) >= s->hi) {
			bad = 1;
			expect = "a shorter path";
		}
		if (!bad)
			*(const char **)field = v;
		break;
	case PT_SET_STRING:
		*(const char **)field = v;
		break;
	}
	if (bad)
		snprintf(err, errlen, "%s='%s' not understood: expected %s", s->name, v, expect);
	return bad ? -1 : 0;
}

int pt_config_parse(pt_config *c, const char *(*get)(const char *name), char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
		set_default(&settings[i], (char *)c + settings[i].offset);
	pt_config_clock = c->clock;
	for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
		const char *v = get(settings[i].name);
		if (v &&
		    parse_setting(&settings[i], v, (char *)c + settings[i].offset, err, errlen))
			return -1;
	}
	pt_config_clock = c->clock;
	return 0;
}
