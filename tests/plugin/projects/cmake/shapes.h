/* SPDX-License-Identifier: MIT */
#include "selflog.h"

struct Shape {
	NOINSTR virtual ~Shape() = default;
	virtual double area() const = 0;
};
Shape *make_square(double side);
Shape *make_circle(double r);
