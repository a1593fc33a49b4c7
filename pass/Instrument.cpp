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

#include <map>

using namespace llvm;

namespace paratrace {
namespace {

constexpr unsigned kAbiVersion = 1; // PT_ABI_VERSION in include/paratrace/abi.h
constexpr const char *kDoneAttr = "paratrace-instrumented";

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
		for (const char *h : {"__paratrace_func_enter", "__paratrace_func_exit",
				      "__paratrace_register_module"})
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
		if (f.isDeclaration() || f.hasFnAttribute(kDoneAttr) || f.hasAvailableExternallyLinkage())
			return;
		// name: what the table carries; match: what MANGLED filter rules
		// see; dname: what the other filters and verbose=1 see.
		std::string name = sourceName(f.getName()), match = name, dname, file;
		unsigned line = 0;
		StringRef role = f.getFnAttribute(kRoleAttr).getValueAsString();
		DeclInfo scratch;
		const DeclInfo *decl = nullptr;
		if (!role.empty()) {
			name = dname = f.getFnAttribute(kNameAttr).getValueAsString().str();
			match = f.getFnAttribute(kMatchAttr).getValueAsString().str();
			file = f.getFnAttribute(kFileAttr).getValueAsString().str();
			f.getFnAttribute(kLineAttr).getValueAsString().getAsInteger(10, line);
		} else {
			decl = findDecl(fe, f, scratch);
			if (f.hasFnAttribute(kNameAttr)) {
				// A lambda or a block, named at the pipeline's start.
				name = dname = f.getFnAttribute(kNameAttr).getValueAsString().str();
				file = f.getFnAttribute(kFileAttr).getValueAsString().str();
				f.getFnAttribute(kLineAttr).getValueAsString().getAsInteger(10, line);
			} else {
				subprogramLocation(f, file, line);
				if (decl && !decl->file.empty()) {
					file = decl->file;
					line = decl->line ? decl->line : line;
				} else if (file.empty()) {
					file = normalisePath(m.getSourceFileName());
				}
				dname = demangleLLVM(name);
			}
		}
		bool body = role == "body";

		std::string why;
		if (f.hasFnAttribute(Attribute::Naked))
			why = "naked";
		else if (role == "part")
			why = "inner function " + f.getName().str() + " of this body, counted with it";
		else if (f.hasFnAttribute(Attribute::AlwaysInline) && !body)
			why = "always_inline";
		else if (decl && decl->noInstrument)
			why = "no_instrument_function";
		else if (!opts.compilerGenerated &&
			 (role == "helper" || compilerGeneratedName(f.getName()) || (decl && decl->implicit)))
			why = "compiler-generated";
		else if (!opts.systemHeaders && isSystem(decl, file, dname))
			why = "system header";
		else if (opts.minSize && !body && instructionCount(f) < opts.minSize && !hasLoop(f))
			why = "loop-free and below min-size=" + std::to_string(opts.minSize);
		else
			why = userFilter(opts, match, dname, file);

		if (opts.verbose)
			errs() << "paratrace: " << (why.empty() ? "instrument " : "skip ") << dname << " ("
			       << file << ":" << line << ", size " << instructionCount(f)
			       << (hasLoop(f) ? ", loop" : "") << ")" << (why.empty() ? "" : ": ") << why << "\n";
		if (why.empty())
			todo.push_back({&f, name, file, line});
	}

	bool isSystem(const DeclInfo *decl, const std::string &file, const std::string &dname)
	{
		if (decl)
			return decl->systemHeader;
		// Without the AST (-fpass-plugin= alone) fall back on where the
		// distribution keeps system headers (known with -g), and on the
		// standard library's namespaces (Score-P's built-in exclude).
		StringRef f(file);
		if (f.startswith("/usr/include/") || f.startswith("/usr/lib/gcc/") ||
		    f.startswith("/usr/lib/llvm-") || f.startswith("/usr/local/include/"))
			return true;
		StringRef q = qualifiedName(dname);
		return q.startswith("std::") || q.startswith("__gnu_cxx::") || q.startswith("__cxxabiv1::");
	}

	// "void std::__sort<It, Cmp>(It, It, Cmp)" -> "std::__sort<It, Cmp>":
	// the name before the parameter list, without the return type.
	static StringRef qualifiedName(StringRef d)
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
		StructType *modTy = StructType::get(ctx, {i32, i32, i32, i32, PointerType::getUnqual(funcTy), ptr});
		Constant *first = ConstantExpr::getInBoundsGetElementPtr(
			tableTy, table, ArrayRef<Constant *>{ConstantInt::get(i32, 0), ConstantInt::get(i32, 0)});
		std::string modName = normalisePath(m.getSourceFileName());
		desc = new GlobalVariable(
			m, modTy, false, GlobalValue::InternalLinkage,
			ConstantStruct::get(modTy, {ConstantInt::get(i32, kAbiVersion),
						    ConstantInt::get(i32, rows.size()), ConstantInt::get(i32, 0),
						    ConstantInt::get(i32, 0), first, cstring(modName)}),
			"__paratrace_module");
		desc->setAlignment(Align(8));
		idBase = ConstantExpr::getInBoundsGetElementPtr(
			modTy, desc, ArrayRef<Constant *>{ConstantInt::get(i32, 0), ConstantInt::get(i32, 2)});

		FunctionType *hookTy = FunctionType::get(Type::getVoidTy(ctx), {i32}, false);
		enter = weakHook("__paratrace_func_enter", hookTy);
		exit = weakHook("__paratrace_func_exit", hookTy);
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

	// if (base) hook(base + index), at `before`; the branch is marked
	// unlikely because untraced runs must stay on the straight path.
	void emitHook(Instruction *before, FunctionCallee hook, Value *base, uint32_t index, DebugLoc dl)
	{
		IRBuilder<> b(before);
		Value *on = b.CreateICmpNE(base, ConstantInt::get(i32, 0), "pt.on");
		MDNode *weights = MDBuilder(ctx).createBranchWeights(1, 1 << 20);
		Instruction *then = SplitBlockAndInsertIfThen(on, before, false, weights);
		IRBuilder<> t(then);
		Value *id = index ? t.CreateAdd(base, ConstantInt::get(i32, index), "pt.id", true, true) : base;
		CallInst *call = t.CreateCall(hook, {id});
		call->setDebugLoc(dl);
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
		emitHook(ip, enter, base, index, entryLoc);

		// After a longjmp lands in f (a setjmp-family call returning non-zero),
		// every frame entered after f is gone without its exit: report
		// "exit f, enter f" there. The exit does not match the innermost open
		// frame, so the analyzer pops the skipped frames and f at the landing
		// time, then reopens f: its stack is right again (docs/ABI.md).
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
			Value *landed = b.CreateICmpNE(cb, ConstantInt::get(cb->getType(), 0), "pt.longjmp");
			Value *on = b.CreateAnd(landed, b.CreateICmpNE(base, ConstantInt::get(i32, 0)));
			MDNode *weights = MDBuilder(ctx).createBranchWeights(1, 1 << 20);
			Instruction *then = SplitBlockAndInsertIfThen(on, after, false, weights);
			IRBuilder<> t(then);
			Value *id = index ? t.CreateAdd(base, ConstantInt::get(i32, index), "pt.id", true, true) : base;
			t.CreateCall(exit, {id})->setDebugLoc(cb->getDebugLoc());
			t.CreateCall(enter, {id})->setDebugLoc(cb->getDebugLoc());
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
			emitHook(e, exit, base, index, dl);
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
	Constant *idBase = nullptr;
	FunctionCallee enter, exit;
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
