/* SPDX-License-Identifier: MIT */
/* Unit tests of pt_text.h: a trace's strings as each kind of output writes
 * them (text, CSV, .pcf/.row labels, JSON, protobuf, markup), and cuts to
 * a width that never fall inside an escape or a UTF-8 character (also run
 * under ASan+UBSan). */
#define _GNU_SOURCE
#include "pt_names.h"
#include "pt_text.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hostile: a terminal title (OSC 0 ... BEL), a screen clear, CR LF, TAB,
 * DEL, a C1 CSI (U+009B), invalid bytes (a lone continuation byte, an
 * overlong form, a surrogate, 0xff), and valid UTF-8 (é, 日). */
static const char hostile[] = "a\x1b]0;T\x07\x1b[2J\r\n\t\x7f\xc2\x9b|\x80\xc0\xaf\xed\xa0\x80\xff"
                              "\\\"<&'\xc3\xa9\xe6\x97\xa5";

typedef void writer(FILE *o, const char *s);

static char *written(writer *w, const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	w(o, s);
	fclose(o);
	return buf;
}

static void text_put(FILE *o, const char *s)
{
	pt_text_put(o, s, 0);
}

static void text_put_space(FILE *o, const char *s)
{
	pt_text_put(o, s, PT_TEXT_SPACE);
}

static void expect(writer *w, const char *s, const char *want)
{
	char *got = written(w, s);
	if (strcmp(got, want))
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

/* Every byte of s is printable ASCII or part of valid UTF-8, and no C1. */
static int displayable(const char *s)
{
	size_t n = strlen(s);
	if (pt_utf8_valid(s, n) != n)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			return 0;
	return 1;
}

static void test_text(void)
{
	expect(text_put, "plain name(int) é", "plain name(int) é");
	expect(
	    text_put, hostile,
	    "a\\x1b]0;T\\x07\\x1b[2J\\x0d\\x0a\\x09\\x7f\\xc2\\x9b|\\x80\\xc0\\xaf\\xed\\xa0\\x80"
	    "\\xff\\x5c\"<&'\xc3\xa9\xe6\x97\xa5");
	expect(text_put_space, "a b", "a\\x20b");
	/* a truncated sequence at the end: its bytes escaped */
	expect(text_put, "x\xe6\x97", "x\\xe6\\x97");
	char out[256];
	size_t n = pt_text_escape(out, sizeof out, hostile);
	CU_ASSERT_EQUAL(n, strlen(out));
	CU_ASSERT(displayable(out));
	char *put = written(text_put, hostile);
	CU_ASSERT_STRING_EQUAL(out, put);
	free(put);
	/* a buffer too small ends at a whole unit */
	n = pt_text_escape(out, 4, "\x1b");
	CU_ASSERT_EQUAL(n, 0);
	n = pt_text_escape(out, 5, "\x1b\x1b");
	CU_ASSERT_STRING_EQUAL(out, "\\x1b");
	n = pt_text_escape(out, 3, "\xc3\xa9\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(out, "\xc3\xa9");
}

static void test_cut(void)
{
	char out[64];
	/* columns: a character is one, an escape four */
	CU_ASSERT_EQUAL(pt_text_cols("ab\xc3\xa9\xe6\x97\xa5"), 4);
	CU_ASSERT_EQUAL(pt_text_cols("\\x1bz"), 5);
	pt_text_fit(out, sizeof out, "short", 10, 1);
	CU_ASSERT_STRING_EQUAL(out, "short");
	/* never inside an escape: "..\x1b" would not fit in 5, so ".." + "z" */
	pt_text_fit(out, sizeof out, "abc\x1bz", 5, 1);
	CU_ASSERT_STRING_EQUAL(out, "..z");
	pt_text_fit(out, sizeof out, "abc\x1bz", 7, 1);
	CU_ASSERT_STRING_EQUAL(out, "..\\x1bz");
	pt_text_fit(out, sizeof out, "\x1bzzzzzz", 5, 0);
	CU_ASSERT_STRING_EQUAL(out, "..");
	pt_text_fit(out, sizeof out, "\x1bzzzzzz", 6, 0);
	CU_ASSERT_STRING_EQUAL(out, "\\x1b..");
	pt_text_fit(out, sizeof out, "\x1bzzzzzz", 8, 0);
	CU_ASSERT_STRING_EQUAL(out, "\\x1bzz..");
	/* never inside a UTF-8 character */
	pt_text_fit(out, sizeof out, "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5", 3, 1);
	CU_ASSERT_STRING_EQUAL(out, "..\xe6\x97\xa5");
	pt_text_fit(out, sizeof out, "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5", 3, 0);
	CU_ASSERT_STRING_EQUAL(out, "\xe6\x97\xa5..");
	/* an output buffer too small: a whole unit less */
	pt_text_fit(out, 6, "\x1b\x1b", 20, 1);
	CU_ASSERT_STRING_EQUAL(out, "\\x1b");
	pt_text_fit(out, 4, "\xe6\x97\xa5\xe6\x97\xa5", 20, 1);
	CU_ASSERT_STRING_EQUAL(out, "\xe6\x97\xa5");
	/* every cut of the hostile string, at every width, stays displayable
	 * and within its width */
	for (size_t w = 3; w < 60; w++)
		for (int end = 0; end < 2; end++) {
			pt_text_fit(out, sizeof out, hostile, w, end);
			CU_ASSERT(displayable(out));
			CU_ASSERT(pt_text_cols(out) <= w);
		}
	for (size_t len = 1; len < 40; len++) {
		pt_text_fit(out, len, hostile, 60, 1);
		CU_ASSERT(displayable(out));
		CU_ASSERT(strlen(out) < len);
	}
}

static void test_names_fit(void)
{
	char out[64];
	/* pt_name_fit escapes, and cuts between units */
	pt_name_fit(out, sizeof out, "fn\x1b[31mRED\x1b[0m\rOVERWRITE", 60);
	CU_ASSERT_STRING_EQUAL(out, "fn\\x1b[31mRED\\x1b[0m\\x0dOVERWRITE");
	pt_name_fit(out, sizeof out, "ns::f\x1b(int)", 10);
	CU_ASSERT_STRING_EQUAL(out, "..\\x1b(..)");
	for (size_t w = 4; w < 60; w++) {
		pt_name_fit(out, sizeof out, hostile, w);
		CU_ASSERT(displayable(out));
		CU_ASSERT(pt_text_cols(out) <= w);
	}
}

static void test_csv_label(void)
{
	expect(pt_csv_str, "a\"b\nc", "\"a\"\"b\\x0ac\"");
	expect(pt_label_put, "prog\nX pid", "prog\\x0aX pid");
}

static void test_json(void)
{
	expect(pt_json_str, "plain é", "\"plain é\"");
	expect(pt_json_str, "q\"b\\\n\x1b\x7f\xc2\x9b",
	       "\"q\\\"b\\\\\\u000a\\u001b\\u007f\\u009b\"");
	/* what is not UTF-8: one U+FFFD per maximal invalid part, as Python's
	 * bytes.decode("utf-8", "replace") */
	expect(pt_json_str, "nonutf8\xff\xfe\x80\xc0\xaf end",
	       "\"nonutf8\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd end\"");
	expect(pt_json_str, "\xed\xa0\x80\xf4\x90\x80\x80\xe6\x97",
	       "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
	expect(pt_json_str, "x\xe6\x97y\xf0\x9f\x98", "\"x\\ufffdy\\ufffd\"");
	expect(pt_json_str, "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
}

static void test_utf8(void)
{
	CU_ASSERT_EQUAL(pt_utf8_valid("ok\xc3\xa9", 4), 4);
	CU_ASSERT_EQUAL(pt_utf8_valid("ok\xc3", 3), 2);
	char out[64];
	size_t n = pt_utf8_fix(out, "a\377b\xe6\x97", 5);
	CU_ASSERT_EQUAL(n, 8);
	CU_ASSERT_STRING_EQUAL(out, "a\xef\xbf\xbd"
	                            "b\xef\xbf\xbd");
	n = pt_utf8_fix(out, hostile, strlen(hostile));
	CU_ASSERT_EQUAL(pt_utf8_valid(out, n), n);
}

static void xml_fit_end(FILE *o, const char *s)
{
	pt_xml_fit(o, s, 7, 1);
}

static void test_xml(void)
{
	expect(pt_xml_str, "a<b>&\"'\x1b\xff\\", "a&lt;b&gt;&amp;&quot;&#39;\\x1b\\xff\\x5c");
	/* cut first, then entities: never inside one */
	expect(xml_fit_end, "xxxxxxxx<&>", "..xx&lt;&amp;&gt;");
	char *x = written(pt_xml_str, hostile);
	CU_ASSERT(displayable(x));
	free(x);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("text", NULL, NULL);
	CU_add_test(s, "text: controls and bad bytes escaped", test_text);
	CU_add_test(s, "cuts at whole units", test_cut);
	CU_add_test(s, "function names: escaped, then fitted", test_names_fit);
	CU_add_test(s, "CSV cells and Paraver labels", test_csv_label);
	CU_add_test(s, "JSON: valid UTF-8, U+FFFD", test_json);
	CU_add_test(s, "protobuf: valid UTF-8", test_utf8);
	CU_add_test(s, "markup", test_xml);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
