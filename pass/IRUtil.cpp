// SPDX-License-Identifier: MIT
#include "IRUtil.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <vector>

using namespace llvm;

namespace paratrace {

Instruction *afterStaticAllocas(BasicBlock &entry)
{
	BasicBlock::iterator ip = entry.begin();
	while (ip != entry.end() && (isa<AllocaInst>(*ip) || isa<DbgInfoIntrinsic>(*ip)))
		++ip;
	std::vector<AllocaInst *> late;
	for (auto it = ip; it != entry.end(); ++it)
		if (auto *a = dyn_cast<AllocaInst>(&*it); a && a->isStaticAlloca())
			late.push_back(a);
	for (AllocaInst *a : late)
		a->moveBefore(&*ip);
	return &*ip;
}

} // namespace paratrace
