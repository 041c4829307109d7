/* Copies of whole structs holding pointers (clang's memcpy of a struct
 * passed by value into the argument it builds, a member assigned whole),
 * split into one load and store per field: the generators move a pointer's
 * shadow and a float's adjoint differently, and a memcpy says neither. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

void kn_type_leaves(LLVMTypeRef type, uint64_t offset, bool (*whole)(LLVMTypeRef), TypeLeaf **out) {
  switch (LLVMGetTypeKind(type)) {
  case LLVMStructTypeKind:
    if (whole && whole(type))
      break;
    for (unsigned k = 0, n = LLVMCountStructElementTypes(type); k < n; k++)
      kn_type_leaves(LLVMStructGetTypeAtIndex(type, k),
                     offset + LLVMOffsetOfElement(kn_module.layout, type, k), whole, out);
    return;
  case LLVMArrayTypeKind: {
    LLVMTypeRef element = LLVMGetElementType(type);
    uint64_t stride = LLVMABISizeOfType(kn_module.layout, element);
    for (uint64_t k = 0, n = LLVMGetArrayLength2(type); k < n && arrlen(*out) <= KN_MAX_LEAVES; k++)
      kn_type_leaves(element, offset + k * stride, whole, out);
    return;
  }
  default:
    break;
  }
  arrput(*out, ((TypeLeaf){type, offset}));
}

/* The type the instruction making `p` declares its memory with: a local's,
 * or the field a typed GEP addresses (a member assigned whole, as
 * std::valarray's expression templates copy the closure they hold). */
static LLVMTypeRef declared_type(LLVMValueRef p) {
  p = kn_strip_casts(p);
  if (LLVMIsAAllocaInst(p))
    return LLVMGetAllocatedType(p);
  return LLVMIsAGetElementPtrInst(p) ? kn_gep_field_type(p) : NULL;
}

/* The struct type holding pointers that a memcpy copies whole into or out
 * of memory declared with that type, or NULL. Pointers only, too: the memory
 * copied into may hold floats beside them (std::valarray's closure of two
 * closures, one of them holding a double), which the copy says nothing of. */
static LLVMTypeRef whole_struct_copied(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  if (!callee || strncmp(kn_function_name(callee), "llvm.memcpy.", 12))
    return NULL;
  LLVMValueRef length = LLVMGetOperand(call, 2);
  if (!LLVMIsAConstantInt(length))
    return NULL;
  for (unsigned k = 0; k < 2; k++) {
    LLVMTypeRef type = declared_type(LLVMGetOperand(call, k));
    bool pointers = type && LLVMGetTypeKind(type) == LLVMStructTypeKind && kn_type_has_pointers(type);
    if (pointers && LLVMABISizeOfType(kn_module.layout, type) == LLVMConstIntGetZExtValue(length))
      return type;
  }
  return NULL;
}

static LLVMValueRef byte_offset(LLVMBuilderRef b, LLVMValueRef base, uint64_t offset) {
  LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), offset, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx), base, &index, 1, "");
}

void kn_split_struct_copies(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (LLVMIsACallInst(inst) && whole_struct_copied(inst))
        arrput(calls, inst);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t c = 0; c < arrlen(calls); c++) {
    TypeLeaf *leaves = NULL;
    kn_type_leaves(whole_struct_copied(calls[c]), 0, NULL, &leaves);
    /* A struct of very many fields keeps its copy (which is then refused). */
    if (arrlen(leaves) <= KN_MAX_LEAVES) {
      LLVMPositionBuilderBefore(b, calls[c]);
      LLVMValueRef dst = LLVMGetOperand(calls[c], 0), src = LLVMGetOperand(calls[c], 1);
      for (ptrdiff_t k = 0; k < arrlen(leaves); k++) {
        LLVMValueRef value = LLVMBuildLoad2(b, leaves[k].type, byte_offset(b, src, leaves[k].offset), "");
        LLVMSetAlignment(value, 1);
        LLVMSetAlignment(LLVMBuildStore(b, value, byte_offset(b, dst, leaves[k].offset)), 1);
      }
      LLVMInstructionEraseFromParent(calls[c]);
    }
    arrfree(leaves);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
}
