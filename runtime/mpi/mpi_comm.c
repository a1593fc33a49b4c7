/* SPDX-License-Identifier: MIT */
/* Communicators: which job rank each rank of a communicator is (so every
 * record names processes alike, whatever communicator the call used: its
 * world rank, with its world in the upper bits when a run holds jobs that
 * MPI_Comm_spawn started, PT_MPI_JOB_RANK), and an id every member gives
 * the same communicator, without talking to the others:
 *
 *   id = hash(the members' world ranks in rank order, n)
 *
 * where n counts the communicators with exactly those members this
 * process saw created before. Creation is collective over the members,
 * and a program that does not deadlock creates communicators of the same
 * members in the same order everywhere, so n agrees. (An intercommunicator
 * hashes its two groups, smaller hash first, so both sides agree too.)
 * Communicators the runtime did not see created (made by a call it does
 * not wrap, or by MPI_Comm_idup, whose handle is valid only later) get an
 * id when first used, flagged PT_MPI_COMM_LATE: their ids may disagree.
 *
 * A member of another world (a spawned job, or the parents of one) is not
 * in this process's MPI_COMM_WORLD: MPI has no call that says who it is,
 * so it is named from Open MPI's own description of the group's members
 * (process names: job id, rank in that job's MPI_COMM_WORLD), which this
 * part reads only once it found them where it expects them for every
 * member of MPI_COMM_WORLD; otherwise such members are -1 (names_init).
 *
 * Entries are never freed (a freed communicator's handle may come back
 * for another one: the entry leaves the table, but a thread that still
 * holds it reads valid memory); their memory comes from pages the runtime
 * maps itself. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <string.h>

#define NBUCKETS 1024u

static pt_spin lock;
static pt_mpi_comm *buckets[NBUCKETS];
static unsigned gen; /* bumped when an entry leaves the table */
static pt_mpi_comm world_entry, self_entry;
static MPI_Group world_group;

/* hash of the members -> communicators seen with them (open addressing) */
typedef struct ord {
	uint64_t h;
	uint32_t n;
} ord;
static ord *ords;
static size_t ords_cap, ords_n;

/* The last communicator looked up by this thread. */
static __thread const pt_mpi_comm *cache_e __attribute__((tls_model("initial-exec")));
static __thread unsigned cache_gen __attribute__((tls_model("initial-exec")));

static char *arena;
static size_t arena_left;

/* Zeroed memory that lives as long as the process (under lock). */
static void *arena_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > (64u << 10))
		return pt_pages_alloc(n);
	if (n > arena_left) {
		arena = pt_pages_alloc(1u << 20);
		if (!arena) {
			arena_left = 0;
			return NULL;
		}
		arena_left = 1u << 20;
	}
	void *p = arena;
	arena += n;
	arena_left -= n;
	return p;
}

static unsigned bucket(MPI_Comm c)
{
	return (unsigned)((((uintptr_t)c >> 4) * 0x9e3779b97f4a7c15ull) >> 54) & (NBUCKETS - 1);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_ranks(const int32_t *w, size_t n)
{
	uint64_t h = 0x84222325cbf29ce4ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = mix(h ^ (uint32_t)w[i]);
	return h;
}

/* The n-th communicator with members hash h (under lock); UINT32_MAX
 * when the table cannot grow. */
static uint32_t next_ordinal(uint64_t h)
{
	if (2 * (ords_n + 1) > ords_cap) {
		size_t ncap = ords_cap ? 2 * ords_cap : 256;
		ord *n = pt_pages_alloc(ncap * sizeof *n);
		if (!n)
			return UINT32_MAX;
		for (size_t i = 0; i < ords_cap; i++) {
			if (!ords[i].h)
				continue;
			size_t j = mix(ords[i].h) & (ncap - 1);
			while (n[j].h)
				j = (j + 1) & (ncap - 1);
			n[j] = ords[i];
		}
		if (ords)
			pt_pages_free(ords, ords_cap * sizeof *ords);
		ords = n;
		ords_cap = ncap;
	}
	if (!h)
		h = 1;
	size_t j = mix(h) & (ords_cap - 1);
	while (ords[j].h && ords[j].h != h)
		j = (j + 1) & (ords_cap - 1);
	if (!ords[j].h) {
		ords[j].h = h;
		ords_n++;
	}
	return ords[j].n++;
}

static pt_mpi_comm *find_locked(MPI_Comm c)
{
	for (pt_mpi_comm *e = buckets[bucket(c)]; e; e = e->next)
		if (e->handle == c)
			return e;
	return NULL;
}

/* The real group functions, looked up once. */
static struct {
	__typeof__(&PMPI_Comm_test_inter) test_inter;
	__typeof__(&PMPI_Comm_group) group;
	__typeof__(&PMPI_Comm_remote_group) remote_group;
	__typeof__(&PMPI_Comm_rank) rank;
	__typeof__(&PMPI_Group_size) group_size;
	__typeof__(&PMPI_Group_translate_ranks) translate;
	__typeof__(&PMPI_Group_free) group_free;
} fn;

/* Open MPI's names of a group's members (its ompi_group_t: a pointer to
 * each member's ompi_proc_t, whose opal_proc_t begins with the list item
 * and then the name {jobid, vpid}, or a "sentinel", the name itself in
 * the pointer's bits: 1 | local job id << 1 | family << 16 | vpid << 32).
 * Found at MPI_Init: the offset of the name in this process's own
 * opal_proc_t, checked against every member of MPI_COMM_WORLD. */
static struct {
	int ok;
	size_t off;
	void *(*raw)(MPI_Group g, int rank); /* ompi_group_get_proc_ptr_raw */
} names;

static int name_at(MPI_Group g, int rank, uint32_t *jobid, uint32_t *vpid)
{
	uintptr_t p = (uintptr_t)names.raw(g, rank);
	if (!p)
		return -1;
	if (p & 1) {
		*jobid = (uint32_t)((p >> 16) & 0xffff) << 16 | (uint32_t)((p >> 1) & 0x7fff);
		*vpid = (uint32_t)((uint64_t)p >> 32);
		return 0;
	}
	memcpy(jobid, (const char *)p + names.off, sizeof *jobid);
	memcpy(vpid, (const char *)p + names.off + sizeof *jobid, sizeof *vpid);
	return 0;
}

static void names_init(void)
{
	if (!pt_mpi_family)
		return;
	names.raw = (__typeof__(names.raw))pt_mpi_sym("ompi_group_get_proc_ptr_raw");
	const char *(*local)(void) = (const char *(*)(void))pt_mpi_sym("opal_proc_local_get");
	const char *mine = local ? local() : NULL;
	if (!names.raw || !mine)
		return;
	uint32_t jobid = pt_mpi_family << 16 | (pt_mpi_world + 1), me[2] = {jobid,
									    (uint32_t)pt_mpi_rank};
	size_t off = 0;
	while (off <= 64 && memcmp(mine + off, me, sizeof me))
		off += 4;
	if (off > 64)
		return;
	names.off = off;
	for (int i = 0; i < pt_mpi_size; i++) {
		uint32_t j, v;
		if (name_at(world_group, i, &j, &v) || j != jobid || v != (uint32_t)i)
			return;
	}
	names.ok = 1;
}

/* The job rank of a member of g outside this process's world; -1 when
 * it cannot be had. */
static int32_t other_world(MPI_Group g, int rank)
{
	uint32_t j, v, local;
	if (!names.ok || name_at(g, rank, &j, &v))
		return -1;
	local = j & 0xffff;
	if (j >> 16 != pt_mpi_family || !local || local - 1 > PT_MPI_WORLDS_MAX ||
	    v >= 1u << PT_MPI_WORLD_SHIFT)
		return -1;
	return PT_MPI_JOB_RANK(local - 1, v);
}

/* The members of g (n of them) as job ranks into out; idx: room for 2n
 * ints. The ranks asked for and the answers are two arrays: MPI forbids
 * aliasing an IN and an OUT argument, and MPICH fills the answers with
 * MPI_UNDEFINED before it reads the question (one array: every member
 * "outside the world", or some other rank's answer). */
static int group_ranks(MPI_Group g, int n, int32_t *out, int *idx)
{
	int *in = idx, *res = idx + n;
	for (int i = 0; i < n; i++) {
		in[i] = i;
		res[i] = MPI_UNDEFINED;
	}
	if (fn.translate(g, n, in, world_group, res) != MPI_SUCCESS)
		return -1;
	for (int i = 0; i < n; i++) /* MPI_UNDEFINED: not in this world */
		out[i] =
		    res[i] >= 0 && res[i] < pt_mpi_size ? pt_mpi_base + res[i] : other_world(g, i);
	return 0;
}

/* Describes c and puts it in the table (its COMM_DEF written); NULL when
 * the MPI library cannot describe it. */
static const pt_mpi_comm *make(MPI_Comm c, int created)
{
	MPI_Group lg = (MPI_Group)0, rg = (MPI_Group)0;
	int inter = 0, lsize = 0, rsize = 0, rank = -1;
	if (fn.test_inter(c, &inter) != MPI_SUCCESS || fn.group(c, &lg) != MPI_SUCCESS)
		return NULL;
	fn.rank(c, &rank);
	fn.group_size(lg, &lsize);
	if (inter && fn.remote_group(c, &rg) == MPI_SUCCESS)
		fn.group_size(rg, &rsize);
	size_t n = (size_t)lsize + (size_t)rsize;
	size_t bytes =
	    sizeof(pt_rec_mpi_comm_def) + n * sizeof(int32_t) + 2 * (n + 1) * sizeof(int);
	char *tmp = pt_pages_alloc(bytes);
	const pt_mpi_comm *res = NULL;
	if (!tmp)
		goto out;
	pt_rec_mpi_comm_def *d = (pt_rec_mpi_comm_def *)(void *)tmp;
	int32_t *w = (int32_t *)(d + 1);
	int *idx = (int *)(w + n);
	if (group_ranks(lg, lsize, w, idx) || (rg && group_ranks(rg, rsize, w + lsize, idx)))
		goto out;
	uint64_t hl = hash_ranks(w, (size_t)lsize), h = hl;
	if (inter) {
		uint64_t hr = hash_ranks(w + lsize, (size_t)rsize);
		h = mix((hl < hr ? hl : hr) * 31 + (hl < hr ? hr : hl)) ^ 0x696e746572ull;
	}
	/* peers are ranks of the remote group in an intercommunicator */
	uint32_t psize = (uint32_t)(inter ? rsize : lsize);
	const int32_t *pw = inter ? w + lsize : w;
	pt_spin_lock(&lock);
	pt_mpi_comm *e = find_locked(c);
	if (e) { /* another thread got there first */
		pt_spin_unlock(&lock);
		res = e;
		goto out;
	}
	uint32_t k = next_ordinal(created ? h : ~h);
	e = arena_alloc(sizeof *e + psize * sizeof(int32_t));
	if (!e || k == UINT32_MAX) {
		pt_spin_unlock(&lock);
		goto out;
	}
	e->handle = c;
	e->id = mix(h + 0x9e3779b97f4a7c15ull * ((uint64_t)k + 1) + (created ? 0 : 0x5bd1e995ull));
	if (e->id <= 16) /* clear of the fixed ids */
		e->id += 17;
	e->inter = inter;
	e->rank = rank;
	e->size = psize;
	e->world = (int32_t *)(e + 1);
	memcpy(e->world, pw, psize * sizeof(int32_t));
	unsigned b = bucket(c);
	e->next = buckets[b];
	buckets[b] = e;
	pt_spin_unlock(&lock);
	d->comm = e->id;
	d->local_size = (uint32_t)lsize;
	d->remote_size = (uint32_t)rsize;
	d->flags = (inter ? PT_MPI_COMM_INTER : 0) | (created ? 0 : PT_MPI_COMM_LATE);
	d->rank = rank;
	size_t len = sizeof *d + n * sizeof(int32_t);
	if (len <= PT_REC_MAX_SIZE - 16)
		pt_process_emit(PT_REC_MPI_COMM_DEF, 0, d, len, NULL, 0);
	res = e;
out:
	if (lg)
		fn.group_free(&lg);
	if (rg)
		fn.group_free(&rg);
	if (tmp)
		pt_pages_free(tmp, bytes);
	return res;
}

const pt_mpi_comm *pt_mpi_comm_get(MPI_Comm c)
{
	if (c == pt_mpi_comm_world)
		return &world_entry;
	if (!c || c == pt_mpi_comm_null || !pt_mpi_ready)
		return NULL;
	unsigned g = __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
	const pt_mpi_comm *e = cache_e;
	if (e && e->handle == c && cache_gen == g)
		return e;
	if (c == pt_mpi_comm_self) {
		e = &self_entry;
	} else {
		pt_spin_lock(&lock);
		e = find_locked(c);
		pt_spin_unlock(&lock);
		if (!e)
			e = make(c, 0);
	}
	if (e) {
		cache_e = e;
		cache_gen = g;
	}
	return e;
}

void pt_mpi_comm_created(MPI_Comm c)
{
	if (!c || c == pt_mpi_comm_null || !pt_mpi_ready)
		return;
	pt_spin_lock(&lock);
	int known = find_locked(c) != NULL;
	pt_spin_unlock(&lock);
	if (!known)
		make(c, 1);
}

void pt_mpi_comm_freed(MPI_Comm c)
{
	if (!c || c == pt_mpi_comm_world || c == pt_mpi_comm_self)
		return;
	pt_spin_lock(&lock);
	for (pt_mpi_comm **p = &buckets[bucket(c)]; *p; p = &(*p)->next) {
		if ((*p)->handle == c) {
			*p = (*p)->next;
			break;
		}
	}
	__atomic_add_fetch(&gen, 1, __ATOMIC_RELEASE);
	pt_spin_unlock(&lock);
}

int pt_mpi_comm_init(void)
{
#define FN(field, name) (fn.field = (__typeof__(fn.field))pt_mpi_sym(name))
	if (!FN(test_inter, "PMPI_Comm_test_inter") || !FN(group, "PMPI_Comm_group") ||
	    !FN(remote_group, "PMPI_Comm_remote_group") || !FN(rank, "PMPI_Comm_rank") ||
	    !FN(group_size, "PMPI_Group_size") || !FN(translate, "PMPI_Group_translate_ranks") ||
	    !FN(group_free, "PMPI_Group_free"))
		return -1;
#undef FN
	if (fn.group(pt_mpi_comm_world, &world_group) != MPI_SUCCESS)
		return -1;
	world_entry = (pt_mpi_comm){pt_mpi_comm_world, PT_MPI_COMM_WORLD_ID, 0, pt_mpi_rank,
				    (uint32_t)pt_mpi_size, NULL, NULL};
	names_init();
	pt_spin_lock(&lock);
	int32_t *me = arena_alloc(sizeof *me);
	pt_spin_unlock(&lock);
	if (!me)
		return -1;
	*me = pt_mpi_base + pt_mpi_rank;
	self_entry = (pt_mpi_comm){pt_mpi_comm_self, PT_MPI_COMM_SELF_ID, 0, 0, 1, me, NULL};
	/* Both are known to the analyzer without a COMM_DEF listing every
	 * rank: WORLD is the identity, SELF the process itself. */
	pt_rec_mpi_comm_def d = {PT_MPI_COMM_WORLD_ID, (uint32_t)pt_mpi_size, 0, 0, pt_mpi_rank};
	pt_process_emit(PT_REC_MPI_COMM_DEF, 0, &d, sizeof d, NULL, 0);
	pt_rec_mpi_comm_def s = {PT_MPI_COMM_SELF_ID, 1, 0, 0, 0};
	pt_process_emit(PT_REC_MPI_COMM_DEF, 0, &s, sizeof s, me, sizeof *me);
	return 0;
}

/* Windows: the same table, keyed by the window's handle (another kind of
 * object: never the address of a communicator), for the world rank of a
 * one-sided call's target. */
int32_t pt_mpi_win_world_rank(MPI_Win win, int rank)
{
	static __typeof__(&PMPI_Win_get_group) get_group;
	if (rank < 0 || !win || !pt_mpi_ready)
		return rank < 0 ? rank : -1;
	MPI_Comm key = pt_mpi_win_key(win);
	pt_spin_lock(&lock);
	const pt_mpi_comm *e = find_locked(key);
	pt_spin_unlock(&lock);
	if (e)
		return pt_mpi_world_rank(e, rank);
	if (!get_group)
		get_group = (__typeof__(get_group))pt_mpi_sym("PMPI_Win_get_group");
	MPI_Group g;
	int n = 0;
	if (!get_group || get_group(win, &g) != MPI_SUCCESS)
		return -1;
	fn.group_size(g, &n);
	size_t bytes = (size_t)n * (sizeof(int32_t) + 2 * sizeof(int)) + 16;
	char *tmp = pt_pages_alloc(bytes);
	int32_t res = -1;
	if (tmp && !group_ranks(g, n, (int32_t *)(void *)tmp, (int *)(void *)(tmp + n * 4))) {
		pt_spin_lock(&lock);
		pt_mpi_comm *w = find_locked(key) ? NULL : arena_alloc(sizeof *w + (size_t)n * 4);
		if (w) {
			w->handle = key;
			w->size = (uint32_t)n;
			w->world = (int32_t *)(w + 1);
			memcpy(w->world, tmp, (size_t)n * 4);
			unsigned b = bucket(key);
			w->next = buckets[b];
			buckets[b] = w;
		}
		pt_spin_unlock(&lock);
		res = rank < n ? ((int32_t *)(void *)tmp)[rank] : -1;
	}
	if (tmp)
		pt_pages_free(tmp, bytes);
	fn.group_free(&g);
	return res;
}

void pt_mpi_win_freed(MPI_Win win)
{
	pt_mpi_comm_freed(pt_mpi_win_key(win));
}

void pt_mpi_comm_fork_child(void)
{
	pt_spin_reset(&lock);
}
