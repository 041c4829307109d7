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
  return !kn_module.gpu && LLVMIsALoadInst(base) ? base : NULL;
}

LLVMValueRef null_shadow_guard(LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef shadow, bool writes) {
  LLVMValueRef missing = LLVMBuildIsNull(b, base, "shadow.missing");
  LLVMValueRef elsewhere = stand_in(writes ? "kinase.null_shadow.sink" : "kinase.null_shadow.zero", !writes);
  return LLVMBuildSelect(b, missing, elsewhere, shadow, "");
}
