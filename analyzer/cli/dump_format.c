/* SPDX-License-Identifier: MIT */
/* One text line per event: the format of `paratrace dump` (see
 * dump_format.h; documented in docs/FORMAT.md). Separate from the command
 * so the fuzzer can drive it with arbitrary records. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_format.h"
#include "pt_text.h"

#include <paratrace/mpi_calls.h>

/* ---- value formatting ---------------------------------------------------- */

/* The text policy of pt_text.h; spaces too where a value must stay one
 * field. */
static void put_escaped(FILE *out, const char *s, int allow_space)
{
	pt_text_put(out, s, allow_space ? 0 : PT_TEXT_SPACE);
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

/* The n-th name of a list "a|b|c" (n from 0): its length, 0 when there is
 * none or it is empty. */
static size_t nth_name(const char *names, unsigned n, const char **name)
{
	for (; n; n--) {
		names = strchr(names, '|');
		if (!names)
			return 0;
		names++;
	}
	*name = names;
	return strcspn(names, "|");
}

/* Flag words as a|b|c (names of bits 0, 1, ...), unknown bits as hex; "0"
 * when none. */
static void put_flags(FILE *out, const char *key, uint64_t flags, const char *names)
{
	fprintf(out, " %s=", key);
	if (!flags) {
		fputc('0', out);
		return;
	}
	int first = 1;
	const char *name;
	for (unsigned i = 0; i < 64; i++) {
		size_t len = flags & (1ull << i) ? nth_name(names, i, &name) : 0;
		if (len) {
			fprintf(out, "%s%.*s", first ? "" : "|", (int)len, name);
			flags &= ~(1ull << i);
			first = 0;
		}
	}
	if (flags)
		fprintf(out, "%s0x%" PRIx64, first ? "" : "|", flags);
}

/* A value by its name in "a|b|c" (values 0, 1, ...), or else `unknown`
 * (NULL: the number). */
static void put_enum(FILE *out, const char *key, uint64_t v, const char *names, const char *unknown)
{
	const char *name;
	size_t len = v < 64 ? nth_name(names, (unsigned)v, &name) : 0;
	if (len)
		fprintf(out, " %s=%.*s", key, (int)len, name);
	else if (unknown)
		fprintf(out, " %s=%s", key, unknown);
	else
		fprintf(out, " %s=%" PRIu64, key, v);
}

static void put_pc(FILE *out, pt_symtab *st, const char *key, uint64_t pc)
{
	fprintf(out, " %s=0x%" PRIx64, key, pc);
	pt_sym s;
	if (st && pc && pt_symtab_pc(st, pc, &s) == 0)
		put_sym(out, &s);
}

/* ---- one event ------------------------------------------------------------ */

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

/* What a field printer has at hand. */
typedef struct dump_ctx {
	FILE *out;
	const pt_event *ev;
	const pt_rec_head *h;
	pt_symtab *st; /* NULL: no names (--raw) */
	const pt_file_header *hdr;
	uint64_t base_ns;
} dump_ctx;

/* How a field of format.h's PT_FIELDS_<NAME> lists is shown. */
enum field_fmt {
	FMT_END,
	FMT_U,
	FMT_I,
	FMT_X,
	FMT_FLAGS,
	FMT_ENUM,
	FMT_ENUMQ,
	FMT_PC,
	FMT_DEVTIME,
	FMT_U32X3,
	FMT_GPU_FUNC,
	FMT_GPU_KERNEL,
	FMT_STRING,
	FMT_CUSTOM,
};
enum { MODE_PLAIN, MODE_DEMANGLED };

typedef struct dump_field {
	uint8_t fmt;      /* enum field_fmt */
	uint8_t from_arg; /* the value is the head's arg, not a member */
	uint8_t size;     /* bytes of the member */
	uint8_t demangle; /* FMT_STRING */
	uint16_t off;     /* of the member or string in the payload */
	const char *key;
	const char *names; /* FLAGS, ENUM: "a|b|c"; FMT_CUSTOM: its documentation */
	void (*custom)(const dump_ctx *c);
} dump_field;

/* Printers for what the formats do not describe (format.h's C items). */
static inline void put_func_id(FILE *out, uint32_t id, pt_symtab *st)
{
	fputs_unlocked(" id=", out);
	put_u64(out, id);
	pt_sym s;
	if (st && pt_symtab_func(st, id, &s) == 0)
		put_sym(out, &s);
}

static void print_func_id(const dump_ctx *c)
{
	put_func_id(c->out, c->ev->func_id, c->st);
}

static void print_throttle_func(const dump_ctx *c)
{
	const pt_rec_throttle *p = PT_REC_PAYLOAD(c->h, pt_rec_throttle);
	put_func_id(c->out, p ? p->func_id : 0, c->st);
}

static void print_throttle_slots(const dump_ctx *c)
{
	const pt_throttle_slot *v = (const pt_throttle_slot *)(const void *)(c->h + 1);
	for (unsigned i = 0; i < c->h->arg; i++)
		if (v[i].func_id)
			fprintf(c->out, " %" PRIu32 ":%" PRIu64, v[i].func_id, v[i].count);
}

static void print_counter_values(const dump_ctx *c)
{
	const uint64_t *v = (const uint64_t *)(const void *)(c->h + 1);
	for (unsigned i = 0; i < c->h->arg; i++)
		fprintf(c->out, " v%u=%" PRIu64, i, v[i]);
}

static void print_thread_name_tid(const dump_ctx *c)
{
	uint32_t tid;
	if (pt_event_thread_name(c->ev, &tid) && tid)
		fprintf(c->out, " tid=%" PRIu32, tid);
}

static void print_callstack(const dump_ctx *c)
{
	put_frames(c->out, c->st, (const uint64_t *)(const void *)(c->h + 1), c->h->arg);
}

static void print_sample_callers(const dump_ctx *c)
{
	const pt_rec_sample *p = PT_REC_PAYLOAD(c->h, pt_rec_sample);
	const uint64_t *callers = (const uint64_t *)(p + 1);
	for (unsigned i = 0; i < c->h->arg; i++)
		fprintf(c->out, " caller%u=0x%" PRIx64, i, callers[i]);
	pt_sym s;
	if (!c->st || pt_symtab_pc(c->st, p->pc, &s) != 0)
		return;
	fputs(" name=", c->out);
	put_escaped(c->out, s.name, 1);
	for (unsigned i = 0; i < c->h->arg; i++) {
		fputs(" <- ", c->out);
		if (pt_symtab_pc(c->st, callers[i] - (callers[i] ? 1 : 0), &s) == 0)
			put_escaped(c->out, s.name, 1);
		else
			fprintf(c->out, "0x%" PRIx64, callers[i]);
	}
}

/* exe= and the command line, arguments separated by single spaces. */
static void print_command_line(const dump_ctx *c)
{
	const pt_rec_process_info *p = PT_REC_PAYLOAD(c->h, pt_rec_process_info);
	size_t off = sizeof *p;
	const char *exe = pt_event_string(c->ev, off);
	if (!exe)
		return;
	put_kv(c->out, "exe", exe);
	off += strlen(exe) + 1;
	fputs(" name=", c->out);
	for (uint32_t i = 0; i < p->argc; i++) {
		const char *a = pt_event_string(c->ev, off);
		if (!a)
			break;
		if (i)
			fputc(' ', c->out);
		put_escaped(c->out, a, 1);
		off += strlen(a) + 1;
	}
}

static void print_build_id(const dump_ctx *c)
{
	const pt_rec_module_map *p = PT_REC_PAYLOAD(c->h, pt_rec_module_map);
	fputs(" buildid=", c->out);
	const uint8_t *b = (const uint8_t *)(p + 1);
	for (uint32_t i = 0; i < p->build_id_len; i++)
		fprintf(c->out, "%02x", b[i]);
	if (!p->build_id_len)
		fputc('-', c->out);
}

static void print_module_path(const dump_ctx *c)
{
	const pt_rec_module_map *p = PT_REC_PAYLOAD(c->h, pt_rec_module_map);
	const char *s = pt_event_string(c->ev, sizeof *p + p->build_id_len);
	if (s)
		put_name(c->out, s);
}

static void print_func_def_names(const dump_ctx *c)
{
	const pt_rec_func_def *p = PT_REC_PAYLOAD(c->h, pt_rec_func_def);
	const char *name = pt_event_string(c->ev, sizeof *p);
	if (!name)
		return;
	const char *file = pt_event_string(c->ev, sizeof *p + strlen(name) + 1);
	if (file && *file)
		put_kv(c->out, "file", file);
	char *d = c->st ? pt_demangle(name) : NULL;
	put_name(c->out, d ? d : name);
	free(d);
}

/* GPU_PROF_DEF: its block rows and file names, as far as the record holds
 * them. */
static void print_gpu_prof_blocks(const dump_ctx *c)
{
	const pt_rec_gpu_prof_def *p = PT_REC_PAYLOAD(c->h, pt_rec_gpu_prof_def);
	size_t room = pt_rec_size(c->h) - sizeof *c->h - sizeof *p;
	const pt_gpu_prof_block *b = (const pt_gpu_prof_block *)(const void *)(p + 1);
	uint32_t n = p->nblocks;
	if ((uint64_t)n * sizeof *b > room)
		n = (uint32_t)(room / sizeof *b);
	for (uint32_t i = 0; i < n; i++)
		fprintf(c->out, " b%u=%u@%d:%u", i, b[i].instructions, b[i].file, b[i].line);
	size_t off = sizeof *p + (size_t)n * sizeof *b;
	fputs(" files=", c->out);
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const char *f = pt_event_string(c->ev, off);
		if (!f)
			break;
		if (i)
			fputc('|', c->out);
		put_escaped(c->out, f, 1);
		off += strlen(f) + 1;
	}
}

static void print_gpu_prof_counts(const dump_ctx *c)
{
	const pt_rec_gpu_prof *p = PT_REC_PAYLOAD(c->h, pt_rec_gpu_prof);
	size_t room = pt_rec_size(c->h) - sizeof *c->h - sizeof *p;
	const uint64_t *v = (const uint64_t *)(const void *)(p + 1);
	for (uint32_t i = 0; i < p->nblocks && (i + 1) * sizeof *v <= room; i++)
		fprintf(c->out, " c%u=%" PRIu64, i, v[i]);
}

/* A futex recorded as a condition (PT_COND_FUTEX): said only then, so the
 * lines of pthread conditions stay as they were. */
static void print_cond_futex(const dump_ctx *c)
{
	if (c->h->arg & PT_COND_FUTEX)
		fputs(" futex", c->out);
}

static void print_cond_signal(const dump_ctx *c)
{
	fprintf(c->out, " broadcast=%u", c->h->arg & PT_COND_BROADCAST);
	if (!(c->h->arg & PT_COND_FUTEX))
		return;
	pt_rec_cond cd = {0};
	memcpy(&cd, c->h + 1, pt_rec_size(c->h) - sizeof *c->h < sizeof cd
				  ? pt_rec_size(c->h) - sizeof *c->h
				  : sizeof cd);
	fprintf(c->out, " futex woken=%d", cd.result);
}

/* An off-CPU stretch: its cause, the call it was in, when it began and
 * ended (as the line's time is written) and how long it was. */
static void print_offcpu_span(const dump_ctx *c)
{
	put_enum(c->out, "cause", pt_offcpu_cause(c->h->arg), PT_OFFCPU_CAUSE_NAMES, NULL);
	if (pt_offcpu_call(c->h->arg))
		put_enum(c->out, "call", pt_offcpu_call(c->h->arg), PT_OFFCPU_CALL_NAMES, NULL);
	uint64_t out, in;
	if (!c->hdr || pt_rec_offcpu_span(c->h, c->ev->ticks, &out, &in))
		return;
	put_dev_time(c->out, "out", c->hdr, c->base_ns, out);
	put_dev_time(c->out, "in", c->hdr, c->base_ns, in);
	fprintf(c->out, " off_ns=%" PRIu64,
	        pt_ticks_to_ns(c->hdr, in) - pt_ticks_to_ns(c->hdr, out));
}

static void print_omp_work_arg(const dump_ctx *c)
{
	put_enum(c->out, "construct", c->h->arg & 15, PT_OMP_WORK_NAMES, NULL);
	put_enum(c->out, "schedule", c->h->arg >> 4, PT_OMP_SCHED_NAMES, NULL);
}

static void print_omp_loc_flags(const dump_ctx *c)
{
	const pt_rec_omp_loc *l = PT_REC_PAYLOAD(c->h, pt_rec_omp_loc);
	if (!l)
		return;
	unsigned kind = pt_omp_loc_kind(l->flags), arg = pt_omp_loc_arg(l->flags);
	if (kind == PT_REC_OMP_WORK_BEGIN)
		put_enum(c->out, "construct", arg, PT_OMP_WORK_NAMES, NULL);
	else if (kind == PT_REC_OMP_WAIT_BEGIN)
		put_enum(c->out, "construct", arg, PT_OMP_SYNC_NAMES, NULL);
	else
		fprintf(c->out, " construct=%s",
		        kind == PT_REC_OMP_PARALLEL_BEGIN ? "parallel"
		        : kind == PT_REC_OMP_TASK_CREATE  ? "task"
		                                          : "?");
	if (l->flags & PT_OMP_LOC_RETURN_ADDRESS)
		fputs(" return_address", c->out);
}

/* MPI records: the call by name, a receive's posting time, a
 * communicator's world ranks. */
static const char *mpi_call_name(unsigned call)
{
	switch (call) {
#define MPI_CALL_NAME_(name, id, family, state)                                                    \
	case id:                                                                                   \
		return "MPI_" #name;
		PT_MPI_CALLS(MPI_CALL_NAME_)
#undef MPI_CALL_NAME_
	default:
		return NULL;
	}
}

static void print_mpi_call(const dump_ctx *c)
{
	const char *n = mpi_call_name(c->h->arg);
	if (n)
		fprintf(c->out, " call=%s", n);
	else
		fprintf(c->out, " call=%u", c->h->arg);
}

static void print_mpi_posted(const dump_ctx *c)
{
	const pt_rec_mpi_msg *m = PT_REC_PAYLOAD(c->h, pt_rec_mpi_msg);
	if (m && m->posted && c->hdr)
		put_dev_time(c->out, "posted", c->hdr, c->base_ns, m->posted);
}

static void print_mpi_comm_ranks(const dump_ctx *c)
{
	const pt_rec_mpi_comm_def *d = PT_REC_PAYLOAD(c->h, pt_rec_mpi_comm_def);
	size_t room = (c->ev->size - sizeof *c->h - sizeof *d) / sizeof(int32_t);
	size_t n = (size_t)d->local_size + d->remote_size;
	const int32_t *w = (const int32_t *)(const void *)(d + 1);
	fputs(" world=", c->out);
	for (size_t i = 0; i < n && i < room; i++)
		fprintf(c->out, "%s%d", i ? (i == d->local_size ? "|" : ",") : "", w[i]);
}

/* The field lists of format.h, one array per kind, indexed by kind. */
#define FIELD_MEMBER(T, fmt_, key_, member, names_)                                                \
	{.fmt = FMT_##fmt_,                                                                        \
	 .size = sizeof(((T *)0)->member),                                                         \
	 .off = offsetof(T, member),                                                               \
	 .key = key_,                                                                              \
	 .names = names_},
#define FIELD_ARG(fmt_, key_, names_)                                                              \
	{.fmt = FMT_##fmt_, .from_arg = 1, .size = 1, .key = key_, .names = names_},
#define FIELD_STRING(offset, mode)                                                                 \
	{.fmt = FMT_STRING, .demangle = MODE_##mode, .off = (offset), .key = "name"},
#define FIELD_CUSTOM(printer, doc) {.fmt = FMT_CUSTOM, .names = doc, .custom = print_##printer},
#define FIELD_LIST(name, value, type, ...)                                                         \
	static const dump_field fields_##name[] = {PT_FIELDS_##name(                               \
	    type, FIELD_MEMBER, FIELD_ARG, FIELD_STRING, FIELD_CUSTOM){.fmt = FMT_END}};
PT_REC_SCHEMA(FIELD_LIST)

#define FIELD_TABLE(name, value, ...) [value] = fields_##name,
static const dump_field *const kind_fields[256] = {PT_REC_SCHEMA(FIELD_TABLE)};

/* A member as an unsigned number (sign-extended for I); 0 when the record
 * ends before it (an optional trailing field). */
static uint64_t member_value(const pt_rec_head *h, size_t off, size_t size, int is_signed)
{
	if (off + size > pt_rec_size(h) - sizeof *h)
		return 0;
	const uint8_t *p = (const uint8_t *)(h + 1) + off;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return is_signed ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static void print_field(const dump_ctx *c, const dump_field *f)
{
	FILE *out = c->out;
	uint64_t v = 0;
	if (f->from_arg)
		v = c->h->arg;
	else if (f->fmt < FMT_U32X3)
		v = member_value(c->h, f->off, f->size, f->fmt == FMT_I);
	switch (f->fmt) {
	case FMT_U:
		fprintf(out, " %s=", f->key);
		put_u64(out, v);
		break;
	case FMT_I:
		fprintf(out, " %s=%" PRId64, f->key, (int64_t)v);
		break;
	case FMT_X:
		fprintf(out, " %s=0x%" PRIx64, f->key, v);
		break;
	case FMT_FLAGS:
		put_flags(out, f->key, v, f->names);
		break;
	case FMT_ENUM:
	case FMT_ENUMQ:
		put_enum(out, f->key, v, f->names, f->fmt == FMT_ENUMQ ? "?" : NULL);
		break;
	case FMT_PC:
		put_pc(out, c->st, f->key, v);
		break;
	case FMT_DEVTIME:
		put_dev_time(out, f->key, c->hdr, c->base_ns, v);
		break;
	case FMT_U32X3:
		fprintf(out, " %s=%" PRIu64 ",%" PRIu64 ",%" PRIu64, f->key,
		        member_value(c->h, f->off, 4, 0), member_value(c->h, f->off + 4, 4, 0),
		        member_value(c->h, f->off + 8, 4, 0));
		break;
	case FMT_GPU_FUNC:
	case FMT_GPU_KERNEL:
		put_gpu_name(out, c->st, f->fmt == FMT_GPU_KERNEL,
		             (uint32_t)member_value(c->h, f->off, f->size, 0));
		break;
	case FMT_STRING: {
		const char *s = pt_event_string(c->ev, f->off);
		if (!s)
			break;
		char *d = f->demangle && c->st ? pt_demangle(s) : NULL;
		put_name(out, d ? d : s);
		free(d);
		break;
	}
	case FMT_CUSTOM:
		f->custom(c);
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
	const dump_field *f = kind_fields[ev->kind & 0xff];
	if (pt_rec_is_func(ev->kind)) {
		/* Most lines of a trace: their field list, C(func_id), without
		 * going through it. */
		put_func_id(out, ev->func_id, st);
	} else if (f) {
		dump_ctx c = {out, ev, ev->rec, st, hdr, base_ns};
		for (; f->fmt != FMT_END; f++)
			print_field(&c, f);
	} else {
		/* Kinds added by later minor versions: the reader skips them by
		 * size; show enough to know they are there. */
		fprintf(out, " kind=%u arg=%u size=%zu", ev->kind, ev->rec->arg, ev->size);
	}
	putc_unlocked('\n', out);
}

/* How a field is documented in docs/FORMAT.md's table of kinds. */
static void describe_field(FILE *out, const dump_field *f)
{
	const char *names = f->names;
	switch (f->fmt) {
	case FMT_X:
		fprintf(out, "%s=0x..", f->key);
		break;
	case FMT_FLAGS:
	case FMT_ENUM:
	case FMT_ENUMQ:
		/* the names, separated by | (escaped for the table) or, for a
		 * value that is one of them, by / */
		fprintf(out, "%s=", f->key);
		for (int first = 1; *names; first = 0) {
			if (*names == '|')
				names++;
			size_t n = strcspn(names, "|");
			if (!n)
				continue;
			if (!first)
				fputs(f->fmt == FMT_FLAGS ? "\\|" : "/", out);
			fprintf(out, "%.*s", (int)n, names);
			names += n;
		}
		break;
	case FMT_PC:
		fprintf(out, "%s=0x.. [at= name=]", f->key);
		break;
	case FMT_U32X3:
		fprintf(out, "%s=x,y,z", f->key);
		break;
	case FMT_GPU_FUNC:
	case FMT_GPU_KERNEL:
		fputs("[name=]", out);
		break;
	case FMT_STRING:
		fputs(f->demangle ? "name=<demangled>" : "name=", out);
		break;
	case FMT_CUSTOM:
		fputs(f->names, out);
		break;
	default:
		fprintf(out, "%s=", f->key);
		break;
	}
}

int pt_dump_describe(FILE *out, unsigned kind)
{
	const dump_field *f = kind < 256 ? kind_fields[kind] : NULL;
	if (!f)
		return -1;
	for (int first = 1; f->fmt != FMT_END; f++, first = 0) {
		if (!first)
			fputc(' ', out);
		describe_field(out, f);
	}
	return 0;
}
