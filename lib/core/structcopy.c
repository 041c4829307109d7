/* Copies of whole structs holding pointers, or floats beside other fields
 * (clang's memcpy of a struct passed by value into the argument it builds,
 * a member assigned whole, a local copy of an element), split into one load
 * and store per field: the generators move a pointer's shadow, a float's
 * adjoint and an integer differently, and a memcpy says none of it. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
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

/* The type of a parameter passed by value in memory (byval), or NULL. */
static LLVMTypeRef byval_type(LLVMValueRef param) {
  LLVMValueRef fn = LLVMGetParamParent(param);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  for (unsigned i = 0, n = LLVMCountParams(fn); i < n; i++) {
    LLVMAttributeRef attr = LLVMGetParam(fn, i) == param ? LLVMGetEnumAttributeAtIndex(fn, i + 1, byval) : NULL;
    if (attr)
      return LLVMGetTypeAttributeValue(attr);
  }
  return NULL;
}

/* The function whose copy is being split, whose name and parameter
 * attributes say what its parameters refer to. */
static LLVMValueRef splitting_original;

/* The class a reference parameter refers to (std::function's manager
 * copying the closure it is handed, `_M_create<F const&>`). */
static LLVMTypeRef referred_type(LLVMValueRef param) {
  LLVMValueRef fn = LLVMGetParamParent(param);
  for (unsigned i = 0, n = LLVMCountParams(fn); i < n && splitting_original; i++)
    if (LLVMGetParam(fn, i) == param)
      return param_class_type(splitting_original, i);
  return NULL;
}

/* The parameter unoptimised code keeps in the local `p` is loaded from
 * (its only store), or NULL. */
static LLVMValueRef param_in_slot(LLVMValueRef p) {
  LLVMValueRef slot = LLVMIsALoadInst(p) ? LLVMGetOperand(p, 0) : NULL, stored = NULL;
  for (LLVMUseRef u = slot && LLVMIsAAllocaInst(slot) ? LLVMGetFirstUse(slot) : NULL; u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot) {
      if (stored)
        return NULL;
      stored = LLVMGetOperand(user, 0);
    }
  }
  return stored && LLVMIsAArgument(stored) ? stored : NULL;
}

/* The type the value making `p` declares its memory with: a local's, the
 * field a typed GEP addresses (a member assigned whole, as std::valarray's
 * expression templates copy the closure they hold), a parameter's passed
 * by value (std::__adjust_heap's element), or the class a parameter
 * refers to. */
static LLVMTypeRef declared_type(LLVMValueRef p) {
  p = kn_strip_casts(p);
  if (LLVMIsAAllocaInst(p))
    return LLVMGetAllocatedType(p);
  if (LLVMIsAArgument(p))
    return byval_type(p) ? byval_type(p) : referred_type(p);
  if (param_in_slot(p))
    return referred_type(param_in_slot(p));
  return LLVMIsAGetElementPtrInst(p) ? kn_gep_field_type(p) : NULL;
}

/* The type of a field clang's !tbaa.struct describes by its access tag and
 * size, or NULL: a char may alias anything (a union, a byte buffer). */
static LLVMTypeRef tagged_field_type(LLVMValueRef tag, uint64_t size) {
  if (!tag || !LLVMIsAMDNode(tag) || LLVMGetMDNodeNumOperands(tag) < 1 || LLVMGetMDNodeNumOperands(tag) > 4)
    return NULL;
  LLVMValueRef ops[4];
  LLVMGetMDNodeOperands(tag, ops);
  if (!ops[0] || !LLVMIsAMDNode(ops[0]) || !LLVMGetMDNodeNumOperands(ops[0]) ||
      LLVMGetMDNodeNumOperands(ops[0]) > 16)
    return NULL;
  LLVMValueRef names[16];
  LLVMGetMDNodeOperands(ops[0], names);
  unsigned length = 0;
  const char *name = names[0] ? LLVMGetMDString(names[0], &length) : NULL;
  if (!name || strstr(name, "char"))
    return NULL;
  LLVMTypeRef type = kn_tbaa_named_type(name);
  if (type && LLVMGetTypeKind(type) != LLVMIntegerTypeKind)
    return LLVMABISizeOfType(kn_module.layout, type) == size ? type : NULL;
  return size == 1 || size == 2 || size == 4 || size == 8
             ? LLVMIntTypeInContext(kn_module.ctx, (unsigned)(8 * size))
             : NULL; /* an integer, an enum, a bool */
}

/* The fields clang's !tbaa.struct gives a copy of a struct (offset, size
 * and access tag of each, from -O1 up): what a copy between elements of a
 * container, whose addresses come from its iterators, moves. False where a
 * field's type is not known. */
static bool tagged_leaves(LLVMValueRef call, TypeLeaf **out) {
  LLVMValueRef node = LLVMGetMetadata(call, LLVMGetMDKindIDInContext(kn_module.ctx, "tbaa.struct", 11));
  unsigned n = node ? LLVMGetMDNodeNumOperands(node) : 0;
  if (!n || n % 3 || n / 3 > KN_MAX_LEAVES)
    return false;
  LLVMValueRef *ops = malloc(n * sizeof *ops);
  LLVMGetMDNodeOperands(node, ops);
  bool known = true;
  for (unsigned k = 0; k < n && known; k += 3) {
    known = LLVMIsAConstantInt(ops[k]) && LLVMIsAConstantInt(ops[k + 1]);
    LLVMTypeRef type = known ? tagged_field_type(ops[k + 2], LLVMConstIntGetZExtValue(ops[k + 1])) : NULL;
    known = type != NULL;
    if (known)
      arrput(*out, ((TypeLeaf){type, LLVMConstIntGetZExtValue(ops[k])}));
  }
  free(ops);
  return known;
}

/* Whether a copy of these fields must move each its own way: they hold
 * pointers, whose shadows move (pointers only, too: the memory copied into
 * may hold floats beside them, as std::valarray's closure of two closures,
 * one of them holding a double, does, which the copy says nothing of), or
 * floats beside fields of other types (a struct of doubles and an int id,
 * which std::sort moves whole): a copy's reverse moves the adjoints of
 * floats of one type. */
static bool fields_move_apart(const TypeLeaf *leaves) {
  bool pointers = false, floats = false, apart = false;
  for (ptrdiff_t k = 0; k < arrlen(leaves); k++) {
    pointers |= kn_is_pointer_type(leaves[k].type);
    floats |= kn_is_float_type(leaves[k].type);
    apart |= leaves[k].type != leaves[0].type;
  }
  return pointers || (floats && apart);
}

static bool is_memcpy_of_constant_length(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  return callee && !strncmp(kn_function_name(callee), "llvm.memcpy.", 12) &&
         LLVMIsAConstantInt(LLVMGetOperand(call, 2));
}

/* The function whose result `p` is, or NULL. */
static LLVMValueRef returned_by(LLVMValueRef p) {
  p = kn_strip_casts(p);
  return LLVMIsACallInst(p) ? kn_called_function(p) : NULL;
}

/* The struct type of `length` bytes that a copy anywhere in the module
 * moves the result of `fn` into or out of (an iterator's operator*, which
 * returns T&, its result copied into a local of type T), or NULL. */
static LLVMTypeRef type_copied_from(LLVMValueRef fn, uint64_t length) {
  for (LLVMUseRef u = fn ? LLVMGetFirstUse(fn) : NULL; u; u = LLVMGetNextUse(u)) {
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call) || kn_called_function(call) != fn)
      continue;
    for (LLVMUseRef c = LLVMGetFirstUse(call); c; c = LLVMGetNextUse(c)) {
      LLVMValueRef copy = LLVMGetUser(c);
      if (!LLVMIsACallInst(copy) || !is_memcpy_of_constant_length(copy) ||
          LLVMConstIntGetZExtValue(LLVMGetOperand(copy, 2)) != length)
        continue;
      for (unsigned k = 0; k < 2; k++) {
        LLVMTypeRef type = LLVMGetOperand(copy, 1 - k) == call ? declared_type(LLVMGetOperand(copy, k)) : NULL;
        if (type && LLVMGetTypeKind(type) == LLVMStructTypeKind &&
            LLVMABISizeOfType(kn_module.layout, type) == length)
          return type;
      }
    }
  }
  return NULL;
}

/* The struct type of the memory a copy moves: that of a local, a typed
 * field or a by-value parameter it copies into or out of; else what the
 * function giving one of its addresses gives in another copy (unoptimised
 * code copies one element of a container over another, both addresses
 * from the iterator's operator*, and elsewhere an element into a local). */
static LLVMTypeRef copied_type(LLVMValueRef call) {
  uint64_t length = LLVMConstIntGetZExtValue(LLVMGetOperand(call, 2));
  for (unsigned k = 0; k < 2; k++) {
    LLVMTypeRef type = declared_type(LLVMGetOperand(call, k));
    if (!type)
      type = type_copied_from(returned_by(LLVMGetOperand(call, k)), length);
    if (type && LLVMGetTypeKind(type) == LLVMStructTypeKind &&
        LLVMABISizeOfType(kn_module.layout, type) == length)
      return type;
  }
  return NULL;
}

/* The fields of a whole struct that a memcpy copies, when they must move
 * apart: its struct type is known (copied_type), or clang's !tbaa.struct
 * describes it. False otherwise. */
static bool whole_struct_copied(LLVMValueRef call, TypeLeaf **leaves) {
  arrsetlen(*leaves, 0);
  LLVMTypeRef type = copied_type(call);
  if (type) {
    kn_type_leaves(type, 0, NULL, leaves);
    if (arrlen(*leaves) <= KN_MAX_LEAVES && fields_move_apart(*leaves))
      return true;
    arrsetlen(*leaves, 0);
  }
  if (tagged_leaves(call, leaves) && fields_move_apart(*leaves))
    return true;
  arrsetlen(*leaves, 0);
  return false;
}

static LLVMValueRef byte_offset(LLVMBuilderRef b, LLVMValueRef base, uint64_t offset) {
  LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), offset, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx), base, &index, 1, "");
}

/* The alignment of `offset` bytes past a pointer aligned to `align`: the
 * pieces keep what the copy promised (unaligned, a field is moved byte by
 * byte). */
static unsigned piece_alignment(unsigned align, uint64_t offset) {
  while (offset % align)
    align /= 2;
  return align;
}

void kn_split_struct_copies(LLVMValueRef fn, LLVMValueRef original) {
  splitting_original = original;
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (LLVMIsACallInst(inst) && is_memcpy_of_constant_length(inst))
        arrput(calls, inst);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  TypeLeaf *leaves = NULL;
  for (ptrdiff_t c = 0; c < arrlen(calls); c++) {
    /* A struct of very many fields keeps its copy (which is then refused). */
    if (!whole_struct_copied(calls[c], &leaves))
      continue;
    LLVMPositionBuilderBefore(b, calls[c]);
    LLVMValueRef dst = LLVMGetOperand(calls[c], 0), src = LLVMGetOperand(calls[c], 1);
    unsigned dst_align = kn_copy_alignment(calls[c], 0), src_align = kn_copy_alignment(calls[c], 1);
    for (ptrdiff_t k = 0; k < arrlen(leaves); k++) {
      uint64_t offset = leaves[k].offset;
      LLVMValueRef value = LLVMBuildLoad2(b, leaves[k].type, byte_offset(b, src, offset), "");
      LLVMSetAlignment(value, piece_alignment(src_align, offset));
      LLVMValueRef store = LLVMBuildStore(b, value, byte_offset(b, dst, offset));
      LLVMSetAlignment(store, piece_alignment(dst_align, offset));
    }
    LLVMInstructionEraseFromParent(calls[c]);
  }
  arrfree(leaves);
  LLVMDisposeBuilder(b);
  arrfree(calls);
  splitting_original = NULL;
}
