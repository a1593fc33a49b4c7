/* SPDX-License-Identifier: MIT */
#include "selflog.h"
#include "app.h"

#include <stdlib.h>

TF static int parse_one(const char **s)
{
	sl_enter("parse_one");
	char *end;
	int v = (int)strtol(*s, &end, 10);
	*s = end;
	sl_exit("parse_one");
	return v;
}

int parse_numbers(const char *s, int *out, int max)
{
	sl_enter("parse_numbers");
	int n = 0;
	while (*s && n < max) {
		out[n++] = parse_one(&s);
		while (*s == ' ')
			s++;
	}
	sl_exit("parse_numbers");
	return n;
}
