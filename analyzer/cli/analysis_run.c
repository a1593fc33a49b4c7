/* SPDX-License-Identifier: MIT */
/* The pass of the analysis commands: their tools run over the trace, with
 * warnings, a progress bar and a summary on stderr. */
#define _GNU_SOURCE
#include "analysis.h"
#include "commands.h"
#include "pt_text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void warn_cb(void *arg, const char *msg)
{
	cli *c = arg;
	if (c->progress_shown) {
		fputs("\r\033[K", stderr);
		c->progress_shown = 0;
	}
	pt_cli_say("warning", msg, 0);
}

/* A byte count with a unit that suits `scale` (the total). */
static const char *fmt_size(double v, double scale, char *buf, size_t len)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
	int u = 0;
	while (u < 4 && scale >= 1000) {
		scale /= 1000;
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u && v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

/* Drawn once a step has taken PROGRESS_AFTER seconds: shorter ones print
 * nothing but their end (erased at once). */
#define PROGRESS_AFTER 2.0

static void progress_cb(void *arg, const char *what, uint64_t done, uint64_t total,
			double elapsed)
{
	cli *c = arg;
	if (elapsed < PROGRESS_AFTER && done < total)
		return;
	double frac = total ? (double)done / (double)total : 1.0;
	if (frac > 1)
		frac = 1;
	double rate = elapsed > 0 ? (double)done / elapsed : 0;
	double left = rate > 0 ? (double)(total - (done < total ? done : total)) / rate : 0;
	char bar[31], a[24], b[24], r[24];
	int fill = (int)(frac * 30);
	for (int i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : ' ';
	bar[30] = 0;
	char step[64]; /* a loaded tool's words: the text policy, as every message */
	pt_text_fit(step, sizeof step, what, 40, 0);
	fprintf(stderr, "\r%s [%s] %3d%%  %s of %s  %s/s  %.0fs left \033[K", step, bar,
	        (int)(frac * 100), fmt_size((double)done, (double)total, a, sizeof a),
	        fmt_size((double)total, (double)total, b, sizeof b),
	        fmt_size(rate, rate, r, sizeof r), left);
	c->progress_shown = 1;
	if (done >= total) {
		fputs("\r\033[K", stderr);
		c->progress_shown = 0;
	}
	fflush(stderr);
}

/* "dir/" -> "dir": the default output name sits beside the trace directory */
char *cli_default_name(const char *dir, const char *ext)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	char *s = malloc(n + strlen(ext) + 1);
	if (s) {
		memcpy(s, dir, n);
		strcpy(s + n, ext);
	}
	return s;
}

int cli_run(cli *c)
{
	char err[2048];
	for (size_t i = 0; i < c->nloaded; i++) {
		if (pt_fw_load_tool(c->loaded[i], &c->tools[c->ntools], err, sizeof err)) {
			pt_cli_error("%s", err);
			return 2;
		}
		c->ntools++;
	}
	/* several processes: the first prints, each warns of what it read */
	int first = !c->dist || c->dist->rank == 0;
	pt_fw_options o = {
		.dir = c->dir,
		.output = c->output,
		.jobs = c->jobs,
		.interval_ns = c->interval_ns,
		.quiet = c->quiet,
		.out = first ? stdout : NULL,
		.warn = warn_cb,
		.progress = first && !c->quiet && isatty(2) ? progress_cb : NULL,
		.arg = c,
		.run = c->run,
		.dist = c->dist,
		.select = c->sel_opt ? &c->sel : NULL,
	};
	pt_fw_stats st;
	memset(&st, 0, sizeof st);
	int rc = pt_fw_run(&o, c->tools, c->ntools, &st, err, sizeof err);
	for (size_t i = 0; i < c->ntools; i++)
		pt_fw_unload_tool(&c->tools[i]);
	if (c->progress_shown)
		fputs("\r\033[K", stderr);
	if (rc) {
		pt_cli_error("%s", err);
		return rc == PT_FW_BAD_INPUT ? 2 : 1;
	}
	if (!c->quiet && first && !strcmp(c->cmd, "analyze")) {
		if (st.processes_analyzing > 1)
			fprintf(stderr,
				"%s: %llu events from %zu logs of %zu processes in %.2f s (%u analyzer "
				"processes of %u workers)\n",
				pt_cli_progname, (unsigned long long)st.events, st.shards, st.processes,
				st.seconds_total, st.processes_analyzing, st.workers);
		else
			fprintf(stderr,
				"%s: %llu events from %zu logs of %zu processes in %.2f s (%u workers)\n",
				pt_cli_progname, (unsigned long long)st.events, st.shards, st.processes,
				st.seconds_total, st.workers);
	}
	return st.data_errors ? 1 : 0;
}

void cli_add_builtin(cli *c, const pt_tool *t, const char *options)
{
	c->tools[c->ntools].tool = t;
	c->tools[c->ntools].options = options;
	c->tools[c->ntools].dl = NULL;
	c->ntools++;
}

void cli_add_section(void *arg, const pf_section *s)
{
	cli *c = arg;
	cli_add_builtin(c, s->tool(), strcmp(c->cmd, "analyze") ? c->optbuf : NULL);
}
