// SPDX-License-Identifier: MIT
// Option parsing and the user's filters (regexes and Score-P style filter
// files). See docs/PLUGIN.md for the syntax.
#include "Options.h"

#include <fnmatch.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace paratrace {

const char *validOptions()
{
	return "include=REGEX, exclude=REGEX, filter-file=PATH, min-size=N, stage=start|last, "
	       "system-headers=0|1, compiler-generated=0|1, library-inlined=0|1, verbose=0|1|2, "
	       "gpu=all|entries|blocks|off, counts-tls=auto|initial-exec|off";
}

static std::string optionError(const Options &opts, const std::string &arg, const std::string &why)
{
	return "paratrace instrument.so: bad option '" + opts.origin + arg + "': " + why +
	       "; valid options: " + validOptions();
}

static bool parseBool(const std::string &v, bool &out)
{
	if (v == "1" || v == "yes" || v == "on" || v == "true") {
		out = true;
		return true;
	}
	if (v == "0" || v == "no" || v == "off" || v == "false") {
		out = false;
		return true;
	}
	return false;
}

static bool parseUnsigned(const std::string &v, unsigned &out)
{
	if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
		return false;
	out = static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 10));
	return true;
}

static std::string trim(const std::string &s)
{
	size_t b = s.find_first_not_of(" \t\r");
	if (b == std::string::npos)
		return "";
	size_t e = s.find_last_not_of(" \t\r");
	return s.substr(b, e - b + 1);
}

// Score-P filter file:
//   SCOREP_REGION_NAMES_BEGIN
//     EXCLUDE *
//     INCLUDE foo bar*   (several patterns per line; lines continue a rule)
//     EXCLUDE MANGLED _Z3bazv
//   SCOREP_REGION_NAMES_END
//   SCOREP_FILE_NAMES_BEGIN
//     EXCLUDE */include/*
//   SCOREP_FILE_NAMES_END
// '#' starts a comment. The SCOREP_ prefix is optional.
static std::string loadFilterFile(Options &opts, const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		return "cannot open filter file '" + path + "'";
	enum { None, Regions, Files } block = None;
	bool haveRule = false;
	GlobRule cur{true, false, ""};
	std::string line;
	unsigned lineno = 0;
	while (std::getline(in, line)) {
		lineno++;
		size_t hash = line.find('#');
		if (hash != std::string::npos)
			line.resize(hash);
		std::istringstream words(line);
		std::string w;
		while (words >> w) {
			std::string key = w.compare(0, 7, "SCOREP_") == 0 ? w.substr(7) : w;
			auto where = [&] { return path + ":" + std::to_string(lineno) + ": "; };
			if (key == "REGION_NAMES_BEGIN" || key == "FILE_NAMES_BEGIN") {
				if (block != None)
					return where() + key + " inside another block";
				block = key == "REGION_NAMES_BEGIN" ? Regions : Files;
				haveRule = false;
			} else if (key == "REGION_NAMES_END" || key == "FILE_NAMES_END") {
				if (block != (key == "REGION_NAMES_END" ? Regions : Files))
					return where() + key + " without its BEGIN";
				block = None;
			} else if (block == None) {
				return where() + "'" + w +
				       "' outside SCOREP_REGION_NAMES_BEGIN/END or "
				       "SCOREP_FILE_NAMES_BEGIN/END";
			} else if (w == "INCLUDE" || w == "EXCLUDE") {
				cur = GlobRule{w == "INCLUDE", false, ""};
				haveRule = true;
			} else if (w == "MANGLED" && haveRule && block == Regions) {
				cur.mangled = true;
			} else if (!haveRule) {
				return where() + "pattern '" + w + "' before INCLUDE or EXCLUDE";
			} else {
				cur.pattern = w;
				(block == Regions ? opts.regionRules : opts.fileRules).push_back(cur);
			}
		}
	}
	if (block != None)
		return path + ": block not closed with its _END";
	return "";
}

std::string parseOption(Options &opts, const std::string &arg)
{
	size_t eq = arg.find('=');
	if (eq == std::string::npos)
		return optionError(opts, arg, "expected KEY=VALUE");
	std::string key = arg.substr(0, eq), value = arg.substr(eq + 1);
	if (key == "include" || key == "exclude") {
		auto re = std::make_unique<llvm::Regex>(value);
		std::string err;
		if (value.empty() || !re->isValid(err))
			return optionError(opts, arg, "invalid regular expression" + (err.empty() ? "" : ": " + err));
		(key == "include" ? opts.include : opts.exclude).emplace_back(value, std::move(re));
	} else if (key == "filter-file") {
		std::string err = loadFilterFile(opts, value);
		if (!err.empty())
			return optionError(opts, arg, err);
		opts.filterFiles.push_back(value);
	} else if (key == "min-size") {
		if (!parseUnsigned(value, opts.minSize))
			return optionError(opts, arg, "expected a number of IR instructions");
	} else if (key == "stage") {
		if (value == "start")
			opts.stage = Stage::Start;
		else if (value == "last")
			opts.stage = Stage::Last;
		else
			return optionError(opts, arg, "expected start or last");
		opts.stageGiven = true;
	} else if (key == "system-headers" || key == "compiler-generated" || key == "library-inlined") {
		bool &b = key == "system-headers"	? opts.systemHeaders
			  : key == "compiler-generated" ? opts.compilerGenerated
							: opts.libraryInlined;
		if (!parseBool(value, b))
			return optionError(opts, arg, "expected 0 or 1");
	} else if (key == "gpu") {
		if (value == "all")
			opts.gpuModes = kGpuEntries | kGpuBlocks;
		else if (value == "entries")
			opts.gpuModes = kGpuEntries;
		else if (value == "blocks")
			opts.gpuModes = kGpuBlocks;
		else if (value == "off")
			opts.gpuModes = 0;
		else
			return optionError(opts, arg, "expected all, entries, blocks or off");
	} else if (key == "counts-tls") {
		if (value == "auto")
			opts.countsTls = CountsTls::Auto;
		else if (value == "initial-exec")
			opts.countsTls = CountsTls::InitialExec;
		else if (value == "off")
			opts.countsTls = CountsTls::Off;
		else
			return optionError(opts, arg, "expected auto, initial-exec or off");
	} else if (key == "verbose") {
		if (!parseUnsigned(value, opts.verbose))
			return optionError(opts, arg, "expected 0 or 1");
	} else {
		return optionError(opts, arg, "unknown option '" + key + "'");
	}
	return "";
}

std::string parseEnvironment(Options &opts)
{
	const char *env = std::getenv("PARATRACE_PLUGIN_ARGS");
	if (!env)
		return "";
	std::string saved = opts.origin;
	opts.origin = "PARATRACE_PLUGIN_ARGS: ";
	std::string all(env), err;
	size_t pos = 0;
	while (err.empty() && pos <= all.size()) {
		size_t semi = all.find(';', pos);
		if (semi == std::string::npos)
			semi = all.size();
		std::string one = trim(all.substr(pos, semi - pos));
		if (!one.empty())
			err = parseOption(opts, one);
		pos = semi + 1;
	}
	opts.origin = saved;
	return err;
}

static bool globMatch(const std::string &pattern, const std::string &s)
{
	return fnmatch(pattern.c_str(), s.c_str(), 0) == 0;
}

std::string userFilter(const Options &opts, const std::string &mangled,
		       const std::string &demangled, const std::string &file)
{
	// File rules first (a function in an excluded file is excluded whatever
	// its name), then name rules; within each list the last match wins.
	bool fileIn = true;
	for (const GlobRule &r : opts.fileRules)
		if (globMatch(r.pattern, file))
			fileIn = r.include;
	if (!fileIn)
		return "file excluded by filter file";
	bool nameIn = true;
	for (const GlobRule &r : opts.regionRules)
		if (globMatch(r.pattern, r.mangled ? mangled : demangled))
			nameIn = r.include;
	if (!nameIn)
		return "name excluded by filter file";
	if (!opts.include.empty()) {
		bool any = false;
		for (const auto &re : opts.include)
			any = any || re.second->match(demangled);
		if (!any)
			return "matches no include= regex";
	}
	for (const auto &re : opts.exclude)
		if (re.second->match(demangled))
			return "matches exclude=" + re.first;
	return "";
}

} // namespace paratrace
