/* Floats passed as integers.
 *
 * C code moves a double through an integer (memcpy into an unsigned long
 * long, a union) and hands that integer to another function, which turns it
 * back into a double. Reverse mode keeps no derivatives in integers, so such
 * a call gets a copy of the callee that takes the float itself: the integer
 * parameter becomes a float parameter whose bits the copy's body starts by
 * taking. The copy is then differentiated like any function. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

/* The float whose bits `arg` is, or NULL. */
static LLVMValueRef float_behind(LLVMValueRef arg) {
  if (!LLVMIsABitCastInst(arg))
    return NULL;
  LLVMValueRef source = LLVMGetOperand(arg, 0);
  bool scalar_float = kn_is_float_type(LLVMTypeOf(source)) &&
                      LLVMGetTypeKind(LLVMTypeOf(source)) != LLVMVectorTypeKind;
  return scalar_float && LLVMGetTypeKind(LLVMTypeOf(arg)) == LLVMIntegerTypeKind ? source : NULL;
}

/* The copy of `callee` taking floats at the positions where `floats` has
 * one (NULL elsewhere), made once per callee and positions. */
static LLVMValueRef float_taking_copy(LLVMValueRef callee, LLVMValueRef *floats, unsigned n) {
  char mask[KN_MAX_PARAMS + 1];
  LLVMTypeRef params[KN_MAX_PARAMS];
  LLVMGetParamTypes(LLVMGlobalGetValueType(callee), params);
  for (unsigned i = 0; i < n; i++) {
    mask[i] = floats[i] ? 'f' : '_';
    if (floats[i])
      params[i] = LLVMTypeOf(floats[i]);
  }
  mask[n] = 0;
  char *name = kn_strdup_printf("kinase.floatbits.%s.%s", kn_function_name(callee), mask);
  LLVMValueRef copy = LLVMGetNamedFunction(kn_module.mod, name);
  if (!copy) {
    LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(callee));
    copy = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(ret, params, n, 0));
    LLVMSetLinkage(copy, LLVMInternalLinkage);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(kn_module.ctx, copy, "floatbits");
    LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef args[KN_MAX_PARAMS];
    for (unsigned i = 0; i < n; i++) {
      LLVMValueRef param = LLVMGetParam(copy, i), original = LLVMGetParam(callee, i);
      const char *pname = kn_value_name(original);
      LLVMSetValueName2(param, pname, strlen(pname));
      args[i] = floats[i] ? LLVMBuildBitCast(b, param, LLVMTypeOf(original), "bits") : param;
    }
    LLVMValueRef body = clone_function(callee, "kinase.floatbits.body");
    LLVMBasicBlockRef body_entry = LLVMGetEntryBasicBlock(body);
    move_body(body, copy, args);
    LLVMBuildBr(b, body_entry);
    LLVMDisposeBuilder(b);
  }
  free(name);
  return copy;
}

void floatbits_specialize_calls(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (!callee || LLVMIsDeclaration(callee) || LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)) ||
          LLVMGetNumArgOperands(inst) > KN_MAX_PARAMS || registry_of(callee))
        continue;
      for (unsigned i = 0, n = LLVMGetNumArgOperands(inst); i < n; i++)
        if (float_behind(LLVMGetOperand(inst, i))) {
          arrput(calls, inst);
          break;
        }
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; k < arrlen(calls); k++) {
    LLVMValueRef call = calls[k], floats[KN_MAX_PARAMS], args[KN_MAX_PARAMS];
    unsigned n = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < n; i++) {
      floats[i] = float_behind(LLVMGetOperand(call, i));
      args[i] = floats[i] ? floats[i] : LLVMGetOperand(call, i);
    }
    LLVMValueRef copy = float_taking_copy(kn_called_function(call), floats, n);
    LLVMPositionBuilderBefore(b, call);
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
    LLVMValueRef direct = LLVMBuildCall2(b, LLVMGlobalGetValueType(copy), copy, args, n, "");
    if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind) {
      LLVMReplaceAllUsesWith(call, direct);
      const char *name = kn_value_name(call);
      LLVMSetValueName2(direct, name, strlen(name));
    }
    unwind_follow(call, direct);
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
}
