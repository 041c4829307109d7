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

/* Whether splitting v would find an invariant factor (or a sign): a
 * product of varying values alone is kept whole, already computed (the r*r*r
 * of a derivative of rsqrt), not multiplied out again term by term. */
static bool has_invariant_factor(Loop *loop, LLVMValueRef v, int depth) {
  if (!in_loop(loop, v))
    return is_invariant(loop, v);
  if (depth >= 8)
    return false;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMFMul:
    return has_invariant_factor(loop, LLVMGetOperand(v, 0), depth + 1) ||
           has_invariant_factor(loop, LLVMGetOperand(v, 1), depth + 1);
  case LLVMFAdd:
    return LLVMGetOperand(v, 0) == LLVMGetOperand(v, 1);
  case LLVMFNeg:
    return true;
  case LLVMFDiv:
    return is_invariant(loop, LLVMGetOperand(v, 1)) || has_invariant_factor(loop, LLVMGetOperand(v, 0), depth + 1);
  default:
    return false;
  }
}

/* Splits v into factors through multiplications, doublings, negations and
 * divisions by invariants, down to a few levels. */
static void split(Loop *loop, LLVMValueRef v, Monomial *m, int depth) {
  if (in_loop(loop, v) && depth < 8) {
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMFMul:
      if (!has_invariant_factor(loop, v, depth))
        break;
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

/* A sum carried around the loop: the header phi `sum` and the values that
 * carry it, its members: links, each adding terms to one member, and the
 * loop's other phis, which merge members (a branch that adds nothing:
 * `if (j == i) continue;`). */
typedef struct {
  LLVMValueRef value;
  LLVMValueRef below;          /* a link's member it adds to; NULL for phis */
  ptrdiff_t first_term, terms; /* a link's monomials in Reduction.terms */
} Member;

typedef struct {
  LLVMValueRef sum, init;
  Member *members; /* the sum first */
  Monomial *terms;
} Reduction;

static void reduction_free(Reduction *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->terms); i++)
    monomial_free(&r->terms[i]);
  arrfree(r->terms);
  arrfree(r->members);
}

static ptrdiff_t member_index(const Reduction *r, LLVMValueRef v) {
  for (ptrdiff_t i = 0; i < arrlen(r->members); i++)
    if (r->members[i].value == v)
      return i;
  return -1;
}

enum { MAX_TERMS = 64 };

/* A product (or a sum of products) computed in the loop: not a difference
 * of data and a parameter like x[k] - mu, which stays one factor. */
static bool is_product(Loop *loop, LLVMValueRef v) {
  if (!in_loop(loop, v))
    return false;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMFMul:
  case LLVMFNeg:
  case LLVMFDiv:
    return true;
  case LLVMFAdd:
  case LLVMFSub:
    return is_product(loop, LLVMGetOperand(v, 0)) && is_product(loop, LLVMGetOperand(v, 1));
  default:
    return false;
  }
}

/* Appends the monomials of (-1 if negative) * v: through the sums and
 * differences of the loop that hold products (a sum at the top of what an
 * iteration adds), then split into factors. A sum inside a product is not
 * multiplied out: sum (a_k - b_k) c as c (sum a_k - sum b_k) would cancel
 * what the loop subtracted term by term. */
static bool expand(Loop *loop, LLVMValueRef v, bool negative, Reduction *r, int depth) {
  if (arrlen(r->terms) >= MAX_TERMS)
    return false;
  LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : LLVMRet;
  if (in_loop(loop, v) && depth < 8 && (op == LLVMFAdd || op == LLVMFSub)) {
    LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
    if (a != b && is_product(loop, a) && is_product(loop, b))
      return expand(loop, a, negative, r, depth + 1) && expand(loop, b, negative != (op == LLVMFSub), r, depth + 1);
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

enum { MAX_MEMBERS = 64 };

/* The loop's users of each member are links or phis, found from the sum
 * on: they become members. */
static bool collect_members(Loop *loop, Reduction *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->members); i++) {
    LLVMValueRef m = r->members[i].value;
    for (LLVMUseRef u = LLVMGetFirstUse(m); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!in_loop(loop, user) || member_index(r, user) >= 0)
        continue;
      if (arrlen(r->members) >= MAX_MEMBERS)
        return false;
      if (LLVMIsAPHINode(user)) {
        if (LLVMGetInstructionParent(user) == loop->header)
          return false; /* another sum's phi */
        arrput(r->members, ((Member){user, NULL, 0, 0}));
        continue;
      }
      Member link = {user, m, arrlen(r->terms), 0};
      if (!add_terms_of(loop, user, m, r))
        return false;
      link.terms = arrlen(r->terms) - link.first_term;
      arrput(r->members, link);
    }
  }
  return true;
}

/* Every phi merges members only (the sum: and its start from outside); no
 * term is computed from a member. */
static bool members_closed(Loop *loop, Reduction *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->members); i++) {
    LLVMValueRef v = r->members[i].value;
    if (r->members[i].below)
      continue;
    for (unsigned k = 0; k < LLVMCountIncoming(v); k++) {
      LLVMValueRef in = LLVMGetIncomingValue(v, k);
      if (member_index(r, in) >= 0)
        continue;
      if (v != r->sum || r->init || loop_contains(loop, LLVMGetIncomingBlock(v, k)))
        return false;
      r->init = in;
    }
  }
  for (ptrdiff_t i = 0; i < arrlen(r->terms); i++)
    for (ptrdiff_t k = 0; k < arrlen(r->terms[i].varying); k++)
      if (member_index(r, r->terms[i].varying[k]) >= 0)
        return false;
  return r->init != NULL;
}

static bool find_reduction(Loop *loop, LLVMValueRef sum, Reduction *r) {
  *r = (Reduction){.sum = sum};
  arrput(r->members, ((Member){sum, NULL, 0, 0}));
  return collect_members(loop, r) && members_closed(loop, r) && worth_it(r);
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

/* Uses outside the loop are LCSSA phis whose every incoming value is a
 * member, coming from the loop. */
static bool exits_are_lcssa(Loop *loop, const Reduction *r) {
  for (ptrdiff_t m = 0; m < arrlen(r->members); m++)
    for (LLVMUseRef u = LLVMGetFirstUse(r->members[m].value); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (in_loop(loop, user))
        continue;
      if (!LLVMIsAPHINode(user))
        return false;
      for (unsigned i = 0; i < LLVMCountIncoming(user); i++)
        if (member_index(r, LLVMGetIncomingValue(user, i)) < 0 ||
            !loop_contains(loop, LLVMGetIncomingBlock(user, i)))
          return false;
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

/* Terms with the same sign and invariant factors share a group; returns
 * the first term of each. */
static Monomial **group_terms(Reduction *r) {
  Monomial **first = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->terms); i++) {
    Monomial *m = &r->terms[i];
    m->group = -1;
    for (ptrdiff_t g = 0; g < arrlen(first) && m->group < 0; g++)
      if (same_factors(first[g], m))
        m->group = (int)g;
    if (m->group < 0) {
      m->group = (int)arrlen(first);
      arrput(first, m);
    }
  }
  return first;
}

/* Each member gets one mirror per group: what the member adds up of that
 * group's varying factors, so that in real arithmetic
 *   member = init + sum over groups of coefficient * mirror. */
typedef struct {
  Reduction *r;
  ptrdiff_t groups;
  LLVMValueRef *mirrors; /* [member * groups + group] */
  LLVMBuilderRef b;
} Mirrors;

static LLVMValueRef *mirror_of(Mirrors *m, LLVMValueRef member) {
  return &m->mirrors[member_index(m->r, member) * m->groups];
}

static void mirror_link(Mirrors *m, const Member *link) {
  LLVMTypeRef type = LLVMTypeOf(link->value);
  LLVMValueRef *mine = mirror_of(m, link->value), *below = mirror_of(m, link->below);
  LLVMPositionBuilderBefore(m->b, link->value);
  for (ptrdiff_t g = 0; g < m->groups; g++)
    mine[g] = below[g];
  for (ptrdiff_t t = link->first_term; t < link->first_term + link->terms; t++) {
    Monomial *term = &m->r->terms[t];
    LLVMValueRef v = arrlen(term->varying) ? product(m->b, term->varying, arrlen(term->varying))
                                           : LLVMConstReal(type, 1.0);
    mine[term->group] = LLVMBuildFAdd(m->b, mine[term->group], v, "");
  }
}

/* The mirrors of a phi (a member, or an LCSSA phi of members) merge the
 * mirrors of its incoming values; the sum's start is -0, which adds
 * nothing. */
static LLVMValueRef *mirror_phis(Mirrors *m, LLVMValueRef phi, LLVMValueRef *into) {
  LLVMPositionBuilderBefore(m->b, phi);
  for (ptrdiff_t g = 0; g < m->groups; g++)
    into[g] = LLVMBuildPhi(m->b, LLVMTypeOf(phi), "varying_sum");
  return into;
}

static void fill_mirror_phis(Mirrors *m, LLVMValueRef phi, LLVMValueRef *mirrors) {
  LLVMValueRef minus_zero = LLVMConstReal(LLVMTypeOf(phi), -0.0);
  for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
    LLVMValueRef in = LLVMGetIncomingValue(phi, k);
    LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, k);
    bool member = member_index(m->r, in) >= 0;
    for (ptrdiff_t g = 0; g < m->groups; g++) {
      LLVMValueRef value = member ? mirror_of(m, in)[g] : minus_zero;
      LLVMAddIncoming(mirrors[g], &value, &from, 1);
    }
  }
}

static void *checked_calloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p)
    kn_die("out of memory");
  return p;
}

static void rewrite(Loop *loop, Reduction *r, LLVMBasicBlockRef *rpo) {
  LLVMTypeRef type = LLVMTypeOf(r->sum);
  Monomial **first = group_terms(r);
  Mirrors m = {r, arrlen(first), NULL, LLVMCreateBuilderInContext(kn_module.ctx)};
  m.mirrors = checked_calloc((size_t)(arrlen(r->members) * m.groups), sizeof *m.mirrors);
  LLVMValueRef *coef = NULL;
  LLVMPositionBuilderBefore(m.b, LLVMGetBasicBlockTerminator(loop->preheader));
  for (ptrdiff_t g = 0; g < m.groups; g++)
    arrput(coef, coefficient(m.b, type, first[g]));
  for (ptrdiff_t i = 0; i < arrlen(r->members); i++)
    if (!r->members[i].below)
      mirror_phis(&m, r->members[i].value, mirror_of(&m, r->members[i].value));
  /* Links in dominance order: the member a link adds to is mirrored first. */
  for (ptrdiff_t k = 0; k < arrlen(rpo); k++) {
    if (!loop_contains(loop, rpo[k]))
      continue;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(rpo[k]); inst; inst = LLVMGetNextInstruction(inst)) {
      ptrdiff_t i = member_index(r, inst);
      if (i >= 0 && r->members[i].below)
        mirror_link(&m, &r->members[i]);
    }
  }
  for (ptrdiff_t i = 0; i < arrlen(r->members); i++)
    if (!r->members[i].below)
      fill_mirror_phis(&m, r->members[i].value, mirror_of(&m, r->members[i].value));
  /* Each LCSSA phi of members: init + sum over groups of coef * mirror. */
  LLVMValueRef *exits = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->members); i++)
    for (LLVMUseRef u = LLVMGetFirstUse(r->members[i].value); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      bool listed = false;
      for (ptrdiff_t k = 0; k < arrlen(exits); k++)
        listed |= exits[k] == user;
      if (!in_loop(loop, user) && !listed)
        arrput(exits, user);
    }
  LLVMValueRef *at_exit = checked_calloc((size_t)m.groups, sizeof *at_exit);
  for (ptrdiff_t k = 0; k < arrlen(exits); k++) {
    LLVMValueRef old = exits[k];
    fill_mirror_phis(&m, old, mirror_phis(&m, old, at_exit));
    LLVMPositionBuilderBefore(m.b, kn_first_non_phi(LLVMGetInstructionParent(old)));
    LLVMValueRef value = r->init;
    for (ptrdiff_t g = 0; g < m.groups; g++)
      value = LLVMBuildFAdd(m.b, value, LLVMBuildFMul(m.b, coef[g], at_exit[g], ""), "");
    LLVMReplaceAllUsesWith(old, value);
    LLVMInstructionEraseFromParent(old);
  }
  free(at_exit);
  free(m.mirrors);
  arrfree(exits);
  arrfree(coef);
  arrfree(first);
  LLVMDisposeBuilder(m.b);
}

/* The float phis of the loops' headers: the sums there may be. */
static LLVMValueRef *candidate_sums(Loop *loop) {
  LLVMValueRef *sums = NULL;
  for (LLVMValueRef phi = LLVMGetFirstInstruction(loop->header); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi))
    if (kn_is_float_or_double(LLVMTypeOf(phi)))
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
  LLVMBasicBlockRef *rpo = cfg_blocks(cfg);
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
        rewrite(loop, &r, rpo);
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
