/* SPDX-License-Identifier: MIT */
/* Two profiles side by side (`paratrace diff A B`): each side is the JSON
 * `report --json` prints (read from a file, or made from a trace by the
 * command). Functions are matched by name and file, locks by kind and
 * object, threads by program and label without their pid and tid (the
 * k-th thread of one label with the k-th); each table is sorted by the
 * biggest change of its main time (functions: exclusive time; locks: wait;
 * threads: lifetime), largest first. */
#ifndef PT_DIFF_H
#define PT_DIFF_H

#include "pt_json.h"

#include <stdio.h>

enum { PT_DIFF_TEXT, PT_DIFF_CSV, PT_DIFF_JSON };

typedef struct pt_diff_side {
	const char *label; /* what the user named: the trace or the file */
	const pt_json *profile;
} pt_diff_side;

/* 0, or -1 with a message in err (a side that is no profile, no memory). */
int pt_diff_print(const pt_diff_side *a, const pt_diff_side *b, int format, unsigned top, FILE *o,
                  char *err, size_t errlen);

#endif
