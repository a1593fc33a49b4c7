/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of the manual API (<paratrace/tool.h>): user
 * events, their types and value names. This family's rows of the record schema
 * (PT_REC_ROWS_USER), payload structs, their dump fields and constants.
 * <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_USER_H
#define PARATRACE_FORMAT_USER_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/user.h>"
#endif

#define PT_REC_ROWS_USER(X) \
	/* Manual API */ \
	X(USER_EVENT, 12, pt_rec_user_event, sizeof(pt_rec_user_event), 0, "thread", "–", "") \
	X(USER_TYPE, 13, pt_rec_user_type, sizeof(pt_rec_user_type), 0, "process", "–", "+ name") \
	X(USER_VALUE_NAME, 14, pt_rec_user_event, sizeof(pt_rec_user_event), 0, "process", "–", \
	  "+ name")

typedef struct pt_rec_user_event {
	uint32_t type;
	uint32_t pad;
	int64_t value;
} pt_rec_user_event;
#define PT_FIELDS_USER_EVENT(T, F, A, S, C) F(T, U, "type", type, "") F(T, I, "value", value, "")
#define PT_FIELDS_USER_VALUE_NAME(T, F, A, S, C) \
	PT_FIELDS_USER_EVENT(T, F, A, S, C) S(sizeof(T), PLAIN)

typedef struct pt_rec_user_type {
	uint32_t type;
	uint32_t flags; /* PT_USER_TYPE_* */
	/* followed by NUL-terminated name */
} pt_rec_user_type;
#define PT_USER_TYPE_SCOPE 0x1 /* value 0 closes the scope */
#define PT_FIELDS_USER_TYPE(T, F, A, S, C) \
	F(T, U, "type", type, "") F(T, FLAGS, "flags", flags, "scope") S(sizeof(T), PLAIN)

#endif /* PARATRACE_FORMAT_USER_H */
