/* Loads through a choice between Const memory and memory with a shadow.
 *
 * `c ? y[i] : x[j]`, x enzyme_const, is two loads on two paths in the
 * source; instcombine merges them into one load through `phi [y + i],
 * [x + j]` where the paths join, or `select c, y + i, x + j` (at -O0 too:
 * simplify_control runs it on every copy). That pointer has a shadow on
 * one side only, which the generators cannot give it (x has no shadow
 * memory), while each of the two loads alone is plain. So such a load goes
 * back to one load on each path before the copy is differentiated: into
 * the phi's predecessors, or a branch on the select's condition. Other uses
 * of such a pointer (stores, calls) stay as they are, and the generators
 * say why they cannot take them.
 *
 * require: `copy` is a copy of sig->fn, with its parameters. */
#include "kinase.h"

#include <stb/stb_ds.h>

/* Whether `object` is one of the copy's pointer parameters that the
 * signature marks Const. */
static bool is_const_parameter(const Signature *sig, LLVMValueRef copy, LLVMValueRef object) {
  for (unsigned i = 0; i < sig->nparams; i++)
    if (LLVMGetParam(copy, i) == object)
      return sig->params[i] == ACT_CONST;
  return false;
}

/* A select or phi of pointers into different memory, one of them a Const
 * parameter's. */
static bool chooses_const_memory(const Signature *sig, LLVMValueRef copy, LLVMValueRef choice) {
  if (!kn_is_pointer_type(LLVMTypeOf(choice)) || (!LLVMIsASelectInst(choice) && !LLVMIsAPHINode(choice)))
    return false;
  unsigned first = LLVMIsASelectInst(choice) ? 1 : 0, n = (unsigned)LLVMGetNumOperands(choice);
  bool constant = false, other = false;
  for (unsigned i = first; i < n; i++) {
    LLVMValueRef object = kn_underlying_object(LLVMGetOperand(choice, i));
    if (is_const_parameter(sig, copy, object))
      constant = true;
    else
      other = true;
  }
  return constant && other;
}

/* The address `address` (the choice, or a GEP of it) with `chosen` in the
 * choice's place, built where `b` is. */
static LLVMValueRef address_with(LLVMBuilderRef b, LLVMValueRef address, LLVMValueRef choice,
                                 LLVMValueRef chosen) {
  if (address == choice)
    return chosen;
  LLVMValueRef gep = LLVMInstructionClone(address);
  LLVMSetOperand(gep, 0, chosen);
  LLVMInsertIntoBuilder(b, gep);
  return gep;
}

/* `load` again where `b` is, through `chosen` in the choice's place. */
static LLVMValueRef load_with(LLVMBuilderRef b, LLVMValueRef load, LLVMValueRef choice, LLVMValueRef chosen) {
  LLVMValueRef value = LLVMInstructionClone(load);
  LLVMSetOperand(value, 0, address_with(b, LLVMGetOperand(load, 0), choice, chosen));
  LLVMInsertIntoBuilder(b, value);
  return value;
}

static LLVMValueRef load_on_side(LLVMBasicBlockRef block, LLVMBasicBlockRef join, LLVMValueRef load,
                                 LLVMValueRef select, unsigned side) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, block);
  LLVMValueRef value = load_with(b, load, select, LLVMGetOperand(select, side));
  LLVMBuildBr(b, join);
  LLVMDisposeBuilder(b);
  return value;
}

/* `load` (through `select`, or a GEP of it) becomes: branch on the
 * select's condition, one load on each side, a phi where they join. */
static void split_at_select(LLVMValueRef load, LLVMValueRef select) {
  LLVMBasicBlockRef block = LLVMGetInstructionParent(load);
  LLVMBasicBlockRef join = cfg_split_after(load, "chosen");
  LLVMBasicBlockRef on_true = LLVMInsertBasicBlockInContext(kn_module.ctx, join, "choose.true");
  LLVMBasicBlockRef on_false = LLVMInsertBasicBlockInContext(kn_module.ctx, join, "choose.false");
  LLVMValueRef values[2] = {load_on_side(on_true, join, load, select, 1),
                            load_on_side(on_false, join, load, select, 2)};
  LLVMBasicBlockRef from[2] = {on_true, on_false};
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(join));
  LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(load), "");
  LLVMAddIncoming(phi, values, from, 2);
  LLVMReplaceAllUsesWith(load, phi);
  LLVMPositionBuilderAtEnd(b, block);
  LLVMValueRef branch = LLVMBuildCondBr(b, LLVMGetOperand(select, 0), on_true, on_false);
  LLVMInstructionSetDebugLoc(branch, LLVMInstructionGetDebugLoc(load));
  LLVMInstructionSetDebugLoc(phi, LLVMInstructionGetDebugLoc(load));
  LLVMInstructionEraseFromParent(load);
  LLVMDisposeBuilder(b);
}

/* Whether `load` (through `phi`, or a GEP of it whose other operands come
 * from elsewhere) can move into the ends of the phi's predecessors: each
 * goes only to the phi's block, and nothing before the load there writes
 * memory. */
static bool movable_into_predecessors(LLVMValueRef load, LLVMValueRef phi) {
  LLVMBasicBlockRef block = LLVMGetInstructionParent(phi);
  LLVMValueRef address = LLVMGetOperand(load, 0);
  if (LLVMGetInstructionParent(load) != block)
    return false;
  for (int i = 1; address != phi && i < LLVMGetNumOperands(address); i++) {
    LLVMValueRef operand = LLVMGetOperand(address, (unsigned)i);
    if (LLVMIsAInstruction(operand) && LLVMGetInstructionParent(operand) == block)
      return false;
  }
  for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst != load; inst = LLVMGetNextInstruction(inst))
    if (LLVMIsAStoreInst(inst) || LLVMIsACallInst(inst) || LLVMIsAAtomicRMWInst(inst) ||
        LLVMIsAAtomicCmpXchgInst(inst) || LLVMIsAFenceInst(inst))
      return false;
  for (unsigned i = 0, n = LLVMCountIncoming(phi); i < n; i++)
    if (LLVMGetNumSuccessors(LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(phi, i))) != 1)
      return false;
  return true;
}

/* `load` (through `phi`, or a GEP of it) becomes one load at the end of
 * each of the phi's predecessors, and a phi of what they load. */
static void split_at_phi(LLVMValueRef load, LLVMValueRef phi) {
  unsigned n = LLVMCountIncoming(phi);
  LLVMValueRef *values = NULL;
  LLVMBasicBlockRef *from = NULL;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (unsigned i = 0; i < n; i++) {
    LLVMBasicBlockRef pred = LLVMGetIncomingBlock(phi, i);
    LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(pred));
    arrput(values, load_with(b, load, phi, LLVMGetIncomingValue(phi, i)));
    arrput(from, pred);
  }
  LLVMPositionBuilderBefore(b, phi);
  LLVMValueRef loaded = LLVMBuildPhi(b, LLVMTypeOf(load), "");
  LLVMAddIncoming(loaded, values, from, n);
  LLVMInstructionSetDebugLoc(loaded, LLVMInstructionGetDebugLoc(load));
  LLVMReplaceAllUsesWith(load, loaded);
  LLVMInstructionEraseFromParent(load);
  LLVMDisposeBuilder(b);
  arrfree(values);
  arrfree(from);
}

static bool plain_load_of(LLVMValueRef user, LLVMValueRef address) {
  return LLVMIsALoadInst(user) && LLVMGetOperand(user, 0) == address && !LLVMGetVolatile(user) &&
         LLVMGetOrdering(user) == LLVMAtomicOrderingNotAtomic;
}

/* The loads through `choice`, directly or through one GEP of it. */
static LLVMValueRef *loads_through(LLVMValueRef choice) {
  LLVMValueRef *loads = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(choice); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (plain_load_of(user, choice))
      arrput(loads, user);
    else if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == choice)
      for (LLVMUseRef g = LLVMGetFirstUse(user); g; g = LLVMGetNextUse(g))
        if (plain_load_of(LLVMGetUser(g), user))
          arrput(loads, LLVMGetUser(g));
  }
  return loads;
}

static void erase_if_unused(LLVMValueRef inst) {
  if (!LLVMGetFirstUse(inst))
    LLVMInstructionEraseFromParent(inst);
}

void split_loads_choosing_const_memory(const Signature *sig, LLVMValueRef copy) {
  LLVMValueRef *choices = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(copy); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (chooses_const_memory(sig, copy, inst))
        arrput(choices, inst);
  for (ptrdiff_t i = 0; i < arrlen(choices); i++) {
    LLVMValueRef choice = choices[i], *loads = loads_through(choice);
    for (ptrdiff_t k = 0; k < arrlen(loads); k++) {
      LLVMValueRef address = LLVMGetOperand(loads[k], 0);
      if (LLVMIsASelectInst(choice))
        split_at_select(loads[k], choice);
      else if (movable_into_predecessors(loads[k], choice))
        split_at_phi(loads[k], choice);
      if (address != choice)
        erase_if_unused(address);
    }
    arrfree(loads);
    erase_if_unused(choice);
  }
  arrfree(choices);
}
