/* What a struct's pointer field points to, as the module's code shows.
 *
 * A helper that grows a buffer kept in a struct (`b->data = realloc(b->data,
 * n)`) and never touches its elements says nothing of what they are; the
 * code that fills and reads the buffer through the same field, elsewhere
 * in the module, does: `b->data[i] = v` loads the field and addresses a
 * double. Read before simplification, while field addresses are still
 * GEPs over the struct's type (unoptimised code has no pointer TBAA). */
#include "kinase.h"

#include <stb/stb_ds.h>

/* Whether two GEPs address the same field of the same struct type: one
 * source type, constant indices past the first, equal. */
static bool same_field(LLVMValueRef a, LLVMValueRef b) {
  unsigned n = (unsigned)LLVMGetNumOperands(a);
  if (LLVMGetGEPSourceElementType(a) != LLVMGetGEPSourceElementType(b) || n != (unsigned)LLVMGetNumOperands(b))
    return false;
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef x = LLVMGetOperand(a, i), y = LLVMGetOperand(b, i);
    if (!LLVMIsAConstantInt(x) || !LLVMIsAConstantInt(y) ||
        LLVMConstIntGetSExtValue(x) != LLVMConstIntGetSExtValue(y))
      return false;
  }
  return true;
}

/* The type an access through the pointer `p` shows, or NULL: a typed GEP
 * over it (not bytes: that is address arithmetic), a load or a store at
 * it. */
static LLVMTypeRef access_through(LLVMValueRef user, LLVMValueRef p) {
  if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == p) {
    LLVMTypeRef type = LLVMGetGEPSourceElementType(user);
    bool bytes = LLVMGetTypeKind(type) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(type) == 8;
    return bytes ? NULL : type;
  }
  if (LLVMIsALoadInst(user))
    return LLVMTypeOf(user);
  if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p)
    return LLVMTypeOf(LLVMGetOperand(user, 0));
  return NULL;
}

LLVMTypeRef field_pointee_type(LLVMValueRef field) {
  if (!LLVMIsAGetElementPtrInst(field) || LLVMGetTypeKind(LLVMGetGEPSourceElementType(field)) != LLVMStructTypeKind)
    return NULL;
  LLVMTypeRef agreed = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef gep = LLVMGetFirstInstruction(bb); gep; gep = LLVMGetNextInstruction(gep)) {
        if (!LLVMIsAGetElementPtrInst(gep) || !same_field(gep, field))
          continue;
        for (LLVMUseRef u = LLVMGetFirstUse(gep); u; u = LLVMGetNextUse(u)) {
          LLVMValueRef load = LLVMGetUser(u);
          if (!LLVMIsALoadInst(load) || !kn_is_pointer_type(LLVMTypeOf(load)))
            continue;
          for (LLVMUseRef v = LLVMGetFirstUse(load); v; v = LLVMGetNextUse(v)) {
            LLVMTypeRef type = access_through(LLVMGetUser(v), load);
            if (type && agreed && type != agreed)
              return NULL;
            agreed = type ? type : agreed;
          }
        }
      }
  return agreed;
}
