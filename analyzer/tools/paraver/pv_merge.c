/* SPDX-License-Identifier: MIT */
/* The parallel k-way merge of the runs (finished temporary streams) into
 * NAME.prv (their format and the index notes: pv_stream.c).
 *
 * Time is cut into partitions of similar size at keys taken from the runs'
 * index notes (and at most ~1,000 starting runs each); pv_partition.c
 * finds where each partition starts in each run, so each partition's place
 * in the output is known before merging: workers merge partitions in
 * parallel (a loser tree over the partition's cursors) and pwrite() them in
 * place (--gz: gzip members, written in order). Ties: equal keys come out
 * in run order, then file order, so the result does not depend on -j. */
#define _GNU_SOURCE
#include "pv_merge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

typedef struct cursor {
	int fd;
	size_t cap;        /* of buf: the range, up to CURSOR_BUF */
	uint64_t base;     /* where the stream starts in fd's file */
	uint64_t off, end; /* stream range still to read */
	char *buf;
	size_t pos, len; /* undecoded bytes: buf[pos, len) */
	/* The current record and, decoded ahead, the one after it: the merge
	 * replays its tree with nx's key while it writes r, so decoding is
	 * off the chain of dependent steps from one line to the next. */
	rec r, nx;
	int has_nx;
	size_t keep, nx_at; /* buf offsets where r and nx start (a refill keeps r) */
	const char *path;
	const char *prefix; /* NULL: the stored text is the whole line; else prefix_buf */
	size_t prefix_len;
	/* out_line copies it whole, a fixed size, whatever its length */
	char prefix_buf[sizeof((pv_stream *)0)->prefix];
	int error;
} cursor;

#define CURSOR_BUF (32u << 10)

/* Reads more of the range, keeping the bytes from the current record on
 * (its text may be written still). 0, or -1 (error set). */
static int cursor_refill(cursor *c)
{
	size_t from = c->keep;
	size_t avail = c->len - from;
	memmove(c->buf, c->buf + from, avail);
	if (c->r.op != PV_OP_FUNC && c->r.op != PV_OP_POP && c->r.text)
		c->r.text -= from;
	c->pos -= from;
	c->nx_at -= from; /* nx follows r: nx_at >= keep */
	c->keep = 0;
	c->len = avail;
	size_t want = c->cap - avail;
	if (want > c->end - c->off)
		want = (size_t)(c->end - c->off);
	/* without a shared descriptor (too many streams for the fd limit)
	 * the file is opened for each refill */
	int fd = c->fd >= 0 ? c->fd : open(c->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		c->error = errno;
		return -1;
	}
	while (want) {
		ssize_t n = pread(fd, c->buf + c->len, want, (off_t)(c->base + c->off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			c->error = n < 0 ? errno : EIO;
			break;
		}
		c->len += (size_t)n;
		c->off += (uint64_t)n;
		want -= (size_t)n;
	}
	if (fd != c->fd)
		close(fd);
	return c->error ? -1 : 0;
}

/* Decodes the record at pos (after key `prev`) into *into: 0, or 1 at the
 * end of the range or on an error (c->error). */
static inline int cursor_decode(cursor *c, rec *into, uint64_t prev)
{
	if (c->len - c->pos < PV_REC_MAX && c->off < c->end && cursor_refill(c))
		return 1;
	if (c->pos == c->len)
		return 1;
	const uint8_t *p = (const uint8_t *)c->buf + c->pos;
	long n = rec_decode(p, (const uint8_t *)c->buf + c->len, prev, into);
	if (n <= 0) {
		c->error = EIO; /* damaged, or cut short: the file was written whole */
		return 1;
	}
	c->pos += (size_t)n;
	return 0;
}

/* The range's first record and the one after it; r.key holds the key
 * before the range. 0, or 1 (c->error) when there is no first record. */
static int cursor_first(cursor *c)
{
	c->keep = c->nx_at = c->pos;
	if (cursor_decode(c, &c->r, c->r.key))
		return 1;
	c->nx_at = c->pos;
	c->has_nx = !cursor_decode(c, &c->nx, c->r.key);
	return 0;
}

/* The decoded-ahead record becomes current, and the next one is decoded.
 * Errors show in c->error. */
static inline void cursor_next(cursor *c)
{
	c->r = c->nx;
	c->keep = c->nx_at;
	c->nx_at = c->pos;
	c->has_nx = !cursor_decode(c, &c->nx, c->r.key);
}

/* ---- merge ----------------------------------------------------------- */
static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* "00".."99"; one extra byte so a one-digit number can be read at 2v + 1 */
static const char pv_pairs[201] = "0001020304050607080910111213141516171819"
                                  "2021222324252627282930313233343536373839"
                                  "4041424344454647484950515253545556575859"
                                  "6061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

typedef struct out_buf {
	merge *m;
	char *buf;
	size_t used, cap;
	uint64_t off; /* plain: where the next flush goes */
	/* the last key written: the merged output's keys increase slowly, so
	 * the digits above the last four are usually the same as before */
	uint64_t khi; /* key / 10000 */
	char kdig[24];
	unsigned klen; /* 0: nothing cached */
	z_stream z;
	char *zout;
	size_t zlen, zcap;
	int error;
} out_buf;

static void out_flush(out_buf *o, int finish)
{
	if (!o->m->gz) {
		if (o->used && !o->error)
			o->error = pv_write_at(o->m->fd, o->buf, o->used, o->off);
		o->off += o->used;
		o->used = 0;
		return;
	}
	o->z.next_in = (Bytef *)o->buf;
	o->z.avail_in = (uInt)o->used;
	for (;;) {
		if (o->zcap - o->zlen < 65536) {
			size_t ncap = o->zcap ? o->zcap * 2 : (1u << 20);
			char *n = realloc(o->zout, ncap);
			if (!n) {
				o->error = ENOMEM;
				break;
			}
			o->zout = n;
			o->zcap = ncap;
		}
		o->z.next_out = (Bytef *)o->zout + o->zlen;
		o->z.avail_out = (uInt)(o->zcap - o->zlen);
		int rc = deflate(&o->z, finish ? Z_FINISH : Z_NO_FLUSH);
		o->zlen = o->zcap - o->z.avail_out;
		if (rc == Z_STREAM_END || (!finish && o->z.avail_in == 0))
			break;
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			o->error = EIO;
			break;
		}
	}
	o->used = 0;
}

static inline void out_put(out_buf *o, const char *p, size_t n)
{
	if (o->used + n > o->cap)
		out_flush(o, 0);
	memcpy(o->buf + o->used, p, n);
	o->used += n;
}

/* One line of the cursor's current record. */
static inline void out_line(out_buf *o, const cursor *c)
{
	/* Fixed-size copies of the prefix and the cached digits (whole
	 * arrays, the excess overwritten next) avoid a libc call per line:
	 * hence the room asked for is the arrays' sizes, not the lengths. */
	size_t text_max = c->r.op == PV_OP_FUNC  ? PV_FUNC_TEXT_MAX
	                  : c->r.op == PV_OP_POP ? PV_POP_MAX * PV_POP_PAIR_LEN + 1
	                                         : c->r.tlen;
	if (o->used + sizeof((pv_stream *)0)->prefix + sizeof o->kdig + text_max > o->cap)
		out_flush(o, 0);
	char *p = o->buf + o->used;
	if (c->prefix) {
		memcpy(p, c->prefix, sizeof((pv_stream *)0)->prefix);
		p += c->prefix_len;
		uint64_t key = c->r.key, hi = key / 10000;
		if (hi && hi == o->khi && o->klen) {
			/* same leading digits: copy them, write the last four */
			unsigned lo = (unsigned)(key % 10000);
			memcpy(p, o->kdig, sizeof o->kdig);
			p += o->klen - 4;
			memcpy(p, pv_pairs + 2 * (lo / 100), 2);
			memcpy(p + 2, pv_pairs + 2 * (lo % 100), 2);
			p += 4;
		} else {
			char *q = p;
			p = pv_u64(p, key);
			if (hi && p - q <= (long)sizeof o->kdig) {
				o->khi = hi;
				o->klen = (unsigned)(p - q);
				memcpy(o->kdig, q, o->klen);
			} else
				o->klen = 0;
		}
	}
	switch (c->r.op) {
	case PV_OP_FUNC: {
		uint32_t id = c->r.id;
		memcpy(p, ":60000019:", 10);
		p += 10;
		if (id < 100) {
			/* No branch on the digit count (exits, 0, and small ids mix),
			 * and both copies stored from a register: reading the first
			 * copy back would stall on the store just made. */
			unsigned one = id < 10;
			char two[2];
			memcpy(two, pv_pairs + 2 * id + one, 2);
			memcpy(p, two, 2);
			p += 2 - one;
			memcpy(p, ":60000119:", 10);
			memcpy(p + 10, two, 2);
			p += 12 - one;
		} else {
			p = pv_u64(p, id);
			memcpy(p, ":60000119:", 10);
			p = pv_u64(p + 10, id);
		}
		*p++ = '\n';
		break;
	}
	case PV_OP_POP:
		for (uint32_t i = 0; i < c->r.id; i++, p += PV_POP_PAIR_LEN)
			memcpy(p, PV_POP_PAIR, PV_POP_PAIR_LEN);
		*p++ = '\n';
		break;
	default:
		memcpy(p, c->r.text, c->r.tlen);
		p += c->r.tlen;
	}
	o->used = (size_t)(p - o->buf);
}

/* Tournament (loser) trees over a partition's cursors: one comparison per
 * level when the winner advances. Keys live in the tree's own array, so
 * comparing does not chase cursor pointers. Each key is packed with its
 * leaf number, (key << bits) | leaf, so one unsigned comparison orders by
 * time and breaks ties by leaf, i.e. by stream order; an exhausted cursor
 * has UINT64_MAX, above every packed key. A tree whose keys do not fit
 * the packing (times past 2^(64 - bits) ns, i.e. traces of weeks) compares
 * the key and then the leaf instead. The cursors are split in two trees:
 * the big streams (the threads' events) and the small ones (states,
 * communications, whose records are rare), so most records climb a
 * shallower tree and the pick between the two trees' winners is a
 * well-predicted branch. */
typedef struct ltree {
	uint64_t *key;   /* [K]: key of leaf i, packed when `packed` */
	uint32_t *loser; /* [K]: internal nodes 1..K-1 */
	uint32_t *win;   /* [2K]: scratch for building */
	uint32_t *leaf;  /* [K]: cursor index of leaf i (increasing) */
	size_t K, n, alive;
	uint32_t w;    /* winning leaf */
	unsigned bits; /* log2(K) */
	int packed;
} ltree;

/* Branch-free: which stream comes next is unpredictable, so branches on
 * it would mostly be mispredicted. Leaf order is cursor order. */
static inline int lt_less(const ltree *t, uint32_t a, uint32_t b)
{
	uint64_t ka = t->key[a], kb = t->key[b];
	if (t->packed)
		return ka < kb;
	return (ka < kb) | ((ka == kb) & (a < b));
}

static inline uint64_t lt_key(const ltree *t, uint32_t leaf, uint64_t key)
{
	return t->packed ? key << t->bits | leaf : key;
}

/* The time of the winning leaf (the tree has a live leaf). */
static inline uint64_t lt_win_key(const ltree *t)
{
	return t->packed ? t->key[t->w] >> t->bits : t->key[t->w];
}

static void lt_build(ltree *t, const cursor *cur, uint64_t max_key)
{
	size_t K = 1;
	unsigned bits = 0;
	while (K < t->n) {
		K <<= 1;
		bits++;
	}
	t->K = K;
	t->bits = bits;
	t->packed = max_key < (UINT64_MAX >> bits);
	t->alive = t->n;
	for (size_t i = 0; i < K; i++) {
		t->key[i] = i < t->n ? lt_key(t, (uint32_t)i, cur[t->leaf[i]].r.key) : UINT64_MAX;
		t->win[K + i] = (uint32_t)i;
	}
	for (size_t n = K - 1; n >= 1; n--) {
		uint32_t a = t->win[2 * n], b = t->win[2 * n + 1];
		if (lt_less(t, a, b)) {
			t->win[n] = a;
			t->loser[n] = b;
		} else {
			t->win[n] = b;
			t->loser[n] = a;
		}
	}
	t->w = K > 1 ? t->win[1] : 0;
}

/* The winner's cursor moves on to a record with key `key`, or ended:
 * replay its path. */
static inline void lt_replay(ltree *t, uint64_t next_key, int ended)
{
	uint32_t w = t->w;
	if (ended) {
		t->key[w] = UINT64_MAX;
		t->alive--;
	} else
		t->key[w] = lt_key(t, w, next_key);
	uint32_t x = w;
	const uint64_t *key = t->key;
	uint32_t *loser = t->loser;
	if (t->packed) {
		uint64_t kx = key[x];
		for (size_t n = (t->K + w) >> 1; n; n >>= 1) {
			uint32_t l = loser[n];
			uint64_t kl = key[l];
			/* all ones when the loser there wins: they swap */
			uint64_t sw = (uint64_t)0 - (uint64_t)(kl < kx);
			uint32_t sw32 = (uint32_t)sw;
			loser[n] = (x & sw32) | (l & ~sw32);
			x = (l & sw32) | (x & ~sw32);
			kx = (kl & sw) | (kx & ~sw);
		}
	} else {
		for (size_t n = (t->K + w) >> 1; n; n >>= 1) {
			uint32_t l = loser[n];
			uint32_t sw = (uint32_t)0 - (uint32_t)lt_less(t, l, x); /* all ones: swap */
			loser[n] = (x & sw) | (l & ~sw);
			x = (l & sw) | (x & ~sw);
		}
	}
	t->w = x;
}

/* A worker's room for one partition: its cursors, their buffers (each the
 * size of the cursor's range, up to CURSOR_BUF: a partition of 25,000
 * short streams takes what they hold, not 25,000 times 32 KB), the trees. */
typedef struct merge_space {
	cursor *cur;
	size_t ncur;
	char *bufs;
	size_t nbufs;
	ltree big, small;
	size_t K;
} merge_space;

static int grow_space(merge_space *sp, size_t nh, size_t bytes)
{
	if (nh > sp->ncur) {
		cursor *c = realloc(sp->cur, nh * sizeof *c);
		if (!c)
			return -1;
		sp->cur = c;
		sp->ncur = nh;
	}
	if (bytes > sp->nbufs) {
		char *b = realloc(sp->bufs, bytes);
		if (!b)
			return -1;
		sp->bufs = b;
		sp->nbufs = bytes;
	}
	size_t K = 1;
	while (K < nh)
		K <<= 1;
	for (ltree *t = &sp->big; K > sp->K && t; t = t == &sp->big ? &sp->small : NULL) {
		uint64_t *key = realloc(t->key, K * sizeof *key);
		if (key)
			t->key = key;
		uint32_t *loser = realloc(t->loser, K * sizeof *loser);
		if (loser)
			t->loser = loser;
		uint32_t *win = realloc(t->win, 2 * K * sizeof *win);
		if (win)
			t->win = win;
		uint32_t *leaf = realloc(t->leaf, K * sizeof *leaf);
		if (leaf)
			t->leaf = leaf;
		if (!key || !loser || !win || !leaf)
			return -1;
	}
	if (K > sp->K)
		sp->K = K;
	return 0;
}

static void free_space(merge_space *sp)
{
	free(sp->cur);
	free(sp->bufs);
	for (ltree *t = &sp->big; t; t = t == &sp->big ? &sp->small : NULL) {
		free(t->key);
		free(t->loser);
		free(t->win);
		free(t->leaf);
	}
}

static int merge_part(merge *m, size_t p, merge_space *sp, out_buf *o)
{
	size_t nh = 0, bytes = 0;
	uint64_t most = m->most, max_key = m->max_key;
	for (size_t i = m->in_first[p]; i < m->in_first[p + 1]; i++) {
		size_t s = m->in[i];
		uint64_t len = cut_at(m, p + 1, s).off - cut_at(m, p, s).off;
		if (len) {
			nh++;
			bytes += len < CURSOR_BUF ? (size_t)len : CURSOR_BUF;
		}
	}
	if (grow_space(sp, nh, bytes))
		return ENOMEM;
	ltree *big = &sp->big, *small = &sp->small;
	big->n = small->n = 0;
	nh = bytes = 0;
	int err = 0;
	for (size_t i = m->in_first[p]; i < m->in_first[p + 1]; i++) {
		size_t s = m->in[i];
		const pv_run *st = &m->runs[s];
		cut a = cut_at(m, p, s);
		uint64_t b = cut_at(m, p + 1, s).off;
		if (a.off >= b)
			continue;
		cursor *c = &sp->cur[nh];
		memset(c, 0, sizeof *c);
		c->fd = m->fds[s];
		c->base = st->base;
		c->path = st->path;
		c->off = a.off;
		c->end = b;
		c->cap = b - a.off < CURSOR_BUF ? (size_t)(b - a.off) : CURSOR_BUF;
		c->buf = sp->bufs + bytes;
		bytes += c->cap;
		memcpy(c->prefix_buf, st->prefix, st->prefix_len);
		c->prefix = st->prefix_len ? c->prefix_buf : NULL;
		c->prefix_len = st->prefix_len;
		c->r.key = a.prev; /* the first delta's base */
		if (cursor_first(c)) {
			err = c->error ? c->error : EIO;
			break;
		}
		ltree *t = st->nrec * 64 >= most ? big : small;
		t->leaf[t->n++] = (uint32_t)nh;
		nh++;
	}
	if (!err && nh) {
		cursor *cur = sp->cur;
		lt_build(big, cur, max_key);
		lt_build(small, cur, max_key);
		while (big->alive + small->alive) {
			ltree *t = big;
			if (!big->alive)
				t = small;
			else if (small->alive) {
				uint64_t kb = lt_win_key(big), ks = lt_win_key(small);
				if (ks < kb ||
				    (ks == kb && small->leaf[small->w] < big->leaf[big->w]))
					t = small;
			}
			cursor *c = &cur[t->leaf[t->w]];
			int more = c->has_nx;
			lt_replay(t, c->nx.key, !more);
			out_line(o, c);
			if (more)
				cursor_next(c);
			if (c->error) {
				err = c->error;
				break;
			}
		}
	}
	return err;
}

typedef struct worker_arg {
	merge *m;
} worker_arg;

static void *merge_worker(void *arg)
{
	merge *m = arg;
	merge_space sp;
	memset(&sp, 0, sizeof sp);
	out_buf o;
	memset(&o, 0, sizeof o);
	o.m = m;
	o.cap = 1u << 20;
	o.buf = malloc(o.cap);
	if (!o.buf) {
		__atomic_store_n(&m->error, ENOMEM, __ATOMIC_RELAXED);
		goto out;
	}
	for (;;) {
		size_t p = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);
		if (p >= m->nparts || __atomic_load_n(&m->error, __ATOMIC_RELAXED))
			break;
		if (p % m->sel_n != m->sel_k)
			continue; /* another analyzer process's */
		o.off = m->out_off[p];
		o.used = 0;
		o.error = 0;
		o.klen = 0;
		if (m->gz) {
			memset(&o.z, 0, sizeof o.z);
			/* 15 + 16: a gzip member per partition; readers (zlib's gzread,
			 * Paraver) continue across concatenated members */
			if (deflateInit2(&o.z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
			    Z_OK) {
				__atomic_store_n(&m->error, ENOMEM, __ATOMIC_RELAXED);
				break;
			}
			o.zout = NULL;
			o.zlen = o.zcap = 0;
		}
		int err = merge_part(m, p, &sp, &o);
		__atomic_add_fetch(&m->written, m->out_off[p + 1] - m->out_off[p],
		                   __ATOMIC_RELAXED);
		out_flush(&o, 1);
		if (!err)
			err = o.error;
		if (m->gz) {
			deflateEnd(&o.z);
			pthread_mutex_lock(&m->lock);
			m->gzbuf[p] = o.zout;
			m->gzlen[p] = o.zlen;
			if (m->members && !err) {
				pv_gz_members *g = m->members;
				err = pv_write_at(g->fd, o.zout, o.zlen, m->write_off);
				g->at[p] = m->write_off;
				g->len[p] = o.zlen;
				m->write_off += o.zlen;
				free(o.zout);
				m->gzbuf[p] = NULL;
			}
			while (!err && !m->members && m->next_write < m->nparts &&
			       m->gzbuf[m->next_write]) {
				size_t q = m->next_write;
				err = pv_write_at(m->fd, m->gzbuf[q], m->gzlen[q], m->write_off);
				m->write_off += m->gzlen[q];
				free(m->gzbuf[q]);
				m->gzbuf[q] = NULL;
				m->next_write++;
			}
			pthread_mutex_unlock(&m->lock);
		}
		if (err) {
			__atomic_store_n(&m->error, err, __ATOMIC_RELAXED);
			break;
		}
	}
out:
	pt_workers_done_one(&m->done);
	free_space(&sp);
	free(o.buf);
	return NULL;
}

int pv_merge(const pv_run *runs, size_t n, int fd, uint64_t header_len, unsigned nworkers, int gz,
             char *err, size_t errlen)
{
	return pv_merge_progress(runs, n, fd, header_len, nworkers, gz, NULL, NULL, err, errlen);
}

/* The partitions' bounds: keys cutting the whole time range into pieces
 * of ~8 MB of text, at least 4 per worker when there is enough to share,
 * at most one per index note. 0, or -1 (ENOMEM). */
static int choose_bounds(merge *m, uint64_t total, unsigned nworkers)
{
	/* a pooled run has no notes: its first key stands for it */
	size_t nkeys = 0;
	for (size_t s = 0; s < m->n; s++)
		nkeys += m->runs[s].nidx ? m->runs[s].nidx : m->runs[s].nrec != 0;
	size_t want = (size_t)(total / (8u << 20)) + 1;
	if (total > (4u << 20) && want < 4 * (size_t)nworkers)
		want = 4 * (size_t)nworkers;
	/* and at most ~1,000 runs starting in each: a worker holds a buffer per
	 * run of its partition (100,000 short threads: 200 partitions) */
	if (want < nkeys / PART_RUNS)
		want = nkeys / PART_RUNS;
	if (want > 4096)
		want = 4096;
	if (want > nkeys)
		want = nkeys ? nkeys : 1;
	uint64_t *keys = malloc((nkeys + 1) * sizeof *keys);
	m->bounds = malloc((want + 1) * sizeof *m->bounds);
	if (!keys || !m->bounds) {
		free(keys);
		return -1;
	}
	size_t k = 0;
	for (size_t s = 0; s < m->n; s++) {
		const pv_run *r = &m->runs[s];
		for (size_t i = 0; i < r->nidx; i++)
			keys[k++] = r->idx[i].key;
		if (!r->nidx && r->nrec)
			keys[k++] = r->first_key;
	}
	qsort(keys, nkeys, sizeof *keys, cmp_key);
	m->bounds[0] = 0;
	size_t np = 1;
	for (size_t p = 1; p < want; p++) {
		uint64_t b = keys[p * nkeys / want];
		if (b > m->bounds[np - 1])
			m->bounds[np++] = b;
	}
	free(keys);
	m->nparts = np;
	m->bounds[np] = UINT64_MAX;
	return 0;
}

/* One descriptor per stream for all workers, when the limit allows (else
 * the cursors open the file for each refill). 0, or an errno with the
 * failing stream in *failed. */
static int open_shared_fds(merge *m, size_t *failed)
{
	m->fds = malloc((m->n ? m->n : 1) * sizeof *m->fds);
	if (!m->fds)
		return ENOMEM;
	for (size_t s = 0; s < m->n; s++)
		m->fds[s] = -1;
	size_t own = 0;
	for (size_t s = 0; s < m->n; s++) {
		if (m->runs[s].pool)
			m->fds[s] = m->runs[s].pool->fd;
		else
			own++;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur <= own + 64)
		return 0;
	for (size_t s = 0; s < m->n; s++) {
		if (m->runs[s].pool)
			continue;
		m->fds[s] = open(m->runs[s].path, O_RDONLY | O_CLOEXEC);
		if (m->fds[s] < 0) {
			*failed = s;
			return errno;
		}
	}
	return 0;
}

/* The workers merge every partition; progress every ~0.2 s meanwhile.
 * 0, or -1 (ENOMEM). */
static int run_merge_workers(merge *m, unsigned nworkers, uint64_t total,
                             void (*progress)(void *, uint64_t, uint64_t), void *arg)
{
	if (nworkers > m->nparts)
		nworkers = (unsigned)m->nparts;
	if (nworkers < 1)
		nworkers = 1;
	pthread_t *th = calloc(nworkers, sizeof *th);
	if (!th)
		return -1;
	unsigned started = 0;
	for (; started < nworkers; started++)
		if (pthread_create(&th[started], NULL, merge_worker, m))
			break;
	if (!started)
		merge_worker(m);
	if (progress && started)
		do
			progress(arg, __atomic_load_n(&m->written, __ATOMIC_RELAXED), total);
		while (!pt_workers_done_wait(&m->done, started, 200));
	if (progress)
		progress(arg, total, total);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	return 0;
}

int pv_merge_progress(const pv_run *runs, size_t n, int fd, uint64_t header_len, unsigned nworkers,
                      int gz, void (*progress)(void *, uint64_t, uint64_t), void *arg, char *err,
                      size_t errlen)
{
	return pv_merge_part(runs, n, fd, header_len, nworkers, nworkers, 0, 1, gz, NULL, progress,
	                     arg, err, errlen);
}

int pv_merge_part(const pv_run *runs, size_t n, int fd, uint64_t header_len, unsigned nworkers,
                  unsigned all_workers, unsigned part_k, unsigned part_n, int gz,
                  pv_gz_members *members, void (*progress)(void *, uint64_t, uint64_t), void *arg,
                  char *err, size_t errlen)
{
	merge m;
	memset(&m, 0, sizeof m);
	m.runs = runs;
	m.n = n;
	m.fd = fd;
	m.gz = gz;
	m.sel_k = part_k;
	m.sel_n = part_n ? part_n : 1;
	pthread_mutex_init(&m.lock, NULL);
	pt_workers_done_init(&m.done);
	int rc = -1;
	uint64_t total = 0;
	for (size_t s = 0; s < n; s++)
		total += runs[s].text;
	/* the partitions depend on every process's workers, never on which
	 * process merges: each finds the same ones */
	if (choose_bounds(&m, total, all_workers))
		goto oom;
	size_t np = m.nparts;
	m.out_off = calloc(np + 1, sizeof *m.out_off);
	if (!m.out_off || place_runs(&m))
		goto oom;
	/* Where each partition starts in each stream: streams are independent,
	 * so the workers share them (this was the serial part of the merge). */
	if (find_cuts(&m, nworkers)) {
		const pv_run *st = &runs[m.cut_failed];
		snprintf(err, errlen, "%s: cannot read back: %s",
		         st->pool ? st->pool->path : st->path, strerror(m.cut_errno));
		goto out;
	}
	if (list_partition_runs(&m) || text_before(&m, m.out_off))
		goto oom;
	for (size_t p = 0; p <= np; p++)
		m.out_off[p] += header_len;
	if (!gz && part_k == 0 && ftruncate(fd, (off_t)(header_len + total))) {
		snprintf(err, errlen, "cannot size the output: %s", strerror(errno));
		goto out;
	}
	if (gz) {
		m.gzbuf = calloc(np, sizeof *m.gzbuf);
		m.gzlen = calloc(np, sizeof *m.gzlen);
		if (!m.gzbuf || !m.gzlen)
			goto oom;
		m.write_off = header_len;
		if (members) {
			members->nparts = np;
			members->at = calloc(np, sizeof *members->at);
			members->len = calloc(np, sizeof *members->len);
			if (!members->at || !members->len)
				goto oom;
			m.members = members;
			m.write_off = 0;
		}
	}
	size_t failed = 0;
	int e = open_shared_fds(&m, &failed);
	if (e == ENOMEM)
		goto oom;
	if (e) {
		snprintf(err, errlen, "%s: %s", runs[failed].path, strerror(e));
		goto out;
	}
	if (run_merge_workers(&m, nworkers, total, progress, arg))
		goto oom;
	if (m.error) {
		snprintf(err, errlen, "writing the trace: %s", strerror(m.error));
		goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	if (m.gzbuf)
		for (size_t p = 0; p < m.nparts; p++)
			free(m.gzbuf[p]);
	free(m.gzbuf);
	free(m.gzlen);
	if (m.fds)
		for (size_t s = 0; s < n; s++)
			if (m.fds[s] >= 0 && !runs[s].pool)
				close(m.fds[s]);
	free(m.fds);
	free(m.bounds);
	for (size_t s = 0; m.ents && s < n; s++)
		free(m.ents[s]);
	free(m.ents);
	free(m.nents);
	free(m.p_lo);
	free(m.in_first);
	free(m.in);
	free(m.out_off);
	pthread_mutex_destroy(&m.lock);
	pt_workers_done_destroy(&m.done);
	return rc;
}
