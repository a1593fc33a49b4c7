/* SPDX-License-Identifier: MIT */
/* Temporary sorted streams of .prv lines (pv_merge.c merges them).
 *
 * A stream file is a sequence of records, keys non-decreasing:
 *   [op: 1 byte][key - previous key: LEB128] then, by op,
 *   PV_OP_FUNC   [function id: LEB128]   -> ":60000019:id:60000119:id\n"
 *                (id 0 is an exit: the same line with 0, which Paraver
 *                 reads as "outside any function")
 *   PV_OP_TEXT   [u16 length][the text]
 *   PV_OP_POP    [n: LEB128]             -> n times ":60000019:0:60000119:0", "\n"
 *                (frames that end together: unwound, or at the log's end)
 *   PV_OP_CUT    [n: LEB128][u16 length][the text]
 *                (a text line that ends n frames cut by lost data)
 *   PV_OP_SYNC   [kind: 1 byte][object: LEB128][u16 length][the text]
 *                (a synchronization call's line, pv_codec.h)
 *   PV_OP_CALL   [kind: 1 byte][family: LEB128][states: LEB128][n: 1 byte]
 *                [n tallies: LEB128][u16 length][the text]
 *                (a family call's line, pv.h)
 * so the most common lines take 3 to 6 bytes on disk (the temporary files
 * are written once and read back once: their size is CPU time). The
 * line's text is the expansion (after prefix and key). Every
 * PV_INDEX_STEP bytes the writer notes (key, offset, text bytes before,
 * previous key) in memory: the merge uses these notes to cut the whole
 * time range into partitions of similar size and to find, for each
 * stream, the exact offset (and the key there, as deltas need it) where
 * each partition starts. Because the text bytes before every cut are
 * known, each partition's place in the final file is known before
 * merging, so workers merge partitions in parallel and pwrite() them in
 * place. Ties: equal keys come out in stream order, then file order, so
 * the result does not depend on -j.
 */
#define _GNU_SOURCE
#include "pv_codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#define PV_INDEX_STEP (16u << 10)
#define PV_STREAM_BUF (64u << 10)

#define PV_POOL_BUF (1u << 20)

int pv_pool_open(pv_pool *p, const char *path)
{
	memset(p, 0, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
	p->path = strdup(path);
	p->fd = p->path ? open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
	return p->fd < 0 ? -1 : 0;
}


/* Under p->lock. */
static void pool_write_buffer(pv_pool *p)
{
	if (p->used && !p->error)
		p->error = pv_write_at(p->fd, p->buf, p->used, p->size - p->used);
	p->used = 0;
}

int pv_pool_flush(pv_pool *p)
{
	pthread_mutex_lock(&p->lock);
	pool_write_buffer(p);
	int rc = p->error ? -1 : 0;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* Appends n bytes; returns where they start in the pool's file. Small
 * runs of many threads are gathered into large writes. */
static uint64_t pool_append(pv_pool *p, const char *data, size_t n, int *error)
{
	pthread_mutex_lock(&p->lock);
	uint64_t at = p->size;
	if (!p->buf && !(p->buf = malloc(PV_POOL_BUF)))
		p->error = ENOMEM;
	else
		p->cap = PV_POOL_BUF;
	if (p->used + n > p->cap)
		pool_write_buffer(p);
	if (p->error) {
		*error = p->error;
	} else if (n > p->cap) {
		*error = pv_write_at(p->fd, data, n, at);
	} else {
		memcpy(p->buf + p->used, data, n);
		p->used += n;
	}
	p->size += n;
	pthread_mutex_unlock(&p->lock);
	return at;
}

void pv_pool_free(pv_pool *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->path)
		unlink(p->path);
	free(p->path);
	free(p->buf);
	pthread_mutex_destroy(&p->lock);
	memset(p, 0, sizeof *p);
	p->fd = -1;
}

int pv_stream_open(pv_stream *s, const char *path, const char *prefix)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (prefix) {
		s->prefix_len = strlen(prefix);
		if (s->prefix_len > PV_RUN_PREFIX_MAX) {
			s->error = EINVAL;
			return -1;
		}
		memcpy(s->prefix, prefix, s->prefix_len);
	}
	s->path = strdup(path);
	s->cap = PV_STREAM_BUF + PV_REC_MAX + 8;
	s->buf = malloc(s->cap);
	if (!s->path || !s->buf) {
		s->error = ENOMEM;
		return -1;
	}
	return 0;
}

int pv_write_at(int fd, const char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static void flush(pv_stream *s)
{
	if (s->fd < 0 && !s->error) {
		s->fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (s->fd < 0)
			s->error = errno;
		s->created = s->fd >= 0;
	}
	if (!s->error)
		s->error = pv_write_at(s->fd, s->buf, s->used, s->off - s->used);
	s->used = 0;
}

static uint64_t pow10_u64(unsigned n)
{
	uint64_t p = 1;
	while (n--)
		p *= 10;
	return p;
}

/* Starts a record at buf + used: op and key delta. Returns where its
 * payload goes. The record is counted by end_rec(). */
static inline uint8_t *begin_rec(pv_stream *s, uint64_t key, unsigned op)
{
	if (s->used > PV_STREAM_BUF)
		flush(s);
	uint64_t prev = s->last_key;
	if (key < s->min_key)
		key = s->min_key;
	s->last_key = key;
	s->min_key = key + s->strict;
	if (s->off >= s->next_index) {
		if (s->nidx == s->capidx) {
			/* most streams (short threads) have one or two notes */
			size_t ncap = s->capidx ? s->capidx * 2 : 2;
			pv_index_ent *n = realloc(s->idx, ncap * sizeof *n);
			if (!n) {
				s->error = ENOMEM; /* keep going; reported at finish */
				s->next_index = UINT64_MAX;
				goto head;
			}
			s->idx = n;
			s->capidx = ncap;
		}
		s->idx[s->nidx++] = (pv_index_ent){key, s->off, s->text, prev};
		s->next_index = s->off + PV_INDEX_STEP;
	}
head:;
	uint8_t *p = (uint8_t *)s->buf + s->used;
	*p++ = (uint8_t)op;
	return put_leb(p, key - prev);
}

static inline void end_rec(pv_stream *s, const uint8_t *end, size_t text)
{
	size_t n = (size_t)((const char *)end - (s->buf + s->used));
	s->used += n;
	s->off += n;
	s->text += text;
	if (s->prefix_len) {
		/* keys never decrease: their digit count changes rarely */
		if (s->last_key >= s->key_digits_below) {
			s->key_digits = pv_digits(s->last_key);
			s->key_digits_below = s->key_digits >= 20 ? UINT64_MAX : pow10_u64(s->key_digits);
		}
		s->text += s->prefix_len + s->key_digits;
	}
	s->nrec++;
}

char *pv_stream_reserve(pv_stream *s, uint64_t key)
{
	uint8_t *p = begin_rec(s, key, PV_OP_TEXT);
	s->text_at = (size_t)((char *)p - s->buf) + 2;
	return s->buf + s->text_at;
}

void pv_stream_commit(pv_stream *s, size_t len)
{
	uint16_t l = (uint16_t)len;
	memcpy(s->buf + s->text_at - 2, &l, 2);
	end_rec(s, (const uint8_t *)s->buf + s->text_at + len, len);
}

void pv_stream_func(pv_stream *s, uint64_t key, uint32_t id)
{
	uint8_t *p = begin_rec(s, key, PV_OP_FUNC);
	end_rec(s, put_leb(p, id), func_text_len(id));
}

void pv_stream_pop(pv_stream *s, uint64_t key, uint32_t n)
{
	uint8_t *p = begin_rec(s, key, PV_OP_POP);
	end_rec(s, put_leb(p, n), n * PV_POP_PAIR_LEN + 1);
}

char *pv_stream_reserve_cut(pv_stream *s, uint64_t key, uint32_t n)
{
	uint8_t *p = put_leb(begin_rec(s, key, PV_OP_CUT), n);
	s->text_at = (size_t)((char *)p - s->buf) + 2;
	return s->buf + s->text_at;
}

char *pv_stream_reserve_sync(pv_stream *s, uint64_t key, unsigned kind, uint32_t obj)
{
	uint8_t *p = begin_rec(s, key, PV_OP_SYNC);
	*p++ = (uint8_t)kind;
	p = put_leb(p, obj);
	s->text_at = (size_t)((char *)p - s->buf) + 2;
	return s->buf + s->text_at;
}

char *pv_stream_reserve_call(pv_stream *s, uint64_t key, unsigned kind, unsigned family,
                             uint32_t aux, size_t n, const uint64_t *tally)
{
	uint8_t *p = begin_rec(s, key, PV_OP_CALL);
	*p++ = (uint8_t)kind;
	p = put_leb(p, family);
	p = put_leb(p, aux);
	*p++ = (uint8_t)n;
	for (size_t i = 0; i < n; i++)
		p = put_leb(p, tally[i]);
	s->text_at = (size_t)((char *)p - s->buf) + 2;
	return s->buf + s->text_at;
}

int pv_stream_finish(pv_stream *s, pv_pool *pool, pv_run *run)
{
	memset(run, 0, sizeof *run);
	if (s->buf && s->fd < 0 && pool && !s->error) {
		/* never flushed: to the pool, read from its start by the merge */
		run->pool = pool;
		run->base = pool_append(pool, s->buf, s->used, &s->error);
	} else if (s->buf && !s->error) {
		flush(s);
	}
	if (s->fd >= 0) {
		if (close(s->fd) && !s->error)
			s->error = errno;
		s->fd = -1;
	}
	run->off = s->off;
	run->text = s->text;
	run->nrec = s->nrec;
	run->first_key = s->nidx ? s->idx[0].key : 0;
	run->last_key = s->last_key;
	run->prefix_len = (uint8_t)s->prefix_len;
	memcpy(run->prefix, s->prefix, s->prefix_len);
	if (!run->pool) {
		run->path = s->path; /* the file is the run's now */
		s->path = NULL;
		s->created = 0;
		run->idx = s->idx;
		run->nidx = (uint32_t)s->nidx;
		s->idx = NULL;
	}
	int rc = s->error ? -1 : 0;
	int e = s->error;
	pv_stream_free(s);
	s->error = e;
	return rc;
}

void pv_stream_free(pv_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->created)
		unlink(s->path);
	free(s->path);
	free(s->buf);
	free(s->idx);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

void pv_run_free(pv_run *r)
{
	if (r->path)
		unlink(r->path);
	free(r->path);
	free(r->idx);
	memset(r, 0, sizeof *r);
}
