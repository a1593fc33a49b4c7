// SPDX-License-Identifier: MIT
// A C++ function whose symbol is mangled, for the demangling test.
namespace ns {
__attribute__((noinline)) int twice(int x)
{
	return 2 * x;
}
} // namespace ns

extern "C" void *pt_test_cxx_addr(void)
{
	return reinterpret_cast<void *>(&ns::twice);
}
