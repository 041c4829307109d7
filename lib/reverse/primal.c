/* Reverse mode: primal values in the reverse sweep. A value the reverse
 * code needs comes from a counted loop's iteration (its counter, affine
 * induction variables), is recomputed (pure instructions, loads of memory
 * that stays as it was), or is recorded: read through a placeholder that
 * tape.c fills in. Separate because it is the choice between recomputing
 * and recording, made value by value; the loop counters that choice relies
 * on are added to aug here too. */
#include "reverse.h"

#include <stb/stb_ds.h>

/* ---- loops ---- */

CountedLoop *rev_counted_loop_with_header(Reverse *r, LLVMBasicBlockRef header) {
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++)
    if (r->loops[i].loop->header == header)
      return &r->loops[i];
  return NULL;
}

static bool exits_are_dedicated(Reverse *r, Loop *loop) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    if (loop_contains(loop, r->blocks[k]))
      continue;
    LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, r->blocks[k]);
    bool inside = false, outside = false;
    for (ptrdiff_t i = 0; i < arrlen(preds); i++) {
      inside |= loop_contains(loop, preds[i]);
      outside |= !loop_contains(loop, preds[i]);
    }
    if (inside && outside)
      return false;
  }
  return true;
}

/* Gives the loop a counter k (0, 1, ... per iteration) and, in each exit
 * block, a phi of its final value. */
static void count_loop(Reverse *r, Loop *loop) {
  CountedLoop counted = {.loop = loop, .reads_shadows = -1};
  LLVMPositionBuilderBeforeInstrAndDbgRecords(r->ab, LLVMGetFirstInstruction(loop->header));
  counted.counter = LLVMBuildPhi(r->ab, i64(), "iteration");
  LLVMPositionBuilderBefore(r->ab, LLVMGetBasicBlockTerminator(loop->latch));
  LLVMValueRef next = LLVMBuildAdd(r->ab, counted.counter, const64(1), "iteration.next");
  LLVMValueRef zero = const64(0);
  rev_add_incoming_per_edge(counted.counter, zero, loop->preheader);
  rev_add_incoming_per_edge(counted.counter, next, loop->latch);
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    LLVMBasicBlockRef exit = r->blocks[k];
    LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, exit);
    if (loop_contains(loop, exit) || !arrlen(preds) || !loop_contains(loop, preds[0]))
      continue;
    LLVMPositionBuilderBeforeInstrAndDbgRecords(r->ab, LLVMGetFirstInstruction(exit));
    LLVMValueRef count = LLVMBuildPhi(r->ab, i64(), "iterations");
    for (ptrdiff_t i = 0; i < arrlen(preds); i++)
      rev_add_incoming_per_edge(count, counted.counter, preds[i]);
    vmap_put(&counted.exit_count, LLVMBasicBlockAsValue(exit), count);
  }
  arrput(r->loops, counted);
}

/* Why a loop gets no counter, NULL when it gets one. */
static const char *uncountable(Reverse *r, Loop *loop) {
  if (!loop->latch)
    return "the loop is not in a form whose iterations can be counted: it has more than one "
           "edge back to its start (a continue, or several paths back)";
  if (!loop->preheader || arrlen(cfg_predecessors(r->cfg, loop->header)) != 2)
    return "the loop is not in a form whose iterations can be counted: it is entered from "
           "more than one place";
  if (!exits_are_dedicated(r, loop))
    return "the loop is not in a form whose iterations can be counted: a block it exits to "
           "is also reached from outside the loop";
  return NULL;
}

void rev_count_loops(Reverse *r) {
  Loop *loops = cfg_loops(r->cfg);
  for (ptrdiff_t i = 0; i < arrlen(loops); i++)
    if (!uncountable(r, &loops[i]))
      count_loop(r, &loops[i]);
}


static int log2_of(long long v) {
  if (v <= 0 || (v & (v - 1)))
    return -1;
  int m = 0;
  while (v >> m != 1)
    m++;
  return m;
}

/* A value the same in every iteration (a grid-stride loop's stride): from
 * before the loop, or computed in it by pure instructions from such values
 * and the thread's geometry. */
static bool invariant_in(Loop *loop, LLVMValueRef v, int depth) {
  if (LLVMIsAConstant(v) || LLVMIsAArgument(v))
    return true;
  if (!LLVMIsAInstruction(v) || depth > 8)
    return false;
  if (!loop_contains(loop, LLVMGetInstructionParent(v)))
    return true;
  if (LLVMIsAPHINode(v) || !rev_recomputable(v))
    return false;
  for (int i = 0, n = LLVMIsACallInst(v) ? 0 : LLVMGetNumOperands(v); i < n; i++)
    if (!invariant_in(loop, LLVMGetOperand(v, (unsigned)i), depth + 1))
      return false;
  return true;
}

/* What next = OP(phi, constant) makes of the induction variable. */
static bool step_of(Loop *loop, LLVMValueRef next, LLVMValueRef phi, Induction *out) {
  if (!LLVMIsAInstruction(next))
    return false;
  LLVMOpcode op = LLVMGetInstructionOpcode(next);
  if (op == LLVMAdd && LLVMGetOperand(next, 1) == phi && invariant_in(loop, LLVMGetOperand(next, 0), 0)) {
    out->kind = STEP_ADD; /* stride + i */
    out->step = LLVMGetOperand(next, 0);
    return true;
  }
  if (LLVMGetOperand(next, 0) != phi)
    return false;
  if (op == LLVMGetElementPtr)
    return LLVMGetNumOperands(next) == 2 && LLVMIsAConstantInt(LLVMGetOperand(next, 1)) &&
           (out->kind = STEP_GEP, true);
  LLVMValueRef c = LLVMGetNumOperands(next) == 2 ? LLVMGetOperand(next, 1) : NULL;
  if (c && op == LLVMAdd && !LLVMIsAConstant(c) && invariant_in(loop, c, 0)) {
    out->kind = STEP_ADD;
    out->step = c;
    return true;
  }
  if (!c || !LLVMIsAConstantInt(c))
    return false;
  long long v = LLVMConstIntGetSExtValue(c);
  int m = log2_of(v);
  static const struct {
    LLVMOpcode op;
    StepKind kind;
    bool power_of_two; /* the constant is 2^m, not m */
  } steps[] = {
      {LLVMAdd, STEP_ADD, false},  {LLVMSub, STEP_ADD, false},   {LLVMShl, STEP_SHL, false},
      {LLVMMul, STEP_SHL, true},   {LLVMLShr, STEP_LSHR, false}, {LLVMUDiv, STEP_LSHR, true},
      {LLVMAShr, STEP_ASHR, false}, {LLVMSDiv, STEP_SDIV, true},
  };
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    if (steps[i].op != op || (steps[i].power_of_two && m < 0))
      continue;
    out->kind = steps[i].kind;
    out->amount = op == LLVMSub ? -v : steps[i].power_of_two ? m : v;
    return true;
  }
  return false;
}

bool rev_induction_of(CountedLoop *loop, LLVMValueRef phi, Induction *out) {
  if (!LLVMIsAPHINode(phi) || LLVMCountIncoming(phi) != 2 || phi == loop->counter)
    return false;
  out->init = out->next = out->step = NULL;
  for (unsigned i = 0; i < 2; i++)
    if (LLVMGetIncomingBlock(phi, i) == loop->loop->preheader)
      out->init = LLVMGetIncomingValue(phi, i);
    else
      out->next = LLVMGetIncomingValue(phi, i);
  return out->init && out->next && step_of(loop->loop, out->next, phi, out);
}

/* A loop whose reverse is entered from one block: it exits to one block,
 * from one block, and no other counted loop exits there (edge_block, in
 * reverse.c, branches into the reverse through it). Values from before the
 * loop are computed there once (rev_primal), and the checks of the adds
 * moved to the iterations' ends are made there (loopadds.c). */
static LLVMBasicBlockRef single_exit(Reverse *r, Loop *loop, LLVMBasicBlockRef *exiting) {
  LLVMBasicBlockRef exit = NULL;
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    LLVMBasicBlockRef bb = r->blocks[k];
    LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, bb);
    if (loop_contains(loop, bb) || !arrlen(preds) || !loop_contains(loop, preds[0]))
      continue;
    if (exit || arrlen(preds) != 1 || vmap_get(&r->from, LLVMBasicBlockAsValue(bb)))
      return NULL;
    exit = bb;
    *exiting = preds[0];
  }
  return exit;
}

void rev_make_loop_entries(Reverse *r) {
  LLVMBasicBlockRef *exits = NULL, *exiting = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++) {
    LLVMBasicBlockRef from = NULL;
    arrput(exits, single_exit(r, r->loops[i].loop, &from));
    arrput(exiting, from);
  }
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++) {
    bool shared = false;
    for (ptrdiff_t k = 0; k < arrlen(r->loops); k++)
      shared |= k != i && exits[k] == exits[i];
    if (!exits[i] || shared)
      continue;
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev.loop.entry");
    LLVMPositionBuilderAtEnd(r->b, entry);
    LLVMBuildBr(r->b, LLVMValueAsBasicBlock(vmap_get(&r->reverse_block, LLVMBasicBlockAsValue(exiting[i]))));
    r->loops[i].rev_entry = entry;
  }
  arrfree(exits);
  arrfree(exiting);
}

void rev_resume_in(Reverse *r, LLVMBasicBlockRef block) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(block);
  if (term)
    LLVMPositionBuilderBefore(r->b, term);
  else
    LLVMPositionBuilderAtEnd(r->b, block);
}

/* ---- primal values in the reverse sweep ---- */

bool rev_recomputable(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
  case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMUDiv: case LLVMSDiv: case LLVMURem:
  case LLVMSRem: case LLVMFAdd: case LLVMFSub: case LLVMFMul: case LLVMFDiv: case LLVMFRem:
  case LLVMFNeg: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI: case LLVMFPToSI:
  case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt: case LLVMPtrToInt:
  case LLVMIntToPtr: case LLVMBitCast: case LLVMAddrSpaceCast: case LLVMGetElementPtr:
  case LLVMICmp: case LLVMFCmp: case LLVMSelect: case LLVMExtractValue: case LLVMInsertValue:
  case LLVMExtractElement: case LLVMInsertElement: case LLVMShuffleVector: case LLVMFreeze:
    return true;
  case LLVMCall: /* the same for the thread all along; a texture is read-only */
    return cuda_is_thread_geometry(inst) ||
           (LLVMIsAInlineAsm(LLVMGetCalledValue(inst)) && texture_kind(inst) == TEXTURE_FETCH);
  default:
    return false;
  }
}

/* Whether the primal writes memory other than its own stack and heap
 * allocations: then loads of arguments and globals cannot be repeated. */
bool rev_is_local_object(LLVMValueRef base) {
  if (LLVMIsAAllocaInst(base))
    return true;
  const Rule *rule = kn_is_call_site(base) ? rule_for_call(base) : NULL;
  return rule && (rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC);
}

static bool function_writes_outside(LLVMValueRef fn, ValueSet *visiting);

/* Whether `inst` writes memory other than its function's own stack and
 * heap allocations; a call of a function of the module looks inside it. */
static bool inst_writes_outside(LLVMValueRef inst, ValueSet *visiting) {
  if (LLVMIsAStoreInst(inst))
    return !rev_is_local_object(kn_underlying_object(LLVMGetOperand(inst, 1)));
  if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst))
    return true;
  if (!kn_is_call_site(inst))
    return false;
  const Rule *rule = rule_for_call(inst);
  /* The user's allocator keeps its bookkeeping in memory its arguments reach. */
  bool allocates = rule && (rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC) && !rule->foreign;
  if (rule && (rule->kind == RULE_MATH || rule->kind == RULE_MODEL || rule->kind == RULE_BARRIER ||
               rule->kind == RULE_SHUFFLE || allocates))
    return false;
  if (rule && (rule->kind == RULE_MEMCPY || rule->kind == RULE_MEMSET))
    return !rev_is_local_object(kn_underlying_object(LLVMGetOperand(inst, 0)));
  LLVMValueRef callee = kn_called_function(inst);
  if (callee && LLVMGetIntrinsicID(callee) && (!rule || rule->kind == RULE_INACTIVE))
    return false;
  if (callee && !LLVMIsDeclaration(callee) && !registry_of(callee))
    return function_writes_outside(callee, visiting);
  return true;
}

/* A function in a cycle of calls is not looked at twice: a write anywhere
 * in the cycle is found from where the walk entered it. */
static bool function_writes_outside(LLVMValueRef fn, ValueSet *visiting) {
  if (!vset_add(visiting, fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (inst_writes_outside(inst, visiting))
        return true;
  return false;
}

/* In aug: a call already turned into its callee's augmented sweep is asked
 * about the callee, whose own tape is its own allocation. */
static bool writes_outside(Reverse *r, LLVMValueRef inst) {
  if (vset_has(&r->shadow_code, inst))
    return false;
  /* A result marked enzyme_dupnoneed whose writes no read sees: they go. */
  LLVMValueRef base = LLVMIsAStoreInst(inst) ? kn_underlying_object(LLVMGetOperand(inst, 1)) : NULL;
  if (base && vset_has(&r->dropped_writes, base))
    return false;
  ValueSet visiting = {0};
  AugCall *aug = rev_aug_call_of(r, inst);
  bool writes = aug ? aug->custom_reverse || function_writes_outside(aug->sig.fn, &visiting)
                    : inst_writes_outside(inst, &visiting);
  vset_free(&visiting);
  return writes;
}

/* Stores that end the function do not count: they are made after the
 * reverse sweep (final.c). */
bool rev_memory_is_frozen(Reverse *r) {
  if (!r->sig->adjacent)
    return false;
  LLVMValueRef *finals = NULL;
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      if (!writes_outside(r, inst))
        continue;
      if (rev_final_store(r, inst)) {
        arrput(finals, inst);
        continue;
      }
      r->memory_writer = inst;
      arrfree(finals);
      return false;
    }
  r->final_stores = finals;
  return true;
}

static bool repeatable_load(Reverse *r, LLVMValueRef inst, Reason *why) {
  if (!LLVMIsALoadInst(inst) || vset_has(&r->shadow_code, inst))
    return false;
  if (LLVMGetVolatile(inst))
    return kn_because(why, "it is volatile", NULL), false;
  LLVMValueRef base = kn_underlying_object(LLVMGetOperand(inst, 0));
  if (vset_has(&r->frozen_params, base))
    return kn_because(why, "nothing writes this parameter's memory while the derivative runs", NULL), true;
  if (!LLVMIsAArgument(base) && !LLVMIsAGlobalVariable(base))
    return kn_because(why, "it reads memory the function itself may change (not a parameter's or "
                           "a global's)", NULL), false;
  if (!r->sig->adjacent)
    return kn_because(why, "its reverse sweep does not run right after the forward one (a call in "
                           "another derivative, or __enzyme_augmentfwd): memory may change "
                           "between them", NULL), false;
  /* Only the first write outside was looked for: it may be another object's. */
  LLVMValueRef written = r->memory_writer && LLVMIsAStoreInst(r->memory_writer)
                             ? kn_underlying_object(LLVMGetOperand(r->memory_writer, 1))
                             : NULL;
  if (!r->memory_frozen && written == base)
    return kn_because(why, "the function writes the memory it reads (%s) before the reverse sweep "
                           "runs", r->memory_writer), false;
  if (!r->memory_frozen)
    return kn_because(why, "the function writes memory it does not own (%s), which may "
                           "overwrite what the load read before the reverse sweep runs",
                      r->memory_writer), false;
  if (arrlen(r->final_stores))
    return kn_because(why, "the function's writes to memory not its own end it (%s): they are "
                           "made after the reverse sweep", r->final_stores[0]), true;
  return kn_because(why, "the function writes no memory but its own", NULL), true;
}

/* A library math function (not the user's, declared like one) outside
 * loops runs once per call: computing it again in
 * the reverse sweep costs less than a tape to keep it, which a function
 * called from a loop would allocate on every call. Inside a loop the tape is
 * allocated once and a record is cheaper than the call, except in device
 * code, where a tape growing with the loop lives on the small device heap
 * and memory is slower than arithmetic. */
static bool recomputable_math(LLVMValueRef v, Reason *why) {
  const Rule *rule = LLVMIsACallInst(v) ? rule_for_call(v) : NULL;
  bool library = rule && rule->kind == RULE_MATH && !registry_of(kn_called_function(v));
  for (unsigned i = 0, n = library ? LLVMGetNumArgOperands(v) : 0; i < n; i++)
    if (kn_is_pointer_type(LLVMTypeOf(LLVMGetOperand(v, i))))
      return kn_because(why, "it also writes through its pointer argument", NULL), false;
  if (library && !kn_module.gpu && cfg_on_cycle(LLVMGetInstructionParent(v)))
    return kn_because(why, "a math function called in a loop: on the host a record costs less "
                           "than calling it again", NULL), false;
  return library;
}

/* A call of a function the user marked enzyme_shouldrecompute runs again
 * in the reverse sweep instead of being recorded, where that changes
 * nothing else: a call not differentiated as a call (an augmented one
 * returns its result with its own tape) of a function of the module that
 * writes no memory but its own. That it reads the same values again is the
 * user's word, as in Enzyme. */
static bool recomputable_marked_call(Reverse *r, LLVMValueRef v, Reason *why) {
  LLVMValueRef callee = LLVMIsACallInst(v) ? kn_called_function(v) : NULL;
  const Registration *marked = registry_of(callee);
  if (!marked || !marked->recompute || LLVMIsDeclaration(callee) || rev_aug_call_of(r, v) ||
      vset_has(&r->shadow_code, v))
    return false;
  ValueSet visiting = {0};
  bool writes = function_writes_outside(callee, &visiting);
  vset_free(&visiting);
  if (writes)
    kn_because(why, "it is marked enzyme_shouldrecompute but writes memory not its own", NULL);
  return !writes;
}

/* A field of a call's result is recorded alone, not the whole result. The
 * checks set `why` for the kind of value each is about. */
static bool recompute(Reverse *r, LLVMValueRef v, Reason *why) {
  static const char calls[] = "the reverse sweep does not call functions again "
                              "(enzyme_shouldrecompute on one that only reads says it may)";
  if (LLVMIsAExtractValueInst(v) && LLVMIsACallInst(LLVMGetOperand(v, 0)) &&
      !rev_recomputable(LLVMGetOperand(v, 0)))
    return kn_because(why, calls, NULL), false;
  if (LLVMIsACallInst(v))
    kn_because(why, calls, NULL);
  return rev_recomputable(v) || repeatable_load(r, v, why) || recomputable_math(v, why) ||
         recomputable_marked_call(r, v, why);
}

LLVMValueRef rev_iteration_slot(Reverse *r, CountedLoop *loop) {
  if (!loop->slot) {
    LLVMBuilderRef entry = LLVMCreateBuilderInContext(ctx());
    LLVMPositionBuilderBefore(entry, LLVMGetFirstInstruction(LLVMValueAsBasicBlock(r->rev_entry)));
    loop->slot = LLVMBuildAlloca(entry, i64(), "iteration");
    LLVMDisposeBuilder(entry);
  }
  return loop->slot;
}

/* Loop counters and the induction variables that follow them, from the
 * iteration being reversed; NULL for other values. */
/* A shift by k*m, for the k-th iteration of a shifting induction
 * variable; LLVM's shifts by the width or more are poison, where the
 * repeated shifts of the loop had reached 0 (or the sign). */
static LLVMValueRef shifted(Reverse *r, Induction *iv, LLVMValueRef init, LLVMValueRef k) {
  LLVMTypeRef type = LLVMTypeOf(init);
  unsigned bits = LLVMGetIntTypeWidth(type);
  LLVMValueRef total = LLVMBuildMul(r->b, k, const64((unsigned long long)iv->amount), "");
  LLVMValueRef past = LLVMBuildICmp(r->b, LLVMIntUGE, total, const64(bits), "");
  LLVMValueRef amount = LLVMBuildTrunc(r->b, LLVMBuildSelect(r->b, past, const64(0), total, ""), type, "");
  LLVMValueRef sign = LLVMBuildAShr(r->b, init, LLVMConstInt(type, bits - 1, 0), "");
  LLVMValueRef value, saturated = LLVMConstNull(type);
  switch (iv->kind) {
  case STEP_SHL:
    value = LLVMBuildShl(r->b, init, amount, "");
    break;
  case STEP_LSHR:
    value = LLVMBuildLShr(r->b, init, amount, "");
    break;
  case STEP_ASHR:
    value = LLVMBuildAShr(r->b, init, amount, "");
    saturated = sign;
    break;
  default: {
    /* Division toward zero by 2^a: a negative dividend is first biased by
     * 2^a - 1, the low bits of its sign (none when a is 0). */
    LLVMValueRef nonzero = LLVMBuildICmp(r->b, LLVMIntNE, amount, LLVMConstNull(type), "");
    LLVMValueRef unbiased = LLVMBuildSelect(r->b, nonzero, amount, LLVMConstInt(type, 1, 0), "");
    LLVMValueRef bias = LLVMBuildLShr(r->b, sign, LLVMBuildSub(r->b, LLVMConstInt(type, bits, 0), unbiased, ""), "");
    bias = LLVMBuildSelect(r->b, nonzero, bias, LLVMConstNull(type), "");
    value = LLVMBuildAShr(r->b, LLVMBuildAdd(r->b, init, bias, ""), amount, "");
    break;
  }
  }
  return LLVMBuildSelect(r->b, past, saturated, value, "");
}

/* Loop counters and the induction variables that follow them, from the
 * iteration being reversed; NULL for other values. */
static LLVMValueRef counted_value(Reverse *r, LLVMValueRef v, Reason *why) {
  if (!LLVMIsAPHINode(v))
    return NULL;
  LLVMBasicBlockRef header = LLVMGetInstructionParent(v);
  CountedLoop *loop = rev_counted_loop_with_header(r, header);
  Loop *uncounted = loop ? NULL : cfg_loop_with_header(r->cfg, header);
  if (uncounted)
    kn_because(why, uncountable(r, uncounted), NULL);
  else if (!loop)
    kn_because(why, "a value merged from branches is not computed again", NULL);
  if (!loop)
    return NULL;
  Induction iv;
  if (v != loop->counter && !rev_induction_of(loop, v, &iv))
    return kn_because(why, "it changes from one iteration to the next other than by a constant step "
                           "(i + c, a pointer walking an array, a shift)", NULL), NULL;
  LLVMValueRef k = LLVMBuildLoad2(r->b, i64(), rev_iteration_slot(r, loop), "k");
  if (v == loop->counter)
    return k;
  LLVMValueRef init = rev_primal(r, iv.init);
  switch (iv.kind) {
  case STEP_ADD: {
    LLVMValueRef step = iv.step ? rev_primal(r, iv.step) : LLVMConstInt(LLVMTypeOf(v), (unsigned long long)iv.amount, 1);
    return LLVMBuildAdd(r->b, init, LLVMBuildMul(r->b, LLVMBuildTrunc(r->b, k, LLVMTypeOf(v), ""), step, ""), "");
  }
  case STEP_GEP: {
    LLVMValueRef index = LLVMBuildMul(r->b, k, LLVMBuildSExt(r->b, LLVMGetOperand(iv.next, 1), i64(), ""), "");
    return LLVMBuildGEP2(r->b, LLVMGetGEPSourceElementType(iv.next), init, &index, 1, "");
  }
  default:
    return shifted(r, &iv, init, k);
  }
}

/* The outermost loop whose reverse is being generated, that `v` is computed
 * before (its block dominates the loop's header) and whose reverse has one
 * entry block: there v is computed once per entry instead of once per
 * iteration (loads of invariant data included, which LLVM cannot hoist past
 * the adds into shadow memory that may alias them). */
static CountedLoop *loop_to_hoist_from(Reverse *r, LLVMValueRef v) {
  if (!r->hoisting)
    return NULL;
  LLVMBasicBlockRef def = LLVMGetInstructionParent(v), here = r->blocks[r->reversing];
  CountedLoop *best = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++) {
    CountedLoop *loop = &r->loops[i];
    if (loop->rev_entry && loop_contains(loop->loop, here) && !loop_contains(loop->loop, def) &&
        cfg_dominates(r->cfg, def, loop->loop->header) &&
        (!best || vset_size(&loop->loop->blocks) > vset_size(&best->loop->blocks)))
      best = loop;
  }
  return best;
}

static LLVMValueRef recomputed(Reverse *r, LLVMValueRef v) {
  LLVMValueRef value = LLVMInstructionClone(v);
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    LLVMSetOperand(value, (unsigned)i, rev_primal(r, LLVMGetOperand(v, (unsigned)i)));
  kn_drop_metadata(value);
  LLVMInsertIntoBuilder(r->b, value);
  return value;
}

static LLVMValueRef recomputed_before_loop(Reverse *r, CountedLoop *loop, LLVMValueRef v) {
  LLVMValueRef known = vmap_get(&loop->hoisted, v);
  if (known)
    return known;
  LLVMBasicBlockRef resume = LLVMGetInsertBlock(r->b), memo_block = r->memo_block;
  ValueMap memo = r->memo;
  r->memo = (ValueMap){0};
  r->memo_block = NULL;
  LLVMPositionBuilderBefore(r->b, LLVMGetBasicBlockTerminator(loop->rev_entry));
  LLVMValueRef value = recomputed(r, v);
  vmap_free(&r->memo);
  r->memo = memo;
  r->memo_block = memo_block;
  rev_resume_in(r, resume);
  vmap_put(&loop->hoisted, v, value);
  return value;
}

static void use_memo(Reverse *r) {
  LLVMBasicBlockRef here = LLVMGetInsertBlock(r->b);
  if (r->memo_block != here) {
    vmap_free(&r->memo);
    r->memo_block = here;
  }
}

/* The value `v` of aug had at the point of the forward sweep that the
 * reverse sweep's insertion point mirrors. */
LLVMValueRef rev_primal(Reverse *r, LLVMValueRef v) {
  if (LLVMIsAArgument(v)) {
    for (unsigned i = 0, n = LLVMCountParams(r->aug); i < n; i++)
      if (LLVMGetParam(r->aug, i) == v)
        return LLVMGetParam(r->rev, i);
    kn_die("argument of another function");
  }
  if (!LLVMIsAInstruction(v))
    return v;
  use_memo(r);
  LLVMValueRef known = vmap_get(&r->memo, v);
  if (known)
    return known;
  Reason why = {"it has side effects", NULL};
  LLVMValueRef value = counted_value(r, v, &why);
  if (!value && recompute(r, v, &why)) {
    if (LLVMIsALoadInst(v))
      rev_remark_recomputed(r, v, why);
    CountedLoop *loop = loop_to_hoist_from(r, v);
    value = loop ? recomputed_before_loop(r, loop, v) : recomputed(r, v);
  } else if (!value) {
    value = LLVMBuildLoad2(r->b, LLVMTypeOf(v), LLVMGetPoison(ptr()), "");
    arrput(r->placeholders, ((Placeholder){value, v, why}));
  }
  use_memo(r);
  vmap_put(&r->memo, v, value);
  return value;
}
