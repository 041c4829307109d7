/* Reverse mode: where a counted loop's reverse starts, computed from its
 * exit test instead of recorded. The reverse sweep restarts a loop at the
 * iteration it was left in (primal.c gives every counted loop a counter and
 * its value at each exit). Recorded, that value costs a record each time
 * the loop is left: inside an outer loop a tape that grows with it, in
 * device code an arena and a counting launch. Where the loop is left by one
 * test of an induction variable against a bound fixed before the loop (`for
 * (j = 0; j < m; j++)`, or `p != end`), the iteration it was left in is a
 * formula of the bound and the variable's start. Separate because it is
 * one question, asked once per loop exit. */
#include "reverse.h"

#include <stb/stb_ds.h>

/* The test a loop is left by: the loop goes on while `compared stay bound`,
 * where compared is an induction variable (offset 0) or its next value
 * (offset 1). */
typedef struct {
  Induction iv;
  unsigned offset;
  LLVMIntPredicate stay;
  LLVMValueRef bound;
} ExitTest;

static LLVMIntPredicate inverse(LLVMIntPredicate p) {
  static const LLVMIntPredicate inverses[][2] = {
      {LLVMIntEQ, LLVMIntNE},   {LLVMIntUGT, LLVMIntULE}, {LLVMIntUGE, LLVMIntULT},
      {LLVMIntSGT, LLVMIntSLE}, {LLVMIntSGE, LLVMIntSLT},
  };
  for (size_t i = 0; i < sizeof inverses / sizeof *inverses; i++)
    if (inverses[i][0] == p || inverses[i][1] == p)
      return inverses[i][inverses[i][0] == p];
  return p;
}

static LLVMIntPredicate swapped(LLVMIntPredicate p) {
  static const LLVMIntPredicate swaps[][2] = {
      {LLVMIntUGT, LLVMIntULT}, {LLVMIntUGE, LLVMIntULE}, {LLVMIntSGT, LLVMIntSLT}, {LLVMIntSGE, LLVMIntSLE},
  };
  for (size_t i = 0; i < sizeof swaps / sizeof *swaps; i++)
    if (swaps[i][0] == p || swaps[i][1] == p)
      return swaps[i][swaps[i][0] == p];
  return p; /* eq, ne */
}

/* The one block the loop is left from, if there is one and it runs once
 * per iteration (the header or the latch). */
static LLVMBasicBlockRef only_exiting_block(Reverse *r, Loop *loop) {
  LLVMBasicBlockRef exiting = NULL;
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    if (!loop_contains(loop, r->blocks[k]))
      continue;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(r->blocks[k]);
    for (unsigned i = 0, n = LLVMGetNumSuccessors(term); i < n; i++)
      if (!loop_contains(loop, LLVMGetSuccessor(term, i))) {
        if (exiting && exiting != r->blocks[k])
          return NULL;
        exiting = r->blocks[k];
      }
  }
  return exiting == loop->header || exiting == loop->latch ? exiting : NULL;
}

static bool defined_outside(Loop *loop, LLVMValueRef v) {
  return !LLVMIsAInstruction(v) || !loop_contains(loop, LLVMGetInstructionParent(v));
}

/* Which induction variable `v` is (or is the next value of). */
static bool induction_compared(CountedLoop *loop, LLVMValueRef v, ExitTest *out) {
  for (LLVMValueRef phi = LLVMGetFirstInstruction(loop->loop->header); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi)) {
    if (!rev_induction_of(loop, phi, &out->iv) || (v != phi && v != out->iv.next))
      continue;
    out->offset = v == phi ? 0 : 1;
    bool constant_step = out->iv.kind == STEP_ADD && !out->iv.step;
    return constant_step || out->iv.kind == STEP_GEP;
  }
  return false;
}

static bool find_exit_test(Reverse *r, CountedLoop *loop, ExitTest *out) {
  LLVMBasicBlockRef exiting = only_exiting_block(r, loop->loop);
  LLVMValueRef branch = exiting ? LLVMGetBasicBlockTerminator(exiting) : NULL;
  if (!branch || !LLVMIsABranchInst(branch) || !LLVMIsConditional(branch))
    return false;
  LLVMValueRef test = LLVMGetCondition(branch);
  if (!LLVMIsAICmpInst(test))
    return false;
  LLVMIntPredicate p = LLVMGetICmpPredicate(test);
  bool leaves_when_true = !loop_contains(loop->loop, LLVMGetSuccessor(branch, 0));
  out->stay = leaves_when_true ? inverse(p) : p;
  for (unsigned side = 0; side < 2; side++) {
    out->bound = LLVMGetOperand(test, 1 - side);
    if (defined_outside(loop->loop, out->bound) && induction_compared(loop, LLVMGetOperand(test, side), out)) {
      if (side == 1)
        out->stay = swapped(out->stay);
      return true;
    }
  }
  return false;
}

/* Ordered tests, where the variable cannot wrap: it stays while below
 * (above) the bound, one step at a time. */
typedef struct {
  LLVMIntPredicate stay;
  long long step;
  bool is_signed, inclusive;
} OrderedTest;

static const OrderedTest ordered_tests[] = {
    {LLVMIntSLT, 1, true, false},  {LLVMIntSLE, 1, true, true},   {LLVMIntULT, 1, false, false},
    {LLVMIntULE, 1, false, true},  {LLVMIntSGT, -1, true, false}, {LLVMIntSGE, -1, true, true},
};

static const OrderedTest *ordered_test(ExitTest *t) {
  for (size_t i = 0; i < sizeof ordered_tests / sizeof *ordered_tests; i++) {
    const OrderedTest *o = &ordered_tests[i];
    if (o->stay == t->stay && o->step == t->iv.amount &&
        (o->is_signed ? LLVMGetNSW(t->iv.next) : LLVMGetNUW(t->iv.next)))
      return o;
  }
  return NULL;
}

static bool counts_to_bound(ExitTest *t) {
  return t->stay == LLVMIntNE && (t->iv.kind == STEP_GEP || t->iv.amount == 1 || t->iv.amount == -1);
}

static LLVMValueRef widened(Reverse *r, LLVMValueRef v, bool is_signed) {
  return is_signed ? LLVMBuildSExtOrBitCast(r->b, v, i64(), "") : LLVMBuildZExtOrBitCast(r->b, v, i64(), "");
}

/* The iteration the loop was left in, from x0 (what was compared in the
 * first iteration): the first j at which x0 + j * step fails the test. */
static LLVMValueRef iterations(Reverse *r, ExitTest *t, LLVMValueRef x0) {
  LLVMValueRef bound = rev_primal(r, t->bound);
  if (t->iv.kind == STEP_GEP) {
    LLVMValueRef next = t->iv.next;
    long long bytes = LLVMConstIntGetSExtValue(LLVMGetOperand(next, 1)) *
                      (long long)LLVMABISizeOfType(kn_module.layout, LLVMGetGEPSourceElementType(next));
    LLVMValueRef distance = LLVMBuildSub(r->b, LLVMBuildPtrToInt(r->b, bound, i64(), ""),
                                         LLVMBuildPtrToInt(r->b, x0, i64(), ""), "");
    return LLVMBuildExactSDiv(r->b, distance, LLVMConstInt(i64(), (unsigned long long)bytes, 1), "");
  }
  bool up = t->iv.amount == 1;
  /* Left when the variable reaches the bound: that many steps, modulo its width. */
  if (counts_to_bound(t))
    return LLVMBuildZExtOrBitCast(r->b, up ? LLVMBuildSub(r->b, bound, x0, "") : LLVMBuildSub(r->b, x0, bound, ""),
                                  i64(), "");
  /* As many steps as the bound is away (one more for <=), none when it is
   * already past; in 64 bits, where a narrower variable's distances fit. */
  const OrderedTest *o = ordered_test(t);
  LLVMValueRef wide_bound = widened(r, bound, o->is_signed), wide_x0 = widened(r, x0, o->is_signed);
  LLVMValueRef distance = up ? LLVMBuildSub(r->b, wide_bound, wide_x0, "") : LLVMBuildSub(r->b, wide_x0, wide_bound, "");
  if (o->inclusive)
    distance = LLVMBuildAdd(r->b, distance, LLVMConstInt(i64(), 1, 0), "");
  LLVMValueRef past = o->is_signed ? LLVMBuildICmp(r->b, LLVMIntSLT, distance, LLVMConstInt(i64(), 0, 0), "")
                                   : LLVMBuildICmp(r->b, up ? LLVMIntULT : LLVMIntUGT, wide_bound, wide_x0, "");
  return LLVMBuildSelect(r->b, past, LLVMConstInt(i64(), 0, 0), distance, "");
}

LLVMValueRef rev_exit_count(Reverse *r, CountedLoop *loop, LLVMValueRef count) {
  ExitTest t;
  bool computable = find_exit_test(r, loop, &t) && LLVMGetTypeKind(LLVMTypeOf(t.iv.init)) != LLVMVectorTypeKind &&
                    (counts_to_bound(&t) || (t.iv.kind == STEP_ADD && ordered_test(&t)));
  if (!computable)
    return rev_primal(r, count);
  LLVMValueRef x0 = rev_primal(r, t.iv.init);
  if (t.offset && t.iv.kind == STEP_GEP) {
    LLVMValueRef index = LLVMGetOperand(t.iv.next, 1);
    x0 = LLVMBuildGEP2(r->b, LLVMGetGEPSourceElementType(t.iv.next), x0, &index, 1, "");
  } else if (t.offset) {
    x0 = LLVMBuildAdd(r->b, x0, LLVMConstInt(LLVMTypeOf(x0), (unsigned long long)t.iv.amount, 1), "");
  }
  return iterations(r, &t, x0);
}
