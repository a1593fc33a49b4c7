/* SPDX-License-Identifier: MIT */
// Names of the code a compiler outlines from a user's function, so that a
// trace shows it under a name the user recognises: OpenMP region, task and
// target bodies ("main [omp parallel at solver.c:42]"), lambdas
// ("main::<lambda at app.cpp:12>(int)") and blocks ("main [block at a.c:7]").
// docs/PLUGIN.md ("OpenMP, lambdas and other outlined code") describes the
// result.
#ifndef PT_PASS_NAMES_H
#define PT_PASS_NAMES_H

#include "Shared.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/Module.h>

#include <string>

namespace paratrace
{

// String attributes that nameOutlinedCode puts on outlined functions. It
// runs at the start of the pipeline, before inlining hides which function
// encloses a region; the attributes last until the pass instruments.
//   paratrace-role: "body" (a region/task/target body, instrumented),
//                   "part" (inner function of a body, counted with it),
//                   "helper" (compiler-generated support code)
//   paratrace-name: the name shown in traces
//   paratrace-match: what MANGLED filter rules match
//   paratrace-file, paratrace-line: where the construct is
extern const char *const kRoleAttr;
extern const char *const kNameAttr;
extern const char *const kMatchAttr;
extern const char *const kFileAttr;
extern const char *const kLineAttr;

// Finds the OpenMP bodies of the module, names them and their helpers, and
// keeps serialised calls of a body (an `if` clause that is false, an
// undeferred task, the host fallback of a target region) out of line so
// that they are counted too. Functions already named are left alone.
// Returns true if it changed the module.
bool nameOutlinedCode(llvm::Module &m, const FrontendState *fe);

// Name of a function as traces show it: a lambda gets
// "<lambda at file:line>" for each closure type in its name, a block
// "ENCLOSING [block at file:line]", anything else its demangled name.
std::string displayName(llvm::Function &f, const FrontendState *fe);

// Whether f is the body of a block (invoke function), and where the block
// literal is (debug info, else the frontend's record).
bool isBlockBody(const llvm::Function &f);
void blockLocation(llvm::Function &f, const FrontendState *fe, std::string &file, unsigned &line);

// The frontend's record of a function, by linkage name. Lambdas of a
// non-inline function are numbered ($_0, $_1) differently by each mangler:
// among the candidates with the number erased, the one defined at the
// function's line (debug info) is taken, else the one whose closure object
// has the size of what `this` points to. `scratch` holds a merged record
// when the candidates cannot be told apart.
const DeclInfo *findDecl(const FrontendState *fe, const llvm::Function &f, DeclInfo &scratch);

// Linkage name of the source function of an optimisation clone
// (foo.constprop.0 -> foo); names that start with '.' are kept whole.
std::string sourceName(llvm::StringRef irName);

// Demangled as the GNU demangler (and so `paratrace`) prints it.
std::string demangleForDisplay(const std::string &name);

// The demangler LLVM ships (what include=/exclude= match for plain
// functions).
std::string demangleLLVM(const std::string &name);

// File and line of a function's definition from its debug info (absolute,
// normalised file), or "" and 0.
void subprogramLocation(const llvm::Function &f, std::string &file, unsigned &line);

} // namespace paratrace

#endif
