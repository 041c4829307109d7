/* What Eigen's optimisation barriers mean to a derivative.
 *
 * EIGEN_OPTIMIZATION_BARRIER(x) is empty assembly claiming to change x, so
 * that the optimiser keeps the arithmetic around it as written. Mostly it
 * guards a rounding trick: r = |a| + 2^52, barrier, r - 2^52 is |a|
 * rounded to an integer (print, hence pfloor, pceil and pround without
 * SSE4.1; the octant of psin and pcos; pexp's exponent through pfloor).
 * Differentiated as the additions they are, those roundings pass the
 * derivative of |a| on where a rounding's is zero, and exp(x) came out with
 * derivative 0: its reduced argument x - round(x / ln 2) ln 2 cancelled.
 * Elsewhere (the steps of psin's argument reduction) the barrier only
 * orders additions, and the derivative goes through.
 *
 * The assembly (rules/asm.def) becomes a call of an identity function
 * (barrier_keep), so that the simplification that follows cannot fold
 * across it either; once the copy's values are registers and constants are
 * folded, barrier_settle tells the two apart: a sum with a constant at
 * least as large as 2^(significand bits) is rounded, and goes through an
 * identity whose derivative is zero (kinase.rounded, inactive); any other
 * value is used directly. */
#include "kinase.h"

#include <math.h>
#include <stdlib.h>
#include <stb/stb_ds.h>
#include <string.h>

#define KEEP "kinase.barrier."
#define ROUNDED "kinase.rounded."

/* `prefix` and a name for `type` made of letters, digits and dots. */
static char *name_for(const char *prefix, LLVMTypeRef type) {
  char *spelled = LLVMPrintTypeToString(type), *name = kn_strdup_printf("%s%s", prefix, spelled);
  LLVMDisposeMessage(spelled);
  for (char *c = name + strlen(prefix); *c; c++)
    if (!(*c >= 'a' && *c <= 'z') && !(*c >= '0' && *c <= '9'))
      *c = '.';
  return name;
}

/* The module's function `prefix`.type taking and returning a `type`: a
 * declaration that nothing can inline or fold (the kept value, settled
 * before any code is generated), or an identity to be inlined later. */
static LLVMValueRef identity(const char *prefix, LLVMTypeRef type, bool body) {
  char *name = name_for(prefix, type);
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (!fn) {
    fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(type, &type, 1, 0));
    if (body) {
      LLVMSetLinkage(fn, LLVMInternalLinkage);
      unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
      LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
      LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "entry"));
      LLVMBuildRet(b, LLVMGetParam(fn, 0));
      LLVMDisposeBuilder(b);
    }
  }
  free(name);
  return fn;
}

LLVMValueRef barrier_keep(LLVMBuilderRef b, LLVMValueRef value) {
  LLVMValueRef fn = identity(KEEP, LLVMTypeOf(value), false);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &value, 1, "");
}

/* The significand's bits of a float type, 0 for another type. */
static int significand_bits(LLVMTypeRef type) {
  switch (LLVMGetTypeKind(type)) {
  case LLVMDoubleTypeKind: return 52;
  case LLVMFloatTypeKind: return 23;
  case LLVMHalfTypeKind: return 10;
  case LLVMBFloatTypeKind: return 7;
  default: return 0;
  }
}

/* A constant float, or a vector of them, each at least 2^bits in size. */
static bool at_least(LLVMValueRef c, int bits) {
  LLVMTypeRef type = LLVMTypeOf(c);
  unsigned n = LLVMGetTypeKind(type) == LLVMVectorTypeKind ? LLVMGetVectorSize(type) : 1;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef e = LLVMGetTypeKind(type) == LLVMVectorTypeKind ? LLVMGetAggregateElement(c, i) : c;
    LLVMBool loses;
    if (!e || !LLVMIsAConstantFP(e) || fabs(LLVMConstRealGetDouble(e, &loses)) < ldexp(1.0, bits))
      return false;
  }
  return true;
}

/* x + C that the float's precision rounds to an integer, or coarser. */
static bool is_rounding(LLVMValueRef v) {
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMFAdd)
    return false;
  LLVMTypeRef type = LLVMTypeOf(v);
  int bits = significand_bits(LLVMGetTypeKind(type) == LLVMVectorTypeKind ? LLVMGetElementType(type) : type);
  return bits && (at_least(LLVMGetOperand(v, 0), bits) || at_least(LLVMGetOperand(v, 1), bits));
}

void barrier_settle(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (callee && !strncmp(kn_function_name(callee), KEEP, strlen(KEEP)))
        arrput(calls, inst);
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
    LLVMValueRef value = LLVMGetOperand(calls[i], 0), kept = kn_called_function(calls[i]);
    if (is_rounding(value)) {
      LLVMValueRef rounded = identity(ROUNDED, LLVMTypeOf(value), true);
      registry_set_inactive(rounded);
      LLVMPositionBuilderBefore(b, calls[i]);
      value = LLVMBuildCall2(b, LLVMGlobalGetValueType(rounded), rounded, &value, 1, "rounded");
    }
    LLVMReplaceAllUsesWith(calls[i], value);
    LLVMInstructionEraseFromParent(calls[i]);
    if (!LLVMGetFirstUse(kept))
      LLVMDeleteFunction(kept);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
}
