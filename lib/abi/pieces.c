/* Structures passed by value in the C ABI's requests. Clang passes a small
 * structure as its eightbytes, each one parameter of the function
 * (struct {CUdeviceptr out, in;}: two i64), and so in a variadic call
 * too: __enzyme_autodiff(f, enzyme_dup, s, ds) passes s's pieces, then
 * ds's. Taken one value per parameter, the marker would pair s.out with
 * s.in as its shadow. The pieces are recognised by where they come from:
 * clang loads each from the structure's local copy (or from the local
 * structure itself) at its offset, in order, just before the call. Once
 * the call's registers are taken, clang passes a further structure in
 * memory (byval) instead: its pieces are loaded from there alike. */
#include "kinase.h"

#include <string.h>

/* The byte offset of the constant GEP chain from `p` down to its local
 * slot, or false if some index is not constant or `p` is not in one. */
bool abi_offset_in_slot(LLVMValueRef p, LLVMValueRef *slot, unsigned long long *offset) {
  int64_t at = 0;
  if (!kn_constant_offset(p, slot, &at))
    return false;
  *offset = (unsigned long long)at;
  return LLVMIsAAllocaInst(*slot) != NULL;
}

/* Whether `v` loads a part of a local structure or array (smaller than
 * it), and from where. */
static bool piece_of(LLVMValueRef v, LLVMValueRef *slot, unsigned long long *offset) {
  if (!LLVMIsALoadInst(v) || !abi_offset_in_slot(LLVMGetOperand(v, 0), slot, offset))
    return false;
  LLVMTypeRef whole = LLVMGetAllocatedType(*slot);
  LLVMTypeKind kind = LLVMGetTypeKind(whole);
  return (kind == LLVMStructTypeKind || kind == LLVMArrayTypeKind) &&
         LLVMStoreSizeOfType(kn_module.layout, LLVMTypeOf(v)) < LLVMABISizeOfType(kn_module.layout, whole);
}

unsigned abi_pieces(LLVMValueRef *values, unsigned n) {
  LLVMValueRef first, slot;
  unsigned long long offset, last;
  if (!n || !piece_of(values[0], &first, &last) || last != 0)
    return 1;
  unsigned k = 1;
  while (k < n && piece_of(values[k], &slot, &offset) && slot == first && offset > last) {
    last = offset;
    k++;
  }
  return k;
}

bool abi_same_pieces(LLVMValueRef *a, LLVMValueRef *b, unsigned k) {
  LLVMValueRef slot_a, slot_b, first_b = NULL;
  unsigned long long offset_a, offset_b;
  for (unsigned i = 0; i < k; i++) {
    if (!piece_of(a[i], &slot_a, &offset_a) || !piece_of(b[i], &slot_b, &offset_b) ||
        offset_a != offset_b || LLVMTypeOf(a[i]) != LLVMTypeOf(b[i]) || slot_a == slot_b ||
        (first_b && slot_b != first_b))
      return false;
    first_b = slot_b;
  }
  return true;
}

LLVMTypeRef abi_byval_operand_type(LLVMValueRef call, LLVMValueRef value) {
  unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
  for (unsigned j = 0, n = LLVMGetNumArgOperands(call); j < n; j++) {
    LLVMAttributeRef a = LLVMGetOperand(call, j) == value ? LLVMGetCallSiteEnumAttribute(call, j + 1, kind) : NULL;
    if (a)
      return LLVMGetTypeAttributeValue(a);
  }
  return NULL;
}

unsigned abi_unpack_byval(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef value, LLVMValueRef fn, unsigned param,
                          LLVMValueRef *pieces) {
  LLVMTypeRef type = abi_byval_operand_type(call, value);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  if (!type || LLVMGetEnumAttributeAtIndex(fn, param + 1, byval))
    return 0;
  unsigned long long size = LLVMABISizeOfType(kn_module.layout, type), n = (size + 7) / 8;
  if (n > 2 || param + n > LLVMCountParams(fn))
    return 0;
  /* Each piece an eightbyte, the last one what remains of the struct. */
  for (unsigned j = 0; j < n; j++) {
    unsigned long long bytes = LLVMStoreSizeOfType(kn_module.layout, LLVMTypeOf(LLVMGetParam(fn, param + j)));
    if (j + 1 < n ? bytes != 8 : 8 * j + bytes > size)
      return 0;
  }
  LLVMTypeRef i64 = LLVMInt64TypeInContext(kn_module.ctx);
  for (unsigned j = 0; j < n; j++) {
    LLVMValueRef offset = LLVMConstInt(i64, 8 * j, 0);
    LLVMValueRef at = j ? LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx), value, &offset, 1, "") : value;
    pieces[j] = LLVMBuildLoad2(b, LLVMTypeOf(LLVMGetParam(fn, param + j)), at, "piece");
  }
  return (unsigned)n;
}

LLVMValueRef abi_marker(const char *name) {
  LLVMValueRef g = LLVMGetNamedGlobal(kn_module.mod, name);
  return g ? g : LLVMAddGlobal(kn_module.mod, LLVMInt32TypeInContext(kn_module.ctx), name);
}
