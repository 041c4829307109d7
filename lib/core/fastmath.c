/* The fast-math freedoms of derivatives. A function compiled with
 * -ffast-math (or -use_fast_math) has reassoc, arcp, contract, afn on
 * each float operation; the arithmetic Kinase builds has none, so its
 * derivative missed the rewrites the primal gets: a reverse loop's
 * `acc += (-1/s) * (c * ((x - mu) / s))` keeps its three products where
 * reassociation hoists the invariant one out. The derivative takes the
 * algebraic freedoms that every float operation of the primal has, and not
 * nnan or ninf, which a derivative may rightly break where the primal does
 * not (the slope of sqrt at 0 is infinite). */
#include "kinase.h"

enum {
  ALGEBRAIC = LLVMFastMathAllowReassoc | LLVMFastMathNoSignedZeros | LLVMFastMathAllowReciprocal |
              LLVMFastMathAllowContract | LLVMFastMathApproxFunc,
};

static bool is_float_operation(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMFAdd: case LLVMFSub: case LLVMFMul: case LLVMFDiv: case LLVMFRem: case LLVMFNeg:
    return true;
  default:
    return false;
  }
}

LLVMFastMathFlags kn_common_fast_math(LLVMValueRef fn) {
  LLVMFastMathFlags common = ALGEBRAIC;
  bool any = false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (is_float_operation(inst)) {
        common &= LLVMGetFastMathFlags(inst);
        any = true;
      }
  return any ? common : LLVMFastMathNone;
}

void kn_grant_fast_math(LLVMValueRef fn, LLVMFastMathFlags flags) {
  if (flags == LLVMFastMathNone)
    return;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (LLVMCanValueUseFastMathFlags(inst))
        LLVMSetFastMathFlags(inst, LLVMGetFastMathFlags(inst) | flags);
}
