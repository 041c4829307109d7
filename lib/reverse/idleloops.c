/* Reverse mode: loops whose reverse does nothing are not reversed.
 *
 * A loop that touches no varied value, no shadow and nothing that orders
 * memory has no adjoint work in it: `curand_init`'s skip-ahead over the
 * generator's state, a table built from Const data, an integer search. Its
 * reverse would still walk back through every iteration, and to find its
 * way it would record which way each branch went, per iteration: for
 * `curand_init` in a kernel, hundreds of records a thread, more than the
 * device heap holds at a grid's size. So the reverse sweep steps over such
 * a loop, from the reverse of the block after it straight to the reverse of
 * the block that entered it.
 *
 * Only outermost loops are stepped over. A value of the loop that the
 * reverse needs later is read from the record its block made last, and the
 * block's record counter steps back only when the block is reversed: in a
 * loop that runs once per call, "last" is the right record however many
 * iterations ran; nested in another loop's iterations it would not be. */
#include "reverse.h"

#include <stb/stb_ds.h>
#include <string.h>

static bool is_intrinsic_named(LLVMValueRef callee, const char *name) {
  unsigned id = callee ? LLVMGetIntrinsicID(callee) : 0;
  return id && id == LLVMLookupIntrinsicID(name, strlen(name));
}

/* Calls that need no reverse: inert ones, assumptions, and memory
 * intrinsics on memory without shadows. */
static bool call_is_idle(Reverse *r, LLVMValueRef call) {
  if (rev_aug_call_of(r, call) || activity_any_operand(&r->varied, call, 0, LLVMGetNumArgOperands(call)))
    return false;
  LLVMValueRef callee = kn_called_function(call);
  return rev_call_is_inert(call) || is_intrinsic_named(callee, "llvm.assume") ||
         is_intrinsic_named(callee, "llvm.memset") || is_intrinsic_named(callee, "llvm.memcpy") ||
         is_intrinsic_named(callee, "llvm.memmove");
}

/* What reversing `inst` would do (adjoint.c's rev_reverse_instruction):
 * nothing for a value without an adjoint, a store that clears no shadow,
 * a call that needs no reverse, an alloca without a shadow. Whatever orders
 * memory keeps its place in the reverse: barriers, fences, atomics. */
static bool instruction_is_idle(Reverse *r, LLVMValueRef inst) {
  if (vset_has(&r->shadow_code, inst))
    return true;
  if (has_adjoint(r, inst) || kn_orders_memory(inst))
    return false;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMStore:
    return !rev_store_has_reverse(r, inst);
  case LLVMCall:
    return call_is_idle(r, inst);
  case LLVMAlloca:
    return !vmap_get(&r->shadow, inst);
  case LLVMLandingPad:
  case LLVMCleanupPad:
  case LLVMCatchPad:
  case LLVMCatchSwitch:
  case LLVMResume:
    return false;
  default:
    return true;
  }
}

static bool loop_is_idle(Reverse *r, Loop *loop) {
  if (loop->parent || !loop->preheader)
    return false;
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    if (!loop_contains(loop, r->blocks[k]))
      continue;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst; inst = LLVMGetNextInstruction(inst))
      if (!instruction_is_idle(r, inst))
        return false;
  }
  return true;
}

void rev_find_idle_loops(Reverse *r) {
  Loop *loops = cfg_loops(r->cfg);
  for (ptrdiff_t i = 0; i < arrlen(loops); i++) {
    if (!loop_is_idle(r, &loops[i]))
      continue;
    for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
      if (loop_contains(&loops[i], r->blocks[k]))
        vmap_put(&r->idle_loop_entry, LLVMBasicBlockAsValue(r->blocks[k]),
                 LLVMBasicBlockAsValue(loops[i].preheader));
  }
}

bool rev_block_is_idle(Reverse *r, LLVMBasicBlockRef bb) {
  return vmap_get(&r->idle_loop_entry, LLVMBasicBlockAsValue(bb)) != NULL;
}

LLVMBasicBlockRef rev_reverse_target(Reverse *r, LLVMBasicBlockRef pred) {
  LLVMValueRef entry = vmap_get(&r->idle_loop_entry, LLVMBasicBlockAsValue(pred));
  return reverse_of(r, entry ? LLVMValueAsBasicBlock(entry) : pred);
}
