/* SPDX-License-Identifier: MIT */
/* Shared between the reader's own files (not installed). */
#ifndef PT_LOG_INTERNAL_H
#define PT_LOG_INTERNAL_H

#include <paratrace/format.h>
#include <stddef.h>

/* pt_log_open flag bit set by pt_log_open_path: the parser owns the fd.
 * Kept out of the public flag space (public flags are low bits). */
#define PT_LOG_OWN_FD 0x80000000u

/* Validates a file header (magic, byte order, version, sizes, clock).
 * Returns 0, or -1 with a reason in err. */
int pt_log_check_header(const void *data, size_t len, char *err, size_t errlen);

#endif
