// SPDX-License-Identifier: MIT
// Built with instrument.so (hook ABI 2) and linked with
// throttle_abi_v1.c (a hand-written ABI-1 module), run under libtrace.so by
// test_throttle_abi.py with a throttling threshold every function here
// meets after 10,000 calls. One thread runs, in order:
//   rec    a recursion throttled while its outer call is open
//   exc    exceptions thrown from a throttled function, through a throttled
//          and an unthrottled frame, caught in a recorded one
//   jmp    longjmp out of throttled frames and one unthrottled frame, to a
//          setjmp in a recorded call
//   v1     ABI-1 functions, one throttled while the other is open around
//          it, calling ABI-2 functions and called from one
// Each function counts its own calls; the program prints the counts
// (COUNT name n) and how many longjmps landed (LANDED n), the same traced
// or not.
#include <csetjmp>
#include <cstdio>

extern "C" {
long v1_outer(long n);
int v1_tiny(int x);
extern volatile long v1_tiny_calls, v1_outer_calls;
}

static volatile long n_rec, n_thrower, n_mid, n_wrap, n_exc, n_jdeep, n_jmid, n_jwrap, n_jumper,
    n_leaf, n_v2_outer;
static volatile int jump_on;
static jmp_buf env;

__attribute__((noinline)) long rec(int d, long reps)
{
	n_rec++;
	long s = d;
	for (long i = 0; i < reps; i++)
		s += rec(5, 0);
	if (!reps && d > 0)
		s = rec(d - 1, 0) * 3 + d;
	return s;
}

__attribute__((noinline)) int thrower(int i)
{
	n_thrower++;
	if (i % 7 == 3)
		throw i;
	return i;
}

__attribute__((noinline)) int mid(int i)
{
	n_mid++;
	return thrower(i) * 2 + 1;
}

// one iteration in 100: unthrottled between two throttled frames
__attribute__((noinline)) int wrap(int i)
{
	n_wrap++;
	return mid(i) + 1;
}

__attribute__((noinline)) long exc(int n)
{
	n_exc++;
	long s = 0;
	for (int i = 0; i < n; i++) {
		try {
			s += i % 100 == 0 ? wrap(i) : mid(i);
		} catch (int x) {
			s -= x;
		}
	}
	return s;
}

__attribute__((noinline)) int jdeep(int i)
{
	n_jdeep++;
	if (jump_on && i % 5 == 0)
		longjmp(env, 1);
	return i;
}

__attribute__((noinline)) int jmid(int i)
{
	n_jmid++;
	return jdeep(i) + 1;
}

__attribute__((noinline)) int jwrap(int i)
{
	n_jwrap++;
	return jmid(i) + 1;
}

// every landing skips jwrap's recorded frame (docs/ABI.md: a landing is
// told from a new call by the frames it closes)
__attribute__((noinline)) long jumper(int warm, int n)
{
	n_jumper++;
	// static: changed between setjmp and longjmp, read after a landing
	static volatile long s;
	static volatile int i, landed;
	for (i = 0; i < warm; i++)
		s = s + jmid(i);
	jump_on = 1;
	for (i = 0; i < n; i++)
		if (setjmp(env) == 0)
			s = s + jwrap(i);
		else
			landed = landed + 1;
	jump_on = 0;
	std::printf("LANDED jumper %d\n", landed);
	return s;
}

extern "C" __attribute__((noinline)) int v2_leaf(int x)
{
	n_leaf++;
	return x ^ 5;
}

__attribute__((noinline)) long v2_outer(int n)
{
	n_v2_outer++;
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v1_tiny(i);
	return s;
}

int main()
{
	long s = rec(6, 20000);
	s += exc(30000);
	s += jumper(20000, 1000);
	s += v1_outer(20000);
	s += v2_outer(20000);
	std::printf("%ld\n", s);
	const struct {
		const char *name;
		volatile long *n;
	} counts[] = {{"rec", &n_rec},
	              {"thrower", &n_thrower},
	              {"mid", &n_mid},
	              {"wrap", &n_wrap},
	              {"exc", &n_exc},
	              {"jdeep", &n_jdeep},
	              {"jmid", &n_jmid},
	              {"jwrap", &n_jwrap},
	              {"jumper", &n_jumper},
	              {"v2_leaf", &n_leaf},
	              {"v2_outer", &n_v2_outer},
	              {"v1_tiny", &v1_tiny_calls},
	              {"v1_outer", &v1_outer_calls}};
	for (const auto &c : counts)
		std::printf("COUNT %s %ld\n", c.name, *c.n);
	return 0;
}
