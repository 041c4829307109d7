/* Whether the shadow of a __constant__ (or never device-written __device__)
 * variable takes adjoints, decided at run time.
 *
 * The derivative kernels of launches add adjoints into such a variable's
 * shadow where they read it, so that a host request that copied values
 * with derivatives into it (cudaMemcpyToSymbol from a dup source) gets
 * them back. Most requests copy none: the variable's coefficients are
 * Const, and every read would cost a warp sum and an atomic add for
 * nothing. So each such variable has a flag, __kinase_live_NAME, that the
 * runtime sets where it hands out or moves the variable's shadow
 * (runtime/cuda_symbol.c) and clears with the shadow at a request's start;
 * the adds are made only while it is set, behind a branch that is the same
 * for every thread. */
#include "kinase.h"

#include <stdlib.h>

static LLVMValueRef live_flag(LLVMValueRef variable) {
  char *name = kn_strdup_printf("__kinase_live_%s", kn_value_name(variable));
  LLVMValueRef flag = LLVMGetNamedGlobal(kn_module.mod, name);
  if (!flag) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
    flag = LLVMAddGlobalInAddressSpace(kn_module.mod, i32, name, KN_GLOBAL_ADDRESS_SPACE);
    LLVMSetInitializer(flag, LLVMConstNull(i32));
    LLVMSetAlignment(flag, 4);
    LLVMSetExternallyInitialized(flag, true); /* the runtime sets it (cuModuleGetGlobal) */
  }
  free(name);
  return flag;
}

LLVMValueRef cuda_live_flag_of(LLVMValueRef address) {
  LLVMValueRef variable = kn_underlying_object(address);
  return globals_only_host_writes(variable) ? live_flag(variable) : NULL;
}

LLVMBasicBlockRef cuda_branch_if_live(LLVMBuilderRef b, LLVMValueRef flag) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef live = LLVMAppendBasicBlockInContext(ctx, fn, "shadow.live");
  LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(ctx, fn, "shadow.after");
  LLVMValueRef set = LLVMBuildLoad2(b, i32, flag, "live");
  /* The same all through a launch: loads of it may be hoisted and merged. */
  LLVMSetMetadata(set, LLVMGetMDKindIDInContext(ctx, "invariant.load", 14),
                  LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, NULL, 0)));
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, set, LLVMConstNull(i32), ""), live, after);
  LLVMPositionBuilderAtEnd(b, live);
  return after;
}
