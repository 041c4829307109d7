/* Activity: which values can carry a derivative from the active inputs
 * ("varied"), found by iterating to a fixed point over the blocks. Both
 * modes share it; forward mode also lets integers loaded from shadowed
 * memory carry the shadow's bits. */
#include "kinase.h"

#include <stb/stb_ds.h>

bool activity_any_operand(ValueSet *varied, LLVMValueRef inst, unsigned first, unsigned count) {
  for (unsigned i = first; i < first + count && i < (unsigned)LLVMGetNumOperands(inst); i++)
    if (vset_has(varied, LLVMGetOperand(inst, i)))
      return true;
  return false;
}

bool activity_differentiable_type(LLVMTypeRef type) {
  return kn_type_has_floats(type) || kn_is_pointer_type(type);
}

static bool call_is_varied(ValueSet *varied, LLVMValueRef call) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  const Rule *rule = rule_for_call(call);
  if (rule) {
    switch (rule->kind) {
    case RULE_MATH:
      return activity_any_operand(varied, call, 0, rule->arg);
    case RULE_MODEL:
      return activity_any_operand(varied, call, 0, nargs);
    case RULE_ALLOC:
    case RULE_CALLOC:
    case RULE_REALLOC:
      return true;
    default:
      return false;
    }
  }
  LLVMValueRef callee = kn_called_function(call);
  const Registration *custom = registry_of(callee);
  bool differentiable = callee && (!LLVMIsDeclaration(callee) ||
                                   (custom && (custom->forward || custom->augmented)));
  return differentiable && activity_differentiable_type(LLVMTypeOf(call)) &&
         activity_any_operand(varied, call, 0, nargs);
}

void activity_structural_operands(LLVMOpcode op, unsigned *first, unsigned *count) {
  *first = 0;
  switch (op) {
  case LLVMFNeg:
  case LLVMFPExt:
  case LLVMFPTrunc:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMFreeze:
  case LLVMExtractValue:
  case LLVMExtractElement:
  case LLVMGetElementPtr:
  case LLVMLoad:
    *count = 1;
    return;
  case LLVMInsertValue:
  case LLVMInsertElement:
  case LLVMShuffleVector:
    *count = 2;
    return;
  case LLVMSelect:
    *first = 1;
    *count = 2;
    return;
  default:
    *count = 0;
  }
}

static bool inst_is_varied(ValueSet *varied, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned first, count;
  activity_structural_operands(op, &first, &count);
  if (count)
    return activity_any_operand(varied, inst, first, count);
  if (rule_for_opcode(op))
    return activity_any_operand(varied, inst, 0, 2);
  switch (op) {
  case LLVMPHI:
    for (unsigned i = 0, n = LLVMCountIncoming(inst); i < n; i++)
      if (vset_has(varied, LLVMGetIncomingValue(inst, i)))
        return true;
    return false;
  case LLVMAlloca:
    return true;
  case LLVMCall:
    return call_is_varied(varied, inst);
  default:
    return false;
  }
}

void activity_find_varied(ValueSet *varied, LLVMBasicBlockRef *blocks, bool int_bits) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (ptrdiff_t k = 0; k < arrlen(blocks); k++)
      for (LLVMValueRef inst = LLVMGetFirstInstruction(blocks[k]); inst;
           inst = LLVMGetNextInstruction(inst))
        if (!vset_has(varied, inst) && inst_is_varied(varied, inst) &&
            (int_bits || activity_differentiable_type(LLVMTypeOf(inst))))
          changed |= vset_add(varied, inst);
  }
}
