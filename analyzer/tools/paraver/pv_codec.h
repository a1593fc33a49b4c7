/* SPDX-License-Identifier: MIT */
/* The temporary streams' record format (private to pv_stream.c, which
 * writes it, and pv_merge.c, which reads it back); pv_stream.c's comment
 * describes it. */
#ifndef PT_PV_CODEC_H
#define PT_PV_CODEC_H

#include "pv.h"

#include <stdint.h>
#include <string.h>

/* The longest record: op, a 64-bit delta, a kind and an object (SYNC), a
 * text length and the text. */
#define PV_REC_MAX (1 + 10 + 1 + 5 + 5 + 1 + 10 * PV_TALLY_MAX + 2 + PV_LINE_MAX)

/* Entries and exits share one op and one code path: which of the two
 * comes next is as unpredictable as a random call tree, and a branch on
 * it would be mispredicted about half the time. POP and CUT end frames
 * (pv_stream.c): the thinning pass (pv_thin.c) follows calls through them. */
enum { PV_OP_TEXT, PV_OP_FUNC, PV_OP_POP, PV_OP_CUT, PV_OP_SYNC, PV_OP_CALL };
/* PV_OP_SYNC: a PV_SY_* line (pv.h). PV_OP_CALL: a PV_FC_* line. */
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
	uint32_t id;      /* PV_OP_FUNC; 0: exit. PV_OP_POP, PV_OP_CUT: frames ended.
	                     PV_OP_SYNC: the object (61000010 value) */
	uint8_t sub;      /* PV_OP_SYNC: PV_SY_*; PV_OP_CALL: PV_FC_* */
	uint8_t ntally;   /* PV_OP_CALL: tally's values */
	uint32_t fam, aux;            /* PV_OP_CALL: the family, its states */
	uint64_t tally[PV_TALLY_MAX]; /* PV_OP_CALL */
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
	if (r->op == PV_OP_SYNC || r->op == PV_OP_CALL) {
		if (q >= e)
			return 0;
		r->sub = *q++;
	}
	if (r->op == PV_OP_CALL) {
		/* [family][aux][n][n tallies], then the text as PV_OP_TEXT's */
		uint64_t v[2];
		for (int i = 0; i < 2; i++)
			if (!(q = get_leb(q, e, &v[i])))
				return e - p < PV_REC_MAX ? 0 : -1;
		if (q >= e)
			return 0;
		r->ntally = *q++;
		if (r->ntally > PV_TALLY_MAX || v[0] > UINT32_MAX || v[1] > UINT32_MAX)
			return -1;
		r->fam = (uint32_t)v[0];
		r->aux = (uint32_t)v[1];
		for (unsigned i = 0; i < r->ntally; i++)
			if (!(q = get_leb(q, e, &r->tally[i])))
				return e - p < PV_REC_MAX ? 0 : -1;
		goto text;
	}
	switch (r->op) {
	case PV_OP_FUNC:
	case PV_OP_POP:
	case PV_OP_CUT:
	case PV_OP_SYNC: {
		uint64_t id;
		const uint8_t *x = get_leb(q, e, &id);
		if (!x)
			return e - q < 5 ? 0 : -1;
		if (id > UINT32_MAX || (r->op == PV_OP_POP && (id == 0 || id > PV_POP_MAX)))
			return -1;
		r->id = (uint32_t)id;
		q = x;
		if (r->op != PV_OP_CUT && r->op != PV_OP_SYNC)
			break;
	}
		/* fall through - a CUT's or SYNC's text follows */
	case PV_OP_TEXT:
	text:
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
