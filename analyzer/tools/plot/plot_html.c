/* SPDX-License-Identifier: MIT */
/* The HTML report (plot.h): one self-contained file. The profile is the
 * JSON of `paratrace report --json`, embedded as it is and turned into
 * sortable tables by report.js, and so is each family section's JSON (a
 * pf_html part, tools/report/report.h: its markup, its data, its script);
 * the timeline and the flame graph are the SVGs of `paratrace plot`,
 * inline. Stylesheet and scripts are inline too, and the page's
 * Content-Security-Policy forbids loading anything, so it works offline
 * and leaks nothing. */
#define _GNU_SOURCE
#include "plot.h"
#include "pt_text.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

extern const char pl_asset_report_css[];
extern const char pl_asset_report_js[];
extern const char pl_asset_headline_js[];
extern const char pl_asset_timeline_js[];

/* JSON inside <script>: "<" only occurs in its strings, where \u003c means
 * the same, so no "</script>" in a name can end the element early. */
static void json_in_script(FILE *f, const char *json)
{
	for (const char *p = json; *p; p++)
		if (*p == '<')
			fputs("\\u003c", f);
		else
			fputc(*p, f);
}

static void html_head(FILE *f, const pl_model *m)
{
	const pt_trace_ctx *ctx = m->ctx;
	const char *program = ctx->nprocesses ? ctx->processes[0].program : "?";
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>paratrace report: ",
	      f);
	pt_xml_str(f, program);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n", pl_asset_report_css);
}

/* Family i's part for its tables inside the profile, or NULL. */
static const pf_html *inline_html(size_t i)
{
	const pf_family *r = pt_families[i]->report;
	return r ? r->html : NULL;
}

/* A section with data to show. */
static int shown(const pl_html_part *p)
{
	return p->json && *p->json;
}

static void html_header(FILE *f, const pl_model *m, const pl_html_part *parts, size_t nparts)
{
	const pt_trace_ctx *ctx = m->ctx;
	fputs("<body>\n<header>\n<h1>paratrace report: ", f);
	pt_xml_str(f, ctx->nprocesses ? ctx->processes[0].program : "?");
	fputs("</h1>\n<p class=\"facts\">", f);
	pl_facts(f, m);
	fputs(" from the first record to the last.</p>\n"
	      "<p class=\"facts\" id=\"summary\"></p>\n"
	      "<section id=\"headline\"><h2>What matters</h2><ul id=\"headline-list\"></ul>"
	      "</section>\n"
	      "<nav><a href=\"#s-timeline\">Timeline</a><a href=\"#s-flame\">Where time goes</a>"
	      "<a href=\"#s-functions\">Functions</a><a href=\"#s-locks\">Locks</a>"
	      "<a href=\"#s-threads\">Threads</a>",
	      f);
	for (size_t i = 0; i < nparts; i++)
		if (shown(&parts[i]))
			fprintf(f, "<a href=\"#s-%s\">%s</a>", parts[i].html->id,
			        parts[i].html->nav);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (inline_html(i))
			fprintf(f, "<a href=\"#s-%s\">%s</a>", inline_html(i)->anchor,
			        inline_html(i)->nav);
	fputs("</nav>\n</header>\n", f);
}

void pl_html_table(FILE *f, const char *id, const char *title, const char *hint)
{
	fprintf(f,
	        "<section id=\"s-%s\">\n<h2>%s <span id=\"%s-count\"></span></h2>\n"
	        "<p class=\"hint\">%s Click a column to sort by it.</p>\n"
	        "<table id=\"%s\" class=\"sortable\"></table>\n</section>\n",
	        id, title, id, hint, id);
}

int pl_html_report(FILE *f, const pl_model *m, const char *profile_json, const pl_html_part *parts,
                   size_t nparts)
{
	html_head(f, m);
	html_header(f, m, parts, nparts);
	fputs("<section id=\"s-timeline\" class=\"pic\">\n<div id=\"range-bar\">"
	      "<span id=\"range-text\">Drag across the timeline to select a range of time: the "
	      "tables below then show that range only.</span> <button type=\"button\" "
	      "id=\"zoom-in\" disabled>Zoom to selection</button> <button type=\"button\" "
	      "id=\"zoom-out\" disabled>Whole run</button></div>\n",
	      f);
	if (pl_svg_timeline(f, m, 1400))
		return -1;
	fputs("</section>\n<section id=\"s-flame\" class=\"pic\">\n", f);
	if (pl_svg_flame(f, m, 1400))
		return -1;
	fputs("</section>\n", f);
	pl_html_table(f, "functions", "Functions",
	              "Inclusive: time in the function and its callees; exclusive: in the function "
	              "itself; % time: exclusive time over the sum of all threads' lifetimes.");
	pl_html_table(f, "locks", "Locks",
	              "Mutexes, rwlocks, spinlocks, semaphores, barriers and condition variables: "
	              "acquisitions, how many had to wait, and for how long.");
	pl_html_table(f, "threads", "Threads",
	              "Lifetime (first to last record), running, and waiting by kind.");
	for (size_t i = 0; i < nparts; i++)
		if (shown(&parts[i]))
			parts[i].html->markup(f);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (inline_html(i))
			inline_html(i)->markup(f);
	/* the page's data, through memory: json_in_script escapes its names */
	char *data = NULL;
	size_t ndata = 0;
	FILE *mem = open_memstream(&data, &ndata);
	if (!mem)
		return -1;
	int bad = pl_page_data(mem, m);
	if (fclose(mem) || bad) {
		free(data);
		return -1;
	}
	fputs("<script type=\"application/json\" id=\"pictures\">\n", f);
	json_in_script(f, data);
	free(data);
	fputs("</script>\n", f);
	fputs("<script type=\"application/json\" id=\"profile\">\n", f);
	json_in_script(f, profile_json);
	for (size_t i = 0; i < nparts; i++)
		if (shown(&parts[i])) {
			fprintf(f, "</script>\n<script type=\"application/json\" id=\"%s\">\n",
			        parts[i].html->id);
			json_in_script(f, parts[i].json);
		}
	for (size_t i = 0; i < nparts; i++)
		if (shown(&parts[i]))
			fprintf(f, "</script>\n<script>\n%s", parts[i].html->script);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (inline_html(i))
			fprintf(f, "</script>\n<script>\n%s", inline_html(i)->script);
	/* the tables, then what uses them: the headline, the timeline's range */
	fprintf(f, "</script>\n<script>\n%s</script>\n", pl_asset_report_js);
	fprintf(f, "<script>\n%s</script>\n<script>\n%s</script>\n</body>\n</html>\n",
	        pl_asset_headline_js, pl_asset_timeline_js);
	return ferror(f) ? -1 : 0;
}
