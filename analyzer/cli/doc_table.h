/* SPDX-License-Identifier: MIT */
/* A generated table inside a document (pt_format_doc, pt_settings_doc):
 * the table sits between two marker lines of the file, and is compared
 * with the generated one (--check) or replaced by it (--update). */
#ifndef PT_DOC_TABLE_H
#define PT_DOC_TABLE_H

#include <stddef.h>

typedef struct pt_doc_table {
	const char *tool;   /* program name, for messages */
	const char *begin;  /* the line before the table, with its '\n' */
	const char *end;    /* the line after it, with its '\n' */
	const char *source; /* where the table comes from, for messages */
	const char *text;   /* the generated table */
	size_t len;
} pt_doc_table;

/* Compares the table in the document at path with t's, or replaces it.
 * Returns the exit status: 0 same (or updated), 1 differs or cannot be
 * written, 2 no markers. */
int pt_doc_table_sync(const pt_doc_table *t, const char *path, int update);

#endif
