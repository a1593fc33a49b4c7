// SPDX-License-Identifier: MIT
// Device half of the IR pass (Device.h): instruments GPU kernels with the
// counters of include/paratrace/gpu_abi.h.
//
// Runs at the pipeline's start, before anything is inlined or optimised, so
// that blocks are the ones clang generated from the source (their lines
// mean what the user wrote) and the optimiser then works on the counters
// too (a private counter in a loop becomes an induction variable).
//
// Per kernel K and per mode wanted (gpu=entries|blocks|all), a clone of K
// with the profile buffer as an extra argument is made; every call to a
// defined function is inlined into the clone (OpenCL C has no recursion;
// PoCL inlines everything anyway), so the blocks of the functions a kernel
// calls are counted as blocks of the kernel. The clone's returns are merged
// into one exit block, where the work-group's results go to the buffer.
//
// The device languages (DeviceOpenCL.cpp, DeviceCuda.cpp) decide what goes
// into a clone and how the runtime reaches it.
#include "Device.h"
#include "DeviceInstrumenter.h"
#include "IRUtil.h"
#include "Names.h"

#include <paratrace/gpu_abi.h>

#include <llvm/ADT/SCCIterator.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/CallGraph.h>
#if LLVM_VERSION_MAJOR >= 17
#include <llvm/TargetParser/Triple.h>
#else
#include <llvm/ADT/Triple.h>
#endif
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <sstream>

using namespace llvm;

namespace paratrace
{

// ---- kernels and their clones ----------------------------------------------------

namespace
{

// Calls to defined functions inlined into one clone at most (a kernel that
// would exceed this keeps the remaining calls, whose blocks go uncounted).
constexpr unsigned kMaxInlineRounds = 64;
constexpr unsigned kMaxCloneInstructions = 200000;

// What a block costs: instructions that are executed, i.e. not allocas
// (the entry block's stack slots), debug, lifetime or assume markers.
unsigned staticInstructions(const BasicBlock &bb)
{
	unsigned n = 0;
	for (const Instruction &i : bb) {
		if (isa<AllocaInst>(i))
			continue;
		if (auto *ii = dyn_cast<IntrinsicInst>(&i); ii && ii->isAssumeLikeIntrinsic())
			continue;
		n++;
	}
	return n;
}

bool isKernel(const Function &f, const std::set<const Function *> &annotated)
{
	if (f.getCallingConv() == CallingConv::SPIR_KERNEL ||
	    f.getCallingConv() == CallingConv::PTX_Kernel)
		return true;
	return annotated.count(&f) != 0;
}

} // namespace

DeviceInstrumenter::DeviceInstrumenter(Module &m, const Options &opts)
    : m(m), ctx(m.getContext()), opts(opts), i32(Type::getInt32Ty(ctx)), i64(Type::getInt64Ty(ctx)),
      i8(Type::getInt8Ty(ctx))
{
}

std::set<const Function *> DeviceInstrumenter::annotatedKernels()
{
	return {};
}

void DeviceInstrumenter::moreParams(bool, std::vector<Type *> &, std::vector<const char *> &)
{
}

void DeviceInstrumenter::kernelDone(Function &, Function *, Function *)
{
}

void DeviceInstrumenter::moduleDone()
{
}

Value *DeviceInstrumenter::word(IRBuilder<> &b, Value *prof, Value *index)
{
	return b.CreateGEP(i64, prof, index);
}

void DeviceInstrumenter::atomicAt(IRBuilder<> &b, AtomicRMWInst::BinOp op, Value *prof, unsigned w,
                                  Value *v)
{
	b.CreateAtomicRMW(op, word(b, prof, ConstantInt::get(i64, w)), v, MaybeAlign(8),
	                  AtomicOrdering::Monotonic);
}

Instruction *DeviceInstrumenter::ifThen(IRBuilder<> &b, Value *cond)
{
	Instruction *then = SplitBlockAndInsertIfThen(cond, &*b.GetInsertPoint(), false);
	b.SetInsertPoint(&*b.GetInsertPoint());
	return then;
}

bool DeviceInstrumenter::run()
{
	std::set<const Function *> annotated = annotatedKernels();
	std::vector<Function *> kernels;
	for (Function &f : m) {
		if (f.isDeclaration() || !isKernel(f, annotated) || f.hasFnAttribute(kDoneAttr) ||
		    f.getName().startswith("__paratrace"))
			continue;
		std::string file;
		unsigned line = 0;
		subprogramLocation(f, file, line);
		std::string why =
		    userFilter(opts, f.getName().str(), demangleLLVM(f.getName().str()), file);
		if (opts.verbose)
			errs() << "paratrace: " << (why.empty() ? "instrument" : "skip")
			       << " GPU kernel " << demangleLLVM(f.getName().str())
			       << (why.empty() ? "" : ": ") << why << "\n";
		if (why.empty())
			kernels.push_back(&f);
	}
	if (!kernels.empty())
		findRecursion();
	for (Function *k : kernels)
		instrumentKernel(*k);
	if (tables.empty())
		return !kernels.empty();
	moduleDone();
	return true;
}

// K with extra trailing parameters (OpenCL twin: a kernel; CUDA: an
// internal function inlined back into K).
Function *DeviceInstrumenter::cloneWithParams(Function &k, ArrayRef<Type *> extra,
                                              ArrayRef<const char *> names, const std::string &name,
                                              bool kernel)
{
	std::vector<Type *> params(k.getFunctionType()->param_begin(),
	                           k.getFunctionType()->param_end());
	params.insert(params.end(), extra.begin(), extra.end());
	FunctionType *ft = FunctionType::get(k.getReturnType(), params, false);
	Function *f = Function::Create(ft, kernel ? k.getLinkage() : GlobalValue::InternalLinkage,
	                               k.getAddressSpace(), name, &m);
	ValueToValueMapTy vmap;
	auto ni = f->arg_begin();
	for (Argument &a : k.args()) {
		ni->setName(a.getName());
		vmap[&a] = &*ni++;
	}
	for (const char *n : names)
		(ni++)->setName(n);
	SmallVector<ReturnInst *, 8> returns;
	CloneFunctionInto(f, &k, vmap, CloneFunctionChangeType::LocalChangesOnly, returns);
	f->setCallingConv(k.getCallingConv());
	f->setLinkage(kernel ? k.getLinkage() : GlobalValue::InternalLinkage);
	if (!kernel) {
		f->setVisibility(GlobalValue::DefaultVisibility);
		f->removeFnAttr(Attribute::NoInline);
		f->removeFnAttr(Attribute::OptimizeNone);
	}
	f->addFnAttr(kDoneAttr);
	return f;
}

// Inlines every call to a defined function (so that its blocks are
// counted as the kernel's). Recursive functions (CUDA) stay calls,
// their blocks uncounted.
void DeviceInstrumenter::inlineCallees(Function &f)
{
	for (unsigned round = 0; round < kMaxInlineRounds; round++) {
		std::vector<CallBase *> calls;
		for (BasicBlock &bb : f)
			for (Instruction &i : bb)
				if (auto *cb = dyn_cast<CallBase>(&i)) {
					Function *callee = cb->getCalledFunction();
					if (callee && !callee->isDeclaration() && callee != &f &&
					    !callee->isIntrinsic() && !recursive.count(callee))
						calls.push_back(cb);
				}
		if (calls.empty())
			return;
		bool any = false;
		for (CallBase *cb : calls) {
			if (instructionCount(f) > kMaxCloneInstructions)
				return;
			InlineFunctionInfo ifi;
			any = InlineFunction(*cb, ifi).isSuccess() || any;
		}
		if (!any)
			return;
	}
}

// Functions on a cycle of the call graph.
void DeviceInstrumenter::findRecursion()
{
	CallGraph cg(m);
	for (scc_iterator<CallGraph *> i = scc_begin(&cg); !i.isAtEnd(); ++i)
		if (i.hasCycle())
			for (CallGraphNode *n : *i)
				if (Function *f = n->getFunction())
					recursive.insert(f);
}

unsigned DeviceInstrumenter::instructionCount(const Function &f)
{
	unsigned n = 0;
	for (const BasicBlock &bb : f)
		n += bb.size();
	return n;
}

// Returns the block that holds only the static allocas (where entry
// code goes); the original entry code continues in its successor.
BasicBlock *DeviceInstrumenter::splitEntry(Function &f)
{
	BasicBlock &entry = f.getEntryBlock();
	SplitBlock(&entry, afterStaticAllocas(entry));
	return &entry;
}

// Every `ret void` becomes a branch to one exit block. NULL if the
// function has no return (nothing to instrument at its end).
BasicBlock *DeviceInstrumenter::unifyReturns(Function &f)
{
	std::vector<ReturnInst *> rets;
	for (BasicBlock &bb : f)
		if (auto *r = dyn_cast<ReturnInst>(bb.getTerminator()))
			rets.push_back(r);
	if (rets.empty() || !f.getReturnType()->isVoidTy())
		return nullptr;
	BasicBlock *exit = BasicBlock::Create(ctx, "pt.exit", &f);
	ReturnInst *ret = ReturnInst::Create(ctx, exit);
	ret->setDebugLoc(rets.front()->getDebugLoc());
	for (ReturnInst *r : rets) {
		BranchInst *br = BranchInst::Create(exit, r);
		br->setDebugLoc(r->getDebugLoc());
		r->eraseFromParent();
	}
	return exit;
}

int DeviceInstrumenter::fileIndex(const std::string &path)
{
	if (path.empty())
		return -1;
	auto it = fileIdx.find(path);
	if (it != fileIdx.end())
		return it->second;
	int i = static_cast<int>(files.size());
	files.push_back(path);
	fileIdx[path] = i;
	return i;
}

// A block's line: that of its first instruction written in the kernel
// itself; a block made only of code inlined from a callee gets the
// callee's line (where that code is written).
BlockRow DeviceInstrumenter::describe(const BasicBlock &bb)
{
	BlockRow r;
	r.instructions = staticInstructions(bb);
	const DILocation *loc = nullptr;
	for (const Instruction &i : bb) {
		const DILocation *l = i.getDebugLoc().get();
		if (isa<DbgInfoIntrinsic>(i) || !l || !l->getLine())
			continue;
		if (!l->getInlinedAt()) {
			loc = l;
			break;
		}
		if (!loc)
			loc = l;
	}
	if (loc) {
		std::string file = loc->getFilename().str();
		if (!file.empty() && file[0] != '/' && !loc->getDirectory().empty())
			file = loc->getDirectory().str() + "/" + file;
		r.file = fileIndex(normalisePath(file));
		r.line = loc->getLine();
	}
	return r;
}

std::string DeviceInstrumenter::tableText(const std::vector<TableKernel> &ks)
{
	std::ostringstream os;
	os << "T " << PT_GPU_TABLE_VERSION << "\n";
	std::set<int> used;
	for (const TableKernel &k : ks) {
		used.insert(k.file);
		for (const BlockRow &b : k.blocks)
			used.insert(b.file);
	}
	for (int f : used)
		if (f >= 0)
			os << "F " << f << " " << files[f] << "\n";
	for (const TableKernel &k : ks) {
		os << "K " << k.mode << " " << k.blocks.size() << " " << k.file << " " << k.line
		   << " " << k.kernel << " " << (k.twin.empty() ? "-" : k.twin) << "\n";
		for (const BlockRow &b : k.blocks)
			os << "B " << b.instructions << " " << b.file << " " << b.line << "\n";
	}
	return os.str();
}

// One instrumented clone of k; fills its table entry. NULL when k has
// nothing to instrument (no return).
Function *DeviceInstrumenter::makeClone(Function &k, bool countBlocks)
{
	std::string name = k.getName().str();
	std::vector<Type *> extra = {ptrTo(i64, kGlobalAS)};
	std::vector<const char *> names = {"__paratrace_prof"};
	moreParams(countBlocks, extra, names);
	std::string twin = cloneName(name, countBlocks);
	Function *f = cloneWithParams(k, extra, names, twin, clonesAreKernels());
	inlineCallees(*f);
	BasicBlock *pre = splitEntry(*f);
	std::vector<BasicBlock *> blocks;
	for (BasicBlock &bb : *f)
		if (&bb != pre)
			blocks.push_back(&bb);
	TableKernel row;
	row.kernel = name;
	row.twin = clonesAreKernels() ? twin : "";
	std::string file;
	subprogramLocation(k, file, row.line);
	row.file = fileIndex(file);
	if (countBlocks && blocks.size() > PT_GPU_MAX_BLOCKS) {
		if (opts.verbose)
			errs() << "paratrace: GPU kernel " << name << ": " << blocks.size()
			       << " blocks, more than " << PT_GPU_MAX_BLOCKS
			       << ": no block counters\n";
		f->eraseFromParent();
		return nullptr;
	}
	if (countBlocks)
		for (BasicBlock *bb : blocks)
			row.blocks.push_back(describe(*bb));
	BasicBlock *exit = unifyReturns(*f);
	if (!exit) {
		f->eraseFromParent();
		return nullptr;
	}
	row.mode = countBlocks ? 'b' : 'e';
	instrumentClone(*f, pre, blocks, exit, countBlocks);
	if (opts.verbose)
		errs() << "paratrace: GPU kernel " << name << ": "
		       << (countBlocks ? "blocks" : "entries")
		       << (countBlocks ? " (" + std::to_string(blocks.size()) + " blocks)"
		                       : std::string())
		       << " -> " << twin << "\n";
	kernelRows.push_back(std::move(row));
	return f;
}

void DeviceInstrumenter::instrumentKernel(Function &k)
{
	kernelRows.clear();
	Function *e = (opts.gpuModes & kGpuEntries) ? makeClone(k, false) : nullptr;
	Function *b = (opts.gpuModes & kGpuBlocks) ? makeClone(k, true) : nullptr;
	k.addFnAttr(kDoneAttr);
	if (!e && !b)
		return;
	kernelDone(k, e, b);
	tables.insert(tables.end(), kernelRows.begin(), kernelRows.end());
}

bool isDeviceModule(const Module &m)
{
	Triple t(m.getTargetTriple());
	switch (t.getArch()) {
	case Triple::spir:
	case Triple::spir64:
	case Triple::nvptx:
	case Triple::nvptx64:
	case Triple::amdgcn:
	case Triple::r600:
		return true;
	default:
		return false;
	}
}

bool instrumentDevice(Module &m, const Options &opts)
{
	if (!opts.gpuModes)
		return false;
	Triple t(m.getTargetTriple());
	if (t.getArch() == Triple::spir || t.getArch() == Triple::spir64)
		return openclInstrumenter(m, opts)->run();
	if (t.getArch() == Triple::nvptx || t.getArch() == Triple::nvptx64)
		return cudaInstrumenter(m, opts)->run();
	return false;
}

} // namespace paratrace