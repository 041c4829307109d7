/* Whether a reverse kernel's forward part can run twice: the runtime's
 * counting launch (cuda/arena.c) runs it once more before the real one, so
 * it must write nothing but the thread's own memory (its stack, shared
 * memory) and its tapes. Followed through calls, an argument standing for
 * the memory its caller passed. */
#include "kinase.h"

#include <string.h>

enum { COUNTABLE_DEPTH = 8 };

/* Whether p points to memory of the thread's own: its stack, shared
 * memory, a tape; an argument is followed to the call in `sites`. */
static bool own_memory(LLVMValueRef p, LLVMValueRef *sites, unsigned depth) {
  while (LLVMIsAGetElementPtrInst(p) || LLVMIsACastInst(p) ||
         (LLVMIsAConstantExpr(p) && (LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
                                     LLVMGetConstOpcode(p) == LLVMAddrSpaceCast)))
    p = LLVMGetOperand(p, 0);
  if (!kn_is_pointer_type(LLVMTypeOf(p)))
    return false;
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  if (space == KN_SHARED_ADDRESS_SPACE || space == KN_LOCAL_ADDRESS_SPACE || LLVMIsAAllocaInst(p))
    return true;
  if (LLVMIsASelectInst(p))
    return own_memory(LLVMGetOperand(p, 1), sites, depth) && own_memory(LLVMGetOperand(p, 2), sites, depth);
  if (LLVMIsACallInst(p)) {
    LLVMValueRef callee = kn_called_function(p);
    return callee && !strncmp(kn_function_name(callee), "kinase.tape.", 12);
  }
  if (LLVMIsAArgument(p) && depth > 0) {
    LLVMValueRef fn = LLVMGetParamParent(p);
    for (unsigned i = 0; i < LLVMCountParams(fn); i++)
      if (LLVMGetParam(fn, i) == p)
        return own_memory(LLVMGetOperand(sites[depth - 1], i), sites, depth - 1);
  }
  return false;
}

static bool writes_own_memory_only(LLVMValueRef fn, LLVMValueRef *sites, unsigned depth, bool *grows);

/* Assembly writes memory only through a memory operand or a clobber. */
static bool asm_writes_no_memory(LLVMValueRef callee) {
  if (!LLVMIsAInlineAsm(callee))
    return false;
  size_t length = 0;
  const char *constraints = LLVMGetInlineAsmConstraintString(callee, &length);
  char text[512];
  if (length >= sizeof text)
    return false;
  memcpy(text, constraints, length);
  text[length] = 0;
  return !strstr(text, "~{memory}") && !strstr(text, "=*");
}

static bool call_writes_own_memory_only(LLVMValueRef call, LLVMValueRef *sites, unsigned depth,
                                        bool *grows) {
  LLVMValueRef callee = kn_called_function(call);
  if (!callee)
    return asm_writes_no_memory(LLVMGetCalledValue(call));
  const char *name = kn_function_name(callee);
  if (!strncmp(name, "kinase.tape.", 12)) {
    *grows = true;
    return true;
  }
  if (LLVMGetIntrinsicID(callee)) {
    if (!strncmp(name, "llvm.memset", 11) || !strncmp(name, "llvm.memcpy", 11) ||
        !strncmp(name, "llvm.memmove", 12))
      return own_memory(LLVMGetOperand(call, 0), sites, depth);
    return !strstr(name, "atomic");
  }
  if (LLVMIsDeclaration(callee))
    return kn_call_is_pure(call);
  if (depth == COUNTABLE_DEPTH)
    return false;
  sites[depth] = call;
  return writes_own_memory_only(callee, sites, depth + 1, grows);
}

static bool writes_own_memory_only(LLVMValueRef fn, LLVMValueRef *sites, unsigned depth, bool *grows) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      bool own = true;
      switch (LLVMGetInstructionOpcode(inst)) {
      case LLVMStore:
        own = own_memory(LLVMGetOperand(inst, 1), sites, depth);
        break;
      case LLVMAtomicRMW:
      case LLVMAtomicCmpXchg:
        own = own_memory(LLVMGetOperand(inst, 0), sites, depth);
        break;
      case LLVMCall:
        own = call_writes_own_memory_only(inst, sites, depth, grows);
        break;
      case LLVMInvoke:
      case LLVMCallBr:
        own = false;
        break;
      default:
        break;
      }
      if (!own)
        return false;
    }
  return true;
}

bool cuda_arena_countable(LLVMValueRef aug, bool *grows) {
  LLVMValueRef sites[COUNTABLE_DEPTH] = {aug};
  return call_writes_own_memory_only(aug, sites, 0, grows);
}
