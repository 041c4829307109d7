/* Writes into __device__ globals that a reverse kernel need not repeat.
 *
 * A launch of a kernel that writes a global is never skipped (the runtime's
 * KINASE_KERNEL_WRITES_OTHER): the forward sweep has made those writes by
 * the time the reverse kernel runs. Where the kernel only writes a global
 * (stores, atomics whose old value it ignores, memsets and copies into it)
 * and never reads it, the reverse kernel's recomputation needs nothing of
 * it, and repeating the writes would change what the host sees afterwards:
 * `atomicAdd(&g_sum, v)` run again doubles the sum. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

typedef struct {
  LLVMValueRef global;
  LLVMValueRef *writes; /* a stb_ds array */
  bool read;
} GlobalAccess;

static GlobalAccess *access_of(GlobalAccess **all, LLVMValueRef global) {
  for (ptrdiff_t i = 0; i < arrlen(*all); i++)
    if ((*all)[i].global == global)
      return &(*all)[i];
  arrput(*all, ((GlobalAccess){.global = global}));
  return &arrlast(*all);
}

/* The user's device global (not __shared__, not constant, not a shadow)
 * `address` points into, or NULL. */
static LLVMValueRef device_global(LLVMValueRef address) {
  if (!kn_is_pointer_type(LLVMTypeOf(address)))
    return NULL;
  LLVMValueRef base = kn_underlying_object(address);
  if (!LLVMIsAGlobalVariable(base) || LLVMIsGlobalConstant(base) ||
      LLVMGetPointerAddressSpace(LLVMTypeOf(base)) == KN_SHARED_ADDRESS_SPACE ||
      !strncmp(kn_value_name(base), "__kinase_", 9))
    return NULL;
  return base;
}

/* Whether operand `k` of `inst` only writes the memory it points to. */
static bool writes_only(LLVMValueRef inst, unsigned k) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMStore:
    return k == 1;
  case LLVMAtomicRMW:
    return k == 0 && !LLVMGetFirstUse(inst);
  case LLVMCall: {
    const Rule *rule = rule_for_call(inst);
    if (!rule || k != 0)
      return false;
    return rule->kind == RULE_MEMSET ||
           (rule->kind == RULE_MEMCPY && device_global(LLVMGetOperand(inst, 1)) != device_global(LLVMGetOperand(inst, 0)));
  }
  default:
    return false;
  }
}

/* Whether operand `k` of `inst` only derives another pointer, whose own
 * uses are looked at where they are. */
static bool derives(LLVMValueRef inst, unsigned k) {
  return k == 0 && (LLVMIsAGetElementPtrInst(inst) || LLVMIsABitCastInst(inst) ||
                    LLVMIsAAddrSpaceCastInst(inst));
}

/* Every use of a device global in `fn`, each a write only or a read. */
static GlobalAccess *global_accesses(LLVMValueRef fn) {
  GlobalAccess *all = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      for (unsigned k = 0, n = (unsigned)LLVMGetNumOperands(inst); k < n; k++) {
        LLVMValueRef global = device_global(LLVMGetOperand(inst, k));
        if (!global || derives(inst, k))
          continue;
        GlobalAccess *a = access_of(&all, global);
        if (writes_only(inst, k))
          arrput(a->writes, inst);
        else
          a->read = true;
      }
  return all;
}

static void free_accesses(GlobalAccess *all) {
  for (ptrdiff_t i = 0; i < arrlen(all); i++)
    arrfree(all[i].writes);
  arrfree(all);
}

void cuda_drop_repeated_global_writes(LLVMValueRef aug) {
  if (!aug)
    return;
  GlobalAccess *all = global_accesses(aug);
  for (ptrdiff_t i = 0; i < arrlen(all); i++)
    for (ptrdiff_t w = 0; !all[i].read && w < arrlen(all[i].writes); w++)
      LLVMInstructionEraseFromParent(all[i].writes[w]);
  free_accesses(all);
}

/* A global the kernel both reads and writes (g += x, a step counter): its
 * reverse kernel would run the kernel's work again from what the launch
 * left there, not from what the launch read. Writes before reads in one
 * launch (a scratch array read back after a grid-wide sync) cannot be told
 * from that here, and are refused too. */
char *cuda_unrepeatable_global(LLVMValueRef body) {
  GlobalAccess *all = global_accesses(body);
  char *why = NULL;
  for (ptrdiff_t i = 0; i < arrlen(all) && !why; i++)
    if (all[i].read && arrlen(all[i].writes))
      why = kn_strdup_printf("it reads and writes the __device__ variable '%s': its reverse kernel, "
                             "which runs the kernel's work again after the kernel ran, would read "
                             "what the launch left there instead of what the launch read",
                             kn_value_name(all[i].global));
  free_accesses(all);
  return why;
}

const char *cuda_unrepeatable_atomic(LLVMValueRef aug) {
  for (LLVMBasicBlockRef bb = aug ? LLVMGetFirstBasicBlock(aug) : NULL; bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if ((LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst)) && LLVMGetFirstUse(inst) &&
          LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(inst, 0))) != KN_SHARED_ADDRESS_SPACE)
        return "it uses the value an atomic operation on memory returns (an index or a ticket drawn "
               "from a counter, a compare-and-swap loop): its reverse kernel, which runs the "
               "kernel's work again after the kernel ran, would draw other values";
  return NULL;
}
