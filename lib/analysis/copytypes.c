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
 * simplification says (copytypes_of). A copy of one scalar field, which
 * instcombine would make an untyped integer load, is made a load of the
 * field's type here, and that load is marked instead. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

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

/* An array of chars (a local `char tmp[64]`, a node's `unsigned char
 * _M_storage[16]`) is raw storage, which may hold anything: no evidence of
 * what a copy moves. */
static bool raw_bytes(LLVMTypeRef type) {
  TypeLeaf *leaves = NULL;
  kn_type_leaves(type, 0, NULL, &leaves);
  bool bytes = arrlen(leaves) > 0;
  for (ptrdiff_t i = 0; i < arrlen(leaves) && bytes; i++)
    bytes = is_byte(leaves[i].type);
  arrfree(leaves);
  return bytes;
}

static void add_type(LLVMTypeRef **types, LLVMTypeRef type) {
  if (raw_bytes(type))
    return;
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

static LLVMTypeRef passed_type(LLVMValueRef fn, unsigned param, int depth);

/* The type the accesses through the pointers loaded from the local `slot`
 * show, where they agree: a `double *buf` that unoptimised code keeps in a
 * slot, assigned in several places (null, then what a helper growing it
 * with realloc returns, typed nowhere else), and indexed as doubles. */
static LLVMTypeRef accessed_through_slot(LLVMValueRef slot) {
  LLVMTypeRef agreed = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef load = LLVMGetUser(u);
    if (!LLVMIsALoadInst(load) || !kn_is_pointer_type(LLVMTypeOf(load)))
      continue;
    for (LLVMUseRef a = LLVMGetFirstUse(load); a; a = LLVMGetNextUse(a)) {
      LLVMValueRef user = LLVMGetUser(a), at = NULL;
      LLVMTypeRef type = accessed_type(user, &at);
      bool through = LLVMIsAGetElementPtrInst(user) ? LLVMGetOperand(user, 0) == load : at == load;
      if (!type || !through)
        continue;
      if (agreed && agreed != type)
        return NULL;
      agreed = type;
    }
  }
  return agreed;
}
static LLVMTypeRef returned_type(LLVMValueRef fn, int depth);

/* The function being noted and the user's function it is a copy of: the
 * copy has no callers and no name of the source's, but calls the module's
 * functions, so a parameter of it reached through them is `original`'s. */
static struct {
  LLVMValueRef copy, original;
} noting;

/* The type of the memory at the pointer `p` as its own function declares
 * it: the field a typed GEP addresses, a local's or a global's type, what
 * the source declares a parameter as (its function's mangled name), or
 * else what the callers pass for it (through clang's slot for it in
 * unoptimised code), what a function returns, or what clang's pointer TBAA
 * says a loaded pointer points to ("p1 float"). NULL if nothing says. */
static LLVMTypeRef declared_type(LLVMValueRef p, int depth) {
  if (depth > 4)
    return NULL;
  if (LLVMIsAGetElementPtrInst(p) && !is_byte(LLVMGetGEPSourceElementType(p)))
    return kn_gep_field_type(p);
  if (LLVMIsAAllocaInst(p))
    return LLVMGetAllocatedType(p);
  if (LLVMIsAGlobalVariable(p))
    return LLVMGlobalGetValueType(p);
  const char *pointer_tbaa = LLVMIsALoadInst(p) ? kn_tbaa_access_name(p) : NULL;
  if (pointer_tbaa && !strncmp(pointer_tbaa, "p1 ", 3))
    return kn_tbaa_named_type(pointer_tbaa + 3); /* a float * variable: floats */
  if (kn_is_call_site(p) && kn_called_function(p) && !LLVMIsDeclaration(kn_called_function(p)))
    return returned_type(kn_called_function(p), depth + 1);
  if (LLVMIsAArgument(p)) {
    LLVMValueRef own = LLVMGetParamParent(p), fn = own == noting.copy ? noting.original : own;
    for (unsigned i = 0, n = LLVMCountParams(own); i < n; i++)
      if (LLVMGetParam(own, i) == p) {
        LLVMTypeRef named = param_pointee_type(fn, i);
        /* The copy stands for `original`: its callers are no step further. */
        LLVMTypeRef passed = named ? named : passed_type(fn, i, depth + (own != noting.copy));
        return passed ? passed : param_class_type(fn, i);
      }
  }
  if (LLVMIsALoadInst(p) && LLVMIsAGetElementPtrInst(LLVMGetOperand(p, 0)))
    return field_pointee_type(LLVMGetOperand(p, 0)); /* a buffer a struct's field points to */
  if (LLVMIsALoadInst(p) && LLVMIsAAllocaInst(LLVMGetOperand(p, 0))) {
    LLVMValueRef stored = NULL;
    unsigned stores = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(LLVMGetOperand(p, 0)); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == LLVMGetOperand(p, 0)) {
        stored = LLVMGetOperand(user, 0);
        stores++;
      }
    }
    LLVMTypeRef type = stores == 1 ? declared_type(stored, depth + 1) : NULL;
    return type ? type : accessed_through_slot(LLVMGetOperand(p, 0));
  }
  return NULL;
}

/* The type every return of `fn` declares what it returns with (Eigen's
 * DefaultDevice::get<float *>(p) returns p). */
static LLVMTypeRef returned_type(LLVMValueRef fn, int depth) {
  LLVMTypeRef agreed = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef ret = LLVMGetBasicBlockTerminator(bb);
    if (!ret || LLVMGetInstructionOpcode(ret) != LLVMRet)
      continue;
    LLVMTypeRef type = LLVMGetNumOperands(ret) ? declared_type(LLVMGetOperand(ret, 0), depth) : NULL;
    if (!type || (agreed && type != agreed))
      return NULL;
    agreed = type;
  }
  return agreed;
}

/* The type every call of `fn` in the module passes as parameter `param`,
 * when they all agree; NULL otherwise, or when nothing calls it. */
static LLVMTypeRef passed_type(LLVMValueRef fn, unsigned param, int depth) {
  LLVMTypeRef agreed = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef call = LLVMGetUser(u);
    if (!kn_is_call_site(call) || LLVMGetCalledValue(call) != fn || param >= LLVMGetNumArgOperands(call))
      return NULL;
    LLVMTypeRef type = declared_type(LLVMGetOperand(call, param), depth);
    if (!type || (agreed && type != agreed))
      return NULL;
    agreed = type;
  }
  return agreed;
}

/* A copy between parameters of a helper (`DSizes::operator=(const
 * std::array<long, 4> &)`) whose own code never accesses the memory: what
 * the source declares them as, or else what its callers pass. */
static void add_callers_types(LLVMValueRef call, LLVMTypeRef **types) {
  for (unsigned k = 0; k < 2; k++) {
    LLVMValueRef base = kn_underlying_object(LLVMGetOperand(call, k));
    LLVMTypeRef type = LLVMIsAArgument(base) ? declared_type(base, 0) : NULL;
    if (type)
      add_type(types, type);
  }
}

/* A copy whose own function never accesses the memory and is not called
 * directly (a request's function): what its addresses are declared as, as
 * a call gives them (std::vector<double>::data() returns a `double *`
 * field, loaded with clang's pointer TBAA, "p1 double"). */
static void add_operands_types(LLVMValueRef call, LLVMTypeRef **types) {
  for (unsigned k = 0; k < 2; k++) {
    LLVMValueRef base = kn_underlying_object(LLVMGetOperand(call, k));
    LLVMTypeRef type = LLVMIsAArgument(base) ? NULL : declared_type(base, 0);
    if (type)
      add_type(types, type);
  }
}

/* Marks `inst` with `type`: a poison value of it is the mark's one operand. */
static void mark(LLVMValueRef inst, LLVMTypeRef type) {
  LLVMMetadataRef value = LLVMValueAsMetadata(LLVMGetPoison(type));
  LLVMSetMetadata(inst, mark_kind(),
                  LLVMMetadataAsValue(kn_module.ctx, LLVMMDNodeInContext2(kn_module.ctx, &value, 1)));
}

static bool is_sixteen_bit(LLVMTypeRef type) { return kn_sixteen_bit_float(type) != NULL; }

/* The type of the one scalar field (an integer, a pointer, a float) a
 * copy of `length` bytes to or from `p` moves, as declared_type finds it;
 * NULL for anything else. A __half is one: a half (host C++ copies a
 * __half2's fields so). */
static LLVMTypeRef one_scalar_at(LLVMValueRef p, uint64_t length) {
  LLVMTypeRef type = declared_type(p, 0);
  if (!type || LLVMABISizeOfType(kn_module.layout, type) != length)
    return NULL;
  TypeLeaf *leaves = NULL;
  kn_type_leaves(type, 0, is_sixteen_bit, &leaves);
  LLVMTypeRef leaf = arrlen(leaves) == 1 ? leaves[0].type : NULL;
  arrfree(leaves);
  if (leaf && kn_sixteen_bit_float(leaf))
    leaf = kn_sixteen_bit_float(leaf);
  bool scalar = leaf && (LLVMGetTypeKind(leaf) == LLVMIntegerTypeKind || kn_is_pointer_type(leaf) ||
                         kn_is_float_type(leaf));
  return scalar ? leaf : NULL;
}

/* A leaf's float type: a __half's half, a vector's lanes' (a float2 that
 * an earlier copy made a <2 x float> load and store). */
static LLVMTypeRef leaf_float(LLVMTypeRef leaf) {
  if (LLVMGetTypeKind(leaf) == LLVMVectorTypeKind)
    leaf = LLVMGetElementType(leaf);
  return kn_sixteen_bit_float(leaf) ? kn_sixteen_bit_float(leaf) : leaf;
}

/* Where the leaves of `types` (the accesses to a copy's memory) are of one
 * float type, or integers as wide (a {float value; int index;} pair, whose
 * integer moves as a float's bits would, unchanged), and `bytes` (up to
 * 8: what instcombine makes an integer) holds several of them: a vector of
 * the floats (a float2, a __half2); else NULL. */
static LLVMTypeRef several_floats(LLVMTypeRef *types, uint64_t bytes) {
  TypeLeaf *leaves = NULL;
  for (ptrdiff_t i = 0; i < arrlen(types); i++)
    kn_type_leaves(types[i], 0, is_sixteen_bit, &leaves);
  LLVMTypeRef first = NULL;
  for (ptrdiff_t i = 0; !first && i < arrlen(leaves); i++)
    first = kn_is_float_type(leaf_float(leaves[i].type)) ? leaf_float(leaves[i].type) : NULL;
  bool same = first != NULL;
  for (ptrdiff_t i = 0; same && i < arrlen(leaves); i++) {
    LLVMTypeRef leaf = leaf_float(leaves[i].type);
    same = leaf == first || (LLVMGetTypeKind(leaf) == LLVMIntegerTypeKind &&
                             LLVMABISizeOfType(kn_module.layout, leaf) == LLVMABISizeOfType(kn_module.layout, first));
  }
  arrfree(leaves);
  uint64_t size = same ? LLVMABISizeOfType(kn_module.layout, first) : 0;
  return size && bytes <= 8 && bytes > size && bytes % size == 0 ? LLVMVectorType(first, (unsigned)(bytes / size))
                                                                 : NULL;
}

/* A copy of one scalar field (Eigen's `Index m_rows`, a std::tuple's
 * reference, which clang's implicit copy and move constructors copy with
 * memcpy, no TBAA said) becomes in instcombine an integer load and store at
 * the object's own address, the field's having folded into it, and loses
 * its mark: nothing then tells an integer from a double or a pointer. It is
 * made a load and store of the field's type here, the load marked with it.
 * So is a copy of a few floats of one type (std::fill of a float2, as
 * std::vector<float2>(n) makes), as a vector of them. False when the copy
 * is neither. */
static bool copy_as_value(LLVMValueRef call, LLVMTypeRef *types) {
  LLVMValueRef length = LLVMGetOperand(call, 2), is_volatile = LLVMGetOperand(call, 3);
  if (strncmp(kn_function_name(kn_called_function(call)), "llvm.memcpy.", 12) ||
      !LLVMIsAConstantInt(length) || LLVMConstIntGetZExtValue(is_volatile))
    return false;
  LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1);
  uint64_t bytes = LLVMConstIntGetZExtValue(length);
  LLVMTypeRef type = one_scalar_at(dst, bytes);
  if (!type)
    type = one_scalar_at(src, bytes);
  if (!type)
    type = several_floats(types, bytes);
  if (!type)
    return false;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, call);
  /* The copy's alignments stay: an atomic add into the shadow of one
   * aligned less than its size is none NVPTX can make (a __half copied by
   * value, `y[i] = x[perm[i]]`, adds its adjoint so in a kernel). */
  LLVMValueRef value = LLVMBuildLoad2(b, type, src, "");
  LLVMSetAlignment(value, kn_copy_alignment(call, 1));
  mark(value, type);
  LLVMSetAlignment(LLVMBuildStore(b, value, dst), kn_copy_alignment(call, 0));
  LLVMDisposeBuilder(b);
  return true;
}

/* Whether every use of `load` stores it: a copy of what it read. */
static bool only_stored(LLVMValueRef load) {
  for (LLVMUseRef use = LLVMGetFirstUse(load); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 0) != load)
      return false;
  }
  return LLVMGetFirstUse(load) != NULL;
}

/* An integer load only stored elsewhere (`_M_head_impl(std::forward<int>(h))`
 * in std::tuple's _Head_base at -O0, the int's field at offset 0 of its
 * struct) is a copy whose type, once instcombine folds the field's address
 * into the struct's, nothing says: the memory could as well hold a float's
 * bits. Marked with the scalar either address declares, as copy_as_value's
 * loads are. */
static void mark_integer_copy(LLVMValueRef load) {
  LLVMTypeRef type = LLVMTypeOf(load);
  if (LLVMGetTypeKind(type) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(type) <= 8 || !only_stored(load))
    return;
  uint64_t bytes = LLVMABISizeOfType(kn_module.layout, type);
  LLVMTypeRef declared = one_scalar_at(LLVMGetOperand(load, 0), bytes);
  for (LLVMUseRef use = LLVMGetFirstUse(load); use && !declared; use = LLVMGetNextUse(use))
    declared = one_scalar_at(LLVMGetOperand(LLVMGetUser(use), 1), bytes);
  if (declared)
    mark(load, declared);
}

bool copytypes_note(LLVMValueRef fn, LLVMValueRef original) {
  bool as_values = false;
  noting.copy = fn;
  noting.original = original;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb), next; inst; inst = next) {
      next = LLVMGetNextInstruction(inst);
      if (LLVMIsALoadInst(inst) && !LLVMGetMetadata(inst, mark_kind()))
        mark_integer_copy(inst);
      const Rule *rule = LLVMIsACallInst(inst) ? rule_for_call(inst) : NULL;
      if (rule && rule->kind == RULE_REALLOC && !rule->cuda) {
        /* A helper that only grows a buffer shows nothing of what it holds. */
        LLVMTypeRef old = declared_type(kn_strip_casts(LLVMGetOperand(inst, 0)), 0);
        if (old && !raw_bytes(old))
          mark(inst, old);
        continue;
      }
      if (!rule || rule->kind != RULE_MEMCPY || rule->cuda)
        continue;
      LLVMTypeRef *types = types_of_copy(fn, inst);
      if (!arrlen(types))
        add_callers_types(inst, &types);
      if (!arrlen(types))
        add_operands_types(inst, &types);
      if (copy_as_value(inst, types)) {
        LLVMInstructionEraseFromParent(inst);
        as_values = true;
      } else if (arrlen(types)) {
        /* A struct of the types stands for them all. */
        mark(inst, LLVMStructTypeInContext(kn_module.ctx, types, (unsigned)arrlen(types), 0));
      }
      arrfree(types);
    }
  noting.copy = noting.original = NULL;
  return as_values;
}

LLVMTypeRef copytypes_of(LLVMValueRef inst) {
  LLVMValueRef node = LLVMGetMetadata(inst, mark_kind());
  if (!node)
    return NULL;
  LLVMValueRef value;
  LLVMGetMDNodeOperands(node, &value);
  return LLVMTypeOf(value);
}
