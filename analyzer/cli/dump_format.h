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

#endif
