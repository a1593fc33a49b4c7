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
//   OpenCL (spir, spir64): the clone is a kernel of its own (a twin), which
//     the runtime substitutes for K. Each work-item counts its blocks in
//     private counters (no atomics in the body: on a CPU device such as
//     PoCL the work-item loop still vectorises), stores them at the exit to
//     a __local scratch column, and after a barrier the group sums the
//     columns and adds them to the buffer: one global atomic per block per
//     work-group.
//   CUDA (nvptx, nvptx64): K keeps its signature (the host stub launches
//     it); its entry reads a device global slot that the runtime sets per
//     launch and runs the original code when it is 0, else the inlined
//     clone. Each thread counts its blocks in private counters; at the exit
//     the group sums them in shared memory (per warp with redux.sync on
//     sm_80 and later) and adds them to its copy of the buffer (one of
//     PT_GPU_CUDA_COPIES, chosen by multiprocessor); the group's first
//     thread records start and end %globaltimer.
#include "Device.h"
#include "IRUtil.h"
#include "Names.h"

#include <paratrace/gpu_abi.h>

#include <llvm/ADT/SCCIterator.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/CallGraph.h>
#include <llvm/Config/llvm-config.h>
#if LLVM_VERSION_MAJOR >= 17
#include <llvm/TargetParser/Triple.h>
#else
#include <llvm/ADT/Triple.h>
#endif
#include <llvm/IR/Constants.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <map>
#include <memory>
#include <set>
#include <sstream>

using namespace llvm;

namespace paratrace
{

// ---- what every device language shares ------------------------------------

constexpr const char *kDoneAttr = "paratrace-instrumented";

// Address spaces of the two targets (OpenCL's SPIR numbering and NVPTX's).
constexpr unsigned kGlobalAS = 1, kLocalAS = 3, kSpirConstantAS = 2;

inline llvm::Type *ptrTo(llvm::Type *elem, unsigned as)
{
#if LLVM_VERSION_MAJOR >= 17
	return llvm::PointerType::get(elem->getContext(), as);
#else
	return llvm::PointerType::get(elem, as);
#endif
}

struct BlockRow {
	unsigned instructions = 0;
	int file = -1;
	unsigned line = 0;
};

struct TableKernel {
	char mode; // 'e' or 'b'
	std::string kernel, twin;
	int file = -1;
	unsigned line = 0;
	std::vector<BlockRow> blocks;
};

// The kernels of one device module: per kernel and mode a clone with the
// profile buffer as an extra parameter, its blocks inlined and counted,
// one exit, and its row of the module's table. What goes into a clone and
// how the runtime reaches it are the device language's (a subclass).
class DeviceInstrumenter
{
      public:
	DeviceInstrumenter(llvm::Module &m, const Options &opts);
	virtual ~DeviceInstrumenter() = default;

	// Returns whether the module changed.
	bool run();

      protected:
	using Blocks = std::vector<llvm::BasicBlock *>;

	// ---- what the device language decides ----------------------------------

	// Kernels the module marks otherwise than by their calling convention.
	virtual std::set<const llvm::Function *> annotatedKernels();
	// Parameters a clone has after the profile buffer.
	virtual void moreParams(bool countBlocks, std::vector<llvm::Type *> &types,
	                        std::vector<const char *> &names);
	// A clone's name, and whether it is a kernel of its own (a twin the
	// runtime launches instead of K) or a function K calls.
	virtual std::string cloneName(const std::string &kernel, bool countBlocks) = 0;
	virtual bool clonesAreKernels() const = 0;
	// The counters in a clone: pre, where entry code goes (only the stack
	// slots before it); blocks, those counted; exit, the one exit.
	virtual void instrumentClone(llvm::Function &f, llvm::BasicBlock *pre, const Blocks &blocks,
	                             llvm::BasicBlock *exit, bool countBlocks) = 0;
	// After K's clones were made (entries, blocks: NULL when not).
	virtual void kernelDone(llvm::Function &k, llvm::Function *entries, llvm::Function *blocks);
	// After the last kernel, when one was instrumented.
	virtual void moduleDone();

	// ---- shared with the device languages ------------------------------------

	// Splits f's entry after its stack slots; returns the block that holds
	// only them (where entry code goes).
	llvm::BasicBlock *splitEntry(llvm::Function &f);
	std::string tableText(const std::vector<TableKernel> &ks);

	// Address of word index of the profile buffer; an atomic op on word w.
	llvm::Value *word(llvm::IRBuilder<> &b, llvm::Value *prof, llvm::Value *index);
	void atomicAt(llvm::IRBuilder<> &b, llvm::AtomicRMWInst::BinOp op, llvm::Value *prof,
	              unsigned w, llvm::Value *v);
	// Then-block of `if (cond)` at b's insertion point; b continues after.
	llvm::Instruction *ifThen(llvm::IRBuilder<> &b, llvm::Value *cond);
	// for (i = from; i < to; i += step) body(i), at b's insertion point;
	// b continues after the loop.
	template <typename Body>
	void loop(llvm::IRBuilder<> &b, llvm::Value *from, llvm::Value *to, llvm::Value *step,
	          Body body)
	{
		llvm::BasicBlock *before = b.GetInsertBlock();
		llvm::BasicBlock *after = llvm::SplitBlock(before, &*b.GetInsertPoint());
		llvm::Function *f = before->getParent();
		llvm::BasicBlock *head = llvm::BasicBlock::Create(ctx, "pt.loop", f, after);
		llvm::BasicBlock *bodyBB = llvm::BasicBlock::Create(ctx, "pt.body", f, after);
		before->getTerminator()->setSuccessor(0, head);
		llvm::IRBuilder<> h(head);
		h.SetCurrentDebugLocation(b.getCurrentDebugLocation());
		llvm::PHINode *i = h.CreatePHI(from->getType(), 2);
		i->addIncoming(from, before);
		h.CreateCondBr(h.CreateICmpULT(i, to), bodyBB, after);
		// The back edge first, so that the body may split blocks before it.
		llvm::BranchInst *latch = llvm::BranchInst::Create(head, bodyBB);
		latch->setDebugLoc(b.getCurrentDebugLocation());
		llvm::IRBuilder<> bb(latch);
		bb.SetCurrentDebugLocation(b.getCurrentDebugLocation());
		body(bb, i);
		llvm::IRBuilder<> l(latch);
		i->addIncoming(l.CreateAdd(i, step), latch->getParent());
		b.SetInsertPoint(&*after->getFirstInsertionPt());
	}

	llvm::Module &m;
	llvm::LLVMContext &ctx;
	const Options &opts;
	llvm::IntegerType *i32, *i64, *i8;
	std::vector<TableKernel> tables, kernelRows;

      private:
	llvm::Function *cloneWithParams(llvm::Function &k, llvm::ArrayRef<llvm::Type *> extra,
	                                llvm::ArrayRef<const char *> names, const std::string &name,
	                                bool kernel);
	void inlineCallees(llvm::Function &f);
	void findRecursion();
	static unsigned instructionCount(const llvm::Function &f);
	llvm::BasicBlock *unifyReturns(llvm::Function &f);
	int fileIndex(const std::string &path);
	BlockRow describe(const llvm::BasicBlock &bb);
	llvm::Function *makeClone(llvm::Function &k, bool countBlocks);
	void instrumentKernel(llvm::Function &k);

	std::vector<std::string> files;
	std::map<std::string, int> fileIdx;
	std::set<const llvm::Function *> recursive;
};

std::unique_ptr<DeviceInstrumenter> openclInstrumenter(llvm::Module &m, const Options &opts);
std::unique_ptr<DeviceInstrumenter> cudaInstrumenter(llvm::Module &m, const Options &opts);

// ---- OpenCL (spir, spir64) ----------------------------------------------------

namespace
{

class OpenCLInstrumenter : public DeviceInstrumenter
{
      public:
	OpenCLInstrumenter(Module &m, const Options &opts) : DeviceInstrumenter(m, opts)
	{
		Triple t(m.getTargetTriple());
		sizeT = t.getArch() == Triple::spir ? i32 : i64;
	}

      private:
	// The twin is a kernel: the runtime substitutes it for K.
	std::string cloneName(const std::string &kernel, bool countBlocks) override
	{
		return std::string(countBlocks ? PT_GPU_TWIN_BLOCKS : PT_GPU_TWIN_ENTRIES) + kernel;
	}
	bool clonesAreKernels() const override
	{
		return true;
	}
	void moreParams(bool countBlocks, std::vector<Type *> &extra,
	                std::vector<const char *> &names) override
	{
		if (!countBlocks)
			return;
		extra.push_back(ptrTo(i32, kLocalAS));
		extra.push_back(i32);
		names.push_back("__paratrace_scratch");
		names.push_back("__paratrace_items");
	}
	void instrumentClone(Function &f, BasicBlock *pre, const std::vector<BasicBlock *> &blocks,
	                     BasicBlock *exit, bool countBlocks) override
	{
		extendKernelArgMetadata(f, countBlocks);
		openclBody(f, pre, blocks, exit, countBlocks);
	}
	void moduleDone() override
	{
		emitInfoKernel();
	}

	FunctionCallee spirBuiltin(const char *name, Type *ret, ArrayRef<Type *> params,
	                           bool convergent)
	{
		FunctionCallee c =
		    m.getOrInsertFunction(name, FunctionType::get(ret, params, false));
		if (auto *f = dyn_cast<Function>(c.getCallee())) {
			f->setCallingConv(CallingConv::SPIR_FUNC);
			f->addFnAttr(Attribute::NoUnwind);
			if (convergent)
				f->addFnAttr(Attribute::Convergent);
		}
		return c;
	}

	Value *spirCall(IRBuilder<> &b, const char *name, Type *ret, ArrayRef<Value *> args,
	                bool convergent = false)
	{
		std::vector<Type *> types;
		for (Value *a : args)
			types.push_back(a->getType());
		CallInst *ci = b.CreateCall(spirBuiltin(name, ret, types, convergent), args);
		ci->setCallingConv(CallingConv::SPIR_FUNC);
		return ci;
	}

	// Work-item id within its group, linearised, and the group's size.
	void spirLocal(IRBuilder<> &b, Value *&lid, Value *&lsz)
	{
		Value *id[3], *sz[3];
		for (unsigned d = 0; d < 3; d++) {
			id[d] = spirCall(b, "_Z12get_local_idj", sizeT, {ConstantInt::get(i32, d)});
			sz[d] =
			    spirCall(b, "_Z14get_local_sizej", sizeT, {ConstantInt::get(i32, d)});
		}
		lid = b.CreateAdd(
		    id[0], b.CreateMul(sz[0], b.CreateAdd(id[1], b.CreateMul(sz[1], id[2]))));
		lsz = b.CreateMul(sz[0], b.CreateMul(sz[1], sz[2]));
		if (sizeT != i64) {
			lid = b.CreateZExt(lid, i64);
			lsz = b.CreateZExt(lsz, i64);
		}
	}

	// noduplicate as well as convergent: jump threading would otherwise
	// copy the barrier into the two paths of the `if` before it (both test
	// the group size), and a work-group compiler such as PoCL's needs one
	// barrier that every work-item reaches.
	void spirBarrier(IRBuilder<> &b)
	{
		// CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE
		auto *ci = cast<CallInst>(spirCall(b, "_Z7barrierj", Type::getVoidTy(ctx),
		                                   {ConstantInt::get(i32, 3)}, true));
		ci->addFnAttr(Attribute::NoDuplicate);
		ci->addFnAttr(Attribute::Convergent);
	}

	void extendKernelArgMetadata(Function &twin, bool blocks)
	{
		struct Extra {
			const char *kind;
			std::vector<Metadata *> values;
		};
		auto s = [&](const char *v) -> Metadata * { return MDString::get(ctx, v); };
		auto n = [&](unsigned v) -> Metadata * {
			return ConstantAsMetadata::get(ConstantInt::get(i32, v));
		};
		std::vector<Extra> extras = {
		    {"kernel_arg_addr_space", {n(kGlobalAS), n(kLocalAS), n(0)}},
		    {"kernel_arg_access_qual", {s("none"), s("none"), s("none")}},
		    {"kernel_arg_type", {s("ulong*"), s("uint*"), s("uint")}},
		    {"kernel_arg_base_type", {s("ulong*"), s("uint*"), s("uint")}},
		    {"kernel_arg_type_qual", {s(""), s(""), s("")}},
		    {"kernel_arg_name",
		     {s("__paratrace_prof"), s("__paratrace_scratch"), s("__paratrace_items")}},
		};
		for (Extra &e : extras) {
			MDNode *old = twin.getMetadata(e.kind);
			if (!old)
				continue;
			std::vector<Metadata *> ops(old->op_begin(), old->op_end());
			ops.insert(ops.end(), e.values.begin(),
			           e.values.begin() + (blocks ? 3 : 1));
			twin.setMetadata(e.kind, MDNode::get(ctx, ops));
		}
	}

	void openclBody(Function &f, BasicBlock *pre, const std::vector<BasicBlock *> &blocks,
	                BasicBlock *exit, bool countBlocks)
	{
		auto arg = f.arg_end();
		Value *items = countBlocks ? &*--arg : nullptr;
		Value *scratch = countBlocks ? &*--arg : nullptr;
		Value *prof = &*--arg;
		DebugLoc dl = exit->getTerminator()->getDebugLoc();

		// Private counters: plain loads and stores, promoted to registers
		// by the optimiser.
		std::vector<AllocaInst *> counters;
		if (countBlocks) {
			IRBuilder<> b(pre->getTerminator());
			for (size_t i = 0; i < blocks.size(); i++) {
				AllocaInst *a = b.CreateAlloca(i32, nullptr, "pt.count");
				counters.push_back(a);
			}
			for (AllocaInst *a : counters)
				b.CreateStore(ConstantInt::get(i32, 0), a);
			for (size_t i = 0; i < blocks.size(); i++) {
				IRBuilder<> c(&*blocks[i]->getFirstInsertionPt());
				c.CreateStore(c.CreateAdd(c.CreateLoad(i32, counters[i]),
				                          ConstantInt::get(i32, 1)),
				              counters[i]);
			}
		}

		IRBuilder<> b(exit->getTerminator());
		b.SetCurrentDebugLocation(dl);
		Value *ok = nullptr;
		if (countBlocks) {
			Value *lid, *lsz;
			spirLocal(b, lid, lsz);
			ok = b.CreateICmpULE(lsz, b.CreateZExt(items, i64));
			Instruction *then = ifThen(b, ok);
			IRBuilder<> t(then);
			t.SetCurrentDebugLocation(dl);
			for (size_t i = 0; i < blocks.size(); i++) {
				Value *slot =
				    t.CreateAdd(t.CreateMul(ConstantInt::get(i64, i), lsz), lid);
				t.CreateStore(t.CreateLoad(i32, counters[i]),
				              t.CreateGEP(i32, scratch, slot));
			}
		}
		spirBarrier(b);
		// The builtins again rather than values kept across the barrier:
		// PoCL would have to save those per work-item. After the barrier,
		// only the group's first work-item works, in one structured
		// region (a work-group compiler wants single-entry regions): it
		// sums the scratch columns, one atomic per block, and counts the
		// group.
		Value *lid, *lsz;
		spirLocal(b, lid, lsz);
		Instruction *first = ifThen(b, b.CreateICmpEQ(lid, ConstantInt::get(i64, 0)));
		IRBuilder<> t(first);
		t.SetCurrentDebugLocation(dl);
		Value *one = ConstantInt::get(i64, 1);
		if (countBlocks) {
			Value *ok = t.CreateICmpULE(lsz, t.CreateZExt(items, i64));
			Instruction *then = ifThen(t, ok);
			IRBuilder<> r(then);
			r.SetCurrentDebugLocation(dl);
			loop(r, ConstantInt::get(i64, 0), ConstantInt::get(i64, blocks.size()), one,
			     [&](IRBuilder<> &lb, Value *blk) {
				     sumColumn(f, lb, scratch, prof, blk, lsz, dl);
			     });
			atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_WG_UNCOUNTED,
			         t.CreateSelect(ok, ConstantInt::get(i64, 0), one));
		}
		atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_WG_ENTRIES, one);
		atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_WG_EXITS, one);
		atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_WORK_ITEMS, lsz);
	}

	// prof[header + blk] += sum of scratch[blk * lsz + j], j < lsz (lsz >= 1).
	void sumColumn(Function &f, IRBuilder<> &lb, Value *scratch, Value *prof, Value *blk,
	               Value *lsz, DebugLoc dl)
	{
		Value *base = lb.CreateMul(blk, lsz);
		BasicBlock *cur = lb.GetInsertBlock();
		BasicBlock *rest = SplitBlock(cur, &*lb.GetInsertPoint());
		BasicBlock *inner = BasicBlock::Create(ctx, "pt.sum", &f, rest);
		cur->getTerminator()->setSuccessor(0, inner);
		IRBuilder<> in(inner);
		in.SetCurrentDebugLocation(dl);
		PHINode *j = in.CreatePHI(i64, 2), *s = in.CreatePHI(i64, 2);
		j->addIncoming(ConstantInt::get(i64, 0), cur);
		s->addIncoming(ConstantInt::get(i64, 0), cur);
		Value *v = in.CreateLoad(i32, in.CreateGEP(i32, scratch, in.CreateAdd(base, j)));
		Value *s1 = in.CreateAdd(s, in.CreateZExt(v, i64));
		Value *j1 = in.CreateAdd(j, ConstantInt::get(i64, 1));
		j->addIncoming(j1, inner);
		s->addIncoming(s1, inner);
		in.CreateCondBr(in.CreateICmpULT(j1, lsz), inner, rest);
		lb.SetInsertPoint(&*rest->getFirstInsertionPt());
		Instruction *add = ifThen(lb, lb.CreateICmpNE(s1, ConstantInt::get(i64, 0)));
		IRBuilder<> a(add);
		a.SetCurrentDebugLocation(dl);
		a.CreateAtomicRMW(
		    AtomicRMWInst::Add,
		    word(a, prof,
		         a.CreateAdd(blk, ConstantInt::get(i64, PT_GPU_PROF_HEADER_WORDS))),
		    s1, MaybeAlign(8), AtomicOrdering::Monotonic);
	}

	// The module's table, for the runtime to read by running this kernel.
	void emitInfoKernel()
	{
		std::string text = tableText(tables);
		Constant *init = ConstantDataArray::getString(ctx, text, false);
		auto *table = new GlobalVariable(
		    m, init->getType(), true, GlobalValue::InternalLinkage, init,
		    "__paratrace_gpu_table", nullptr, GlobalValue::NotThreadLocal, kSpirConstantAS);
		table->setAlignment(Align(1));
		Type *outTy = ptrTo(i8, kGlobalAS), *lenTy = ptrTo(i64, kGlobalAS);
		FunctionType *ft =
		    FunctionType::get(Type::getVoidTy(ctx), {outTy, lenTy, i64}, false);
		Function *f =
		    Function::Create(ft, GlobalValue::ExternalLinkage, PT_GPU_INFO_KERNEL, &m);
		f->setCallingConv(CallingConv::SPIR_KERNEL);
		f->addFnAttr(Attribute::NoUnwind);
		f->addFnAttr(kDoneAttr);
		auto s = [&](const char *v) -> Metadata * { return MDString::get(ctx, v); };
		auto n = [&](unsigned v) -> Metadata * {
			return ConstantAsMetadata::get(ConstantInt::get(i32, v));
		};
		f->setMetadata("kernel_arg_addr_space",
		               MDNode::get(ctx, {n(kGlobalAS), n(kGlobalAS), n(0)}));
		f->setMetadata("kernel_arg_access_qual",
		               MDNode::get(ctx, {s("none"), s("none"), s("none")}));
		f->setMetadata("kernel_arg_type",
		               MDNode::get(ctx, {s("uchar*"), s("ulong*"), s("ulong")}));
		f->setMetadata("kernel_arg_base_type",
		               MDNode::get(ctx, {s("uchar*"), s("ulong*"), s("ulong")}));
		f->setMetadata("kernel_arg_type_qual", MDNode::get(ctx, {s(""), s(""), s("")}));
		auto a = f->arg_begin();
		Value *out = &*a++, *len = &*a++, *cap = &*a;
		BasicBlock *entry = BasicBlock::Create(ctx, "", f);
		BasicBlock *setLen = BasicBlock::Create(ctx, "len", f);
		BasicBlock *check = BasicBlock::Create(ctx, "check", f);
		BasicBlock *copy = BasicBlock::Create(ctx, "copy", f);
		BasicBlock *done = BasicBlock::Create(ctx, "done", f);
		IRBuilder<> b(entry);
		Value *gid = spirCall(b, "_Z13get_global_idj", sizeT, {ConstantInt::get(i32, 0)});
		if (sizeT != i64)
			gid = b.CreateZExt(gid, i64);
		b.CreateCondBr(b.CreateICmpEQ(gid, ConstantInt::get(i64, 0)), setLen, check);
		b.SetInsertPoint(setLen);
		b.CreateStore(ConstantInt::get(i64, text.size()), len);
		b.CreateBr(check);
		b.SetInsertPoint(check);
		Value *size = ConstantInt::get(i64, text.size());
		Value *lim = b.CreateSelect(b.CreateICmpULT(cap, size), cap, size);
		b.CreateCondBr(b.CreateICmpULT(gid, lim), copy, done);
		b.SetInsertPoint(copy);
		Value *src = b.CreateGEP(init->getType(), table, {ConstantInt::get(i64, 0), gid});
		b.CreateStore(b.CreateLoad(i8, src), b.CreateGEP(i8, out, gid));
		b.CreateBr(done);
		b.SetInsertPoint(done);
		b.CreateRetVoid();
		giveArtificialDebugInfo(*f);
	}

	// A function without debug info in a module with debug info makes
	// the inliner (PoCL inlines its builtins, which have some) produce
	// calls without locations, which its verifier rejects.
	void giveArtificialDebugInfo(Function &f)
	{
		NamedMDNode *cus = m.getNamedMetadata("llvm.dbg.cu");
		if (!cus || !cus->getNumOperands())
			return;
		auto *cu = cast<DICompileUnit>(cus->getOperand(0));
		DIBuilder dib(m, false, cu);
		DISubroutineType *ty = dib.createSubroutineType(dib.getOrCreateTypeArray({}));
		DISubprogram *sp = dib.createFunction(
		    cu->getFile(), f.getName(), StringRef(), cu->getFile(), 0, ty, 0,
		    DINode::FlagArtificial, DISubprogram::SPFlagDefinition);
		f.setSubprogram(sp);
		DILocation *loc = DILocation::get(ctx, 0, 0, sp);
		for (BasicBlock &bb : f)
			for (Instruction &i : bb)
				i.setDebugLoc(loc);
		dib.finalizeSubprogram(sp);
	}

	IntegerType *sizeT;
};

} // namespace

std::unique_ptr<DeviceInstrumenter> openclInstrumenter(Module &m, const Options &opts)
{
	return std::make_unique<OpenCLInstrumenter>(m, opts);
}

// ---- CUDA (nvptx, nvptx64) ------------------------------------------------------

namespace
{

// CUDA kernels as clang 14-16 mark them: !nvvm.annotations {fn, "kernel", 1}.
std::set<const Function *> nvvmKernels(const Module &m)
{
	std::set<const Function *> out;
	if (const NamedMDNode *ann = m.getNamedMetadata("nvvm.annotations"))
		for (const MDNode *n : ann->operands()) {
			if (n->getNumOperands() < 3)
				continue;
			auto *fn = dyn_cast_or_null<ValueAsMetadata>(n->getOperand(0).get());
			auto *key = dyn_cast_or_null<MDString>(n->getOperand(1).get());
			if (fn && key && key->getString() == "kernel")
				if (auto *f = dyn_cast<Function>(fn->getValue()))
					out.insert(f);
		}
	return out;
}

class CudaInstrumenter : public DeviceInstrumenter
{
      public:
	CudaInstrumenter(Module &m, const Options &opts) : DeviceInstrumenter(m, opts)
	{
	}

      private:
	std::set<const Function *> annotatedKernels() override
	{
		return nvvmKernels(m);
	}
	// K keeps its signature (the host stub launches it) and calls the
	// clone of the mode its slot asks for, inlined.
	std::string cloneName(const std::string &kernel, bool countBlocks) override
	{
		return kernel + (countBlocks ? ".paratrace_b" : ".paratrace_e");
	}
	bool clonesAreKernels() const override
	{
		return false;
	}
	void instrumentClone(Function &f, BasicBlock *pre, const std::vector<BasicBlock *> &blocks,
	                     BasicBlock *exit, bool countBlocks) override
	{
		cudaBody(f, pre, blocks, exit, countBlocks);
	}
	void kernelDone(Function &k, Function *entries, Function *blocks) override
	{
		cudaDispatch(k, entries, blocks);
		std::string text = tableText(kernelRows);
		cudaGlobal(PT_GPU_TABLE_PREFIX + k.getName().str(),
		           ConstantDataArray::getString(ctx, text, false), true);
	}

	Value *nvvmSreg(IRBuilder<> &b, Intrinsic::ID id)
	{
		return b.CreateCall(Intrinsic::getDeclaration(&m, id));
	}

	// Inline PTX. activemask is convergent and must not be merged: hoisted
	// out of the two arms of a branch it would give both arms the mask of
	// the threads that reached the branch, not of those in each arm.
	Value *ptxAsm(IRBuilder<> &b, Type *ty, const char *text, const char *constraints,
	              bool convergent = false, ArrayRef<Value *> args = {})
	{
		SmallVector<Type *, 2> params;
		for (Value *a : args)
			params.push_back(a->getType());
		FunctionType *ft = FunctionType::get(ty, params, false);
		CallInst *ci = b.CreateCall(ft, InlineAsm::get(ft, text, constraints, true), args);
		if (convergent) {
			ci->addFnAttr(Attribute::Convergent);
			ci->addFnAttr(Attribute::NoMerge);
		}
		return ci;
	}

	// The compute capability the module is compiled for ("sm_80": 80), 0
	// when unknown.
	unsigned smVersion(Function &f)
	{
		StringRef cpu = f.getFnAttribute("target-cpu").getValueAsString();
		unsigned v = 0;
		if (cpu.consume_front("sm_"))
			cpu.consumeInteger(10, v);
		return v;
	}

	// The warp's sum of v over the lanes in mask, in every one of them
	// (redux.sync, sm_80 and later).
	Value *warpSum(IRBuilder<> &b, Value *v, Value *mask)
	{
		return ptxAsm(b, i32, "redux.sync.add.u32 $0, $1, $2;", "=r,r,r", true, {v, mask});
	}

	void cudaBody(Function &f, BasicBlock *pre, const std::vector<BasicBlock *> &blocks,
	              BasicBlock *exit, bool countBlocks)
	{
		Value *prof = &*(f.arg_end() - 1);
		IRBuilder<> b(pre->getTerminator());
		DebugLoc dl = exit->getTerminator()->getDebugLoc();
		// The group's copy of the buffer: groups running at the same time
		// on different multiprocessors add to different words (one copy
		// for all made the atomics of short kernels queue at one address).
		uint64_t stride = PT_GPU_PROF_HEADER_WORDS + (countBlocks ? blocks.size() : 0);
		Value *smid = ptxAsm(b, i32, "mov.u32 $0, %smid;", "=r");
		Value *copy = b.CreateURem(smid, ConstantInt::get(i32, PT_GPU_CUDA_COPIES));
		prof = word(b, prof,
		            b.CreateMul(b.CreateZExt(copy, i64), ConstantInt::get(i64, stride)));
		Value *t0 = ptxAsm(b, i64, "mov.u64 $0, %globaltimer;", "=l");
		auto tid = [&](IRBuilder<> &x, Intrinsic::ID a, Intrinsic::ID n2) {
			return std::make_pair(nvvmSreg(x, a), nvvmSreg(x, n2));
		};
		auto [tx, nx] = tid(b, Intrinsic::nvvm_read_ptx_sreg_tid_x,
		                    Intrinsic::nvvm_read_ptx_sreg_ntid_x);
		auto [ty, ny] = tid(b, Intrinsic::nvvm_read_ptx_sreg_tid_y,
		                    Intrinsic::nvvm_read_ptx_sreg_ntid_y);
		auto [tz, nz] = tid(b, Intrinsic::nvvm_read_ptx_sreg_tid_z,
		                    Intrinsic::nvvm_read_ptx_sreg_ntid_z);
		Value *lid = b.CreateAdd(tx, b.CreateMul(nx, b.CreateAdd(ty, b.CreateMul(ny, tz))));
		Value *nthreads = b.CreateMul(nx, b.CreateMul(ny, nz));
		Value *isFirst = b.CreateICmpEQ(lid, ConstantInt::get(i32, 0));
		{
			Instruction *then = ifThen(b, isFirst);
			IRBuilder<> t(then);
			atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_WG_ENTRIES,
			         ConstantInt::get(i64, 1));
		}
		GlobalVariable *shared = nullptr;
		ArrayType *sharedTy = ArrayType::get(i32, blocks.size());
		std::vector<AllocaInst *> counts;
		if (countBlocks) {
			shared =
			    new GlobalVariable(m, sharedTy, false, GlobalValue::InternalLinkage,
			                       UndefValue::get(sharedTy), "__paratrace_cnt",
			                       nullptr, GlobalValue::NotThreadLocal, kLocalAS);
			shared->setAlignment(Align(4));
			Value *n = ConstantInt::get(i32, blocks.size());
			loop(b, lid, n, nthreads, [&](IRBuilder<> &lb, Value *i) {
				lb.CreateStore(
				    ConstantInt::get(i32, 0),
				    lb.CreateGEP(sharedTy, shared, {ConstantInt::get(i32, 0), i}));
			});
			b.CreateCall(Intrinsic::getDeclaration(&m, Intrinsic::nvvm_barrier0));
			// Each thread counts its blocks in private counters, which the
			// optimiser keeps in registers (in a loop, an induction
			// variable): nothing but an add where the work is. They are
			// summed at the exit.
			IRBuilder<> a(&*f.getEntryBlock().getFirstInsertionPt());
			for (size_t i = 0; i < blocks.size(); i++) {
				counts.push_back(a.CreateAlloca(i32, nullptr, "__paratrace_n"));
				b.CreateStore(ConstantInt::get(i32, 0), counts.back());
				IRBuilder<> c(&*blocks[i]->getFirstInsertionPt());
				c.CreateStore(c.CreateAdd(c.CreateLoad(i32, counts[i]),
				                          ConstantInt::get(i32, 1)),
				              counts[i]);
			}
		}

		IRBuilder<> e(exit->getTerminator());
		e.SetCurrentDebugLocation(dl);
		e.CreateCall(Intrinsic::getDeclaration(&m, Intrinsic::nvvm_barrier0));
		if (countBlocks) {
			// Every thread of the group is here: the threads' counts go to
			// the group's shared counters, one atomic per warp and block
			// where the warp can sum them (sm_80: redux.sync), else one per
			// thread and block that ran.
			bool redux = smVersion(f) >= 80;
			Value *mask =
			    redux ? ptxAsm(e, i32, "activemask.b32 $0;", "=r", true) : nullptr;
			Value *lane =
			    redux ? nvvmSreg(e, Intrinsic::nvvm_read_ptx_sreg_laneid) : nullptr;
			Value *leader = nullptr;
			if (redux) {
				Function *cttz =
				    Intrinsic::getDeclaration(&m, Intrinsic::cttz, {i32});
				leader = e.CreateICmpEQ(
				    lane, e.CreateCall(cttz, {mask, ConstantInt::getTrue(ctx)}));
			}
			for (size_t i = 0; i < blocks.size(); i++) {
				Value *v = e.CreateLoad(i32, counts[i]);
				if (redux)
					v = warpSum(e, v, mask);
				Value *add = e.CreateICmpNE(v, ConstantInt::get(i32, 0));
				if (redux)
					add = e.CreateAnd(add, leader);
				Instruction *then = ifThen(e, add);
				IRBuilder<> t(then);
				t.CreateAtomicRMW(AtomicRMWInst::Add,
				                  t.CreateGEP(sharedTy, shared,
				                              {ConstantInt::get(i32, 0),
				                               ConstantInt::get(i32, i)}),
				                  v, MaybeAlign(4), AtomicOrdering::Monotonic);
			}
			e.CreateCall(Intrinsic::getDeclaration(&m, Intrinsic::nvvm_barrier0));
			Value *n = ConstantInt::get(i32, blocks.size());
			loop(e, lid, n, nthreads, [&](IRBuilder<> &lb, Value *i) {
				Value *v =
				    lb.CreateLoad(i32, lb.CreateGEP(sharedTy, shared,
				                                    {ConstantInt::get(i32, 0), i}));
				Instruction *then =
				    ifThen(lb, lb.CreateICmpNE(v, ConstantInt::get(i32, 0)));
				IRBuilder<> t(then);
				Value *w =
				    t.CreateAdd(t.CreateZExt(i, i64),
				                ConstantInt::get(i64, PT_GPU_PROF_HEADER_WORDS));
				t.CreateAtomicRMW(AtomicRMWInst::Add, word(t, prof, w),
				                  t.CreateZExt(v, i64), MaybeAlign(8),
				                  AtomicOrdering::Monotonic);
			});
		}
		Instruction *then = ifThen(e, isFirst);
		IRBuilder<> t(then);
		t.SetCurrentDebugLocation(dl);
		Value *t1 = ptxAsm(t, i64, "mov.u64 $0, %globaltimer;", "=l");
		Value *dur = t.CreateSub(t1, t0);
		atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_WG_EXITS,
		         ConstantInt::get(i64, 1));
		atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_WORK_ITEMS,
		         t.CreateZExt(nthreads, i64));
		atomicAt(t, AtomicRMWInst::UMax, prof, PT_GPU_PROF_START_MIN_INV, t.CreateNot(t0));
		atomicAt(t, AtomicRMWInst::UMax, prof, PT_GPU_PROF_END_MAX, t1);
		atomicAt(t, AtomicRMWInst::Add, prof, PT_GPU_PROF_DUR_SUM, dur);
		atomicAt(t, AtomicRMWInst::UMax, prof, PT_GPU_PROF_DUR_MAX, dur);
		atomicAt(t, AtomicRMWInst::UMax, prof, PT_GPU_PROF_DUR_MIN_INV, t.CreateNot(dur));
	}

	GlobalVariable *cudaGlobal(const std::string &name, Constant *init, bool constant)
	{
		auto *gv =
		    new GlobalVariable(m, init->getType(), constant, GlobalValue::ExternalLinkage,
		                       init, name, nullptr, GlobalValue::NotThreadLocal, kGlobalAS);
		gv->setExternallyInitialized(!constant);
		gv->setAlignment(Align(8));
		appendToUsed(m, {gv});
		return gv;
	}

	// K's new entry: slot 0 -> original code; else the clone of the mode
	// the slot asks for (inlined).
	void cudaDispatch(Function &k, Function *entries, Function *blocksClone)
	{
		GlobalVariable *slot = cudaGlobal(PT_GPU_SLOT_PREFIX + k.getName().str(),
		                                  ConstantInt::get(i64, 0), false);
		BasicBlock *pre = splitEntry(k);
		BasicBlock *orig = pre->getSingleSuccessor();
		DebugLoc dl;
		if (DISubprogram *sp = k.getSubprogram())
			dl = DILocation::get(ctx, sp->getScopeLine(), 0, sp);
		IRBuilder<> b(pre->getTerminator());
		b.SetCurrentDebugLocation(dl);
		Value *v = b.CreateLoad(i64, slot, "pt.slot");
		Value *on = b.CreateICmpNE(v, ConstantInt::get(i64, 0));
		MDNode *weights = MDBuilder(ctx).createBranchWeights(1, 1 << 20);
		BasicBlock *instr = BasicBlock::Create(ctx, "pt.instrumented", &k, orig);
		pre->getTerminator()->eraseFromParent();
		b.SetInsertPoint(pre);
		b.CreateCondBr(on, instr, orig, weights);
		b.SetInsertPoint(instr);
		Value *addr = b.CreateAnd(v, ConstantInt::get(i64, PT_GPU_SLOT_ADDR_MASK));
		Value *prof = b.CreateAddrSpaceCast(b.CreateIntToPtr(addr, ptrTo(i64, 0)),
		                                    ptrTo(i64, kGlobalAS));
		std::vector<Value *> args;
		for (Argument &a : k.args())
			args.push_back(&a);
		args.push_back(prof);
		std::vector<CallInst *> calls;
		auto call = [&](IRBuilder<> &x, Function *clone) {
			CallInst *ci = x.CreateCall(clone, args);
			ci->setDebugLoc(dl);
			calls.push_back(ci);
			x.CreateRetVoid();
		};
		if (entries && blocksClone) {
			BasicBlock *be = BasicBlock::Create(ctx, "pt.entries", &k, orig);
			BasicBlock *bb = BasicBlock::Create(ctx, "pt.blocks", &k, orig);
			b.CreateCondBr(b.CreateICmpNE(b.CreateAnd(v, ConstantInt::get(
			                                                 i64, PT_GPU_SLOT_BLOCKS)),
			                              ConstantInt::get(i64, 0)),
			               bb, be);
			IRBuilder<> xe(be), xb(bb);
			call(xe, entries);
			call(xb, blocksClone);
		} else {
			call(b, entries ? entries : blocksClone);
		}
		for (CallInst *ci : calls) {
			Function *callee = ci->getCalledFunction();
			InlineFunctionInfo ifi;
			InlineFunction(*ci, ifi);
			if (callee->use_empty())
				callee->eraseFromParent();
		}
	}
};

} // namespace

std::unique_ptr<DeviceInstrumenter> cudaInstrumenter(Module &m, const Options &opts)
{
	return std::make_unique<CudaInstrumenter>(m, opts);
}

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
