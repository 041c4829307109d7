/* Kernel parameters that are structs passed by value (clang's `byval`
 * pointers): `__global__ void k(Params p, float *out)`.
 *
 * A derivative kernel takes such a parameter, then its shadow struct by
 * value: pointer fields hold the fields' shadows (tangents), float fields
 * their tangents in forward kernels; reverse kernels take one more, a
 * pointer to a struct of the same layout in device memory (NULL: not
 * wanted) into which every thread adds the adjoints of the float fields,
 * at their offsets (runtime/kinase_cuda.h). The runtime learns which
 * eight-byte words are pointers, to give null shadows of Const fields a
 * zeroed scratch shadow, from the words the kernel info appends.
 */
#include "kinase.h"
#include "../../runtime/kinase_cuda.h"

#include <stb/stb_ds.h>
#include <string.h>

/* A struct of more fields than this is left to its members being passed
 * one by one: every float field costs an atomic add per thread. */
#define MAX_FLOAT_FIELDS 64

static unsigned byval_kind(void) { return LLVMGetEnumAttributeKindForName("byval", 5); }

LLVMTypeRef cuda_byval_type(LLVMValueRef fn, unsigned i) {
  LLVMAttributeRef byval = LLVMGetEnumAttributeAtIndex(fn, i + 1, byval_kind());
  return byval ? LLVMGetTypeAttributeValue(byval) : NULL;
}

void cuda_copy_byval_attributes(LLVMValueRef from, unsigned from_index, LLVMValueRef to,
                                unsigned to_index) {
  unsigned align = LLVMGetEnumAttributeKindForName("align", 5);
  LLVMAttributeRef kept[] = {LLVMGetEnumAttributeAtIndex(from, from_index + 1, byval_kind()),
                             LLVMGetEnumAttributeAtIndex(from, from_index + 1, align)};
  for (size_t k = 0; k < sizeof kept / sizeof *kept; k++)
    if (kept[k])
      LLVMAddAttributeAtIndex(to, to_index + 1, kept[k]);
}

/* cuda_fp16.h's and cuda_bf16.h's types are structs of 16-bit integers
 * that Kinase reads as half and bfloat16 (rules/asm.c): one field each. */
static bool is_half_struct(LLVMTypeRef type) {
  const char *name = LLVMGetStructName(type);
  return name && (strstr(name, "__half") || strstr(name, "__nv_bfloat16"));
}

static void leaves(LLVMTypeRef type, TypeLeaf **out) { kn_type_leaves(type, 0, is_half_struct, out); }

const char *cuda_struct_unsupported(LLVMTypeRef type) {
  TypeLeaf *all = NULL;
  leaves(type, &all);
  const char *why = NULL;
  unsigned floats = 0;
  for (ptrdiff_t k = 0; k < arrlen(all) && !why; k++) {
    LLVMTypeRef t = all[k].type;
    floats += kn_is_float_or_double(t);
    if (is_half_struct(t) || (kn_type_has_floats(t) && !kn_is_float_or_double(t)))
      why = "it takes a struct by value with a field of half, bfloat16 or vector type, which "
            "Kinase does not differentiate in kernel parameters yet: pass that field as a "
            "parameter of its own";
  }
  if (!why && (floats > MAX_FLOAT_FIELDS || arrlen(all) > KN_MAX_LEAVES))
    why = "it takes a struct by value with more than 64 float fields: pass its arrays through "
          "pointers";
  if (!why && LLVMABISizeOfType(kn_module.layout, type) > KINASE_PARAM_SIZE)
    why = "it takes a struct by value larger than 64 KB";
  arrfree(all);
  return why;
}

void cuda_struct_pointer_words(LLVMTypeRef type, uint32_t **words) {
  uint64_t size = LLVMABISizeOfType(kn_module.layout, type);
  ptrdiff_t first = arrlen(*words);
  for (uint64_t w = 0; w < KINASE_STRUCT_POINTER_WORDS(size); w++)
    arrput(*words, 0);
  TypeLeaf *all = NULL;
  leaves(type, &all);
  for (ptrdiff_t k = 0; k < arrlen(all); k++)
    if (kn_is_pointer_type(all[k].type) && all[k].offset % 8 == 0)
      (*words)[first + (ptrdiff_t)(all[k].offset / 256)] |= 1u << (all[k].offset / 8 % 32);
  arrfree(all);
}

static LLVMValueRef field_at(LLVMBuilderRef b, LLVMValueRef base, uint64_t offset) {
  LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), offset, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx), base, &index, 1, "");
}

LLVMValueRef cuda_struct_shadow_copy(LLVMBuilderRef b, LLVMValueRef shadow_param, LLVMTypeRef type,
                                     bool clear_floats) {
  LLVMValueRef copy = LLVMBuildAlloca(b, type, "shadow.struct");
  unsigned align = LLVMABIAlignmentOfType(kn_module.layout, type);
  LLVMSetAlignment(copy, align);
  LLVMBuildMemCpy(b, copy, align, shadow_param, align,
                  LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx),
                               LLVMABISizeOfType(kn_module.layout, type), 0));
  TypeLeaf *all = NULL;
  leaves(type, &all);
  for (ptrdiff_t k = 0; k < arrlen(all) && clear_floats; k++)
    if (kn_is_float_or_double(all[k].type))
      LLVMBuildStore(b, LLVMConstNull(all[k].type), field_at(b, copy, all[k].offset));
  arrfree(all);
  return copy;
}

void cuda_struct_accumulate(LLVMBuilderRef b, LLVMValueRef shadow, LLVMTypeRef type,
                            LLVMValueRef accumulator) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef add = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "accumulate.fields");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "next");
  LLVMBuildCondBr(b, LLVMBuildIsNotNull(b, accumulator, ""), add, next);
  LLVMPositionBuilderAtEnd(b, add);
  TypeLeaf *all = NULL;
  leaves(type, &all);
  for (ptrdiff_t k = 0; k < arrlen(all); k++) {
    if (!kn_is_float_or_double(all[k].type))
      continue;
    LLVMValueRef adjoint = LLVMBuildLoad2(b, all[k].type, field_at(b, shadow, all[k].offset), "");
    LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd, field_at(b, accumulator, all[k].offset), adjoint,
                       LLVMAtomicOrderingMonotonic, 0);
  }
  arrfree(all);
  LLVMBuildBr(b, next);
  LLVMPositionBuilderAtEnd(b, next);
}
