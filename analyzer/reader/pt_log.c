/* SPDX-License-Identifier: MIT */
/* libptlog: streaming parser for paratrace logs (see <paratrace/log.h>).
 *
 * One buffer holds the bytes not yet consumed: buf[0] is stream offset
 * base_off, records start at buf[start], valid data ends at buf[end].
 * base_off stays a multiple of 8, so a record sits in buf with the
 * alignment of its offset: every record with a payload 8-byte aligned
 * (malloc alignment + the format's rule that only records without a
 * payload may start between two multiples of 8). Records delivered in
 * another form than the file's (compact, short, head-only) come from the
 * aligned copy `expanded`, as do 8-byte function records.
 * The buffer is only compacted or grown inside read/feed, which is why a
 * delivered ev->rec stays valid until the next read/feed/close.
 */
#define _GNU_SOURCE
#include <paratrace/log.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_log_internal.h"

#define READ_CHUNK (256 * 1024)

struct pt_log {
	int fd;
	unsigned flags;
	int seekable; /* file parser on a regular file: pread from origin + offset */
	off_t origin; /* fd offset where the log starts */
	int input_done; /* memory parser: feed(len 0) seen; file parser: read() hit the end */
	size_t chunk;   /* file parser: bytes asked of each read */

	uint8_t *buf;
	size_t cap, start, end;
	uint64_t base_off;

	int have_header;
	int compact; /* format 2.0 or later: 4-byte function records and pads */
	int shorts;  /* format 3.0 or later: 2-byte function records and pads */
	size_t pad;  /* pad bytes consumed, their record not delivered yet */
	pt_file_header hdr;
	uint64_t ticks;  /* time of the previous record */
	uint64_t serial;
	int last_was_close;
	/* FOLLOW, the writer announced its lock (PT_HDR_FLAG_WRITER_LOCK) and
	 * it is free: the data read after that is all there will be. */
	int writer_gone;
	/* The object of the most recent LOCK_ACQUIRED, which a LOCK_RELEASED of
	 * 8 bytes releases (1.2); such a record is delivered as `expanded`. */
	int have_acquired;
	uint64_t last_acquired;
	/* The function of the most recent function record, which a short
	 * record (3.0) enters or exits again: an id, or the address of a PC
	 * record. last_func_as: PT_REC_FUNC_ENTER (an id), PT_REC_FUNC_ENTER_PC
	 * (an address), or 0 (none: at the start and after a LOST). */
	int last_func_as;
	uint64_t last_func;
	/* The call of the file's last MPI_CALL (have_call: there is one, not
	 * forgotten at a LOST) and its time: the call of compact MPI records
	 * (3.3) and a compact blocking receive's posted time. */
	int mpi_compact;
	int io_compact; /* 3.5: compact I/O and memory records */
	int mem_short;  /* 3.7: MEM_FREE_S */
	/* The block the file's last MEM_ALLOC returned (have_alloc: there is
	 * one, not forgotten at a LOST), which MEM_FREE_S frees. */
	int have_alloc;
	uint64_t last_alloc;
	int have_call;
	unsigned call;
	uint64_t call_ticks;
	/* The file's last MPI_SEND, MPI_RECV, MPI_IRECV (mpi_msg, in that
	 * order) and MPI_COLL, which a repeated record (3.6) stands for again;
	 * have_mpi_last: bit i set when there is one. Kept across a LOST. */
	unsigned have_mpi_last;
	pt_rec_mpi_msg mpi_msg[3];
	pt_rec_mpi_coll mpi_coll;
	uint64_t expanded[6]; /* a full record of up to 48 bytes */

	enum pt_log_state final; /* PT_LOG_OK while not finished */
	uint64_t final_offset;
	uint64_t truncated_bytes;
	char error[256];
};

pt_log *pt_log_open(int fd, unsigned flags)
{
	pt_log *log = calloc(1, sizeof *log);
	if (!log)
		return NULL;
	log->fd = fd;
	log->flags = flags & ~PT_LOG_OWN_FD; /* only pt_log_open_path hands the fd over */
	if (fd != PT_LOG_FD_NONE) {
		struct stat st;
		/* pread lets FOLLOW re-read a region the writer had not filled
		 * yet (zeros in its mapping); pipes fall back to read(). */
		log->chunk = READ_CHUNK;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			log->origin = lseek(fd, 0, SEEK_CUR);
			log->seekable = log->origin >= 0;
			/* Small logs (a trace of 100k short threads) get a buffer
			 * their size rather than a full chunk each. */
			if (log->seekable && st.st_size - log->origin < READ_CHUNK)
				log->chunk = ((size_t)(st.st_size - log->origin) + 4096) & ~(size_t)4095;
		}
	}
	return log;
}

pt_log *pt_log_open_path(const char *path, unsigned flags, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	pt_log *log = pt_log_open(fd, flags);
	if (!log) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		close(fd);
		return NULL;
	}
	log->flags |= PT_LOG_OWN_FD;
	return log;
}

void pt_log_close(pt_log *log)
{
	if (!log)
		return;
	if ((log->flags & PT_LOG_OWN_FD) && log->fd >= 0)
		close(log->fd);
	free(log->buf);
	free(log);
}

const pt_file_header *pt_log_header(const pt_log *log)
{
	return log && log->have_header ? &log->hdr : NULL;
}

/* Room for `more` bytes after end. Consumed bytes are only moved out of
 * the way when space runs out, so feeding a byte at a time stays linear.
 * They move by a multiple of 8, so base_off stays one and a record's
 * address in buf has the alignment of its offset in the log. */
static int reserve(pt_log *log, size_t more)
{
	if (log->cap - log->end >= more)
		return 0;
	size_t drop = log->start & ~(size_t)7;
	if (drop > 0) {
		memmove(log->buf, log->buf + drop, log->end - drop);
		log->base_off += drop;
		log->end -= drop;
		log->start -= drop;
		if (log->cap - log->end >= more)
			return 0;
	}
	/* Memory parsers often hold small inputs; files read in big chunks. */
	size_t ncap = log->cap ? log->cap : log->fd == PT_LOG_FD_NONE ? 4096 : log->chunk;
	while (ncap - log->end < more) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	uint8_t *nbuf = realloc(log->buf, ncap);
	if (!nbuf)
		return -1;
	log->buf = nbuf;
	log->cap = ncap;
	return 0;
}

int pt_log_feed(pt_log *log, const void *data, size_t len)
{
	if (!log || log->fd != PT_LOG_FD_NONE) {
		errno = EINVAL;
		return -1;
	}
	if (len == 0) {
		log->input_done = 1;
		return 0;
	}
	if (log->input_done) {
		errno = EINVAL; /* bytes after the announced end of input */
		return -1;
	}
	if (reserve(log, len) < 0) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(log->buf + log->end, data, len);
	log->end += len;
	return 0;
}

/* File parser: read until at least `need` bytes are buffered past start or
 * the file has no more. Returns -1 on a read error (message set). */
static int fill(pt_log *log, size_t need)
{
	if (log->fd == PT_LOG_FD_NONE)
		return 0;
	while (log->end - log->start < need) {
		size_t want = need - (log->end - log->start);
		if (want < log->chunk)
			want = log->chunk;
		if (reserve(log, want) < 0) {
			snprintf(log->error, sizeof log->error, "out of memory");
			return -1;
		}
		ssize_t n;
		if (log->seekable)
			n = pread(log->fd, log->buf + log->end, log->cap - log->end,
				  log->origin + (off_t)(log->base_off + log->end));
		else
			n = read(log->fd, log->buf + log->end, log->cap - log->end);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			snprintf(log->error, sizeof log->error, "read error: %s", strerror(errno));
			return -1;
		}
		if (n == 0) {
			log->input_done = 1;
			return 0;
		}
		log->input_done = 0; /* a followed file grew */
		log->end += (size_t)n;
	}
	return 0;
}

static size_t avail(const pt_log *log)
{
	return log->end - log->start;
}

static uint64_t cur_offset(const pt_log *log)
{
	return log->base_off + log->start;
}

static int finish(pt_log *log, pt_event *ev, enum pt_log_state st, uint64_t offset)
{
	log->final = st;
	log->final_offset = offset;
	ev->state = st;
	ev->offset = offset;
	ev->serial = log->serial;
	ev->ticks = log->ticks;
	if (st == PT_LOG_ERROR)
		ev->error = log->error;
	if (st == PT_LOG_EOF) {
		ev->complete = log->last_was_close;
		ev->truncated_bytes = log->truncated_bytes;
	}
	return -1;
}

static int fail(pt_log *log, pt_event *ev, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(pt_log *log, pt_event *ev, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(log->error, sizeof log->error, fmt, ap);
	va_end(ap);
	return finish(log, ev, PT_LOG_ERROR, offset);
}

/* A followed file whose writer announced its lock: 1 while the writer
 * may still write (its lock is held), 0 once it cannot (the lock was free
 * at the previous look: what was read since is all), -1 when the writer
 * did not announce it or the lock cannot be tested here (then a CLOSE
 * ends the log). */
static int writer_alive(pt_log *log)
{
	if (!log->have_header || !(log->hdr.flags & PT_HDR_FLAG_WRITER_LOCK))
		return -1;
	if (log->writer_gone)
		return 0;
	if (flock(log->fd, LOCK_SH | LOCK_NB) != 0)
		return errno == EWOULDBLOCK ? 1 : -1;
	flock(log->fd, LOCK_UN);
	/* Released after its last write: read once more before the end. */
	log->writer_gone = 1;
	return 1;
}

/* Whether a followed file may grow beyond what was read: its writer holds
 * its lock, or (no lock) it has no CLOSE at its end yet. */
static int follow_more(pt_log *log, size_t partial)
{
	int alive = writer_alive(log);
	if (alive >= 0)
		return alive;
	return !(log->last_was_close && partial == 0);
}

/* Not enough bytes right now. Whether that is the end depends on who can
 * still add data: the feeder (until feed(len 0)), or a followed file. */
static int need_more(pt_log *log, pt_event *ev, size_t partial)
{
	int follow_file = log->fd != PT_LOG_FD_NONE && (log->flags & PT_LOG_FOLLOW);
	int more_possible = log->fd == PT_LOG_FD_NONE ? !log->input_done : follow_file;
	if (more_possible && (!follow_file || follow_more(log, partial))) {
		if (follow_file && log->seekable)
			log->end = log->start; /* re-read this region next time: the writer may fill it */
		ev->state = PT_LOG_REQUIRE_DATA;
		ev->offset = cur_offset(log);
		ev->serial = log->serial;
		ev->ticks = log->ticks;
		return -1;
	}
	/* A pad belongs to the record cut short after it. */
	log->truncated_bytes = partial + log->pad;
	return finish(log, ev, PT_LOG_EOF, cur_offset(log));
}

/* The end-of-data marker (a zero head in the writer's zero-filled mapping).
 * With FOLLOW the writer may still put a record there. */
static int end_of_data(pt_log *log, pt_event *ev)
{
	/* FOLLOW only means something for files: fed bytes never change. */
	if (log->fd != PT_LOG_FD_NONE && (log->flags & PT_LOG_FOLLOW) && follow_more(log, 0)) {
		if (log->seekable)
			log->end = log->start;
		ev->state = PT_LOG_REQUIRE_DATA;
		ev->offset = cur_offset(log);
		ev->serial = log->serial;
		ev->ticks = log->ticks;
		return -1;
	}
	log->truncated_bytes = 0;
	return finish(log, ev, PT_LOG_EOF, cur_offset(log));
}

int pt_log_check_header(const void *data, size_t len, char *err, size_t errlen)
{
	const pt_file_header *h = data;
	if (len < PT_FORMAT_MAGIC_LEN || memcmp(h->magic, PT_FORMAT_MAGIC, PT_FORMAT_MAGIC_LEN) != 0) {
		snprintf(err, errlen, "not a paratrace log (bad magic)");
		return -1;
	}
	if (len < sizeof(pt_file_header)) {
		snprintf(err, errlen, "truncated header (%zu of %zu bytes)", len, sizeof(pt_file_header));
		return -1;
	}
	/* Byte order first: in a big-endian log every multi-byte field below
	 * would read byte-swapped and give a misleading message. */
	if (h->byte_order == PT_BYTE_ORDER_BIG) {
		snprintf(err, errlen,
			 "log written in big-endian byte order; this reader reads little-endian logs only");
		return -1;
	}
	if (h->byte_order != PT_BYTE_ORDER_LITTLE) {
		snprintf(err, errlen, "bad byte order field %u", h->byte_order);
		return -1;
	}
	if (h->version_major > PT_FORMAT_VERSION_MAJOR) {
		snprintf(err, errlen, "format version %u.%u is newer than this reader (%d.%d)",
			 h->version_major, h->version_minor, PT_FORMAT_VERSION_MAJOR,
			 PT_FORMAT_VERSION_MINOR);
		return -1;
	}
	if (h->version_major < PT_FORMAT_VERSION_MAJOR_MIN) {
		snprintf(err, errlen, "format version %u.%u is not supported by this reader (%d.%d)",
			 h->version_major, h->version_minor, PT_FORMAT_VERSION_MAJOR,
			 PT_FORMAT_VERSION_MINOR);
		return -1;
	}
	if (h->header_size < sizeof(pt_file_header) || h->header_size % 8) {
		snprintf(err, errlen, "bad header size %u", h->header_size);
		return -1;
	}
	if (h->file_kind < PT_FILE_THREAD || h->file_kind > PT_FILE_GPU) {
		snprintf(err, errlen, "unknown file kind %u", h->file_kind);
		return -1;
	}
	/* The conversion multiplies a signed 64-bit tick difference by
	 * tick_mult in 128 bits; shifts past 64 are never needed. */
	if (h->tick_mult == 0 || h->tick_shift > 64) {
		snprintf(err, errlen, "bad clock calibration (mult %llu, shift %u)",
			 (unsigned long long)h->tick_mult, h->tick_shift);
		return -1;
	}
	return 0;
}

static inline uint64_t ticks_to_ns(const pt_file_header *hdr, uint64_t ticks)
{
	/* Signed difference: a record may precede the header's reference pair
	 * (another file's open), which must give an earlier time, not 2^64. */
	__int128 d = (__int128)(int64_t)(ticks - hdr->open.ticks) * (__int128)hdr->tick_mult;
	d >>= hdr->tick_shift;
	__int128 ns = (__int128)hdr->open.mono_ns + d;
	if (ns < 0)
		return 0;
	if (ns > (__int128)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)ns;
}

uint64_t pt_ticks_to_ns(const pt_file_header *hdr, uint64_t ticks)
{
	return ticks_to_ns(hdr, ticks);
}

/* What the schema (format.h) says of each kind: the payload it must carry
 * at least, so consumers can read its fixed fields without checking. */
typedef struct kind_info {
	const char *name; /* NULL: a kind this reader does not know */
	uint16_t min_payload;
	uint8_t per_arg; /* payload bytes more per unit of arg */
} kind_info;

static const kind_info kinds[256] = {
#define KIND_INFO(name, value, type, min, per_arg, ...) [value] = {#name, (min), (per_arg)},
	PT_REC_SCHEMA(KIND_INFO)
#undef KIND_INFO
};

/* Smallest payload of the record with head h (-1: any size). */
static long min_payload(const pt_rec_head *h)
{
	const kind_info *k = &kinds[h->kind];
	if (!k->name)
		return -1;
	return (long)k->min_payload + (long)h->arg * k->per_arg;
}

static int read_header(pt_log *log, pt_event *ev)
{
	if (fill(log, sizeof(pt_file_header)) < 0)
		return finish(log, ev, PT_LOG_ERROR, cur_offset(log));
	size_t n = avail(log);
	const uint8_t *p = log->buf ? log->buf + log->start : NULL;
	/* Say "foreign file" as soon as the magic is wrong, without waiting for
	 * a whole header. */
	size_t m = n < PT_FORMAT_MAGIC_LEN ? n : PT_FORMAT_MAGIC_LEN;
	if (m && memcmp(p, PT_FORMAT_MAGIC, m) != 0)
		return fail(log, ev, 0, "not a paratrace log (bad magic)");
	if (n < sizeof(pt_file_header)) {
		int follow_file = log->fd != PT_LOG_FD_NONE && (log->flags & PT_LOG_FOLLOW);
		if (log->fd == PT_LOG_FD_NONE ? !log->input_done : follow_file) {
			if (follow_file && log->seekable)
				log->end = log->start;
			ev->state = PT_LOG_REQUIRE_DATA;
			ev->offset = 0;
			return -1;
		}
		if (n == 0)
			return fail(log, ev, 0, "empty file: no log header");
		return fail(log, ev, 0, "truncated header (%zu of %zu bytes)", n,
			    sizeof(pt_file_header));
	}
	if (pt_log_check_header(p, n, log->error, sizeof log->error) < 0)
		return finish(log, ev, PT_LOG_ERROR, 0);
	const pt_file_header *h = (const pt_file_header *)p;
	if (fill(log, h->header_size) < 0)
		return finish(log, ev, PT_LOG_ERROR, 0);
	/* fill may have moved the buffer */
	h = (const pt_file_header *)(log->buf + log->start);
	if (avail(log) < h->header_size) {
		if (log->fd == PT_LOG_FD_NONE ? !log->input_done : (log->flags & PT_LOG_FOLLOW)) {
			if (log->fd != PT_LOG_FD_NONE && log->seekable)
				log->end = log->start;
			ev->state = PT_LOG_REQUIRE_DATA;
			ev->offset = 0;
			return -1;
		}
		return fail(log, ev, 0, "truncated header (%zu of %u bytes)", avail(log),
			    h->header_size);
	}
	memcpy(&log->hdr, h, sizeof log->hdr);
	log->have_header = 1;
	log->compact = h->version_major >= 2;
	log->shorts = h->version_major >= 3;
	log->mpi_compact = h->version_major > 3 || (h->version_major == 3 && h->version_minor >= 3);
	log->io_compact = h->version_major > 3 || (h->version_major == 3 && h->version_minor >= 5);
	log->mem_short = h->version_major > 3 || (h->version_major == 3 && h->version_minor >= 7);
	log->ticks = log->hdr.open.ticks;
	log->start += log->hdr.header_size;
	return 0;
}

/* A complete record at p (head h, size bytes) becomes the current event.
 * Sets every field: the fast path below does not clear ev first. */
static inline int deliver(pt_log *log, pt_event *ev, const uint8_t *p, pt_rec_head h, size_t size)
{
	if (h.kind == PT_REC_TIME)
		memcpy(&log->ticks, p + sizeof h, sizeof log->ticks);
	else
		log->ticks += h.delta;
	ev->state = PT_LOG_OK;
	ev->kind = h.kind;
	ev->offset = cur_offset(log);
	ev->serial = log->serial++;
	ev->ticks = log->ticks;
	ev->time_ns = ticks_to_ns(&log->hdr, log->ticks);
	ev->rec = (const pt_rec_head *)p;
	ev->size = size;
	ev->func_id = 0;
	if (pt_rec_is_func(h.kind)) {
		ev->func_id = pt_rec_func_id(&h);
		log->last_func = ev->func_id;
		log->last_func_as = PT_REC_FUNC_ENTER;
	}
	ev->error = NULL;
	ev->complete = 0;
	ev->truncated_bytes = 0;
	log->last_was_close = h.kind == PT_REC_CLOSE;
	log->start += size;
	log->pad = 0;
	return 0;
}

/* An 8-byte function record, delivered from an aligned copy: since 3.0 it
 * may start at any even offset, where its head is not 4-byte aligned. */
static inline int deliver_func(pt_log *log, pt_event *ev, pt_rec_head h)
{
	memcpy(&log->expanded[0], &h, sizeof h);
	return deliver(log, ev, (const uint8_t *)log->expanded, h, sizeof h);
}

/* A compact function record: delivered as its 8-byte form (ev->rec points
 * to the copy in `expanded`), with ev->size 4, the bytes it takes. */
static inline int deliver_compact(pt_log *log, pt_event *ev, uint32_t word)
{
	pt_rec_head h = pt_compact_head(word);
	memcpy(&log->expanded[0], &h, sizeof h);
	return deliver(log, ev, (const uint8_t *)log->expanded, h, 4);
}

/* A short function record (3.0): delivered as the full form of the
 * previous function record's kind, its function again, with ev->size 2.
 * The caller checked that there is a previous function record. */
static inline int deliver_short(pt_log *log, pt_event *ev, uint16_t word)
{
	int exit = pt_short_exit(word);
	uint32_t delta = pt_short_delta(word);
	if (log->last_func_as == PT_REC_FUNC_ENTER_PC) {
		pt_rec_head h = {(uint8_t)(exit ? PT_REC_FUNC_EXIT_PC : PT_REC_FUNC_ENTER_PC), 0, 2,
		                 delta};
		memcpy(&log->expanded[0], &h, sizeof h);
		log->expanded[1] = log->last_func;
		return deliver(log, ev, (const uint8_t *)log->expanded, h, sizeof word);
	}
	pt_rec_head h = pt_rec_func(exit ? PT_REC_FUNC_EXIT : PT_REC_FUNC_ENTER,
	                            (uint32_t)log->last_func, delta);
	memcpy(&log->expanded[0], &h, sizeof h);
	return deliver(log, ev, (const uint8_t *)log->expanded, h, sizeof word);
}

/* A message or collective record delivered (full, compact or repeated):
 * the one the next repeated record of its kind stands for. */
static void mpi_remember(pt_log *log, unsigned kind, const void *payload)
{
	int i = pt_mpi_repeat_slot(kind);
	if (i < 0)
		return;
	if (i == 3)
		memcpy(&log->mpi_coll, payload, sizeof log->mpi_coll);
	else
		memcpy(&log->mpi_msg[i], payload, sizeof log->mpi_msg[i]);
	log->have_mpi_last |= 1u << i;
}

/* A repeated MPI record (3.6): the file's last record of its kind again,
 * with the request (and a receive's posted time) of this one. */
static int deliver_mpi_repeat(pt_log *log, pt_event *ev, const uint8_t *p, uint32_t word,
                              size_t size, uint64_t off)
{
	unsigned kind = word & 0x7f;
	unsigned full = kind == PT_REC_MPI_SEND_R    ? PT_REC_MPI_SEND
	                : kind == PT_REC_MPI_RECV_R  ? PT_REC_MPI_RECV
	                : kind == PT_REC_MPI_IRECV_R ? PT_REC_MPI_IRECV
	                                             : PT_REC_MPI_COLL;
	int i = pt_mpi_repeat_slot(full);
	if (!(log->have_mpi_last & 1u << i))
		return fail(log, ev, off, "%s without a %s before it", pt_rec_kind_name(kind),
		            pt_rec_kind_name(full));
	uint64_t request = 0;
	uint32_t back = 0;
	if (word & PT_MPI_R_REQUEST) {
		uint32_t f[3] = {0};
		memcpy(f, p + 4, size - 4);
		request = f[0] | (uint64_t)f[1] << 32;
		back = f[2];
	}
	pt_rec_head h = {(uint8_t)full, (uint8_t)log->call, PT_REC_SIZE(MPI_SEND) / 8,
	                 word >> PT_MPI_R_SHIFT};
	if (i == 3) {
		pt_rec_mpi_coll r = log->mpi_coll;
		r.request = request;
		h.size8 = PT_REC_SIZE(MPI_COLL) / 8;
		memcpy(&log->expanded[1], &r, sizeof r);
	} else {
		pt_rec_mpi_msg m = log->mpi_msg[i];
		m.request = request;
		m.posted = 0;
		if (full == PT_REC_MPI_RECV) {
			if (back > log->call_ticks)
				return fail(log, ev, off,
				            "repeated MPI_RECV posted before the clock's start");
			m.posted = log->call_ticks - back;
		}
		memcpy(&log->expanded[1], &m, sizeof m);
	}
	memcpy(&log->expanded[0], &h, sizeof h);
	return deliver(log, ev, (const uint8_t *)log->expanded, h, size);
}

/* A compact MPI record (3.3, format/mpi.h) of size bytes at p, complete in
 * the buffer: delivered as its full record, from `expanded`. */
static int deliver_mpi_compact(pt_log *log, pt_event *ev, const uint8_t *p, uint32_t word,
                               size_t size, uint64_t off)
{
	unsigned kind = word & 0x7f;
	memset(log->expanded, 0, sizeof log->expanded);
	pt_rec_head h = {0};
	if (kind == PT_REC_MPI_CALL_C) {
		h = (pt_rec_head){PT_REC_MPI_CALL, (uint8_t)(word >> 8), 1,
		                  word >> PT_MPI_CALL_C_SHIFT};
		memcpy(&log->expanded[0], &h, sizeof h);
		int r = deliver(log, ev, (const uint8_t *)log->expanded, h, size);
		log->have_call = 1;
		log->call = h.arg;
		log->call_ticks = log->ticks;
		return r;
	}
	if (!log->have_call)
		return fail(log, ev, off, "compact %s without an MPI_CALL before it",
		            pt_rec_kind_name(kind));
	if (kind >= PT_REC_MPI_SEND_R && kind <= PT_REC_MPI_COLL_R)
		return deliver_mpi_repeat(log, ev, p, word, size, off);
	if (kind == PT_REC_MPI_CALL_END_C) {
		h = (pt_rec_head){PT_REC_MPI_CALL_END, (uint8_t)log->call, 1,
		                  word >> PT_MPI_END_C_SHIFT};
	} else if (kind == PT_REC_MPI_DONE_C) {
		h = (pt_rec_head){PT_REC_MPI_DONE, (uint8_t)log->call, PT_REC_SIZE(MPI_DONE) / 8,
		                  word >> PT_MPI_DONE_C_SHIFT};
		memcpy(&log->expanded[1], p + 4, sizeof(pt_rec_mpi_done));
	} else {
		uint64_t comm = word & PT_MPI_C_SELF ? PT_MPI_COMM_SELF_ID : PT_MPI_COMM_WORLD_ID;
		int req = (word & PT_MPI_C_REQUEST) != 0;
		uint32_t delta = word >> PT_MPI_C_SHIFT;
		if (kind == PT_REC_MPI_COLL_C) {
			pt_mpi_c_coll c = {0};
			memcpy(&c, p + 4, size - 4);
			pt_rec_mpi_coll r = {
			    comm,   c.root,  c.size,
			    c.sent, c.recvd, req ? c.request_lo | (uint64_t)c.request_hi << 32 : 0};
			h = (pt_rec_head){PT_REC_MPI_COLL, (uint8_t)log->call,
			                  PT_REC_SIZE(MPI_COLL) / 8, delta};
			memcpy(&log->expanded[1], &r, sizeof r);
		} else {
			pt_mpi_c_msg c = {0};
			memcpy(&c, p + 4, size - 4);
			pt_rec_mpi_msg m = {c.peer,
			                    c.tag,
			                    c.bytes,
			                    comm,
			                    req ? c.request_lo | (uint64_t)c.request_hi << 32 : 0,
			                    0};
			unsigned full = kind == PT_REC_MPI_SEND_C   ? PT_REC_MPI_SEND
			                : kind == PT_REC_MPI_RECV_C ? PT_REC_MPI_RECV
			                                            : PT_REC_MPI_IRECV;
			if (full == PT_REC_MPI_RECV) {
				if (c.posted_back > log->call_ticks)
					return fail(
					    log, ev, off,
					    "compact MPI_RECV posted before the clock's start");
				m.posted = log->call_ticks - c.posted_back;
			}
			h = (pt_rec_head){(uint8_t)full, (uint8_t)log->call,
			                  PT_REC_SIZE(MPI_SEND) / 8, delta};
			memcpy(&log->expanded[1], &m, sizeof m);
		}
	}
	memcpy(&log->expanded[0], &h, sizeof h);
	mpi_remember(log, h.kind, log->expanded + 1);
	return deliver(log, ev, (const uint8_t *)log->expanded, h, size);
}

/* A compact I/O or memory record (3.5, format/io.h) of size bytes at p,
 * complete in the buffer: delivered as its full record, from `expanded`.
 * Each holds all its fields: no state of the file is needed. */
static int deliver_io_compact(pt_log *log, pt_event *ev, const uint8_t *p, uint32_t word,
                              size_t size, uint64_t off)
{
	unsigned kind = word & 0x7f;
	if (kind == PT_REC_MEM_FREE_S && !log->mem_short)
		return fail(log, ev, off, "unknown compact record 0x%08x", word);
	if (kind == PT_REC_MEM_FREE_S && !log->have_alloc)
		return fail(log, ev, off, "MEM_FREE_S without a MEM_ALLOC before it");
	memset(log->expanded, 0, sizeof log->expanded);
	pt_rec_head h = {0};
	if (kind == PT_REC_IO_CALL_C || kind == PT_REC_IO_END_C) {
		unsigned op = word >> 8 & ((1u << PT_IO_C_OP_BITS) - 1);
		uint32_t delta = word >> PT_IO_C_SHIFT;
		if (kind == PT_REC_IO_CALL_C) {
			pt_io_c_call c;
			memcpy(&c, p + 4, sizeof c);
			pt_rec_io_call r = {.size = c.size, .fd = c.fd, .file = c.file};
			h = (pt_rec_head){PT_REC_IO_CALL, (uint8_t)op, PT_REC_SIZE(IO_CALL) / 8, delta};
			memcpy(&log->expanded[1], &r, sizeof r);
		} else {
			uint32_t result;
			memcpy(&result, p + 4, sizeof result);
			h = (pt_rec_head){PT_REC_IO_END, (uint8_t)op,
			                  (sizeof h + PT_REC_IO_END_MIN) / 8, delta};
			log->expanded[1] = result;
		}
	} else if (kind == PT_REC_MEM_ALLOC_C) {
		pt_mem_c_alloc c;
		memcpy(&c, p + 4, sizeof c);
		pt_rec_mem_alloc r = {.ptr = pt_c_addr_get(c.ptr),
		                      .size = c.size[0] | (uint32_t)c.size[1] << 16,
		                      .caller = pt_c_addr_get(c.caller)};
		h = (pt_rec_head){PT_REC_MEM_ALLOC,
		                  (uint8_t)(word >> 8 & ((1u << PT_MEM_C_OP_BITS) - 1)),
		                  (sizeof h + PT_REC_MEM_ALLOC_MIN) / 8, word >> PT_MEM_ALLOC_C_SHIFT};
		memcpy(&log->expanded[1], &r, PT_REC_MEM_ALLOC_MIN);
		log->have_alloc = 1;
		log->last_alloc = r.ptr;
	} else if (kind == PT_REC_MEM_FREE_S) {
		h = (pt_rec_head){PT_REC_MEM_FREE, PT_MEM_OP_FREE, PT_REC_SIZE(MEM_FREE) / 8,
		                  word >> PT_MEM_FREE_S_SHIFT};
		log->expanded[1] = log->last_alloc;
	} else { /* MEM_FREE_C */
		uint16_t ptr[3];
		memcpy(ptr, p + 4, sizeof ptr);
		h = (pt_rec_head){PT_REC_MEM_FREE, PT_MEM_OP_FREE, PT_REC_SIZE(MEM_FREE) / 8,
		                  word >> PT_MEM_FREE_C_SHIFT};
		log->expanded[1] = pt_c_addr_get(ptr);
	}
	memcpy(&log->expanded[0], &h, sizeof h);
	return deliver(log, ev, (const uint8_t *)log->expanded, h, size);
}

static __attribute__((noinline)) int read_slow(pt_log *log, pt_event *ev);

int pt_log_read(pt_log *log, pt_event *ev)
{
	/* Fast path: a function record, the bulk of every log, already
	 * buffered. It needs none of the checks of read_slow (4 or 8 bytes,
	 * no payload), nor its stack frame. */
	if (log->end - log->start >= sizeof(pt_rec_head) && log->have_header &&
	    log->final == PT_LOG_OK) {
		const uint8_t *p = log->buf + log->start;
		pt_rec_head h;
		memcpy(&h, p, sizeof h);
		if (pt_rec_is_func(h.kind))
			return deliver_func(log, ev, h);
		if (log->shorts && pt_short_is(h.kind) && log->last_func_as) {
			uint16_t word;
			memcpy(&word, p, sizeof word);
			return deliver_short(log, ev, word);
		}
		uint32_t word;
		memcpy(&word, p, sizeof word);
		if (log->compact && pt_compact_is_func(word))
			return deliver_compact(log, ev, word);
	}
	return read_slow(log, ev);
}

static int read_slow(pt_log *log, pt_event *ev)
{
	memset(ev, 0, sizeof *ev);
	if (log->final != PT_LOG_OK)
		return finish(log, ev, log->final, log->final_offset);
	if (!log->have_header && read_header(log, ev) < 0)
		return -1;

again:
	if (fill(log, sizeof(pt_rec_head)) < 0)
		return finish(log, ev, PT_LOG_ERROR, cur_offset(log));
	size_t n = avail(log);
	uint64_t off = cur_offset(log);
	const uint8_t *p = log->buf + log->start;
	if (log->shorts && n >= sizeof(uint16_t) && (p[0] & PT_COMPACT_FLAG)) {
		uint16_t half;
		memcpy(&half, p, sizeof half);
		if (pt_short_is(p[0])) {
			if (!log->last_func_as)
				return fail(
				    log, ev, off,
				    "short function record without a function record before it");
			return deliver_short(log, ev, half);
		}
		if (half == PT_PAD16) {
			if (!(off & 7))
				return fail(log, ev, off,
				            "pad at an offset that is a multiple of 8");
			log->start += sizeof half; /* filler before an aligned record */
			log->pad += sizeof half;
			goto again;
		}
	}
	if (log->compact && n >= sizeof(uint32_t) && (p[0] & PT_COMPACT_FLAG)) {
		uint32_t word;
		memcpy(&word, p, sizeof word);
		if (pt_compact_is_func(word))
			return deliver_compact(log, ev, word);
		if (pt_compact_is_lock(word, log->hdr.version_major)) {
			/* the 16-byte form, with the object acquired last */
			if (!log->have_acquired)
				return fail(log, ev, off, "compact %s without a LOCK_ACQUIRED before it",
					    pt_rec_kind_name(word & 0x7f));
			pt_rec_head h = pt_compact_lock_head(word);
			memcpy(&log->expanded[0], &h, sizeof h);
			log->expanded[1] = log->last_acquired;
			return deliver(log, ev, (const uint8_t *)log->expanded, h, sizeof word);
		}
		size_t csize = log->mpi_compact ? pt_mpi_compact_size(word) : 0;
		if (csize) {
			if (fill(log, csize) < 0)
				return finish(log, ev, PT_LOG_ERROR, off);
			if (avail(log) < csize)
				return need_more(log, ev, avail(log));
			return deliver_mpi_compact(log, ev, log->buf + log->start, word, csize,
			                           off);
		}
		csize = log->io_compact ? pt_io_compact_size(word) : 0;
		if (csize) {
			if (fill(log, csize) < 0)
				return finish(log, ev, PT_LOG_ERROR, off);
			if (avail(log) < csize)
				return need_more(log, ev, avail(log));
			return deliver_io_compact(log, ev, log->buf + log->start, word, csize,
			                          off);
		}
		if (word != PT_COMPACT_PAD || log->shorts)
			return fail(log, ev, off, "unknown compact record 0x%08x", word);
		if (!(off & 4))
			return fail(log, ev, off, "pad word at an offset that is a multiple of 8");
		log->start += sizeof word; /* filler before an aligned record */
		log->pad = sizeof word;
		goto again;
	}
	if (n < sizeof(pt_rec_head)) {
		/* A short zero tail is the end marker cut by the file's end. */
		int zeros = 1;
		for (size_t i = 0; i < n; i++)
			zeros &= p[i] == 0;
		if (n > 0 && zeros && log->input_done)
			return end_of_data(log, ev);
		return need_more(log, ev, n);
	}
	pt_rec_head h;
	memcpy(&h, p, sizeof h);
	if (h.kind == PT_REC_END) {
		if (h.arg == 0 && h.size8 == 0 && h.delta == 0)
			return end_of_data(log, ev);
		/* A live writer may have stored part of a head; otherwise a
		 * non-zero head without a kind is damage, not the end marker. */
		if (log->fd != PT_LOG_FD_NONE && (log->flags & PT_LOG_FOLLOW))
			return end_of_data(log, ev);
		return fail(log, ev, off, "record head with kind 0 but non-zero fields");
	}
	size_t size = pt_rec_size(&h);
	if (size == 0)
		return fail(log, ev, off, "record of kind %u (%s) has size 0", h.kind,
			    pt_rec_kind_name(h.kind));
	/* Readers cast payloads to their structs: only function records, which
	 * have none, may start between two multiples of 8. */
	if ((off & 7) && !pt_rec_is_func(h.kind))
		return fail(log, ev, off, "%s record at an offset that is not a multiple of 8",
			    pt_rec_kind_name(h.kind));
	if (fill(log, size) < 0)
		return finish(log, ev, PT_LOG_ERROR, off);
	if (avail(log) < size)
		return need_more(log, ev, avail(log));
	p = log->buf + log->start;
	long minp = min_payload(&h);
	if (minp >= 0 && size < sizeof(pt_rec_head) + (size_t)minp)
		return fail(log, ev, off, "%s record too small (%zu bytes, needs %zu)",
			    pt_rec_kind_name(h.kind), size, sizeof(pt_rec_head) + (size_t)minp);
	if (h.kind == PT_REC_MODULE_MAP) {
		const pt_rec_module_map *mm = (const pt_rec_module_map *)(p + sizeof h);
		if (mm->build_id_len > size - sizeof h - sizeof *mm)
			return fail(log, ev, off, "MODULE_MAP build id length %u exceeds the record",
				    mm->build_id_len);
	}
	if (h.kind == PT_REC_LOCK_ACQUIRED) {
		memcpy(&log->last_acquired, p + sizeof h, sizeof log->last_acquired);
		log->have_acquired = 1;
	} else if (h.kind == PT_REC_LOCK_RELEASED && size == sizeof h) {
		if (!log->have_acquired)
			return fail(log, ev, off,
				    "LOCK_RELEASED without an object and no LOCK_ACQUIRED before it");
		pt_rec_head full = h;
		full.size8 = 2;
		memcpy(&log->expanded[0], &full, sizeof full);
		log->expanded[1] = log->last_acquired;
		deliver(log, ev, p, h, size);
		ev->rec = (const pt_rec_head *)(const void *)log->expanded;
		return 0;
	}
	if (pt_rec_is_func_pc(h.kind)) {
		memcpy(&log->last_func, p + sizeof h, sizeof log->last_func);
		log->last_func_as = PT_REC_FUNC_ENTER_PC;
	} else if (h.kind == PT_REC_LOST) {
		log->last_func_as = 0; /* what was lost may have been a function record */
		log->have_call = 0;    /* or an MPI_CALL */
		log->have_alloc = 0;   /* or a MEM_ALLOC */
	} else if (pt_rec_is_func(h.kind)) {
		return deliver_func(log, ev, h);
	} else if (h.kind == PT_REC_MPI_CALL) {
		int r = deliver(log, ev, p, h, size);
		log->have_call = 1;
		log->call = h.arg;
		log->call_ticks = log->ticks;
		return r;
	} else if (log->mpi_compact && pt_mpi_repeat_slot(h.kind) >= 0) {
		mpi_remember(log, h.kind, p + sizeof h);
	} else if (h.kind == PT_REC_MEM_ALLOC) {
		memcpy(&log->last_alloc, p + sizeof h, sizeof log->last_alloc); /* its ptr */
		log->have_alloc = 1;
	} else if (h.kind == PT_REC_FUNC_LANDED) {
		/* its id where a FUNC_ENTER's is; not the previous function
		 * record of a short one (format.h) */
		int r = deliver(log, ev, p, h, size);
		memcpy(&ev->func_id, p + sizeof h, sizeof ev->func_id);
		return r;
	}
	return deliver(log, ev, p, h, size);
}

const char *pt_rec_kind_name(unsigned kind)
{
	if (kind < sizeof kinds / sizeof kinds[0] && kinds[kind].name)
		return kinds[kind].name;
	return "UNKNOWN";
}

const char *pt_event_string(const pt_event *ev, size_t offset)
{
	if (!ev || !ev->rec || ev->size < sizeof(pt_rec_head))
		return NULL;
	size_t payload = ev->size - sizeof(pt_rec_head);
	if (offset >= payload)
		return NULL;
	const char *s = (const char *)(ev->rec + 1) + offset;
	if (!memchr(s, '\0', payload - offset))
		return NULL;
	return s;
}

const char *pt_event_thread_name(const pt_event *ev, uint32_t *tid)
{
	*tid = 0;
	const char *s = ev->kind == PT_REC_THREAD_NAME ? pt_event_string(ev, 0) : NULL;
	if (!s || ev->rec->arg != PT_THREAD_NAME_TID)
		return s;
	size_t payload = ev->size - sizeof(pt_rec_head);
	size_t at = (strlen(s) + 1 + 3) & ~(size_t)3;
	if (at + sizeof *tid > payload)
		return NULL;
	memcpy(tid, (const char *)(ev->rec + 1) + at, sizeof *tid);
	return *tid ? s : NULL;
}
