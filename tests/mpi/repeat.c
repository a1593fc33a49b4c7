/* SPDX-License-Identifier: MIT */
/* Loops of MPI calls whose records repeat the previous one of their kind
 * (format/mpi.h, "Repeated MPI records"), on several threads at once
 * (MPI_THREAD_MULTIPLE, each thread's log repeating its own): thread t of
 * rank r exchanges with thread t of rank r^1 K identical blocking
 * messages, 2K messages whose size, then tag, changes every other call, and K
 * identical non-blocking ones (Isend, Irecv, Waitall); the main thread
 * then makes K identical Allreduces and Barriers. The trace must show every
 * message with its bytes, and every call, as the program made them.
 * usage: repeat [THREADS [K]] */
#include "mpitest.h"

#include <pthread.h>

static int rank, k = 50;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void exchange(int peer, int tag, int n, char *buf)
{
	if ((rank & 1) == 0) {
		MT_CHECK(MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
		MT_CHECK(MPI_Recv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	} else {
		MT_CHECK(MPI_Recv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		MT_CHECK(MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
	}
}

static void *worker(void *arg)
{
	int t = (int)(long)arg, peer = rank ^ 1;
	char buf[64] = {0}, in[64];
	long long msgs = 0, bytes = 0;
	for (int i = 0; i < k; i++) { /* the same message each time */
		exchange(peer, 10 + t, 8, buf);
		msgs++;
		bytes += 8;
	}
	for (int i = 0; i < 2 * k; i++) {
		/* a message that changes every other call: its size alone,
		 * then its tag alone */
		int n = i < k && (i & 1) ? 24 : 8;
		exchange(peer, 100 + 2 * t + (i >= k && (i & 1)), n, buf);
		msgs++;
		bytes += n;
	}
	for (int i = 0; i < k; i++) { /* the same, non-blocking */
		MPI_Request q[2];
		MT_CHECK(MPI_Irecv(in, 16, MPI_BYTE, peer, 200 + t, MPI_COMM_WORLD, &q[0]));
		MT_CHECK(MPI_Isend(buf, 16, MPI_BYTE, peer, 200 + t, MPI_COMM_WORLD, &q[1]));
		MT_CHECK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
		msgs++;
		bytes += 16;
	}
	pthread_mutex_lock(&count_lock);
	mt_msgs += msgs;
	mt_bytes += bytes;
	pthread_mutex_unlock(&count_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		printf("skip: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int nt = argc > 1 ? atoi(argv[1]) : 2;
	k = argc > 2 ? atoi(argv[2]) : 50;
	pthread_t th[16];
	for (int t = 0; t < nt && t < 16; t++)
		pthread_create(&th[t], NULL, worker, (void *)(long)t);
	for (int t = 0; t < nt && t < 16; t++)
		pthread_join(th[t], NULL);
	double x = rank, y;
	for (int i = 0; i < k; i++) {
		MT_CHECK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
	}
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
