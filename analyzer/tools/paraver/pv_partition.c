/* SPDX-License-Identifier: MIT */
/* Where each time partition of the merge starts in each run (pv_merge.h
 * says how it is kept), and which runs each partition holds. */
#define _GNU_SOURCE
#include "pv_merge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* First record with key >= bound at or after (off, text, prev): updates
 * all three, and *key is its key (none: off is end). A cut is at most one index step past its note,
 * on average half of one: small reads (this runs serially before the merge, for every partition and
 * stream) instead of a whole step at a time. */
#define SEEK_CHUNK (4u << 10)
static int seek_bound(int fd, uint64_t base, uint64_t end, size_t prefix_len, uint64_t bound,
                      uint64_t *off, uint64_t *text, uint64_t *prev, uint64_t *key)
{
	uint8_t buf[SEEK_CHUNK + PV_REC_MAX];
	while (*off < end) {
		size_t want = sizeof buf;
		if (want > end - *off)
			want = (size_t)(end - *off);
		ssize_t n = pread(fd, buf, want, (off_t)(base + *off));
		if (n <= 0)
			return -1;
		size_t pos = 0;
		for (;;) {
			rec r = {0};
			long len = rec_decode(buf + pos, buf + n, *prev, &r);
			if (len < 0)
				return -1;
			if (len == 0)
				break;
			if (r.key >= bound) {
				*off += pos;
				*key = r.key;
				return 0;
			}
			pos += (size_t)len;
			*text += rec_text(&r, prefix_len);
			*prev = r.key;
		}
		if (pos == 0)
			return -1;
		*off += pos;
	}
	return 0;
}

/* Partition of a key: the last p with bounds[p] <= key. */
static uint32_t partition_of(const merge *m, uint64_t key)
{
	size_t lo = 0, hi = m->nparts - 1;
	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;
		if (m->bounds[mid] <= key)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (uint32_t)lo;
}

/* Each run's first partition, the longest run, the latest key. 0, or -1
 * (ENOMEM). */
int place_runs(merge *m)
{
	m->p_lo = calloc(m->n + 1, sizeof *m->p_lo);
	m->ents = calloc(m->n + 1, sizeof *m->ents);
	m->nents = calloc(m->n + 1, sizeof *m->nents);
	if (!m->p_lo || !m->ents || !m->nents)
		return -1;
	for (size_t s = 0; s < m->n; s++) {
		const pv_run *st = &m->runs[s];
		if (!st->nrec)
			continue;
		m->p_lo[s] = partition_of(m, st->first_key);
		if (st->nrec > m->most)
			m->most = st->nrec;
		if (st->last_key > m->max_key)
			m->max_key = st->last_key;
	}
	return 0;
}

/* After the cuts: the runs of each partition, counted then placed. 0, or
 * -1 (ENOMEM). */
int list_partition_runs(merge *m)
{
	size_t total = 0;
	for (size_t s = 0; s < m->n; s++)
		total += m->runs[s].nrec ? 1 + m->nents[s] : 0;
	m->in_first = calloc(m->nparts + 2, sizeof *m->in_first);
	m->in = malloc((total + 1) * sizeof *m->in);
	if (!m->in_first || !m->in)
		return -1;
	for (size_t s = 0; s < m->n; s++) {
		if (!m->runs[s].nrec)
			continue;
		m->in_first[m->p_lo[s] + 2]++;
		for (uint32_t k = 0; k < m->nents[s]; k++)
			m->in_first[m->ents[s][k].q + 2]++;
	}
	for (size_t p = 2; p <= m->nparts + 1; p++)
		m->in_first[p] += m->in_first[p - 1];
	for (size_t s = 0; s < m->n; s++) {
		if (!m->runs[s].nrec)
			continue;
		m->in[m->in_first[m->p_lo[s] + 1]++] = (uint32_t)s;
		for (uint32_t k = 0; k < m->nents[s]; k++)
			m->in[m->in_first[m->ents[s][k].q + 1]++] = (uint32_t)s;
	}
	return 0;
}

/* Text bytes before each partition's start, over all runs (then the
 * partition's place in the output is known before merging): a run's
 * share is constant between its entries, so it is added as differences
 * where it changes, then summed along (modulo 2^64, which the sum undoes). */
int text_before(const merge *m, uint64_t *t)
{
	uint64_t *diff = calloc(m->nparts + 2, sizeof *diff);
	if (!diff)
		return -1;
	for (size_t s = 0; s < m->n; s++) {
		const pv_run *st = &m->runs[s];
		if (!st->nrec)
			continue;
		uint64_t had = 0;
		size_t at = m->p_lo[s] + 1;
		for (uint32_t k = 0; k < m->nents[s]; k++) {
			diff[at] += m->ents[s][k].c.text - had;
			had = m->ents[s][k].c.text;
			at = m->ents[s][k].q + 1;
		}
		diff[at] += st->text - had;
	}
	uint64_t sum = 0;
	for (size_t p = 0; p <= m->nparts; p++) {
		sum += diff[p];
		t[p] = sum;
	}
	free(diff);
	return 0;
}

/* Where run s starts in each partition after its first that holds records
 * of it (m->ents[s]). 0, or an errno. */
static int cut_stream(merge *m, size_t s)
{
	const pv_run *st = &m->runs[s];
	if (!st->nrec)
		return 0;
	int sfd = -1, rc = 0;
	uint64_t off = 0, text = 0, prev = 0;
	size_t ix = 0, cap = 0;
	uint32_t last = partition_of(m, st->last_key);
	for (size_t p = m->p_lo[s] + 1; p <= last;) {
		uint64_t b = m->bounds[p];
		/* jump ahead with the index: last note with key < b */
		while (ix < st->nidx && st->idx[ix].key < b)
			ix++;
		if (ix > 0 && st->idx[ix - 1].off > off) {
			off = st->idx[ix - 1].off;
			text = st->idx[ix - 1].text;
			prev = st->idx[ix - 1].prev;
		}
		if (st->pool)
			sfd = st->pool->fd;
		else if (sfd < 0 && (sfd = open(st->path, O_RDONLY | O_CLOEXEC)) < 0) {
			rc = errno;
			break;
		}
		errno = 0;
		uint64_t key = 0;
		if (seek_bound(sfd, st->base, st->off, st->prefix_len, b, &off, &text, &prev,
		               &key)) {
			rc = errno ? errno : EIO;
			break;
		}
		if (m->nents[s] == cap) {
			cap = cap ? 2 * cap : 1;
			cut_ent *e = realloc(m->ents[s], cap * sizeof *e);
			if (!e) {
				rc = ENOMEM;
				break;
			}
			m->ents[s] = e;
		}
		/* the record there is in partition q: the run starts there in p..q */
		uint32_t q = partition_of(m, key);
		m->ents[s][m->nents[s]++] = (cut_ent){q, {off, text, prev}};
		p = (size_t)q + 1;
	}
	if (sfd >= 0 && !st->pool)
		close(sfd);
	return rc;
}

static void *cut_worker(void *arg)
{
	merge *m = arg;
	for (;;) {
		size_t s = __atomic_fetch_add(&m->next_cut, 1, __ATOMIC_RELAXED);
		if (s >= m->n)
			break;
		int rc = cut_stream(m, s);
		if (rc) {
			pthread_mutex_lock(&m->lock);
			if (!m->cut_errno) {
				m->cut_errno = rc;
				m->cut_failed = s;
			}
			pthread_mutex_unlock(&m->lock);
		}
	}
	return NULL;
}

/* cut_stream for every stream, on up to nworkers threads. 0, or -1 with
 * m->cut_failed and m->cut_errno set. */
int find_cuts(merge *m, unsigned nworkers)
{
	if (nworkers > m->n)
		nworkers = (unsigned)m->n;
	pt_workers_run(nworkers, cut_worker, m);
	return m->cut_errno ? -1 : 0;
}
