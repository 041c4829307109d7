/* Shadows that may be null, in host code.
 *
 * A pointer loaded from memory has the shadow its slot's shadow holds, and
 * a Const pointer stored there has none to give: a std::function's closure
 * capturing `const double *w` by reference (w enzyme_const) keeps a null
 * shadow for it, as does a struct whose shadow the user left null for a
 * field that carries no derivatives. A null shadow means no derivatives
 * wanted there (as a null shadow passed to a launch does), so accesses
 * through it go elsewhere: reads to zeros, writes to a sink nobody reads.
 * A compare and a select, which stay out of loops where the pointer does;
 * device code keeps its accesses as they are. */
#include "kinase.h"

/* Room for the widest access through a shadow (a vector of 8 doubles, with
 * room to spare). */
enum { NULL_SHADOW_BYTES = 256 };

static LLVMValueRef stand_in(const char *name, bool constant) {
  LLVMValueRef g = LLVMGetNamedGlobal(kn_module.mod, name);
  if (g)
    return g;
  LLVMTypeRef type = LLVMArrayType2(LLVMInt8TypeInContext(kn_module.ctx), NULL_SHADOW_BYTES);
  g = LLVMAddGlobal(kn_module.mod, type, name);
  LLVMSetInitializer(g, LLVMConstNull(type));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, constant);
  LLVMSetAlignment(g, 64);
  return g;
}

LLVMValueRef null_shadow_base(LLVMValueRef shadow) {
  LLVMValueRef base = kn_underlying_object(shadow);
  /* So may a phi or select of such pointers (a list walked in a loop), and
   * one a callee's augmented sweep returns (the node a lookup found in a
   * hash table whose shadow buckets are null), but not fresh memory. */
  const Rule *rule = kn_is_call_site(base) ? rule_for_call(base) : NULL;
  bool fresh = rule && (rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC);
  bool loaded = LLVMIsALoadInst(base) || LLVMIsAPHINode(base) || LLVMIsASelectInst(base) ||
                LLVMIsAExtractValueInst(base) || (kn_is_call_site(base) && !fresh);
  return !kn_module.gpu && loaded ? base : NULL;
}

/* A missing shadow is null, or an address a callee computed from null (the
 * shadow of a field of a node found through null shadow buckets, returned
 * as `&node->second`): below the lowest address Linux maps
 * (vm.mmap_min_addr, 64 KiB by default and never less than 4 KiB). */
enum { NULL_SHADOW_PAGE = 4096 };

LLVMValueRef null_shadow_guard(LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef shadow, bool writes) {
  LLVMTypeRef intptr = LLVMIntPtrTypeInContext(kn_module.ctx, kn_module.layout);
  LLVMValueRef address = LLVMBuildPtrToInt(b, base, intptr, "");
  LLVMValueRef missing = LLVMBuildICmp(b, LLVMIntULT, address, LLVMConstInt(intptr, NULL_SHADOW_PAGE, 0),
                                       "shadow.missing");
  LLVMValueRef elsewhere = stand_in(writes ? "kinase.null_shadow.sink" : "kinase.null_shadow.zero", !writes);
  return LLVMBuildSelect(b, missing, elsewhere, shadow, "");
}
