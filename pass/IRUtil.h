/* SPDX-License-Identifier: MIT */
// Small IR helpers both halves of the pass (host hooks, device counters) use.
#ifndef PT_PASS_IRUTIL_H
#define PT_PASS_IRUTIL_H

#include <llvm/IR/BasicBlock.h>

namespace paratrace {

// The first instruction of a function's entry block after its static
// allocas (and debug intrinsics among them), where code inserted at entry
// goes. Static allocas found after that point are moved before it first:
// an alloca left behind a split would become a dynamic stack allocation.
llvm::Instruction *afterStaticAllocas(llvm::BasicBlock &entry);

} // namespace paratrace

#endif
