/* SPDX-License-Identifier: MIT */
/* The `paratrace dump` line of one event:
 *   <time_ns - base_ns> <pid> <tid> <KIND> [key=value ...] [name=<rest of line>]
 * Names are resolved through st when it is not NULL (--raw passes NULL).
 * ev must come from the reader (its payload checks are what make every
 * field read here safe). */
#ifndef PT_DUMP_FORMAT_H
#define PT_DUMP_FORMAT_H

#include <paratrace/log.h>
#include <stdint.h>
#include <stdio.h>

#include "pt_symbols.h"

void pt_dump_event(FILE *out, const pt_event *ev, uint32_t pid, uint32_t tid,
		   const pt_file_header *hdr, uint64_t base_ns, pt_symtab *st);

/* The fields of a kind's dump line as docs/FORMAT.md's table of kinds shows
 * them ("obj=0x.. type=mutex/..."). -1 for a kind the schema does not have. */
int pt_dump_describe(FILE *out, unsigned kind);

#endif
