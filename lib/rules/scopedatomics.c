/* Scoped float atomic adds as atomicrmw.
 *
 * atomicAdd_block and atomicAdd_system (on float or double) are NVVM
 * intrinsics, llvm.nvvm.atomic.add.gen.f.{cta,sys}.*, where atomicAdd is an
 * `atomicrmw fadd`, which the generators differentiate. In the copies that
 * are differentiated (and analysed), each call becomes the atomicrmw at its
 * scope: syncscope("block") for cta, the system's (the default) for sys.
 *
 * require: a device function's copy, before it is simplified */
#include "kinase.h"

#include <string.h>

/* The scope an intrinsic's name says, or NULL where it is not one of these. */
static const char *scope_of(LLVMValueRef callee) {
  static const struct {
    const char *prefix, *scope;
  } rows[] = {
      {"llvm.nvvm.atomic.add.gen.f.cta.", "block"},
      {"llvm.nvvm.atomic.add.gen.f.sys.", ""},
  };
  const char *name = callee ? kn_function_name(callee) : "";
  for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
    if (!strncmp(name, rows[k].prefix, strlen(rows[k].prefix)))
      return rows[k].scope;
  return NULL;
}

void nvvm_scoped_atomics_as_rmw(LLVMValueRef fn) {
  if (!kn_module.gpu)
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef inst = LLVMGetFirstInstruction(bb);
    while (inst) {
      LLVMValueRef next = LLVMGetNextInstruction(inst);
      const char *scope = LLVMIsACallInst(inst) ? scope_of(kn_called_function(inst)) : NULL;
      if (scope && LLVMGetNumArgOperands(inst) == 2 && kn_is_float_type(LLVMTypeOf(inst))) {
        LLVMPositionBuilderBefore(b, inst);
        LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(inst));
        unsigned id = LLVMGetSyncScopeID(kn_module.ctx, scope, strlen(scope));
        LLVMValueRef rmw = LLVMBuildAtomicRMWSyncScope(b, LLVMAtomicRMWBinOpFAdd, LLVMGetOperand(inst, 0),
                                                       LLVMGetOperand(inst, 1),
                                                       LLVMAtomicOrderingMonotonic, id);
        LLVMReplaceAllUsesWith(inst, rmw);
        LLVMInstructionEraseFromParent(inst);
      }
      inst = next;
    }
  }
  LLVMDisposeBuilder(b);
}
