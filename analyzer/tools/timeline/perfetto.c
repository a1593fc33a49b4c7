/* SPDX-License-Identifier: MIT */
/* Perfetto's native trace format, an encoder of the timeline export
 * (timeline.h): a stream of TracePacket messages, each one field 1 of the
 * Trace message, so the file is written as it goes and the shards' parts
 * are simply concatenated. About 4x smaller than the JSON and 4x faster to
 * write (docs/ANALYZER.md); ui.perfetto.dev and trace_processor read it.
 *
 * Layout, after protos/perfetto/trace/ (the field numbers are below):
 * - a TrackDescriptor per process (ProcessDescriptor: pid, name) and, as the
 *   first packet of each shard's sequence, one for the shard's track: a
 *   thread (ThreadDescriptor: pid, tid, name) or a GPU stream (a named
 *   track under its process);
 * - each shard is a packet sequence of its own (trusted_packet_sequence_id
 *   = shard index + 1) whose TrackEvents all go to the shard's track;
 *   function names are interned per sequence (EventName, iids 1, 2, ...
 *   in the order the sequence first uses them), sent with that event;
 * - functions, waits and GPU kernels and copies are SLICE_BEGIN/SLICE_END
 *   pairs; thread creation, fork and GPU launches are instants carrying
 *   flow ids (flow_ids at the source, terminating_flow_ids at the
 *   destination: the new thread's start, the kernel's slice);
 * - kernel profiles (instrument.so) are counter tracks (CounterDescriptor)
 *   under their stream's track, described on the stream's sequence when
 *   first used.
 * Timestamps are the trace's ns (CLOCK_MONOTONIC's time base) in the
 * default clock domain. The protobuf wire format is written by hand: a few
 * varint and length-delimited fields do not call for a protobuf library. */
#define _GNU_SOURCE
#include "pt_fw_util.h"
#include "pt_text.h"
#include "tl_tool.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

/* Field numbers (protos/perfetto/trace/...). */
enum {
	TRACE_PACKET = 1, /* Trace.packet */

	PKT_TIMESTAMP = 8,
	PKT_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_TRACK_DESCRIPTOR = 60,

	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,

	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TE_COUNTER_VALUE_DOUBLE = 44, /* double_counter_value */
	TE_FLOW_IDS = 47,             /* fixed64 */
	TE_TERMINATING_FLOW_IDS = 48, /* fixed64 */
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4,

	INTERNED_EVENT_NAMES = 2, /* InternedData.event_names: EventName */
	EVENT_NAME_IID = 1,
	EVENT_NAME_NAME = 2,

	DA_NAME = 10, /* DebugAnnotation */
	DA_UINT_VALUE = 3,
	DA_STRING_VALUE = 6,

	TD_UUID = 1, /* TrackDescriptor */
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT_UUID = 5,
	TD_COUNTER = 8, /* CounterDescriptor */
	PD_PID = 1, /* ProcessDescriptor */
	PD_PROCESS_NAME = 6,
	THD_PID = 1, /* ThreadDescriptor */
	THD_TID = 2,
	THD_THREAD_NAME = 5,
};

/* ---- protobuf wire format ------------------------------------------------ */

typedef struct pbuf {
	uint8_t *d;
	size_t len, cap;
	int oom;
} pbuf;

static int pb_room(pbuf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 1;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *d = realloc(b->d, cap);
	if (!d) {
		b->oom = 1;
		return 0;
	}
	b->d = d;
	b->cap = cap;
	return 1;
}

static void pb_raw_varint(pbuf *b, uint64_t v)
{
	if (!pb_room(b, 10))
		return;
	while (v >= 0x80) {
		b->d[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->d[b->len++] = (uint8_t)v;
}

static void pb_uint(pbuf *b, unsigned field, uint64_t v)
{
	pb_raw_varint(b, (uint64_t)field << 3 | 0);
	pb_raw_varint(b, v);
}

static void pb_fixed64(pbuf *b, unsigned field, uint64_t v)
{
	pb_raw_varint(b, (uint64_t)field << 3 | 1);
	if (!pb_room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->d[b->len++] = (uint8_t)(v >> (8 * i));
}

static void pb_bytes(pbuf *b, unsigned field, const void *p, size_t n)
{
	pb_raw_varint(b, (uint64_t)field << 3 | 2);
	pb_raw_varint(b, n);
	if (!n || !pb_room(b, n)) /* an empty message may have no buffer at all */
		return;
	memcpy(b->d + b->len, p, n);
	b->len += n;
}

/* Protobuf strings must be UTF-8: a trace's bytes that are not, replaced
 * (pt_text.h); the valid start only when there is no memory for that. */
static void pb_str(pbuf *b, unsigned field, const char *s)
{
	size_t n = strlen(s), valid = pt_utf8_valid(s, n);
	char *fixed = valid < n ? malloc(3 * n + 1) : NULL;
	if (fixed)
		pb_bytes(b, field, fixed, pt_utf8_fix(fixed, s, n));
	else
		pb_bytes(b, field, s, valid);
	free(fixed);
}

static void pb_msg(pbuf *b, unsigned field, const pbuf *m)
{
	pb_bytes(b, field, m->d, m->len);
}

/* ---- per shard ------------------------------------------------------------ */

typedef struct pf_shard {
	uint32_t seq;   /* trusted_packet_sequence_id */
	uint64_t track; /* the shard's track uuid */
	int counters_described[TL_COUNTERS];
	/* iid of each function id interned on this sequence (0: not yet):
	 * numbered in the sequence's own order, which does not depend on the
	 * order the shards resolved code addresses in (-j) */
	uint32_t *iid;
	size_t niid;
	uint32_t next_iid;
	pbuf pkt, ev, aux, aux2; /* reused scratch buffers */
} pf_shard;

static uint64_t shard_track(size_t index)
{
	return (uint64_t)index + 1;
}

/* Process tracks after every shard's. */
static uint64_t process_track(const pt_trace_ctx *ctx, size_t process)
{
	return (uint64_t)ctx->nshards + 1 + process;
}

/* One TracePacket (in pkt) as field 1 of Trace. */
static void put_packet(FILE *f, const pbuf *pkt)
{
	pbuf head = {0};
	uint8_t tmp[16];
	head.d = tmp;
	head.cap = sizeof tmp;
	pb_raw_varint(&head, (uint64_t)TRACE_PACKET << 3 | 2);
	pb_raw_varint(&head, pkt->len);
	fwrite(head.d, 1, head.len, f);
	fwrite(pkt->d, 1, pkt->len, f);
}

static void *pf_shard_init(tl_out *o)
{
	pf_shard *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	const pt_shard_info *in = o->info;
	s->seq = o->seq ? o->seq : (uint32_t)in->index + 1;
	s->track = shard_track(in->index);
	/* The sequence's first packet: clears its interned state and describes
	 * its track. */
	char name[256];
	tl_thread_name(o->ctx, in, name, sizeof name);
	pbuf *td = &s->aux, *th = &s->aux2, *p = &s->pkt;
	td->len = th->len = p->len = 0;
	pb_uint(td, TD_UUID, s->track);
	pb_uint(td, TD_PARENT_UUID, process_track(o->ctx, in->process));
	if (in->kind == PT_FILE_GPU) {
		pb_str(td, TD_NAME, name);
	} else {
		pb_uint(th, THD_PID, in->pid);
		pb_uint(th, THD_TID, in->tid);
		pb_str(th, THD_THREAD_NAME, name);
		pb_msg(td, TD_THREAD, th);
	}
	pb_uint(p, PKT_SEQUENCE_ID, s->seq);
	pb_uint(p, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_msg(p, PKT_TRACK_DESCRIPTOR, td);
	if (p->oom) {
		free(s->pkt.d);
		free(s->aux.d);
		free(s->aux2.d);
		free(s);
		return NULL;
	}
	put_packet(o->f, p);
	return s;
}

static void pf_shard_free(void *enc)
{
	pf_shard *s = enc;
	free(s->iid);
	free(s->pkt.d);
	free(s->ev.d);
	free(s->aux.d);
	free(s->aux2.d);
	free(s);
}

/* Starts an event packet at t on the shard's sequence; the caller fills
 * s->ev (the TrackEvent), then calls end_event. */
static pbuf *begin_event(pf_shard *s, int type)
{
	s->pkt.len = s->ev.len = s->aux.len = 0;
	pb_uint(&s->ev, TE_TYPE, (uint64_t)type);
	pb_uint(&s->ev, TE_TRACK_UUID, s->track);
	return &s->ev;
}

static void end_event(tl_out *o, pf_shard *s, uint64_t t)
{
	pb_uint(&s->pkt, PKT_TIMESTAMP, t);
	pb_uint(&s->pkt, PKT_SEQUENCE_ID, s->seq);
	pb_uint(&s->pkt, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	if (s->aux.len)
		pb_msg(&s->pkt, PKT_INTERNED_DATA, &s->aux);
	pb_msg(&s->pkt, PKT_TRACK_EVENT, &s->ev);
	if (s->pkt.oom || s->ev.oom || s->aux.oom) {
		/* Out of memory for one event: drop it. A lost END leaves its
		 * slice open to the end of the thread, which the viewer shows. */
		s->pkt.oom = s->ev.oom = s->aux.oom = 0;
		return;
	}
	put_packet(o->f, &s->pkt);
}

/* Interns function `id` on this sequence unless done already: the EventName
 * goes into this packet's InternedData (s->aux). Its iid, or 0 when out of
 * memory. */
static uint32_t intern_func(tl_out *o, pf_shard *s, uint32_t id)
{
	if (id >= s->niid) {
		size_t n;
		uint32_t *v = pt_grow_zeroed(s->iid, s->niid, id, sizeof *v, 1024, &n);
		if (!v)
			return 0;
		s->iid = v;
		s->niid = n;
	}
	if (s->iid[id])
		return s->iid[id];
	pbuf *en = &s->aux2;
	en->len = 0;
	pb_uint(en, EVENT_NAME_IID, s->next_iid + 1);
	pb_str(en, EVENT_NAME_NAME, tl_func_name(o->ctx, id));
	pb_msg(&s->aux, INTERNED_EVENT_NAMES, en);
	if (en->oom || s->aux.oom)
		return 0;
	return s->iid[id] = ++s->next_iid;
}

static void pf_slice_begin(tl_out *o, uint64_t t, uint32_t func)
{
	pf_shard *s = o->enc;
	pbuf *ev = begin_event(s, TYPE_SLICE_BEGIN);
	uint32_t iid = intern_func(o, s, func);
	if (iid)
		pb_uint(ev, TE_NAME_IID, iid);
	else
		pb_str(ev, TE_NAME, tl_func_name(o->ctx, func));
	end_event(o, s, t);
}

static void pf_slice_end(tl_out *o, uint64_t t)
{
	pf_shard *s = o->enc;
	begin_event(s, TYPE_SLICE_END);
	end_event(o, s, t);
}

/* An event with a category and a name given inline (the rare kinds). */
static pbuf *named_event(pf_shard *s, int type, const char *cat, const char *name)
{
	pbuf *ev = begin_event(s, type);
	pb_str(ev, TE_CATEGORIES, cat);
	pb_str(ev, TE_NAME, name);
	return ev;
}

static void pf_span_begin(tl_out *o, uint64_t t, const char *cat, const char *name)
{
	pf_shard *s = o->enc;
	named_event(s, TYPE_SLICE_BEGIN, cat, name);
	end_event(o, s, t);
}

static void str_annotation(pf_shard *s, pbuf *ev, const char *key, const char *value)
{
	pbuf *da = &s->aux2;
	da->len = 0;
	pb_str(da, DA_NAME, key);
	pb_str(da, DA_STRING_VALUE, value);
	pb_msg(ev, TE_DEBUG_ANNOTATIONS, da);
}

static void pf_wait(tl_out *o, uint64_t t, uint64_t dur, const char *what, uint64_t obj,
                    const char *obj_name)
{
	pf_shard *s = o->enc;
	char name[TL_WAIT_NAME_MAX];
	tl_wait_name(name, sizeof name, what, obj_name);
	pbuf *ev = named_event(s, TYPE_SLICE_BEGIN, "wait", name);
	if (obj) {
		char hex[32];
		snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)obj);
		str_annotation(s, ev, "object", hex);
		if (obj_name)
			str_annotation(s, ev, "symbol", obj_name);
	}
	end_event(o, s, t);
	pf_slice_end(o, t + dur);
}

static void pf_flow_point(tl_out *o, uint64_t t, const char *name, int out, uint64_t flow,
			  const char *flow_name)
{
	(void)flow_name; /* Perfetto names flows after their slices */
	pf_shard *s = o->enc;
	pbuf *ev = named_event(s, TYPE_INSTANT, "thread", name);
	pb_fixed64(ev, out ? TE_FLOW_IDS : TE_TERMINATING_FLOW_IDS, flow);
	end_event(o, s, t);
}

static void pf_device(tl_out *o, uint64_t t, uint64_t dur, const char *cat, const char *name,
		      uint64_t flow, const char *flow_name)
{
	(void)flow_name;
	pf_shard *s = o->enc;
	pbuf *ev = named_event(s, TYPE_SLICE_BEGIN, cat, name);
	if (flow)
		pb_fixed64(ev, TE_TERMINATING_FLOW_IDS, flow);
	end_event(o, s, t);
	pf_slice_end(o, t + dur);
}

/* Counter tracks after the shards' and the processes' tracks. */
static uint64_t counter_track(const pt_trace_ctx *ctx, size_t shard, unsigned index)
{
	return (uint64_t)ctx->nshards + 1 + ctx->nprocesses + (uint64_t)shard * TL_COUNTERS + index;
}

static void pf_counter(tl_out *o, uint64_t t, unsigned index, const char *cat,
		       const char *counter, double value)
{
	(void)cat;
	pf_shard *s = o->enc;
	uint64_t uuid = counter_track(o->ctx, o->info->index, index);
	if (!s->counters_described[index]) {
		char name[300];
		tl_thread_name(o->ctx, o->info, name, sizeof name);
		size_t len = strlen(name);
		snprintf(name + len, sizeof name - len, ": %s", counter);
		pbuf *td = &s->aux, *p = &s->pkt, empty = {0};
		td->len = p->len = 0;
		pb_uint(td, TD_UUID, uuid);
		pb_uint(td, TD_PARENT_UUID, s->track);
		pb_str(td, TD_NAME, name);
		pb_msg(td, TD_COUNTER, &empty);
		pb_uint(p, PKT_SEQUENCE_ID, s->seq);
		pb_msg(p, PKT_TRACK_DESCRIPTOR, td);
		if (p->oom || td->oom) {
			p->oom = td->oom = 0;
			return;
		}
		put_packet(o->f, p);
		s->counters_described[index] = 1;
	}
	pbuf *ev = begin_event(s, TYPE_COUNTER);
	ev->len = 0; /* the counter's own track, not the shard's */
	pb_uint(ev, TE_TYPE, TYPE_COUNTER);
	pb_uint(ev, TE_TRACK_UUID, uuid);
	uint64_t bits;
	memcpy(&bits, &value, sizeof bits);
	pb_fixed64(ev, TE_COUNTER_VALUE_DOUBLE, bits);
	end_event(o, s, t);
}

static void uint_annotation(pf_shard *s, pbuf *ev, const char *name, uint64_t v)
{
	pbuf *da = &s->aux2;
	da->len = 0;
	pb_str(da, DA_NAME, name);
	pb_uint(da, DA_UINT_VALUE, v);
	pb_msg(ev, TE_DEBUG_ANNOTATIONS, da);
}

static void pf_left_out(tl_out *o, uint64_t t, const char *name, size_t n, const char *const *keys,
                        const uint64_t *values)
{
	pf_shard *s = o->enc;
	pbuf *ev = named_event(s, TYPE_INSTANT, "left out", name);
	for (size_t i = 0; i < n; i++)
		uint_annotation(s, ev, keys[i], values[i]);
	end_event(o, s, t);
}

/* The process tracks, on a sequence of their own after the shards'. */
static int pf_header(FILE *f, const pt_trace_ctx *ctx)
{
	pbuf p = {0}, td = {0}, pd = {0};
	char name[512];
	for (size_t i = 0; i < ctx->nprocesses; i++) {
		const pt_process_info *pi = &ctx->processes[i];
		tl_process_name(ctx, i, name, sizeof name);
		p.len = td.len = pd.len = 0;
		pb_uint(&pd, PD_PID, pi->pid);
		pb_str(&pd, PD_PROCESS_NAME, name);
		pb_uint(&td, TD_UUID, process_track(ctx, i));
		pb_msg(&td, TD_PROCESS, &pd);
		pb_uint(&p, PKT_SEQUENCE_ID, (uint64_t)ctx->nshards + 1);
		pb_msg(&p, PKT_TRACK_DESCRIPTOR, &td);
		if (p.oom || td.oom || pd.oom)
			break;
		put_packet(f, &p);
	}
	int oom = p.oom || td.oom || pd.oom;
	free(p.d);
	free(td.d);
	free(pd.d);
	return oom || ferror(f) ? -1 : 0;
}

static int pf_footer(FILE *f, const pt_trace_ctx *ctx)
{
	(void)ctx;
	return ferror(f) ? -1 : 0;
}

static const tl_encoder perfetto_pb = {
	.name = "Perfetto trace",
	.shard_init = pf_shard_init,
	.shard_free = pf_shard_free,
	.slice_begin = pf_slice_begin,
	.slice_end = pf_slice_end,
	.span_begin = pf_span_begin,
	.wait = pf_wait,
	.flow_point = pf_flow_point,
	.device = pf_device,
	.counter = pf_counter,
	.left_out = pf_left_out,
	.header = pf_header,
	.footer = pf_footer,
};

TL_TOOL(perfetto_tool, perfetto_pb, "perfetto", "Perfetto protobuf trace");

const pt_tool *pt_tool_perfetto(void)
{
	return &perfetto_tool;
}
