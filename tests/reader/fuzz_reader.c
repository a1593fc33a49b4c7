/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the reader: any bytes, read whole and fed in chunks
 * whose sizes come from the input itself, must give the same events and
 * the same final state, end in EOF or ERROR once input ends, and never
 * crash (ASan/UBSan). Records also go through pt_event_string, the symbol
 * table's record parsing (FUNC_DEF, GPU names) and the dump line
 * formatter. MODULE_MAP records are kept from the symbol table: their paths
 * would make it open arbitrary files. */
#include <paratrace/log.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump_format.h"
#include "pt_symbols.h"

static FILE *sink;

typedef struct summary {
	uint64_t n, hash;
	enum pt_log_state state;
	uint64_t offset, truncated;
	int complete;
} summary;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static void touch(const pt_event *ev, pt_symtab *st)
{
	/* Walk every string start the payload could hold. */
	for (size_t off = 0; off + sizeof(pt_rec_head) < ev->size; off += 8) {
		const char *s = pt_event_string(ev, off);
		if (s && strlen(s) >= ev->size)
			abort();
	}
	if (st) {
		if (ev->kind != PT_REC_MODULE_MAP)
			pt_symtab_add(st, ev);
		pt_sym sym;
		if (ev->kind == PT_REC_FUNC_ENTER && pt_symtab_func(st, ev->func_id, &sym) == 0 && !sym.name)
			abort();
	}
	(void)pt_rec_kind_name(ev->kind);
}

/* chunk == 0: everything at once; otherwise sizes from the data. */
static summary run(const uint8_t *data, size_t size, int chunked, pt_symtab *st)
{
	const pt_file_header *hdr;
	summary s = {0};
	pt_log *log = pt_log_open(PT_LOG_FD_NONE, 0);
	if (!log)
		abort();
	size_t pos = 0, k = 0;
	pt_event ev;
	for (;;) {
		while (pt_log_read(log, &ev) == 0) {
			if (ev.serial != s.n || ev.size < 2 || ev.size % 2)
				abort();
			s.hash = mix(s.hash, ev.kind);
			s.hash = mix(s.hash, ev.offset);
			s.hash = mix(s.hash, ev.ticks);
			s.hash = mix(s.hash, ev.time_ns);
			s.hash = mix(s.hash, ev.size);
			s.n++;
			touch(&ev, st);
			hdr = pt_log_header(log);
			if (!hdr)
				abort(); /* records only come after a valid header */
			if (st)
				pt_dump_event(sink, &ev, hdr->pid, hdr->tid, hdr, hdr->open.mono_ns, st);
		}
		if (ev.state != PT_LOG_REQUIRE_DATA)
			break;
		if (pos == size) {
			if (k == (size_t)-1)
				abort(); /* REQUIRE_DATA after end of input */
			pt_log_feed(log, NULL, 0);
			k = (size_t)-1;
			continue;
		}
		size_t n = chunked ? 1 + data[k++ % size] % 61 : size;
		if (n > size - pos)
			n = size - pos;
		pt_log_feed(log, data + pos, n);
		pos += n;
	}
	s.state = ev.state;
	s.offset = ev.offset;
	s.truncated = ev.truncated_bytes;
	s.complete = ev.complete;
	if (ev.state == PT_LOG_ERROR && (!ev.error || !ev.error[0]))
		abort();
	if (ev.state != PT_LOG_EOF && ev.state != PT_LOG_ERROR)
		abort();
	pt_log_close(log);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	pt_symtab *st = pt_symtab_new();
	summary a = run(data, size, 0, st);
	summary b = run(data, size, 1, NULL);
	pt_symtab_free(st);
	if (a.n != b.n || a.hash != b.hash || a.state != b.state || a.offset != b.offset ||
	    a.truncated != b.truncated || a.complete != b.complete)
		abort();
	return 0;
}
