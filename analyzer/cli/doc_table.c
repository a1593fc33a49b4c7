/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "doc_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		if (cap - *len < 4096) {
			cap = cap ? cap * 2 : 65536;
			char *n = realloc(buf, cap + 1);
			if (!n)
				break;
			buf = n;
		}
		size_t got = fread(buf + *len, 1, cap - *len, f);
		*len += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad || !buf) {
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

int pt_doc_table_sync(const pt_doc_table *t, const char *path, int update)
{
	size_t len;
	char *doc = slurp(path, &len);
	char *begin = doc ? strstr(doc, t->begin) : NULL;
	char *end = begin ? strstr(begin, t->end) : NULL;
	if (!end) {
		fprintf(stderr, "%s: %s: no generated table (between the lines %.*s and %.*s)\n",
		        t->tool, path, (int)strlen(t->begin) - 1, t->begin, (int)strlen(t->end) - 1,
		        t->end);
		free(doc);
		return 2;
	}
	begin += strlen(t->begin);
	int rc = 0;
	if ((size_t)(end - begin) == t->len && !memcmp(begin, t->text, t->len)) {
		rc = 0;
	} else if (!update) {
		fprintf(stderr,
		        "%s: %s: %s; regenerate it with\n"
		        "  build/bin/%s --update %s\n"
		        "The table they give:\n%s",
		        t->tool, path, t->source, t->tool, path, t->text);
		rc = 1;
	} else {
		size_t head = (size_t)(begin - doc), tail = len - (size_t)(end - doc);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(doc, 1, head, f) != head ||
		    fwrite(t->text, 1, t->len, f) != t->len || fwrite(end, 1, tail, f) != tail) {
			perror(path);
			rc = 1;
		}
		if (f && fclose(f)) {
			perror(path);
			rc = 1;
		}
	}
	free(doc);
	return rc;
}
