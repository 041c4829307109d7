/* Reverse mode in device code: adds into an address the lanes of a warp
 * share, in a loop (the scatter dr[j] += ... of an all-pairs kernel),
 * summed across the warp once per iteration under one check per loop.
 *
 * Held to the end of their block (adjoint.c), such adds need a check per
 * iteration that all 32 lanes are there and agree on the address
 * (activemask, match.all), and an iteration in which one lane skips the add
 * (j == i) falls back to an atomic per lane: on the H200 the two cost the
 * all-pairs gradient about 0.4x of a hand-written force kernel. Here each
 * lane adds its share into a register instead (nothing where its path
 * skipped the add), and the sums are taken where every lane passes once per
 * iteration: the end of the iteration's reverse, the header's.
 *
 * The lanes agree on the address in every iteration when they enter the
 * loop's reverse together and agree there on its iteration count and on
 * every value from before the loop that the address is computed from: a
 * shfl.sync waits for all 32 lanes at the same instruction, each lane runs
 * the header's reverse once per iteration, so the n-th sums of the lanes
 * pair up their n-th iterations. That check runs once per loop.
 *
 * A loop qualifies when its reverse has one way in (one exit, reached from
 * one block) and nothing in it reads shadow memory (stores, calls, atomics,
 * barriers: an add held to the iteration's end would come after them); an
 * add qualifies when its address is computed from the loop's induction
 * variables and values from before the loop by pure instructions. */
#include "reverse.h"

#include <stb/stb_ds.h>

/* The innermost counted loop holding bb, or NULL. */
static CountedLoop *innermost_loop(Reverse *r, LLVMBasicBlockRef bb) {
  CountedLoop *best = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++)
    if (loop_contains(r->loops[i].loop, bb) &&
        (!best || vset_size(&r->loops[i].loop->blocks) < vset_size(&best->loop->blocks)))
      best = &r->loops[i];
  return best;
}

static bool reverse_reads_shadows(Reverse *r, CountedLoop *loop) {
  if (loop->reads_shadows < 0) {
    loop->reads_shadows = 0;
    for (ptrdiff_t k = 0; k < arrlen(r->blocks) && !loop->reads_shadows; k++) {
      if (!loop_contains(loop->loop, r->blocks[k]))
        continue;
      for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst; inst = LLVMGetNextInstruction(inst))
        if (!vset_has(&r->shadow_code, inst) && rev_may_read_shadows(inst))
          loop->reads_shadows = 1;
    }
  }
  return loop->reads_shadows;
}

static void add_leaf(LLVMValueRef **leaves, LLVMValueRef v) {
  for (ptrdiff_t i = 0; i < arrlen(*leaves); i++)
    if ((*leaves)[i] == v)
      return;
  arrput(*leaves, v);
}

/* Whether `v` is the same in an iteration of `loop` in every lane that
 * agrees on the values it adds to `leaves`: constants, values from before
 * the loop, the thread's geometry (then the lanes will not agree), and the
 * loop's induction variables computed from those. */
static bool computed_per_iteration(Reverse *r, CountedLoop *loop, LLVMValueRef v, LLVMValueRef **leaves, int depth) {
  if (LLVMIsAConstant(v))
    return true;
  if (LLVMIsAArgument(v))
    return add_leaf(leaves, v), true;
  if (!LLVMIsAInstruction(v) || depth > 16)
    return false;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
  if (!loop_contains(loop->loop, bb)) {
    if (!cfg_dominates(r->cfg, bb, loop->loop->header))
      return false;
    add_leaf(leaves, v);
    return true;
  }
  if (v == loop->counter)
    return true;
  Induction iv;
  if (LLVMIsAPHINode(v))
    return rev_induction_of(loop, v, &iv) && computed_per_iteration(r, loop, iv.init, leaves, depth + 1) &&
           (!iv.step || computed_per_iteration(r, loop, iv.step, leaves, depth + 1));
  if (!rev_recomputable(v))
    return false;
  if (LLVMIsACallInst(v)) /* the thread's geometry */
    return add_leaf(leaves, v), true;
  for (int i = 0; i < LLVMGetNumOperands(v); i++)
    if (!computed_per_iteration(r, loop, LLVMGetOperand(v, (unsigned)i), leaves, depth + 1))
      return false;
  return true;
}

bool rev_move_add_to_iteration_end(Reverse *r, LLVMValueRef shadow, LLVMValueRef a, LLVMValueRef load) {
  CountedLoop *loop = innermost_loop(r, LLVMGetInstructionParent(load));
  if (!loop || !loop->rev_entry || reverse_reads_shadows(r, loop))
    return false;
  LLVMValueRef *leaves = NULL;
  bool computed = computed_per_iteration(r, loop, shadow, &leaves, 0);
  for (ptrdiff_t i = 0; computed && i < arrlen(leaves); i++)
    add_leaf(&loop->step_leaves, leaves[i]);
  arrfree(leaves);
  if (!computed)
    return false;
  LLVMTypeRef type = LLVMTypeOf(a);
  LLVMValueRef none = LLVMConstReal(type, -0.0);
  LLVMBuilderRef entry = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(entry, LLVMGetFirstInstruction(LLVMValueAsBasicBlock(r->rev_entry)));
  LLVMValueRef slot = LLVMBuildAlloca(entry, type, "lane.share");
  LLVMBuildStore(entry, none, slot);
  LLVMDisposeBuilder(entry);
  LLVMValueRef held = LLVMBuildLoad2(r->b, type, slot, "");
  LLVMBuildStore(r->b, LLVMBuildFAdd(r->b, held, a, ""), slot);
  arrput(loop->adds, ((LoopAdd){slot, shadow, load}));
  return true;
}

/* i1, where the loop's reverse is entered: all 32 lanes enter it together
 * and agree on its iteration count and on the leaves of its moved adds'
 * addresses. Built in a branch of its own: match.all needs every lane. */
static LLVMValueRef lanes_in_step(Reverse *r, CountedLoop *loop) {
  LLVMBasicBlockRef resume = LLVMGetInsertBlock(r->b), edge = loop->rev_entry;
  ValueMap memo = r->memo;
  LLVMBasicBlockRef memo_block = r->memo_block;
  r->memo = (ValueMap){0};
  r->memo_block = NULL;
  bool hoisting = r->hoisting;
  r->hoisting = false; /* the check is computed before the block hoisted values go to */

  LLVMPositionBuilderBefore(r->b, LLVMGetBasicBlockTerminator(edge));
  LLVMValueRef whole = cuda_warp_is_whole(r->b);
  LLVMBasicBlockRef entered = cfg_split_after(whole, "loop.entered");
  LLVMBasicBlockRef check = LLVMInsertBasicBlockInContext(kn_module.ctx, entered, "lanes.check");
  LLVMPositionBuilderAtEnd(r->b, edge);
  LLVMBuildCondBr(r->b, whole, check, entered);
  LLVMPositionBuilderAtEnd(r->b, check);
  LLVMValueRef *values = NULL;
  arrput(values, LLVMBuildLoad2(r->b, LLVMInt64TypeInContext(kn_module.ctx), rev_iteration_slot(r, loop), "k"));
  for (ptrdiff_t i = 0; i < arrlen(loop->step_leaves); i++)
    arrput(values, rev_primal(r, loop->step_leaves[i]));
  LLVMValueRef agree = cuda_lanes_agree(r->b, values, (unsigned)arrlen(values));
  arrfree(values);
  LLVMBasicBlockRef checked = LLVMGetInsertBlock(r->b);
  LLVMBuildBr(r->b, entered);

  LLVMPositionBuilderBefore(r->b, LLVMGetFirstInstruction(entered));
  LLVMValueRef in_step = LLVMBuildPhi(r->b, LLVMInt1TypeInContext(kn_module.ctx), "lanes.in.step");
  LLVMValueRef no = LLVMConstInt(LLVMInt1TypeInContext(kn_module.ctx), 0, 0);
  LLVMAddIncoming(in_step, &no, &edge, 1);
  LLVMAddIncoming(in_step, &agree, &checked, 1);
  /* Loops entered from the same edge build their checks after this one. */
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++)
    if (r->loops[i].rev_entry == edge)
      r->loops[i].rev_entry = entered;

  vmap_free(&r->memo);
  r->memo = memo;
  r->memo_block = memo_block;
  r->hoisting = hoisting;
  rev_resume_in(r, resume);
  return in_step;
}

void rev_add_at_iteration_end(Reverse *r, CountedLoop *loop) {
  if (!arrlen(loop->adds))
    return;
  LLVMValueRef in_step = lanes_in_step(r, loop);
  HeldAdd *adds = NULL;
  LLVMValueRef any = LLVMConstInt(LLVMInt1TypeInContext(kn_module.ctx), 0, 0);
  for (ptrdiff_t i = 0; i < arrlen(loop->adds); i++) {
    LoopAdd *add = &loop->adds[i];
    LLVMTypeRef type = LLVMGetAllocatedType(add->slot);
    LLVMValueRef share = LLVMBuildLoad2(r->b, type, add->slot, "lane.share");
    LLVMBuildStore(r->b, LLVMConstReal(type, -0.0), add->slot);
    any = LLVMBuildOr(r->b, any, LLVMBuildFCmp(r->b, LLVMRealUNE, share, LLVMConstReal(type, 0.0), ""), "");
    arrput(adds, ((HeldAdd){rev_primal(r, add->shadow), share, add->load}));
  }
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(r->b));
  LLVMBasicBlockRef together = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "warp.sums");
  LLVMBasicBlockRef apart = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "lane.shares");
  LLVMBasicBlockRef each = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "lane.adds");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "iteration.added");
  LLVMBuildCondBr(r->b, in_step, together, apart);
  /* The first pass through the header's reverse ends no iteration: every
   * share is empty, and the address is one past the loop's last (dr[n],
   * past the end of a __shared__ array: an illegal address, even for an
   * add of -0.0). A lane with nothing to add never adds; a warp with
   * nothing skips its sums. */
  LLVMPositionBuilderAtEnd(r->b, together);
  LLVMBasicBlockRef summed = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "warp.shares");
  LLVMBuildCondBr(r->b, cuda_warp_any(r->b, any), summed, done);
  LLVMPositionBuilderAtEnd(r->b, summed);
  rev_add_warp_sums(r, adds);
  LLVMBuildBr(r->b, done);
  LLVMPositionBuilderAtEnd(r->b, apart);
  LLVMBuildCondBr(r->b, any, each, done);
  LLVMPositionBuilderAtEnd(r->b, each);
  for (ptrdiff_t i = 0; i < arrlen(adds); i++) {
    LLVMValueRef add = LLVMBuildAtomicRMW(r->b, LLVMAtomicRMWBinOpFAdd, adds[i].shadow, adds[i].value,
                                          LLVMAtomicOrderingMonotonic, 0);
    LLVMSetAlignment(add, LLVMGetAlignment(adds[i].load));
  }
  LLVMBuildBr(r->b, done);
  LLVMPositionBuilderAtEnd(r->b, done);
  arrfree(adds);
  arrfree(loop->adds);
  arrfree(loop->step_leaves);
}
