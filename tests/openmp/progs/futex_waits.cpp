// SPDX-License-Identifier: MIT
// C++20 waits that libstdc++ makes with futexes (syscall(SYS_futex, ...)),
// for tests/openmp/check_futex.py. Each wait is made to block exactly once:
// what it waits for comes only once the waiting thread is seen asleep in
// the futex system call (/proc/self/task/TID/syscall), and DELAY_MS after
// that, so a machine too busy to start a thread in time cannot turn a wait
// into none or into a short one. The program prints how many waits blocked
// ("blocking_waits N").
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <initializer_list>
#include <latch>
#include <semaphore>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

static constexpr int DELAY_MS = 40;
static constexpr int ATOMIC_ROUNDS = 3;
static constexpr int LATCH_WAITERS = 2;
static constexpr int BARRIER_THREADS = 3;
static constexpr int BARRIER_PHASES = 2;

// Whether thread tid of this process is blocked in futex(): the file holds
// the number of the system call it is blocked in ("running" when it runs).
static bool in_futex(pid_t tid)
{
	char path[64];
	std::snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = std::fopen(path, "r");
	if (!f)
		return false;
	long nr = -1;
	bool ok = std::fscanf(f, "%ld", &nr) == 1;
	std::fclose(f);
	return ok && nr == SYS_futex;
}

// A thread that waits: its tid and how many waits it has entered, both
// published by the thread itself just before each wait.
struct Waiter {
	std::atomic<pid_t> tid{0};
	std::atomic<int> entered{0};
	void enter()
	{
		tid = gettid();
		entered++;
	}
};

// Returns DELAY_MS after every waiter has entered its n-th wait and is
// asleep in it (a waiter seen in futex() before it entered the n-th could
// still be in its previous wait); gives up waiting for that after 5 s.
static void later(std::initializer_list<const Waiter *> waiters, int n)
{
	auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
	for (auto *w : waiters)
		while ((w->entered.load() < n || !in_futex(w->tid.load())) &&
		       std::chrono::steady_clock::now() < give_up)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	std::this_thread::sleep_for(std::chrono::milliseconds(DELAY_MS));
}

int main()
{
	int blocking = 0;

	// std::atomic<int>::wait / notify_one: wait(r) blocks until the main
	// thread stores r + 1, ATOMIC_ROUNDS times.
	std::atomic<int> flag{0};
	Waiter w;
	std::thread waiter([&] {
		for (int r = 0; r < ATOMIC_ROUNDS; r++) {
			w.enter();
			flag.wait(r);
		}
	});
	for (int r = 0; r < ATOMIC_ROUNDS; r++) {
		later({&w}, r + 1);
		flag.store(r + 1);
		flag.notify_one();
	}
	waiter.join();
	blocking += ATOMIC_ROUNDS;

	// std::latch: LATCH_WAITERS threads wait, the main thread counts down.
	std::latch go(1);
	std::vector<std::thread> ts;
	Waiter lw[LATCH_WAITERS];
	for (int i = 0; i < LATCH_WAITERS; i++)
		ts.emplace_back([&, i] {
			lw[i].enter();
			go.wait();
		});
	later({&lw[0], &lw[1]}, 1);
	go.count_down();
	for (auto &t : ts)
		t.join();
	ts.clear();
	blocking += LATCH_WAITERS;

	// std::barrier: every phase, thread 0 arrives last, once the others
	// wait; they block, it does not.
	std::barrier sync(BARRIER_THREADS);
	Waiter bw[BARRIER_THREADS];
	for (int i = 0; i < BARRIER_THREADS; i++)
		ts.emplace_back([&, i] {
			for (int p = 0; p < BARRIER_PHASES; p++) {
				if (i == 0)
					later({&bw[1], &bw[2]}, p + 1);
				else
					bw[i].enter();
				sync.arrive_and_wait();
			}
		});
	for (auto &t : ts)
		t.join();
	ts.clear();
	blocking += (BARRIER_THREADS - 1) * BARRIER_PHASES;

	// std::counting_semaphore: acquire blocks until the release.
	std::counting_semaphore<4> sem(0);
	Waiter sw;
	std::thread taker([&] {
		sw.enter();
		sem.acquire();
	});
	later({&sw}, 1);
	sem.release();
	taker.join();
	blocking += 1;

	std::printf("blocking_waits %d\n", blocking);
	return 0;
}
