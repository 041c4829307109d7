/* Reverse mode: usefulness, a fixed point over the primal before it is
 * augmented. Separate because it is one analysis with one result,
 * r->useful, which has_adjoint (reverse.h) reads. */
#include "reverse.h"

#include <stb/stb_ds.h>

/* ---- usefulness ----
 * The other half of activity: a varied value needs an adjoint only if it
 * can influence an output, i.e. reach the returned value, memory with a
 * shadow, or a call that is differentiated as a whole. Others get no
 * reverse code at all. */

static void mark_useful(Reverse *r, LLVMValueRef v, bool *changed) {
  if ((LLVMIsAInstruction(v) || LLVMIsAArgument(v)) && vset_add(&r->useful, v))
    *changed = true;
}

static void mark_operands(Reverse *r, LLVMValueRef inst, unsigned first, unsigned count,
                          bool *changed) {
  for (unsigned i = first; i < first + count && i < (unsigned)LLVMGetNumOperands(inst); i++)
    mark_useful(r, LLVMGetOperand(inst, i), changed);
}

/* Sinks: stores into shadowed memory and calls differentiated as a whole. */
static void mark_sinks(Reverse *r, LLVMValueRef inst, bool *changed) {
  if (LLVMIsAStoreInst(inst) && is_varied(r, LLVMGetOperand(inst, 1)))
    mark_useful(r, LLVMGetOperand(inst, 0), changed);
  if (kn_is_atomic_accumulation(inst) && is_varied(r, LLVMGetOperand(inst, 0)))
    mark_useful(r, LLVMGetOperand(inst, 1), changed);
  if (!LLVMIsACallInst(inst))
    return;
  const Rule *rule = rule_for_call(inst);
  if (!rule)
    mark_operands(r, inst, 0, LLVMGetNumArgOperands(inst), changed);
}

static void mark_sources(Reverse *r, LLVMValueRef inst, bool *changed) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned first, count;
  activity_structural_operands(op, &first, &count);
  if (count) {
    mark_operands(r, inst, first, count, changed);
  } else if (rule_for_opcode(op)) {
    mark_operands(r, inst, 0, 2, changed);
  } else if (op == LLVMPHI) {
    for (unsigned i = 0, n = LLVMCountIncoming(inst); i < n; i++)
      mark_useful(r, LLVMGetIncomingValue(inst, i), changed);
  } else if (op == LLVMCall) {
    const Rule *rule = rule_for_call(inst);
    if (rule && rule->kind == RULE_MATH)
      mark_operands(r, inst, 0, rule->arg, changed);
    else if (rule && rule->kind == RULE_MODEL)
      mark_operands(r, inst, 0, LLVMGetNumArgOperands(inst), changed);
    else if (rule && rule->kind == RULE_SHUFFLE)
      mark_operands(r, inst, rule->arg, 1, changed);
  }
}

void rev_find_useful(Reverse *r) {
  bool changed = true;
  LLVMValueRef ret = r->ret_block ? LLVMGetBasicBlockTerminator(r->ret_block) : NULL;
  if (r->sig->ret_tangent && ret && LLVMGetNumOperands(ret))
    mark_useful(r, LLVMGetOperand(ret, 0), &changed);
  while (changed) {
    changed = false;
    for (ptrdiff_t k = arrlen(r->blocks) - 1; k >= 0; k--)
      for (LLVMValueRef inst = LLVMGetLastInstruction(r->blocks[k]); inst;
           inst = LLVMGetPreviousInstruction(inst)) {
        mark_sinks(r, inst, &changed);
        if (vset_has(&r->useful, inst))
          mark_sources(r, inst, &changed);
      }
  }
}
