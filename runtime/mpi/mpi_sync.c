/* SPDX-License-Identifier: MIT */
/* One clock for all ranks. Each rank's CLOCK_MONOTONIC counts from its
 * host's boot: across hosts they differ by far more than a message's
 * latency, and they drift apart. At MPI_Init and at MPI_Finalize, rank 0
 * exchanges ping-pongs with every other rank in turn, on a communicator
 * of the runtime's own:
 *
 *   rank 0:  t1 = now; send; recv(t_r); t2 = now
 *   rank r:  recv; t_r = now; send(t_r)
 *
 * Each round bounds the offset between the clocks: t_r was read between
 * t1 and t2, so rank 0's clock - rank r's lies in [t1 - t_r, t2 - t_r].
 * The round with the shortest round trip is kept, and its bound narrowed
 * by those of the rounds around it (bound_offset): at t_r on rank r's
 * clock, rank 0's read t_r + the bound's middle, give or take half its
 * width (at most half the shortest round trip). Rank r records the pair
 * and the width (MPI_CLOCK); the analyzer maps its times onto rank 0's
 * clock (pt_fw_mpi.h).
 *
 * How many rounds: a round trip is short only when both ranks were on a
 * CPU for the whole round. On a loaded machine a rank waits for a time
 * slice (milliseconds), and so may every one of a fixed number of rounds.
 * So after MIN_ROUNDS rank 0 goes on, yielding its CPU between rounds,
 * until MIN_FAST rounds were good (a round trip under GOOD_NS, or under
 * twice the best this rank pair reached at MPI_Init: a slow network's
 * floor; the best of several good rounds, not the first one that
 * happened to be) or BUDGET_NS more have passed; the width recorded tells
 * the analyzer how far to trust the point. */
#define _GNU_SOURCE
#include "mpi_internal.h"
#include "pt_spin.h"

#include <stdlib.h>

#define MIN_ROUNDS 24
#define MAX_ROUNDS 1024
#define WINDOW_NS 1000000ull
#define MIN_FAST 8
#define GOOD_NS 20000ull
#define BUDGET_NS 50000000ull
#define TAG_PING 0x7a71
#define TAG_RESULT 0x7a72

/* Rank 0: the best round trip with each rank at MPI_Init ([pt_mpi_size]). */
static uint64_t *init_rtt;
static size_t init_rtt_bytes;

/* Tests only (PARATRACE_TEST_MPI_SYNC_DELAY_NS=NS[:ROUNDS]): in the
 * synchronisation at MPI_Finalize this rank waits NS between a ping's
 * arrival and its answer, for its first ROUNDS pings (all without
 * ROUNDS): each such round trip is NS longer, and its offset NS/2 off,
 * as when a rank loses its CPU between the two. */
static uint64_t test_delay_ns, test_delay_rounds;

static void test_delay_init(void)
{
	const char *v = pt_config_get()->test_mpi_sync_delay;
	if (!v)
		return;
	char *end;
	test_delay_ns = strtoull(v, &end, 10);
	test_delay_rounds = *end == ':' ? strtoull(end + 1, NULL, 10) : UINT64_MAX;
}

static void test_delay(int phase, uint64_t round)
{
	if (phase != 1 || !test_delay_ns || round >= test_delay_rounds)
		return;
	uint64_t until = pt_mono_ns() + test_delay_ns;
	while (pt_mono_ns() < until)
		pt_cpu_relax();
}

/* Rank 0's rounds with one rank (rank 0 is in MPI_Init or MPI_Finalize,
 * on one thread). */
static struct {
	uint64_t t1, t2, remote;
} rounds[MAX_ROUNDS];

/* The offset (rank 0's clock - rank r's) the rounds near the best one
 * allow: each round bounds it to [t1 - t_r, t2 - t_r]; those within
 * WINDOW_NS of the best round (where drift is nothing) are intersected,
 * which is narrower than the best round alone when the rounds' delays
 * were asymmetric in different ways. Returns the width (at most the best
 * round trip) and sets *mid. */
static uint64_t bound_offset(uint64_t n, uint64_t best, int64_t *mid)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t d = rounds[i].t1 > rounds[best].t1 ? rounds[i].t1 - rounds[best].t1
		                                            : rounds[best].t1 - rounds[i].t1;
		if (d > WINDOW_NS)
			continue;
		int64_t l = (int64_t)(rounds[i].t1 - rounds[i].remote);
		int64_t h = (int64_t)(rounds[i].t2 - rounds[i].remote);
		lo = l > lo ? l : lo;
		hi = h < hi ? h : hi;
	}
	if (lo > hi) { /* impossible with monotonic clocks: the best round alone */
		lo = (int64_t)(rounds[best].t1 - rounds[best].remote);
		hi = (int64_t)(rounds[best].t2 - rounds[best].remote);
	}
	*mid = lo + (hi - lo) / 2;
	return (uint64_t)(hi - lo);
}

/* Rank 0's side with rank r. */
static int sync_with(int r, int phase, MPI_Comm comm, __typeof__(&PMPI_Send) send,
                     __typeof__(&PMPI_Recv) recv)
{
	MPI_Status st;
	uint64_t good = GOOD_NS;
	if (phase == 1 && init_rtt && init_rtt[r] && 2 * init_rtt[r] > good)
		good = 2 * init_rtt[r];
	uint64_t best_rtt = UINT64_MAX, best = 0, k = 0, start = 0, fast = 0;
	for (;;) {
		uint64_t remote = 0;
		uint64_t t1 = pt_mono_ns();
		if (send(NULL, 0, pt_mpi_byte, r, TAG_PING, comm) != MPI_SUCCESS ||
		    recv(&remote, sizeof remote, pt_mpi_byte, r, TAG_PING, comm, &st) !=
		        MPI_SUCCESS)
			return -1;
		uint64_t t2 = pt_mono_ns();
		rounds[k].t1 = t1;
		rounds[k].t2 = t2;
		rounds[k].remote = remote;
		fast += t2 - t1 <= good;
		if (t2 - t1 < best_rtt) {
			best_rtt = t2 - t1;
			best = k;
		}
		k++;
		if (k == MIN_ROUNDS)
			start = t2;
		if (k >= MIN_ROUNDS &&
		    (fast >= MIN_FAST || t2 - start >= BUDGET_NS || k >= MAX_ROUNDS))
			break;
		/* the next round on a fresh time slice: the one that was
		 * slow may have been the end of this one's */
		if (k >= MIN_ROUNDS)
			pt_cpu_yield();
	}
	if (phase == 0 && init_rtt)
		init_rtt[r] = best_rtt;
	int64_t off;
	uint64_t width = bound_offset(k, best, &off);
	uint64_t res[4] = {rounds[best].remote, rounds[best].remote + (uint64_t)off, width, k};
	return send(res, sizeof res, pt_mpi_byte, r, TAG_RESULT, comm) == MPI_SUCCESS ? 0 : -1;
}

void pt_mpi_clock_sync(int phase, MPI_Comm comm)
{
	__typeof__(&PMPI_Send) send = pt_mpi_sym("PMPI_Send");
	__typeof__(&PMPI_Recv) recv = pt_mpi_sym("PMPI_Recv");
	if (!send || !recv)
		return;
	if (pt_mpi_rank == 0) {
		uint64_t now = pt_mono_ns();
		pt_rec_mpi_clock self = {now, now, 0, 0, 0};
		pt_process_emit(PT_REC_MPI_CLOCK, (unsigned)phase, &self, sizeof self, NULL, 0);
		if (phase == 0 && !init_rtt && pt_mpi_size > 1) {
			init_rtt_bytes = (size_t)pt_mpi_size * sizeof *init_rtt;
			init_rtt = pt_pages_alloc(init_rtt_bytes);
		}
		/* a rank whose exchange failed goes without a point; the
		 * others still wait for theirs */
		for (int r = 1; r < pt_mpi_size; r++)
			(void)sync_with(r, phase, comm, send, recv);
		if (phase == 1 && init_rtt) {
			pt_pages_free(init_rtt, init_rtt_bytes);
			init_rtt = NULL;
		}
		return;
	}
	if (phase == 0)
		test_delay_init();
	MPI_Status st;
	uint64_t res[4] = {0, 0, 0, 0};
	for (uint64_t k = 0;; k++) {
		if (recv(res, sizeof res, pt_mpi_byte, 0, MPI_ANY_TAG, comm, &st) != MPI_SUCCESS)
			return;
		if (st.MPI_TAG == TAG_RESULT)
			break;
		uint64_t t = pt_mono_ns();
		test_delay(phase, k);
		if (send(&t, sizeof t, pt_mpi_byte, 0, TAG_PING, comm) != MPI_SUCCESS)
			return;
	}
	pt_rec_mpi_clock c = {res[0], res[1], res[2], (uint32_t)res[3], 0};
	pt_process_emit(PT_REC_MPI_CLOCK, (unsigned)phase, &c, sizeof c, NULL, 0);
}
