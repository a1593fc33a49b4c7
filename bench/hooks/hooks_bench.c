/* SPDX-License-Identifier: MIT */
/* Hook cost: ns per traced call (entry + exit) of a hot leaf-call loop, for
 * 1 and 2 threads, side by side in one run:
 *   none       the loop without hooks
 *   empty      empty hooks in a shared object (the call floor)
 *   minimal    rdtsc + 8-byte append to initial-exec TLS (a 1 MiB ring, never
 *              written out), and the same into a 64 MiB ring (out of cache)
 *   paratrace  libtrace.so's hooks, called as the pass calls them (id
 *              base loaded per call, indirect call): ABI 2's
 *              __paratrace_func_enter2, then __paratrace_func_exit2 when
 *              it returned an id; ABI 1's __paratrace_func_enter/exit
 *              under a libtrace.so without the former
 *   cyg        libtrace.so's __cyg_profile_func_enter/exit
 * Each configuration is run --reps times (default 7), interleaved, and the
 * median is printed. For the paratrace variants the thread logs are read
 * back with libptlog after each run: bytes per event and events lost are
 * measured, not assumed. Run under LD_PRELOAD=libtrace.so with
 * PARATRACE_DIR set (bench/hooks/run.sh does). */
#define _GNU_SOURCE
#include <paratrace/log.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef void (*hook_fn)(uint32_t);
typedef void (*cyg_fn)(void *, void *);

enum { V_NONE, V_EMPTY, V_MIN, V_BIG, V_PT, V_CYG, NV };
static const char *const vname[NV] = {"none", "empty hooks", "minimal hook", "minimal, 64M ring",
				      "paratrace ABI", "paratrace cyg"};

static hook_fn h_enter[NV], h_exit[NV];
static cyg_fn cyg_enter, cyg_exit;
/* What the pass emits per module: the hooks are called only when the
 * runtime set id_base (volatile: loaded on every call, as the IR does). */
static volatile uint32_t id_base = 1;
static long ncalls = 2000000;
static volatile int sink;

__attribute__((noinline)) static int leaf_none(int x)
{
	return x * 3 + 1;
}

#define LEAF_HOOKED(v)                                                 \
	__attribute__((noinline)) static int leaf_##v(int x)          \
	{                                                              \
		uint32_t base = id_base;                               \
		if (base)                                              \
			h_enter[v](base + 7);                          \
		int r = x * 3 + 1;                                     \
		if (base)                                              \
			h_exit[v](base + 7);                           \
		return r;                                              \
	}
LEAF_HOOKED(V_EMPTY)
LEAF_HOOKED(V_MIN)
LEAF_HOOKED(V_BIG)
LEAF_HOOKED(V_PT)

/* ABI 2: the exit hook only for a call the entry hook recorded */
typedef uint32_t (*hook2_fn)(uint32_t);
static hook2_fn h_enter2;
__attribute__((noinline)) static int leaf_pt2(int x)
{
	uint32_t base = id_base;
	uint32_t tok = base ? h_enter2(base + 7) : 0;
	int r = x * 3 + 1;
	if (tok)
		h_exit[V_PT](tok);
	return r;
}

__attribute__((noinline)) static int leaf_cyg(int x)
{
	cyg_enter((void *)leaf_cyg, __builtin_return_address(0));
	int r = x * 3 + 1;
	cyg_exit((void *)leaf_cyg, __builtin_return_address(0));
	return r;
}

static int (*leaf[NV])(int) = {leaf_none,  leaf_V_EMPTY, leaf_V_MIN,
                               leaf_V_BIG, leaf_V_PT,    leaf_cyg};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct job {
	int v;
	pthread_barrier_t *start;
	uint64_t ns, cpu_ns;
	pid_t tid;
} job;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void (*release)(void); /* the reference hooks' per-thread buffers */

static void *run_job(void *arg)
{
	job *j = arg;
	j->tid = (pid_t)syscall(SYS_gettid);
	int (*f)(int) = leaf[j->v];
	int s = f(0); /* first event: the runtime opens this thread's log */
	pthread_barrier_wait(j->start);
	uint64_t t0 = now_ns(), c0 = thread_cpu_ns();
	for (long i = 0; i < ncalls; i++)
		s += f((int)i);
	j->cpu_ns = thread_cpu_ns() - c0;
	j->ns = now_ns() - t0;
	sink = s;
	if (release)
		release();
	return NULL;
}

static const char *trace_dir;

/* Reads thread tid's log: function records kept and file bytes. */
static int measure_log(pid_t tid, uint64_t *funcs, uint64_t *bytes, uint64_t *lost_recs)
{
	char path[1024], err[256];
	struct stat st;
	/* p<pid>, or p<pid>.<n> when this image was exec'd by a traced parent */
	int found = 0;
	for (int gen = 9; gen >= 0 && !found; gen--) {
		if (gen)
			snprintf(path, sizeof path, "%s/p%d.%d/t%d.ptl", trace_dir, (int)getpid(), gen,
				 (int)tid);
		else
			snprintf(path, sizeof path, "%s/p%d/t%d.ptl", trace_dir, (int)getpid(), (int)tid);
		found = stat(path, &st) == 0;
	}
	if (!found)
		return -1;
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	if (!log)
		return -1;
	pt_event ev;
	uint64_t n = 0, lost = 0;
	while (pt_log_read(log, &ev) == 0) {
		if (ev.kind == PT_REC_FUNC_ENTER || ev.kind == PT_REC_FUNC_EXIT ||
		    ev.kind == PT_REC_FUNC_ENTER_PC || ev.kind == PT_REC_FUNC_EXIT_PC)
			n++;
		else if (ev.kind == PT_REC_LOST) {
			const pt_rec_lost *l = PT_REC_PAYLOAD(ev.rec, pt_rec_lost);
			if (l)
				lost += l->records;
		}
	}
	pt_log_close(log);
	*funcs = n;
	*bytes = (uint64_t)st.st_size;
	*lost_recs = lost;
	unlink(path); /* keep the disk footprint to one run */
	return 0;
}

typedef struct result {
	double ns_per_call;     /* wall, slowest thread */
	double proc_ns_per_call; /* the whole process's CPU time (helper threads too) per call */
	double cpu_ns_per_call; /* the thread's CPU time (user + kernel), slowest thread */
	double bytes_per_event; /* -1: not applicable */
	int64_t lost;           /* events expected but not in the log, -1: n/a */
} result;

static result run_once(int v, int nthreads)
{
	pthread_t th[2];
	job jobs[2];
	pthread_barrier_t b;
	pthread_barrier_init(&b, NULL, (unsigned)nthreads);
	struct timespec p0, p1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p0);
	for (int i = 0; i < nthreads; i++) {
		jobs[i] = (job){v, &b, 0, 0, 0};
		pthread_create(&th[i], NULL, run_job, &jobs[i]);
	}
	uint64_t worst = 0, worst_cpu = 0;
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		if (jobs[i].ns > worst)
			worst = jobs[i].ns;
		if (jobs[i].cpu_ns > worst_cpu)
			worst_cpu = jobs[i].cpu_ns;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
	pthread_barrier_destroy(&b);
	double proc = (double)(p1.tv_sec - p0.tv_sec) * 1e9 + (double)(p1.tv_nsec - p0.tv_nsec);
	result r = {(double)worst / (double)ncalls, proc / (double)ncalls / nthreads,
		    (double)worst_cpu / (double)ncalls, -1, -1};
	if ((v == V_PT || v == V_CYG) && trace_dir) {
		uint64_t funcs = 0, bytes = 0, lost = 0;
		int ok = 1;
		for (int i = 0; i < nthreads; i++) {
			uint64_t f, by, l;
			if (measure_log(jobs[i].tid, &f, &by, &l) != 0) {
				ok = 0;
				break;
			}
			funcs += f;
			bytes += by;
			lost += l;
		}
		if (ok) {
			uint64_t expected = (uint64_t)nthreads * (uint64_t)(ncalls + 1) * 2;
			r.bytes_per_event = (double)bytes / (double)expected;
			r.lost = (int64_t)(expected - funcs);
		}
	}
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *x, double *tmp, int n)
{
	memcpy(tmp, x, (size_t)n * sizeof *tmp);
	qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int reps = 7, only = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = atoi(argv[++i]); /* one variant (0..5), e.g. for perf */
		else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			ncalls = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--reps N] [--calls N] [--only VARIANT]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1)
		reps = 1;
	h_enter[V_EMPTY] = dlsym(RTLD_DEFAULT, "bench_empty_enter");
	h_exit[V_EMPTY] = dlsym(RTLD_DEFAULT, "bench_empty_exit");
	h_enter[V_MIN] = dlsym(RTLD_DEFAULT, "bench_min_enter");
	h_exit[V_MIN] = dlsym(RTLD_DEFAULT, "bench_min_exit");
	h_enter[V_BIG] = dlsym(RTLD_DEFAULT, "bench_big_enter");
	h_exit[V_BIG] = dlsym(RTLD_DEFAULT, "bench_big_exit");
	release = (void (*)(void))dlsym(RTLD_DEFAULT, "bench_release");
	h_enter2 = (hook2_fn)dlsym(RTLD_DEFAULT, "__paratrace_func_enter2");
	h_enter[V_PT] = dlsym(RTLD_DEFAULT, "__paratrace_func_enter");
	h_exit[V_PT] =
	    dlsym(RTLD_DEFAULT, h_enter2 ? "__paratrace_func_exit2" : "__paratrace_func_exit");
	if (h_enter2)
		leaf[V_PT] = leaf_pt2;
	cyg_enter = (cyg_fn)dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter");
	cyg_exit = (cyg_fn)dlsym(RTLD_DEFAULT, "__cyg_profile_func_exit");
	trace_dir = getenv("PARATRACE_DIR");
	if (!h_enter[V_EMPTY] || !h_enter[V_MIN] || !h_enter[V_BIG]) {
		fprintf(stderr, "hooks_bench: reference hooks not found (link libpt_floor_hooks.so)\n");
		return 1;
	}
	int have_pt = h_enter[V_PT] && h_exit[V_PT] && cyg_enter && cyg_exit;
	if (!have_pt)
		fprintf(stderr, "hooks_bench: libtrace.so not preloaded: paratrace rows skipped\n");

	printf("hook cost: %ld calls per thread per run, median of %d runs, ns per call (entry+exit)\n",
	       ncalls, reps);
	printf("%-16s %9s %9s %9s %9s %9s %9s %10s %11s %5s\n", "", "cpu ns", "cpu ns", "proc ns",
	       "proc ns", "wall ns", "wall ns", "cpu ratio", "", "");
	printf("%-16s %9s %9s %9s %9s %9s %9s %10s %11s %5s\n", "variant", "1 thread", "2 threads",
	       "1 thread", "2 threads", "1 thread", "2 threads", "vs minimal", "bytes/event", "lost");
	double med[NV][2], cmed[NV][2], pmed[NV][2];
	result last[NV][2];
	double *samples = calloc((size_t)reps, sizeof *samples);
	static double all[NV][2][64], call[NV][2][64], pall[NV][2][64];
	if (reps > 64)
		reps = 64;
	for (int rep = 0; rep < reps; rep++)
		for (int nt = 1; nt <= 2; nt++)
			for (int v = 0; v < NV; v++) {
				if (((v == V_PT || v == V_CYG) && !have_pt) || (only >= 0 && v != only))
					continue;
				result r = run_once(v, nt);
				all[v][nt - 1][rep] = r.ns_per_call;
				call[v][nt - 1][rep] = r.cpu_ns_per_call;
				pall[v][nt - 1][rep] = r.proc_ns_per_call;
				if (rep == 0 || r.lost > last[v][nt - 1].lost)
					last[v][nt - 1] = r; /* keep the worst loss seen */
			}
	for (int v = 0; v < NV; v++)
		for (int t = 0; t < 2; t++) {
			med[v][t] = median(all[v][t], samples, reps);
			cmed[v][t] = median(call[v][t], samples, reps);
			pmed[v][t] = median(pall[v][t], samples, reps);
		}
	for (int v = 0; v < NV; v++) {
		if (((v == V_PT || v == V_CYG) && !have_pt) || (only >= 0 && v != only))
			continue;
		char ratio[32] = "", bytes[32] = "-", lost[32] = "-";
		if (v >= V_MIN && (only < 0 || only == V_MIN))
			snprintf(ratio, sizeof ratio, "%.2fx", cmed[v][0] / cmed[V_MIN][0]);
		if (last[v][0].bytes_per_event >= 0)
			snprintf(bytes, sizeof bytes, "%.2f", last[v][0].bytes_per_event);
		if (last[v][0].lost >= 0)
			snprintf(lost, sizeof lost, "%" PRId64, last[v][0].lost > last[v][1].lost
									    ? last[v][0].lost
									    : last[v][1].lost);
		printf("%-16s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10s %11s %5s\n", vname[v], cmed[v][0],
		       cmed[v][1], pmed[v][0], pmed[v][1], med[v][0], med[v][1], ratio, bytes, lost);
	}
	printf("cpu ns: the calling thread's CPU time (user + kernel, window switches included) per call;\n"
	       "proc ns: the whole process's CPU time per call and thread (the runtime's prefault helper\n"
	       "  included, and thread start/end);\n"
	       "wall ns: elapsed time per call of the slowest thread (inflated when the machine is shared).\n"
	       "'vs minimal': 1-thread CPU-time median over the minimal hook's (goal for paratrace: <= 1.2x).\n"
	       "bytes/event: log bytes (header, TIME and thread records included) per function event.\n"
	       "lost: function events missing from the logs (worst run, 1 or 2 threads).\n");
	free(samples);
	return 0;
}
