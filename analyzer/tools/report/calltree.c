/* SPDX-License-Identifier: MIT */
/* The call tree of `paratrace report --tree`, `--callers FUNC` and
 * `--callees FUNC`, from the call-path tree the flame graph is drawn from
 * (plot_flame.h): the plot tool does this tool's pass (option "model", no
 * file), so the tree, its calls and the folding of paths past its node
 * limit are the picture's.
 *
 *   tree     every call path, by inclusive time; a node's exclusive time is
 *            its inclusive time less its children's
 *   callees  the paths below FUNC, merged over wherever FUNC was called
 *            (its outermost activations: a recursive call stays inside)
 *   callers  FUNC's time by the paths of callers that led to it, inverted:
 *            FUNC first, then who called it, then who called that, ...
 *
 * Children under `threshold` of the top's time are folded into one line
 * saying how many paths, calls and how much time went there.
 * Options: "json", "threshold=X" (a fraction, default 0.01), and last
 * "callers=FUNC" or "callees=FUNC" (FUNC: a name, else a POSIX ERE
 * matching names). */
#define _GNU_SOURCE
#include "plot.h"
#include "pt_framework.h"
#include "pt_fw_util.h"
#include "pt_names.h"
#include "pt_text.h"
#include "tools.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

typedef struct ct_print ct_print;

struct ct_print {
	const struct ct_tool *ct;
	const pf_tree *t;
	uint32_t *first, *kids; /* children, largest first (pf_tree_children) */
	uint64_t *excl;
	uint64_t top; /* the time shares are of */
	int excl_shown;
	FILE *o;
};

typedef struct ct_tool {
	const pt_trace_ctx *ctx;
	void *plot; /* the plot tool's state (option "model"): its shards are this tool's */
	int json;
	int mode; /* CT_TREE, CT_CALLERS, CT_CALLEES */
	double threshold;
	char *func;
	/* made by finish: the tree printed, its children by inclusive time */
	pf_tree derived; /* callers, callees */
	struct ct_print *p;
} ct_tool;

enum { CT_TREE, CT_CALLERS, CT_CALLEES };

/* ---- the tool: everything goes to the plot tool inside ------------------- */
static void ct_destroy(void *tool)
{
	ct_tool *ct = tool;
	if (ct->plot)
		pt_tool_plot()->destroy(ct->plot);
	if (ct->p) {
		free(ct->p->first);
		free(ct->p->kids);
		free(ct->p->excl);
		free(ct->p);
	}
	if (ct->derived.n)
		pf_tree_free(&ct->derived);
	free(ct->func);
	free(ct);
}

static void *ct_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	ct_tool *ct = calloc(1, sizeof *ct);
	if (!ct) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ct->ctx = ctx;
	ct->threshold = 0.01;
	const char *o = options ? options : "";
	ct->json = strstr(o, "json") != NULL;
	const char *t = strstr(o, "threshold=");
	if (t)
		ct->threshold = strtod(t + 10, NULL);
	const char *f = strstr(o, "callers=");
	if (f)
		ct->mode = CT_CALLERS;
	else if ((f = strstr(o, "callees=")))
		ct->mode = CT_CALLEES;
	if (f && !(ct->func = strdup(f + 8))) {
		snprintf(err, errlen, "out of memory");
		ct_destroy(ct);
		return NULL;
	}
	if (!(ct->plot = pt_tool_plot()->init(ctx, "model", err, errlen))) {
		ct_destroy(ct);
		return NULL;
	}
	return ct;
}

/* Every record goes to the plot tool, whose shard states are this tool's. */
static int ct_process_event(void *tool, size_t process, const pt_event *ev)
{
	return pt_tool_plot()->process_event(((ct_tool *)tool)->plot, process, ev);
}

static void *ct_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	return pt_tool_plot()->shard_init(((ct_tool *)tool)->plot, info, err, errlen);
}

static int ct_shard_event(void *st, const pt_event *ev)
{
	return pt_tool_plot()->shard_event(st, ev);
}

static const char *ct_shard_error(void *st)
{
	return pt_tool_plot()->shard_error(st);
}

static int ct_shard_exit(void *st, uint64_t last_ns, int complete)
{
	return pt_tool_plot()->shard_exit(st, last_ns, complete);
}

/* ---- FUNC: the ids it names -------------------------------------------- */
/* match[id] for every function id the tree holds; 0 when none matched. */
static size_t match_funcs(const ct_tool *ct, const pf_tree *t, uint8_t *match, size_t nmatch)
{
	size_t found = 0;
	for (int pass = 0; pass < 2 && !found; pass++) {
		regex_t re;
		if (pass && regcomp(&re, ct->func, REG_EXTENDED | REG_NOSUB))
			return 0;
		for (size_t i = 1; i < t->nn; i++) {
			uint32_t id = t->n[i].func;
			if (id == PF_OTHER || id >= nmatch || match[id])
				continue;
			const pt_func_info *fi = pt_ctx_func_info(ct->ctx, id);
			const char *name = fi && fi->name ? fi->name : "";
			if (pass ? regexec(&re, name, 0, NULL, 0) == 0 : !strcmp(name, ct->func)) {
				match[id] = 1;
				found++;
			}
		}
		if (pass)
			regfree(&re);
	}
	return found;
}

/* The tree of `mode` built from the picture's tree into out: FUNC's
 * callers (inverted) or callees, each activation of FUNC counted once
 * (the outermost one on its path). -1 on ENOMEM. */
static int derive(const pf_tree *t, const uint8_t *match, size_t nmatch, int mode, pf_tree *out)
{
	if (pf_tree_init(out, 2 * t->nn + 2))
		return -1;
	uint64_t *map = malloc(t->nn * sizeof *map); /* callees: node in out + 1 */
	uint8_t *inside = calloc(t->nn, 1);          /* FUNC on the path above */
	int rc = map && inside ? 0 : -1;
	for (size_t i = 1; !rc && i < t->nn; i++) {
		const pf_node *n = &t->n[i];
		int is = n->func < nmatch && match[n->func];
		int above = inside[n->parent];
		inside[i] = (uint8_t)(above || is);
		map[i] = 0;
		if (mode == CT_CALLEES) {
			uint64_t p = above ? map[n->parent] : is ? 1 : 0;
			if (!p)
				continue;
			uint64_t k = pf_child(out, (uint32_t)(above ? p - 1 : 0), n->func);
			if (k == UINT64_MAX) {
				rc = -1;
				break;
			}
			map[i] = k + 1;
			out->n[k].incl += n->incl;
			out->n[k].calls += n->calls;
		} else if (is && !above) {
			/* up the callers: FUNC's time on each */
			uint32_t k = 0;
			for (uint32_t j = (uint32_t)i; j; j = t->n[j].parent) {
				uint64_t c = pf_child(out, k, t->n[j].func);
				if (c == UINT64_MAX) {
					rc = -1;
					break;
				}
				k = (uint32_t)c;
				out->n[k].incl += n->incl;
				out->n[k].calls += n->calls;
			}
		}
	}
	free(map);
	free(inside);
	return rc;
}

/* ---- printing ------------------------------------------------------------- */

/* The children lists, and each node's exclusive time. */
static int children(ct_print *p)
{
	const pf_tree *t = p->t;
	if (pf_tree_children(t, &p->first, &p->kids) ||
	    !(p->excl = malloc(t->nn * sizeof *p->excl)))
		return -1;
	for (size_t i = 0; i < t->nn; i++) {
		uint64_t below = 0;
		for (uint32_t k = p->first[i]; k < p->first[i + 1]; k++)
			below += t->n[p->kids[k]].incl;
		p->excl[i] = t->n[i].incl > below ? t->n[i].incl - below : 0;
	}
	return 0;
}

static const char *node_name(const ct_print *p, uint32_t i, char *buf, size_t len)
{
	uint32_t f = p->t->n[i].func;
	const pt_func_info *fi = f != PF_OTHER ? pt_ctx_func_info(p->ct->ctx, f) : NULL;
	pt_name_fit(buf, len,
	            f == PF_OTHER    ? "(other paths: past the tree's node limit)"
	            : fi && fi->name ? fi->name
	                             : "?",
	            len - 1);
	return buf;
}

static int folded(const ct_print *p, uint32_t i)
{
	return (double)p->t->n[i].incl < p->ct->threshold * (double)p->top;
}

static void text_line(const ct_print *p, uint64_t incl, const char *excl, uint64_t calls,
                      unsigned depth, const char *name)
{
	char a[32], c[32];
	pt_fmt_dur(a, sizeof a, incl);
	snprintf(c, sizeof c, "%llu", (unsigned long long)calls);
	fprintf(p->o, "%9s %9s %9s %6.1f%%  %*s%s\n", a, excl, c,
	        p->top ? 100.0 * (double)incl / (double)p->top : 0.0, 2 * depth, "", name);
}

static void text_node(const ct_print *p, uint32_t i, unsigned depth)
{
	char name[1024], b[32];
	const pf_node *n = &p->t->n[i];
	if (p->excl_shown)
		pt_fmt_dur(b, sizeof b, p->excl[i]);
	text_line(p, n->incl, p->excl_shown ? b : "-", n->calls, depth,
	          node_name(p, i, name, sizeof name));
	uint64_t fincl = 0, fcalls = 0, fn = 0;
	for (uint32_t k = p->first[i]; k < p->first[i + 1]; k++) {
		uint32_t c = p->kids[k];
		if (folded(p, c)) {
			fincl += p->t->n[c].incl;
			fcalls += p->t->n[c].calls;
			fn++;
		} else
			text_node(p, c, depth + 1);
	}
	if (fn) {
		snprintf(name, sizeof name, "[%llu more %s under the threshold]",
		         (unsigned long long)fn, fn == 1 ? "path" : "paths");
		text_line(p, fincl, "-", fcalls, depth + 1, name);
	}
}

static void json_node(const ct_print *p, uint32_t i, unsigned depth)
{
	const pf_node *n = &p->t->n[i];
	const pt_func_info *fi = n->func != PF_OTHER ? pt_ctx_func_info(p->ct->ctx, n->func) : NULL;
	fprintf(p->o, "{\"name\": ");
	pt_json_str(p->o, n->func == PF_OTHER ? "(other)" : fi && fi->name ? fi->name : "?");
	fprintf(p->o, ", \"calls\": %llu, \"incl_ns\": %llu", (unsigned long long)n->calls,
	        (unsigned long long)n->incl);
	if (p->excl_shown)
		fprintf(p->o, ", \"excl_ns\": %llu", (unsigned long long)p->excl[i]);
	fputs(", \"children\": [", p->o);
	uint64_t fincl = 0, fcalls = 0, fn = 0;
	int k = 0;
	for (uint32_t j = p->first[i]; j < p->first[i + 1]; j++) {
		uint32_t c = p->kids[j];
		if (folded(p, c)) {
			fincl += p->t->n[c].incl;
			fcalls += p->t->n[c].calls;
			fn++;
			continue;
		}
		fprintf(p->o, "%s\n%*s", k++ ? "," : "", 2 * (int)depth + 2, "");
		json_node(p, c, depth + 1);
	}
	fputc(']', p->o);
	if (fn)
		fprintf(p->o, ", \"folded\": {\"paths\": %llu, \"calls\": %llu, \"incl_ns\": %llu}",
		        (unsigned long long)fn, (unsigned long long)fcalls,
		        (unsigned long long)fincl);
	fputc('}', p->o);
}

static void print_tree(ct_print *p)
{
	const ct_tool *ct = p->ct;
	static const char *const what[] = {"tree", "callers", "callees"};
	if (ct->json) {
		fprintf(p->o, "{\"view\": \"%s\", ", what[ct->mode]);
		if (ct->func) {
			fputs("\"function\": ", p->o);
			pt_json_str(p->o, ct->func);
			fputs(", ", p->o);
		}
		fprintf(p->o, "\"total_ns\": %llu, \"threshold\": %g, \"roots\": [",
		        (unsigned long long)p->top, ct->threshold);
		int k = 0;
		for (uint32_t j = p->first[0]; j < p->first[1]; j++) {
			fprintf(p->o, "%s\n  ", k++ ? "," : "");
			json_node(p, p->kids[j], 1);
		}
		fputs("\n]}\n", p->o);
		return;
	}
	char a[32];
	pt_fmt_dur(a, sizeof a, p->top);
	if (ct->mode == CT_TREE)
		fprintf(p->o, "\nCall tree: every call path of every thread (%s of thread time)\n",
		        a);
	else if (ct->mode == CT_CALLEES)
		fprintf(p->o, "\nCallees of %s: the paths below it, merged (%s in it)\n", ct->func,
		        a);
	else
		fprintf(
		    p->o,
		    "\nCallers of %s: its time by the paths that called it, callers below (%s in "
		    "it)\n",
		    ct->func, a);
	fprintf(p->o, "paths under %.1f%% of that folded into one line\n%9s %9s %9s %7s  %s\n",
	        100.0 * ct->threshold, "incl", "excl", "calls", "%incl", "function");
	for (uint32_t j = p->first[0]; j < p->first[1]; j++)
		if (!folded(p, p->kids[j]))
			text_node(p, p->kids[j], 0);
}

static int ct_finish(void *tool, char *err, size_t errlen)
{
	ct_tool *ct = tool;
	if (pt_tool_plot()->finish(ct->plot, err, errlen))
		return -1;
	const pf_tree *t = &pl_tool_model(ct->plot)->flame;
	ct_print *p = calloc(1, sizeof *p);
	if (!p)
		goto oom;
	ct->p = p;
	*p = (ct_print){.ct = ct, .t = t, .excl_shown = ct->mode != CT_CALLERS};
	if (ct->mode != CT_TREE) {
		size_t nmatch = pt_fw_static_funcs(ct->ctx) + 1;
		for (size_t i = 1; i < t->nn; i++)
			if (t->n[i].func != PF_OTHER && t->n[i].func >= nmatch)
				nmatch = t->n[i].func + 1;
		uint8_t *match = calloc(nmatch, 1);
		if (!match)
			goto oom;
		if (!match_funcs(ct, t, match, nmatch)) {
			snprintf(
			    err, errlen,
			    "report: no function '%s' was called in the trace (FUNC: a name, or a "
			    "regular expression matching names)",
			    ct->func);
			free(match);
			return -1;
		}
		int rc = derive(t, match, nmatch, ct->mode, &ct->derived);
		free(match);
		if (rc)
			goto oom;
		p->t = &ct->derived;
	}
	if (children(p))
		goto oom;
	if (ct->mode == CT_TREE)
		p->top = t->n[0].incl;
	else
		for (uint32_t j = p->first[0]; j < p->first[1]; j++)
			p->top += p->t->n[p->kids[j]].incl;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int ct_print_results(void *tool, FILE *o)
{
	ct_tool *ct = tool;
	if (!ct->p)
		return -1;
	ct->p->o = o;
	print_tree(ct->p);
	return 0;
}

static const pt_tool calltree_tool = {
    .api_version = PT_TOOL_API_VERSION,
    .name = "calltree",
    .description = "the call tree: inclusive and exclusive time per call path",
    .init = ct_init,
    .process_event = ct_process_event,
    .shard_init = ct_shard_init,
    .shard_event = ct_shard_event,
    .shard_exit = ct_shard_exit,
    .shard_error = ct_shard_error,
    .finish = ct_finish,
    .print_results = ct_print_results,
    .destroy = ct_destroy,
};

const pt_tool *pt_tool_calltree(void)
{
	return &calltree_tool;
}
