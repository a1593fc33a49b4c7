/* SPDX-License-Identifier: MIT */
/* Unit tests of pt_name_fit (analyzer/symbols/pt_names.h): demangled C++
 * names shortened to a column's width, keeping namespaces and classes, and
 * names that are not C++ at all (also run under ASan+UBSan). */
#include "pt_names.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

static void expect(const char *name, size_t width, const char *want)
{
	char out[1200];
	size_t n = pt_name_fit(out, sizeof out, name, width);
	if (strcmp(out, want))
		fprintf(stderr, "\n%s in %zu\n  got:  %s\n  want: %s\n", name, width, out, want);
	CU_ASSERT_STRING_EQUAL(out, want);
	CU_ASSERT_EQUAL(n, strlen(out));
	CU_ASSERT(n <= width || strlen(name) <= width);
}

static void test_fits_already(void)
{
	expect("main", 30, "main");
	expect("worker_main(void*)", 18, "worker_main(void*)");
	expect("", 10, "");
}

static void test_parameters(void)
{
	/* the parameter list is the group that ends the name, not the first '(' */
	expect("db::(anonymous namespace)::ShardedCache::Lookup(db::Slice const&, unsigned int)",
	       60, "db::(anonymous namespace)::ShardedCache::Lookup(..)");
	expect("db::Compare::operator()(db::Key const&, db::Key const&) const", 30,
	       "..operator()(..) const");
	expect("db::Key::operator<(db::Key const&)", 30, "db::Key::operator<(..)");
	expect("db::Key::operator<<(db::Slice const&)", 30, "db::Key::operator<<(..)");
	expect("X::operator->() const", 12, "..->() const");
	/* "()" stays "()": "(..)" would be longer */
	expect("db::Key::operator unsigned int()", 30, "..Key::operator unsigned int()");
	expect("f(int) [clone .cold]", 8, "f(..)");
}

static void test_overloads(void)
{
	/* the const and non-const overloads of a method never print the same:
	 * the qualifiers stay after "(..)" */
	expect("linalg::detail::Matrix<double>::row(unsigned long) const", 30,
	       "..Matrix<..>::row(..) const");
	expect("linalg::detail::Matrix<double>::row(unsigned long)", 30,
	       "..detail::Matrix<..>::row(..)");
	expect("Buffer::data(unsigned long) const &&", 26, "Buffer::data(..) const &&");
	expect("Buffer::data(unsigned long) &", 20, "Buffer::data(..) &");
	expect("Queue::pop(int) noexcept", 20, "..pop(..) noexcept");
}

static void test_templates_and_lambdas(void)
{
	expect("std::vector<int, std::allocator<int> >::push_back(int const&)", 30,
	       "std::vector<..>::push_back(..)");
	expect("void db::Table<int>::Insert<std::pair<int, int> >(std::pair<int, int>)", 30,
	       "db::Table<..>::Insert<..>(..)");
	/* the '<' of an operator is no template bracket */
	expect("std::map<std::string, int>::operator[](std::string const&)", 30,
	       "std::map<..>::operator[](..)");
	expect("bool ns::operator< <char>(std::string const&, std::string const&)", 20,
	       "..operator< <..>(..)");
	expect("main::{lambda(int)#1}::operator()(int) const", 30, "main::{lambda(..)#1}(..)");
	expect("db::Table::Scan()::{lambda(db::Key const&)#1}::operator()(db::Key const&) const",
	       30, "..Scan()::{lambda(..)#1}(..)");
}

static void test_scopes_then_start(void)
{
	/* whole scopes go first, as few as needed */
	expect("db::(anonymous namespace)::ShardedCache::Lookup(db::Slice const&, unsigned int)",
	       40, "db::(anon)::ShardedCache::Lookup(..)");
	expect("db::(anonymous namespace)::ShardedCache::Lookup(db::Slice const&, unsigned int)",
	       30, "..ShardedCache::Lookup(..)");
	/* then the start of the last one */
	expect("db::(anonymous namespace)::ShardedCache::Lookup(db::Slice const&, unsigned int)",
	       10, "..okup(..)");
	expect("a_very_long_c_function_name_without_params", 20, "..ame_without_params");
}

static void test_not_cxx(void)
{
	/* unbalanced or odd text: cut at its start, never past its end */
	expect("broken<name(with", 8, "..e(with");
	expect("))))((((", 6, "..((((");
	expect("x<<<<<<<<<<<<<<<<<<", 6, "..<<<<");
	char big[2000];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	char out[64];
	CU_ASSERT_EQUAL(pt_name_fit(out, sizeof out, big, 20), 20);
	CU_ASSERT_EQUAL(pt_name_fit(out, 8, big, 20), 7); /* out's size bounds it */
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("names", NULL, NULL);
	CU_add_test(s, "names that fit", test_fits_already);
	CU_add_test(s, "parameter lists", test_parameters);
	CU_add_test(s, "overloads", test_overloads);
	CU_add_test(s, "templates, operators, lambdas", test_templates_and_lambdas);
	CU_add_test(s, "scopes, then the start", test_scopes_then_start);
	CU_add_test(s, "names that are not C++", test_not_cxx);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
