/* SPDX-License-Identifier: MIT */
/* GPU stream logs across exec: this program links the runtime itself
 * (pt_runtime_obj, pt_gpu_obj: traced from the environment as under
 * LD_PRELOAD), writes N kernel records into a stream log, tries an exec
 * that fails (ENOENT), writes N more, then execs itself as `stream_exec
 * child`, which ends at once. The old image's stream log must end with
 * its CLOSE, trimmed, and hold all 2 N records (check_stream_exec.py).
 * Usage: stream_exec N */
#include "gpu_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void kernels(pt_gpu_stream *s, int n)
{
	for (int i = 0; i < n; i++) {
		pt_rec_gpu_kernel k;
		memset(&k, 0, sizeof k);
		k.start = pt_now();
		k.end = k.start + 1000;
		k.correlation = (uint64_t)i + 1;
		k.grid[0] = k.grid[1] = k.grid[2] = 1;
		k.block[0] = k.block[1] = k.block[2] = 1;
		pt_gpu_stream_emit(s, k.start, PT_REC_GPU_KERNEL, &k, sizeof k);
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "child"))
		return 0;
	if (argc != 2)
		return 2;
	int n = atoi(argv[1]);
	pt_gpu_stream *s = pt_gpu_stream_get(PT_GPU_API_CUDA, 0, 7, 0, "fake device");
	if (!s)
		return 3;
	kernels(s, n);
	char *const none[] = {"/nonexistent/paratrace-no-such-program", NULL};
	execv(none[0], none);
	kernels(s, n);
	char *const again[] = {argv[0], "child", NULL};
	execv("/proc/self/exe", again);
	return 4;
}
