/* Reverse mode at a request's top level: stores that end the function,
 * moved after the reverse sweep.
 *
 * A function that writes memory it does not own cannot have its loads of
 * arguments repeated in the reverse sweep (the write may have changed what
 * they read), so they are recorded: the seed's `*logL = ...` after its data
 * loop, with logL needed (enzyme_dup, as HMC wants the value too), put the
 * loop's loads on a tape growing with the loop, in device code on the small
 * device heap. When the two sweeps run back to back and nothing after such
 * a store reads memory it does not own, the primal's store can wait until
 * the reverse sweep is done: no one could have seen it earlier, and the
 * sweep's repeated loads see memory as the loop did. So a store is final
 * when
 * - it is plain (not volatile or atomic) and its block runs exactly once
 *   (dominates the return, on no cycle), so that its value and address are
 *   there at the end;
 * - no instruction after it, on any path, reads memory other than the
 *   function's own stack and allocations, synchronises, or calls anything
 *   but math;
 * and the function has no landing pads (its cleanups could read it) and
 * writes no outside memory otherwise. */
#include "reverse.h"
#include <stb/stb_ds.h>

/* Whether `inst` could see a store to memory the function does not own. */
static bool may_observe(Reverse *r, LLVMValueRef inst) {
  if (vset_has(&r->shadow_code, inst))
    return false;
  if (kn_orders_memory(inst))
    return true;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad:
    return LLVMGetVolatile(inst) || !rev_is_local_object(kn_underlying_object(LLVMGetOperand(inst, 0)));
  case LLVMCall:
    return !rev_aug_call_of(r, inst) && !rev_call_is_inert(inst);
  default:
    return false;
  }
}

bool rev_call_is_inert(LLVMValueRef call) {
  const Rule *rule = rule_for_call(call);
  LLVMValueRef callee = kn_called_function(call);
  unsigned id = callee ? LLVMGetIntrinsicID(callee) : 0;
  bool marker = id && (id == LLVMLookupIntrinsicID("llvm.lifetime.start", 19) ||
                       id == LLVMLookupIntrinsicID("llvm.lifetime.end", 17));
  return marker || cuda_is_thread_geometry(call) || (rule && rule->kind == RULE_MATH) || kn_call_is_pure(call);
}

static bool runs_exactly_once(Reverse *r, LLVMBasicBlockRef bb) {
  return !cfg_on_cycle(bb) && cfg_dominates(r->cfg, bb, r->ret_block);
}

/* Whether anything after `store` (in its block, then in every block
 * reachable from it) may see it. */
static bool observed_later(Reverse *r, LLVMValueRef store) {
  for (LLVMValueRef inst = LLVMGetNextInstruction(store); inst; inst = LLVMGetNextInstruction(inst))
    if (may_observe(r, inst))
      return true;
  ValueSet seen = {0};
  /* The store's block first, not again: it is on no cycle. */
  LLVMBasicBlockRef *reached = cfg_reverse_post_order_from(LLVMGetInstructionParent(store), &seen);
  bool observed = false;
  for (ptrdiff_t i = 1; i < arrlen(reached) && !observed; i++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(reached[i]); inst && !observed;
         inst = LLVMGetNextInstruction(inst))
      observed = may_observe(r, inst);
  arrfree(reached);
  vset_free(&seen);
  return observed;
}

bool rev_final_store(Reverse *r, LLVMValueRef inst) {
  return r->sig->adjacent && !unwind_has_landing_pads(r->unwinds) && LLVMIsAStoreInst(inst) && !LLVMGetVolatile(inst) &&
         LLVMGetOrdering(inst) == LLVMAtomicOrderingNotAtomic &&
         runs_exactly_once(r, LLVMGetInstructionParent(inst)) && !observed_later(r, inst);
}

/* In the reverse's exit, once the sweep is done: the same stores, in the
 * order the function made them. */
void rev_place_final_stores(Reverse *r) {
  if (r->failed || !arrlen(r->final_stores))
    return;
  LLVMPositionBuilderAtEnd(r->b, LLVMValueAsBasicBlock(r->rev_exit));
  for (ptrdiff_t i = 0; i < arrlen(r->final_stores); i++) {
    LLVMValueRef store = r->final_stores[i];
    LLVMValueRef value = rev_primal(r, LLVMGetOperand(store, 0));
    LLVMValueRef copy = LLVMBuildStore(r->b, value, rev_primal(r, LLVMGetOperand(store, 1)));
    LLVMSetAlignment(copy, LLVMGetAlignment(store));
  }
}

/* ... and not in the forward sweep. */
void rev_drop_final_stores(Reverse *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->final_stores); i++)
    LLVMInstructionEraseFromParent(r->final_stores[i]);
  arrfree(r->final_stores);
}
