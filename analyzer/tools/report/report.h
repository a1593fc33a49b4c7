/* SPDX-License-Identifier: MIT */
/* The report: `paratrace report` (text, --csv, --json, --html's data) and
 * the summary `analyze` prints. Its core is the profile (profile.c gathers
 * per function, lock and thread, profile_print.c prints); each family
 * (pt_family.h) adds its part, a pf_family:
 *
 *   - figures gathered inside the profile's pass, per thread, printed
 *     inside the profile's tables (OpenMP: its regions, constructs, tasks,
 *     and its waits moved into the threads' columns);
 *   - sections of their own: tools (<paratrace/tool.h>) run beside the
 *     profile, in the same pass, each printed where its `in` says. Those
 *     marked `last` come after every family's other sections. A section in
 *     the JSON prints members of the profile's object (the profile runs it
 *     inside); one in the HTML gives its JSON to the page, where its
 *     pf_html part shows it.
 *
 * Every section tool gets the options of the report: "FORMAT,top=N"
 * (FORMAT: text, csv or json); in analyze's summary, none. */
#ifndef PT_REPORT_H
#define PT_REPORT_H

#include "pt_family.h"

#include <paratrace/tool.h>
#include <stdint.h>
#include <stdio.h>

/* A thread's waits by kind: the threads table's columns. */
enum { PF_W_LOCK, PF_W_COND, PF_W_JOIN, PF_W_BARRIER, PF_W_N };

/* What the profile found of a thread (or a device row). */
typedef struct pf_thread {
	size_t shard;
	uint64_t first, last;
	uint64_t wait[PF_W_N];
	/* A log that ends without its CLOSE (the program killed, or still
	 * running): the begin of each wait open at its end (0: none), which
	 * ends where its process's last record is (pf_finish). */
	uint64_t open_since[PF_W_N];
	int unclosed;
	uint64_t events;
	char *name; /* THREAD_NAME of its own log (row_label.h) */
} pf_thread;

/* Where a section appears (pf_section.in). */
enum {
	PF_IN_ANALYZE = 1, /* analyze's summary */
	PF_IN_TEXT = 2,    /* report */
	PF_IN_CSV = 4,     /* report --csv */
	PF_IN_JSON = 8,    /* report --json: members of the profile's object */
	PF_IN_HTML = 16,   /* report --html: its JSON is the data of its pf_html */
};

/* A section's part of the HTML page: a link in the navigation, its
 * markup (headings, empty tables), and the script that fills them from
 * its JSON, embedded as <script type="application/json" id=ID>. */
typedef struct pf_html {
	const char *id;  /* "mpi": the data's id; the section's anchor is s-ID */
	const char *nav; /* the link's text */
	void (*markup)(FILE *f);
	/* Its part of the page's script, run after the profile's tables are
	 * described: adds its own to `specs` (the tables to build) from the
	 * data `d` (its JSON, parsed), and fills what else it shows. */
	const char *script;
	/* The anchor (s-ANCHOR) when it is not the id: a family's part for
	 * its tables inside the profile, whose id is "profile". */
	const char *anchor;
} pf_html;

typedef struct pf_section {
	const pt_tool *(*tool)(void);
	unsigned in; /* PF_IN_* */
	int last;
	const pf_html *html; /* with PF_IN_HTML */
} pf_section;

#define PF_MAX_SECTIONS 2

/* A family's part of the report. Every member is optional. */
typedef struct pf_family {
	/* Inside the profile's pass, thread logs only: records of kinds
	 * [kind_first, kind_last] and, with all_after_first, every record (but
	 * function records) once *shard is set. */
	unsigned kind_first, kind_last;
	int all_after_first;
	/* Global state in *global; -1: out of memory. */
	int (*init)(const pt_trace_ctx *ctx, void **global);
	void (*process_event)(void *global, size_t process, const pt_event *ev);
	/* -1: out of memory. */
	int (*event)(void *global, void **shard, const pt_shard_info *in, const pt_event *ev);
	/* Under the profile's lock: the thread's findings into global (its
	 * waits, adjusted in t), its state freed. -1: out of memory. */
	int (*shard_exit)(void *global, void *shard, const pt_shard_info *in, pf_thread *t,
	                  uint64_t last_ns);
	/* Its tables: in the text after the profile's locks (name_width: the
	 * name column's; short_form: analyze's summary; top: rows per table),
	 * in the CSV and the JSON after the profile's threads. */
	void (*print_text)(void *global, unsigned name_width, int short_form, unsigned top, FILE *o);
	void (*print_csv)(void *global, FILE *o);
	void (*print_json)(void *global, FILE *o);
	void (*destroy)(void *global);
	/* The HTML page's part for the tables above: its markup and script
	 * (pf_html, whose id is "profile": the script's data is the profile's
	 * JSON, which print_json added to). Optional. */
	const pf_html *html;
	/* Sections of its own, the first `tool` NULL ending the list. */
	pf_section sections[PF_MAX_SECTIONS];
} pf_family;

/* The families' sections for `in` (PF_IN_*), in the order they print:
 * add(arg, section) for each. */
void pt_report_sections(unsigned in, void (*add)(void *arg, const pf_section *s), void *arg);

#endif
