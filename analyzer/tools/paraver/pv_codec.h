/* SPDX-License-Identifier: MIT */
/* The temporary streams' record format (private to pv_stream.c, which
 * writes it, and pv_merge.c, which reads it back); pv_stream.c's comment
 * describes it. */
#ifndef PT_PV_CODEC_H
#define PT_PV_CODEC_H

#include "pv.h"

#include <stdint.h>
#include <string.h>

/* The longest record: op, a 64-bit delta, a text length and the text. */
#define PV_REC_MAX (1 + 10 + 2 + PV_LINE_MAX)

/* Entries and exits share one op and one code path: which of the two
 * comes next is as unpredictable as a random call tree, and a branch on
 * it would be mispredicted about half the time. POP and CUT end frames
 * (pv_stream.c): the thinning pass (pv_thin.c) follows calls through them. */
enum { PV_OP_TEXT, PV_OP_FUNC, PV_OP_POP, PV_OP_CUT };
static const size_t enter_fixed = sizeof ":60000019::60000119:\n" - 1;
#define PV_POP_PAIR ":60000019:0:60000119:0"
#define PV_POP_PAIR_LEN (sizeof PV_POP_PAIR - 1)
#define PV_POP_MAX 32 /* frames one POP line ends */

/* Text of a function line (id 0: an exit). */
static inline size_t func_text_len(uint32_t id)
{
	return enter_fixed + 2 * pv_digits(id);
}
/* Room a function line's text needs at most (two 10-digit ids). */
#define PV_FUNC_TEXT_MAX (sizeof ":60000019::60000119:\n" - 1 + 20)

static inline uint8_t *put_leb(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* NULL when the number runs past e or past 64 bits (damage). */
static inline const uint8_t *get_leb(const uint8_t *p, const uint8_t *e, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned sh = 0; p < e && sh < 64; sh += 7) {
		uint8_t b = *p++;
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

/* One decoded record. */
typedef struct rec {
	uint64_t key;
	unsigned op;
	uint32_t id;      /* PV_OP_FUNC; 0: exit. PV_OP_POP, PV_OP_CUT: frames ended */
	uint16_t tlen;    /* PV_OP_TEXT, PV_OP_CUT: length of text */
	const char *text; /* PV_OP_TEXT, PV_OP_CUT */
} rec;

/* Decodes the record at p (ending before e) that follows key `prev`.
 * Returns its size, 0 if it runs past e, -1 if it is not a record. */
static inline long rec_decode(const uint8_t *p, const uint8_t *e, uint64_t prev, rec *r)
{
	const uint8_t *q = p;
	if (q >= e)
		return 0;
	r->op = *q++;
	uint64_t d;
	if (!(q = get_leb(q, e, &d)))
		return e - p < 11 ? 0 : -1;
	r->key = prev + d;
	switch (r->op) {
	case PV_OP_FUNC:
	case PV_OP_POP:
	case PV_OP_CUT: {
		uint64_t id;
		const uint8_t *x = get_leb(q, e, &id);
		if (!x)
			return e - q < 5 ? 0 : -1;
		if (id > UINT32_MAX || (r->op == PV_OP_POP && (id == 0 || id > PV_POP_MAX)))
			return -1;
		r->id = (uint32_t)id;
		q = x;
		if (r->op != PV_OP_CUT)
			break;
	}
		/* fall through - a CUT's text follows */
	case PV_OP_TEXT:
		if (e - q < 2)
			return 0;
		memcpy(&r->tlen, q, 2);
		q += 2;
		if (r->tlen > PV_LINE_MAX)
			return -1;
		if (e - q < r->tlen)
			return 0;
		r->text = (const char *)q;
		q += r->tlen;
		break;
	default:
		return -1;
	}
	return q - p;
}

/* Bytes of output text of a record (prefix and key included). */
static inline uint64_t rec_text(const rec *r, size_t prefix_len)
{
	uint64_t t = r->op == PV_OP_FUNC  ? func_text_len(r->id)
	             : r->op == PV_OP_POP ? r->id * PV_POP_PAIR_LEN + 1
	                                  : r->tlen;
	return t + (prefix_len ? prefix_len + pv_digits(r->key) : 0);
}

/* pwrite of n bytes at off, whole: 0, or an errno. */
int pv_write_at(int fd, const char *p, size_t n, uint64_t off);

#endif
