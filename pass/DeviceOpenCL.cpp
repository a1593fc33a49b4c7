// SPDX-License-Identifier: MIT
// The device pass's OpenCL part (Device.cpp has the rest):
// OpenCL (spir, spir64): the clone is a kernel of its own (a twin), which
// the runtime substitutes for K. Each work-item counts its blocks in
// private counters (no atomics in the body: on a CPU device such as
// PoCL the work-item loop still vectorises), stores them at the exit to
// a __local scratch column, and after a barrier the group sums the
// columns and adds them to the buffer: one global atomic per block per
// work-group.
#include "DeviceInstrumenter.h"

#include <paratrace/gpu_abi.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#if LLVM_VERSION_MAJOR >= 17
#include <llvm/TargetParser/Triple.h>
#else
#include <llvm/ADT/Triple.h>
#endif

using namespace llvm;

namespace paratrace
{

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

} // namespace paratrace
