/* SPDX-License-Identifier: MIT */
/* Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing),
 * an encoder of the timeline export (timeline.h): processes and threads
 * named; user functions as nested B/E slices; waits, GPU kernels and
 * copies as X slices; thread creation, fork and GPU launches as flows
 * (s -> f); kernel profiles as counters (C) of the stream's process. Times are
 * microseconds from the start of the trace, with ns precision. */
#define _GNU_SOURCE
#include "pt_framework.h"
#include "pt_text.h"
#include "tl_tool.h"
#include "tools.h"

static void us(FILE *o, uint64_t ns)
{
	fprintf(o, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

/* A GPU stream shows as a thread of its process with a tid of its own. */
static unsigned json_tid(const pt_shard_info *s)
{
	return s->kind == PT_FILE_GPU ? (unsigned)(1000000000u + s->gpu_stream) : s->tid;
}

static void head(tl_out *o, const char *ph, uint64_t t)
{
	fprintf(o->f, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":", ph, o->info->pid,
		json_tid(o->info));
	us(o->f, t > o->ctx->t0_ns ? t - o->ctx->t0_ns : 0);
}

static void js_slice_begin(tl_out *o, uint64_t t, uint32_t func)
{
	head(o, "B", t);
	fputs(",\"cat\":\"function\",\"name\":", o->f);
	pt_json_str(o->f, tl_func_name(o->ctx, func));
	fputs("},\n", o->f);
}

static void js_span_begin(tl_out *o, uint64_t t, const char *cat, const char *name)
{
	head(o, "B", t);
	fprintf(o->f, ",\"cat\":\"%s\",\"name\":", cat);
	pt_json_str(o->f, name);
	fputs("},\n", o->f);
}

static void js_slice_end(tl_out *o, uint64_t t)
{
	head(o, "E", t);
	fputs("},\n", o->f);
}

/* An X slice, left open for more fields. */
static void complete_slice(tl_out *o, uint64_t t, uint64_t dur, const char *cat, const char *name)
{
	head(o, "X", t);
	fputs(",\"dur\":", o->f);
	us(o->f, dur);
	fprintf(o->f, ",\"cat\":\"%s\",\"name\":", cat);
	pt_json_str(o->f, name);
}

static void js_wait(tl_out *o, uint64_t t, uint64_t dur, const char *what, uint64_t obj,
                    const char *obj_name)
{
	char name[TL_WAIT_NAME_MAX];
	tl_wait_name(name, sizeof name, what, obj_name);
	complete_slice(o, t, dur, "wait", name);
	if (obj)
		fprintf(o->f, ",\"args\":{\"object\":\"0x%llx\"", (unsigned long long)obj);
	if (obj && obj_name) {
		fputs(",\"symbol\":", o->f);
		pt_json_str(o->f, obj_name);
	}
	fputs(obj ? "}},\n" : "},\n", o->f);
}

/* The start (s) or end (f, bound to the enclosing slice) of a flow arrow. */
static void flow_event(tl_out *o, uint64_t t, int out, uint64_t flow, const char *flow_name)
{
	head(o, out ? "s" : "f", t);
	fprintf(o->f, ",\"cat\":\"thread\",\"name\":\"%s\",\"id\":%llu%s},\n", flow_name,
		(unsigned long long)flow, out ? "" : ",\"bp\":\"e\"");
}

static void js_flow_point(tl_out *o, uint64_t t, const char *name, int out, uint64_t flow,
			  const char *flow_name)
{
	complete_slice(o, t, 0, "thread", name);
	fputs("},\n", o->f);
	flow_event(o, t, out, flow, flow_name);
}

static void js_device(tl_out *o, uint64_t t, uint64_t dur, const char *cat, const char *name,
		      uint64_t flow, const char *flow_name)
{
	complete_slice(o, t, dur, cat, name);
	fputs("},\n", o->f);
	if (flow)
		flow_event(o, t, 0, flow, flow_name);
}

/* A C event of the row's process, named after the row and counter (Chrome
 * keeps counters per process, not per thread). */
static void js_counter(tl_out *o, uint64_t t, unsigned index, const char *cat,
		       const char *counter, double value)
{
	(void)index;
	char name[256];
	tl_thread_name(o->ctx, o->info, name, sizeof name);
	head(o, "C", t);
	fprintf(o->f, ",\"cat\":\"%s\",\"name\":", cat);
	size_t len = strlen(name);
	snprintf(name + len, sizeof name - len, " %s", counter);
	pt_json_str(o->f, name);
	fprintf(o->f, ",\"args\":{\"value\":%.17g}},\n", value);
}

static void js_left_out(tl_out *o, uint64_t t, const char *name, size_t n, const char *const *keys,
                        const uint64_t *values)
{
	head(o, "i", t);
	fputs(",\"s\":\"t\",\"cat\":\"left out\",\"name\":", o->f);
	pt_json_str(o->f, name);
	fputs(",\"args\":{", o->f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', o->f);
		pt_json_str(o->f, keys[i]);
		fprintf(o->f, ":%llu", (unsigned long long)values[i]);
	}
	fputs("}},\n", o->f);
}

static int js_header(FILE *o, const pt_trace_ctx *ctx)
{
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"paratrace\"},\n"
	      "\"traceEvents\":[\n",
	      o);
	char name[512];
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		const pt_process_info *pi = &ctx->processes[p];
		tl_process_name(ctx, p, name, sizeof name);
		fprintf(o, "{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":",
			pi->pid);
		pt_json_str(o, name);
		fprintf(o, "}},\n{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_sort_index\","
			   "\"args\":{\"sort_index\":%u}},\n",
			pi->pid, pi->task);
	}
	const pt_select *sel = pt_fw_select(ctx);
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pt_shard_info *s = &ctx->shards[i];
		if (!pt_select_shard(sel, s))
			continue;
		tl_thread_name(ctx, s, name, sizeof name);
		fprintf(o, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
			s->pid, json_tid(s));
		pt_json_str(o, name);
		fprintf(o, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_sort_index\","
			   "\"args\":{\"sort_index\":%u}},\n",
			s->pid, json_tid(s), s->thread);
	}
	return ferror(o) ? -1 : 0;
}

static int js_footer(FILE *o, const pt_trace_ctx *ctx)
{
	/* the last element has no comma after it: a global instant at the end */
	fputs("{\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"name\":\"end of trace\",\"ts\":", o);
	us(o, ctx->t_end_ns > ctx->t0_ns ? ctx->t_end_ns - ctx->t0_ns : 0);
	fputs("}\n]}\n", o);
	return ferror(o) ? -1 : 0;
}

static const tl_encoder chrome_json = {
	.name = "Chrome trace",
	.slice_begin = js_slice_begin,
	.slice_end = js_slice_end,
	.span_begin = js_span_begin,
	.wait = js_wait,
	.flow_point = js_flow_point,
	.device = js_device,
	.counter = js_counter,
	.left_out = js_left_out,
	.header = js_header,
	.footer = js_footer,
};

TL_TOOL(chrome_tool, chrome_json, "chrome", "Chrome trace-event JSON");

const pt_tool *pt_tool_chrome(void)
{
	return &chrome_tool;
}
