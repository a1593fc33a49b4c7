/* SPDX-License-Identifier: MIT */
/* A small JSON reader, enough for what paratrace writes (`report --json`
 * read back by `paratrace diff`): the whole text parsed into a tree of
 * values; strings unescaped (\uXXXX to UTF-8, a lone surrogate to U+FFFD).
 * Errors say the byte offset. */
#ifndef PT_JSON_H
#define PT_JSON_H

#include <stddef.h>
#include <stdint.h>

enum pt_json_type {
	PT_JSON_NULL,
	PT_JSON_BOOL,
	PT_JSON_NUMBER,
	PT_JSON_STRING,
	PT_JSON_ARRAY,
	PT_JSON_OBJECT
};

typedef struct pt_json {
	enum pt_json_type type;
	double num;           /* NUMBER; BOOL: 0 or 1 */
	char *str;            /* STRING: its text; a member of an OBJECT: its name in key */
	char *key;            /* the member's name, when in an object */
	struct pt_json *kids; /* ARRAY, OBJECT: n values */
	size_t n;
} pt_json;

/* Parses text[0..len): the root, or NULL with a message in err (the
 * offset of the first byte that does not fit). */
pt_json *pt_json_parse(const char *text, size_t len, char *err, size_t errlen);
void pt_json_free(pt_json *v);

/* Member `key` of an object (NULL: none, or v not an object). */
const pt_json *pt_json_get(const pt_json *v, const char *key);
/* Its number (0 if absent or not a number), its string (NULL if not one). */
double pt_json_num(const pt_json *obj, const char *key);
const char *pt_json_strv(const pt_json *obj, const char *key);

#endif
