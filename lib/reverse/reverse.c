/* Reverse mode: a pair of functions per function and activity pattern.
 *
 *   aug: the primal, plus the shadows of pointers (shadow memory mirrors
 *        primal memory) and a tape of the values the reverse sweep needs;
 *   rev: one reverse block per primal block, run in the reverse order of the
 *        forward execution, propagating adjoints from results to operands.
 *
 * require: aug and rev declared with derive_aug_type / derive_type, empty.
 *
 * The tape. Each execution of a primal block B appends one record holding
 * the values of B that the reverse sweep needs ("roots"), so the k-th
 * execution's values sit at index k of B's record array. The reverse sweep
 * keeps a counter per block, decremented when it leaves B's reverse block:
 * wherever the reverse code needs a value of B, it reads record counter-1,
 * which is the execution of B the forward sweep last saw at that point (SSA
 * dominance guarantees this). This needs no loop analysis and holds for any
 * control flow. A block with several predecessors records which one it came
 * from, so that its reverse block can go back the same way.
 *
 * Loops in canonical form (one preheader, one latch, exits reached only from
 * inside) get an iteration counter: the exits record its final value, the
 * reverse sweep counts it down, and needs no record per iteration to know
 * where to go or what an induction variable (i = init + k * step) was.
 *
 * Values are recomputed in the reverse sweep rather than recorded when they
 * are pure (arithmetic, casts, GEPs, compares) and their operands are
 * available, and so are loads of memory that stays as it was: a request's
 * own sweeps run back to back, so where the function writes no memory but
 * its own, loads from arguments and globals read the same in reverse. Other
 * loads, calls and phis are recorded. Roots are discovered while
 * the reverse sweep is generated: each use reads through a placeholder load,
 * whose address is filled in once every block's record layout is known.
 *
 * Adjoints live in one stack slot per active value (promoted to registers
 * by the cleanup pipeline); an instruction's reverse reads and zeroes its
 * slot, then adds into its operands' slots.
 *
 * The generator is split into files by concern:
 *   reverse.c   the entry, and the reverse sweep's blocks and control flow;
 *   memtypes.c  what memory holds: memory objects, integer copies;
 *   useful.c    which varied values need adjoints;
 *   augment.c   the augmented forward sweep: shadows, augmented calls;
 *   primal.c    primal values in the reverse sweep: counted loops,
 *               recompute or record;
 *   adjoint.c   adjoint slots and the reverse of each instruction;
 *   tape.c      the records: their layout, appends in aug, reads in rev.
 * reverse.h holds what they share. */
#include "reverse.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reverse sweep, block by block ---- */

/* A counter to set on the way back into a loop: its iterations at exit. */
typedef struct {
  LLVMValueRef slot, value;
  CountedLoop *entered; /* the loop whose reverse this starts, when it does */
} Restart;

static LLVMBasicBlockRef edge_block(Reverse *r, LLVMBasicBlockRef pred, PhiAdjoint *phis,
                                    Restart *restarts) {
  LLVMBasicBlockRef edge = LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev.edge");
  LLVMPositionBuilderAtEnd(r->b, edge);
  for (ptrdiff_t i = 0; i < arrlen(phis); i++) {
    LLVMValueRef incoming = NULL;
    for (unsigned k = 0, n = LLVMCountIncoming(phis[i].phi); k < n; k++)
      if (LLVMGetIncomingBlock(phis[i].phi, k) == pred)
        incoming = LLVMGetIncomingValue(phis[i].phi, k);
    if (incoming)
      rev_add_adjoint(r, incoming, phis[i].a);
  }
  LLVMBasicBlockRef to = rev_reverse_target(r, pred);
  for (ptrdiff_t i = 0; i < arrlen(restarts); i++) {
    LLVMBuildStore(r->b, restarts[i].value, restarts[i].slot);
    if (restarts[i].entered && restarts[i].entered->rev_entry && !rev_block_is_idle(r, pred))
      to = restarts[i].entered->rev_entry;
  }
  LLVMBuildBr(r->b, to);
  return edge;
}

/* Leaving the header's reverse: back to the preheader after iteration 0,
 * else to the latch for the iteration before. */
static void leave_counted_header(Reverse *r, CountedLoop *loop, PhiAdjoint *phis) {
  LLVMBasicBlockRef here = LLVMGetInsertBlock(r->b);
  LLVMValueRef slot = rev_iteration_slot(r, loop);
  LLVMValueRef k = LLVMBuildLoad2(r->b, i64(), slot, "k");
  LLVMValueRef first = LLVMBuildICmp(r->b, LLVMIntEQ, k, const64(0), "");
  Restart previous = {slot, LLVMBuildSub(r->b, k, const64(1), ""), NULL};
  Restart *restarts = NULL;
  arrput(restarts, previous);
  LLVMBasicBlockRef to_preheader = edge_block(r, loop->loop->preheader, phis, NULL);
  LLVMBasicBlockRef to_latch = edge_block(r, loop->loop->latch, phis, restarts);
  arrfree(restarts);
  LLVMPositionBuilderAtEnd(r->b, here);
  LLVMBuildCondBr(r->b, first, to_preheader, to_latch);
}

static void reverse_block(Reverse *r, ptrdiff_t k) {
  LLVMBasicBlockRef bb = r->blocks[k];
  r->reversing = k;
  LLVMPositionBuilderAtEnd(r->b, reverse_of(r, bb));
  PhiAdjoint *phis = NULL;
  for (LLVMValueRef inst = LLVMGetLastInstruction(bb); inst && !r->failed;
       inst = LLVMGetPreviousInstruction(inst))
    if (!LLVMIsATerminatorInst(inst) && !vset_has(&r->shadow_code, inst))
      rev_reverse_instruction(r, inst, &phis);
  rev_flush_held_adds(r);
  CountedLoop *loop = rev_counted_loop_with_header(r, bb);
  if (loop)
    rev_add_at_iteration_end(r, loop);
  rev_clears_at_block_end(r, k);

  /* What this block recorded is read before its counter steps back: which
   * predecessor ran, and the iterations of the loops it exits. */
  LLVMValueRef from_phi = vmap_get(&r->from, LLVMBasicBlockAsValue(bb));
  LLVMValueRef from = from_phi ? rev_primal(r, from_phi) : NULL;
  Restart *restarts = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++) {
    LLVMValueRef count = vmap_get(&r->loops[i].exit_count, LLVMBasicBlockAsValue(bb));
    if (count) {
      Restart restart = {rev_iteration_slot(r, &r->loops[i]), rev_exit_count(r, &r->loops[i], count),
                         &r->loops[i]};
      arrput(restarts, restart);
    }
  }
  BlockRecord *record = rev_record_of(r, bb);
  if (!record->counter) {
    LLVMBuilderRef entry = LLVMCreateBuilderInContext(ctx());
    LLVMPositionBuilderBefore(entry, LLVMGetFirstInstruction(LLVMValueAsBasicBlock(r->rev_entry)));
    record->counter = LLVMBuildAlloca(entry, i64(), "count");
    record->data = LLVMBuildAlloca(entry, ptr(), "records");
    record->stride = LLVMBuildAlloca(entry, i64(), "stride");
    LLVMDisposeBuilder(entry);
  }
  LLVMValueRef count = LLVMBuildLoad2(r->b, i64(), record->counter, "");
  LLVMBuildStore(r->b, LLVMBuildSub(r->b, count, const64(1), ""), record->counter);

  LLVMBasicBlockRef here = LLVMGetInsertBlock(r->b);
  LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, bb);
  if (bb == LLVMGetEntryBasicBlock(r->aug)) {
    LLVMBuildBr(r->b, LLVMValueAsBasicBlock(r->rev_exit));
  } else if (loop) {
    leave_counted_header(r, loop, phis);
  } else if (!from_phi) {
    LLVMBasicBlockRef edge = edge_block(r, preds[0], phis, restarts);
    LLVMPositionBuilderAtEnd(r->b, here);
    LLVMBuildBr(r->b, edge);
  } else {
    unsigned n = (unsigned)arrlen(preds);
    LLVMBasicBlockRef *edges = malloc(n * sizeof *edges);
    for (unsigned i = 0; i < n; i++)
      edges[i] = edge_block(r, preds[i], phis, restarts);
    LLVMPositionBuilderAtEnd(r->b, here);
    LLVMValueRef sw = LLVMBuildSwitch(r->b, from, edges[0], n - 1);
    for (unsigned i = 1; i < n; i++)
      LLVMAddCase(sw, LLVMConstInt(i32(), i, 0), edges[i]);
    free(edges);
  }
  arrfree(restarts);
  arrfree(phis);
}

/* ---- entry ---- */

/* One return block, so that the reverse sweep has one place to start. */
static void unify_returns(Reverse *r) {
  LLVMBasicBlockRef *rets = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->aug); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (term && LLVMGetInstructionOpcode(term) == LLVMRet)
      arrput(rets, bb);
  }
  if (!arrlen(rets)) {
    arrfree(rets);
    return;
  }
  LLVMTypeRef type = LLVMGetReturnType(LLVMGlobalGetValueType(r->sig->fn));
  bool is_void = LLVMGetTypeKind(type) == LLVMVoidTypeKind;
  if (arrlen(rets) == 1) {
    r->ret_block = rets[0];
    arrfree(rets);
    return;
  }
  LLVMBasicBlockRef joined = LLVMAppendBasicBlockInContext(ctx(), r->aug, "return");
  LLVMPositionBuilderAtEnd(r->ab, joined);
  LLVMValueRef phi = is_void ? NULL : LLVMBuildPhi(r->ab, type, "result");
  for (ptrdiff_t i = 0; i < arrlen(rets); i++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(rets[i]);
    if (phi) {
      LLVMValueRef v = LLVMGetOperand(term, 0);
      LLVMAddIncoming(phi, &v, &rets[i], 1);
    }
    LLVMPositionBuilderBefore(r->ab, term);
    LLVMBuildBr(r->ab, joined);
    LLVMInstructionEraseFromParent(term);
  }
  LLVMPositionBuilderAtEnd(r->ab, joined);
  if (phi)
    LLVMBuildRet(r->ab, phi);
  else
    LLVMBuildRetVoid(r->ab);
  r->ret_block = joined;
  arrfree(rets);
}

static void seed_parameters(Reverse *r, LLVMValueRef *primals, LLVMValueRef *shadows) {
  for (unsigned i = 0; i < r->sig->nparams; i++) {
    if (shadows[i]) {
      vset_add(&r->varied, primals[i]);
      vmap_put(&r->shadow, primals[i], shadows[i]);
    } else if (r->sig->params[i] == ACT_OUT) {
      vset_add(&r->varied, primals[i]);
    }
  }
}

void name_rev_params(Reverse *r) {
  unsigned shared = LLVMCountParams(r->aug) - (r->sig->adjacent ? 1 : 0); /* not the tape memory */
  for (unsigned i = 0; i < shared; i++) {
    const char *name = kn_value_name(LLVMGetParam(r->aug, i));
    LLVMSetValueName2(LLVMGetParam(r->rev, i), name, strlen(name));
  }
  LLVMSetValueName2(LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 1), "tape", 4);
}

static void build_reverse(Reverse *r) {
  r->rev_entry = LLVMBasicBlockAsValue(LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev.entry"));
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    LLVMBasicBlockRef rb = LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev");
    vmap_put(&r->reverse_block, LLVMBasicBlockAsValue(r->blocks[k]), LLVMBasicBlockAsValue(rb));
  }
  r->rev_exit = LLVMBasicBlockAsValue(LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev.exit"));
  /* The entry block jumps to the return block's reverse; the result's
   * adjoint is the caller's seed. */
  LLVMPositionBuilderAtEnd(r->b, LLVMValueAsBasicBlock(r->rev_entry));
  if (r->sig->ret_tangent && returned_value(r)) {
    LLVMValueRef seed = LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 2);
    rev_add_adjoint(r, returned_value(r), seed);
  }
  LLVMBuildBr(r->b, reverse_of(r, r->ret_block));
  rev_make_loop_entries(r);
  r->hoisting = true;
  for (ptrdiff_t k = arrlen(r->blocks) - 1; k >= 0 && !r->failed; k--) {
    if (rev_block_is_idle(r, r->blocks[k])) {
      LLVMPositionBuilderAtEnd(r->b, reverse_of(r, r->blocks[k]));
      LLVMBuildUnreachable(r->b);
    } else {
      reverse_block(r, k);
    }
  }
  r->hoisting = false;
}

static void find_addresses(Reverse *r) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst))
      if (activity_is_address(&r->varied, inst))
        vset_add(&r->addresses, inst);
  }
  for (unsigned i = 0, n = LLVMCountParams(r->aug); i < n; i++)
    if (activity_is_address(&r->varied, LLVMGetParam(r->aug, i)))
      vset_add(&r->addresses, LLVMGetParam(r->aug, i));
}

bool reverse_generate(const Signature *sig, LLVMValueRef aug, LLVMValueRef rev, LLVMValueRef release) {
  Reverse r = {.sig = sig, .aug = aug, .rev = rev, .clears_land = PTRDIFF_MAX};
  LLVMValueRef primals[KN_MAX_PARAMS], shadows[KN_MAX_PARAMS];
  if (!adopt_simplified_body(sig, aug, primals, shadows, &r.unwinds)) {
    arrfree(r.unwinds);
    return false;
  }
  r.b = LLVMCreateBuilderInContext(ctx());
  r.ab = LLVMCreateBuilderInContext(ctx());
  name_rev_params(&r);
  unify_returns(&r);
  r.blocks = cfg_reverse_post_order(aug);
  rev_keep_stack_alive(&r);
  seed_parameters(&r, primals, shadows);
  for (unsigned i = 0; i < sig->nparams; i++) {
    if (sig->frozen >> i & 1)
      vset_add(&r.frozen_params, primals[i]);
    if (sig->owned >> i & 1)
      vset_add(&r.owned_params, primals[i]);
    if (cuda_byval_type(sig->fn, i))
      vset_add(&r.byval_params, primals[i]);
    /* a CUdeviceptr too (an integer as wide as a pointer) */
    bool address = kn_is_pointer_type(LLVMTypeOf(primals[i])) ||
                   kn_is_address_integer(LLVMTypeOf(primals[i]));
    if (sig->params[i] == ACT_DUPNONEED && address)
      vset_add(&r.unneeded_params, primals[i]);
    /* Decided before the reverse sweep adds reloads that count on it. */
    if (sig->params[i] == ACT_DUPNONEED && kn_is_pointer_type(LLVMTypeOf(primals[i])) &&
        unneeded_writes_drop(primals[i]))
      vset_add(&r.dropped_writes, primals[i]);
  }
  do
    activity_find_varied(&r.varied, r.blocks, false);
  while (globals_seed(&r.varied, &r.shadow, r.blocks));
  rev_find_memory_objects(&r);
  /* A pointer copied through an integer into local memory makes that
   * memory varied, whose integer copies are then decided in turn. */
  size_t known;
  do {
    known = vset_size(&r.varied);
    rev_find_integer_copies(&r);
    activity_find_varied(&r.varied, r.blocks, false);
  } while (vset_size(&r.varied) != known && !r.failed);
  find_addresses(&r);
  rev_find_useful(&r);
  rev_augment(&r);
  r.cfg = cfg_build(aug);
  rev_count_loops(&r);
  for (ptrdiff_t k = 0; k < arrlen(r.blocks); k++)
    if (!rev_counted_loop_with_header(&r, r.blocks[k]))
      rev_add_from_index(&r, r.blocks[k]);
  r.memory_frozen = rev_memory_is_frozen(&r);
  rev_find_idle_loops(&r);
  if (!r.failed && r.ret_block) {
    build_reverse(&r);
    rev_place_final_stores(&r);
  }
  if (!r.failed && !r.ret_block)
    fail(&r, NULL, "it never returns%s", "");
  if (!r.failed) {
    rev_erase_dead_code(&r);
    rev_layout_records(&r);
    LLVMTypeRef tape = rev_tape_type(&r);
    derive_set_tape_type(sig, tape);
    rev_write_records(&r, tape);
    rev_read_records(&r, tape);
    rev_finish_exit(&r, tape);
    rev_finish_aug_return(&r);
    if (release)
      rev_build_release(&r, tape, release);
    for (unsigned i = 0; i < sig->nparams; i++)
      if (vset_has(&r.dropped_writes, primals[i]))
        drop_writes(primals[i]);
    rev_erase_replaced_launches(&r);
    rev_drop_final_stores(&r);
    LLVMValueRef *invokes = NULL, *to_caller = NULL;
    unwind_reattach(aug, r.unwinds, &invokes, &to_caller);
    if (release)
      rev_release_on_unwind(&r, invokes, to_caller, release);
    arrfree(invokes);
    arrfree(to_caller);
  }
  arrfree(r.replaced_launches);
  arrfree(r.owned);
  arrfree(r.unwinds);
  for (ptrdiff_t i = 0; i < arrlen(r.records); i++)
    arrfree(r.records[i].roots);
  arrfree(r.records);
  arrfree(r.placeholders);
  arrfree(r.blocks);
  vset_free(&r.varied);
  vset_free(&r.useful);
  vset_free(&r.shadow_code);
  vset_free(&r.addresses);
  vset_free(&r.stack_on_heap);
  vset_free(&r.frozen_params);
  vset_free(&r.owned_params);
  vset_free(&r.byval_params);
  arrfree(r.owned_adds);
  arrfree(r.warp_adds);
  rev_drop_held_clears(&r);
  arrfree(r.final_stores);
  vmap_free(&r.idle_loop_entry);
  vset_free(&r.unneeded_params);
  vset_free(&r.dropped_writes);
  vmap_free(&r.shadow);
  vmap_free(&r.adjoint);
  vmap_free(&r.reverse_block);
  vmap_free(&r.from);
  vmap_free(&r.memo);
  arrfree(r.calls);
  vmap_free(&r.copied_as);
  vmap_free(&r.object_parent);
  for (ptrdiff_t i = 0; i < arrlen(r.loops); i++) {
    vmap_free(&r.loops[i].exit_count);
    arrfree(r.loops[i].adds);
    vmap_free(&r.loops[i].hoisted);
    arrfree(r.loops[i].step_leaves);
  }
  arrfree(r.loops);
  cfg_free(r.cfg);
  LLVMDisposeBuilder(r.b);
  LLVMDisposeBuilder(r.ab);
  return !r.failed;
}
