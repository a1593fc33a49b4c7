/* SPDX-License-Identifier: MIT */
/* The workloads of bench/throttle (throttle_bench.py builds this file
 * plain and with instrument.so, and runs it untraced and traced):
 *   workload tiny <calls>    a loop calling one tiny leaf function; prints
 *                            ns per call, timed after a warm-up of 300,000
 *                            calls (past the default throttling threshold)
 *   workload interp <steps>  an interpreter's dispatch loop: each step
 *                            decodes an instruction and calls its handler,
 *                            a function of a few ns; prints the loop's time
 *                            in ns
 * Times are the thread's CPU time (now_ns).
 * Both print their result's checksum on a second line, which must be the
 * same in every configuration (the program's output never changes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The calling thread's CPU time (user + kernel: the runtime's work for
 * the log included): on a shared machine wall time mostly measures the
 * wait for a CPU. */
static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline)) int tiny(int x)
{
	return x * 3 + 1;
}

/* The interpreter: a stack machine running a loop of 16 instructions. */
typedef struct vm {
	int64_t stack[64];
	int sp;
	int64_t regs[8];
	int pc;
} vm;

enum { OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_XOR, OP_SHR, OP_DUP, OP_POP, OP_JMP };

__attribute__((noinline)) void op_push(vm *m, int a)
{
	m->stack[m->sp++] = a;
}
__attribute__((noinline)) void op_load(vm *m, int a)
{
	m->stack[m->sp++] = m->regs[a & 7];
}
__attribute__((noinline)) void op_store(vm *m, int a)
{
	m->regs[a & 7] = m->stack[--m->sp];
}
__attribute__((noinline)) void op_add(vm *m, int a)
{
	(void)a;
	m->sp--;
	m->stack[m->sp - 1] += m->stack[m->sp];
}
__attribute__((noinline)) void op_sub(vm *m, int a)
{
	(void)a;
	m->sp--;
	m->stack[m->sp - 1] -= m->stack[m->sp];
}
__attribute__((noinline)) void op_mul(vm *m, int a)
{
	(void)a;
	m->sp--;
	m->stack[m->sp - 1] *= m->stack[m->sp];
}
__attribute__((noinline)) void op_xor(vm *m, int a)
{
	(void)a;
	m->sp--;
	m->stack[m->sp - 1] ^= m->stack[m->sp];
}
__attribute__((noinline)) void op_shr(vm *m, int a)
{
	m->stack[m->sp - 1] >>= (a & 15);
}
__attribute__((noinline)) void op_dup(vm *m, int a)
{
	(void)a;
	m->stack[m->sp] = m->stack[m->sp - 1];
	m->sp++;
}
__attribute__((noinline)) void op_pop(vm *m, int a)
{
	(void)a;
	m->sp--;
}
__attribute__((noinline)) void op_jmp(vm *m, int a)
{
	m->pc = a;
}

typedef void (*handler)(vm *, int);
static const handler handlers[] = {op_push, op_load, op_store, op_add, op_sub, op_mul,
                                   op_xor,  op_shr,  op_dup,   op_pop, op_jmp};
static const struct {
	int op, a;
} program[] = {
    {OP_LOAD, 0},  {OP_PUSH, 7}, {OP_MUL, 0},   {OP_LOAD, 1}, {OP_ADD, 0},  {OP_DUP, 0},
    {OP_SHR, 3},   {OP_XOR, 0},  {OP_STORE, 0}, {OP_LOAD, 1}, {OP_PUSH, 1}, {OP_ADD, 0},
    {OP_STORE, 1}, {OP_LOAD, 0}, {OP_POP, 0},   {OP_JMP, 0},
};

__attribute__((noinline)) int64_t run(vm *m, long steps)
{
	for (long i = 0; i < steps; i++) {
		int pc = m->pc++;
		handlers[program[pc].op](m, program[pc].a);
	}
	return m->regs[0] ^ m->regs[1];
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long n = atol(argv[2]);
	if (!strcmp(argv[1], "tiny")) {
		int s = 0;
		for (long i = 0; i < 300000; i++)
			s += tiny((int)i);
		double t0 = now_ns();
		for (long i = 0; i < n; i++)
			s += tiny((int)i);
		double t1 = now_ns();
		printf("%.3f\n%d\n", (t1 - t0) / (double)n, s);
	} else {
		vm m;
		memset(&m, 0, sizeof m);
		m.regs[0] = 1;
		double t0 = now_ns();
		int64_t r = run(&m, n);
		double t1 = now_ns();
		printf("%.0f\n%lld\n", t1 - t0, (long long)r);
	}
	return 0;
}
