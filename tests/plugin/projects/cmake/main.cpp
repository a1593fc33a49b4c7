// SPDX-License-Identifier: MIT
#include "selflog.h"
#include "shapes.h"

#include <cstdio>
#include <memory>
#include <vector>

TF static double total(const std::vector<std::unique_ptr<Shape>> &v)
{
	SL_FUNC("total");
	double t = 0;
	for (const auto &s : v)
		t += s->area(); // virtual calls into the library
	return t;
}

int main()
{
	sl_init();
	sl_enter("main");
	std::vector<std::unique_ptr<Shape>> v;
	v.emplace_back(make_square(2));
	v.emplace_back(make_circle(1));
	v.emplace_back(make_square(3));
	std::printf("total %.1f\n", total(v));
	v.clear();
	sl_exit("main");
	return 0;
}
