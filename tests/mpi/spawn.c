/* SPDX-License-Identifier: MIT */
/* Jobs started by MPI_Comm_spawn join their parents' run. The parents
 * (world 0) spawn two children with MPI_Comm_spawn (world 1) and then two
 * more with MPI_Comm_spawn_multiple (world 2, one process of each of two
 * commands); argv[1] tells a child its world. Messages cross both
 * intercommunicators both ways and stay inside world 1's MPI_COMM_WORLD,
 * and a broadcast crosses the first one; then world 1 accepts and world 2
 * connects (MPI_Comm_accept / MPI_Comm_connect, the port name handed on by
 * rank 0 of the parents) and messages cross that intercommunicator too.
 * Every process says which world and rank it is ("expect world W RANK
 * SIZE") and what it sent to whom ("expect wpair FROM_WORLD FROM_RANK
 * TO_WORLD TO_RANK MSGS BYTES"). */
#include "mpitest.h"

#include <string.h>

static int world, rank, size;

static void send_to(MPI_Comm c, int to_world, int to_rank, int to, int bytes, int tag)
{
	char buf[256] = {0};
	MT_CHECK(MPI_Send(buf, bytes, MPI_BYTE, to, tag, c));
	printf("expect wpair %d %d %d %d 1 %d\n", world, rank, to_world, to_rank, bytes);
	mt_sent(bytes);
}

static void recv_from(MPI_Comm c, int from, int tag)
{
	char buf[256];
	MT_CHECK(MPI_Recv(buf, sizeof buf, MPI_BYTE, from, tag, c, MPI_STATUS_IGNORE));
}

/* A port name, whole (MPI_MAX_PORT_NAME bytes). */
static void send_port(MPI_Comm c, int to_world, int to_rank, const char *port, int tag)
{
	MT_CHECK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, to_rank, tag, c));
	printf("expect wpair %d %d %d %d 1 %d\n", world, rank, to_world, to_rank,
	       MPI_MAX_PORT_NAME);
	mt_sent(MPI_MAX_PORT_NAME);
}

/* Worlds 1 and 2 meet: world 1 accepts, world 2 connects. */
static void meet(MPI_Comm up)
{
	char port[MPI_MAX_PORT_NAME] = {0};
	MPI_Comm other;
	if (world == 1) {
		if (rank == 0) {
			MT_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
			send_port(up, 0, 0, port, 15);
		}
		MT_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &other));
		if (rank == 1)
			send_to(other, 2, 0, 0, 32, 17);
		if (rank == 0)
			recv_from(other, 1, 18);
	} else {
		if (rank == 0)
			MT_CHECK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 16, up,
			                  MPI_STATUS_IGNORE));
		MT_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &other));
		if (rank == 0)
			recv_from(other, 1, 17);
		if (rank == 1)
			send_to(other, 1, 0, 0, 56, 18);
	}
	MPI_Comm_disconnect(&other);
	if (world == 1 && rank == 0)
		MPI_Close_port(port);
}

static void parent(char *self)
{
	MPI_Comm inter1, inter2;
	char *args1[] = {"1", NULL};
	MT_CHECK(MPI_Comm_spawn(self, args1, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter1,
	                        MPI_ERRCODES_IGNORE));
	/* parent r and child r exchange; rank 0 broadcasts to the children */
	send_to(inter1, 1, rank, rank, 8 * (rank + 1), 10);
	recv_from(inter1, rank, 11);
	int v[4] = {1, 2, 3, 4};
	MT_CHECK(MPI_Bcast(v, 4, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter1));

	char *cmds[2] = {self, self};
	char *a2[] = {"2", NULL};
	char **argvs[2] = {a2, a2};
	int nprocs[2] = {1, 1};
	MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
	MT_CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, nprocs, infos, 0, MPI_COMM_WORLD, &inter2,
	                                 MPI_ERRCODES_IGNORE));
	if (rank == 0)
		send_to(inter2, 2, 1, 1, 40, 13);
	if (rank == 1)
		recv_from(inter2, 0, 14);
	if (rank == 0) { /* world 1's port, to world 2 */
		char port[MPI_MAX_PORT_NAME];
		MT_CHECK(
		    MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 15, inter1, MPI_STATUS_IGNORE));
		send_port(inter2, 2, 0, port, 16);
	}
	MPI_Comm_disconnect(&inter1);
	MPI_Comm_disconnect(&inter2);
}

static void child(MPI_Comm up)
{
	if (world == 1) {
		recv_from(up, rank, 10);
		send_to(up, 0, rank, rank, 16 + rank, 11);
		int v[4];
		MT_CHECK(MPI_Bcast(v, 4, MPI_INT, 0, up));
		/* inside world 1's own MPI_COMM_WORLD */
		MPI_Request r[2];
		char in[64], out[64] = {0};
		int peer = (rank + 1) % size;
		MT_CHECK(MPI_Irecv(in, sizeof in, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &r[0]));
		MT_CHECK(MPI_Isend(out, 24, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &r[1]));
		MT_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
		printf("expect wpair %d %d %d %d 1 24\n", world, rank, world, peer);
		mt_sent(24);
	} else {
		if (rank == 1)
			recv_from(up, 0, 13);
		if (rank == 0)
			send_to(up, 0, 1, 1, 48, 14);
	}
	meet(up);
	MPI_Comm_disconnect(&up);
}

int main(int argc, char **argv)
{
	MPI_Comm up;
	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&up);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	world = up == MPI_COMM_NULL ? 0 : argc > 1 ? atoi(argv[1]) : -1;
	printf("expect world %d %d %d\n", world, rank, size);
	if (up == MPI_COMM_NULL)
		parent(argv[0]);
	else
		child(up);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
