// State handed from the frontend half of instrument.so (a Clang
// PluginASTAction) to the IR pass half. Both halves live in the same shared
// object and clang dlopens it once, so plain globals carry it; clang runs
// one compile job at a time per process (the driver's in-process cc1 jobs
// are sequential), so one slot is enough, keyed by the module's name.
#ifndef PT_PASS_SHARED_H
#define PT_PASS_SHARED_H

#include "Options.h"

#include <map>
#include <string>

namespace paratrace {

struct DeclInfo {
	std::string file; // absolute, normalised: equal across TUs for one header
	unsigned line = 0;
	bool noInstrument = false; // __attribute__((no_instrument_function))
	bool systemHeader = false;
	bool implicit = false; // compiler-generated (implicit members, lambda invokers)
};

struct FrontendState {
	bool active = false;    // a frontend ran and filled this for `moduleId`
	std::string moduleId;   // name the IR module will carry (the main input file)
	std::map<std::string, DeclInfo> decls; // by linkage (mangled) name
	// Names with an internal "$_N" (see normaliseName), number erased.
	std::map<std::string, DeclInfo> unnumbered;
	Options opts;
	bool optionsValid = false; // ParseArgs succeeded for this compile job
};

FrontendState &frontendState();

// "_ZZ4mainENK3$_1clEv" -> "_ZZ4mainENK3$_clEv"
std::string normaliseName(const std::string &name);

// "/a/b/../c.h" -> "/a/c.h"; relative names are made absolute against the
// current directory (where the compiler runs), so that one header included
// from two directories gets one name.
std::string normalisePath(const std::string &path);

} // namespace paratrace

#endif
