/* Reverse mode in device code: the clears of shadow memory, held back.
 *
 * The reverse of a store reads its location's adjoint and clears it (the
 * seed's `*logL = ...`: dlogL[i] read, then zeroed). Emitted where the store
 * is reversed, the clear comes first in the derivative kernel, before the
 * loads of the rest of it, and on the H200 a store in front of a thread's
 * loads made the whole kernel 3.3x slower (0.81 ms against 0.25 ms at the
 * seed's (2^24, 16), docs/PERFORMANCE.md). A clear therefore waits:
 * - until the next instruction whose reverse reads, writes or frees shadow
 *   memory, which then finds it done, so the order of shadow accesses is
 *   the one the sweep had;
 * - across blocks only into a block that runs exactly when its own does
 *   (control-equivalent: one dominates, the other post-dominates, neither
 *   on a cycle) when no block that may run in between touches shadow
 *   memory (found on the CFG: the order blocks are reversed in is not the
 *   order their reverses run in); otherwise it is done at the end of its
 *   block. */
#include "reverse.h"
#include <stb/stb_ds.h>

/* Whether reversing `inst` may read, write or free shadow memory. */
static bool reverse_touches_shadows(Reverse *r, LLVMValueRef inst) {
  if (rev_may_read_shadows(inst))
    return true;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad:
    return is_varied(r, LLVMGetOperand(inst, 0));
  case LLVMAlloca:
    return vmap_get(&r->shadow, inst) != NULL;
  default:
    return false;
  }
}

static bool block_touches_shadows(Reverse *r, LLVMBasicBlockRef bb) {
  for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
    if (!vset_has(&r->shadow_code, inst) && reverse_touches_shadows(r, inst))
      return true;
  return false;
}

/* The blocks that may run after `from` and before `to`: whether one of
 * them returns without passing `to` (then `to` does not run whenever
 * `from` does), and whether one touches shadow memory. */
static void between(Reverse *r, LLVMBasicBlockRef from, LLVMBasicBlockRef to, bool *escapes,
                    bool *touches) {
  ValueSet seen = {0};
  vset_add(&seen, LLVMBasicBlockAsValue(to));
  LLVMBasicBlockRef *reached = cfg_reverse_post_order_from(from, &seen); /* from first */
  *escapes = *touches = false;
  for (ptrdiff_t i = 1; i < arrlen(reached); i++) {
    *escapes |= reached[i] == r->ret_block;
    *touches |= block_touches_shadows(r, reached[i]);
  }
  arrfree(reached);
  vset_free(&seen);
}

/* Clears held in one block's reverse, or carried to another's: only that
 * one places them (the reverses of the blocks generated in between run at
 * other times), and holds no others. */
static bool placing_here(Reverse *r) {
  return r->clears_land == PTRDIFF_MAX || r->clears_land == r->reversing;
}

void rev_hold_clear(Reverse *r, LLVMValueRef clear) {
  if (!kn_module.gpu || !placing_here(r))
    return;
  LLVMInstructionRemoveFromParent(clear);
  arrput(r->held_clears, clear);
}

void rev_flush_clears(Reverse *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->held_clears); i++)
    LLVMInsertIntoBuilder(r->b, r->held_clears[i]);
  arrsetlen(r->held_clears, 0);
  r->clears_land = PTRDIFF_MAX;
}

void rev_clears_before(Reverse *r, LLVMValueRef inst) {
  if (arrlen(r->held_clears) && placing_here(r) && reverse_touches_shadows(r, inst))
    rev_flush_clears(r);
}

/* Carried to the nearest dominating block, if it runs exactly when this
 * one does and nothing that runs between them touches shadow memory. Blocks are
 * reversed from the last of r->blocks to the first; r->blocks is in
 * reverse post-order, so a dominating block comes earlier. */
void rev_clears_at_block_end(Reverse *r, ptrdiff_t k) {
  if (!arrlen(r->held_clears) || !placing_here(r))
    return;
  LLVMBasicBlockRef bb = r->blocks[k];
  for (ptrdiff_t j = k - 1; j >= 0 && !cfg_on_cycle(bb); j--) {
    LLVMBasicBlockRef earlier = r->blocks[j];
    if (cfg_on_cycle(earlier) || !cfg_dominates(r->cfg, earlier, bb))
      continue;
    bool escapes, touches;
    between(r, earlier, bb, &escapes, &touches);
    if (!escapes && !touches) {
      r->clears_land = j;
      return;
    }
    break; /* a farther block has these blocks between it and bb too */
  }
  rev_flush_clears(r);
}

/* A generation that failed may leave clears unplaced. */
void rev_drop_held_clears(Reverse *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->held_clears); i++)
    LLVMDeleteInstruction(r->held_clears[i]);
  arrfree(r->held_clears);
}
