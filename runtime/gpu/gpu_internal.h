/* SPDX-License-Identifier: MIT */
/* Shared by the GPU tracing files in gpu/: device clock alignment, the
 * per-process name tables (kernels, API functions) and per-stream logs.
 * Everything here is hidden inside libtrace.so. */
#ifndef PT_GPU_INTERNAL_H
#define PT_GPU_INTERNAL_H

#include "pt_runtime.h"

#include <stdint.h>

/* ---- device clock -> trace clock ----------------------------------------
 * A device reports times in nanoseconds of its own clock (PoCL: CLOCK_MONOTONIC_RAW;
 * CUPTI with our timestamp callback: CLOCK_MONOTONIC). We map them to trace
 * ticks with   ticks = anchor_ticks + (dev_ns - anchor_dev) * ticks_per_ns.
 * The anchor comes from a bracket: host ticks t0 <= (device time dev) <= t1,
 * e.g. an enqueue call that stamps QUEUED. The narrowest bracket bounds the
 * offset error best (error <= width / 2), so it is kept; an equally narrow
 * newer one replaces it, and so does one up to twice the narrowest width
 * once the anchor is 100 ms old, so drift between the clocks (NTP slewing
 * CLOCK_MONOTONIC but not a device's raw clock) is followed.
 * ticks_per_ns comes from the host clocks (pt_now vs CLOCK_MONOTONIC) over
 * the longest baseline seen, since the trace clock may be a TSC. */
typedef struct pt_gpu_clock {
	pt_spin lock;
	int have;
	uint64_t anchor_ticks, anchor_dev, width;
	uint64_t best;     /* narrowest width ever offered */
	uint64_t brackets; /* how many were offered (diagnostics) */
} pt_gpu_clock;

#define PT_GPU_CLOCK_INIT {PT_SPIN_INIT, 0, 0, 0, 0, 0, 0}

/* Forgets every bracket (the device's clock turned out not to be the one
 * the brackets assumed). */
PT_HIDDEN void pt_gpu_clock_reset(pt_gpu_clock *c);

/* Offers a bracket: t0 <= dev <= t1 (t0, t1 in ticks, dev in device ns). */
PT_HIDDEN void pt_gpu_clock_bracket(pt_gpu_clock *c, uint64_t t0, uint64_t t1, uint64_t dev);
/* Device ns -> trace ticks; 0 when no bracket was offered yet. */
PT_HIDDEN uint64_t pt_gpu_clock_to_ticks(pt_gpu_clock *c, uint64_t dev);
/* Trace ticks per nanosecond (host calibration, refined over time). */
PT_HIDDEN double pt_gpu_ticks_per_ns(void);
/* Pure mapping used by the above (exposed for unit tests). */
PT_HIDDEN uint64_t pt_gpu_clock_map(uint64_t anchor_ticks, uint64_t anchor_dev, double ticks_per_ns,
				    uint64_t dev);

/* ---- names -------------------------------------------------------------
 * Process-unique ids for kernel names and API functions; the first use of a
 * name writes its GPU_KERNEL_DEF / GPU_FUNC_DEF to the process log, so every
 * id in a thread or GPU log has its definition before the analyzer needs it.
 * Thread-safe. Return 0 when out of memory (the record then carries 0). */
PT_HIDDEN uint32_t pt_gpu_kernel_id(unsigned api, const char *name);
/* func ids are chosen by the caller (CUPTI cbids, or opencl.c's table); the
 * definition is written once per (api, func). */
PT_HIDDEN void pt_gpu_func_define(unsigned api, uint32_t func, const char *name);

/* ---- per-stream logs ---------------------------------------------------
 * One GPU log per (api, device, stream); created on first use with its
 * GPU_STREAM_DEF. Writes are serialised by the stream's own lock because
 * device records arrive on the device layer's threads. */
typedef struct pt_gpu_stream {
	pt_spin lock;
	pt_log_file *file; /* NULL if it could not be created */
	unsigned api;
	uint32_t device, seq, flags;
	uint64_t stream;
	uint64_t last; /* last time written, to keep the file's times ordered */
	struct pt_gpu_stream *next;
} pt_gpu_stream;

/* Finds or creates the stream's log. dev_name is written into STREAM_DEF.
 * seq: 1-based order for OpenCL queues (0: assign the next one). */
PT_HIDDEN pt_gpu_stream *pt_gpu_stream_get(unsigned api, uint32_t device, uint64_t stream,
					   uint32_t flags, const char *dev_name);
/* Appends one device record at `ticks` (the record's start). */
PT_HIDDEN void pt_gpu_stream_emit(pt_gpu_stream *s, uint64_t ticks, unsigned kind,
				  const void *payload, size_t len);
/* Closes every stream log (forget: a fork child's, drops them without
 * closing). try: only those whose locks are free now (signal handler). */
PT_HIDDEN void pt_gpu_streams_close(int forget, int try);

/* At exit (never from a signal handler): completion callbacks of commands
 * the program did not wait for run on the implementation's threads; gives
 * them a bounded moment (200 ms, never blocking exit for long) to bring
 * *pending to 0, then warns "<n> <what>" if some are still missing. */
PT_HIDDEN void pt_gpu_drain(_Atomic long *pending, const char *what);

/* Process-unique correlation ids for APIs that have none of their own (OpenCL). */
PT_HIDDEN uint64_t pt_gpu_next_correlation(void);

#endif /* PT_GPU_INTERNAL_H */
