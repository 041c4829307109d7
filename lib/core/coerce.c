/* Values passed through the variadic __enzyme_* entry points arrive with C's
 * default promotions (float as double, char and short as int) or with the
 * types the caller declared; this converts them to what the function has. */
#include "kinase.h"

/* Aggregates and vectors of the same bytes: reinterpret them. `type` may
 * be the larger by its tail padding, so the slot is of `type`. */
static LLVMValueRef through_memory(LLVMBuilderRef b, LLVMValueRef value, LLVMTypeRef type) {
  LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
  LLVMValueRef fn = LLVMGetBasicBlockParent(here);
  LLVMBuilderRef entry = kn_entry_builder(fn);
  LLVMValueRef slot = LLVMBuildAlloca(entry, type, "coerce");
  unsigned align = LLVMABIAlignmentOfType(kn_module.layout, LLVMTypeOf(value));
  if (align > LLVMGetAlignment(slot))
    LLVMSetAlignment(slot, align);
  LLVMDisposeBuilder(entry);
  LLVMBuildStore(b, value, slot);
  return LLVMBuildLoad2(b, type, slot, "");
}

static bool is_aggregate_or_vector(LLVMTypeRef type) {
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  return kind == LLVMStructTypeKind || kind == LLVMArrayTypeKind || kind == LLVMVectorTypeKind;
}

LLVMValueRef coerce(LLVMBuilderRef b, LLVMValueRef value, LLVMTypeRef type, bool *ok) {
  LLVMTypeRef from = LLVMTypeOf(value);
  *ok = true;
  if (from == type)
    return value;
  LLVMTypeKind fk = LLVMGetTypeKind(from), tk = LLVMGetTypeKind(type);
  bool from_float = kn_is_float_type(from) && fk != LLVMVectorTypeKind;
  bool to_float = kn_is_float_type(type) && tk != LLVMVectorTypeKind;
  if (from_float && to_float)
    return LLVMBuildFPCast(b, value, type, "");
  if (fk == LLVMIntegerTypeKind && tk == LLVMIntegerTypeKind)
    return LLVMBuildIntCast2(b, value, type, 1, "");
  if (fk == LLVMPointerTypeKind && tk == LLVMPointerTypeKind)
    return LLVMBuildAddrSpaceCast(b, value, type, "");
  if (fk == LLVMIntegerTypeKind && tk == LLVMPointerTypeKind)
    return LLVMBuildIntToPtr(b, value, type, "");
  if (fk == LLVMPointerTypeKind && tk == LLVMIntegerTypeKind)
    return LLVMBuildPtrToInt(b, value, type, "");
  if (fk == LLVMVoidTypeKind || tk == LLVMVoidTypeKind) {
    *ok = false;
    return NULL;
  }
  /* Two scalars of different kinds (a double where a pointer is wanted) are
   * the caller's mistake, not one value in two shapes: reinterpreting the
   * bits would make a double the address of a shadow. */
  if (!is_aggregate_or_vector(from) && !is_aggregate_or_vector(type)) {
    *ok = false;
    return NULL;
  }
  /* The C ABI returns a struct of three floats as { <2 x float>, float },
   * four bytes longer: the same bytes up to the declared type's alignment. */
  unsigned long long from_size = LLVMABISizeOfType(kn_module.layout, from);
  unsigned long long align = LLVMABIAlignmentOfType(kn_module.layout, type);
  if ((from_size + align - 1) / align * align == LLVMABISizeOfType(kn_module.layout, type))
    return through_memory(b, value, type);
  *ok = false;
  return NULL;
}
