/* SPDX-License-Identifier: MIT */
/* An example paratrace analysis tool, loaded with
 *     paratrace analyze --tool ./libpt_example_tool.so:top=5 TRACE_DIR
 * It counts function calls per function over the whole trace and prints the
 * most called ones, plus records and lock acquisitions per process.
 *
 * Built with only <paratrace/tool.h>:
 *     cc -O2 -shared -fPIC -I<paratrace>/include calls.c -o calls.so
 * The contract (which callback runs where, and what may be shared) is in
 * the header; this file follows it: per-shard counts without locks while
 * shards run, merged under the tool's mutex in shard_exit.
 */
#include <paratrace/tool.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct calls_tool {
	const pt_trace_ctx *ctx;
	unsigned top;
	pthread_mutex_t lock;
	uint64_t *calls; /* per function id */
	size_t ncalls;
	uint64_t records, acquisitions, shards;
} calls_tool;

typedef struct calls_shard {
	calls_tool *tool;
	const pt_shard_info *info;
	uint64_t *calls;
	size_t ncalls;
	uint64_t records, acquisitions;
	char err[64];
} calls_shard;

static void *calls_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	calls_tool *t = calloc(1, sizeof *t);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->ctx = ctx;
	t->top = 10;
	if (options && !strncmp(options, "top=", 4))
		t->top = (unsigned)strtoul(options + 4, NULL, 10);
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static void *calls_shard_init(void *tool, const pt_shard_info *shard, char *err, size_t errlen)
{
	calls_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->tool = tool;
	s->info = shard;
	return s;
}

static int calls_shard_event(void *state, const pt_event *ev)
{
	calls_shard *s = state;
	s->records++;
	if (ev->kind == PT_REC_LOCK_ACQUIRED)
		s->acquisitions++;
	if (ev->kind != PT_REC_FUNC_ENTER)
		return 0;
	/* the framework's id: one per (demangled name, file) across processes */
	uint32_t id = pt_ctx_func_id(s->tool->ctx, s->info->process, ev->func_id);
	if (id >= s->ncalls) {
		size_t n = s->ncalls ? s->ncalls * 2 : 64;
		while (n <= id)
			n *= 2;
		uint64_t *c = realloc(s->calls, n * sizeof *c);
		if (!c) {
			snprintf(s->err, sizeof s->err, "out of memory");
			return -1;
		}
		memset(c + s->ncalls, 0, (n - s->ncalls) * sizeof *c);
		s->calls = c;
		s->ncalls = n;
	}
	s->calls[id]++;
	return 0;
}

static const char *calls_shard_error(void *state)
{
	return ((calls_shard *)state)->err;
}

static int calls_shard_exit(void *state, uint64_t last_ns, int complete)
{
	(void)last_ns;
	(void)complete;
	calls_shard *s = state;
	calls_tool *t = s->tool;
	int rc = 0;
	pthread_mutex_lock(&t->lock);
	if (s->ncalls > t->ncalls) {
		uint64_t *c = realloc(t->calls, s->ncalls * sizeof *c);
		if (c) {
			memset(c + t->ncalls, 0, (s->ncalls - t->ncalls) * sizeof *c);
			t->calls = c;
			t->ncalls = s->ncalls;
		} else
			rc = -1;
	}
	for (size_t i = 0; i < s->ncalls && i < t->ncalls; i++)
		t->calls[i] += s->calls[i];
	t->records += s->records;
	t->acquisitions += s->acquisitions;
	t->shards++;
	pthread_mutex_unlock(&t->lock);
	free(s->calls);
	free(s);
	return rc;
}

static int calls_print(void *tool, FILE *out)
{
	calls_tool *t = tool;
	uint64_t total = 0;
	for (size_t i = 0; i < t->ncalls; i++)
		total += t->calls[i];
	fprintf(out, "\nexample tool: %llu records, %llu function calls, %llu lock acquisitions "
		     "in %llu shards\n",
		(unsigned long long)t->records, (unsigned long long)total,
		(unsigned long long)t->acquisitions, (unsigned long long)t->shards);
	/* top N by calls: repeated selection is fine for a short list */
	char *shown = calloc(t->ncalls + 1, 1);
	for (unsigned k = 0; shown && k < t->top; k++) {
		size_t best = 0;
		for (size_t i = 1; i < t->ncalls; i++)
			if (!shown[i] && t->calls[i] > (best ? t->calls[best] : 0))
				best = i;
		if (!best)
			break;
		shown[best] = 1;
		const pt_func_info *fi = pt_ctx_func_info(t->ctx, (uint32_t)best);
		fprintf(out, "  %10llu  %s\n", (unsigned long long)t->calls[best],
			fi ? fi->name : "?");
	}
	free(shown);
	return 0;
}

static void calls_destroy(void *tool)
{
	calls_tool *t = tool;
	pthread_mutex_destroy(&t->lock);
	free(t->calls);
	free(t);
}

static const pt_tool calls = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "calls",
	.description = "function calls per function (example)",
	.init = calls_init,
	.shard_init = calls_shard_init,
	.shard_event = calls_shard_event,
	.shard_exit = calls_shard_exit,
	.shard_error = calls_shard_error,
	.print_results = calls_print,
	.destroy = calls_destroy,
};

__attribute__((visibility("default"))) const pt_tool *pt_tool_entry(void)
{
	return &calls;
}
