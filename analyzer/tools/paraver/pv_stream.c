/* Temporary sorted streams of .prv lines (pv_merge.c merges them).
 *
 * A stream file is a sequence of records, keys non-decreasing:
 *   [op: 1 byte][key - previous key: LEB128] then, by op,
 *   PV_OP_FUNC   [function id: LEB128]   -> ":60000019:id:60000119:id\n"
 *                (id 0 is an exit: the same line with 0, which Paraver
 *                 reads as "outside any function")
 *   PV_OP_TEXT   [u16 length][the text]
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
#include <unistd.h>

#define PV_INDEX_STEP (16u << 10)
#define PV_STREAM_BUF (64u << 10)

int pv_stream_open(pv_stream *s, const char *path, const char *prefix)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (prefix) {
		s->prefix_len = strlen(prefix);
		if (s->prefix_len >= sizeof s->prefix)
			s->prefix_len = sizeof s->prefix - 1;
		memcpy(s->prefix, prefix, s->prefix_len);
	}
	s->path = strdup(path);
	s->cap = PV_STREAM_BUF + PV_REC_MAX + 8;
	s->buf = malloc(s->cap);
	if (!s->path || !s->buf) {
		s->error = ENOMEM;
		return -1;
	}
	s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		s->error = errno;
		return -1;
	}
	return 0;
}

static void flush(pv_stream *s)
{
	size_t done = 0;
	while (done < s->used && !s->error) {
		ssize_t n = write(s->fd, s->buf + done, s->used - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			s->error = errno;
			break;
		}
		done += (size_t)n;
	}
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
			size_t ncap = s->capidx ? s->capidx * 2 : 64;
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

int pv_stream_finish(pv_stream *s)
{
	if (s->fd >= 0) {
		flush(s);
		if (close(s->fd) && !s->error)
			s->error = errno;
		s->fd = -1;
	}
	free(s->buf);
	s->buf = NULL;
	return s->error ? -1 : 0;
}

void pv_stream_free(pv_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->path)
		unlink(s->path);
	free(s->path);
	free(s->buf);
	free(s->idx);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}
