/* Reverse mode: loop-invariant factors out of the reverse sweep's sums.
 *
 * A reverse loop adds one product per iteration into an adjoint, and most
 * of the product's factors do not change with the iteration: the seed's
 * log-likelihood, q += d * d with d = (x[k] - mu) * is, sums
 *   dis += (x[k] - mu) * ((x[k] - mu) * is * dq2)
 *   dmu += -is * ((x[k] - mu) * is * dq2)
 * five operations per point where a hand-written gradient sums x[k] - mu and
 * its square (three) and multiplies by is and dq2 once, after the loop.
 * Written out, what an iteration adds is a sum of monomials; grouped by
 * their invariant factors, each group is summed over its varying factors
 * alone and multiplied by the invariant ones once, after the loop. That is reassociation, which IEEE arithmetic does not give the
 * compiler for the primal; the order of a derivative's operations is
 * Kinase's choice (Enzyme's own order is just as arbitrary), and summing
 * fewer rounded products is, if anything, closer to the real value. Only
 * sums whose value reaches arithmetic and memory, never a branch or an
 * address, are rewritten, so the reverse sweep's control flow stays the
 * primal's. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

/* One factor of a monomial: a value, or its reciprocal (a division). */
typedef struct {
  LLVMValueRef value;
  bool reciprocal;
} Factor;

/* sign * product(invariant) * product(varying), one per term of a sum. */
typedef struct {
  Factor *invariant;
  LLVMValueRef *varying;
  bool negative;
  int group; /* terms with the same invariant factors share a sum */
} Monomial;

static bool is_invariant(Loop *loop, LLVMValueRef v) {
  if (LLVMIsAInstruction(v))
    return !loop_contains(loop, LLVMGetInstructionParent(v));
  return LLVMIsAConstant(v) || LLVMIsAArgument(v);
}

static bool in_loop(Loop *loop, LLVMValueRef v) {
  return LLVMIsAInstruction(v) && loop_contains(loop, LLVMGetInstructionParent(v));
}

static bool is_fused_multiply_add(LLVMValueRef inst) {
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  if (!callee)
    return false;
  size_t len;
  const char *name = LLVMGetValueName2(callee, &len);
  return strncmp(name, "llvm.fma.", 9) == 0 || strncmp(name, "llvm.fmuladd.", 13) == 0;
}

/* Splits v into factors through multiplications, doublings, negations and
 * divisions by invariants, down to a few levels. */
static void split(Loop *loop, LLVMValueRef v, Monomial *m, int depth) {
  if (in_loop(loop, v) && depth < 8) {
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMFMul:
      split(loop, LLVMGetOperand(v, 0), m, depth + 1);
      split(loop, LLVMGetOperand(v, 1), m, depth + 1);
      return;
    case LLVMFAdd: /* x + x, as a product's derivative writes 2x */
      if (LLVMGetOperand(v, 0) != LLVMGetOperand(v, 1))
        break;
      arrput(m->invariant, ((Factor){LLVMConstReal(LLVMTypeOf(v), 2.0), false}));
      split(loop, LLVMGetOperand(v, 0), m, depth + 1);
      return;
    case LLVMFNeg:
      m->negative = !m->negative;
      split(loop, LLVMGetOperand(v, 0), m, depth + 1);
      return;
    case LLVMFDiv:
      if (is_invariant(loop, LLVMGetOperand(v, 1))) {
        split(loop, LLVMGetOperand(v, 0), m, depth + 1);
        arrput(m->invariant, ((Factor){LLVMGetOperand(v, 1), true}));
        return;
      }
      break;
    default:
      break;
    }
  }
  if (is_invariant(loop, v))
    arrput(m->invariant, ((Factor){v, false}));
  else
    arrput(m->varying, v);
}

static void monomial_free(Monomial *m) {
  arrfree(m->invariant);
  arrfree(m->varying);
}

/* The same sign and invariant factors, in any order. */
static bool same_factors(const Monomial *a, const Monomial *b) {
  enum { MAX_FACTORS = 64 };
  ptrdiff_t n = arrlen(a->invariant);
  if (a->negative != b->negative || n != arrlen(b->invariant) || n > MAX_FACTORS)
    return false;
  bool used[MAX_FACTORS] = {0};
  for (ptrdiff_t i = 0; i < n; i++) {
    ptrdiff_t j = 0;
    while (j < n && (used[j] || b->invariant[j].value != a->invariant[i].value ||
                     b->invariant[j].reciprocal != a->invariant[i].reciprocal))
      j++;
    if (j == n)
      return false;
    used[j] = true;
  }
  return true;
}

/* A sum along the loop: header phi `sum`; each link adds terms to the one
 * below it (the first to the phi); the top link returns to the phi from
 * the latch. */
typedef struct {
  LLVMValueRef sum, top;
  Monomial *terms; /* what the links add, bottom first */
} Reduction;

static void reduction_free(Reduction *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->terms); i++)
    monomial_free(&r->terms[i]);
  arrfree(r->terms);
}

/* The one user of v inside the loop, or NULL. */
static LLVMValueRef only_user_in_loop(Loop *loop, LLVMValueRef v) {
  LLVMValueRef found = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!in_loop(loop, user))
      continue;
    if (found)
      return NULL;
    found = user;
  }
  return found;
}

static bool has_user_outside(Loop *loop, LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
    if (!in_loop(loop, LLVMGetUser(u)))
      return true;
  return false;
}

enum { MAX_TERMS = 64 };

/* Appends the monomials of (-1 if negative) * v: through the sums and
 * differences of the loop, then split into factors. */
static bool expand(Loop *loop, LLVMValueRef v, bool negative, Reduction *r, int depth) {
  if (arrlen(r->terms) >= MAX_TERMS)
    return false;
  if (in_loop(loop, v) && depth < 8) {
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
    if ((op == LLVMFAdd && a != b) || op == LLVMFSub)
      return expand(loop, a, negative, r, depth + 1) &&
             expand(loop, b, negative != (op == LLVMFSub), r, depth + 1);
  }
  Monomial m = {.negative = negative};
  split(loop, v, &m, 0);
  arrput(r->terms, m);
  return true;
}

/* Appends the monomials `link` adds to `below`, or returns false if it is
 * not a link of a sum. */
static bool add_terms_of(Loop *loop, LLVMValueRef link, LLVMValueRef below, Reduction *r) {
  if (is_fused_multiply_add(link)) {
    if (LLVMGetOperand(link, 2) != below || LLVMGetOperand(link, 0) == below || LLVMGetOperand(link, 1) == below)
      return false;
    Monomial m = {0};
    split(loop, LLVMGetOperand(link, 0), &m, 0);
    split(loop, LLVMGetOperand(link, 1), &m, 0);
    arrput(r->terms, m);
    return true;
  }
  if (!LLVMIsAInstruction(link))
    return false;
  LLVMOpcode op = LLVMGetInstructionOpcode(link);
  if (op != LLVMFAdd && op != LLVMFSub)
    return false;
  LLVMValueRef a = LLVMGetOperand(link, 0), b = LLVMGetOperand(link, 1);
  if (a == b || (op == LLVMFSub && a != below))
    return false;
  return expand(loop, a == below ? b : a, op == LLVMFSub, r, 0);
}

/* Whether some term loses a multiplication by an invariant in the loop. */
static bool worth_it(const Reduction *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->terms); i++)
    if (arrlen(r->terms[i].invariant) && arrlen(r->terms[i].varying))
      return true;
  return false;
}

/* Follows the sum up from its phi to the latch. */
static bool find_reduction(Loop *loop, LLVMValueRef sum, Reduction *r) {
  *r = (Reduction){.sum = sum};
  for (unsigned i = 0; i < LLVMCountIncoming(sum); i++)
    if (LLVMGetIncomingBlock(sum, i) == loop->latch)
      r->top = LLVMGetIncomingValue(sum, i);
  LLVMValueRef below = sum;
  for (int links = 0; links < MAX_TERMS; links++) {
    LLVMValueRef link = only_user_in_loop(loop, below);
    if (!link)
      return false;
    if (link == sum)
      return below == r->top && below != sum && worth_it(r);
    if (below != sum && has_user_outside(loop, below))
      return false;
    if (!add_terms_of(loop, link, below, r))
      return false;
    below = link;
  }
  return false;
}

/* Whether v reaches only arithmetic, phis, selects (not as the condition),
 * stores (as the value), returns and aggregates. */
static bool only_numbers(LLVMValueRef v, ValueSet *seen) {
  if (!vset_add(seen, v))
    return true;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    bool ok;
    switch (LLVMGetInstructionOpcode(user)) {
    case LLVMFAdd: case LLVMFSub: case LLVMFMul: case LLVMFDiv: case LLVMFNeg:
    case LLVMFPExt: case LLVMFPTrunc: case LLVMPHI: case LLVMInsertValue: case LLVMExtractValue:
      ok = only_numbers(user, seen);
      break;
    case LLVMSelect:
      ok = LLVMGetOperand(user, 0) != v && only_numbers(user, seen);
      break;
    case LLVMStore:
      ok = LLVMGetOperand(user, 1) != v;
      break;
    case LLVMAtomicRMW:
      ok = LLVMGetOperand(user, 0) != v;
      break;
    case LLVMRet:
      ok = true;
      break;
    case LLVMCall:
      ok = is_fused_multiply_add(user) && only_numbers(user, seen);
      break;
    default:
      ok = false;
    }
    if (!ok)
      return false;
  }
  return true;
}

/* Uses outside the loop are LCSSA phis of the sum or its top link whose
 * every incoming value is one of the two. */
static bool exits_are_lcssa(Loop *loop, const Reduction *r) {
  LLVMValueRef ends[2] = {r->sum, r->top};
  for (int e = 0; e < 2; e++)
    for (LLVMUseRef u = LLVMGetFirstUse(ends[e]); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (loop_contains(loop, LLVMGetInstructionParent(user)))
        continue;
      if (!LLVMIsAPHINode(user))
        return false;
      for (unsigned i = 0; i < LLVMCountIncoming(user); i++) {
        LLVMValueRef in = LLVMGetIncomingValue(user, i);
        if ((in != r->sum && in != r->top) || !loop_contains(loop, LLVMGetIncomingBlock(user, i)))
          return false;
      }
    }
  return true;
}

static LLVMValueRef product(LLVMBuilderRef b, LLVMValueRef *values, ptrdiff_t n) {
  LLVMValueRef p = values[0];
  for (ptrdiff_t i = 1; i < n; i++)
    p = LLVMBuildFMul(b, p, values[i], "");
  return p;
}

/* The invariant part of a group's terms, in the preheader. */
static LLVMValueRef coefficient(LLVMBuilderRef b, LLVMTypeRef type, const Monomial *m) {
  LLVMValueRef numerator = m->negative ? LLVMConstReal(type, -1.0) : LLVMConstReal(type, 1.0), denominator = NULL;
  for (ptrdiff_t i = 0; i < arrlen(m->invariant); i++) {
    if (m->invariant[i].reciprocal)
      denominator = denominator ? LLVMBuildFMul(b, denominator, m->invariant[i].value, "")
                                : m->invariant[i].value;
    else
      numerator = LLVMBuildFMul(b, numerator, m->invariant[i].value, "");
  }
  return denominator ? LLVMBuildFDiv(b, numerator, denominator, "coefficient") : numerator;
}

static void rewrite(Loop *loop, Reduction *r) {
  LLVMTypeRef type = LLVMTypeOf(r->sum);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  /* Group the terms; a term's sign goes with its invariant factors. */
  int groups = 0;
  Monomial **first = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->terms); i++) {
    Monomial *m = &r->terms[i];
    m->group = -1;
    for (int g = 0; g < groups && m->group < 0; g++)
      if (same_factors(first[g], m))
        m->group = g;
    if (m->group < 0) {
      m->group = groups++;
      arrput(first, m);
    }
  }
  LLVMValueRef *coef = NULL, *phis = NULL, *tops = NULL;
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(loop->preheader));
  for (int g = 0; g < groups; g++)
    arrput(coef, coefficient(b, type, first[g]));
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(loop->header));
  for (int g = 0; g < groups; g++)
    arrput(phis, LLVMBuildPhi(b, type, "varying_sum"));
  /* The new sums add up where the old top link was, terms bottom first. */
  LLVMPositionBuilderBefore(b, r->top);
  for (int g = 0; g < groups; g++)
    arrput(tops, phis[g]);
  for (ptrdiff_t i = 0; i < arrlen(r->terms); i++) {
    Monomial *m = &r->terms[i];
    LLVMValueRef v = arrlen(m->varying) ? product(b, m->varying, arrlen(m->varying)) : LLVMConstReal(type, 1.0);
    tops[m->group] = LLVMBuildFAdd(b, tops[m->group], v, "");
  }
  LLVMValueRef minus_zero = LLVMConstReal(type, -0.0);
  for (int g = 0; g < groups; g++) {
    for (unsigned i = 0; i < LLVMCountIncoming(r->sum); i++) {
      LLVMBasicBlockRef from = LLVMGetIncomingBlock(r->sum, i);
      LLVMValueRef in = from == loop->latch ? tops[g] : minus_zero;
      LLVMAddIncoming(phis[g], &in, &from, 1);
    }
  }
  LLVMValueRef init = NULL;
  for (unsigned i = 0; i < LLVMCountIncoming(r->sum); i++)
    if (LLVMGetIncomingBlock(r->sum, i) == loop->preheader)
      init = LLVMGetIncomingValue(r->sum, i);
  /* Each LCSSA phi of the old sum: init + sum over groups of coef * sum. */
  LLVMValueRef *exits = NULL;
  LLVMValueRef ends[2] = {r->sum, r->top};
  for (int e = 0; e < 2; e++)
    for (LLVMUseRef u = LLVMGetFirstUse(ends[e]); u; u = LLVMGetNextUse(u))
      if (!loop_contains(loop, LLVMGetInstructionParent(LLVMGetUser(u))))
        arrput(exits, LLVMGetUser(u));
  for (ptrdiff_t k = 0; k < arrlen(exits); k++) {
    LLVMValueRef old = exits[k];
    if (!LLVMGetInstructionParent(old))
      continue;
    bool seen_before = false;
    for (ptrdiff_t j = 0; j < k; j++)
      seen_before |= exits[j] == old;
    if (seen_before)
      continue;
    LLVMBasicBlockRef exit = LLVMGetInstructionParent(old);
    LLVMValueRef value = init;
    LLVMPositionBuilderBefore(b, old);
    LLVMValueRef *ends_here = NULL;
    for (int g = 0; g < groups; g++) {
      LLVMValueRef phi = LLVMBuildPhi(b, type, "varying_sum.exit");
      for (unsigned i = 0; i < LLVMCountIncoming(old); i++) {
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(old, i);
        LLVMValueRef in = LLVMGetIncomingValue(old, i) == r->sum ? phis[g] : tops[g];
        LLVMAddIncoming(phi, &in, &from, 1);
      }
      arrput(ends_here, phi);
    }
    LLVMPositionBuilderBefore(b, kn_first_non_phi(exit));
    for (int g = 0; g < groups; g++)
      value = LLVMBuildFAdd(b, value, LLVMBuildFMul(b, coef[g], ends_here[g], ""), "");
    LLVMReplaceAllUsesWith(old, value);
    LLVMInstructionEraseFromParent(old);
    arrfree(ends_here);
  }
  arrfree(exits);
  arrfree(first);
  arrfree(coef);
  arrfree(phis);
  arrfree(tops);
  LLVMDisposeBuilder(b);
}

static bool is_scalar_float(LLVMValueRef v) {
  LLVMTypeKind kind = LLVMGetTypeKind(LLVMTypeOf(v));
  return kind == LLVMFloatTypeKind || kind == LLVMDoubleTypeKind;
}

/* The float phis of the loops' headers: the sums there may be. */
static LLVMValueRef *candidate_sums(Loop *loop) {
  LLVMValueRef *sums = NULL;
  for (LLVMValueRef phi = LLVMGetFirstInstruction(loop->header); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi))
    if (is_scalar_float(phi))
      arrput(sums, phi);
  return sums;
}

/* Most reverse sweeps carry no float around a loop: they skip the loop
 * pipeline (every kernel of a CUDA program gets reverse kernels). */
static bool has_candidates(LLVMValueRef fn) {
  Cfg *cfg = cfg_build(fn);
  Loop *loops = cfg_loops(cfg);
  bool any = false;
  for (ptrdiff_t l = 0; l < arrlen(loops) && !any; l++) {
    LLVMValueRef *sums = candidate_sums(&loops[l]);
    any = arrlen(sums) > 0;
    arrfree(sums);
  }
  cfg_free(cfg);
  return any;
}

void rev_factor_reductions(LLVMValueRef fn) {
  if (!has_candidates(fn))
    return;
  simplify_loops_for_factoring(fn);
  Cfg *cfg = cfg_build(fn);
  Loop *loops = cfg_loops(cfg);
  bool changed = false;
  for (ptrdiff_t l = 0; l < arrlen(loops); l++) {
    Loop *loop = &loops[l];
    if (!loop->latch || !loop->preheader)
      continue;
    LLVMValueRef *sums = candidate_sums(loop);
    for (ptrdiff_t i = 0; i < arrlen(sums); i++) {
      Reduction r;
      ValueSet seen = {0};
      if (find_reduction(loop, sums[i], &r) && exits_are_lcssa(loop, &r) && only_numbers(sums[i], &seen)) {
        rewrite(loop, &r);
        changed = true;
      }
      vset_free(&seen);
      reduction_free(&r);
    }
    arrfree(sums);
  }
  cfg_free(cfg);
  if (changed)
    simplify_after(fn);
}
