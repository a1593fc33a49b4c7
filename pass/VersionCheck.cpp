// SPDX-License-Identifier: MIT
// instrument.so only works inside the clang it was built for: the layout of
// clang's and LLVM's C++ classes changes with every major version, and a
// plugin built for another one loads fine, then crashes in the middle of a
// compile with an LLVM stack dump. This check runs when the object is
// loaded, before clang calls anything in it, and stops the compile with one
// line saying which clang is needed and how to rebuild.
#include <clang/Basic/Version.h>
#include <llvm/Config/llvm-config.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

namespace {

// The running clang's clang::getClangFullVersion(), looked up by name so
// that a process without libclang-cpp (opt loading the pass) skips the check.
std::string runningClang()
{
	using Fn = std::string (*)();
	void *sym = dlsym(RTLD_DEFAULT, "_ZN5clang19getClangFullVersionB5cxx11Ev");
	return sym ? reinterpret_cast<Fn>(sym)() : std::string();
}

// "Debian clang version 15.0.6" -> 15; 0 when there is no version.
int majorOf(const std::string &full)
{
	size_t at = full.find("version ");
	return at == std::string::npos ? 0 : std::atoi(full.c_str() + at + 8);
}

// Priority 101: before this object's other initialisers (the registration
// of the frontend action with clang's plugin registry).
__attribute__((constructor(101))) void checkClangVersion()
{
	std::string running = runningClang();
	int major = majorOf(running);
	if (!major || major == CLANG_VERSION_MAJOR)
		return;
	Dl_info self{};
	dladdr(reinterpret_cast<void *>(&checkClangVersion), &self);
	std::string line = std::string("paratrace: ") + (self.dli_fname ? self.dli_fname : "instrument.so") +
			   " was built for clang " CLANG_VERSION_STRING " and cannot run in " + running +
			   ": compile with clang-" + std::to_string(CLANG_VERSION_MAJOR) +
			   ", or rebuild paratrace for this clang (cmake -DPT_LLVM_ROOT=/usr/lib/llvm-" +
			   std::to_string(major) + ")\n";
	// Nothing else may run in this process: any call into clang from here
	// on would use the wrong class layouts. The compile job is stopped
	// with no stack dump; in-process cc1 takes the driver with it.
	ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
	(void)ignored;
	_exit(1);
}

} // namespace
