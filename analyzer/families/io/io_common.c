/* SPDX-License-Identifier: MIT */
/* The I/O family's model (io_common.h). */
#include "io_common.h"

#include <stdlib.h>
#include <string.h>

/* An MPI_File handle's file from its MPI_FILE record's time on. */
typedef struct io_mpi_file {
	uint64_t fh, at_ns;
	uint32_t value;
} io_mpi_file;

typedef struct io_proc_files {
	uint32_t *value; /* file id -> value */
	size_t n;
	io_mpi_file *mpi; /* in log order */
	size_t nmpi, capmpi;
} io_proc_files;

struct io_names {
	io_proc_files *proc;
	size_t nproc;
	char **name;     /* value - 1 -> name */
	uint8_t *is_mpi; /* value - 1 -> a file opened by MPI_File_open */
	uint32_t count, cap;
	uint32_t *slot; /* open addressing over (name, is_mpi): value, 0 = empty */
	size_t nslot;
	int want_mpi;
};

static uint64_t io_hash(const char *s, int mpi)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)mpi;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

io_names *io_names_new(size_t nprocesses)
{
	io_names *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	n->proc = calloc(nprocesses ? nprocesses : 1, sizeof *n->proc);
	if (!n->proc) {
		free(n);
		return NULL;
	}
	n->nproc = nprocesses;
	return n;
}

void io_names_free(io_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nproc; i++) {
		free(n->proc[i].value);
		free(n->proc[i].mpi);
	}
	for (uint32_t i = 0; i < n->count; i++)
		free(n->name[i]);
	free(n->proc);
	free(n->name);
	free(n->is_mpi);
	free(n->slot);
	free(n);
}

/* *v (of *cap elements of size each) twice as long; -1: out of memory. */
static int io_grow(void **v, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *m = realloc(*v, c * size);
	if (!m)
		return -1;
	*v = m;
	*cap = c;
	return 0;
}

static int io_rehash(io_names *n)
{
	size_t nslot = n->nslot ? n->nslot * 2 : 64;
	uint32_t *slot = calloc(nslot, sizeof *slot);
	if (!slot)
		return -1;
	for (uint32_t v = 1; v <= n->count; v++) {
		size_t i = io_hash(n->name[v - 1], n->is_mpi[v - 1]) & (nslot - 1);
		while (slot[i])
			i = (i + 1) & (nslot - 1);
		slot[i] = v;
	}
	free(n->slot);
	n->slot = slot;
	n->nslot = nslot;
	return 0;
}

/* The value of a name (mpi: a file MPI_File_open named, a value of its
 * own), given one when new; 0: out of memory. */
static uint32_t io_intern(io_names *n, const char *name, int mpi)
{
	if ((n->count + 1) * 2 > n->nslot && io_rehash(n))
		return 0;
	size_t i = io_hash(name, mpi) & (n->nslot - 1);
	for (; n->slot[i]; i = (i + 1) & (n->nslot - 1))
		if (n->is_mpi[n->slot[i] - 1] == mpi && !strcmp(n->name[n->slot[i] - 1], name))
			return n->slot[i];
	if (n->count == n->cap) {
		uint32_t cap = n->cap ? n->cap * 2 : 16;
		char **v = realloc(n->name, cap * sizeof *v);
		if (!v)
			return 0;
		n->name = v;
		uint8_t *m = realloc(n->is_mpi, cap * sizeof *m);
		if (!m)
			return 0;
		n->is_mpi = m;
		n->cap = cap;
	}
	n->is_mpi[n->count] = (uint8_t)mpi;
	char *copy = strdup(name);
	if (!copy)
		return 0;
	n->name[n->count++] = copy;
	n->slot[i] = n->count;
	return n->count;
}

/* The name after a record's payload of `fixed` bytes: NUL-terminated
 * inside the record, else cut at its end; its value. */
static uint32_t io_record_name(io_names *n, const pt_event *ev, size_t fixed, int mpi)
{
	const char *s = (const char *)(ev->rec + 1) + fixed;
	size_t room = ev->size - sizeof(pt_rec_head) - fixed;
	char buf[4096];
	size_t len = strnlen(s, room < sizeof buf - 1 ? room : sizeof buf - 1);
	for (size_t i = 0; i < len; i++) /* one line of the .pcf, of a CSV row */
		buf[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	buf[len] = '\0';
	return io_intern(n, len ? buf : "?", mpi);
}

void io_names_want_mpi(io_names *n)
{
	if (n)
		n->want_mpi = 1;
}

static void io_mpi_file_event(io_names *n, size_t process, const pt_event *ev)
{
	const pt_rec_mpi_file *f = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_file);
	io_proc_files *p = &n->proc[process];
	if (!f || (p->nmpi == p->capmpi && io_grow((void **)&p->mpi, &p->capmpi, sizeof *p->mpi)))
		return;
	uint32_t v = io_record_name(n, ev, sizeof *f, 1);
	if (v)
		p->mpi[p->nmpi++] = (io_mpi_file){f->file, ev->time_ns, v};
}

uint32_t io_names_mpi_value(const io_names *n, size_t process, uint64_t fh, uint64_t at_ns)
{
	if (!n || process >= n->nproc)
		return 0;
	const io_proc_files *p = &n->proc[process];
	/* the handle's last open before the call; else its first (a handle
	 * is reused only after its file was closed) */
	uint32_t first = 0, last = 0;
	for (size_t i = 0; i < p->nmpi; i++) {
		if (p->mpi[i].fh != fh)
			continue;
		if (!first)
			first = p->mpi[i].value;
		if (p->mpi[i].at_ns <= at_ns)
			last = p->mpi[i].value;
	}
	return last ? last : first;
}

int io_names_mpi_twin(const io_names *n, uint32_t value)
{
	if (!n || value < 1 || value > n->count || n->is_mpi[value - 1] || !n->nslot)
		return 0;
	const char *name = n->name[value - 1];
	for (size_t i = io_hash(name, 1) & (n->nslot - 1); n->slot[i]; i = (i + 1) & (n->nslot - 1))
		if (n->is_mpi[n->slot[i] - 1] && !strcmp(n->name[n->slot[i] - 1], name))
			return 1;
	return 0;
}

int io_names_is_mpi(const io_names *n, uint32_t value)
{
	return n && value >= 1 && value <= n->count && n->is_mpi[value - 1];
}

void io_names_process_event(io_names *n, size_t process, const pt_event *ev)
{
	if (!n || process >= n->nproc)
		return;
	if (ev->kind == PT_REC_MPI_FILE && n->want_mpi) {
		io_mpi_file_event(n, process, ev);
		return;
	}
	if (ev->kind != PT_REC_IO_FILE)
		return;
	const pt_rec_io_file *f = PT_REC_PAYLOAD(ev->rec, pt_rec_io_file);
	if (!f || f->file == 0 || f->file > (1u << 24))
		return;
	uint32_t v = io_record_name(n, ev, sizeof *f, 0);
	io_proc_files *p = &n->proc[process];
	if (f->file >= p->n) {
		size_t cap = p->n ? p->n : 16;
		while (cap <= f->file)
			cap *= 2;
		uint32_t *m = realloc(p->value, cap * sizeof *m);
		if (!m)
			return;
		memset(m + p->n, 0, (cap - p->n) * sizeof *m);
		p->value = m;
		p->n = cap;
	}
	p->value[f->file] = v;
}

uint32_t io_names_value(const io_names *n, size_t process, uint32_t file)
{
	if (!n || process >= n->nproc || file >= n->proc[process].n)
		return 0;
	return n->proc[process].value[file];
}

uint32_t io_names_ids(const io_names *n, size_t process)
{
	return n && process < n->nproc ? (uint32_t)n->proc[process].n : 0;
}

uint32_t io_names_count(const io_names *n)
{
	return n ? n->count : 0;
}

const char *io_names_name(const io_names *n, uint32_t value)
{
	return n && value >= 1 && value <= n->count ? n->name[value - 1] : NULL;
}

const char *io_op_name(unsigned op)
{
	static const char *const names[PT_IO_OP_COUNT] = {
	    "?",     "read",   "write",  "fread",     "fwrite", "pread", "pwrite",
	    "readv", "writev", "preadv", "pwritev",   "open",   "fopen", "ioctl",
	    "close", "fclose", "fsync",  "fdatasync", "fdopen"};
	return op < PT_IO_OP_COUNT ? names[op] : "?";
}

int io_track_step(io_track *t, const pt_event *ev, io_done *d)
{
	d->end_ns = 0;
	if (ev->kind == PT_REC_IO_CALL) {
		const pt_rec_io_call *c = PT_REC_PAYLOAD(ev->rec, pt_rec_io_call);
		if (!c)
			return IO_STEP_NONE;
		if (t->open) /* its end was lost: it ends here, cut */
			*d = (io_done){t->op, t->begin_ns, ev->time_ns, t->size,
			               0,     t->fd,       t->file,     1};
		*t = (io_track){1, ev->rec->arg, ev->time_ns, c->size, c->fd, c->file};
		return IO_STEP_BEGIN;
	}
	if (ev->kind == PT_REC_IO_END && t->open) {
		/* file and err are there only when not 0; the delivered
		 * record's size (a compact one takes fewer bytes in the file) */
		pt_rec_io_end end = {0};
		size_t have = pt_rec_size(ev->rec) - sizeof(pt_rec_head);
		if (have < PT_REC_IO_END_MIN)
			return IO_STEP_NONE;
		memcpy(&end, ev->rec + 1, have < sizeof end ? have : sizeof end);
		const pt_rec_io_end *e = &end;
		int moves = pt_io_op_reads(t->op) || pt_io_op_writes(t->op);
		*d = (io_done){t->op,
		               t->begin_ns,
		               ev->time_ns,
		               t->size,
		               moves && e->result > 0 ? (uint64_t)e->result : 0,
		               t->fd,
		               e->file ? e->file : t->file,
		               e->err != 0};
		t->open = 0;
		return IO_STEP_END;
	}
	return IO_STEP_NONE;
}
