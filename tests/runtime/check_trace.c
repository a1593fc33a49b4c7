/* SPDX-License-Identifier: MIT */
/* Test helper: reads a trace directory with libptlog and prints facts the
 * e2e scripts assert on, one per line:
 *   file <rel> kind=<k> tid=<t> records=<n> complete=<0|1> state=<eof|error|more>
 *        monotonic=<0|1> run=<hex> mult=<m> shift=<s> flags=<header flags>
 *   count <rel> <KIND> <n>
 *   exit <rel> status=<s> how=<h>          (process logs)
 *   type <id> flags=<f> <name>             (USER_TYPE)
 *   valuename <type> <value> <name>        (USER_VALUE_NAME)
 *   funcdef <id> <name>                    (FUNC_DEF)
 *   module <rel> flags=<f> buildid=<n> <path>
 *   threadname <rel> <name>
 *   seq <rel> type=<name> count=<n> inorder=<0|1>
 *   lost <rel> records=<n> bytes=<n>       (sum of LOST records, when any)
 *   throttled <rel> calls=<n>              (calls counted in THROTTLE_COUNTS
 *                                           slots, not recorded, when any)
 * With --seq NAME, user events of type NAME in each thread log must carry
 * the values 0, 1, 2, ... in order ("inorder"). */
#define _GNU_SOURCE
#include <paratrace/log.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPES 256
static char *type_names[MAX_TYPES];

static void scan_defs(const char *rel, pt_log *log)
{
	pt_event ev;
	while (pt_log_read(log, &ev) == 0) {
		if (ev.kind == PT_REC_USER_TYPE) {
			const pt_rec_user_type *t = PT_REC_PAYLOAD(ev.rec, pt_rec_user_type);
			const char *name = pt_event_string(&ev, sizeof *t);
			if (t && name) {
				printf("type %u flags=%u %s\n", t->type, t->flags, name);
				if (t->type < MAX_TYPES)
					type_names[t->type] = strdup(name);
			}
		} else if (ev.kind == PT_REC_USER_VALUE_NAME) {
			const pt_rec_user_event *u = PT_REC_PAYLOAD(ev.rec, pt_rec_user_event);
			const char *name = pt_event_string(&ev, sizeof *u);
			if (u && name)
				printf("valuename %u %" PRId64 " %s\n", u->type, u->value, name);
		} else if (ev.kind == PT_REC_FUNC_DEF) {
			const pt_rec_func_def *d = PT_REC_PAYLOAD(ev.rec, pt_rec_func_def);
			const char *name = pt_event_string(&ev, sizeof *d);
			if (d && name)
				printf("funcdef %u %s\n", d->id, name);
		} else if (ev.kind == PT_REC_EXIT) {
			const pt_rec_exit *e = PT_REC_PAYLOAD(ev.rec, pt_rec_exit);
			if (e)
				printf("exit %s status=%d how=%u\n", rel, e->status, e->how);
		} else if (ev.kind == PT_REC_MODULE_MAP) {
			const pt_rec_module_map *m = PT_REC_PAYLOAD(ev.rec, pt_rec_module_map);
			const char *path = m ? pt_event_string(&ev, sizeof *m + m->build_id_len) : NULL;
			if (m && path)
				printf("module %s flags=%u buildid=%u %s\n", rel, m->flags,
				       m->build_id_len, path);
		}
	}
}

int main(int argc, char **argv)
{
	const char *seq = NULL;
	if (argc == 4 && !strcmp(argv[2], "--seq"))
		seq = argv[3];
	else if (argc != 2) {
		fprintf(stderr, "usage: check_trace <trace-dir> [--seq TYPE]\n");
		return 2;
	}
	char err[512];
	pt_trace *tr = pt_trace_scan(argv[1], err, sizeof err);
	if (!tr) {
		fprintf(stderr, "check_trace: %s\n", err);
		return 1;
	}
	size_t skip = strlen(tr->dir) + 1;
	/* Process logs first: they define the types the thread logs use. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < tr->nfiles; i++) {
			pt_trace_file *f = &tr->files[i];
			if ((f->kind == PT_FILE_PROCESS) != (pass == 0))
				continue;
			const char *rel = strlen(f->path) > skip ? f->path + skip : f->path;
			pt_log *log = pt_log_open_path(f->path, 0, err, sizeof err);
			if (!log) {
				printf("file %s unreadable %s\n", rel, err);
				continue;
			}
			if (pass == 0) {
				scan_defs(rel, log);
				pt_log_close(log);
				log = pt_log_open_path(f->path, 0, err, sizeof err);
			}
			pt_event ev;
			uint64_t n = 0, last = 0, counts[256] = {0};
			int mono = 1;
			int64_t next_seq = 0;
			int inorder = 1;
			uint64_t seqn = 0, lost_recs = 0, lost_bytes = 0, throttled = 0;
			while (pt_log_read(log, &ev) == 0) {
				if (n && ev.ticks < last)
					mono = 0;
				last = ev.ticks;
				n++;
				counts[ev.kind & 0xff]++;
				if (ev.kind == PT_REC_LOST) {
					const pt_rec_lost *l = PT_REC_PAYLOAD(ev.rec, pt_rec_lost);
					if (l) {
						lost_recs += l->records;
						lost_bytes += l->bytes;
					}
				}
				if (ev.kind == PT_REC_THROTTLE_COUNTS) {
					const pt_throttle_slot *sl =
					    (const pt_throttle_slot *)(const void *)(ev.rec + 1);
					for (unsigned i = 0; i < ev.rec->arg; i++)
						throttled += sl[i].count;
				}
				if (ev.kind == PT_REC_THREAD_NAME) {
					uint32_t tid;
					const char *s = pt_event_thread_name(&ev, &tid);
					if (tid)
						printf("threadname %s %s tid=%u\n", rel, s, tid);
					else
						printf("threadname %s %s\n", rel, s ? s : "?");
				}
				if (seq && ev.kind == PT_REC_USER_EVENT) {
					const pt_rec_user_event *u =
						PT_REC_PAYLOAD(ev.rec, pt_rec_user_event);
					if (u && u->type < MAX_TYPES && type_names[u->type] &&
					    !strcmp(type_names[u->type], seq)) {
						if (u->value != next_seq)
							inorder = 0;
						next_seq = u->value + 1;
						seqn++;
					}
				}
			}
			const pt_file_header *h = pt_log_header(log);
			printf("file %s kind=%d tid=%u records=%" PRIu64
			       " complete=%d state=%s monotonic=%d run=%" PRIx64 " mult=%" PRIu64
			       " shift=%u clock_offset=%" PRId64 " flags=%u\n",
			       rel, f->kind, f->tid, n, ev.state == PT_LOG_EOF && ev.complete,
			       ev.state == PT_LOG_EOF ? "eof" : ev.state == PT_LOG_ERROR ? "error" : "more",
			       mono, h ? h->run_id : 0, h ? h->tick_mult : 0, h ? h->tick_shift : 0,
			       h ? h->clock_offset_ns : 0, h ? h->flags : 0);
			if (ev.state == PT_LOG_ERROR)
				printf("error %s offset=%" PRIu64 " %s\n", rel, ev.offset,
				       ev.error ? ev.error : "");
			for (int k = 0; k < 256; k++)
				if (counts[k])
					printf("count %s %s %" PRIu64 "\n", rel, pt_rec_kind_name((unsigned)k),
					       counts[k]);
			if (counts[PT_REC_LOST])
				printf("lost %s records=%" PRIu64 " bytes=%" PRIu64 "\n", rel, lost_recs,
				       lost_bytes);
			if (counts[PT_REC_THROTTLE_COUNTS])
				printf("throttled %s calls=%" PRIu64 "\n", rel, throttled);
			if (seq && f->kind == PT_FILE_THREAD && seqn)
				printf("seq %s type=%s count=%" PRIu64 " inorder=%d\n", rel, seq, seqn,
				       inorder);
			pt_log_close(log);
		}
	}
	pt_trace_free(tr);
	return 0;
}
