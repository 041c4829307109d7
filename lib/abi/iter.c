/* __enzyme_iter(n, k): an iteration count that grows with the order of
 * differentiation. A truncated series written with n terms loses accuracy
 * with each derivative taken of it; code that asks for n = __enzyme_iter(12, 1)
 * gets 12 in the function itself, 13 in its derivative, 14 in a derivative
 * of that, and so on. Each copy made for differentiation bumps its calls to
 * __enzyme_iter(n + k, k); once every derivative is generated the calls left
 * become their first argument. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

static bool is_iter_call(LLVMValueRef inst) {
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  return callee && strstr(kn_function_name(callee), "__enzyme_iter") && LLVMGetNumArgOperands(inst) == 2 &&
         LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(inst, 0))) == LLVMIntegerTypeKind;
}

static LLVMValueRef *iter_calls(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (is_iter_call(inst))
        arrput(calls, inst);
  return calls;
}

void iter_bump(LLVMValueRef fn) {
  LLVMValueRef *calls = iter_calls(fn);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
    LLVMValueRef n = LLVMGetOperand(calls[i], 0), k = LLVMGetOperand(calls[i], 1);
    LLVMPositionBuilderBefore(b, calls[i]);
    LLVMSetOperand(calls[i], 0, LLVMBuildAdd(b, n, LLVMBuildIntCast2(b, k, LLVMTypeOf(n), 1, ""), ""));
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
}

void iter_lower(void) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn)) {
    LLVMValueRef *calls = iter_calls(fn);
    for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
      LLVMTypeRef type = LLVMTypeOf(calls[i]);
      LLVMPositionBuilderBefore(b, calls[i]);
      if (LLVMGetTypeKind(type) == LLVMIntegerTypeKind)
        LLVMReplaceAllUsesWith(calls[i], LLVMBuildIntCast2(b, LLVMGetOperand(calls[i], 0), type, 1, ""));
      LLVMInstructionEraseFromParent(calls[i]);
    }
    arrfree(calls);
  }
  LLVMDisposeBuilder(b);
}
