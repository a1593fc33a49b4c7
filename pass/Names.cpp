// SPDX-License-Identifier: MIT
// Names of outlined code (see Names.h).
//
// How clang outlines OpenMP constructs (checked on clang 14 and 15; the
// roles are found through the runtime calls, not the function names, which
// later versions changed):
//   - parallel / teams: the body becomes a "microtask" passed to
//     __kmpc_fork_call / __kmpc_fork_teams; every thread of the team calls it
//     once per region (one implicit task). With full debug info clang splits
//     it into a wrapper (the microtask) and an inner "..._debug__" function
//     that holds the code; both are alwaysinline from -O1 on, but the
//     microtask survives because its address is taken. An `if` clause adds a
//     direct call for the serialised case.
//   - task / taskloop: the body (an alwaysinline ".omp_outlined.") is called
//     by a ".omp_task_entry." wrapper passed to __kmpc_omp_task_alloc; the
//     runtime calls the entry once per task execution (a taskloop's tasks
//     share one entry); an undeferred task (if(0)) calls it directly.
//   - target without an offload device: "__omp_offloading_<ids>_<fn>_l<line>"
//     is called directly on the host (alwaysinline at -O1 and above).
//   - worksharing inside a body (for, sections, distribute) calls
//     __kmpc_for_static_init_* / __kmpc_dispatch_init_* with an ident_t
//     whose flags say loop (0x200), sections (0x400) or distribute (0x800).
// The instrumented "body" is the function the runtime calls (microtask,
// task entry, target function): one call per implicit task, per explicit
// task execution, per target execution; functions inside it are "parts"
// and never instrumented, so nothing is counted twice.
#include "Names.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/Path.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

using namespace llvm;

namespace paratrace
{

const char *const kRoleAttr = "paratrace-role";
const char *const kNameAttr = "paratrace-name";
const char *const kMatchAttr = "paratrace-match";
const char *const kFileAttr = "paratrace-file";
const char *const kLineAttr = "paratrace-line";

std::string sourceName(StringRef irName)
{
	// Optimisation clones keep the original linkage name before a '.'
	// (foo.constprop.0, _Z3barv.cold): report them under the source
	// function's name so the analyzer merges them. Linkage names never
	// contain '.'; names that start with one are the compiler's own.
	if (irName.startswith("."))
		return irName.str();
	return irName.split('.').first.str();
}

std::string demangleLLVM(const std::string &name)
{
#if LLVM_VERSION_MAJOR >= 17
	return llvm::demangle(std::string_view(name));
#else
	return llvm::demangle(name);
#endif
}

std::string demangleForDisplay(const std::string &name)
{
	if (name.compare(0, 2, "_Z") != 0)
		return name;
	int status = 0;
	char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
	std::string out = status == 0 && d ? std::string(d) : demangleLLVM(name);
	std::free(d);
	return out;
}

static std::string joinPath(StringRef dir, StringRef file)
{
	if (file.empty())
		return "";
	std::string f = file.str();
	if (!sys::path::is_absolute(f) && !dir.empty())
		f = dir.str() + "/" + f;
	return normalisePath(f);
}

void subprogramLocation(const Function &f, std::string &file, unsigned &line)
{
	file.clear();
	line = 0;
	if (const DISubprogram *sp = f.getSubprogram()) {
		file = joinPath(sp->getDirectory(), sp->getFilename());
		line = sp->getLine();
	}
}

static std::string where(const std::string &file, unsigned line)
{
	std::string s = sys::path::filename(file).str();
	return line ? s + ":" + std::to_string(line) : s;
}

static void mergeInto(DeclInfo &d, const DeclInfo &info)
{
	d.noInstrument = d.noInstrument && info.noInstrument;
	d.systemHeader = d.systemHeader && info.systemHeader;
	d.implicit = d.implicit && info.implicit;
	if (d.file != info.file || d.line != info.line)
		d.line = 0;
	if (d.closureSize != info.closureSize)
		d.closureSize = 0;
	if (d.file != info.file)
		d.file.clear();
	if (d.lambdaChain != info.lambdaChain)
		d.lambdaChain.clear();
	if (d.directives != info.directives)
		d.directives.clear();
	if (d.blocks != info.blocks)
		d.blocks.clear();
}

static const DeclInfo *findDecl(const FrontendState *fe, const std::string &linkage, unsigned line,
                                unsigned closureSize, DeclInfo &scratch)
{
	if (!fe)
		return nullptr;
	if (linkage.find("$_") == std::string::npos) {
		auto it = fe->decls.find(linkage);
		return it == fe->decls.end() ? nullptr : &it->second;
	}
	// Candidates: the function's line (debug info) tells them apart; else
	// the size of the closure object its `this` points to.
	auto range = fe->unnumbered.equal_range(normaliseName(linkage));
	auto fits = [&](const DeclInfo &d, bool bySize) {
		return bySize ? d.closureSize == closureSize : !line || d.line == line;
	};
	bool bySize = false;
	if (!line && closureSize) {
		size_t n = 0;
		for (auto it = range.first; it != range.second; ++it)
			n += it->second.closureSize == closureSize;
		bySize = n > 0;
	}
	if (range.first == range.second)
		return nullptr;
	size_t fitting = 0;
	for (auto it = range.first; it != range.second; ++it)
		fitting += fits(it->second, bySize);
	bool first = true;
	for (auto it = range.first; it != range.second; ++it) {
		if (fitting && !fits(it->second, bySize))
			continue;
		if (first)
			scratch = it->second;
		else
			mergeInto(scratch, it->second);
		first = false;
	}
	return &scratch;
}

// Bytes behind the `this` of a member function (dereferenceable(N) of the
// first parameter that is not an sret), 0 if unknown.
static unsigned thisSize(const Function &f)
{
	for (unsigned i = 0; i < f.arg_size(); i++) {
		if (f.hasParamAttribute(i, Attribute::StructRet))
			continue;
		return static_cast<unsigned>(f.getParamDereferenceableBytes(i));
	}
	return 0;
}

const DeclInfo *findDecl(const FrontendState *fe, const Function &f, DeclInfo &scratch)
{
	std::string file;
	unsigned line;
	subprogramLocation(f, file, line);
	if (!line && f.hasFnAttribute(kLineAttr))
		f.getFnAttribute(kLineAttr).getValueAsString().getAsInteger(10, line);
	return findDecl(fe, sourceName(f.getName()), line, thisSize(f), scratch);
}

// --- lambdas ---------------------------------------------------------------

// End of the balanced group (template arguments or parameters) at s[i].
static size_t skipGroup(const std::string &s, size_t i, char open, char close)
{
	if (i >= s.size() || s[i] != open)
		return i;
	int depth = 0;
	for (size_t j = i; j < s.size(); j++) {
		depth += s[j] == open;
		depth -= s[j] == close;
		if (depth == 0)
			return j + 1;
	}
	return i;
}

// Length of a lambda's closure-type component starting at s[i]: "$_N"
// (clang's name for a closure type in a non-inline function),
// "{lambda(...)#N}" (GNU demangler), "'lambda'(...)" (LLVM's); 0 if none.
static size_t lambdaLength(const std::string &s, size_t i)
{
	auto balanced = [&](size_t from, char open, char close) -> size_t {
		size_t end = skipGroup(s, from, open, close);
		return end == from ? 0 : end;
	};
	if (s.compare(i, 2, "$_") == 0) {
		size_t j = i + 2;
		while (j < s.size() && isdigit(static_cast<unsigned char>(s[j])))
			j++;
		return j > i + 2 ? j - i : 0;
	}
	if (s.compare(i, 8, "{lambda(") == 0) {
		size_t end = balanced(i, '{', '}');
		return end ? end - i : 0;
	}
	if (s.compare(i, 7, "'lambda") == 0) {
		size_t j = i + 7;
		while (j < s.size() && isdigit(static_cast<unsigned char>(s[j])))
			j++;
		if (s.compare(j, 2, "'(") != 0)
			return 0;
		size_t end = balanced(j + 1, '(', ')');
		return end ? end - i : 0;
	}
	return 0;
}

// Closure-type components of a demangled name outside template arguments
// and parameter lists: [begin, end) each, outermost first.
static std::vector<std::pair<size_t, size_t>> lambdaComponents(const std::string &s)
{
	std::vector<std::pair<size_t, size_t>> out;
	int depth = 0;
	for (size_t i = 0; i < s.size(); i++) {
		bool word =
		    i == 0 || !(isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
		if (word && s.compare(i, 8, "operator") == 0) {
			// Skip the operator's symbol: its brackets are not nesting.
			i += 8;
			if (s.compare(i, 2, "()") == 0)
				i += 2;
			while (i < s.size() && StringRef("<>=-!+*/%^&|~,[]").contains(s[i]))
				i++;
			i--;
			continue;
		}
		bool start = i == 0 || (i >= 2 && s.compare(i - 2, 2, "::") == 0);
		if (depth == 0 && start)
			if (size_t n = lambdaLength(s, i)) {
				out.push_back({i, i + n});
				i += n - 1;
				continue;
			}
		char c = s[i];
		if (c == '<' || c == '(' || c == '{' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == '}' || c == ']') && depth > 0)
			depth--;
	}
	return out;
}

// "auto main::$_0::operator()<int>(int) const" with tags {"<lambda at a.cpp:5>"}
// -> "main::<lambda at a.cpp:5><int>(int)". Tags name the innermost
// closure types when there are fewer tags than closure types.
static std::string rewriteLambdas(const std::string &d, const std::vector<std::string> &tags)
{
	auto comps = lambdaComponents(d);
	if (comps.empty() || tags.empty())
		return d;
	size_t n = std::min(comps.size(), tags.size());
	size_t firstComp = comps.size() - n;
	std::string out;
	size_t pos = 0;
	for (size_t k = firstComp; k < comps.size(); k++) {
		out += d.substr(pos, comps[k].first - pos);
		out += tags[tags.size() - n + (k - firstComp)];
		pos = comps[k].second;
		if (d.compare(pos, 12, "::operator()") == 0) {
			// The call operator is the lambda itself: keep its template
			// arguments and parameters, drop the implicit const.
			size_t p = skipGroup(d, pos + 12, '<', '>');
			p = skipGroup(d, p, '(', ')');
			out += d.substr(pos + 12, p - pos - 12);
			pos = p;
			if (d.compare(pos, 6, " const") == 0)
				pos += 6;
		}
	}
	out += d.substr(pos);
	// A function template's return type ("auto ") comes first in the
	// demangled name; the lambda's name is what identifies it.
	size_t scope = out.find("::");
	size_t space = out.rfind(' ', scope);
	if (scope != std::string::npos && space != std::string::npos &&
	    out.find_first_of("<(", 0) > space)
		out.erase(0, space + 1);
	return out;
}

// --- blocks ----------------------------------------------------------------

// Name of the function (or global variable) a block is written in, from the
// name of its invoke function: "__main_block_invoke_2" -> "main",
// "___Z3foov_block_invoke" -> "_Z3foov", "gb_block_invoke" -> "gb" (a block
// initialising the global gb).
static std::string blockEncloser(const Function &f)
{
	if (!f.hasLocalLinkage())
		return "";
	StringRef n = f.getName();
	size_t at = n.rfind("_block_invoke");
	if (at == StringRef::npos || at == 0)
		return "";
	StringRef rest = n.substr(at + 13);
	if (!rest.empty() && (rest.size() < 2 || rest[0] != '_' ||
	                      rest.drop_front().find_first_not_of("0123456789") != StringRef::npos))
		return "";
	StringRef enc = n.substr(0, at);
	if (enc.startswith("__"))
		enc = enc.drop_front(2);
	return enc.str();
}

bool isBlockBody(const Function &f)
{
	return !blockEncloser(f).empty();
}

// Clang's number of a block function: 1 for "__main_block_invoke", N for
// "__main_block_invoke_N" (numbered in the order clang meets block
// literals, so in source order within one function).
static unsigned blockNumber(const Function &f)
{
	StringRef n = f.getName();
	StringRef digits = n.substr(n.rfind("_block_invoke") + 13);
	unsigned k = 1;
	if (digits.consume_front("_"))
		digits.getAsInteger(10, k);
	return k;
}

// Without debug info: the frontend's block literals of the enclosing
// function, in source order, against clang's numbering of their functions
// (__main_block_invoke, __main_block_invoke_2, ...), when the counts agree.
static void blockLiteral(Function &f, const std::string &enc, const FrontendState *fe,
                         std::string &file, unsigned &line)
{
	DeclInfo scratch;
	const DeclInfo *decl = findDecl(fe, enc, 0, 0, scratch);
	if (!decl || decl->blocks.empty())
		return;
	std::vector<std::pair<unsigned, Function *>> numbered;
	for (Function &g : *f.getParent()) {
		if (!g.isDeclaration() && blockEncloser(g) == enc)
			numbered.push_back({blockNumber(g), &g});
	}
	if (numbered.size() != decl->blocks.size())
		return;
	std::sort(numbered.begin(), numbered.end());
	for (size_t i = 0; i < numbered.size(); i++)
		if (numbered[i].second == &f) {
			file = decl->blocks[i].file;
			line = decl->blocks[i].line;
		}
}

void blockLocation(Function &f, const FrontendState *fe, std::string &file, unsigned &line)
{
	subprogramLocation(f, file, line);
	if (!line)
		blockLiteral(f, blockEncloser(f), fe, file, line);
	if (file.empty())
		file = normalisePath(f.getParent()->getSourceFileName());
}

std::string displayName(Function &f, const FrontendState *fe)
{
	if (f.hasFnAttribute(kNameAttr))
		return f.getFnAttribute(kNameAttr).getValueAsString().str();
	std::string file;
	unsigned line;
	subprogramLocation(f, file, line);
	std::string enc = blockEncloser(f);
	if (!enc.empty()) {
		blockLocation(f, fe, file, line);
		Function *ef = f.getParent()->getFunction(enc);
		std::string encName =
		    ef && ef != &f ? displayName(*ef, fe) : demangleForDisplay(enc);
		// Without a line, clang's number keeps the blocks of a function
		// apart.
		std::string at =
		    line ? " at " + where(file, line) : " #" + std::to_string(blockNumber(f));
		return encName + " [block" + at + "]";
	}
	std::string base = sourceName(f.getName());
	std::string d = demangleForDisplay(base);
	if (lambdaComponents(d).empty())
		return d;
	DeclInfo scratch;
	const DeclInfo *decl = findDecl(fe, f, scratch);
	std::vector<std::string> tags;
	if (decl)
		tags = decl->lambdaChain;
	if (tags.empty() && line)
		tags.push_back(lambdaTag(file, line));
	return rewriteLambdas(d, tags);
}

// --- OpenMP ----------------------------------------------------------------

namespace
{

struct Body {
	Function *fn;
	Function *site; // function holding the runtime call (or direct call)
	OmpRole role;
	std::string kind;
	std::string file;
	unsigned line;
	bool named = false; // kind (and line) taken from the directive
	size_t order = 0;   // when clang created it (module position)
};

const char *roleWord(OmpRole r)
{
	switch (r) {
	case kOmpParallel:
		return "parallel";
	case kOmpTeams:
		return "teams";
	case kOmpTask:
		return "task";
	case kOmpTaskloop:
		return "taskloop";
	case kOmpTarget:
		return "target";
	}
	return "";
}

// The part of a directive's name that a body of the given role runs:
// "target teams distribute parallel for" -> "teams distribute" (teams),
// "parallel for" (parallel), "target" (target).
std::string kindFor(const std::string &directive, OmpRole role)
{
	static const std::set<std::string> roles{"parallel", "teams", "task", "taskloop", "target"};
	std::vector<std::string> words;
	for (StringRef rest = directive; !rest.empty();) {
		auto [w, tail] = rest.split(' ');
		if (!w.empty())
			words.push_back(w.str());
		rest = tail;
	}
	size_t i = 0;
	while (i < words.size() && words[i] != roleWord(role))
		i++;
	if (i == words.size())
		return roleWord(role);
	std::string out = words[i];
	for (size_t j = i + 1; j < words.size() && !roles.count(words[j]); j++)
		out += " " + words[j];
	return out;
}

Function *calledFunction(const CallBase &cb)
{
	return dyn_cast<Function>(cb.getCalledOperand()->stripPointerCasts());
}

Function *functionArg(const CallBase &cb, unsigned i)
{
	if (i >= cb.arg_size())
		return nullptr;
	auto *f = dyn_cast<Function>(cb.getArgOperand(i)->stripPointerCasts());
	return f && !f->isDeclaration() ? f : nullptr;
}

// Calls of f as the callee (not f passed as an argument), through casts.
void directCalls(Value *v, std::vector<CallBase *> &out, int depth = 0)
{
	for (Use &u : v->uses()) {
		User *user = u.getUser();
		if (auto *cb = dyn_cast<CallBase>(user)) {
			if (cb->isCallee(&u))
				out.push_back(cb);
		} else if (auto *ce = dyn_cast<ConstantExpr>(user);
		           ce && ce->isCast() && depth < 4) {
			directCalls(ce, out, depth + 1);
		}
	}
}

// A function that refers to v (calls it or takes its address), if any.
Function *userFunction(Value *v, int depth = 0)
{
	for (User *u : v->users()) {
		if (auto *i = dyn_cast<Instruction>(u))
			return i->getFunction();
		if (isa<Constant>(u) && depth < 4)
			if (Function *f = userFunction(u, depth + 1))
				return f;
	}
	return nullptr;
}

bool feedsTaskloop(CallBase *alloc)
{
	std::vector<Value *> work{alloc};
	for (size_t i = 0; i < work.size() && i < 64; i++)
		for (User *u : work[i]->users()) {
			if (auto *cb = dyn_cast<CallBase>(u)) {
				Function *callee = calledFunction(*cb);
				if (callee && callee->getName().startswith("__kmpc_taskloop"))
					return true;
			} else if (isa<CastInst>(u)) {
				work.push_back(u);
			}
		}
	return false;
}

class Namer
{
      public:
	Namer(Module &m, const FrontendState *fe) : m(m), fe(fe)
	{
	}

	bool run()
	{
		findBodies();
		for (Body &b : bodies)
			findParts(b.fn, b.fn);
		creationOrder();
		matchDirectives();
		for (Body &b : bodies)
			refineKind(b);
		bool changed = false;
		std::map<std::string, unsigned> ordinals;
		std::vector<Body *> created;
		for (Body &b : bodies)
			created.push_back(&b);
		std::stable_sort(created.begin(), created.end(),
		                 [](const Body *a, const Body *b) { return a->order < b->order; });
		for (Body *bp : created) {
			Body &b = *bp;
			Function *enc = enclosing(b.fn);
			std::string encName = enc ? displayName(*enc, fe) : where(moduleFile(), 0);
			std::string encMatch = enc ? sourceName(enc->getName()) : encName;
			std::string at;
			if (b.line) {
				at = " at " + where(b.file, b.line);
			} else {
				// No location (no -g and no frontend): number the
				// regions of one function in source order (the order
				// clang created them) so that they stay apart.
				unsigned n = ++ordinals[encMatch + "\n" + b.kind];
				at = " #" + std::to_string(n);
			}
			std::string suffix = " [omp " + b.kind + at + "]";
			set(*b.fn, "body", encName + suffix, encMatch + suffix, b.file, b.line);
			changed = true;
			// A direct call (serialised region, undeferred task, target on
			// the host) must stay a call, or the inliner would fold the
			// body into its caller before the hooks are inserted.
			std::vector<CallBase *> calls;
			directCalls(b.fn, calls);
			if (!calls.empty() && !b.fn->hasFnAttribute(Attribute::NoInline)) {
				b.fn->removeFnAttr(Attribute::AlwaysInline);
				b.fn->addFnAttr(Attribute::NoInline);
			}
		}
		for (auto &p : partOf) {
			const Body &owner = bodies[index[p.second]];
			set(*p.first, "part", attr(*owner.fn, kNameAttr),
			    attr(*owner.fn, kMatchAttr), owner.file, owner.line);
			changed = true;
		}
		for (Function &f : m)
			if (!f.isDeclaration() && !f.hasFnAttribute(kRoleAttr) &&
			    compilerNamed(f)) {
				nameHelper(f);
				changed = true;
			}
		for (Function &f : m)
			changed = nameWritten(f) || changed;
		return changed;
	}

      private:
	// Functions with no name a user knows: ".omp.reduction.reduction_func",
	// ".omp_task_privates_map.", an outlined body nothing calls.
	static bool compilerNamed(const Function &f)
	{
		StringRef n = f.getName();
		return n.startswith(".") || n.contains("omp_outlined") ||
		       n.startswith("__omp_offloading_");
	}

	std::string moduleFile()
	{
		return normalisePath(m.getSourceFileName());
	}

	static std::string attr(const Function &f, const char *key)
	{
		return f.getFnAttribute(key).getValueAsString().str();
	}

	static void set(Function &f, const char *role, const std::string &name,
	                const std::string &match, const std::string &file, unsigned line)
	{
		f.addFnAttr(kRoleAttr, role);
		f.addFnAttr(kNameAttr, name);
		f.addFnAttr(kMatchAttr, match);
		f.addFnAttr(kFileAttr, file);
		f.addFnAttr(kLineAttr, std::to_string(line));
	}

	void addBody(Function *fn, Function *site, OmpRole role, const Instruction *at)
	{
		if (!fn || fn->hasFnAttribute(kRoleAttr) || index.count(fn))
			return;
		Body b{fn, site, role, roleWord(role), "", 0};
		if (at)
			if (const DILocation *dl = at->getDebugLoc().get()) {
				b.file = joinPath(dl->getDirectory(), dl->getFilename());
				b.line = dl->getLine();
			}
		if (!b.line)
			subprogramLocation(*fn, b.file, b.line);
		if (b.file.empty())
			b.file = moduleFile();
		index[fn] = bodies.size();
		bodies.push_back(b);
	}

	void findBodies()
	{
		for (Function &f : m)
			for (BasicBlock &bb : f)
				for (Instruction &i : bb) {
					auto *cb = dyn_cast<CallBase>(&i);
					Function *callee = cb ? calledFunction(*cb) : nullptr;
					if (!callee)
						continue;
					StringRef n = callee->getName();
					if (n == "__kmpc_fork_call" || n == "__kmpc_fork_call_if")
						addBody(functionArg(*cb, 2), &f, kOmpParallel, cb);
					else if (n == "__kmpc_fork_teams")
						addBody(functionArg(*cb, 2), &f, kOmpTeams, cb);
					else if (n == "__kmpc_omp_task_alloc" ||
					         n == "__kmpc_omp_target_task_alloc")
						addBody(functionArg(*cb, 5), &f,
						        feedsTaskloop(cb) ? kOmpTaskloop : kOmpTask,
						        cb);
				}
		// Host version of a target region: called directly where the
		// region is (after a failed offload attempt, or always when the
		// program was built without offload targets).
		for (Function &f : m) {
			StringRef n = f.getName();
			if (f.isDeclaration() || !n.startswith("__omp_offloading_") ||
			    n.endswith("_debug__"))
				continue;
			std::vector<CallBase *> calls;
			directCalls(&f, calls);
			CallBase *call = calls.empty() ? nullptr : calls.front();
			size_t before = bodies.size();
			addBody(&f, call ? call->getFunction() : nullptr, kOmpTarget, call);
			if (bodies.size() > before && !bodies.back().line) {
				// __omp_offloading_<device>_<file>_<function>_l<line>
				size_t l = n.rfind("_l");
				if (l != StringRef::npos)
					n.substr(l + 2).getAsInteger(10, bodies.back().line);
			}
		}
	}

	// Functions a body calls that hold its code: the "_debug__" function
	// of a parallel region with -g, the task body a task entry calls.
	void findParts(Function *from, Function *owner)
	{
		for (BasicBlock &bb : *from)
			for (Instruction &i : bb) {
				auto *cb = dyn_cast<CallBase>(&i);
				Function *callee = cb ? calledFunction(*cb) : nullptr;
				if (!callee || callee->isDeclaration() ||
				    !callee->hasLocalLinkage() || index.count(callee) ||
				    partOf.count(callee) || callee->hasFnAttribute(kRoleAttr))
					continue;
				StringRef n = callee->getName();
				if (!n.contains("omp_outlined") && !n.endswith("_debug__"))
					continue;
				partOf[callee] = owner;
				findParts(callee, owner);
			}
	}

	// The user's function a body was written in: through parts and
	// enclosing bodies (a task inside a parallel region inside main).
	Function *enclosing(Function *f)
	{
		for (int hops = 0; f && hops < 32; hops++) {
			auto p = partOf.find(f);
			if (p != partOf.end()) {
				f = p->second;
				continue;
			}
			auto b = index.find(f);
			if (b != index.end()) {
				f = bodies[b->second].site;
				continue;
			}
			return f;
		}
		return nullptr;
	}

	// Clang creates a body's function before its code (and so before the
	// bodies nested in it), but a task's entry after its inner parts: the
	// earliest of a body and its parts is when its directive was met.
	void creationOrder()
	{
		std::map<Function *, size_t> position;
		size_t n = 0;
		for (Function &f : m)
			position[&f] = n++;
		for (Body &b : bodies)
			b.order = position[b.fn];
		for (auto &p : partOf) {
			Body &b = bodies[index[p.second]];
			b.order = std::min(b.order, position[p.first]);
		}
	}

	// The frontend's directives of each enclosing function, in source
	// order, are the order in which clang created the bodies of one role.
	// When the numbers agree, the directive gives the
	// kind as written and, without -g, the line; with -g, a directive at
	// the body's line gives the kind.
	void matchDirectives()
	{
		if (!fe)
			return;
		std::map<std::pair<Function *, unsigned>, std::vector<Body *>> groups;
		for (Body &b : bodies)
			if (Function *enc = enclosing(b.fn))
				groups[{enc, b.role}].push_back(&b);
		for (auto &g : groups) {
			Function *enc = g.first.first;
			OmpRole role = static_cast<OmpRole>(g.first.second);
			std::string file;
			unsigned line;
			subprogramLocation(*enc, file, line);
			DeclInfo scratch;
			const DeclInfo *decl = findDecl(fe, *enc, scratch);
			if (!decl)
				continue;
			std::vector<const OmpDirective *> dirs;
			for (const OmpDirective &d : decl->directives)
				if (d.roles & role)
					dirs.push_back(&d);
			std::vector<Body *> &group = g.second;
			std::sort(group.begin(), group.end(),
			          [](const Body *a, const Body *b) { return a->order < b->order; });
			bool inOrder = dirs.size() == group.size();
			for (size_t i = 0; inOrder && i < group.size(); i++)
				inOrder = !group[i]->line || group[i]->line == dirs[i]->line;
			for (size_t i = 0; i < group.size(); i++) {
				Body &b = *group[i];
				const OmpDirective *d = inOrder ? dirs[i] : nullptr;
				for (size_t j = 0; !d && b.line && j < dirs.size(); j++)
					if (dirs[j]->line == b.line)
						d = dirs[j];
				if (!d)
					continue;
				b.kind = kindFor(d->kind, role);
				b.named = true;
				if (!b.line) {
					b.file = d->file;
					b.line = d->line;
				}
			}
		}
	}

	// Worksharing written in the same directive as the region (parallel
	// for, parallel sections, teams distribute): a loop-scheduling call
	// at the directive's line in the body. A `for` on a line of its own
	// inside a parallel region is not part of the region's name.
	void refineKind(Body &b)
	{
		if (b.named || !b.line || (b.role != kOmpParallel && b.role != kOmpTeams))
			return;
		std::vector<Function *> fns{b.fn};
		for (auto &p : partOf)
			if (p.second == b.fn)
				fns.push_back(p.first);
		for (Function *f : fns)
			for (BasicBlock &bb : *f)
				for (Instruction &i : bb) {
					auto *cb = dyn_cast<CallBase>(&i);
					Function *callee = cb ? calledFunction(*cb) : nullptr;
					const DILocation *dl =
					    cb ? cb->getDebugLoc().get() : nullptr;
					if (!callee || !dl || dl->getLine() != b.line)
						continue;
					std::string w = worksharing(*cb, callee->getName());
					if (w.empty() ||
					    (b.role == kOmpTeams) != (w == "distribute"))
						continue;
					b.kind += " " + w;
					return;
				}
	}

	static std::string worksharing(CallBase &cb, StringRef n)
	{
		if (n.startswith("__kmpc_dispatch_init_") ||
		    n.startswith("__kmpc_dist_dispatch_init_") ||
		    n.startswith("__kmpc_dist_for_static_init_"))
			return "for";
		if (n.startswith("__kmpc_distribute_static_init_"))
			return "distribute";
		if (!n.startswith("__kmpc_for_static_init_"))
			return "";
		// ident_t { i32 reserved, i32 flags, ... }
		uint64_t flags = 0;
		if (auto *gv = dyn_cast<GlobalVariable>(cb.getArgOperand(0)->stripPointerCasts()))
			if (gv->hasInitializer())
				if (auto *c = gv->getInitializer()->getAggregateElement(1u))
					if (auto *ci = dyn_cast<ConstantInt>(c))
						flags = ci->getZExtValue();
		if (flags & 0x400)
			return "sections";
		if (flags & 0x800)
			return "distribute";
		return "for";
	}

	// Lambdas and blocks keep their role (user code) but get the name of
	// where they are written, fixed now: optimisation may drop the `this`
	// parameter that tells lambdas apart without -g.
	bool nameWritten(Function &f)
	{
		if (f.isDeclaration() || f.hasFnAttribute(kNameAttr))
			return false;
		std::string name = displayName(f, fe), file;
		unsigned line = 0;
		if (isBlockBody(f)) {
			blockLocation(f, fe, file, line);
		} else if (name != demangleForDisplay(sourceName(f.getName()))) {
			DeclInfo scratch;
			const DeclInfo *decl = findDecl(fe, f, scratch);
			subprogramLocation(f, file, line);
			if (decl && !decl->file.empty()) {
				file = decl->file;
				line = decl->line ? decl->line : line;
			}
		} else {
			return false;
		}
		f.addFnAttr(kNameAttr, name);
		f.addFnAttr(kFileAttr, file);
		f.addFnAttr(kLineAttr, std::to_string(line));
		return true;
	}

	void nameHelper(Function &f)
	{
		std::string file;
		unsigned line;
		subprogramLocation(f, file, line);
		if (file.empty())
			file = moduleFile();
		Function *enc = enclosing(userFunction(&f));
		std::string encName = enc ? displayName(*enc, fe) : where(moduleFile(), 0);
		std::string encMatch = enc ? sourceName(enc->getName()) : encName;
		std::string suffix =
		    " [compiler-generated " + f.getName().str() + " at " + where(file, line) + "]";
		set(f, "helper", encName + suffix, encMatch + suffix, file, line);
	}

	Module &m;
	const FrontendState *fe;
	std::vector<Body> bodies;
	std::map<Function *, size_t> index;
	std::map<Function *, Function *> partOf;
};

} // namespace

bool nameOutlinedCode(Module &m, const FrontendState *fe)
{
	return Namer(m, fe).run();
}

} // namespace paratrace
