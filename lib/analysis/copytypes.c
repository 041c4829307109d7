/* What a copy moves, noted before instcombine erases the evidence.
 *
 * Reverse mode moves the adjoints a memcpy copied element by element, and
 * copies the shadows of the pointers it moved: it needs the types the
 * copied memory holds, which it reads from the other accesses to the same
 * memory (reverse/memtypes.c). instcombine rewrites many of those accesses
 * to bytes: `getelementptr double, p, n` becomes `getelementptr i8, p, 8n`,
 * and the address of a struct's field 0 folds into the struct's. So, on
 * the copy being differentiated, once SROA has made its values registers and
 * before anything simplifies instructions, each copy is marked with the types the accesses
 * to its memory show then; the sweeps read the mark where nothing after
 * simplification says (copytypes_of). */
#include "kinase.h"

#include <stb/stb_ds.h>

static unsigned mark_kind(void) {
  return LLVMGetMDKindIDInContext(kn_module.ctx, "kinase.copytypes", 16);
}

static bool is_byte(LLVMTypeRef type) {
  return LLVMGetTypeKind(type) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(type) == 8;
}

/* The type an access to memory shows, and the address it accesses. */
static LLVMTypeRef accessed_type(LLVMValueRef inst, LLVMValueRef *at) {
  if (LLVMIsALoadInst(inst)) {
    *at = LLVMGetOperand(inst, 0);
    return LLVMTypeOf(inst);
  }
  if (LLVMIsAStoreInst(inst)) {
    *at = LLVMGetOperand(inst, 1);
    return LLVMTypeOf(LLVMGetOperand(inst, 0));
  }
  /* A GEP over bytes is address arithmetic ((char *)base + k * size in
   * generic code), not a sign of what the memory holds. */
  if (LLVMIsAGetElementPtrInst(inst) && !is_byte(LLVMGetGEPSourceElementType(inst))) {
    *at = inst;
    return LLVMGetGEPSourceElementType(inst);
  }
  if (LLVMIsAAllocaInst(inst)) {
    *at = inst;
    return LLVMGetAllocatedType(inst);
  }
  return NULL;
}

static void add_type(LLVMTypeRef **types, LLVMTypeRef type) {
  for (ptrdiff_t i = 0; i < arrlen(*types); i++)
    if ((*types)[i] == type)
      return;
  arrput(*types, type);
}

/* The types of the accesses in `fn` to the memory `call` copies. */
static LLVMTypeRef *types_of_copy(LLVMValueRef fn, LLVMValueRef call) {
  LLVMValueRef bases[2] = {kn_underlying_object(LLVMGetOperand(call, 0)),
                           kn_underlying_object(LLVMGetOperand(call, 1))};
  LLVMTypeRef *types = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef at = NULL;
      LLVMTypeRef type = accessed_type(inst, &at);
      LLVMValueRef base = at ? kn_underlying_object(at) : NULL;
      if (type && (base == bases[0] || base == bases[1]))
        add_type(&types, type);
    }
  return types;
}

void copytypes_note(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      const Rule *rule = LLVMIsACallInst(inst) ? rule_for_call(inst) : NULL;
      if (!rule || rule->kind != RULE_MEMCPY || rule->cuda)
        continue;
      LLVMTypeRef *types = types_of_copy(fn, inst);
      if (arrlen(types)) {
        /* A struct of the types stands for them all: a poison value of it
         * is the mark's one operand. */
        LLVMTypeRef all = LLVMStructTypeInContext(kn_module.ctx, types, (unsigned)arrlen(types), 0);
        LLVMMetadataRef value = LLVMValueAsMetadata(LLVMGetPoison(all));
        LLVMSetMetadata(inst, mark_kind(),
                        LLVMMetadataAsValue(kn_module.ctx, LLVMMDNodeInContext2(kn_module.ctx, &value, 1)));
      }
      arrfree(types);
    }
}

LLVMTypeRef copytypes_of(LLVMValueRef call) {
  LLVMValueRef node = LLVMGetMetadata(call, mark_kind());
  if (!node)
    return NULL;
  LLVMValueRef value;
  LLVMGetMDNodeOperands(node, &value);
  return LLVMTypeOf(value);
}
