/* A stand-in for the runtime core (runtime/core's pt_enter/pt_emit...) so
 * counters.c, callstack.c and sampling.c can be tested on their own: records
 * go to an in-memory array of the calling thread, warnings to a buffer. */
#ifndef PT_TEST_FAKE_CORE_H
#define PT_TEST_FAKE_CORE_H

#include "pt_runtime.h"

#define FAKE_MAX_RECORDS 8192
#define FAKE_MAX_PAYLOAD 544

typedef struct fake_rec {
	unsigned kind, arg;
	size_t len;
	uint64_t payload[FAKE_MAX_PAYLOAD / 8];
} fake_rec;

struct pt_thread {
	uint32_t tid;
	int inside; /* recursion guard, as core's */
	size_t nrecs;
	fake_rec recs[FAKE_MAX_RECORDS];
};

extern pt_config fake_config;
extern char fake_warnings[8192];
/* Deliveries of the sampling signal handed to the program (pt_signal_forward). */
extern int fake_forwarded;

/* The calling thread's fake state (created on first use). */
pt_thread *fake_thread(void);
void fake_reset(pt_thread *t);
/* Frees the calling thread's fake state (threads other than main). */
void fake_thread_free(void);

#endif
