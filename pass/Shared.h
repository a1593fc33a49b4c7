/* SPDX-License-Identifier: MIT */
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
#include <vector>

namespace paratrace {

// Bodies an OpenMP directive makes clang outline (a combined directive
// makes several: "target teams distribute parallel for" all five but task).
enum OmpRole : unsigned {
	kOmpParallel = 1,
	kOmpTeams = 2,
	kOmpTask = 4,
	kOmpTaskloop = 8,
	kOmpTarget = 16,
};

struct OmpDirective {
	std::string kind; // as written: "parallel for simd"
	std::string file; // absolute, normalised
	unsigned line = 0;
	unsigned roles = 0; // OmpRole bits
	bool operator==(const OmpDirective &o) const
	{
		return kind == o.kind && file == o.file && line == o.line && roles == o.roles;
	}
};

struct SourcePoint {
	std::string file;
	unsigned line = 0;
	bool operator==(const SourcePoint &o) const { return file == o.file && line == o.line; }
};

struct DeclInfo {
	std::string file; // absolute, normalised: equal across TUs for one header
	unsigned line = 0;
	bool noInstrument = false; // __attribute__((no_instrument_function))
	bool systemHeader = false;
	bool implicit = false; // compiler-generated (implicit members, lambda invokers)
	// Members of a lambda's closure type: "<lambda at file:line>" of each
	// closure type the function is nested in, outermost first.
	std::vector<std::string> lambdaChain;
	unsigned closureSize = 0; // bytes of the lambda's closure object
	// In the function's own body (not in lambdas or local classes), in
	// source order, which is the order in which clang outlines them:
	std::vector<OmpDirective> directives; // outside blocks
	std::vector<SourcePoint> blocks;      // block literals, nested ones too
};

struct FrontendState {
	bool active = false;    // a frontend ran and filled this for `moduleId`
	std::string moduleId;   // name the IR module will carry (the main input file)
	std::map<std::string, DeclInfo> decls; // by linkage (mangled) name
	// Names with an internal "$_N" (see normaliseName), number erased: one
	// entry per function, told apart by line (findDecl in Names.h).
	std::multimap<std::string, DeclInfo> unnumbered;
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

// "<lambda at app.cpp:12>": how a closure type is named in traces (the
// words of clang's own diagnostics), with the file's base name.
std::string lambdaTag(const std::string &file, unsigned line);

} // namespace paratrace

#endif
