/* Handles of the CUDA API in host code: a stream or an event is a pointer
 * to the library's own object, which carries no derivative and which no
 * derivative code reads through. Stored into memory with a shadow (the
 * stream field of a cudaLaunchConfig_t, a member beside device buffers), a
 * handle leaves null in the shadow, as a Const pointer does in a launch's
 * argument slot, where any other pointer without a shadow is an error. */
#include "kinase.h"

#include <string.h>

/* Whether only the CUDA API writes local `slot`, through calls that carry no
 * derivative (cudaStreamCreate(&s), cudaEventCreate(&e)), and the code only
 * loads it. */
static bool api_handle_slot(LLVMValueRef slot) {
  bool created = false;
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    LLVMValueRef callee = LLVMIsACallInst(user) ? kn_called_function(user) : NULL;
    const Rule *rule = callee ? rule_for_function(callee) : NULL;
    bool made = rule && rule->cuda && rule->kind == RULE_INACTIVE && LLVMGetCalledValue(user) != slot;
    bool marker = callee && !strncmp(kn_function_name(callee), "llvm.lifetime.", 14);
    if (!LLVMIsALoadInst(user) && !made && !marker)
      return false;
    created |= made;
  }
  return created;
}

bool cuda_is_handle(LLVMValueRef v) {
  if (!LLVMIsALoadInst(v) || !kn_is_pointer_type(LLVMTypeOf(v)))
    return false;
  LLVMValueRef slot = kn_underlying_object(LLVMGetOperand(v, 0));
  return LLVMIsAAllocaInst(slot) && api_handle_slot(slot);
}
