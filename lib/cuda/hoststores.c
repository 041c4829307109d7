/* Host stores into memory a pending launch may read.
 *
 * A reverse kernel re-runs its kernel's forward part from memory, and the
 * runtime copies what a pending launch read before the forward sweep
 * writes it (runtime/cuda_snapshot.c). Copies, sets and launches tell it;
 * the host code's own stores could not: managed memory that a time loop
 * updates on the host between launches (`for (i) x[i] += dt * f[i]` after
 * a kernel that read x) reached the earlier launches' reverse kernels with
 * its last values. In host code that may launch kernels, each store of the
 * forward sweep (and memcpy or memset) whose address is not the frame's
 * own memory or a global is announced first with __kinase_before_host_write,
 * which returns at once when no pending launch read that range.
 *
 * require: the augmented sweep of a reverse-mode derivative, host code */
#include "kinase.h"

#include <string.h>

/* Whether host code here can launch a kernel at all: through <<<>>>, the
 * runtime's launch calls or the driver's. Cached per module. */
static bool module_launches(void) {
  static LLVMModuleRef cached;
  static bool launches;
  static const char *const launchers[] = {
      "__cudaPushCallConfiguration", "cudaLaunchKernel", "cudaLaunchKernel_ptsz",
      "cudaLaunchKernelExC",         "cudaLaunchKernelExC_ptsz", "cudaLaunchCooperativeKernel",
      "cudaLaunchCooperativeKernel_ptsz", "cuLaunchKernel", "cuLaunchKernel_ptsz",
      "cuLaunchKernelEx",            "cuLaunchKernelEx_ptsz", "cuLaunchCooperativeKernel",
      "cuLaunchCooperativeKernel_ptsz"};
  if (cached == kn_module.mod)
    return launches;
  cached = kn_module.mod;
  launches = false;
  for (size_t k = 0; !launches && k < sizeof launchers / sizeof *launchers; k++)
    launches = LLVMGetNamedFunction(kn_module.mod, launchers[k]) != NULL;
  return launches;
}

/* The frame's own memory and globals are never a CUDA allocation. */
static bool may_be_cuda_memory(LLVMValueRef address) {
  LLVMValueRef object = kn_underlying_object(address);
  return !LLVMIsAAllocaInst(object) && !LLVMIsAGlobalValue(object);
}

void cuda_announce_host_store(LLVMValueRef inst, LLVMValueRef address, LLVMValueRef bytes,
                              LLVMValueRef subject) {
  if (kn_module.gpu || !module_launches() || !may_be_cuda_memory(address))
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef args[3] = {address, LLVMBuildZExtOrBitCast(b, bytes, LLVMInt64TypeInContext(kn_module.ctx), ""),
                          kn_constant_string(b, kn_function_name(subject))};
  kn_call_libc(b, "__kinase_before_host_write", LLVMVoidTypeInContext(kn_module.ctx), args, 3);
  LLVMDisposeBuilder(b);
}
