/* SPDX-License-Identifier: MIT */
// Device half of the IR pass: GPU kernels clang compiles (OpenCL C for
// spir/spir64, CUDA for nvptx/nvptx64) get work-group counts, per-block
// execution counters and (CUDA) work-group times, written to a profile
// buffer the runtime provides (include/paratrace/gpu_abi.h, docs/ABI.md
// "Device code"). Host hooks are never put into device code.
#ifndef PT_PASS_DEVICE_H
#define PT_PASS_DEVICE_H

#include "Options.h"

#include <llvm/IR/Module.h>

namespace paratrace
{

// Is m compiled for a GPU (spir, spir64, nvptx, nvptx64, amdgcn)? Such a
// module never gets the host entry/exit hooks.
bool isDeviceModule(const llvm::Module &m);

// Instruments the kernels of a device module (OpenCL and CUDA; other GPU
// targets are left alone). Returns whether the module changed.
bool instrumentDevice(llvm::Module &m, const Options &opts);

} // namespace paratrace

#endif
