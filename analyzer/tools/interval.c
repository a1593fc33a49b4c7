/* SPDX-License-Identifier: MIT */
/* The interval tool (--interval-us N): a time series of the whole trace.
 * Per shard and interval it counts records, function calls (as the
 * call-stack tracker finds them: a longjmp landing is no new call), lock
 * acquisitions and the time waited in lock/condition/join/barrier waits
 * that ended in the interval (a wait counts where it ends); the framework
 * combines the shards' snapshots of one interval by summing those that
 * belong to it (delta metrics, drmemtrace's combine_interval_snapshots).
 * Options: "csv" for CSV instead of a table; "json" for a JSON array that
 * the profile's JSON object holds (pt_interval_json).
 */
#define _GNU_SOURCE
#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_waits.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct iv_counts {
	uint64_t events, calls, acquisitions, wait_ns;
} iv_counts;

typedef struct iv_snap {
	pt_interval_snapshot base; /* first: the framework fills it */
	iv_counts c;
	uint64_t threads; /* shards with records in the interval (whole-trace snapshots) */
} iv_snap;

typedef struct iv_tool {
	const pt_trace_ctx *ctx;
	int csv, json;
} iv_tool;

/* With json: the rows, for the profile's object (one analysis per process). */
static char *json_rows;

const char *pt_interval_json(void)
{
	return json_rows;
}

typedef struct iv_shard {
	iv_counts c;
	pt_waits waits;
	pt_callstack calls;
	pt_func_lookup fl;
} iv_shard;

static void *iv_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	iv_tool *t = calloc(1, sizeof *t);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->ctx = ctx;
	t->csv = options && strstr(options, "csv");
	t->json = options && strstr(options, "json");
	return t;
}

static void *iv_shard_init(void *tool, const pt_shard_info *s, char *err, size_t errlen)
{
	iv_shard *x = calloc(1, sizeof *x);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pt_callstack_init(&x->calls, s->header);
	pt_func_lookup_init(&x->fl, ((iv_tool *)tool)->ctx, s->process);
	return x;
}

static void call_begins(void *arg, pt_callstack *cs)
{
	(void)cs;
	((iv_shard *)arg)->c.calls++;
}

static const pt_callstack_ops iv_calls = {call_begins, NULL};

static int iv_shard_event(void *st, const pt_event *ev)
{
	iv_shard *s = st;
	s->c.events++;
	int enter;
	uint32_t id = pt_event_func(ev, &s->fl, &enter);
	if (id) {
		pt_callstack_func(&s->calls, id, enter, ev->time_ns, &iv_calls, s);
		return s->calls.oom ? -1 : 0;
	}
	pt_callstack_record(&s->calls, ev, &iv_calls, s);
	if (ev->kind == PT_REC_LOCK_ACQUIRED)
		s->c.acquisitions++;
	pt_wait w;
	if (pt_waits_record(&s->waits, ev, &w) == PT_WAITS_ENDED && w.begun)
		s->c.wait_ns += w.end - w.begin; /* where it ends */
	return 0;
}

static int iv_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)last_ns;
	(void)complete;
	iv_shard *s = st;
	pt_callstack_free(&s->calls);
	pt_func_lookup_free(&s->fl);
	free(s);
	return 0;
}

/* The snapshot holds what happened since the previous one (delta). */
static pt_interval_snapshot *iv_shard_interval(void *st, uint64_t id)
{
	(void)id;
	iv_shard *s = st;
	iv_snap *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	x->c = s->c;
	memset(&s->c, 0, sizeof s->c);
	return &x->base;
}

static pt_interval_snapshot *iv_combine(void *tool, const pt_interval_snapshot *const *latest,
					size_t n, uint64_t id, uint64_t end_ns)
{
	(void)tool;
	(void)end_ns;
	iv_snap *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const iv_snap *x = (const iv_snap *)latest[i];
		if (!x || x->base.interval_id != id) /* delta metrics: only this interval's */
			continue;
		w->c.events += x->c.events;
		w->c.calls += x->c.calls;
		w->c.acquisitions += x->c.acquisitions;
		w->c.wait_ns += x->c.wait_ns;
		w->threads++;
	}
	return &w->base;
}

static int iv_print_json(pt_interval_snapshot *const *whole, size_t n, uint64_t iv)
{
	size_t len = 0;
	FILE *o = open_memstream(&json_rows, &len);
	if (!o)
		return -1;
	fputc('[', o);
	for (size_t i = 0; i < n; i++) {
		const iv_snap *x = (const iv_snap *)whole[i];
		uint64_t end = x->base.end_ns;
		fprintf(o,
		        "%s\n  {\"interval\": %llu, \"start_ns\": %llu, \"end_ns\": %llu, "
		        "\"threads\": %llu, \"events\": %llu, \"calls\": %llu, "
		        "\"lock_acquisitions\": %llu, \"wait_ns\": %llu}",
		        i ? "," : "", (unsigned long long)x->base.interval_id,
		        (unsigned long long)(end - iv), (unsigned long long)end,
		        (unsigned long long)x->threads, (unsigned long long)x->c.events,
		        (unsigned long long)x->c.calls, (unsigned long long)x->c.acquisitions,
		        (unsigned long long)x->c.wait_ns);
	}
	fputs("\n ]", o);
	return fclose(o) ? -1 : 0;
}

static int iv_print(void *tool, pt_interval_snapshot *const *whole, size_t n, FILE *o)
{
	iv_tool *t = tool;
	uint64_t iv = t->ctx->interval_ns;
	if (t->json)
		return iv_print_json(whole, n, iv);
	if (t->csv)
		fputs("interval,start_ns,end_ns,threads,events,calls,lock_acquisitions,wait_ns\n", o);
	else
		fprintf(o, "\nIntervals of %.3f ms (times from the start of the trace)\n"
			   "%8s %12s %12s %7s %10s %10s %9s %11s\n",
			(double)iv / 1e6, "interval", "start ms", "end ms", "threads", "events", "calls",
			"locks", "wait ms");
	for (size_t i = 0; i < n; i++) {
		const iv_snap *x = (const iv_snap *)whole[i];
		uint64_t end = x->base.end_ns, start = end - iv;
		if (t->csv)
			fprintf(o, "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
				(unsigned long long)x->base.interval_id, (unsigned long long)start,
				(unsigned long long)end, (unsigned long long)x->threads,
				(unsigned long long)x->c.events, (unsigned long long)x->c.calls,
				(unsigned long long)x->c.acquisitions, (unsigned long long)x->c.wait_ns);
		else
			fprintf(o, "%8llu %12.3f %12.3f %7llu %10llu %10llu %9llu %11.3f\n",
				(unsigned long long)x->base.interval_id, (double)start / 1e6,
				(double)end / 1e6, (unsigned long long)x->threads,
				(unsigned long long)x->c.events, (unsigned long long)x->c.calls,
				(unsigned long long)x->c.acquisitions, (double)x->c.wait_ns / 1e6);
	}
	return 0;
}

static void iv_release(void *tool, pt_interval_snapshot *s)
{
	(void)tool;
	free(s);
}

static void iv_destroy(void *tool)
{
	free(json_rows);
	json_rows = NULL;
	free(tool);
}

static const pt_tool interval_tool = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "interval",
	.description = "time series per --interval-us",
	.init = iv_init,
	.shard_init = iv_shard_init,
	.shard_event = iv_shard_event,
	.shard_exit = iv_shard_exit,
	.shard_interval = iv_shard_interval,
	.combine_intervals = iv_combine,
	.print_intervals = iv_print,
	.release_interval = iv_release,
	.destroy = iv_destroy,
};

const pt_tool *pt_tool_interval(void)
{
	return &interval_tool;
}
