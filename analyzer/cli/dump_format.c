/* One text line per event: the format of `paratrace dump` (see
 * dump_format.h; documented in docs/FORMAT.md). Separate from the command
 * so the fuzzer can drive it with arbitrary records. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_format.h"

/* ---- value formatting ---------------------------------------------------- */

/* dump is single-threaded: the unlocked stdio calls avoid a lock per
 * character on traces with millions of lines. */
static void put_escaped(FILE *out, const char *s, int allow_space)
{
	static const char hex[] = "0123456789abcdef";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || c == '\\' || (c == ' ' && !allow_space)) {
			putc_unlocked('\\', out);
			putc_unlocked('x', out);
			putc_unlocked(hex[c >> 4], out);
			putc_unlocked(hex[c & 15], out);
		} else {
			putc_unlocked(c, out);
		}
	}
}

static void put_u64(FILE *out, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof buf;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof buf - p), out);
}

static void put_kv(FILE *out, const char *key, const char *val)
{
	fprintf(out, " %s=", key);
	put_escaped(out, val ? val : "", 0);
}

static void put_name(FILE *out, const char *name)
{
	fputs(" name=", out);
	put_escaped(out, name, 1);
}

static void put_sym(FILE *out, const pt_sym *s)
{
	if (s->file) {
		fputs_unlocked(" at=", out);
		put_escaped(out, s->file, 0);
		if (s->line) {
			putc_unlocked(':', out);
			put_u64(out, s->line);
		}
	}
	put_name(out, s->name);
}

static const char *lock_type_name(unsigned t)
{
	static const char *const names[] = {
		[PT_LOCK_MUTEX] = "mutex",	   [PT_LOCK_RWLOCK_READ] = "rwlock_read",
		[PT_LOCK_RWLOCK_WRITE] = "rwlock_write", [PT_LOCK_SPIN] = "spin",
		[PT_LOCK_SEMAPHORE] = "semaphore", [PT_LOCK_C11_MTX] = "c11_mtx",
		[PT_LOCK_BARRIER] = "barrier",
	};
	return t < sizeof names / sizeof names[0] && names[t] ? names[t] : NULL;
}

static void put_lock_type(FILE *out, unsigned t)
{
	const char *n = lock_type_name(t);
	if (n)
		fprintf(out, " type=%s", n);
	else
		fprintf(out, " type=%u", t);
}

/* Flag words as a|b|c, unknown bits as hex; "0" when none. */
static void put_flags(FILE *out, const char *key, uint32_t flags, const char *const *names,
		      int nnames)
{
	fprintf(out, " %s=", key);
	if (!flags) {
		fputc('0', out);
		return;
	}
	int first = 1;
	for (int i = 0; i < nnames; i++) {
		if (flags & (1u << i)) {
			fprintf(out, "%s%s", first ? "" : "|", names[i]);
			flags &= ~(1u << i);
			first = 0;
		}
	}
	if (flags)
		fprintf(out, "%s0x%x", first ? "" : "|", flags);
}

static void put_pc(FILE *out, pt_symtab *st, const char *key, uint64_t pc)
{
	fprintf(out, " %s=0x%" PRIx64, key, pc);
	pt_sym s;
	if (st && pc && pt_symtab_pc(st, pc, &s) == 0)
		put_sym(out, &s);
}

/* ---- one event ------------------------------------------------------------ */

#define P(type) PT_REC_PAYLOAD(ev->rec, type)

/* Caller addresses as pcN=0x... fields, and (with names) a readable chain
 * "inner <- outer" as the final name= field. */
static void put_frames(FILE *out, pt_symtab *st, const uint64_t *pcs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " pc%u=0x%" PRIx64, i, pcs[i]);
	if (!st || !n)
		return;
	fputs(" name=", out);
	for (unsigned i = 0; i < n; i++) {
		pt_sym s;
		/* Return addresses point after the call: look up pc-1 so a call
		 * at the very end of a function still names that function. */
		if (i)
			fputs(" <- ", out);
		if (pt_symtab_pc(st, pcs[i] - (pcs[i] ? 1 : 0), &s) == 0)
			put_escaped(out, s.name, 1);
		else
			fprintf(out, "0x%" PRIx64, pcs[i]);
	}
}

static const char *gpu_api_name(unsigned api)
{
	return api == PT_GPU_API_CUDA ? "cuda" : api == PT_GPU_API_OPENCL ? "opencl" : "?";
}

static void put_dev_time(FILE *out, const char *key, const pt_file_header *hdr, uint64_t base_ns,
			 uint64_t ticks)
{
	fprintf(out, " %s=%" PRId64, key, (int64_t)(pt_ticks_to_ns(hdr, ticks) - base_ns));
}

static void put_gpu_name(FILE *out, pt_symtab *st, int kernel, uint32_t id)
{
	pt_sym s;
	if (st && (kernel ? pt_symtab_gpu_kernel(st, id, &s) : pt_symtab_gpu_func(st, id, &s)) == 0)
		put_name(out, s.name);
}

static void print_fields(FILE *out, const pt_event *ev, pt_symtab *st, const pt_file_header *hdr,
			 uint64_t base_ns)
{
	const pt_rec_head *h = ev->rec;
	switch (ev->kind) {
	case PT_REC_FUNC_ENTER:
	case PT_REC_FUNC_EXIT: {
		fputs_unlocked(" id=", out);
		put_u64(out, ev->func_id);
		pt_sym s;
		if (st && pt_symtab_func(st, ev->func_id, &s) == 0)
			put_sym(out, &s);
		break;
	}
	case PT_REC_FUNC_ENTER_PC:
	case PT_REC_FUNC_EXIT_PC:
		put_pc(out, st, "pc", P(pt_rec_pc)->pc);
		break;
	case PT_REC_TIME:
		fprintf(out, " ticks=%" PRIu64, P(pt_rec_time)->ticks);
		break;
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *p = P(pt_rec_thread_start);
		static const char *const f[] = {"main", "c11"};
		fprintf(out, " creator=%" PRIu32 " seq=%" PRIu64, p->creator_tid, p->create_seq);
		put_flags(out, "flags", p->flags, f, 2);
		put_pc(out, st, "routine", p->start_routine);
		break;
	}
	case PT_REC_THREAD_END: {
		const pt_rec_thread_end *p = P(pt_rec_thread_end);
		static const char *const f[] = {"pthread_exit", "canceled", "process_exit"};
		fprintf(out, " retval=0x%" PRIx64, p->retval);
		put_flags(out, "flags", p->flags, f, 3);
		break;
	}
	case PT_REC_THREAD_NAME:
	case PT_REC_EXEC: {
		const char *s = pt_event_string(ev, 0);
		if (s)
			put_name(out, s);
		break;
	}
	case PT_REC_THREAD_CREATE: {
		const pt_rec_thread_create *p = P(pt_rec_thread_create);
		static const char *const f[] = {"main", "c11"};
		fprintf(out, " seq=%" PRIu64 " result=%" PRId32, p->create_seq, p->result);
		put_flags(out, "flags", p->flags, f, 2);
		put_pc(out, st, "routine", p->start_routine);
		break;
	}
	case PT_REC_THREAD_JOIN_BEGIN:
	case PT_REC_THREAD_JOIN_END: {
		const pt_rec_thread_join *p = P(pt_rec_thread_join);
		fprintf(out, " thread=0x%" PRIx64 " seq=%" PRIu64, p->thread, p->create_seq);
		if (ev->kind == PT_REC_THREAD_JOIN_END)
			fprintf(out, " result=%" PRId32, p->result);
		break;
	}
	case PT_REC_USER_EVENT: {
		const pt_rec_user_event *p = P(pt_rec_user_event);
		fprintf(out, " type=%" PRIu32 " value=%" PRId64, p->type, p->value);
		break;
	}
	case PT_REC_USER_TYPE: {
		const pt_rec_user_type *p = P(pt_rec_user_type);
		static const char *const f[] = {"scope"};
		fprintf(out, " type=%" PRIu32, p->type);
		put_flags(out, "flags", p->flags, f, 1);
		const char *s = pt_event_string(ev, sizeof *p);
		if (s)
			put_name(out, s);
		break;
	}
	case PT_REC_USER_VALUE_NAME: {
		const pt_rec_user_event *p = P(pt_rec_user_event);
		fprintf(out, " type=%" PRIu32 " value=%" PRId64, p->type, p->value);
		const char *s = pt_event_string(ev, sizeof *p);
		if (s)
			put_name(out, s);
		break;
	}
	case PT_REC_COUNTER_DEF: {
		const pt_rec_counter_def *p = P(pt_rec_counter_def);
		fprintf(out, " index=%u type=%" PRIu32 " config=0x%" PRIx64 " flags=0x%" PRIx32,
			h->arg, p->type, p->config, p->flags);
		const char *s = pt_event_string(ev, sizeof *p);
		if (s)
			put_name(out, s);
		break;
	}
	case PT_REC_COUNTERS: {
		const uint64_t *v = (const uint64_t *)(const void *)(h + 1);
		fprintf(out, " n=%u", h->arg);
		for (unsigned i = 0; i < h->arg; i++)
			fprintf(out, " v%u=%" PRIu64, i, v[i]);
		break;
	}
	case PT_REC_LOCK_REQUEST:
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
	case PT_REC_LOCK_RELEASED:
	case PT_REC_BARRIER_BEGIN:
	case PT_REC_BARRIER_END: {
		pt_rec_lock lk;
		const pt_rec_lock *p = pt_rec_lock_get(h, &lk);
		fprintf(out, " obj=0x%" PRIx64, p->object);
		put_lock_type(out, h->arg);
		if (ev->kind == PT_REC_LOCK_FAILED || ev->kind == PT_REC_BARRIER_END ||
		    ev->kind == PT_REC_LOCK_ACQUIRED)
			fprintf(out, " result=%" PRId32, p->result);
		break;
	}
	case PT_REC_COND_WAIT_BEGIN:
	case PT_REC_COND_WAIT_END:
	case PT_REC_COND_SIGNAL: {
		const pt_rec_cond *p = P(pt_rec_cond);
		fprintf(out, " cond=0x%" PRIx64 " mutex=0x%" PRIx64, p->cond, p->mutex);
		if (ev->kind == PT_REC_COND_WAIT_END)
			fprintf(out, " result=%" PRId32, p->result);
		if (ev->kind == PT_REC_COND_SIGNAL)
			fprintf(out, " broadcast=%u", h->arg);
		break;
	}
	case PT_REC_PROCESS_INFO: {
		const pt_rec_process_info *p = P(pt_rec_process_info);
		static const char *const f[] = {"forked", "execed"};
		fprintf(out, " argc=%" PRIu32, p->argc);
		put_flags(out, "flags", p->flags, f, 2);
		size_t off = sizeof *p;
		const char *exe = pt_event_string(ev, off);
		if (!exe)
			break;
		put_kv(out, "exe", exe);
		off += strlen(exe) + 1;
		/* The command line, arguments separated by single spaces. */
		fputs(" name=", out);
		for (uint32_t i = 0; i < p->argc; i++) {
			const char *a = pt_event_string(ev, off);
			if (!a)
				break;
			if (i)
				fputc(' ', out);
			put_escaped(out, a, 1);
			off += strlen(a) + 1;
		}
		break;
	}
	case PT_REC_MODULE_MAP: {
		const pt_rec_module_map *p = P(pt_rec_module_map);
		static const char *const f[] = {"dlopen", "main"};
		fprintf(out, " base=0x%" PRIx64 " lo=0x%" PRIx64 " hi=0x%" PRIx64, p->base, p->lo,
			p->hi);
		fputs(" buildid=", out);
		const uint8_t *b = (const uint8_t *)(p + 1);
		for (uint32_t i = 0; i < p->build_id_len; i++)
			fprintf(out, "%02x", b[i]);
		if (!p->build_id_len)
			fputc('-', out);
		put_flags(out, "flags", p->flags, f, 2);
		const char *s = pt_event_string(ev, sizeof *p + p->build_id_len);
		if (s)
			put_name(out, s);
		break;
	}
	case PT_REC_MODULE_UNMAP:
		fprintf(out, " base=0x%" PRIx64, P(pt_rec_module_unmap)->base);
		break;
	case PT_REC_FUNC_DEF: {
		const pt_rec_func_def *p = P(pt_rec_func_def);
		fprintf(out, " id=%" PRIu32 " line=%" PRIu32 " base=0x%" PRIx64, p->id, p->line,
			p->module_base);
		const char *name = pt_event_string(ev, sizeof *p);
		if (!name)
			break;
		const char *file = pt_event_string(ev, sizeof *p + strlen(name) + 1);
		if (file && *file)
			put_kv(out, "file", file);
		char *d = st ? pt_demangle(name) : NULL;
		put_name(out, d ? d : name);
		free(d);
		break;
	}
	case PT_REC_FORK: {
		const pt_rec_fork *p = P(pt_rec_fork);
		static const char *const f[] = {"vfork", "spawn"};
		fprintf(out, " child=%" PRIu32 " parent=%" PRIu32, p->child_pid, p->parent_pid);
		put_flags(out, "flags", p->flags, f, 2);
		break;
	}
	case PT_REC_SIGNAL: {
		const pt_rec_signal *p = P(pt_rec_signal);
		fprintf(out, " signo=%" PRId32 " code=%" PRId32 " addr=0x%" PRIx64, p->signo, p->code,
			p->addr);
		break;
	}
	case PT_REC_EXIT: {
		const pt_rec_exit *p = P(pt_rec_exit);
		static const char *const how[] = {NULL, "normal", "_exit", "quick_exit", "signal",
						  "abort"};
		fprintf(out, " status=%" PRId32, p->status);
		if (p->how < sizeof how / sizeof how[0] && how[p->how])
			fprintf(out, " how=%s", how[p->how]);
		else
			fprintf(out, " how=%" PRIu32, p->how);
		break;
	}
	case PT_REC_LOST: {
		const pt_rec_lost *p = P(pt_rec_lost);
		static const char *const why[] = {NULL, "no_space", "no_memory", "reentrant",
						  "limit"};
		fprintf(out, " records=%" PRIu64 " bytes=%" PRIu64, p->records, p->bytes);
		if (p->reason < sizeof why / sizeof why[0] && why[p->reason])
			fprintf(out, " reason=%s", why[p->reason]);
		else
			fprintf(out, " reason=%" PRIu32, p->reason);
		break;
	}
	case PT_REC_CLOSE: {
		const pt_clock_pair *p = P(pt_clock_pair);
		fprintf(out, " ticks=%" PRIu64 " mono_ns=%" PRIu64 " real_ns=%" PRIu64, p->ticks,
			p->mono_ns, p->real_ns);
		break;
	}
	case PT_REC_CALLSTACK:
		fprintf(out, " n=%u", h->arg);
		put_frames(out, st, (const uint64_t *)(const void *)(h + 1), h->arg);
		break;
	case PT_REC_SAMPLE: {
		const pt_rec_sample *p = P(pt_rec_sample);
		fprintf(out, " pc=0x%" PRIx64 " n=%u", p->pc, h->arg);
		const uint64_t *callers = (const uint64_t *)(p + 1);
		for (unsigned i = 0; i < h->arg; i++)
			fprintf(out, " caller%u=0x%" PRIx64, i, callers[i]);
		pt_sym s;
		if (st && pt_symtab_pc(st, p->pc, &s) == 0) {
			fputs(" name=", out);
			put_escaped(out, s.name, 1);
			for (unsigned i = 0; i < h->arg; i++) {
				fputs(" <- ", out);
				if (pt_symtab_pc(st, callers[i] - (callers[i] ? 1 : 0), &s) == 0)
					put_escaped(out, s.name, 1);
				else
					fprintf(out, "0x%" PRIx64, callers[i]);
			}
		}
		break;
	}
	case PT_REC_COUNTER_VALUE:
		fprintf(out, " index=%u value=%" PRIu64, h->arg, P(pt_rec_counter_value)->value);
		break;
	case PT_REC_SAMPLING_START: {
		const pt_rec_sampling_start *p = P(pt_rec_sampling_start);
		fprintf(out, " period_ns=%" PRIu64 " signo=%" PRIu32 " depth=%" PRIu32, p->period_ns,
			p->signo, p->depth);
		break;
	}
	case PT_REC_GPU_STREAM_DEF: {
		const pt_rec_gpu_stream_def *p = P(pt_rec_gpu_stream_def);
		static const char *const f[] = {"in_order", "cpu", "gpu", "accel"};
		fprintf(out, " api=%s stream=0x%" PRIx64 " device=%" PRIu32 " seq=%" PRIu32,
			gpu_api_name(h->arg), p->stream, p->device, p->seq);
		put_flags(out, "flags", p->flags, f, 4);
		const char *s = pt_event_string(ev, sizeof *p);
		if (s)
			put_name(out, s);
		break;
	}
	case PT_REC_GPU_FUNC_DEF:
	case PT_REC_GPU_KERNEL_DEF: {
		const pt_rec_gpu_func_def *p = P(pt_rec_gpu_func_def);
		fprintf(out, " api=%s %s=%" PRIu32, gpu_api_name(h->arg),
			ev->kind == PT_REC_GPU_FUNC_DEF ? "func" : "kernel", p->func);
		const char *s = pt_event_string(ev, sizeof *p);
		if (s) {
			char *d = st ? pt_demangle(s) : NULL;
			put_name(out, d ? d : s);
			free(d);
		}
		break;
	}
	case PT_REC_GPU_API_BEGIN:
	case PT_REC_GPU_API_END: {
		const pt_rec_gpu_api *p = P(pt_rec_gpu_api);
		static const char *const f[] = {"sync", "transfer"};
		fprintf(out, " api=%s func=0x%" PRIx32 " call=%u", gpu_api_name(h->arg), p->func,
			p->call);
		put_flags(out, "flags", p->flags, f, 2);
		if (ev->kind == PT_REC_GPU_API_END)
			fprintf(out, " result=%" PRId32, p->result);
		fprintf(out, " corr=%" PRIu64 " stream=0x%" PRIx64 " bytes=%" PRIu64, p->correlation,
			p->stream, p->bytes);
		put_gpu_name(out, st, 0, p->func);
		break;
	}
	case PT_REC_GPU_LAUNCH: {
		const pt_rec_gpu_launch *p = P(pt_rec_gpu_launch);
		fprintf(out,
			" api=%s corr=%" PRIu64 " corr2=%" PRIu64 " stream=0x%" PRIx64
			" kernel=%" PRIu32 " device=%" PRIu32 " grid=%u,%u,%u block=%u,%u,%u"
			" shmem=%" PRIu32 " dim=%" PRIu32,
			gpu_api_name(h->arg), p->correlation, p->correlation2, p->stream, p->kernel,
			p->device, p->grid[0], p->grid[1], p->grid[2], p->block[0], p->block[1],
			p->block[2], p->shared_mem, p->work_dim);
		put_gpu_name(out, st, 1, p->kernel);
		break;
	}
	case PT_REC_GPU_KERNEL: {
		const pt_rec_gpu_kernel *p = P(pt_rec_gpu_kernel);
		fprintf(out, " api=%s", gpu_api_name(h->arg));
		put_dev_time(out, "start", hdr, base_ns, p->start);
		put_dev_time(out, "end", hdr, base_ns, p->end);
		fprintf(out,
			" corr=%" PRIu64 " kernel=%" PRIu32 " grid=%u,%u,%u block=%u,%u,%u"
			" shmem=%" PRIu32,
			p->correlation, p->kernel, p->grid[0], p->grid[1], p->grid[2], p->block[0],
			p->block[1], p->block[2], p->shared_mem);
		put_gpu_name(out, st, 1, p->kernel);
		break;
	}
	case PT_REC_GPU_MEMCPY:
	case PT_REC_GPU_MEMSET: {
		const pt_rec_gpu_copy *p = P(pt_rec_gpu_copy);
		static const char *const dir[] = {"other", "htod", "dtoh", "dtod",
						  "htoh",  "ptop", "memset"};
		static const char *const f[] = {"map"};
		fprintf(out, " api=%s", gpu_api_name(h->arg));
		put_dev_time(out, "start", hdr, base_ns, p->start);
		put_dev_time(out, "end", hdr, base_ns, p->end);
		fprintf(out, " corr=%" PRIu64 " bytes=%" PRIu64, p->correlation, p->bytes);
		if (p->direction < sizeof dir / sizeof dir[0])
			fprintf(out, " dir=%s", dir[p->direction]);
		else
			fprintf(out, " dir=%" PRIu32, p->direction);
		put_flags(out, "flags", p->flags, f, 1);
		break;
	}
	default:
		/* Kinds added by later minor versions: the reader skips them by
		 * size; show enough to know they are there. */
		fprintf(out, " kind=%u arg=%u size=%zu", ev->kind, h->arg, ev->size);
		break;
	}
}

void pt_dump_event(FILE *out, const pt_event *ev, uint32_t pid, uint32_t tid,
		   const pt_file_header *hdr, uint64_t base_ns, pt_symtab *st)
{
	/* The common prefix by hand: it is most of the work for hot-path records. */
	int64_t t = (int64_t)(ev->time_ns - base_ns);
	if (t < 0) {
		putc_unlocked('-', out);
		put_u64(out, (uint64_t)0 - (uint64_t)t);
	} else {
		put_u64(out, (uint64_t)t);
	}
	putc_unlocked(' ', out);
	put_u64(out, pid);
	putc_unlocked(' ', out);
	put_u64(out, tid);
	putc_unlocked(' ', out);
	fputs_unlocked(pt_rec_kind_name(ev->kind), out);
	print_fields(out, ev, st, hdr, base_ns);
	putc_unlocked('\n', out);
}
