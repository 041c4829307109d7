/* Which parameters of a kernel's host stub make each parameter of the
 * kernel. Mostly one each; but the x86-64 C ABI passes a struct of up to
 * 16 bytes as its eightbytes (struct {float *x; float a;}: a ptr and a
 * float), which the stub stores back into a local struct, and a larger one
 * byval, whose pointer the stub hands on as the argument itself. The stub
 * puts the address of each kernel parameter's bytes into the array it gives
 * cudaLaunchKernel: that array says which is which. */
#include "kinase.h"

#include <string.h>

/* The stub's call of cudaLaunchKernel (or its _ptsz form) launching itself. */
static LLVMValueRef launch_call(LLVMValueRef stub) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(stub); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (callee && !strncmp(kn_function_name(callee), "cudaLaunchKernel", 16) &&
          LLVMGetNumArgOperands(inst) == 8 && kn_strip_casts(LLVMGetOperand(inst, 0)) == stub)
        return inst;
    }
  return NULL;
}

static int param_index(LLVMValueRef stub, LLVMValueRef v) {
  for (unsigned j = 0, n = LLVMCountParams(stub); j < n; j++)
    if (LLVMGetParam(stub, j) == v)
      return (int)j;
  return -1;
}

/* Kernel parameter k's bytes are at `slot`: a byval parameter of the stub,
 * or a local the stub stores its parameters into. */
static bool describe_slot(LLVMValueRef stub, LLVMValueRef slot, unsigned k, StubLayout *out) {
  int j = param_index(stub, slot);
  if (j >= 0 && cuda_byval_type(stub, (unsigned)j)) {
    out->kernel_of[j] = (int)k;
    out->offset[j] = 0;
    out->slot[k] = NULL;
    return true;
  }
  if (!LLVMIsAAllocaInst(slot))
    return false;
  out->slot[k] = LLVMGetAllocatedType(slot);
  for (unsigned i = 0, n = LLVMCountParams(stub); i < n; i++) {
    LLVMValueRef param = LLVMGetParam(stub, i);
    for (LLVMUseRef use = LLVMGetFirstUse(param); use; use = LLVMGetNextUse(use)) {
      LLVMValueRef store = LLVMGetUser(use), at;
      unsigned long long offset;
      if (LLVMIsAStoreInst(store) && LLVMGetOperand(store, 0) == param &&
          abi_offset_in_slot(LLVMGetOperand(store, 1), &at, &offset) && at == slot) {
        out->kernel_of[i] = (int)k;
        out->offset[i] = (unsigned)offset;
      }
    }
  }
  return true;
}

bool cuda_stub_layout(LLVMValueRef stub, StubLayout *out) {
  if (cuda_is_stub_by_reference(stub))
    return cuda_stub_by_reference_layout(stub, out);
  LLVMValueRef call = launch_call(stub);
  if (!call || LLVMCountParams(stub) > KN_MAX_PARAMS)
    return false;
  for (unsigned j = 0; j < KN_MAX_PARAMS; j++)
    out->kernel_of[j] = -1;
  out->nkernel = 0;
  LLVMValueRef array = kn_underlying_object(LLVMGetOperand(call, 5));
  for (LLVMUseRef use = LLVMIsAAllocaInst(array) ? LLVMGetFirstUse(array) : NULL; use;
       use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    LLVMValueRef element = LLVMIsAGetElementPtrInst(user) ? LLVMGetOperand(user, 1) : NULL;
    bool indexed = element && LLVMIsAConstantInt(element) && LLVMGetNumOperands(user) == 2;
    LLVMValueRef store = indexed ? LLVMGetFirstUse(user) ? LLVMGetUser(LLVMGetFirstUse(user)) : NULL
                                 : user;
    if (!store || !LLVMIsAStoreInst(store) || LLVMGetOperand(store, 0) == array)
      continue;
    unsigned k = indexed ? (unsigned)LLVMConstIntGetZExtValue(element) : 0;
    if (k >= KN_MAX_PARAMS || !describe_slot(stub, LLVMGetOperand(store, 0), k, out))
      return false;
    if (k + 1 > out->nkernel)
      out->nkernel = k + 1;
  }
  for (unsigned j = 0, n = LLVMCountParams(stub); j < n; j++)
    if (out->kernel_of[j] < 0)
      return false;
  return true;
}

bool cuda_stub_aggregate(const StubLayout *layout, unsigned k) {
  LLVMTypeRef slot = layout->slot[k];
  return !slot || LLVMGetTypeKind(slot) == LLVMStructTypeKind || LLVMGetTypeKind(slot) == LLVMArrayTypeKind;
}

static bool stores_only(LLVMValueRef p, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(p); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    LLVMValueRef callee = LLVMIsACallInst(user) ? kn_called_function(user) : NULL;
    bool stored_into = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p &&
                       LLVMGetOperand(user, 0) != p;
    bool field = LLVMIsAGetElementPtrInst(user) && depth < 4 && stores_only(user, depth + 1);
    bool marker = callee && !strncmp(kn_function_name(callee), "llvm.lifetime.", 14);
    bool launched = depth == 0 && callee && cuda_is_launch_stub(callee);
    bool address_stored = depth == 0 && LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == p;
    if (!stored_into && !field && !marker && !launched && !address_stored)
      return false;
  }
  return true;
}

bool cuda_is_launch_struct(LLVMValueRef p) {
  LLVMValueRef slot = kn_underlying_object(p);
  return LLVMIsAAllocaInst(slot) && stores_only(slot, 0);
}
