/* Indirect calls in the copies Kinase differentiates become direct ones.
 *
 * A callback passed in, a table of function pointers, malloc reached
 * through a pointer in a structure: the callee is one of the module's
 * functions whose address is taken. Each indirect call is turned into a
 * chain of comparisons with those of the call's type, each match calling
 * its function directly, where the usual machinery differentiates it (or a
 * rule applies, as for malloc and free). A callee outside that set, say a
 * function of another translation unit, still gets the indirect call,
 * marked as the fallback: if that call carries derivatives, the derivative
 * stops there at run time with a message rather than drop them. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More candidates than this and the comparisons would cost more than they
 * are worth: the call stays indirect. */
enum { MAX_CANDIDATES = 16 };

static unsigned fallback_kind(void) {
  return LLVMGetMDKindIDInContext(kn_module.ctx, "kinase.fallback", 15);
}

bool devirt_is_fallback(LLVMValueRef call) {
  return LLVMIsACallInst(call) && LLVMGetMetadata(call, fallback_kind()) != NULL;
}

/* Whether `fn`'s address is used other than to call it (requests are
 * already lowered, so they do not count). */
static bool address_taken(LLVMValueRef fn) {
  for (LLVMUseRef use = LLVMGetFirstUse(fn); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    bool callee = kn_is_call_site(user) && LLVMGetCalledValue(user) == fn &&
                  use == LLVMGetOperandUse(user, (unsigned)LLVMGetNumOperands(user) - 1);
    if (!callee)
      return true;
  }
  return false;
}

/* The functions a call of `type` through a pointer may reach. */
static LLVMValueRef *candidates_of_type(LLVMTypeRef type) {
  LLVMValueRef *found = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    if (LLVMGlobalGetValueType(fn) == type && !LLVMGetIntrinsicID(fn) && !kn_is_generated_function(fn) &&
        address_taken(fn))
      arrput(found, fn);
  return found;
}

LLVMValueRef *devirt_candidates(LLVMValueRef call) {
  LLVMValueRef *found = candidates_of_type(LLVMGetCalledFunctionType(call));
  vtable_narrow_candidates(call, &found);
  if (arrlen(found) > MAX_CANDIDATES)
    arrfree(found);
  return found;
}

char *devirt_why_indirect(LLVMValueRef call) {
  LLVMValueRef *found = candidates_of_type(LLVMGetCalledFunctionType(call));
  vtable_narrow_candidates(call, &found);
  ptrdiff_t n = arrlen(found);
  arrfree(found);
  if (!n)
    return kn_strdup_printf(": no function of its type has its address taken in this translation unit");
  if (n <= MAX_CANDIDATES)
    return kn_strdup_printf("%s", "");
  return kn_strdup_printf(": it may reach any of %td functions of its type, more than the %d Kinase "
                          "compares the pointer with", n, MAX_CANDIDATES);
}

/* callee == candidates[0] ? candidates[0](...) : ... : marked callee(...) */
static void devirtualize(LLVMValueRef call, LLVMValueRef *targets) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  LLVMValueRef callee = LLVMGetCalledValue(call);
  unsigned callee_index = (unsigned)LLVMGetNumOperands(call) - 1;
  LLVMBasicBlockRef join = cfg_split_after(call, "devirt.join");
  LLVMBasicBlockRef test = LLVMGetInstructionParent(call);
  LLVMInstructionRemoveFromParent(call);
  bool has_result = LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind;
  LLVMPositionBuilderBeforeInstrAndDbgRecords(b, LLVMGetFirstInstruction(join));
  LLVMValueRef result = has_result ? LLVMBuildPhi(b, LLVMTypeOf(call), kn_value_name(call)) : NULL;
  for (ptrdiff_t i = 0; i <= arrlen(targets); i++) {
    LLVMBasicBlockRef target = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "devirt.call");
    LLVMMoveBasicBlockBefore(target, join);
    LLVMValueRef direct = LLVMInstructionClone(call);
    if (i < arrlen(targets)) {
      LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "devirt.test");
      LLVMMoveBasicBlockBefore(next, join);
      LLVMPositionBuilderAtEnd(b, test);
      LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, callee, targets[i], ""), target, next);
      LLVMSetOperand(direct, callee_index, targets[i]);
      test = next;
    } else {
      LLVMPositionBuilderAtEnd(b, test);
      LLVMBuildBr(b, target);
      LLVMSetMetadata(direct, fallback_kind(),
                      LLVMMetadataAsValue(kn_module.ctx, LLVMMDNodeInContext2(kn_module.ctx, NULL, 0)));
    }
    LLVMPositionBuilderAtEnd(b, target);
    LLVMInsertIntoBuilder(b, direct);
    LLVMBuildBr(b, join);
    if (result)
      LLVMAddIncoming(result, &direct, &target, 1);
  }
  if (result)
    LLVMReplaceAllUsesWith(call, result);
  LLVMDeleteInstruction(call);
  LLVMDisposeBuilder(b);
}

void devirt_indirect_calls(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (LLVMIsACallInst(inst) && !LLVMIsAInlineAsm(LLVMGetCalledValue(inst)) &&
          !kn_called_function(inst) && !devirt_is_fallback(inst))
        arrput(calls, inst);
  for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
    LLVMValueRef *targets = devirt_candidates(calls[i]);
    if (targets)
      devirtualize(calls[i], targets);
    arrfree(targets);
  }
  arrfree(calls);
}

void devirt_guard_fallback(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef subject) {
  LLVMContextRef ctx = kn_module.ctx;
  unsigned guarded = LLVMGetMDKindIDInContext(ctx, "kinase.guarded", 14);
  if (LLVMGetMetadata(call, guarded))
    return;
  LLVMSetMetadata(call, guarded, LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, NULL, 0)));
  char *message = kn_strdup_printf("the derivative of '%s' reached an indirect call to a function "
                                   "that was not visible when it was compiled",
                                   kn_function_name(subject));
  kn_stop_here(b, call, message);
  free(message);
}

LLVMValueRef devirt_fallback_shadow(LLVMValueRef call, LLVMValueRef subject) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
  devirt_guard_fallback(b, call, subject);
  LLVMDisposeBuilder(b);
  return LLVMConstNull(LLVMTypeOf(call));
}
