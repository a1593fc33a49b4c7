/* SPDX-License-Identifier: MIT */
/* Point-to-point on communicators whose ranks are not world ranks (run
 * with 4 ranks):
 *
 *   MPI_Group_incl + MPI_Comm_create: world ranks 3 and 1 as ranks 0 and
 *   1; rank 0 sends 5 messages of 16 bytes (received from MPI_ANY_SOURCE),
 *   rank 1 answers once with 8; then a broadcast of 32 bytes from its
 *   rank 0 (world 3);
 *   MPI_Intercomm_create between the even and the odd world ranks: even
 *   local rank i sends 3 messages of 24 bytes to remote rank 1 - i (world
 *   0 -> 3, 2 -> 1), received from MPI_ANY_SOURCE; each odd rank answers
 *   the source its status names with 4 bytes; then collectives across it:
 *   world rank 0 broadcasts 40 bytes to the odd ranks (MPI_ROOT; rank 2
 *   passes MPI_PROC_NULL), and the even ranks reduce 2 ints into world
 *   rank 1 (MPI_ROOT; rank 3 MPI_PROC_NULL).
 *
 * Each rank prints what it sent ("expect sent") and to whom, as world
 * ranks ("expect pair FROM TO MSGS BYTES"), its collectives and their
 * bytes ("expect coll RANK CALLS GIVEN GOT"), which the trace must show,
 * its calls ("expect ev"), and the world ranks of the members of the
 * communicators it made ("expect comm"), which the trace's descriptions
 * of them must list. */
#include "mpitest.h"

#include <string.h>

static long long pair_msgs[4], pair_bytes[4];
static long long coll_calls, coll_given, coll_got;
static int roots; /* collectives this rank was the root of */

static void coll(long long given, long long got, int root)
{
	coll_calls++;
	coll_given += given;
	coll_got += got;
	roots += root;
}

static void sent_to(int world_peer, long long bytes)
{
	mt_sent(bytes);
	pair_msgs[world_peer]++;
	pair_bytes[world_peer] += bytes;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 4) {
		if (rank == 0)
			fprintf(stderr, "comms: run with 4 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	char buf[64];
	memset(buf, 0, sizeof buf);
	MPI_Status st;

	/* world ranks 3 and 1, in that order */
	MPI_Group world, pair;
	MT_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));
	const int members[2] = {3, 1};
	MT_CHECK(MPI_Group_incl(world, 2, members, &pair));
	MPI_Comm sub;
	MT_CHECK(MPI_Comm_create(MPI_COMM_WORLD, pair, &sub));
	if (sub != MPI_COMM_NULL) {
		int r;
		MPI_Comm_rank(sub, &r);
		if (r == 0) {
			for (int i = 0; i < 5; i++) {
				MT_CHECK(MPI_Send(buf, 16, MPI_BYTE, 1, 20, sub));
				sent_to(1, 16);
			}
			MT_CHECK(MPI_Recv(buf, 8, MPI_BYTE, 1, 21, sub, &st));
		} else {
			for (int i = 0; i < 5; i++)
				MT_CHECK(MPI_Recv(buf, 16, MPI_BYTE, MPI_ANY_SOURCE, 20, sub, &st));
			MT_CHECK(MPI_Send(buf, 8, MPI_BYTE, st.MPI_SOURCE, 21, sub));
			sent_to(3, 8);
		}
		MT_CHECK(MPI_Bcast(buf, 32, MPI_BYTE, 0, sub));
		coll(r == 0 ? 32 : 0, r == 0 ? 0 : 32, r == 0);
		MT_CHECK(MPI_Comm_free(&sub));
	}
	MPI_Group_free(&pair);
	MPI_Group_free(&world);

	/* evens and odds, each group's leader its lowest world rank */
	MPI_Comm local, inter;
	int color = rank % 2;
	MT_CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
	MT_CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 99, &inter));
	int lr;
	MPI_Comm_rank(local, &lr);
	if (color == 0) {
		int peer = 1 - lr;
		for (int i = 0; i < 3; i++) {
			MT_CHECK(MPI_Send(buf, 24, MPI_BYTE, peer, 30, inter));
			sent_to(2 * peer + 1, 24);
		}
		MT_CHECK(MPI_Recv(buf, 4, MPI_BYTE, peer, 31, inter, &st));
	} else {
		for (int i = 0; i < 3; i++)
			MT_CHECK(MPI_Recv(buf, 24, MPI_BYTE, MPI_ANY_SOURCE, 30, inter, &st));
		MT_CHECK(MPI_Send(buf, 4, MPI_BYTE, st.MPI_SOURCE, 31, inter));
		sent_to(2 * st.MPI_SOURCE, 4);
	}
	/* across it: from world rank 0 to the odd ranks, then from the even
	 * ranks into world rank 1 (remote rank 0 of the evens) */
	int broot = color ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
	MT_CHECK(MPI_Bcast(buf, 40, MPI_BYTE, broot, inter));
	coll(broot == MPI_ROOT ? 40 : 0, color ? 40 : 0, broot == MPI_ROOT);
	int in[2] = {rank, 1}, out[2];
	int rroot = color == 0 ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
	MT_CHECK(MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, rroot, inter));
	coll(color == 0 ? 8 : 0, rroot == MPI_ROOT ? 8 : 0, rroot == MPI_ROOT);
	if (rroot == MPI_ROOT && (out[0] != 2 || out[1] != 2)) {
		fprintf(stderr, "comms: reduced %d %d\n", out[0], out[1]);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	MT_CHECK(MPI_Comm_free(&inter));
	MT_CHECK(MPI_Comm_free(&local));

	mt_report(rank);
	/* calls under 50000003 (Extrae's values): MPI_Comm_create 21,
	 * MPI_Group_incl 87, MPI_Intercomm_create 96; the broadcasts (50000002,
	 * MPI_Bcast 7) and the roots (50100003 = 1) */
	printf("expect ev %d 50000003 21 1\nexpect ev %d 50000003 87 1\n"
	       "expect ev %d 50000003 96 1\n",
	       rank, rank, rank);
	printf("expect ev %d 50000002 7 %d\nexpect ev %d 50100003 1 %d\n", rank,
	       1 + (rank == 1 || rank == 3), rank, roots);
	printf("expect coll %d %lld %lld %lld\n", rank, coll_calls, coll_given, coll_got);
	if (rank % 2)
		printf("expect comm %d 3,1\n", rank);
	const char *half = color ? "1,3" : "0,2", *other = color ? "0,2" : "1,3";
	printf("expect comm %d %s\nexpect comm %d %s|%s\n", rank, half, rank, half, other);
	for (int p = 0; p < 4; p++)
		if (pair_msgs[p])
			printf("expect pair %d %d %lld %lld\n", rank, p, pair_msgs[p],
			       pair_bytes[p]);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
