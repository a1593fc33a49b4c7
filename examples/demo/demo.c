/* SPDX-License-Identifier: MIT */
/* The example traced by scripts/demo.sh: a small worker pool.
 *
 * The main thread splits a Mandelbrot image into row bands and pushes them on
 * a queue protected by a mutex and a condition variable; worker threads pop
 * bands, render them (render_band -> render_row -> escape_time), and add their
 * pixel counts to a shared histogram under a second, deliberately contended
 * mutex. A recursive fib() on the main thread shows nesting. Everything a
 * trace should show is here: user functions, lock contention, condition
 * waits, thread creation and joins.
 *
 * Usage: demo [threads] [height]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WIDTH 256
#define MAX_ITER 256
#define BAND_ROWS 8
/* At -O2 the plugin instruments after inlining (so tiny helpers cost nothing);
 * these phases are kept out of line so the profile shows them. */
#define PHASE __attribute__((noinline))

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	int next_band, nbands;
	int closed;
};

static struct queue work = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
static pthread_mutex_t histogram_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long histogram[MAX_ITER + 1];
static int height = 256;

static int escape_time(double cr, double ci)
{
	double zr = 0, zi = 0;
	int n = 0;
	while (n < MAX_ITER && zr * zr + zi * zi < 4.0) {
		double t = zr * zr - zi * zi + cr;
		zi = 2 * zr * zi + ci;
		zr = t;
		n++;
	}
	return n;
}

PHASE static void render_row(int y, unsigned long *local)
{
	for (int x = 0; x < WIDTH; x++) {
		double cr = -2.0 + 3.0 * x / WIDTH;
		double ci = -1.5 + 3.0 * y / height;
		local[escape_time(cr, ci)]++;
	}
}

PHASE static void render_band(int band)
{
	unsigned long local[MAX_ITER + 1] = {0};
	for (int y = band * BAND_ROWS; y < (band + 1) * BAND_ROWS && y < height; y++)
		render_row(y, local);
	/* Merged bin by bin under the lock on purpose: the contention shows up. */
	for (int i = 0; i <= MAX_ITER; i++) {
		if (!local[i])
			continue;
		pthread_mutex_lock(&histogram_lock);
		histogram[i] += local[i];
		pthread_mutex_unlock(&histogram_lock);
	}
}

PHASE static int take_band(void)
{
	int band = -1;
	pthread_mutex_lock(&work.lock);
	while (work.next_band >= work.nbands && !work.closed)
		pthread_cond_wait(&work.nonempty, &work.lock);
	if (work.next_band < work.nbands)
		band = work.next_band++;
	pthread_mutex_unlock(&work.lock);
	return band;
}

static void *worker(void *arg)
{
	int *done = arg;
	for (int band; (band = take_band()) >= 0;) {
		render_band(band);
		(*done)++;
	}
	return NULL;
}

static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		height = atoi(argv[2]);
	if (nthreads < 1 || nthreads > 256 || height < 1) {
		fprintf(stderr, "usage: %s [threads 1-256] [height >= 1]\n", argv[0]);
		return 2;
	}

	pthread_t tids[256];
	int done[256] = {0};
	for (int i = 0; i < nthreads; i++)
		pthread_create(&tids[i], NULL, worker, &done[i]);

	/* Bands are published a few at a time so the workers wait on the condition. */
	int nbands = (height + BAND_ROWS - 1) / BAND_ROWS;
	for (int published = 0; published < nbands;) {
		pthread_mutex_lock(&work.lock);
		published = published + 4 < nbands ? published + 4 : nbands;
		work.nbands = published;
		pthread_cond_broadcast(&work.nonempty);
		pthread_mutex_unlock(&work.lock);
		fib(18);
	}
	pthread_mutex_lock(&work.lock);
	work.closed = 1;
	pthread_cond_broadcast(&work.nonempty);
	pthread_mutex_unlock(&work.lock);

	int total = 0;
	for (int i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		total += done[i];
	}
	unsigned long inside = histogram[MAX_ITER];
	printf("demo: %d threads rendered %d bands (%dx%d), %lu points inside the set, fib(25)=%ld\n",
	       nthreads, total, WIDTH, height, inside, fib(25));
	return total == nbands ? 0 : 1;
}
