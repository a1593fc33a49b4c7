// SPDX-License-Identifier: MIT
// gcc takes plugins with the same -fplugin= flag as clang. instrument.so is a
// clang plugin; a gcc user who points gcc at it wants the gcc route instead:
// -finstrument-functions, whose hooks the same libtrace.so implements.
// gcc loads a plugin with every symbol resolved at once, which succeeds
// because instrument.so names libclang-cpp and libLLVM as its dependencies
// (pass/CMakeLists.txt), then calls these two entry points of gcc's plugin
// interface. Inside clang nothing calls them.
#include <dlfcn.h>
#include <string>
#include <unistd.h>

extern "C" {

// gcc refuses, with a message of its own, a plugin that does not declare
// a GPL-compatible licence; paratrace's (MIT) is one.
__attribute__((visibility("default"))) int plugin_is_GPL_compatible;

// gcc's plugin_init(struct plugin_name_args *, struct plugin_gcc_version *):
// the arguments are not needed. One line, and the compile stops here: gcc
// would add lines of its own to a failed plugin_init.
__attribute__((visibility("default"))) int plugin_init(void *, void *)
{
	Dl_info self{};
	dladdr(reinterpret_cast<void *>(&plugin_init), &self);
	std::string line =
	    std::string("paratrace: ") + (self.dli_fname ? self.dli_fname : "instrument.so") +
	    " is a clang plugin and cannot run in gcc: with gcc, compile with "
	    "-finstrument-functions instead of -fplugin= and run with the same libtrace.so\n";
	ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
	(void)ignored;
	_exit(1);
}
}
