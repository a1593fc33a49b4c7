/* SPDX-License-Identifier: MIT */
/* Every way a task reaches the runtime (tests/openmp/check_case.py, case
 * task_paths): the program must print the same traced as untraced, and every
 * task it creates must be recorded created and run. With gcc each construct
 * is a GOMP_task call with its own flags: a detach clause (libgomp writes
 * the event handle into the task's data before copying it), if(0)
 * (undeferred), final, depend, priority, a firstprivate array (copied by
 * memcpy) and a VLA (copied by gcc's copy function), an untied task; and a
 * taskloop (GOMP_taskloop writes each task's bounds into its copy).
 * With -DNO_DETACH (gcc's code run by libomp) the detach clauses are left out.
 * Each task construct is marked "// @name" for the check. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define N 8

int main(void)
{
	long detached = 0, undeferred = 0, finals = 0, deps = 0, prio = 0, arrays = 0, vlas = 0;
	long untied = 0, loop = 0, self = 0;
#ifndef __clang__
	int n = N;
#endif
#pragma omp parallel num_threads(2)
#pragma omp single
	{
#ifndef NO_DETACH /* libomp 14's GOMP_task crashes on a detach clause */
		for (int i = 0; i < N; i++) {
			omp_event_handle_t ev;
#pragma omp task detach(ev) firstprivate(i) // @detach
			{
#pragma omp atomic
				detached += i + 1;
			}
#pragma omp task firstprivate(ev) // @fulfill
			omp_fulfill_event(ev);
		}
		for (int i = 0; i < N; i++) {
			omp_event_handle_t ev;
			/* undeferred with detach: its own body fulfils the event */
#pragma omp task detach(ev) if (0) firstprivate(i) // @self
			{
				omp_fulfill_event(ev);
#pragma omp atomic
				self += i;
			}
		}
#endif
		for (int i = 0; i < N; i++) {
#pragma omp task if (0) firstprivate(i) // @undeferred
			{
#pragma omp atomic
				undeferred += i;
			}
#pragma omp task final(1) firstprivate(i) // @final
			{
#pragma omp task firstprivate(i) // @included
				{
#pragma omp atomic
					finals += i;
				}
			}
#pragma omp task depend(inout : deps) firstprivate(i) // @depend
			deps += i;
#pragma omp task priority(3) firstprivate(i) // @priority
			{
#pragma omp atomic
				prio += i;
			}
			int a[16];
			for (int k = 0; k < 16; k++)
				a[k] = i + k;
#pragma omp task firstprivate(a) // @array
			{
				long s = 0;
				for (int k = 0; k < 16; k++)
					s += a[k];
#pragma omp atomic
				arrays += s;
			}
#ifndef __clang__ /* clang refuses a firstprivate VLA */
			int v[n];
			for (int k = 0; k < n; k++)
				v[k] = i * k;
#pragma omp task firstprivate(v) // @vla
			{
				long s = 0;
				for (int k = 0; k < n; k++)
					s += v[k];
#pragma omp atomic
				vlas += s;
			}
#endif
#pragma omp task untied firstprivate(i) // @untied
			{
#pragma omp taskyield
#pragma omp atomic
				untied += i;
			}
		}
#pragma omp taskwait
#pragma omp taskloop num_tasks(4) reduction(+ : loop) // @taskloop
		for (int i = 0; i < 100; i++)
			loop += i;
	}
	printf(
	    "detached %ld self %ld undeferred %ld finals %ld deps %ld prio %ld arrays %ld vlas %ld "
	    "untied %ld loop %ld\n",
	    detached, self, undeferred, finals, deps, prio, arrays, vlas, untied, loop);
	return 0;
}
