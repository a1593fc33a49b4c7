/* SPDX-License-Identifier: MIT */
/* PARATRACE_* environment variables, read once at init. A value that does
 * not parse turns tracing off with one line on stderr: a half-understood
 * configuration would produce a trace the user did not ask for. */
#define _GNU_SOURCE
#include "core.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

pt_config pt_cfg;
const char *pt_config_clock = "auto";

const pt_config *pt_config_get(void)
{
	return &pt_cfg;
}

static int parse_bool(const char *s, int *out)
{
	static const char *const yes[] = {"1", "yes", "true", "on"};
	static const char *const no[] = {"0", "no", "false", "off"};
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* Unsigned decimal prefix; returns the rest of the string or NULL. */
static const char *parse_u64(const char *s, uint64_t *out)
{
	if (!isdigit((unsigned char)*s))
		return NULL;
	uint64_t v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	*out = v;
	return s;
}

int pt_parse_size(const char *s, uint64_t *out)
{
	uint64_t v;
	const char *r = parse_u64(s, &v);
	if (!r)
		return -1;
	unsigned shift = 0;
	switch (*r) {
	case 'k': case 'K': shift = 10; r++; break;
	case 'm': case 'M': shift = 20; r++; break;
	case 'g': case 'G': shift = 30; r++; break;
	default: break;
	}
	if (shift && (*r == 'i' || *r == 'I') && (r[1] == 'b' || r[1] == 'B'))
		r += 2;
	else if (*r == 'b' || *r == 'B')
		r++;
	if (*r)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int pt_parse_duration_ns(const char *s, uint64_t *out)
{
	uint64_t v;
	const char *r = parse_u64(s, &v);
	if (!r)
		return -1;
	uint64_t mul;
	if (!*r || !strcmp(r, "ns"))
		mul = 1;
	else if (!strcmp(r, "us"))
		mul = 1000;
	else if (!strcmp(r, "ms"))
		mul = 1000000;
	else if (!strcmp(r, "s"))
		mul = 1000000000;
	else
		return -1;
	if (v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_int_range(const char *s, long lo, long hi, int *out)
{
	uint64_t v;
	const char *r = parse_u64(s, &v);
	if (!r || *r || v < (uint64_t)lo || v > (uint64_t)hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* PARATRACE_COUNTERS_AT: a comma-separated list of functions, sync,
 * threads, all. 0 with the mask, or -1. */
static int parse_counters_at(const char *s, unsigned *out)
{
	unsigned mask = 0;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (len == 9 && !strncmp(s, "functions", len))
			mask |= PT_COUNTERS_AT_FUNCTIONS;
		else if (len == 4 && !strncmp(s, "sync", len))
			mask |= PT_COUNTERS_AT_SYNC;
		else if (len == 7 && !strncmp(s, "threads", len))
			mask |= PT_COUNTERS_AT_THREADS;
		else if (len == 3 && !strncmp(s, "all", len))
			mask |= PT_COUNTERS_AT_FUNCTIONS | PT_COUNTERS_AT_SYNC | PT_COUNTERS_AT_THREADS;
		else if (len != 0)
			return -1;
		s += len + (end != NULL);
	}
	*out = mask;
	return mask ? 0 : -1;
}

#define PT_MIN_BUFFER (64u << 10)
#define PT_MAX_BUFFER (1u << 30)

int pt_config_parse(pt_config *c, const char *(*get)(const char *name), char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	c->enabled = 1;
	c->buffer_size = 4u << 20;
	c->gpu = 1;
	c->openmp = 1;
	c->mpi = 1;
	c->prefault = 0;
	pt_config_clock = "auto";
	const char *v;
#define BAD(name, expect)                                                                  \
	do {                                                                               \
		snprintf(err, errlen, "%s='%s' not understood: expected %s", name, v, expect); \
		return -1;                                                                 \
	} while (0)

	if ((v = get("PARATRACE_ENABLE")) && *v && parse_bool(v, &c->enabled))
		BAD("PARATRACE_ENABLE", "1/0, yes/no, true/false or on/off");
	if ((v = get("PARATRACE_VERBOSE")) && *v && parse_int_range(v, 0, 3, &c->verbose))
		BAD("PARATRACE_VERBOSE", "a level from 0 to 3");
	if ((v = get("PARATRACE_DIR"))) {
		if (!*v)
			BAD("PARATRACE_DIR", "a directory path");
		if (strlen(v) >= sizeof pt_run_info.dir - 64)
			BAD("PARATRACE_DIR", "a shorter path");
		c->dir = v;
	}
	if ((v = get("PARATRACE_BUFFER_SIZE")) && *v) {
		uint64_t n;
		if (pt_parse_size(v, &n) || n < PT_MIN_BUFFER || n > PT_MAX_BUFFER)
			BAD("PARATRACE_BUFFER_SIZE", "a size from 64K to 1G (bytes, or with K, M, G)");
		c->buffer_size = (size_t)n;
	}
	if ((v = get("PARATRACE_MAX_SIZE")) && *v) {
		uint64_t n;
		if (pt_parse_size(v, &n) || (n && n < 4096))
			BAD("PARATRACE_MAX_SIZE", "0 (no limit) or a size of at least 4K (bytes, or with K, M, G)");
		c->max_size = n;
	}
	if ((v = get("PARATRACE_COUNTERS")) && *v)
		c->counters = v;
	if ((v = get("PARATRACE_COUNTERS_AT")) && *v && parse_counters_at(v, &c->counters_at))
		BAD("PARATRACE_COUNTERS_AT", "a comma-separated list of functions, sync, threads, all");
	if ((v = get("PARATRACE_CALLSTACK")) && *v && parse_int_range(v, 0, 256, &c->callstack_depth))
		BAD("PARATRACE_CALLSTACK", "a call-stack depth from 0 (off) to 256");
	if ((v = get("PARATRACE_SAMPLING")) && *v) {
		int off;
		if (!parse_bool(v, &off) && !off)
			c->sampling_ns = 0;
		else if (pt_parse_duration_ns(v, &c->sampling_ns) ||
			 (c->sampling_ns && c->sampling_ns < 10000))
			BAD("PARATRACE_SAMPLING", "a period of at least 10us, e.g. 1ms, 500us, 2000000 (ns), or 0/off");
	}
	if ((v = get("PARATRACE_GPU")) && *v && parse_bool(v, &c->gpu))
		BAD("PARATRACE_GPU", "1/0, yes/no, true/false or on/off");
	if ((v = get("PARATRACE_GPU_KERNELS")) && *v) {
		if (!strcmp(v, "off"))
			c->gpu_kernels = PT_GPU_KERNELS_OFF;
		else if (!strcmp(v, "entries"))
			c->gpu_kernels = PT_GPU_KERNELS_ENTRIES;
		else if (!strcmp(v, "blocks"))
			c->gpu_kernels = PT_GPU_KERNELS_BLOCKS;
		else
			BAD("PARATRACE_GPU_KERNELS", "off, entries or blocks");
	}
	if ((v = get("PARATRACE_OPENMP")) && *v && parse_bool(v, &c->openmp))
		BAD("PARATRACE_OPENMP", "1/0, yes/no, true/false or on/off");
	if ((v = get("PARATRACE_MPI")) && *v && parse_bool(v, &c->mpi))
		BAD("PARATRACE_MPI", "1/0, yes/no, true/false or on/off");
	if ((v = get("PARATRACE_PREFAULT")) && *v) {
		if (!strcmp(v, "auto"))
			c->prefault = -1;
		else if (parse_bool(v, &c->prefault))
			BAD("PARATRACE_PREFAULT", "auto, 1/0, yes/no, true/false or on/off");
	}
	if ((v = get("PARATRACE_CLOCK")) && *v) {
		if (strcmp(v, "auto") && strcmp(v, "tsc") && strcmp(v, "monotonic"))
			BAD("PARATRACE_CLOCK", "auto, tsc or monotonic");
		pt_config_clock = v;
	}
#undef BAD
	return 0;
}
