/* SPDX-License-Identifier: MIT */
/* Writes the fuzzer's seed corpus (tests/reader/corpus): valid logs of each
 * file kind, and the edge cases the reader must handle (truncation, zero
 * tail, damaged sizes, foreign headers). Run: gen_corpus <dir>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_test_writer.h"

static const char *outdir;

static void save(const char *name, const uint8_t *data, size_t len)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", outdir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus <dir>\n");
		return 2;
	}
	outdir = argv[1];
	ptw w;
	ptw_sample_thread_log(&w, 0);
	save("thread-all-kinds.ptl", w.buf, w.len);
	save("thread-truncated.ptl", w.buf, w.len - 13);
	save("thread-cut-in-header.ptl", w.buf, 100);
	uint8_t *z = calloc(1, w.len + 512);
	size_t no_close = w.recs[w.nrecs - 1].offset;
	memcpy(z, w.buf, no_close);
	save("thread-zero-tail.ptl", z, no_close + 512);
	memcpy(z, w.buf, w.len);
	((pt_rec_head *)(z + w.recs[4].offset))->size8 = 0x7fff;
	save("thread-bad-size.ptl", z, w.len);
	memcpy(z, w.buf, w.len);
	((pt_file_header *)z)->version_major = PT_FORMAT_VERSION_MAJOR + 1;
	save("thread-version-newer.ptl", z, 512);
	memcpy(z, w.buf, w.len);
	((pt_file_header *)z)->byte_order = PT_BYTE_ORDER_BIG;
	save("thread-big-endian.ptl", z, 512);
	free(z);
	ptw_free(&w);
	ptw_sample_thread_log_major(&w, 1, 1);
	save("thread-version1.ptl", w.buf, w.len);
	ptw_free(&w);
	ptw_sample_thread_log_major(&w, 2, 2);
	save("thread-version2.ptl", w.buf, w.len);
	ptw_free(&w);

	/* A process log: module map and function table. */
	uint64_t t = 50;
	ptw_begin(&w, PT_FILE_PROCESS, 10, 0, t, 1000, 0x55555555, 32);
	ptw_time(&w, t);
	uint8_t mm[sizeof(pt_rec_module_map) + 20 + 16] = {0};
	pt_rec_module_map m = {0x400000, 0x400000, 0x480000, 20, PT_MODULE_MAIN};
	memcpy(mm, &m, sizeof m);
	memset(mm + sizeof m, 0xab, 20);
	memcpy(mm + sizeof m + 20, "/usr/bin/app", 13);
	ptw_rec(&w, PT_REC_MODULE_MAP, 0, ++t, mm, sizeof mm);
	for (uint32_t id = 1; id <= 4; id++) {
		pt_rec_func_def fd = {id, 10 * id, 0x400000};
		ptw_rec_strs(&w, PT_REC_FUNC_DEF, 0, ++t, &fd, sizeof fd, id % 2 ? "_ZN2ns1fEv" : "plain",
			     "src/app.c");
	}
	pt_rec_exit ex = {0, PT_EXIT_NORMAL};
	ptw_rec(&w, PT_REC_EXIT, 0, ++t, &ex, sizeof ex);
	ptw_close(&w, ++t);
	save("process.ptl", w.buf, w.len);
	ptw_free(&w);

	/* A hot-path log: many function records, short, compact and 8-byte. */
	t = 7;
	ptw_begin(&w, PT_FILE_THREAD, 10, 11, t, 0, 1, 0);
	ptw_time(&w, t);
	for (uint32_t i = 0; i < 40; i++) {
		ptw_func(&w, PT_REC_FUNC_ENTER, 1 + i % 5, t += 3);
		ptw_func(&w, PT_REC_FUNC_ENTER, 1 + i % 5, t += 1); /* recursion: short */
		ptw_func(&w, PT_REC_FUNC_EXIT, 1 + i % 5, t += 1);
		ptw_func(&w, PT_REC_FUNC_EXIT, 1 + i % 5, t += (i == 20 ? 0x1ffffffffull : 2));
	}
	save("thread-hot.ptl", w.buf, w.len);
	ptw_free(&w);
	return 0;
}
