/* SPDX-License-Identifier: MIT */
/* Pictures without a GUI: `paratrace plot` (an SVG, a PNG when asked) and
 * `paratrace report --html` (one self-contained HTML file).
 *
 *   plot_tool.c   the tool: per shard, calls through the framework's
 *                 call-stack tracker (the profile's rule), binned per row
 *                 (plot_bins.h) and merged into a call-path tree
 *                 (plot_flame.h); finish writes the files
 *   plot_svg.c    the timeline and the flame graph (icicle) as SVG
 *   plot_palette.c the colours of every picture (plot_palette.h)
 *   plot_html.c   the HTML report: the profile's JSON, tables, the SVGs
 *   plot_range.c  the HTML page's slices of time, for its range selection
 *                 (plot_range.h); plot_data.c writes them and the
 *                 headline's facts as the page's own JSON
 *   report.js, headline.js, timeline.js  the page's scripts: tables, the
 *                 headline, zoom and range selection
 *   plot_out.c    files written beside their final name and renamed; PNG
 *                 through rsvg-convert
 *
 * Labels: what a timeline bin shows. A function is its analyzer id; what
 * a family shows on a device row (a GPU stream's kernels and copies) has
 * labels of the family's, at or above PL_FAMILY_LABELS (pl_family). */
#ifndef PT_PLOT_H
#define PT_PLOT_H

#include "plot_bins.h"
#include "plot_flame.h"
#include "plot_palette.h"
#include "plot_range.h"
#include "pt_family.h"
#include "pt_waits.h"

#include <paratrace/tool.h>
#include <stdio.h>

#define PL_FAMILY_LABELS 0x80000000u /* labels at or above: the families' */
#define PL_MAX_ROWS 256       /* rows drawn; the rest are counted, not drawn */
#define PL_BINS 1024          /* bins per row at most (the time axis has 1070 px) */
#define PL_MAX_NODES 65536    /* call-path nodes per thread and in all (plot_flame.h) */

typedef struct pl_row {
	char *label; /* as in the Paraver .row */
	int device;  /* a device's row (PT_FILE_GPU), not a thread's */
	pb_row bins; /* bins == NULL: the shard had no log to read */
} pl_row;

/* Exclusive time of a label: what the timeline paints. */
typedef struct pl_time {
	uint32_t label;
	uint64_t ns;
} pl_time;

/* A thread's longest wait (ns 0: none). */
typedef struct pl_wait_max {
	uint64_t ns, begin; /* begin: since the run's start */
	uint64_t object;    /* the lock, condition or barrier; 0 for a join */
	int kind;           /* PT_WAIT_* */
	size_t shard;
	uint64_t joined; /* a join: the joined thread's create_seq (0: unknown) */
} pl_wait_max;

/* What the HTML page's headline says besides the profile's figures. */
typedef struct pl_page_facts {
	pl_wait_max wait; /* the longest wait of any kind */
	pl_wait_max sync; /* the longest on a lock, condition or barrier */
	uint64_t lost, lost_limit, lost_ns; /* LOST records (of them: the size
	                                     * limit's), time without data */
	uint8_t *unclosed; /* per shard: its log was never closed (the
	                    * process did not exit: killed, crashed) */
	uint64_t *seq;     /* per shard: its THREAD_START's create_seq */
	/* per shard: its last time, and when its waits still open at the end
	 * of a log never closed began (0: none); they last until the
	 * process's last record, as in the profile */
	struct pl_shard_end {
		uint64_t last, open[PT_WAIT_KINDS];
	} * end;
} pl_page_facts;

/* Everything the pictures are drawn from, once every shard ended. */
typedef struct pl_model {
	const pt_trace_ctx *ctx;
	void *fam[PT_MAX_FAMILIES]; /* the families' plot parts' global states */
	uint64_t t0, t_end;
	size_t nrows; /* drawn: min(shards, PL_MAX_ROWS) */
	pl_row *rows;
	unsigned shift; /* every row's bins are 2^shift ns wide */
	size_t nbins;   /* bins up to t_end */
	pf_tree flame;  /* root: every thread's lifetime */
	pl_time *excl;  /* by label, largest first (after pl_model_finish) */
	size_t nexcl;
	pl_palette pal; /* from excl's first labels */
	size_t nthreads, nstreams;
	/* the HTML page's only */
	pr_map range;
	pl_page_facts facts;
} pl_model;

/* What a device row did: `label` (a family's) over [start, end). */
typedef struct pl_shard pl_device;
void pl_device_busy(pl_device *d, uint32_t label, uint64_t start, uint64_t end);

/* A family's part of the pictures (pt_family.h): the device rows (shards
 * of kind PT_FILE_GPU) and the labels they show, [label_first,
 * label_last] (at or above PL_FAMILY_LABELS). Every hook is optional. */
typedef struct pl_family {
	uint32_t label_first, label_last;
	/* The records device_event receives. */
	unsigned kind_first, kind_last;
	/* Global state in *global; -1: out of memory. */
	int (*init)(const pt_trace_ctx *ctx, void **global);
	void (*process_event)(void *global, size_t process, const pt_event *ev);
	/* A device row's record (*shard: the family's state for the row, NULL
	 * until it sets it); -1: out of memory. */
	int (*device_event)(void *global, void **shard, pl_device *d, const pt_shard_info *in,
	                    const pt_event *ev);
	/* The row's label, 0 when written into buf. */
	int (*row_label)(void *global, void *shard, const pt_shard_info *in, char *buf, size_t len);
	void (*shard_free)(void *global, void *shard);
	/* One of its labels' name into buf. */
	void (*label_name)(void *global, uint32_t label, char *buf, size_t len);
	void (*destroy)(void *global);
} pl_family;

/* The model of the plot tool's state `state` (pt_tool_plot(), option
 * "model"), complete once its finish returned. */
const pl_model *pl_tool_model(const void *state);

/* Name of a label into buf ("?" if unknown). */
const char *pl_label_name(const pl_model *m, uint32_t label, char *buf, size_t len);

/* Durations for people: "0", "750 ns", "12.5 us", "3.20 ms", "1.05 s". */
void pl_fmt_ns(char *buf, size_t len, uint64_t ns);

/* SVG pieces. pl_svg_timeline and pl_svg_flame write one complete <svg>
 * element each, `width` px wide; pl_svg_file writes a standalone SVG
 * document holding both. Names are escaped (pt_xml_str); every drawn box has a <title>
 * (a hover tooltip). Return 0, or -1 when a write failed. */
int pl_svg_timeline(FILE *f, const pl_model *m, unsigned width);
int pl_svg_flame(FILE *f, const pl_model *m, unsigned width);
int pl_svg_file(FILE *f, const pl_model *m);

/* "DIR: N processes, N threads, N GPU streams, SPAN" as XML text. */
void pl_facts(FILE *f, const pl_model *m);

/* A family's section of the HTML report: its part (report.h) and its
 * JSON ("" or NULL: nothing to show, no section). */
struct pf_html;
typedef struct pl_html_part {
	const struct pf_html *html;
	char *json;
} pl_html_part;

/* The HTML report: profile_json is `paratrace report --json`'s output;
 * the families' sections follow the profile's tables, in order. */
int pl_html_report(FILE *f, const pl_model *m, const char *profile_json,
                   const pl_html_part *parts, size_t nparts);
/* The page's data beside the profile's (plot_data.c): the slices of its
 * range selection, the headline's facts, the functions' colours. */
int pl_page_data(FILE *f, const pl_model *m);
/* A section of the page with an empty sortable table `id` (which a
 * script fills): a heading `title` and a line of `hint`. */
void pl_html_table(FILE *f, const char *id, const char *title, const char *hint);

/* Writes path through a temporary file beside it (created new, never
 * through an existing file or link) renamed onto path once complete.
 * write() returns 0 or -1. -1 with a message in err. */
int pl_write_file(const char *path, int (*write)(FILE *f, void *arg), void *arg, char *err,
                  size_t errlen);
/* Converts an SVG file to PNG with rsvg-convert, the same way. */
int pl_svg_to_png(const char *svg, const char *png, char *err, size_t errlen);
/* 0 if rsvg-convert can be run (it is in PATH), else -1 with a message. */
int pl_png_available(char *err, size_t errlen);

#endif
