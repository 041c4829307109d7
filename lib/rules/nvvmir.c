/* NVVM intrinsics that are plain IR, made that IR in the copies that are
 * differentiated (and analysed), where the generators have rules for it.
 *
 * atomicAdd_block and atomicAdd_system (on float or double) are
 * llvm.nvvm.atomic.add.gen.f.{cta,sys}.*, where atomicAdd is an `atomicrmw
 * fadd`: each becomes the atomicrmw at its scope, syncscope("block") for
 * cta, the system's (the default) for sys.
 *
 * __double2loint, __double2hiint and __hiloint2double are llvm.nvvm.d2i.lo,
 * d2i.hi and lohi.i2d. CUDA code shuffles a double by hand with them: each
 * half shuffled, the halves put back together. Through the intrinsics the
 * value was integers the generators keep no derivative in, a silently zero
 * gradient, even where the halves come back unchanged. As the bit
 * operations they are (a truncation, a shift, an or), instcombine folds a
 * double taken apart and put back into the double itself, and
 * cuda/warpbits.c makes the two halves' shuffles the double's.
 *
 * require: a device function's copy, before it is simplified */
#include "kinase.h"

#include <string.h>

static LLVMTypeRef i32(void) { return LLVMInt32TypeInContext(kn_module.ctx); }
static LLVMTypeRef i64(void) { return LLVMInt64TypeInContext(kn_module.ctx); }
static LLVMValueRef const64(unsigned v) { return LLVMConstInt(i64(), v, 0); }

static LLVMValueRef atomic_add_at(LLVMBuilderRef b, LLVMValueRef call, const char *scope) {
  if (LLVMGetNumArgOperands(call) != 2 || !kn_is_float_type(LLVMTypeOf(call)))
    return NULL;
  unsigned id = LLVMGetSyncScopeID(kn_module.ctx, scope, strlen(scope));
  return LLVMBuildAtomicRMWSyncScope(b, LLVMAtomicRMWBinOpFAdd, LLVMGetOperand(call, 0), LLVMGetOperand(call, 1),
                                     LLVMAtomicOrderingMonotonic, id);
}

static LLVMValueRef atomic_add_block(LLVMBuilderRef b, LLVMValueRef call) { return atomic_add_at(b, call, "block"); }
static LLVMValueRef atomic_add_system(LLVMBuilderRef b, LLVMValueRef call) { return atomic_add_at(b, call, ""); }

static LLVMValueRef low_half(LLVMBuilderRef b, LLVMValueRef call) {
  return LLVMBuildTrunc(b, LLVMBuildBitCast(b, LLVMGetOperand(call, 0), i64(), ""), i32(), "");
}

static LLVMValueRef high_half(LLVMBuilderRef b, LLVMValueRef call) {
  LLVMValueRef bits = LLVMBuildBitCast(b, LLVMGetOperand(call, 0), i64(), "");
  return LLVMBuildTrunc(b, LLVMBuildLShr(b, bits, const64(32), ""), i32(), "");
}

/* lohi.i2d(lo, hi) */
static LLVMValueRef from_halves(LLVMBuilderRef b, LLVMValueRef call) {
  LLVMValueRef high = LLVMBuildShl(b, LLVMBuildZExt(b, LLVMGetOperand(call, 1), i64(), ""), const64(32), "");
  LLVMValueRef bits = LLVMBuildOr(b, high, LLVMBuildZExt(b, LLVMGetOperand(call, 0), i64(), ""), "");
  return LLVMBuildBitCast(b, bits, LLVMDoubleTypeInContext(kn_module.ctx), "");
}

/* By the start of the intrinsic's name; NULL from `build` leaves the call. */
static const struct {
  const char *prefix;
  LLVMValueRef (*build)(LLVMBuilderRef b, LLVMValueRef call);
} rows[] = {
    {"llvm.nvvm.atomic.add.gen.f.cta.", atomic_add_block},
    {"llvm.nvvm.atomic.add.gen.f.sys.", atomic_add_system},
    {"llvm.nvvm.d2i.lo", low_half},
    {"llvm.nvvm.d2i.hi", high_half},
    {"llvm.nvvm.lohi.i2d", from_halves},
};

void nvvm_intrinsics_as_ir(LLVMValueRef fn) {
  if (!kn_module.gpu)
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef inst = LLVMGetFirstInstruction(bb);
    while (inst) {
      LLVMValueRef next = LLVMGetNextInstruction(inst);
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      const char *name = callee ? kn_function_name(callee) : "";
      for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        if (strncmp(name, rows[k].prefix, strlen(rows[k].prefix)))
          continue;
        LLVMPositionBuilderBefore(b, inst);
        LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(inst));
        LLVMValueRef value = rows[k].build(b, inst);
        if (value) {
          LLVMReplaceAllUsesWith(inst, value);
          LLVMInstructionEraseFromParent(inst);
        }
        break;
      }
      inst = next;
    }
  }
  LLVMDisposeBuilder(b);
}
