/* SPDX-License-Identifier: MIT */
/* Strings written into the tools' JSON and CSV outputs. */
#ifndef PT_TEXT_ESCAPE_H
#define PT_TEXT_ESCAPE_H

#include <stdio.h>

/* "s" with JSON escapes (quotes, backslashes, control characters). */
static inline void pt_json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

/* "s" as a CSV field (quotes doubled). */
static inline void pt_csv_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o);
		fputc(*s, o);
	}
	fputc('"', o);
}

#endif
