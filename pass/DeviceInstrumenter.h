// SPDX-License-Identifier: MIT
// The device pass's instrumenter (Device.cpp) and what it shares with the
// device languages it instruments (DeviceOpenCL.cpp, DeviceCuda.cpp).
// Private to pass/.
#ifndef PT_PASS_DEVICE_INSTRUMENTER_H
#define PT_PASS_DEVICE_INSTRUMENTER_H

#include "Options.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

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

} // namespace paratrace

#endif
