/* In-memory stand-in for the runtime core, for gpu/ unit tests. */
#ifndef FAKE_RUNTIME_H
#define FAKE_RUNTIME_H

#include "pt_runtime.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum { FAKE_THREAD = -2, FAKE_PROCESS = -1, FAKE_FILE0 = 0 };

typedef struct fake_rec {
	int where; /* FAKE_THREAD, FAKE_PROCESS, or FAKE_FILE0 + file index */
	uint64_t ticks;
	unsigned kind, arg;
	size_t len;
	unsigned char payload[256] __attribute__((aligned(8)));
} fake_rec;

typedef struct fake_file {
	char name[64];
	int kind;
	uint64_t stream;
	int open;
	uint64_t last;
	int out_of_order;
} fake_file;

#define FAKE_MAX_RECS 4096
#define FAKE_MAX_FILES 32
extern fake_rec fake_recs[FAKE_MAX_RECS];
extern size_t fake_nrecs;
extern fake_file fake_files[FAKE_MAX_FILES];
extern size_t fake_nfiles;
extern int fake_warnings;

uint64_t fake_ticks_of_ns(uint64_t ns); /* the fake clock: 2 ticks per ns */
uint64_t fake_mono_ns(void);
void fake_reset(void);
const fake_rec *fake_find(int where, unsigned kind, size_t nth);
size_t fake_count(int where, unsigned kind);
int fake_file_index(const char *name);

#endif
