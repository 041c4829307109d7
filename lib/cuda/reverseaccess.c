/* Whether a reverse kernel reaches memory through a pointer parameter.
 *
 * The runtime copies what a pending launch reads before anything writes it
 * (runtime/cuda_snapshot.c), the launch itself included when its kernel
 * updates memory in place: a reverse kernel re-runs its kernel's forward
 * part from memory. Not every read is re-run: in `y[i] = alpha * x[i] +
 * y[i]`, y's old value has slope 1 and feeds only the store, which the
 * reverse kernel does not make (y is 'n': core/unneeded.c). A parameter
 * that no reverse kernel of its kernel reads or writes through needs no
 * copy, however much the kernel itself reads it. */
#include "kinase.h"

#include <string.h>

static bool touches(LLVMValueRef ptr, int depth, ValueSet *seen);

/* Whether `v`'s value reaches anything with an effect: a store, a call,
 * a return, a branch. Pure instructions whose results go nowhere do not
 * count: what is left of a forward part after its stores went. */
static bool is_live(LLVMValueRef v, int depth, ValueSet *seen) {
  if (depth > 24)
    return true;
  if (!vset_add(seen, v))
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsAInstruction(user) || LLVMIsAStoreInst(user) || kn_is_call_site(user) ||
        LLVMIsATerminatorInst(user) || LLVMIsAAtomicRMWInst(user) || LLVMIsAAtomicCmpXchgInst(user) ||
        is_live(user, depth + 1, seen))
      return true;
  }
  return false;
}

/* Whether a use of `ptr` (memory the parameter reaches) by `call`, its
 * operand `index`, may access it. */
static bool call_touches(LLVMValueRef call, unsigned index, int depth, ValueSet *seen) {
  LLVMValueRef callee = kn_called_function(call);
  const char *name = callee ? kn_function_name(callee) : "";
  if (!strncmp(name, "llvm.lifetime.", 14))
    return false;
  if (!callee || LLVMIsDeclaration(callee) || index >= LLVMCountParams(callee))
    return true;
  return touches(LLVMGetParam(callee, index), depth + 1, seen);
}

static bool touches(LLVMValueRef ptr, int depth, ValueSet *seen) {
  if (depth > 12)
    return true;
  if (!vset_add(seen, ptr))
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(ptr); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsALoadInst(user)) {
      ValueSet live = {0};
      bool read = is_live(user, 0, &live);
      vset_free(&live);
      if (read)
        return true;
    } else if (LLVMIsAGetElementPtrInst(user) || LLVMIsACastInst(user) || LLVMIsAPHINode(user) ||
               LLVMIsASelectInst(user)) {
      if (LLVMIsAPtrToIntInst(user) || touches(user, depth + 1, seen))
        return true;
    } else if (kn_is_call_site(user)) {
      for (unsigned i = 0, n = LLVMGetNumArgOperands(user); i < n; i++)
        if (LLVMGetOperand(user, i) == ptr && call_touches(user, i, depth, seen))
          return true;
      if (LLVMGetCalledValue(user) == ptr)
        return true;
    } else if (!LLVMIsAICmpInst(user)) {
      return true; /* stored, stored into, an atomic, ... */
    }
  }
  return false;
}

bool cuda_reverse_touches(LLVMValueRef reverse_kernel, unsigned param) {
  ValueSet seen = {0};
  bool touched = touches(LLVMGetParam(reverse_kernel, param), 0, &seen);
  vset_free(&seen);
  return touched;
}
