/* SPDX-License-Identifier: MIT */
/* Which functions cost the events (`paratrace report --cost`, and
 * `analyze` when its size budget left calls out): per function, the
 * function records it made in the thread logs (bytes as written: short,
 * compact and full forms), their share of every record's bytes, its calls,
 * its time (from the profile, which runs inside this tool), and a filter
 * file for the compiler plugin (Score-P's format, docs/PLUGIN.md) that
 * leaves out the functions that make many events and do little each call.
 *
 * A function goes into the filter when it made at least COST_MIN_SHARE of
 * the records' bytes and its calls took under COST_MAX_MEAN_NS each on
 * average (inclusive): many events, little time measured by them.
 * Options: "json", "top=N" (rows, 0 = all), "budget" (analyze: print
 * only when the .prv's budget left calls out, a short form; the profile
 * inside is analyze's short one, printed first: analyze runs one profile,
 * not two), "filter=PATH" (last: write the filter file there). */
#define _GNU_SOURCE
#include "nest.h"
#include "profile.h"
#include "pt_func_lookup.h"
#include "pt_fw_util.h"
#include "pt_names.h"
#include "pt_select.h"
#include "pt_text.h"
#include "tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define COST_MIN_SHARE 0.01
#define COST_MAX_MEAN_NS 1000

typedef struct cost_func {
	uint64_t events, bytes;
} cost_func;

typedef struct cost_tool {
	const pt_trace_ctx *ctx;
	pt_nest inner; /* the profile: calls and times */
	int json, budget;
	unsigned top;
	char *filter_path;
	pthread_mutex_t lock;
	cost_func *f;
	size_t nf;
	uint64_t events, bytes; /* every record of every log */
	/* finish: functions by bytes, those the filter leaves out */
	uint32_t *ids;
	size_t nids, nfiltered;
	uint8_t *filtered; /* per id */
	uint64_t filtered_bytes, filtered_events, filtered_time, thread_time;
} cost_tool;

typedef struct cost_shard {
	cost_tool *ct;
	pt_func_lookup fl;
	cost_func *f;
	size_t nf;
	uint64_t events, bytes;
	pt_nest_shard inner;
	int oom;
} cost_shard;

static void cost_destroy(void *tool)
{
	cost_tool *ct = tool;
	pt_nest_destroy(&ct->inner);
	pthread_mutex_destroy(&ct->lock);
	free(ct->f);
	free(ct->ids);
	free(ct->filtered);
	free(ct->filter_path);
	free(ct);
}

static void *cost_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	cost_tool *ct = calloc(1, sizeof *ct);
	if (!ct) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ct->ctx = ctx;
	ct->top = 25;
	pthread_mutex_init(&ct->lock, NULL);
	const char *o = options ? options : "";
	const char *path = strstr(o, "filter=");
	size_t head = path ? (size_t)(path - o) : strlen(o);
	ct->json = memmem(o, head, "json", 4) != NULL;
	ct->budget = memmem(o, head, "budget", 6) != NULL;
	const char *t = memmem(o, head, "top=", 4);
	if (t)
		ct->top = (unsigned)strtoul(t + 4, NULL, 10);
	if (path && !(ct->filter_path = strdup(path + 7))) {
		snprintf(err, errlen, "out of memory");
		cost_destroy(ct);
		return NULL;
	}
	if (pt_nest_add(&ct->inner, pt_tool_profile(), ctx, ct->budget ? "short" : "text", err,
	                errlen)) {
		cost_destroy(ct);
		return NULL;
	}
	return ct;
}

static int cost_process_event(void *tool, size_t process, const pt_event *ev)
{
	return pt_nest_process_event(&((cost_tool *)tool)->inner, process, ev);
}

static void *cost_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	cost_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->ct = tool;
	if (pt_nest_shard_init(&s->ct->inner, &s->inner, info, err, errlen)) {
		free(s);
		return NULL;
	}
	pt_func_lookup_init(&s->fl, s->ct->ctx, info->process);
	return s;
}

static void count(cost_shard *s, uint32_t id, size_t bytes)
{
	if (id >= s->nf) {
		size_t n;
		cost_func *f = pt_grow_zeroed(s->f, s->nf, id, sizeof *f, 64, &n);
		if (!f) {
			s->oom = 1;
			return;
		}
		s->f = f;
		s->nf = n;
	}
	s->f[id].events++;
	s->f[id].bytes += bytes;
}

static int cost_shard_event(void *st, const pt_event *ev)
{
	cost_shard *s = st;
	s->events++;
	s->bytes += ev->size;
	int enter;
	uint32_t id = pt_event_func(ev, &s->fl, &enter);
	if (id)
		count(s, id, ev->size);
	if (pt_nest_shard_event(&s->ct->inner, &s->inner, ev))
		return -1;
	return s->oom ? -1 : 0;
}

static const char *cost_shard_error(void *st)
{
	cost_shard *s = st;
	return s->oom ? "out of memory" : pt_nest_shard_error(&s->ct->inner, &s->inner);
}

static int cost_shard_exit(void *st, uint64_t last_ns, int complete)
{
	cost_shard *s = st;
	cost_tool *ct = s->ct;
	int rc = pt_nest_shard_exit(&ct->inner, &s->inner, last_ns, complete);
	pthread_mutex_lock(&ct->lock);
	ct->events += s->events;
	ct->bytes += s->bytes;
	if (s->nf > ct->nf) {
		cost_func *f = realloc(ct->f, s->nf * sizeof *f);
		if (f) {
			memset(f + ct->nf, 0, (s->nf - ct->nf) * sizeof *f);
			ct->f = f;
			ct->nf = s->nf;
		} else
			rc = -1;
	}
	for (size_t i = 0; i < s->nf && i < ct->nf; i++) {
		ct->f[i].events += s->f[i].events;
		ct->f[i].bytes += s->f[i].bytes;
	}
	pthread_mutex_unlock(&ct->lock);
	pt_func_lookup_free(&s->fl);
	free(s->f);
	free(s);
	return rc;
}

/* ---- finish: the order, the filter --------------------------------------- */
static const char *bytes_str(uint64_t bytes, char *buf, size_t len)
{
	pt_fmt_bytes(buf, len, (double)bytes);
	return buf;
}

static const cost_tool *sort_ct;
static int cmp_bytes(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const cost_func *fx = &sort_ct->f[x], *fy = &sort_ct->f[y];
	if (fx->bytes != fy->bytes)
		return fx->bytes > fy->bytes ? -1 : 1;
	return x < y ? -1 : 1;
}

static const pf_tool *profile_of(const cost_tool *ct)
{
	return ct->inner.state[0];
}

static const pf_func *pf_of(const cost_tool *ct, uint32_t id)
{
	static const pf_func none;
	const pf_tool *pf = profile_of(ct);
	return id < pf->nf ? &pf->f[id] : &none;
}

static const char *name_of(const cost_tool *ct, uint32_t id)
{
	const pt_func_info *fi = pt_ctx_func_info(ct->ctx, id);
	return fi && fi->name ? fi->name : "?";
}

/* A name as a pattern of the filter file: fnmatch's specials escaped,
 * what the file's syntax cannot hold (spaces, '#', control characters)
 * matched by '?'. On a terminal (!raw), a byte past ASCII is a '?' too:
 * the text policy never prints a name's bytes as they are, and only the
 * file (-o) needs them. */
static void put_pattern(FILE *o, const char *name, int raw)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '*' || *p == '?' || *p == '[' || *p == ']' || *p == '\\')
			fputc('\\', o);
		fputc(*p <= ' ' || *p == '#' || *p == 0x7f || (!raw && *p >= 0x80) ? '?' : *p, o);
	}
}

static int write_filter(const cost_tool *ct, FILE *o, int raw)
{
	char a[32], b[32];
	fprintf(o,
	        "# Made by paratrace (report --cost): the functions below made %.1f%% of the\n"
	        "# trace's records (%s of %s) in %.2f%% of the threads' time.\n"
	        "# Build with it: paratrace-cc --paratrace-arg=filter-file=THIS_FILE ...\n"
	        "# (clang: -fplugin-arg-instrument-filter-file=THIS_FILE)\n"
	        "SCOREP_REGION_NAMES_BEGIN\n",
	        ct->bytes ? 100.0 * (double)ct->filtered_bytes / (double)ct->bytes : 0.0,
	        bytes_str(ct->filtered_bytes, a, sizeof a), bytes_str(ct->bytes, b, sizeof b),
	        ct->thread_time ? 100.0 * (double)ct->filtered_time / (double)ct->thread_time
	                        : 0.0);
	for (size_t i = 0; i < ct->nids; i++)
		if (ct->filtered[ct->ids[i]]) {
			fputs("  EXCLUDE ", o);
			put_pattern(o, name_of(ct, ct->ids[i]), raw);
			fputc('\n', o);
		}
	fputs("SCOREP_REGION_NAMES_END\n", o);
	return ferror(o) ? -1 : 0;
}

static int cost_finish(void *tool, char *err, size_t errlen)
{
	cost_tool *ct = tool;
	if (pt_nest_finish(&ct->inner, err, errlen))
		return -1;
	const pf_tool *pf = profile_of(ct);
	for (size_t i = 0; i < ct->ctx->nshards; i++) {
		const pf_thread *t = &pf->t[i];
		if (ct->ctx->shards[i].kind == PT_FILE_THREAD && t->last > t->first)
			ct->thread_time += t->last - t->first;
	}
	ct->ids = malloc((ct->nf + 1) * sizeof *ct->ids);
	ct->filtered = calloc(ct->nf + 1, 1);
	if (!ct->ids || !ct->filtered) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 1; i < ct->nf; i++)
		if (ct->f[i].events)
			ct->ids[ct->nids++] = i;
	sort_ct = ct;
	pt_qsort(ct->ids, ct->nids, sizeof *ct->ids, cmp_bytes);
	for (size_t i = 0; i < ct->nids; i++) {
		uint32_t id = ct->ids[i];
		const pf_func *x = pf_of(ct, id);
		if ((double)ct->f[id].bytes < COST_MIN_SHARE * (double)ct->bytes ||
		    !timed_calls(x) || mean(x->incl, x) >= COST_MAX_MEAN_NS)
			continue;
		ct->filtered[id] = 1;
		ct->nfiltered++;
		ct->filtered_bytes += ct->f[id].bytes;
		ct->filtered_events += ct->f[id].events;
		ct->filtered_time += x->excl;
	}
	if (!ct->filter_path || !ct->nfiltered)
		return 0;
	if (ct->budget && !pt_paraver_budget_cut())
		return 0;
	FILE *f = fopen(ct->filter_path, "w");
	int rc = f ? write_filter(ct, f, 1) : -1;
	if (f && fclose(f))
		rc = -1;
	if (rc)
		snprintf(err, errlen, "%s: %s", ct->filter_path, strerror(errno ? errno : EIO));
	return rc;
}

/* ---- printing ------------------------------------------------------------ */
static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

static void print_json(const cost_tool *ct, FILE *o)
{
	fprintf(o, "{\"events\": %llu, \"bytes\": %llu, \"thread_ns\": %llu, \"functions\": [",
	        (unsigned long long)ct->events, (unsigned long long)ct->bytes,
	        (unsigned long long)ct->thread_time);
	size_t n = ct->top && ct->top < ct->nids ? ct->top : ct->nids;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ct->ids[i];
		const pf_func *x = pf_of(ct, id);
		fprintf(o, "%s\n  {\"name\": ", i ? "," : "");
		pt_json_str(o, name_of(ct, id));
		fprintf(
		    o,
		    ", \"events\": %llu, \"bytes\": %llu, \"size_share\": %.6f, \"calls\": %llu, "
		    "\"incl_mean_ns\": %llu, \"excl_ns\": %llu, \"time_share\": %.6f, "
		    "\"filtered\": %s}",
		    (unsigned long long)ct->f[id].events, (unsigned long long)ct->f[id].bytes,
		    share(ct->f[id].bytes, ct->bytes), (unsigned long long)x->calls,
		    (unsigned long long)mean(x->incl, x), (unsigned long long)x->excl,
		    share(x->excl, ct->thread_time), ct->filtered[id] ? "true" : "false");
	}
	fprintf(o,
	        "\n], \"filter\": {\"functions\": %zu, \"events\": %llu, \"bytes\": %llu, "
	        "\"time_ns\": %llu, \"file\": ",
	        ct->nfiltered, (unsigned long long)ct->filtered_events,
	        (unsigned long long)ct->filtered_bytes, (unsigned long long)ct->filtered_time);
	if (ct->filter_path && ct->nfiltered)
		pt_json_str(o, ct->filter_path);
	else
		fputs("null", o);
	fputs("}}\n", o);
}

static void print_rows(const cost_tool *ct, size_t n, FILE *o)
{
	char a[32], b[32], c[32], name[512];
	fprintf(o, "%-40s %9s %9s %6s %10s %9s %6s %s\n", "function", "events", "bytes", "%size",
	        "calls", "incl/call", "%time", "filter");
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ct->ids[i];
		const pf_func *x = pf_of(ct, id);
		pt_name_fit(name, sizeof name, name_of(ct, id), 40);
		pt_fmt_dur(b, sizeof b, mean(x->incl, x));
		snprintf(c, sizeof c, "%llu", (unsigned long long)x->calls);
		fprintf(o, "%-40s %9llu %9s %5.1f%% %10s %9s %5.1f%% %s\n", name,
		        (unsigned long long)ct->f[id].events,
		        bytes_str(ct->f[id].bytes, a, sizeof a),
		        100.0 * share(ct->f[id].bytes, ct->bytes), c, b,
		        100.0 * share(x->excl, ct->thread_time), ct->filtered[id] ? "EXCLUDE" : "");
	}
}

static void print_text(const cost_tool *ct, FILE *o)
{
	char a[32], b[32];
	size_t n = ct->top && ct->top < ct->nids ? ct->top : ct->nids;
	if (ct->budget)
		n = n < 5 ? n : 5;
	fprintf(o, "\n%s: %llu records, %s (%zu of %zu functions shown)\n",
	        ct->budget ? "The functions that made the most events"
	                   : "Events by function, the trace's size",
	        (unsigned long long)ct->events, bytes_str(ct->bytes, a, sizeof a), n, ct->nids);
	print_rows(ct, n, o);
	if (!ct->nfiltered) {
		fprintf(o,
		        "No function made %.0f%% of the records with calls under %s on average: "
		        "no filter proposed.\n",
		        100 * COST_MIN_SHARE, pt_fmt_ns(COST_MAX_MEAN_NS, b, sizeof b));
		return;
	}
	fprintf(o,
	        "Leaving out the %zu marked EXCLUDE (%.0f%% of the records or more each, calls "
	        "under %s)\nwould make the trace %.1f%% smaller (%s) and lose %.2f%% of the "
	        "threads' time as exclusive time of their callers.\n",
	        ct->nfiltered, 100 * COST_MIN_SHARE, pt_fmt_ns(COST_MAX_MEAN_NS, b, sizeof b),
	        100.0 * share(ct->filtered_bytes, ct->bytes),
	        bytes_str(ct->filtered_bytes, a, sizeof a),
	        100.0 * share(ct->filtered_time, ct->thread_time));
	if (ct->filter_path)
		fprintf(o, "The filter file for the compiler plugin: %s\n", ct->filter_path);
	else {
		fputs("The filter file for the compiler plugin (-o FILE writes it):\n", o);
		write_filter(ct, o, 0);
	}
}

static int cost_print(void *tool, FILE *o)
{
	cost_tool *ct = tool;
	if (ct->budget && pt_tool_profile()->print_results(ct->inner.state[0], o))
		return -1;
	if (ct->budget && (!pt_paraver_budget_cut() || ct->ctx->quiet))
		return 0;
	if (ct->json)
		print_json(ct, o);
	else
		print_text(ct, o);
	return 0;
}

static const pt_tool cost_tool_def = {
    .api_version = PT_TOOL_API_VERSION,
    .name = "cost",
    .description = "the functions that made the most events, and a filter file",
    .init = cost_init,
    .process_event = cost_process_event,
    .shard_init = cost_shard_init,
    .shard_event = cost_shard_event,
    .shard_exit = cost_shard_exit,
    .shard_error = cost_shard_error,
    .finish = cost_finish,
    .print_results = cost_print,
    .destroy = cost_destroy,
};

const pt_tool *pt_tool_cost(void)
{
	return &cost_tool_def;
}
