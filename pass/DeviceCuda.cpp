// SPDX-License-Identifier: MIT
// The device pass's CUDA part (Device.cpp has the rest):
// CUDA (nvptx, nvptx64): K keeps its signature (the host stub launches
// it); its entry reads a device global slot that the runtime sets per
// launch and runs the original code when it is 0, else the inlined
// clone. Each thread counts its blocks in private counters; at the exit
// the group sums them in shared memory (per warp with redux.sync on
// sm_80 and later) and adds them to its copy of the buffer (one of
// PT_GPU_CUDA_COPIES, chosen by multiprocessor); the group's first
// thread records start and end %globaltimer.
#include "DeviceInstrumenter.h"

#include <paratrace/gpu_abi.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

using namespace llvm;

namespace paratrace
{

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

} // namespace paratrace
