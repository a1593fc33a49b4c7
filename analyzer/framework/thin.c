/* SPDX-License-Identifier: MIT */
/* Leaving calls out, summarised (pt_thin.h has the rule). */
#include "pt_thin.h"

#include <stdlib.h>
#include <string.h>

/* ---- deciding --------------------------------------------------------- */
void pt_thin_in_init(pt_thin_in *in, uint64_t min_ns, const pt_select *sel, const pt_trace_ctx *ctx)
{
	memset(in, 0, sizeof *in);
	in->min_ns = min_ns;
	pt_sel_funcs_init(&in->funcs, sel, ctx);
}

void pt_thin_in_free(pt_thin_in *in)
{
	pt_sel_funcs_free(&in->funcs);
	free(in->st);
	free(in->dec);
	memset(in, 0, sizeof *in);
}

/* A frame's decision lives in the ring (for the consumer) and, while the
 * frame is open, in its seq's slot being non-zero; a slot the consumer
 * released may be reused, so frames below first_open are never read. */
static void decide(pt_thin_in *in, const pt_thin_in_frame *f, int d)
{
	if (f->seq >= in->seq_base)
		in->dec[f->seq & in->dmask] = (uint8_t)d;
}

static int decided(const pt_thin_in *in, const pt_thin_in_frame *f)
{
	return f->seq < in->seq_base || in->dec[f->seq & in->dmask] != PT_THIN_UNDECIDED;
}

/* Frames that have lasted min_ns by t are kept. Entries are in time order
 * up the stack, so the scan stops at the first that has not. */
static void advance(pt_thin_in *in, uint64_t t)
{
	while (in->first_open < in->depth) {
		const pt_thin_in_frame *f = &in->st[in->first_open];
		if (!decided(in, f)) {
			if (t - f->t < in->min_ns)
				return;
			decide(in, f, PT_THIN_KEEP);
		}
		in->first_open++;
	}
}

static int ring_room(pt_thin_in *in)
{
	size_t cap = in->dec ? in->dmask + 1 : 0;
	if (in->seq_next - in->seq_base < cap)
		return 0;
	size_t ncap = cap ? 2 * cap : 1024;
	uint8_t *d = calloc(ncap, 1);
	if (!d)
		return -1;
	for (uint64_t s = in->seq_base; s < in->seq_next; s++)
		d[s & (ncap - 1)] = in->dec[s & in->dmask];
	free(in->dec);
	in->dec = d;
	in->dmask = ncap - 1;
	return 0;
}

void pt_thin_in_enter(pt_thin_in *in, uint64_t t, uint32_t id)
{
	advance(in, t);
	if (ring_room(in)) {
		in->oom = 1;
		return;
	}
	if (in->depth == in->cap) {
		size_t ncap = in->cap ? 2 * in->cap : 64;
		pt_thin_in_frame *st = realloc(in->st, ncap * sizeof *st);
		if (!st) {
			in->oom = 1;
			return;
		}
		in->st = st;
		in->cap = ncap;
	}
	uint64_t seq = in->seq_next++;
	in->dec[seq & in->dmask] = pt_sel_func_left(&in->funcs, id) ? PT_THIN_LEAVE
	                           : in->min_ns                     ? PT_THIN_UNDECIDED
	                                                            : PT_THIN_KEEP;
	in->st[in->depth++] = (pt_thin_in_frame){t, seq};
}

void pt_thin_in_exit(pt_thin_in *in, uint64_t t, size_t n, int cut)
{
	advance(in, t);
	if (n > in->depth)
		n = in->depth;
	while (n--) {
		const pt_thin_in_frame *f = &in->st[--in->depth];
		if (!decided(in, f))
			decide(in, f, cut ? PT_THIN_KEEP : PT_THIN_LEAVE);
	}
	if (in->first_open > in->depth)
		in->first_open = in->depth;
}

void pt_thin_in_other(pt_thin_in *in, uint64_t t)
{
	advance(in, t);
}

void pt_thin_in_end(pt_thin_in *in)
{
	for (size_t i = in->first_open; i < in->depth; i++)
		if (!decided(in, &in->st[i]))
			decide(in, &in->st[i], PT_THIN_KEEP);
	in->first_open = in->depth;
}

/* ---- writing ---------------------------------------------------------- */
void pt_thin_out_init(pt_thin_out *out, const pt_thin_ops *ops, void *arg)
{
	memset(out, 0, sizeof *out);
	out->ops = ops;
	out->arg = arg;
}

void pt_thin_out_free(pt_thin_out *out)
{
	free(out->st);
	out->st = NULL;
	out->depth = out->cap = 0;
}

void pt_thin_out_enter(pt_thin_out *out, uint64_t t, uint32_t id, int kept)
{
	if (out->depth == out->cap) {
		size_t ncap = out->cap ? 2 * out->cap : 64;
		pt_thin_out_frame *st = realloc(out->st, ncap * sizeof *st);
		if (!st) {
			out->oom = 1;
			return;
		}
		out->st = st;
		out->cap = ncap;
	}
	out->st[out->depth++] = (pt_thin_out_frame){t, 0, id, kept};
	if (kept) {
		pt_thin_out_other(out, t);
		out->ops->enter(out->arg, t, id);
		out->calls_kept++;
	}
}

void pt_thin_out_exit(pt_thin_out *out, uint64_t t, size_t n, int cut)
{
	if (n > out->depth)
		n = out->depth;
	while (n--) {
		pt_thin_out_frame f = out->st[--out->depth];
		pt_thin_out_frame *parent = out->depth ? &out->st[out->depth - 1] : NULL;
		uint64_t dur = cut || t < f.t ? 0 : t - f.t;
		if (f.kept) {
			pt_thin_out_other(out, t);
			out->ops->exit(out->arg, t, f.id, cut);
			if (parent && !parent->kept)
				parent->inside += dur;
			continue;
		}
		out->calls_left++;
		out->pend_calls++;
		out->pend_t = t;
		if (parent && !parent->kept) {
			parent->inside += f.inside; /* its own time is inside the parent's */
		} else {
			uint64_t own = dur > f.inside ? dur - f.inside : 0;
			out->pend_ns += own;
			out->ns_left += own;
		}
	}
}
