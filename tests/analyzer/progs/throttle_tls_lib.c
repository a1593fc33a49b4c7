/* SPDX-License-Identifier: MIT */
/* A shared object built with instrument.so and counts-tls=initial-exec
 * (hook ABI 3 with its thread-local counts pointer in PIC code), which
 * throttle_tls dlopens, throttles, dlcloses and opens again. */
long lib_calls;

__attribute__((noinline)) int lib_tiny(int x)
{
	lib_calls++;
	return x ^ 5;
}
