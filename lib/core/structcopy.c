/* Copies of whole structs holding both pointers and floats (clang's memcpy
 * of a struct passed by value into the argument it builds), split into one
 * load and store per field: the generators move a pointer's shadow and a
 * float's adjoint differently, and a memcpy says neither. */
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

/* The struct type a memcpy copies whole into a local of that type, or NULL. */
static LLVMTypeRef whole_struct_copied(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  if (!callee || strncmp(kn_function_name(callee), "llvm.memcpy.", 12))
    return NULL;
  LLVMValueRef dst = kn_strip_casts(LLVMGetOperand(call, 0)), length = LLVMGetOperand(call, 2);
  if (!LLVMIsAAllocaInst(dst) || !LLVMIsAConstantInt(length))
    return NULL;
  LLVMTypeRef type = LLVMGetAllocatedType(dst);
  bool mixed = LLVMGetTypeKind(type) == LLVMStructTypeKind && kn_type_has_floats(type) &&
               kn_type_has_pointers(type);
  return mixed && LLVMABISizeOfType(kn_module.layout, type) == LLVMConstIntGetZExtValue(length) ? type : NULL;
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
