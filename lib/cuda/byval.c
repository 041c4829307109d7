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

static bool is_half_struct(LLVMTypeRef type) { return kn_sixteen_bit_float(type) != NULL; }

/* __half2 and __nv_bfloat162 are not trivially copyable: host C++ passes a
 * struct holding one by address and copies the pair as one 32-bit integer,
 * through which no adjoint flows back to the host's floats. */
static bool is_half_pair(LLVMTypeRef type) {
  const char *name = LLVMGetTypeKind(type) == LLVMStructTypeKind ? LLVMGetStructName(type) : NULL;
  return name && (!strncmp(name, "struct.__half2", 14) || !strncmp(name, "struct.__nv_bfloat162", 21));
}

static bool has_half_pair(LLVMTypeRef type) {
  if (is_half_pair(type))
    return true;
  if (LLVMGetTypeKind(type) == LLVMArrayTypeKind)
    return has_half_pair(LLVMGetElementType(type));
  for (unsigned k = 0, n = LLVMGetTypeKind(type) == LLVMStructTypeKind ? LLVMCountStructElementTypes(type) : 0;
       k < n; k++)
    if (has_half_pair(LLVMStructGetTypeAtIndex(type, k)))
      return true;
  return false;
}

static void leaves(LLVMTypeRef type, TypeLeaf **out) { kn_type_leaves(type, 0, is_half_struct, out); }

/* The float type whose adjoint a field of type `leaf` carries, or NULL. */
static LLVMTypeRef field_float_type(LLVMTypeRef leaf) {
  return kn_is_float_or_double(leaf) ? leaf : kn_sixteen_bit_float(leaf);
}

const char *cuda_struct_unsupported(LLVMTypeRef type) {
  if (has_half_pair(type))
    return "it takes a __half2 or __nv_bfloat162 by value (or a struct holding one), which "
           "host C++ copies as a 32-bit integer, through which Kinase carries no derivative: "
           "pass the pair's halves as __half or __nv_bfloat16 values instead";
  TypeLeaf *all = NULL;
  leaves(type, &all);
  const char *why = NULL;
  unsigned floats = 0;
  for (ptrdiff_t k = 0; k < arrlen(all) && !why; k++) {
    LLVMTypeRef t = all[k].type;
    floats += field_float_type(t) != NULL;
    if (kn_type_has_floats(t) && !kn_is_float_or_double(t))
      why = "it takes a struct by value with a field of vector type (ext_vector_type, or a "
            "half or bfloat16 not of cuda_fp16.h or cuda_bf16.h), which Kinase does not "
            "differentiate in kernel parameters: pass that field as a parameter of its own, or "
            "as a struct of scalars (float2, __half2)";
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
  for (ptrdiff_t k = 0; k < arrlen(all) && clear_floats; k++) {
    LLVMTypeRef type = field_float_type(all[k].type);
    if (type)
      LLVMBuildStore(b, LLVMConstNull(type), field_at(b, copy, all[k].offset));
  }
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
  LLVMValueRef *addresses = NULL, *adjoints = NULL;
  leaves(type, &all);
  for (ptrdiff_t k = 0; k < arrlen(all); k++) {
    LLVMTypeRef type = field_float_type(all[k].type);
    if (!type)
      continue;
    arrput(adjoints, LLVMBuildLoad2(b, type, field_at(b, shadow, all[k].offset), ""));
    arrput(addresses, field_at(b, accumulator, all[k].offset));
  }
  cuda_add_uniform(b, addresses, adjoints, (unsigned)arrlen(adjoints));
  arrfree(all);
  arrfree(addresses);
  arrfree(adjoints);
  LLVMBuildBr(b, next);
  LLVMPositionBuilderAtEnd(b, next);
}
