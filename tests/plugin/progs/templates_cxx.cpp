// SPDX-License-Identifier: MIT
// A template-heavy C++17 program: a small vector class template with
// operator overloads, standard algorithms (sort, transform, accumulate)
// called with lambdas and functors, and std::thread workers. At -O2 most of
// the user's code ends up inlined into standard library templates. Used to
// measure the plugin's choices of stage and size (bench/plugin/inlined.py).
//
//   templates_cxx [N]   prints one checksum
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

template <typename T> struct Vec3 {
	T x, y, z;
	Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
	Vec3 operator*(T s) const { return {x * s, y * s, z * s}; }
	T dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
	T norm2() const { return dot(*this); }
};

template <typename T> struct Closer {
	Vec3<T> to;
	bool operator()(const Vec3<T> &a, const Vec3<T> &b) const
	{
		return (a + to * T(-1)).norm2() < (b + to * T(-1)).norm2();
	}
};

template <typename T> std::vector<Vec3<T>> cloud(int n, unsigned seed)
{
	std::vector<Vec3<T>> v(n);
	for (auto &p : v) {
		seed = seed * 1103515245u + 12345u;
		p = {T(seed % 1000), T(seed / 7 % 1000), T(seed / 13 % 1000)};
	}
	return v;
}

template <typename T> T work(int n, unsigned seed)
{
	std::vector<Vec3<T>> v = cloud<T>(n, seed);
	std::sort(v.begin(), v.end(), Closer<T>{{T(500), T(500), T(500)}});
	std::transform(v.begin(), v.end(), v.begin(), [](const Vec3<T> &p) { return p * T(0.5); });
	return std::accumulate(v.begin(), v.begin() + n / 10, T(0),
			       [](T s, const Vec3<T> &p) { return s + p.norm2(); });
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	double r[3] = {0, 0, 0};
	std::vector<std::thread> workers;
	workers.emplace_back([&] { r[0] = work<double>(n, 1); });
	workers.emplace_back([&] { r[1] = work<float>(n, 2); });
	workers.emplace_back([&] { r[2] = double(work<long>(n, 3)); });
	for (std::thread &w : workers)
		w.join();
	printf("%.1f\n", r[0] + r[1] + r[2]);
	return 0;
}
