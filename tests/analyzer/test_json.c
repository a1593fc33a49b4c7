/* SPDX-License-Identifier: MIT */
/* Unit tests, also run under ASan+UBSan, of the JSON reader `paratrace
 * diff` reads saved profiles with (analyzer/tools/diff/pt_json.h): values,
 * escapes, what the analyzer's own JSON writer (pt_json_str) writes read
 * back as it was, and damaged text refused with its offset. */
#define _GNU_SOURCE
#include "pt_json.h"
#include "pt_text.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pt_json *parse(const char *s, char *err, size_t errlen)
{
	err[0] = 0;
	return pt_json_parse(s, strlen(s), err, errlen);
}

static void test_values(void)
{
	char err[128];
	pt_json *v = parse(" {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\", \"o\": {}} ",
	                   err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	const pt_json *a = pt_json_get(v, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->type, PT_JSON_ARRAY);
	CU_ASSERT_EQUAL(a->n, 5);
	CU_ASSERT_EQUAL(a->kids[0].num, 1);
	CU_ASSERT_EQUAL(a->kids[1].num, -2500);
	CU_ASSERT_EQUAL(a->kids[2].type, PT_JSON_BOOL);
	CU_ASSERT_EQUAL(a->kids[2].num, 1);
	CU_ASSERT_EQUAL(a->kids[3].num, 0);
	CU_ASSERT_EQUAL(a->kids[4].type, PT_JSON_NULL);
	CU_ASSERT_STRING_EQUAL(pt_json_strv(v, "s"), "x");
	CU_ASSERT_EQUAL(pt_json_get(v, "o")->n, 0);
	CU_ASSERT_PTR_NULL(pt_json_get(v, "none"));
	CU_ASSERT_EQUAL(pt_json_num(v, "s"), 0); /* not a number */
	CU_ASSERT_PTR_NULL(pt_json_strv(v, "a"));
	pt_json_free(v);
}

static void test_escapes(void)
{
	char err[128];
	pt_json *v =
	    parse("[\"q\\\"b\\\\s\\/n\\nt\\t\\u00e9\\ud83d\\ude00\\ud800x\"]", err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	/* the pair is one code point; a lone high surrogate is U+FFFD */
	CU_ASSERT_STRING_EQUAL(v->kids[0].str,
	                       "q\"b\\s/n\nt\t\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
	pt_json_free(v);
}

/* What the analyzer writes, read back. */
static void test_round_trip(void)
{
	static const char *const names[] = {"plain", "quote\" backslash\\ slash/",
	                                    "line\nbreak\tand\x01\x1f", "caf\xc3\xa9 \xe2\x82\xac",
	                                    "ns::f(int, double)"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *buf = NULL, err[128];
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		fputs("{\"name\": ", f);
		pt_json_str(f, names[i]);
		fputs("}", f);
		fclose(f);
		pt_json *v = pt_json_parse(buf, len, err, sizeof err);
		CU_ASSERT_PTR_NOT_NULL(v);
		if (v)
			CU_ASSERT_STRING_EQUAL(pt_json_strv(v, "name"), names[i]);
		pt_json_free(v);
		free(buf);
	}
}

static void refused(const char *text, const char *offset)
{
	char err[128];
	pt_json *v = parse(text, err, sizeof err);
	CU_ASSERT_PTR_NULL(v);
	if (!strstr(err, offset))
		fprintf(stderr, "\n%s: '%s', expected '%s'\n", text, err, offset);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, offset));
	pt_json_free(v);
}

static void test_damaged(void)
{
	refused("", "offset 0:");
	refused("{\"functions\": [1,", "offset 17: unexpected end");
	refused("[1] 2", "offset 4: text after the value");
	refused("{\"a\" 1}", "offset 5: expected ':'");
	refused("[\"abc", "string not closed");
	refused("[\"a\\q\"]", "bad escape");
	refused("[\"a\\u12\"]", "escape");
	refused("[\"a\x01\"]", "control character");
	refused("[1,]", "offset 3: expected a value");
	refused("[tru]", "offset 1: expected a value");
	refused("{\"a\": 1e999}", "bad number");
	/* nesting past the limit is refused, not a stack overflow */
	char deep[400];
	memset(deep, '[', 300);
	deep[300] = 0;
	refused(deep, "nested too deep");
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("json", NULL, NULL);
	CU_add_test(s, "values", test_values);
	CU_add_test(s, "string escapes", test_escapes);
	CU_add_test(s, "pt_json_str read back", test_round_trip);
	CU_add_test(s, "damaged text refused with its offset", test_damaged);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
