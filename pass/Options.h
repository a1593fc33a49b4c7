/* SPDX-License-Identifier: MIT */
// Options of instrument.so and the filter they describe. Shared by the
// frontend half (which parses -fplugin-arg-instrument-KEY=VALUE) and the IR
// pass (which applies the filter). No Clang headers here: the pass half must
// also work when only -fpass-plugin= loaded us.
#ifndef PT_PASS_OPTIONS_H
#define PT_PASS_OPTIONS_H

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Regex.h>

#include <memory>
#include <string>
#include <vector>

namespace paratrace {

enum class Stage { Start, Last };

// Where a module gets the thread-local pointer through which a throttled
// call is counted without a call (docs/ABI.md, version 3): Auto, in code
// for an executable (not position-independent, or PIE: local-exec);
// InitialExec, in shared-object code too (8 bytes of static TLS per
// module); Off, nowhere (every traced call calls the entry hook).
enum class CountsTls { Auto, InitialExec, Off };

enum GpuMode : unsigned { kGpuEntries = 1, kGpuBlocks = 2 };

// One rule of a filter file: later rules win (Score-P semantics).
struct GlobRule {
	bool include;
	bool mangled; // match the linkage name instead of the demangled one
	std::string pattern;
};

struct Options {
	std::vector<std::pair<std::string, std::unique_ptr<llvm::Regex>>> include, exclude;
	std::vector<GlobRule> regionRules, fileRules;
	std::vector<std::string> filterFiles;
	unsigned minSize = 0;
	bool stageGiven = false;
	Stage stage = Stage::Last;
	bool systemHeaders = false;
	bool compilerGenerated = false;
	bool alwaysInline = false;
	// A library function holding the user's inlined code is traced under
	// the name of that code (stage=last only: nothing is inlined before).
	bool libraryInlined = true;
	unsigned verbose = 0;
	// Device code (GPU kernels): which instrumented versions to emit
	// (kGpuEntries | kGpuBlocks; 0 = leave kernels alone).
	unsigned gpuModes = 3;
	CountsTls countsTls = CountsTls::Auto;
	// Source of these options, for messages ("-fplugin-arg-instrument-" or
	// "PARATRACE_PLUGIN_ARGS").
	std::string origin;
};

// Parses one KEY=VALUE. Returns "" on success, else an error message that
// names the option and lists the valid ones.
std::string parseOption(Options &opts, const std::string &arg);

// Parses every ';'-separated KEY=VALUE in the PARATRACE_PLUGIN_ARGS
// environment variable (if set). Returns "" or an error.
std::string parseEnvironment(Options &opts);

// The list printed with every option error.
const char *validOptions();

// Decision for one function. Returns "" when it passes the user's filters,
// else the reason it is excluded (for verbose=1 output).
std::string userFilter(const Options &opts, const std::string &mangled,
		       const std::string &demangled, const std::string &file);

} // namespace paratrace

#endif
