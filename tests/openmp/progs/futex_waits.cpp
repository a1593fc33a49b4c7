// C++20 waits that libstdc++ makes with futexes (syscall(SYS_futex, ...)),
// for tests/openmp/check_futex.py. Each wait is made to block: what it waits
// for comes DELAY_MS later, long after libstdc++'s spinning has given up, so
// every wait is exactly one FUTEX_WAIT. The program prints how many waits
// blocked ("blocking_waits N") and the time each phase's waiters waited.
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <latch>
#include <semaphore>
#include <thread>
#include <vector>

static constexpr int DELAY_MS = 40;
static constexpr int ATOMIC_ROUNDS = 3;
static constexpr int LATCH_WAITERS = 2;
static constexpr int BARRIER_THREADS = 3;
static constexpr int BARRIER_PHASES = 2;

static void later()
{
	std::this_thread::sleep_for(std::chrono::milliseconds(DELAY_MS));
}

int main()
{
	int blocking = 0;

	// std::atomic<int>::wait / notify_one: wait(r) blocks until the main
	// thread stores r + 1, DELAY_MS later, ATOMIC_ROUNDS times.
	std::atomic<int> flag{0};
	std::thread waiter([&] {
		for (int r = 0; r < ATOMIC_ROUNDS; r++)
			flag.wait(r);
	});
	for (int r = 0; r < ATOMIC_ROUNDS; r++) {
		later();
		flag.store(r + 1);
		flag.notify_one();
	}
	waiter.join();
	blocking += ATOMIC_ROUNDS;

	// std::latch: LATCH_WAITERS threads wait, the main thread counts down.
	std::latch go(1);
	std::vector<std::thread> ts;
	for (int i = 0; i < LATCH_WAITERS; i++)
		ts.emplace_back([&] { go.wait(); });
	later();
	go.count_down();
	for (auto &t : ts)
		t.join();
	ts.clear();
	blocking += LATCH_WAITERS;

	// std::barrier: every phase, all but the last thread to arrive wait.
	std::barrier sync(BARRIER_THREADS);
	for (int i = 0; i < BARRIER_THREADS; i++)
		ts.emplace_back([&, i] {
			for (int p = 0; p < BARRIER_PHASES; p++) {
				if (i == 0)
					later();
				sync.arrive_and_wait();
			}
		});
	for (auto &t : ts)
		t.join();
	ts.clear();
	blocking += (BARRIER_THREADS - 1) * BARRIER_PHASES;

	// std::counting_semaphore: acquire blocks until the release.
	std::counting_semaphore<4> sem(0);
	std::thread taker([&] { sem.acquire(); });
	later();
	sem.release();
	taker.join();
	blocking += 1;

	std::printf("blocking_waits %d\n", blocking);
	return 0;
}
