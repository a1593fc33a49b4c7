// SPDX-License-Identifier: MIT
// Input of tests/plugin/filters.py: compiler-generated C++ functions.
struct Counter {
	int n;
	Counter() : n(7) {}
	~Counter() { n = 0; }
	int get() const { return n; }
};

static Counter global_counter; // needs __cxx_global_var_init / _GLOBAL__sub_I_

namespace ns {
int work(int x)
{
	return x + global_counter.get();
}
} // namespace ns

int main(int argc, char **)
{
	Counter copy = global_counter; // implicit copy constructor (trivial: no call)
	return ns::work(argc) + copy.get();
}
