/* SPDX-License-Identifier: MIT */
/* How the framework reports: warnings through the options' callback, and
 * the first fatal error, which stops every worker. */
#define _GNU_SOURCE
#include "fw_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fw_warnf(fw *w, const char *fmt, ...)
{
	if (!w->o->warn)
		return;
	/* several analyzer processes: what all of them read (the scan, the
	 * process logs) is said once, by the first */
	const pt_dist *d = w->o->dist;
	if (d && d->size > 1 && d->rank > 0 && !__atomic_load_n(&w->in_shards, __ATOMIC_RELAXED))
		return;
	char line[1536];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&w->lock);
	w->o->warn(w->o->arg, line);
	pthread_mutex_unlock(&w->lock);
}

/* First fatal error wins; every worker stops at its next check. */
void fw_failf(fw *w, const char *fmt, ...)
{
	char line[1536];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&w->lock);
	if (!w->error)
		w->error = strdup(line);
	pthread_mutex_unlock(&w->lock);
	__atomic_store_n(&w->abort, 1, __ATOMIC_RELAXED);
}
