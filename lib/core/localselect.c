/* Loads through a choice between locals.
 *
 * `y[i] = c ? v : zero` on __half values (structs) copies from the address
 * of the chosen local: once copytypes.c has made that copy a load, it is a
 * load through `select c, &v, &zero`, nested for nested choices. sroa
 * takes a load through one select of locals but not through a select of
 * selects, and a local left in memory gets a shadow: in a kernel's
 * derivative, one on the device heap per thread and launch. Both locals
 * are always there to read, so such a load becomes the choice between
 * loads of each, and sroa then takes the locals.
 *
 * require: simplified control flow (simplify_control), which makes the
 * phis of such addresses selects. */
#include "kinase.h"

#include <stb/stb_ds.h>

enum { MAX_DEPTH = 8 }; /* nested choices followed */

/* Whether every address `p` may be is a whole local of at least `bytes`
 * bytes: a single alloca, or a select of such. */
static bool locals_only(LLVMValueRef p, unsigned long long bytes, int depth) {
  if (LLVMIsAAllocaInst(p)) {
    LLVMValueRef count = LLVMGetOperand(p, 0);
    return LLVMIsAConstantInt(count) && LLVMConstIntGetZExtValue(count) == 1 &&
           LLVMABISizeOfType(kn_module.layout, LLVMGetAllocatedType(p)) >= bytes;
  }
  return LLVMIsASelectInst(p) && depth < MAX_DEPTH && locals_only(LLVMGetOperand(p, 1), bytes, depth + 1) &&
         locals_only(LLVMGetOperand(p, 2), bytes, depth + 1);
}

/* `load`'s value read through `p` where `b` is: the select of the values
 * through each side, each load keeping `load`'s alignment and marks. */
static LLVMValueRef load_through(LLVMBuilderRef b, LLVMValueRef load, LLVMValueRef p) {
  if (LLVMIsASelectInst(p))
    return LLVMBuildSelect(b, LLVMGetOperand(p, 0), load_through(b, load, LLVMGetOperand(p, 1)),
                           load_through(b, load, LLVMGetOperand(p, 2)), "");
  LLVMValueRef value = LLVMInstructionClone(load);
  LLVMSetOperand(value, 0, p);
  LLVMInsertIntoBuilder(b, value);
  return value;
}

static bool speculable(LLVMValueRef inst) {
  if (!LLVMIsALoadInst(inst) || LLVMGetVolatile(inst) || LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic ||
      !LLVMIsASelectInst(LLVMGetOperand(inst, 0)))
    return false;
  unsigned long long bytes = LLVMStoreSizeOfType(kn_module.layout, LLVMTypeOf(inst));
  return locals_only(LLVMGetOperand(inst, 0), bytes, 0);
}

bool local_select_loads(LLVMValueRef fn) {
  LLVMValueRef *loads = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (speculable(inst))
        arrput(loads, inst);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; k < arrlen(loads); k++) {
    LLVMPositionBuilderBefore(b, loads[k]);
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(loads[k]));
    LLVMReplaceAllUsesWith(loads[k], load_through(b, loads[k], LLVMGetOperand(loads[k], 0)));
    LLVMInstructionEraseFromParent(loads[k]);
  }
  LLVMDisposeBuilder(b);
  bool changed = arrlen(loads) > 0;
  arrfree(loads);
  return changed;
}
