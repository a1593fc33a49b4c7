/* SPDX-License-Identifier: MIT */
/* Shared library (instrumented, -fPIC), used by the executable and by the
 * dlopen'ed plugin; it also holds the self-log so all three share one. */
#include "selflog.h"

TF int shared_work(int x)
{
	sl_enter("shared_work");
	sl_exit("shared_work");
	return x * 3;
}
