/* SPDX-License-Identifier: MIT */
/* The OTF2 export under mpirun (ot_internal.h): the OTF2 library's
 * collective callbacks over the analyzer's own exchange (pt_dist.h), so
 * that every analyzer process opens the one archive and writes its
 * shards' locations into it, rank 0 being the primary archive (the anchor
 * file, the global definitions). paratrace does not link libmpi (its MPI
 * plugin does), so OTF2's MPI collectives cannot be used: each collective
 * is one allgather, which is plenty for the few small exchanges the
 * library makes (error codes, counts). */
#define _GNU_SOURCE
#include "ot_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t type_size(OTF2_Type type)
{
	switch (type) {
	case OTF2_TYPE_UINT8:
	case OTF2_TYPE_INT8:
		return 1;
	case OTF2_TYPE_UINT16:
	case OTF2_TYPE_INT16:
		return 2;
	case OTF2_TYPE_UINT32:
	case OTF2_TYPE_INT32:
	case OTF2_TYPE_FLOAT:
		return 4;
	default:
		return 8;
	}
}

/* Every process's `len` bytes of mine: *all (freed by the caller), lens
 * one per process. */
static int gather_all(pt_dist *d, const void *mine, size_t len, char **all, size_t **lens)
{
	*all = NULL;
	*lens = calloc((size_t)d->size, sizeof **lens);
	void *a = NULL;
	if (!*lens || d->allgather(d, mine, len, &a, *lens)) {
		free(*lens);
		free(a);
		*lens = NULL;
		return -1;
	}
	*all = a;
	return 0;
}

/* Where process p's part begins in what gather_all gave. */
static size_t part_at(const size_t *lens, uint32_t p)
{
	size_t off = 0;
	for (uint32_t i = 0; i < p; i++)
		off += lens[i];
	return off;
}

static OTF2_CallbackCode get_size(void *user, OTF2_CollectiveContext *c, uint32_t *size)
{
	(void)c;
	*size = (uint32_t)((pt_dist *)user)->size;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode get_rank(void *user, OTF2_CollectiveContext *c, uint32_t *rank)
{
	(void)c;
	*rank = (uint32_t)((pt_dist *)user)->rank;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode barrier(void *user, OTF2_CollectiveContext *c)
{
	(void)c;
	pt_dist *d = user;
	return d->barrier(d) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode bcast(void *user, OTF2_CollectiveContext *c, void *data, uint32_t n,
                               OTF2_Type type, uint32_t root)
{
	(void)c;
	pt_dist *d = user;
	size_t len = n * type_size(type);
	char *all;
	size_t *lens;
	if (gather_all(d, data, (uint32_t)d->rank == root ? len : 0, &all, &lens))
		return OTF2_CALLBACK_ERROR;
	int ok = lens[root] == len;
	if (ok && len)
		memcpy(data, all + part_at(lens, root), len);
	free(all);
	free(lens);
	return ok ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR;
}

/* Gather and gatherv: every part, in rank order, into out at the root. */
static OTF2_CallbackCode gather_to(pt_dist *d, const void *in, size_t len, void *out, uint32_t root)
{
	char *all;
	size_t *lens;
	if (gather_all(d, in, len, &all, &lens))
		return OTF2_CALLBACK_ERROR;
	if ((uint32_t)d->rank == root)
		memcpy(out, all, part_at(lens, (uint32_t)d->size));
	free(all);
	free(lens);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode gather(void *user, OTF2_CollectiveContext *c, const void *in, void *out,
                                uint32_t n, OTF2_Type type, uint32_t root)
{
	(void)c;
	return gather_to(user, in, n * type_size(type), out, root);
}

static OTF2_CallbackCode gatherv(void *user, OTF2_CollectiveContext *c, const void *in, uint32_t n,
                                 void *out, const uint32_t *outn, OTF2_Type type, uint32_t root)
{
	(void)c, (void)outn;
	return gather_to(user, in, n * type_size(type), out, root);
}

/* Scatter and scatterv: the root's buffer to all, each taking its part:
 * scatter's of `len` bytes each; scatterv's (counted) after the counts of
 * every rank, which it begins with, of `size`-byte elements. */
static OTF2_CallbackCode scatter_from(pt_dist *d, const void *in, size_t inlen, int counted,
                                      size_t size, void *out, size_t len, uint32_t root)
{
	char *all;
	size_t *lens;
	if (gather_all(d, in, (uint32_t)d->rank == root ? inlen : 0, &all, &lens))
		return OTF2_CALLBACK_ERROR;
	const char *r = all + part_at(lens, root);
	size_t at = 0, off = (size_t)d->rank * len;
	if (counted) {
		at = (size_t)d->size * sizeof(uint32_t);
		off = 0;
		for (int p = 0; p < d->rank && at <= lens[root]; p++) {
			uint32_t n;
			memcpy(&n, r + (size_t)p * sizeof n, sizeof n);
			off += n * size;
		}
	}
	int ok = at + off + len <= lens[root];
	if (ok && len)
		memcpy(out, r + at + off, len);
	free(all);
	free(lens);
	return ok ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR;
}

static OTF2_CallbackCode scatter(void *user, OTF2_CollectiveContext *c, const void *in, void *out,
                                 uint32_t n, OTF2_Type type, uint32_t root)
{
	(void)c;
	pt_dist *d = user;
	size_t len = n * type_size(type);
	return scatter_from(d, in, len * (size_t)d->size, 0, 0, out, len, root);
}

static OTF2_CallbackCode scatterv(void *user, OTF2_CollectiveContext *c, const void *in,
                                  const uint32_t *inn, void *out, uint32_t outn, OTF2_Type type,
                                  uint32_t root)
{
	(void)c;
	pt_dist *d = user;
	size_t sz = type_size(type);
	pt_buf b = {0};
	if ((uint32_t)d->rank == root) { /* the counts, then the data */
		size_t total = 0;
		pt_buf_put(&b, inn, (size_t)d->size * sizeof *inn);
		for (int p = 0; p < d->size; p++)
			total += inn[p];
		pt_buf_put(&b, in, total * sz);
		if (b.oom) {
			free(b.d);
			return OTF2_CALLBACK_ERROR;
		}
	}
	OTF2_CallbackCode rc = scatter_from(d, b.d, b.len, 1, sz, out, outn * sz, root);
	free(b.d);
	return rc;
}

static const OTF2_CollectiveCallbacks dist_callbacks = {
    .otf2_get_size = get_size,
    .otf2_get_rank = get_rank,
    .otf2_barrier = barrier,
    .otf2_bcast = bcast,
    .otf2_gather = gather,
    .otf2_gatherv = gatherv,
    .otf2_scatter = scatter,
    .otf2_scatterv = scatterv,
};

/* The context OTF2 hands back to the callbacks: they use only the
 * exchange (user data), but OTF2 wants one. */
static char global_context;

int ot_set_collectives(ot_tool *t)
{
	if (!t->dist)
		return OTF2_Archive_SetSerialCollectiveCallbacks(t->ar) ? -1 : 0;
	return OTF2_Archive_SetCollectiveCallbacks(t->ar, &dist_callbacks, t->dist,
	                                           (OTF2_CollectiveContext *)&global_context, NULL)
	           ? -1
	           : 0;
}

int ot_exchange(ot_tool *t, const pt_buf *mine, char **all, size_t **lens)
{
	if (mine->oom)
		return -1;
	if (!t->dist) {
		*lens = malloc(sizeof **lens);
		*all = malloc(mine->len ? mine->len : 1);
		if (!*lens || !*all) {
			free(*lens);
			free(*all);
			return -1;
		}
		**lens = mine->len;
		if (mine->len)
			memcpy(*all, mine->d, mine->len);
		return 0;
	}
	return gather_all(t->dist, mine->d, mine->len, all, lens);
}
