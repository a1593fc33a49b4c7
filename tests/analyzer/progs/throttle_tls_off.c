/* SPDX-License-Identifier: MIT */
/* Built with instrument.so and counts-tls=off: a module of hook ABI 3
 * with no thread-local counts pointer (thread_counts NULL), linked into
 * throttle_tls beside modules that have one. */
volatile long off_tiny_calls;

__attribute__((noinline)) int off_tiny(int x)
{
	off_tiny_calls++;
	return x - 1;
}
