/* Reverse mode: the loops that move what a copy moved, element by element.
 * A copy's reverse moves the adjoints of the floats it copied back to its
 * source; where the memory is an array of a record (a struct holding
 * floats of several types, or floats beside pointers: MemoryTypes), each
 * float field moves as a float of its type, and the augmented sweep copies
 * each pointer field's shadow, leaving the floats' shadows (adjoints) in
 * place. Separate because both sweeps build these functions, once per
 * element type. */
#include "reverse.h"

#include <stb/stb_ds.h>
#include <stdlib.h>

typedef enum { MOVE_ADJOINTS, MOVE_ADJOINTS_ATOMIC, COPY_POINTER_SHADOWS } Move;

/* One field of the element at `at` of each side: ddst's adjoint added into
 * dsrc and cleared, or a pointer's shadow copied from src to dst. */
static void move_field(LLVMBuilderRef b, Move move, LLVMTypeRef leaf, LLVMValueRef src, LLVMValueRef dst) {
  if (move == COPY_POINTER_SHADOWS) {
    LLVMBuildStore(b, LLVMBuildLoad2(b, leaf, src, ""), dst);
    return;
  }
  LLVMValueRef moved = LLVMBuildLoad2(b, leaf, dst, "");
  if (move == MOVE_ADJOINTS_ATOMIC)
    LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd, src, moved, LLVMAtomicOrderingMonotonic, 0);
  else
    LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, leaf, src, ""), moved, ""), src);
  LLVMBuildStore(b, LLVMConstNull(leaf), dst);
}

static bool moves_field(Move move, LLVMTypeRef leaf) {
  return move == COPY_POINTER_SHADOWS ? kn_is_pointer_type(leaf) : kn_is_float_type(leaf);
}

/* name(src, dst, bytes): `move` on each field of the elements of type
 * `element` in `bytes` (whole elements). For an overlapping memmove the
 * order matters: each element of the side read is read before it is
 * written as one of the side written, downwards when dst lies below src. */
static LLVMValueRef element_loop(const char *name, LLVMTypeRef element, Move move) {
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  LLVMTypeRef params[3] = {ptr(), ptr(), i64()};
  fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx()), params, 3, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  TypeLeaf *leaves = NULL;
  kn_type_leaves(element, 0, NULL, &leaves);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx(), fn, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx(), fn, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx(), fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef n = LLVMBuildUDiv(b, LLVMGetParam(fn, 2),
                                 const64(LLVMABISizeOfType(kn_module.layout, element)), "n");
  LLVMValueRef downwards = LLVMBuildICmp(b, LLVMIntULT, LLVMGetParam(fn, 1), LLVMGetParam(fn, 0), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, n, const64(0), ""), done, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef j = LLVMBuildPhi(b, i64(), "j");
  LLVMValueRef last = LLVMBuildSub(b, LLVMBuildSub(b, n, const64(1), ""), j, "");
  LLVMValueRef i = LLVMBuildSelect(b, downwards, last, j, "i");
  LLVMValueRef src_element = LLVMBuildGEP2(b, element, LLVMGetParam(fn, 0), &i, 1, "");
  LLVMValueRef dst_element = LLVMBuildGEP2(b, element, LLVMGetParam(fn, 1), &i, 1, "");
  for (ptrdiff_t k = 0; k < arrlen(leaves); k++) {
    if (!moves_field(move, leaves[k].type))
      continue;
    LLVMValueRef offset = const64(leaves[k].offset);
    move_field(b, move, leaves[k].type,
               LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx()), src_element, &offset, 1, ""),
               LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx()), dst_element, &offset, 1, ""));
  }
  arrfree(leaves);
  LLVMValueRef next = LLVMBuildAdd(b, j, const64(1), "");
  LLVMAddIncoming(j, (LLVMValueRef[]){const64(0), next}, (LLVMBasicBlockRef[]){entry, loop}, 2);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, next, n, ""), done, loop);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* The element's part of a name: f32 and f64 for floats, the type as LLVM
 * prints it for a record. */
static char *element_name(LLVMTypeRef element) {
  if (kn_is_float_type(element))
    return kn_strdup_printf("%s", LLVMGetTypeKind(element) == LLVMFloatTypeKind ? "f32" : "f64");
  char *printed = LLVMPrintTypeToString(element), *name = kn_strdup_printf("%s", printed);
  LLVMDisposeMessage(printed);
  return name;
}

LLVMValueRef rev_copy_adjoints_function(LLVMTypeRef element, bool atomic) {
  char *type = element_name(element);
  char *name = kn_strdup_printf("kinase.memcpy.reverse.%s%s", atomic ? "atomic." : "", type);
  LLVMValueRef fn = element_loop(name, element, atomic ? MOVE_ADJOINTS_ATOMIC : MOVE_ADJOINTS);
  free(name);
  free(type);
  return fn;
}

LLVMValueRef rev_copy_pointer_shadows_function(LLVMTypeRef record) {
  char *type = element_name(record);
  char *name = kn_strdup_printf("kinase.memcpy.shadows.%s", type);
  LLVMValueRef fn = element_loop(name, record, COPY_POINTER_SHADOWS);
  free(name);
  free(type);
  return fn;
}
