/* SPDX-License-Identifier: MIT */
/* MPI_THREAD_MULTIPLE: T threads per rank; thread t of rank r exchanges K
 * messages with thread t of rank r^1 (tag 10 + t), blocking and
 * non-blocking, all threads at once. */
#include "mpitest.h"

#include <pthread.h>

static int rank, k = 20;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	int t = (int)(long)arg, peer = rank ^ 1;
	char buf[256] = {0};
	long long msgs = 0, bytes = 0;
	for (int i = 0; i < k; i++) {
		int n = 1 + (t * 31 + i) % 200;
		if ((rank & 1) == 0) {
			MT_CHECK(MPI_Send(buf, n, MPI_BYTE, peer, 10 + t, MPI_COMM_WORLD));
			MT_CHECK(MPI_Recv(buf, sizeof buf, MPI_BYTE, peer, 10 + t, MPI_COMM_WORLD,
			                  MPI_STATUS_IGNORE));
		} else {
			MPI_Request r;
			MT_CHECK(
			    MPI_Irecv(buf, sizeof buf, MPI_BYTE, peer, 10 + t, MPI_COMM_WORLD, &r));
			MT_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
			MT_CHECK(MPI_Send(buf, n, MPI_BYTE, peer, 10 + t, MPI_COMM_WORLD));
		}
		msgs++;
		bytes += n;
	}
	pthread_mutex_lock(&count_lock);
	mt_msgs += msgs;
	mt_bytes += bytes;
	pthread_mutex_unlock(&count_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		printf("skip: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int nt = argc > 1 ? atoi(argv[1]) : 3;
	k = argc > 2 ? atoi(argv[2]) : 20;
	pthread_t th[16];
	for (int t = 0; t < nt; t++)
		pthread_create(&th[t], NULL, worker, (void *)(long)t);
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
