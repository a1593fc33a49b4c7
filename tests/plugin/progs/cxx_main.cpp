// SPDX-License-Identifier: MIT
// C++: templates, lambdas, methods, constructors, an exception caught two
// frames above the throw, and a user lambda called from std::sort (whose own
// functions sit in system headers and must not be instrumented).
#include "selflog.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

template <typename T> TF T twice(T x)
{
	SL_FUNC("twice");
	return x + x;
}

struct Acc {
	int total = 0;
	TF Acc()
	{
		SL_FUNC("Acc");
	}
	TF void add(int v)
	{
		SL_FUNC("add");
		total += v;
	}
};

TF static void thrower(int d)
{
	SL_FUNC("thrower");
	if (d > 0)
		throw std::runtime_error("boom");
}

TF static void middle(int d)
{
	SL_FUNC("middle");
	thrower(d);
}

TF static int catcher(int d)
{
	SL_FUNC("catcher");
	try {
		middle(d);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}

int main(int argc, char **)
{
	sl_init();
	sl_enter("main");
	Acc acc;
	acc.add(twice(argc));
	acc.add(static_cast<int>(twice(1.5)));
	auto square = [](int v) __attribute__((noinline)) {
		SL_FUNC("lambda");
		return v * v;
	};
	acc.add(square(argc + 2));
	std::vector<int> v{5, 3, 9, 1, 7, argc};
	std::sort(v.begin(), v.end(), [](int a, int b) __attribute__((noinline)) {
		SL_FUNC("lambda");
		return a < b;
	});
	acc.add(v.front());
	acc.add(catcher(argc) + catcher(0));
	std::printf("result %d\n", acc.total);
	sl_exit("main");
	return 0;
}
