// SPDX-License-Identifier: MIT
// IR pass half of instrument.so: inserts the entry/exit hooks of
// include/paratrace/abi.h (described in docs/ABI.md) and emits the module's
// function table, descriptor, constructor and destructor.
//
// Registered through llvmGetPassPluginInfo, which clang calls when it loads
// this object as a pass plugin: either because the frontend half added us to
// CodeGenOpts.PassPlugins (-fplugin=) or because the user said -fpass-plugin=.
#include "Device.h"
#include "IRUtil.h"
#include "Names.h"

#include <llvm/ADT/SCCIterator.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/EscapeEnumerator.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <functional>
#include <map>
#include <set>

using namespace llvm;

namespace paratrace {
namespace {

constexpr unsigned kAbiVersion = 3; // PT_ABI_VERSION in include/paratrace/abi.h
constexpr const char *kDoneAttr = "paratrace-instrumented";
// On a library function, at the pipeline's start: the user's functions it
// reaches through library code only (see recordLibraryReach).
constexpr const char *kReachAttr = "paratrace-reach";

PointerType *bytePtrTy(LLVMContext &ctx)
{
#if LLVM_VERSION_MAJOR >= 17
	return PointerType::get(ctx, 0);
#else
	return Type::getInt8PtrTy(ctx);
#endif
}

// Helpers the compiler synthesises: static initialisers, TLS wrappers,
// thunks, sanitizer constructors. (OpenMP's and other '.'-named functions
// are sorted out by nameOutlinedCode.)
bool compilerGeneratedName(StringRef n)
{
	static const char *const prefixes[] = {
		"__cxx_global_var_init", "__cxx_global_array_dtor", "_GLOBAL__", "__clang_call_terminate",
		"__dtor_", "_ZTW", "_ZTH", "_ZThn", "_ZTv", "_ZTc", "__tls_init", "__copy_helper_block",
		"__destroy_helper_block", "__paratrace", "llvm.", "asan.", "tsan.", "msan.", "sancov.",
		"__cfi_",
	};
	for (const char *p : prefixes)
		if (n.startswith(p))
			return true;
	return n.endswith(".module_ctor") || n.endswith(".module_dtor");
}

bool hasLoop(Function &f)
{
	for (scc_iterator<Function *> i = scc_begin(&f); !i.isAtEnd(); ++i)
		if (i.hasCycle())
			return true;
	return false;
}

unsigned instructionCount(const Function &f)
{
	unsigned n = 0;
	for (const BasicBlock &bb : f)
		for (const Instruction &i : bb)
			if (!isa<DbgInfoIntrinsic>(i))
				n++;
	return n;
}

struct Candidate {
	Function *fn;
	std::string name, file;
	unsigned line;
};

// How a function is named and located. name: what the table carries;
// match: what MANGLED filter rules see; dname: what the other filters and
// verbose=1 see.
struct Described {
	std::string name, match, dname, file;
	unsigned line = 0;
	StringRef role;
	const DeclInfo *decl = nullptr;
	DeclInfo scratch; // decl may point here: Described is never copied
	Described() = default;
	Described(const Described &) = delete;
};

void describe(Function &f, const FrontendState *fe, Described &d)
{
	const Module &m = *f.getParent();
	d.name = d.match = sourceName(f.getName());
	d.role = f.getFnAttribute(kRoleAttr).getValueAsString();
	auto located = [&] {
		d.file = f.getFnAttribute(kFileAttr).getValueAsString().str();
		f.getFnAttribute(kLineAttr).getValueAsString().getAsInteger(10, d.line);
	};
	if (!d.role.empty()) {
		d.name = d.dname = f.getFnAttribute(kNameAttr).getValueAsString().str();
		d.match = f.getFnAttribute(kMatchAttr).getValueAsString().str();
		located();
		return;
	}
	d.decl = findDecl(fe, f, d.scratch);
	if (f.hasFnAttribute(kNameAttr)) {
		// A lambda or a block, named at the pipeline's start.
		d.name = d.dname = f.getFnAttribute(kNameAttr).getValueAsString().str();
		located();
		return;
	}
	subprogramLocation(f, d.file, d.line);
	if (d.decl && !d.decl->file.empty()) {
		d.file = d.decl->file;
		d.line = d.decl->line ? d.decl->line : d.line;
	} else if (d.file.empty()) {
		d.file = normalisePath(m.getSourceFileName());
	}
	d.dname = demangleLLVM(d.name);
}

// "void std::__sort<It, Cmp>(It, It, Cmp)" -> "std::__sort<It, Cmp>":
// the name before the parameter list, without the return type.
StringRef qualifiedName(StringRef d)
{
	int depth = 0;
	size_t start = 0, end = d.size();
	for (size_t i = 0; i < d.size(); i++) {
		char c = d[i];
		if (c == '<')
			depth++;
		else if (c == '>')
			depth--;
		else if (depth == 0 && c == ' ')
			start = i + 1;
		else if (depth == 0 && c == '(') {
			end = i;
			break;
		}
	}
	return start < end ? d.slice(start, end) : d;
}

bool isSystem(const Described &d)
{
	if (d.decl)
		return d.decl->systemHeader;
	// Without the AST (-fpass-plugin= alone) fall back on where the
	// distribution keeps system headers (known with -g), and on the
	// standard library's namespaces (Score-P's built-in exclude).
	StringRef f(d.file);
	if (f.startswith("/usr/include/") || f.startswith("/usr/lib/gcc/") ||
	    f.startswith("/usr/lib/llvm-") || f.startswith("/usr/local/include/"))
		return true;
	StringRef q = qualifiedName(d.dname);
	return q.startswith("std::") || q.startswith("__gnu_cxx::") || q.startswith("__cxxabiv1::");
}

bool compilerGenerated(const Function &f, const Described &d)
{
	return d.role == "helper" || compilerGeneratedName(f.getName()) ||
	       (d.decl && d.decl->implicit);
}

// One user function reached from a library function (fields of kReachAttr).
// once: reached through loop-free library code with one call on the way (a
// thread's entry calling the lambda it runs), not from a library loop or
// several places (std::sort calling the comparator): a call of the library
// function is then one call of that code.
struct Reached {
	std::string match, name, dname, file;
	unsigned line = 0;
	bool once = false;
};

constexpr char kFieldSep = '\x1f', kEntrySep = '\x1e';

std::vector<Reached> reachedFrom(const Function &f)
{
	std::vector<Reached> out;
	StringRef all = f.getFnAttribute(kReachAttr).getValueAsString();
	SmallVector<StringRef, 8> entries, fields;
	all.split(entries, kEntrySep, -1, false);
	for (StringRef e : entries) {
		fields.clear();
		e.split(fields, kFieldSep);
		if (fields.size() != 6)
			continue;
		Reached r{fields[0].str(), fields[1].str(), fields[2].str(), fields[3].str(), 0,
			  fields[5] == "1"};
		fields[4].getAsInteger(10, r.line);
		out.push_back(r);
	}
	return out;
}

std::vector<Function *> directCallees(Function &f)
{
	std::vector<Function *> out;
	for (BasicBlock &bb : f)
		for (Instruction &i : bb)
			if (auto *cb = dyn_cast<CallBase>(&i))
				if (Function *c = cb->getCalledFunction(); c && !c->isIntrinsic())
					out.push_back(c);
	return out;
}

// At the pipeline's start, before anything is inlined: marks each library
// function (system header) with the user functions it reaches through
// library code only -- std::thread's entry reaches the lambda it runs,
// std::sort the comparator. Once the optimiser has inlined them, the
// library function holds the user's code (heldUserCode).
bool recordLibraryReach(Module &m, const FrontendState *fe, const Options &opts)
{
	if (opts.systemHeaders)
		return false;
	bool changed = false;
	std::map<Function *, std::vector<Function *>> calls;
	auto callees = [&](Function *f) -> const std::vector<Function *> & {
		auto it = calls.find(f);
		return it != calls.end() ? it->second : (calls[f] = directCallees(*f));
	};
	std::map<Function *, bool> loops;
	auto loopy = [&](Function *f) {
		auto it = loops.find(f);
		return it != loops.end() ? it->second : (loops[f] = hasLoop(*f));
	};
	enum Kind { User, Library, Other };
	std::map<Function *, Kind> kinds;
	std::map<Function *, std::string> entries;
	auto kindOf = [&](Function *f) {
		auto it = kinds.find(f);
		if (it != kinds.end())
			return it->second;
		Kind k = Other;
		if (!f->isDeclaration() && !f->hasFnAttribute(kDoneAttr)) {
			Described d;
			describe(*f, fe, d);
			if (d.role.empty() && !compilerGenerated(*f, d)) {
				k = isSystem(d) ? Library : User;
				if (k == User)
					entries[f] = d.match + kFieldSep + d.name + kFieldSep +
					             d.dname + kFieldSep + d.file + kFieldSep +
					             std::to_string(d.line) + kFieldSep;
			}
		}
		return kinds[f] = k;
	};
	// Whether a function is user code or library code that calls some
	// (std::forward and the like do not).
	std::map<Function *, bool> leadsTo;
	std::function<bool(Function *, unsigned)> leadsDepth = [&](Function *f, unsigned depth) {
		Kind k = kindOf(f);
		if (k != Library || depth > 32)
			return k == User;
		auto [it, fresh] = leadsTo.emplace(f, false); // false while visited: cycles
		if (!fresh)
			return it->second;
		bool any = false;
		for (Function *c : callees(f))
			any = any || leadsDepth(c, depth + 1);
		return leadsTo[f] = any;
	};
	auto leads = [&](Function *f) { return leadsDepth(f, 0); };
	for (Function &f : m) {
		if (kindOf(&f) != Library || !leads(&f))
			continue;
		std::vector<Function *> work{&f}, user;
		std::set<Function *> seen{&f};
		bool once = true;
		// Bounded: the standard library's call trees are shallow.
		for (size_t i = 0; i < work.size() && i < 256; i++) {
			once = once && !loopy(work[i]);
			unsigned sites = 0; // calls that lead to user code
			for (Function *c : callees(work[i])) {
				Kind k = kindOf(c);
				sites += leads(c);
				if (!seen.insert(c).second)
					continue;
				if (k == Library)
					work.push_back(c);
				else if (k == User)
					user.push_back(c);
			}
			once = once && sites <= 1;
		}
		std::string reach;
		for (Function *u : user)
			reach += (reach.empty() ? "" : std::string(1, kEntrySep)) + entries[u] +
			         (once ? "1" : "0");
		if (!reach.empty()) {
			f.addFnAttr(kReachAttr, reach);
			changed = true;
		}
	}
	return changed;
}

// The user's code a library function holds after optimisation: what it
// reached at the start, less what it still calls, and less what the library
// functions it still calls reached (their code, not its own).
std::vector<Reached> heldUserCode(Function &f)
{
	std::vector<Reached> out;
	if (!f.hasFnAttribute(kReachAttr))
		return out;
	std::set<std::string> elsewhere;
	for (Function *c : directCallees(f)) {
		elsewhere.insert(sourceName(c->getName()));
		for (const Reached &r : reachedFrom(*c))
			elsewhere.insert(r.match);
	}
	for (Reached &r : reachedFrom(f))
		if (!elsewhere.count(r.match))
			out.push_back(std::move(r));
	return out;
}

class Instrumenter {
public:
	Instrumenter(Module &m, const Options &opts, const FrontendState *fe)
		: m(m), ctx(m.getContext()), opts(opts), fe(fe), i32(Type::getInt32Ty(ctx)),
		  ptr(bytePtrTy(ctx))
	{
	}

	// The runtime itself (or a module that defines the hooks) must not
	// call itself.
	static bool definesHooks(Module &m)
	{
		for (const char *h :
		     {"__paratrace_func_enter", "__paratrace_func_exit", "__paratrace_func_enter2",
		      "__paratrace_func_exit2", "__paratrace_register_module"})
			if (Function *f = m.getFunction(h); f && !f->isDeclaration())
				return true;
		return false;
	}

	bool run()
	{
		if (fe && opts.verbose >= 2)
			for (const auto &d : fe->decls)
				errs() << "paratrace: frontend knows " << d.first << " (" << d.second.file << ":"
				       << d.second.line << ")\n";
		std::vector<Candidate> todo;
		for (Function &f : m)
			select(f, todo);
		if (todo.empty())
			return false;
		emitTable(todo);
		for (size_t i = 0; i < todo.size(); i++)
			instrument(*todo[i].fn, static_cast<uint32_t>(i));
		emitCtorDtor();
		return true;
	}

private:
	void select(Function &f, std::vector<Candidate> &todo)
	{
		if (f.isDeclaration() || f.hasFnAttribute(kDoneAttr) ||
		    f.hasAvailableExternallyLinkage())
			return;
		Described d;
		describe(f, fe, d);
		bool body = d.role == "body";
		std::string name = d.name, match = d.match, dname = d.dname, file = d.file;
		unsigned line = d.line;
		std::string held; // library function shown under the user's name

		std::string why;
		if (f.hasFnAttribute(Attribute::Naked))
			why = "naked";
		else if (d.role == "part")
			why = "inner function " + f.getName().str() +
			      " of this body, counted with it";
		else if (f.hasFnAttribute(Attribute::AlwaysInline) && !body)
			why = "always_inline";
		else if (d.decl && d.decl->noInstrument)
			why = "no_instrument_function";
		else if (!opts.compilerGenerated && compilerGenerated(f, d))
			why = "compiler-generated";
		else if (!opts.systemHeaders && isSystem(d)) {
			why = "system header";
			std::vector<Reached> user = heldUserCode(f);
			bool once = !user.empty();
			for (const Reached &u : user)
				once = once && u.once;
			if (!user.empty() && !once)
				dropped(d, user.front(), "called from a loop of library code");
			else if (once && !opts.libraryInlined)
				dropped(d, user.front(), "library-inlined=0");
			else if (once) {
				// The user's code was inlined here, and runs once per call:
				// traced under its name (the first one reached: the
				// thread's lambda, the functor).
				const Reached &u = user.front();
				held = " as " + u.dname + " (holds inlined user code)";
				name = u.name, match = u.match, dname = u.dname, file = u.file,
				line = u.line;
				why = sizeFilter(f, body);
				if (!why.empty())
					dropped(d, u, why);
				else // the user's own filters decide, silently
					why = userFilter(opts, match, dname, file);
			}
		} else {
			why = sizeFilter(f, body);
			if (why.empty())
				why = userFilter(opts, match, dname, file);
		}

		if (opts.verbose)
			errs() << "paratrace: " << (why.empty() ? "instrument " : "skip ")
			       << d.dname << held << " (" << file << ":" << line << ", size "
			       << instructionCount(f) << (hasLoop(f) ? ", loop" : "") << ")"
			       << (why.empty() ? "" : ": ") << why << "\n";
		if (why.empty())
			todo.push_back({&f, name, file, line});
	}

	std::string sizeFilter(Function &f, bool body)
	{
		if (opts.minSize && !body && instructionCount(f) < opts.minSize && !hasLoop(f))
			return "loop-free and below min-size=" + std::to_string(opts.minSize);
		return "";
	}

	// The user's code inlined into a library function that is not traced:
	// said once per file, with the option that keeps it.
	void dropped(const Described &lib, const Reached &user, const std::string &why)
	{
		if (warned)
			return;
		warned = true;
		std::string keep =
		    why.rfind("called", 0) == 0
		        ? "-fplugin-arg-instrument-system-headers=1 traces the library functions "
		          "that hold it"
		    : opts.libraryInlined ? "a smaller -fplugin-arg-instrument-min-size= keeps it"
		                          : "-fplugin-arg-instrument-library-inlined=1 traces it "
		                            "under the user's name";
		errs() << normalisePath(m.getSourceFileName())
		       << ": warning: paratrace: user code inlined "
		       << "into a library function is not traced (" << user.dname << " in "
		       << qualifiedName(lib.dname) << ": " << why << "); " << keep << "\n";
	}

	Constant *cstring(const std::string &s)
	{
		auto it = strings.find(s);
		if (it != strings.end())
			return it->second;
		Constant *init = ConstantDataArray::getString(ctx, s);
		auto *gv = new GlobalVariable(m, init->getType(), true, GlobalValue::PrivateLinkage, init,
					      "__paratrace_str");
		gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
		gv->setAlignment(Align(1));
		Constant *p = ConstantExpr::getPointerCast(gv, ptr);
		strings[s] = p;
		return p;
	}

	// pt_abi_func table[] and pt_abi_module desc (layouts of abi.h).
	void emitTable(const std::vector<Candidate> &todo)
	{
		StructType *funcTy = StructType::get(ctx, {ptr, ptr, i32, i32});
		std::vector<Constant *> rows;
		for (const Candidate &c : todo)
			rows.push_back(ConstantStruct::get(
				funcTy, {cstring(c.name),
					 c.file.empty() ? ConstantPointerNull::get(ptr) : cstring(c.file),
					 ConstantInt::get(i32, c.line), ConstantInt::get(i32, 0)}));
		ArrayType *tableTy = ArrayType::get(funcTy, rows.size());
		auto *table = new GlobalVariable(m, tableTy, true, GlobalValue::PrivateLinkage,
						 ConstantArray::get(tableTy, rows), "__paratrace_funcs");
		Constant *access = countsTls(rows.size());
		StructType *modTy =
		    StructType::get(ctx, {i32, i32, i32, i32, PointerType::getUnqual(funcTy), ptr, ptr});
		Constant *first = ConstantExpr::getInBoundsGetElementPtr(
			tableTy, table, ArrayRef<Constant *>{ConstantInt::get(i32, 0), ConstantInt::get(i32, 0)});
		std::string modName = normalisePath(m.getSourceFileName());
		desc = new GlobalVariable(
			m, modTy, false, GlobalValue::InternalLinkage,
			ConstantStruct::get(modTy, {ConstantInt::get(i32, kAbiVersion),
						    ConstantInt::get(i32, rows.size()), ConstantInt::get(i32, 0),
						    ConstantInt::get(i32, 0), first, cstring(modName), access}),
			"__paratrace_module");
		desc->setAlignment(Align(8));
		idBase = ConstantExpr::getInBoundsGetElementPtr(
			modTy, desc, ArrayRef<Constant *>{ConstantInt::get(i32, 0), ConstantInt::get(i32, 2)});

		FunctionType *hookTy = FunctionType::get(Type::getVoidTy(ctx), {i32}, false);
		enter = weakHook("__paratrace_func_enter2", FunctionType::get(i32, {i32}, false));
		exit = weakHook("__paratrace_func_exit2", hookTy);
		landed = weakHook("__paratrace_func_landed2", hookTy);
		// Called through the GOT, not a PLT stub: one indirect jump less
		// per hook call (the GOT entry is resolved at load, as with -fno-plt).
		for (FunctionCallee h : {enter, exit, landed})
			if (auto *f = dyn_cast<Function>(h.getCallee()))
				f->addFnAttr(Attribute::NonLazyBind);
	}

	// The module's thread-local counts pointer (docs/ABI.md, version 3) and
	// its accessor, which the runtime calls in a thread to find the
	// pointer's address there. Local-exec in code for an executable (the
	// TLS is in the executable's own block: no load-time cost, no reserve
	// used); in position-independent code only when asked for (initial-exec
	// takes static TLS from the C library's small reserve at dlopen), else
	// none: the accessor field is NULL and every traced call calls enter2.
	Constant *countsTls(uint64_t nfuncs)
	{
		bool pic = m.getPICLevel() != PICLevel::NotPIC && m.getPIELevel() == PIELevel::Default;
		GlobalValue::ThreadLocalMode mode = GlobalValue::LocalExecTLSModel;
		if (opts.countsTls == CountsTls::Off ||
		    (pic && opts.countsTls != CountsTls::InitialExec))
			return ConstantPointerNull::get(ptr);
		if (pic)
			mode = GlobalValue::InitialExecTLSModel;
		// Its initial value: an array of nfuncs NULLs (.bss: no file
		// space, no memory until read), so that the code need not test
		// the pointer itself; the runtime puts it back where it reset it.
		PointerType *cnt = PointerType::getUnqual(Type::getInt64Ty(ctx));
		PointerType *arr = PointerType::getUnqual(cnt);
		ArrayType *noneTy = ArrayType::get(cnt, nfuncs);
		auto *none = new GlobalVariable(m, noneTy, false, GlobalValue::InternalLinkage,
						ConstantAggregateZero::get(noneTy), "__paratrace_thr_none");
		none->setAlignment(Align(8));
		Constant *first = ConstantExpr::getInBoundsGetElementPtr(
			noneTy, none, ArrayRef<Constant *>{ConstantInt::get(i32, 0), ConstantInt::get(i32, 0)});
		thr = new GlobalVariable(m, arr, false, GlobalValue::InternalLinkage, first,
					 "__paratrace_thr", nullptr, mode);
		thr->setAlignment(Align(8));
		Function *fn = Function::Create(FunctionType::get(ptr, false), GlobalValue::InternalLinkage,
						"__paratrace_thr_addr", m);
		fn->addFnAttr(Attribute::NoUnwind);
		fn->addFnAttr(kDoneAttr);
		IRBuilder<> b(BasicBlock::Create(ctx, "", fn));
		b.CreateRet(b.CreatePointerCast(thr, ptr));
		return ConstantExpr::getPointerCast(fn, ptr);
	}

	FunctionCallee weakHook(const char *name, FunctionType *ty)
	{
		FunctionCallee c = m.getOrInsertFunction(name, ty);
		if (auto *f = dyn_cast<Function>(c.getCallee())) {
			// extern_weak: links with no libtrace.so; only called once the
			// runtime has set id_base, i.e. when the symbol is defined.
			f->setLinkage(GlobalValue::ExternalWeakLinkage);
			f->addFnAttr(Attribute::NoUnwind);
		}
		return c;
	}

	// setjmp, _setjmp, sigsetjmp, __sigsetjmp: returns_twice and non-zero
	// only when reached through longjmp. (vfork and getcontext are
	// returns_twice too but their second return is not a longjmp landing.)
	static bool isSetjmp(const CallBase &cb)
	{
		const Function *callee = cb.getCalledFunction();
		if (!callee || !cb.getType()->isIntegerTy())
			return false;
		if (!callee->hasFnAttribute(Attribute::ReturnsTwice) && !cb.hasFnAttr(Attribute::ReturnsTwice))
			return false;
		return callee->getName().contains("setjmp");
	}

	// if (cond) { ...at the returned point... }, at `before`; the branch is
	// marked unlikely because untraced runs must stay on the straight path.
	Instruction *ifUnlikely(Value *cond, Instruction *before)
	{
		MDNode *weights = MDBuilder(ctx).createBranchWeights(1, 1 << 20);
		return SplitBlockAndInsertIfThen(cond, before, false, weights);
	}

	// tok = base ? enter2(base + index) : 0, at `before`: the id the call's
	// exit hook gets, 0 when it gets none (untraced, or the runtime counted
	// the call without recording it).
	Value *emitEnter(Instruction *before, Value *base, uint32_t index, DebugLoc dl)
	{
		IRBuilder<> b(before);
		Value *on = b.CreateICmpNE(base, ConstantInt::get(i32, 0), "pt.on");
		Instruction *then = ifUnlikely(on, before);
		BasicBlock *head = then->getParent()->getSinglePredecessor();
		IRBuilder<> t(then);
		Value *id = index ? t.CreateAdd(base, ConstantInt::get(i32, index), "pt.id", true, true) : base;
		CallInst *call = t.CreateCall(enter, {id}, "pt.rec");
		call->setDebugLoc(dl);
		BasicBlock *tail = before->getParent();
		IRBuilder<> p(tail, tail->begin());
		PHINode *tok = p.CreatePHI(i32, 3, "pt.tok");
		tok->addIncoming(ConstantInt::get(i32, 0), head);
		tok->addIncoming(call, then->getParent());
		if (thr)
			emitCounted(head, then->getParent(), tail, tok, index);
		return tok;
	}

	// Version 3, between the test of base and the call of enter2:
	// c = __paratrace_thr[index]; if (c) { ++*c; tok = 0; }
	// A function the runtime throttled on this thread is counted here,
	// with no call; any other call goes on to enter2.
	void emitCounted(BasicBlock *head, BasicBlock *call, BasicBlock *tail, PHINode *tok,
	                 uint32_t index)
	{
		Function *f = head->getParent();
		Type *i64 = Type::getInt64Ty(ctx);
		PointerType *cnt = PointerType::getUnqual(i64);
		BasicBlock *slot = BasicBlock::Create(ctx, "pt.slot", f, call);
		BasicBlock *count = BasicBlock::Create(ctx, "pt.count", f, call);
		head->getTerminator()->replaceSuccessorWith(call, slot);
		IRBuilder<> b(slot);
		Value *p = b.CreateAlignedLoad(thr->getValueType(), thr, Align(8), "pt.thr");
		Value *at = b.CreateConstInBoundsGEP1_64(cnt, p, index);
		Value *c = b.CreateAlignedLoad(cnt, at, Align(8), "pt.cnt");
		b.CreateCondBr(b.CreateIsNotNull(c), count, call);
		// One instruction a signal handler's call counted on this thread
		// cannot come between, at every optimisation level (-O0 would not
		// fold a load-add-store, and a handler run between the load and
		// the store would lose its counts). x86-64: `incq` to memory,
		// with no lock prefix: each thread has its own counts. Elsewhere
		// a relaxed atomic add (AArch64: LSE `stadd`, or an exclusive
		// load/store loop that starts again when interrupted), as the
		// runtime's own increment (runtime/core/pt_count.h).
		b.SetInsertPoint(count);
		if (StringRef(m.getTargetTriple()).startswith("x86_64")) {
			InlineAsm *inc = InlineAsm::get(
			    FunctionType::get(Type::getVoidTy(ctx), {cnt, cnt}, false), "incq $0",
			    "=*m,*m,~{dirflag},~{fpsr},~{flags}", false);
			CallInst *ci = b.CreateCall(inc, {c, c});
			ci->addParamAttr(0, Attribute::get(ctx, Attribute::ElementType, i64));
			ci->addParamAttr(1, Attribute::get(ctx, Attribute::ElementType, i64));
			ci->addFnAttr(Attribute::NoUnwind);
		} else {
			b.CreateAtomicRMW(AtomicRMWInst::Add, c, ConstantInt::get(i64, 1), Align(8),
			                  AtomicOrdering::Monotonic);
		}
		b.CreateBr(tail);
		tok->addIncoming(ConstantInt::get(i32, 0), count);
	}

	// if (cond) hook(tok), at `before`.
	void emitExit(Instruction *before, Value *cond, FunctionCallee hook, Value *tok,
	              DebugLoc dl)
	{
		Instruction *then = ifUnlikely(cond, before);
		IRBuilder<> t(then);
		t.CreateCall(hook, {tok})->setDebugLoc(dl);
	}

	void instrument(Function &f, uint32_t index)
	{
		f.addFnAttr(kDoneAttr);
		// Exit points first: EscapeEnumerator turns may-throw calls into
		// invokes that unwind to a cleanup block ending in `resume`, so an
		// exception passing through f is seen; our own hook calls must not
		// be among them (they are nounwind, and inserted after).
		std::vector<Instruction *> exits;
		EscapeEnumerator ee(f, "pt.cleanup", /*HandleExceptions=*/true);
		while (IRBuilder<> *b = ee.Next())
			exits.push_back(&*b->GetInsertPoint());

		DebugLoc entryLoc;
		if (DISubprogram *sp = f.getSubprogram())
			entryLoc = DILocation::get(ctx, sp->getScopeLine(), 0, sp);

		Instruction *ip = afterStaticAllocas(f.getEntryBlock());
		IRBuilder<> b(ip);
		LoadInst *base = b.CreateAlignedLoad(i32, idBase, Align(4), "pt.base");
		base->setAtomic(AtomicOrdering::Monotonic);
		Value *tok = emitEnter(ip, base, index, entryLoc);
		auto recorded = [&](Instruction *at) {
			return IRBuilder<>(at).CreateICmpNE(tok, ConstantInt::get(i32, 0),
			                                    "pt.rec");
		};

		// After a longjmp lands in f (a setjmp-family call returning non-zero),
		// every frame entered after f is gone without its exit: report the
		// landing there (landed2, a FUNC_LANDED record), so that the analyzer
		// pops the skipped frames at the landing time and f goes on: its
		// stack is right again (docs/ABI.md). A call of f the runtime did not
		// record has nothing to go on.
		std::vector<CallBase *> setjmps;
		for (BasicBlock &bb : f)
			for (Instruction &i : bb)
				if (auto *cb = dyn_cast<CallBase>(&i); cb && isSetjmp(*cb))
					setjmps.push_back(cb);
		for (CallBase *cb : setjmps) {
			Instruction *after = isa<InvokeInst>(cb)
						     ? &*cast<InvokeInst>(cb)->getNormalDest()->getFirstInsertionPt()
						     : cb->getNextNode();
			IRBuilder<> b(after);
			Value *landedHere =
			    b.CreateICmpNE(cb, ConstantInt::get(cb->getType(), 0), "pt.longjmp");
			Value *on = b.CreateAnd(landedHere, recorded(after));
			emitExit(after, on, landed, tok, cb->getDebugLoc());
		}

		for (Instruction *e : exits) {
			// Nothing may sit between a musttail call and its ret.
			if (isa<ReturnInst>(e))
				if (auto *prev = e->getPrevNonDebugInstruction()) {
					if (isa<BitCastInst>(prev) && prev->getPrevNonDebugInstruction())
						prev = prev->getPrevNonDebugInstruction();
					if (auto *call = dyn_cast<CallInst>(prev); call && call->isMustTailCall())
						e = call;
				}
			DebugLoc dl = e->getDebugLoc();
			if (!dl)
				dl = entryLoc;
			emitExit(e, recorded(e), exit, tok, dl);
		}
	}

	// Constructor/destructor (priority 101) that hand the descriptor to the
	// runtime if libtrace.so is loaded (weak symbol defined).
	void emitCtorDtor()
	{
		FunctionType *regTy = FunctionType::get(Type::getVoidTy(ctx), {desc->getType()}, false);
		auto make = [&](const char *hookName, const char *fnName) {
			FunctionCallee hook = weakHook(hookName, regTy);
			Function *fn = Function::Create(FunctionType::get(Type::getVoidTy(ctx), false),
							GlobalValue::InternalLinkage, fnName, m);
			fn->addFnAttr(Attribute::NoUnwind);
			fn->addFnAttr(kDoneAttr);
			BasicBlock *bb = BasicBlock::Create(ctx, "", fn);
			BasicBlock *call = BasicBlock::Create(ctx, "call", fn);
			BasicBlock *done = BasicBlock::Create(ctx, "done", fn);
			IRBuilder<> b(bb);
			Value *callee = b.CreatePointerCast(hook.getCallee(), ptr);
			b.CreateCondBr(b.CreateICmpNE(callee, ConstantPointerNull::get(ptr)), call, done);
			b.SetInsertPoint(call);
			b.CreateCall(hook, {desc});
			b.CreateBr(done);
			b.SetInsertPoint(done);
			b.CreateRetVoid();
			return fn;
		};
		appendToGlobalCtors(m, make("__paratrace_register_module", "__paratrace_module_ctor"), 101);
		appendToGlobalDtors(m, make("__paratrace_unregister_module", "__paratrace_module_dtor"), 101);
	}

	Module &m;
	LLVMContext &ctx;
	const Options &opts;
	const FrontendState *fe;
	IntegerType *i32;
	PointerType *ptr;
	std::map<std::string, Constant *> strings;
	GlobalVariable *desc = nullptr;
	GlobalVariable *thr = nullptr;
	Constant *idBase = nullptr;
	FunctionCallee enter, exit, landed;
	bool warned = false;
};

enum class At { Start, Last, Explicit };

struct InstrumentPass : PassInfoMixin<InstrumentPass> {
	explicit InstrumentPass(At at) : at(at) {}

	PreservedAnalyses run(Module &m, ModuleAnalysisManager &)
	{
		FrontendState &fs = frontendState();
		const FrontendState *fe = nullptr;
		Options envOpts;
		const Options *opts = &envOpts;
		if (fs.active && fs.moduleId == m.getModuleIdentifier()) {
			fe = &fs;
			opts = &fs.opts;
		} else {
			// Loaded by -fpass-plugin= (or opt): no frontend, options only
			// from the environment.
			std::string err = parseEnvironment(envOpts);
			if (!err.empty()) {
				m.getContext().emitError(err);
				return PreservedAnalyses::all();
			}
		}
		// GPU code: its own instrumentation, at the pipeline's start
		// (Device.cpp), never the host hooks.
		if (isDeviceModule(m)) {
			if (at == At::Last)
				return PreservedAnalyses::all();
			return instrumentDevice(m, *opts) ? PreservedAnalyses::none() : PreservedAnalyses::all();
		}
		if (Instrumenter::definesHooks(m))
			return PreservedAnalyses::all();
		// Outlined code is named before anything is inlined (the first run
		// is at the pipeline's start whatever the stage): afterwards the
		// function that encloses a region may be gone.
		bool changed = nameOutlinedCode(m, fe);
		if (at == At::Start && opts->stage == Stage::Last)
			changed = recordLibraryReach(m, fe, *opts) || changed;
		if ((at == At::Start && opts->stage != Stage::Start) ||
		    (at == At::Last && opts->stage != Stage::Last))
			return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
		changed = Instrumenter(m, *opts, fe).run() || changed;
		return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
	}

	// Must also run at -O0, where every function is optnone.
	static bool isRequired() { return true; }

	At at;
};

} // namespace
} // namespace paratrace

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	using paratrace::At;
	using paratrace::InstrumentPass;
	return {LLVM_PLUGIN_API_VERSION, "paratrace-instrument", "1", [](PassBuilder &pb) {
			pb.registerPipelineStartEPCallback(
				[](ModulePassManager &mpm, OptimizationLevel) { mpm.addPass(InstrumentPass(At::Start)); });
#if LLVM_VERSION_MAJOR >= 20
			pb.registerOptimizerLastEPCallback([](ModulePassManager &mpm, OptimizationLevel,
							      ThinOrFullLTOPhase) {
				mpm.addPass(InstrumentPass(At::Last));
			});
#else
			pb.registerOptimizerLastEPCallback(
				[](ModulePassManager &mpm, OptimizationLevel) { mpm.addPass(InstrumentPass(At::Last)); });
#endif
			pb.registerPipelineParsingCallback(
				[](StringRef name, ModulePassManager &mpm, ArrayRef<PassBuilder::PipelineElement>) {
					if (name != "paratrace-instrument")
						return false;
					mpm.addPass(InstrumentPass(At::Explicit));
					return true;
				});
		}};
}
