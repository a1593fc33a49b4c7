/* SPDX-License-Identifier: MIT */
/* Shared between the reader's own files, and with ptsym, which links the
 * static reader (not installed, not exported by libptlog.so). */
#ifndef PT_LOG_INTERNAL_H
#define PT_LOG_INTERNAL_H

#include <paratrace/format.h>
#include <stdarg.h>
#include <stddef.h>

/* pt_log_open flag bit set by pt_log_open_path: the parser owns the fd.
 * Kept out of the public flag space (public flags are low bits). */
#define PT_LOG_OWN_FD 0x80000000u

/* Validates a file header (magic, byte order, version, sizes, clock).
 * Returns 0, or -1 with a reason in err. */
int pt_log_check_header(const void *data, size_t len, char *err, size_t errlen);

/* Appends one line (printf-style, cut at 1023 bytes, then '\n') to the
 * warnings *text of *len bytes, which stay NUL-terminated. 0, or -1 when
 * out of memory (the line is dropped, *text kept). */
int pt_warn_vappend(char **text, size_t *len, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
