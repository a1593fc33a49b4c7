/* SPDX-License-Identifier: MIT */
/* The timeline and the flame graph as SVG (plot.h).
 *
 * Timeline: one row per thread and GPU stream (the first PL_MAX_ROWS), in
 * the Paraver row order; a bin is painted with the label it shows
 * (pb_bin_label), fainter the less of the bin it was busy (pb_bin_level),
 * neighbouring bins alike are one rectangle; below
 * each row a thin strip whose opacity says how much of the bin the thread
 * waited; black where the runtime lost data. A labelled time axis and a
 * legend of the labels with most exclusive time.
 *
 * Flame graph, drawn as an icicle: the root spans every thread's lifetime;
 * under each node its callees, widest first, each as wide as its
 * inclusive time summed over threads. Nodes narrower than half a pixel
 * are left out (their time stays in their caller's box). */
#define _GNU_SOURCE
#include "plot.h"

#include "pt_fw_util.h"
#include "pt_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 1400u
#define MARGIN 10.0
#define LABEL_W 300.0 /* row labels, left of the time axis */
#define FONT "DejaVu Sans, Verdana, Arial, sans-serif"
#define CHAR_W 6.6 /* average advance of an 11 px DejaVu Sans character */
#define LEGEND_ITEMS 16
#define FLAME_LEVEL 17.0
#define FLAME_DEPTH 128
#define WAIT_COLOUR "#d62728"

/* ---- text and names ----------------------------------------------------- */

const char *pl_label_name(const pl_model *m, uint32_t label, char *buf, size_t len)
{
	if (label >= PL_FAMILY_LABELS) {
		snprintf(buf, len, "?");
		for (size_t i = 0; i < pt_nfamilies(); i++) {
			const pl_family *f = pt_families[i]->plot;
			if (f && f->label_name && label >= f->label_first &&
			    label <= f->label_last) {
				f->label_name(m->fam[i], label, buf, len);
				break;
			}
		}
	} else {
		const pt_func_info *fi = pt_ctx_func_info(m->ctx, label);
		snprintf(buf, len, "%s", fi && fi->name[0] ? fi->name : "?");
	}
	return buf;
}

void pl_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		if ((double)ns >= u[i].div) {
			double v = (double)ns / u[i].div;
			snprintf(buf, len, "%.*f %s", v >= 100 ? 0 : v >= 10 ? 1 : 2, v, u[i].unit);
			return;
		}
	snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

/* A tick label: the value in the largest unit it reaches, no trailing
 * zeros ("0", "250 us", "1.5 ms"). */
static void tick_label(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} u[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
	if (!ns) {
		snprintf(buf, len, "0");
		return;
	}
	size_t i = 0;
	while (ns < u[i].div)
		i++;
	snprintf(buf, len, "%.3f", (double)ns / (double)u[i].div);
	char *e = buf + strlen(buf);
	while (e > buf && e[-1] == '0')
		*--e = 0;
	if (e > buf && e[-1] == '.')
		*--e = 0;
	snprintf(e, len - (size_t)(e - buf), " %s", u[i].unit);
}

/* 1, 2 or 5 times a power of ten: about `ticks` steps over span. */
static uint64_t tick_step(uint64_t span, unsigned ticks)
{
	uint64_t want = span / ticks ? span / ticks : 1;
	for (uint64_t p = 1;; p *= 10) {
		if (p >= want)
			return p;
		if (2 * p >= want)
			return 2 * p;
		if (5 * p >= want)
			return 5 * p;
		if (p > UINT64_MAX / 100)
			return p * 10;
	}
}

/* ---- timeline ------------------------------------------------------------ */

typedef struct tl_geom {
	double x0, w; /* the time axis */
	double rows_y, rh, band, wait_h;
	uint64_t span, bin_w;
	double axis_y, legend_y, height;
	size_t legend_n;
	unsigned width;
} tl_geom;

static void tl_layout(const pl_model *m, unsigned width, tl_geom *g)
{
	memset(g, 0, sizeof *g);
	g->width = width;
	g->x0 = MARGIN + LABEL_W;
	g->w = width - g->x0 - 2 * MARGIN;
	g->rows_y = 56;
	g->rh = m->nrows <= 24 ? 20 : m->nrows <= 64 ? 12 : 6;
	g->band = g->rh - 2;
	g->wait_h = g->rh >= 12 ? 3 : 1;
	g->span = m->t_end - m->t0;
	g->bin_w = 1ull << m->shift;
	g->axis_y = g->rows_y + (double)m->nrows * g->rh + 4;
	double note = m->nrows < m->ctx->nshards ? 16 : 0;
	g->legend_y = g->axis_y + 44 + note;
	g->legend_n = m->nexcl < LEGEND_ITEMS ? m->nexcl : LEGEND_ITEMS;
	size_t items = g->legend_n + 3; /* + waiting, data lost, no function */
	g->height = g->legend_y + 18.0 * (double)((items + 2) / 3) + MARGIN;
}

static double tl_x(const tl_geom *g, uint64_t rel)
{
	if (rel > g->span)
		rel = g->span;
	return g->x0 + g->w * (double)rel / (double)g->span;
}

/* A run of bins [b0, b1) as one rectangle. */
static void run_rect(FILE *f, const tl_geom *g, size_t b0, size_t b1, double y, double h,
                     const char *cls, const char *fill, double opacity)
{
	double xa = tl_x(g, (uint64_t)b0 * g->bin_w), xb = tl_x(g, (uint64_t)b1 * g->bin_w);
	fprintf(
	    f,
	    "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"",
	    cls, xa, y, xb - xa, h, fill);
	if (opacity < 1)
		fprintf(f, " fill-opacity=\"%.2f\"", opacity);
}

/* "WHAT (NOTE, A to B)": the name first, the tests read it */
static void run_title(FILE *f, const tl_geom *g, size_t b0, size_t b1, const char *what,
                      const char *note)
{
	char a[32], b[32];
	pl_fmt_ns(a, sizeof a, (uint64_t)b0 * g->bin_w);
	uint64_t end = (uint64_t)b1 * g->bin_w;
	pl_fmt_ns(b, sizeof b, end < g->span ? end : g->span);
	fputs("><title>", f);
	pt_xml_str(f, what);
	fprintf(f, " (%s%s%s to %s)</title></rect>\n", note, *note ? ", " : "", a, b);
}

static void tl_row(FILE *f, const pl_model *m, const tl_geom *g, size_t r)
{
	const pl_row *row = &m->rows[r];
	double y = g->rows_y + (double)r * g->rh;
	fprintf(f, "<g class=\"row\" data-row=\"%zu\" data-label=\"", r);
	pt_xml_str(f, row->label ? row->label : "");
	fprintf(f,
	        "\">\n<rect class=\"rowbg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	        "fill=\"#f2f2f2\"/>\n",
	        g->x0, y, g->w, g->band);
	if (g->rh >= 12 && row->label) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"><title>", g->x0 - 6,
		        y + g->band / 2 + 4);
		pt_xml_str(f, row->label);
		fputs("</title>", f);
		/* the end of a label says most (the thread's name): cut its start */
		pt_xml_fit(f, row->label, (size_t)((LABEL_W - 12) / CHAR_W), 1);
		fputs("</text>\n", f);
	}
	const pb_row *b = &row->bins;
	size_t nb = b->bins ? (m->nbins < b->used ? m->nbins : b->used) : 0;
	double fh = g->band - g->wait_h;
	char name[512], colour[8];
	/* a run: bins of one label and one level of busy-ness */
	static const double fill[] = {0, 0.35, 0.55, 0.8, 1};
	for (size_t i = 0; i < nb;) {
		uint32_t l = pb_bin_label(&b->bins[i]);
		unsigned v = pb_bin_level(&b->bins[i], g->bin_w);
		size_t j = i + 1;
		while (j < nb && pb_bin_label(&b->bins[j]) == l &&
		       pb_bin_level(&b->bins[j], g->bin_w) == v)
			j++;
		if (l) {
			pl_label_name(m, l, name, sizeof name);
			pl_palette_colour(&m->pal, l, name, colour);
			run_rect(f, g, i, j, y, fh, "f", colour, fill[v]);
			char note[48] = "";
			if (v < 4)
				snprintf(note, sizeof note, "busy about %u%% of the time", v * 25);
			run_title(f, g, i, j, name, note);
		}
		i = j;
	}
	for (size_t i = 0; i < nb;) {
		unsigned l = pb_bin_wait_level(&b->bins[i], g->bin_w);
		size_t j = i + 1;
		while (j < nb && pb_bin_wait_level(&b->bins[j], g->bin_w) == l)
			j++;
		if (l) {
			run_rect(f, g, i, j, y + fh, g->wait_h, "wait", WAIT_COLOUR, l / 4.0);
			snprintf(name, sizeof name, "waiting about %u%% of the time", l * 25);
			run_title(f, g, i, j, name, "");
		}
		i = j;
	}
	for (size_t i = 0; i < nb;) {
		int l = b->bins[i].lost != 0;
		size_t j = i + 1;
		while (j < nb && (b->bins[j].lost != 0) == l)
			j++;
		if (l) {
			run_rect(f, g, i, j, y, g->band, "lost", "#000000", 1);
			run_title(f, g, i, j, "data lost by the runtime", "");
		}
		i = j;
	}
	fputs("</g>\n", f);
}

static void tl_axis(FILE *f, const pl_model *m, const tl_geom *g)
{
	double y = g->axis_y;
	fprintf(f,
	        "<g class=\"axis\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	        "stroke=\"#333\"/>\n",
	        g->x0, y, g->x0 + g->w, y);
	uint64_t step = tick_step(g->span, 10);
	char buf[32];
	for (uint64_t t = 0; t <= g->span; t += step) {
		double x = tl_x(g, t);
		tick_label(buf, sizeof buf, t);
		fprintf(
		    f,
		    "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333\"/>"
		    "<text class=\"tick\" x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		    x, y, x, y + 5, x, y + 17, buf);
		if (t > UINT64_MAX - step)
			break;
	}
	pl_fmt_ns(buf, sizeof buf, g->bin_w);
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">time since the "
	        "start of the run (one bin: %s; each shows what took most of it)</text>\n",
	        g->x0 + g->w / 2, y + 33, buf);
	if (m->nrows < m->ctx->nshards)
		fprintf(f,
		        "<text class=\"more\" x=\"%.1f\" y=\"%.1f\" fill=\"#a00\">%zu more rows "
		        "(threads, "
		        "GPU streams) are not drawn: the first %zu are</text>\n",
		        MARGIN, y + 49, m->ctx->nshards - m->nrows, m->nrows);
	fputs("</g>\n", f);
}

static void legend_item(FILE *f, double x, double y, const char *fill, const char *stroke,
                        const char *name, uint64_t ns, size_t max, const char *cls)
{
	char extra[32] = "";
	if (ns)
		pl_fmt_ns(extra, sizeof extra, ns);
	fprintf(f, "<g class=\"%s\" data-ns=\"%llu\" data-name=\"", cls, (unsigned long long)ns);
	pt_xml_str(f, name);
	fprintf(f,
	        "\"><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" "
	        "stroke=\"%s\"/><text x=\"%.1f\" y=\"%.1f\"><title>",
	        x, y, fill, stroke, x + 17, y + 10);
	pt_xml_str(f, name);
	fputs("</title>", f);
	pt_xml_fit(f, name, max, 0);
	fprintf(f, " <tspan fill=\"#555\">%s</tspan></text></g>\n", extra);
}

static void tl_legend(FILE *f, const pl_model *m, const tl_geom *g)
{
	double colw = (g->width - 2 * MARGIN) / 3;
	size_t max = (size_t)((colw - 17 - 90) / CHAR_W);
	char name[512], colour[8];
	fputs("<g class=\"legend\">\n", f);
	size_t k = 0;
	for (; k < g->legend_n; k++) {
		double x = MARGIN + colw * (double)(k % 3),
		       y = g->legend_y + 18.0 * (double)(k / 3);
		pl_label_name(m, m->excl[k].label, name, sizeof name);
		pl_palette_colour(&m->pal, m->excl[k].label, name, colour);
		legend_item(f, x, y, colour, "none", name, m->excl[k].ns, max, "legend-item");
	}
	static const struct {
		const char *fill, *stroke, *name;
	} fixed[] = {
	    {WAIT_COLOUR, "none", "waiting (strip under a row: lock, condition, join, barrier)"},
	    {"#000000", "none", "data lost by the runtime"},
	    {"#f2f2f2", "#999", "no traced function"}};
	for (size_t i = 0; i < 3; i++, k++) {
		double x = MARGIN + colw * (double)(k % 3),
		       y = g->legend_y + 18.0 * (double)(k / 3);
		legend_item(f, x, y, fixed[i].fill, fixed[i].stroke, fixed[i].name, 0, 80,
		            "legend-mark");
	}
	fputs("</g>\n", f);
}

static void svg_open(FILE *f, const char *id, unsigned width, double height, double y)
{
	fprintf(f,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" y=\"%.0f\" width=\"%u\" "
	        "height=\"%.0f\" viewBox=\"0 0 %u %.0f\" font-family=\"%s\" font-size=\"11\">\n"
	        "<rect width=\"%u\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
	        id, y, width, height, width, height, FONT, width, height);
}

static void tl_header(FILE *f, const pl_model *m)
{
	const pt_trace_ctx *ctx = m->ctx;
	fprintf(f, "<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Timeline: ",
	        MARGIN);
	pt_xml_str(f, ctx->nprocesses ? ctx->processes[0].program : "?");
	fprintf(f, "</text>\n<text x=\"%.0f\" y=\"40\" fill=\"#444\">", MARGIN);
	pl_facts(f, m);
	fputs(". Colour: the innermost traced function (on GPU streams the kernel or copy); hover "
	      "for names and times.</text>\n",
	      f);
}

void pl_facts(FILE *f, const pl_model *m)
{
	const pt_trace_ctx *ctx = m->ctx;
	char span[32];
	pl_fmt_ns(span, sizeof span, m->t_end - m->t0);
	pt_xml_str(f, ctx->dir);
	fprintf(f, ": %zu process%s, %zu thread%s", ctx->nprocesses,
	        ctx->nprocesses == 1 ? "" : "es", m->nthreads, m->nthreads == 1 ? "" : "s");
	if (m->nstreams)
		fprintf(f, ", %zu GPU stream%s", m->nstreams, m->nstreams == 1 ? "" : "s");
	fprintf(f, ", %s", span);
}

static int timeline_at(FILE *f, const pl_model *m, unsigned width, double y)
{
	tl_geom g;
	tl_layout(m, width, &g);
	svg_open(f, "timeline", width, g.height, y);
	tl_header(f, m);
	for (size_t r = 0; r < m->nrows; r++)
		tl_row(f, m, &g, r);
	tl_axis(f, m, &g);
	tl_legend(f, m, &g);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

int pl_svg_timeline(FILE *f, const pl_model *m, unsigned width)
{
	return timeline_at(f, m, width, 0);
}

/* ---- flame graph ------------------------------------------------------- */

typedef struct fl_box {
	uint32_t node;
	unsigned depth;
	double x, w;
} fl_box;

typedef struct fl_layout {
	fl_box *box;
	size_t n;
	unsigned depth; /* deepest level drawn */
	int cut;        /* deeper levels were left out */
} fl_layout;

/* Boxes in drawing order (parents first), children widest first. */
static int fl_lay(const pf_tree *t, double x0, double width, fl_layout *out)
{
	memset(out, 0, sizeof *out);
	size_t n = t->nn;
	uint32_t *first = NULL, *kids = NULL;
	out->box = malloc(n * sizeof *out->box);
	fl_box *stack = malloc(n * sizeof *stack);
	int rc = -1;
	/* node i's children are kids[first[i] .. first[i + 1]), widest first */
	if (!out->box || !stack || pf_tree_children(t, &first, &kids))
		goto done;
	double total = t->n[0].incl ? (double)t->n[0].incl : 1;
	size_t sp = 0;
	stack[sp++] = (fl_box){0, 0, x0, width};
	while (sp) {
		fl_box b = stack[--sp];
		out->box[out->n++] = b;
		if (b.depth > out->depth)
			out->depth = b.depth;
		/* push right to left so the widest child is drawn first */
		double x = b.x;
		size_t k0 = first[b.node], k1 = first[b.node + 1];
		for (size_t k = k0; k < k1; k++)
			x += width * (double)t->n[kids[k]].incl / total;
		for (size_t k = k1; k-- > k0;) {
			double w = width * (double)t->n[kids[k]].incl / total;
			x -= w;
			if (w < 0.5)
				continue;
			if (b.depth + 1 > FLAME_DEPTH) {
				out->cut = 1;
				continue;
			}
			stack[sp++] = (fl_box){kids[k], b.depth + 1, x, w};
		}
	}
	rc = 0;
done:
	free(first);
	free(kids);
	free(stack);
	return rc;
}

static void fl_name(const pl_model *m, uint32_t node, char *buf, size_t len)
{
	const pf_node *n = &m->flame.n[node];
	if (!node)
		snprintf(buf, len, "all threads");
	else if (n->func == PF_OTHER)
		snprintf(buf, len, "other (more than %u call paths: the rest folded here)",
		         (unsigned)PL_MAX_NODES);
	else
		pl_label_name(m, n->func, buf, len);
}

static double flame_height(const fl_layout *l)
{
	return 46 + (l->depth + 1) * FLAME_LEVEL + (l->cut ? 16 : 0) + MARGIN;
}

static void fl_box_svg(FILE *f, const pl_model *m, const fl_box *b, double top)
{
	const pf_node *n = &m->flame.n[b->node];
	char name[512], colour[8], t[32];
	fl_name(m, b->node, name, sizeof name);
	if (!b->node)
		snprintf(colour, sizeof colour, "#c8c8c8");
	else if (n->func == PF_OTHER)
		snprintf(colour, sizeof colour, "#bbbbbb");
	else
		pl_palette_colour(&m->pal, n->func, name, colour);
	double y = top + b->depth * FLAME_LEVEL;
	/* ids and ns for programs that read the picture (the tests) */
	char id[24] = "flame-root";
	if (b->node)
		snprintf(id, sizeof id, "n%u", b->node);
	fprintf(f,
	        "<g class=\"node\" id=\"%s\" data-parent=\"n%u\" data-ns=\"%llu\" "
	        "data-calls=\"%llu\" data-depth=\"%u\"><rect x=\"%.2f\" y=\"%.1f\" "
	        "width=\"%.2f\" height=\"%.1f\" fill=\"%s\" stroke=\"#fff\" "
	        "stroke-width=\"0.5\"/><title>",
	        id, n->parent, (unsigned long long)n->incl, (unsigned long long)n->calls, b->depth,
	        b->x, y, b->w, FLAME_LEVEL - 1, colour);
	pt_xml_str(f, name);
	pl_fmt_ns(t, sizeof t, n->incl);
	double share =
	    m->flame.n[0].incl ? 100.0 * (double)n->incl / (double)m->flame.n[0].incl : 0;
	if (b->node)
		fprintf(f, "\n%s inclusive, %.1f%% of all threads&#39; time, %llu call%s</title>",
		        t, share, (unsigned long long)n->calls, n->calls == 1 ? "" : "s");
	else
		fprintf(f, "\n%s: every thread&#39;s lifetime</title>", t);
	size_t max = b->w > 8 ? (size_t)((b->w - 6) / CHAR_W) : 0;
	if (max >= 3) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", b->x + 3, y + FLAME_LEVEL - 5);
		if (!b->node) {
			char root[64];
			snprintf(root, sizeof root, "all threads: %s", t);
			pt_xml_fit(f, root, max, 0);
		} else {
			pt_xml_fit(f, name, max, 0);
		}
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

static int flame_at(FILE *f, const pl_model *m, unsigned width, double y, const fl_layout *l)
{
	svg_open(f, "flame", width, flame_height(l), y);
	fprintf(f,
	        "<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Where time goes"
	        "</text>\n<text x=\"%.0f\" y=\"40\" fill=\"#444\">Call paths by inclusive time, "
	        "summed over threads (an icicle: each call under its caller, widest first; the top "
	        "bar is every thread&#39;s lifetime). Hover for times and calls.</text>\n",
	        MARGIN, MARGIN);
	for (size_t i = 0; i < l->n; i++)
		fl_box_svg(f, m, &l->box[i], 46);
	if (l->cut)
		fprintf(f,
		        "<text x=\"%.0f\" y=\"%.1f\" fill=\"#a00\">calls deeper than %d levels are "
		        "not drawn</text>\n",
		        MARGIN, 46 + (l->depth + 1) * FLAME_LEVEL + 12, FLAME_DEPTH);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

int pl_svg_flame(FILE *f, const pl_model *m, unsigned width)
{
	fl_layout l;
	if (fl_lay(&m->flame, MARGIN, width - 2 * MARGIN, &l)) {
		free(l.box);
		return -1;
	}
	int rc = flame_at(f, m, width, 0, &l);
	free(l.box);
	return rc;
}

int pl_svg_file(FILE *f, const pl_model *m)
{
	tl_geom g;
	tl_layout(m, SVG_W, &g);
	fl_layout l;
	if (fl_lay(&m->flame, MARGIN, SVG_W - 2 * MARGIN, &l)) {
		free(l.box);
		return -1;
	}
	double h = g.height + flame_height(&l);
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%.0f\" "
	        "viewBox=\"0 0 %u %.0f\">\n",
	        SVG_W, h, SVG_W, h);
	int rc = timeline_at(f, m, SVG_W, 0) || flame_at(f, m, SVG_W, g.height, &l) ? -1 : 0;
	fputs("</svg>\n", f);
	free(l.box);
	return rc || ferror(f) ? -1 : 0;
}
