// SPDX-License-Identifier: MIT
// Worker threads of a C++17 program, each running a lambda or a functor
// that calls the user's functions and methods. At -O2 the lambda, the
// functor and what they call are inlined into the standard library's
// thread entry (std::thread::_State_impl<...>::_M_run()), a function from
// a system header: the trace must still show the user's code on each
// worker thread (tests/plugin/inlined.py).
//
//   threads_cxx [ROUNDS]   prints one checksum per worker
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

struct Matrix {
	double a[3][3];

	static Matrix identity(double d)
	{
		Matrix m{};
		for (int i = 0; i < 3; i++)
			m.a[i][i] = d;
		return m;
	}

	Matrix operator*(const Matrix &o) const
	{
		Matrix r{};
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				for (int k = 0; k < 3; k++)
					r.a[i][j] += a[i][k] * o.a[k][j];
		return r;
	}

	double trace() const { return a[0][0] + a[1][1] + a[2][2]; }
};

static double damp(double x) { return x > 1e6 ? x / 1e6 : x; }

// A functor run by a thread: its call operator is the user's code.
struct Accumulate {
	int rounds;
	void operator()(int id, double *out) const
	{
		double s = 0;
		for (int i = 0; i < rounds; i++)
			s = damp(s + id * 0.5 + i);
		*out = s;
	}
};

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	std::vector<double> out(4);
	std::vector<std::thread> workers;
	for (int t = 0; t < 2; t++)
		workers.emplace_back([t, rounds, &out] { // @lambda
			Matrix m = Matrix::identity(1.0 + t), step = Matrix::identity(1.001);
			for (int i = 0; i < rounds; i++)
				m = m * step;
			out[t] = damp(m.trace());
		});
	for (int t = 2; t < 4; t++)
		workers.emplace_back(Accumulate{rounds}, t, &out[t]);
	for (std::thread &w : workers)
		w.join();
	for (double v : out)
		printf("%.3f\n", v);
	return 0;
}
