/* Builders for the arithmetic of derivatives. Math functions become LLVM
 * intrinsics on the CPU; on NVPTX, whose backend selects only a few of them,
 * they become libdevice calls (__nv_cos, __nv_cosf, ...). */
#include "kinase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LLVMValueRef math_const(LLVMTypeRef type, double value) {
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind) {
    unsigned n = LLVMGetVectorSize(type);
    LLVMValueRef lanes[64];
    if (n > 64)
      kn_die("vector of %u lanes", n);
    LLVMValueRef lane = LLVMConstReal(LLVMGetElementType(type), value);
    for (unsigned i = 0; i < n; i++)
      lanes[i] = lane;
    return LLVMConstVector(lanes, n);
  }
  return LLVMConstReal(type, value);
}

/* `factor` * y where `factor` is 0, 1 or -1 as given by the constant arms
 * of `pick`; NULL for other operands. */
static LLVMValueRef picked_arm(LLVMBuilderRef b, LLVMValueRef factor, LLVMValueRef y) {
  if (!LLVMIsAConstantFP(factor))
    return NULL;
  LLVMBool lost;
  double k = LLVMConstRealGetDouble(factor, &lost);
  return k == 0.0 ? math_const(LLVMTypeOf(y), 0.0) : k == 1.0 ? y : k == -1.0 ? math_fneg(b, y) : NULL;
}

/* A partial that only picks an argument (min, max, fdim: a select of 0 and
 * +-1) multiplies by picking, so that a NaN or infinite derivative on the
 * side not picked does not leak through as 0 * NaN: fmax(sqrt(x*x), eps) at
 * x = 0 has the derivative 0, not NaN. */
static LLVMValueRef picking_product(LLVMBuilderRef b, LLVMValueRef pick, LLVMValueRef y) {
  if (!LLVMIsASelectInst(pick) || LLVMTypeOf(pick) != LLVMTypeOf(y))
    return NULL;
  LLVMValueRef yes = picked_arm(b, LLVMGetOperand(pick, 1), y);
  LLVMValueRef no = yes ? picked_arm(b, LLVMGetOperand(pick, 2), y) : NULL;
  return no ? LLVMBuildSelect(b, LLVMGetOperand(pick, 0), yes, no, "") : NULL;
}

/* A partial of an integer argument (the order of jn) is 0 and meets that
 * integer's tangent, which forward mode keeps as its bits: no derivative
 * flows there. The product is -0, which vanishes from the sum (t + -0 = t
 * for every t, so instcombine folds it; +0 it may not). */
LLVMValueRef math_fmul(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  if (kn_is_float_type(LLVMTypeOf(x)) && !kn_is_float_type(LLVMTypeOf(y)))
    return math_const(LLVMTypeOf(x), -0.0);
  LLVMValueRef picked = picking_product(b, x, y);
  return picked ? picked : LLVMBuildFMul(b, x, y, "");
}
LLVMValueRef math_fadd(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildFAdd(b, x, y, "");
}
LLVMValueRef math_fsub(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildFSub(b, x, y, "");
}
LLVMValueRef math_fdiv(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildFDiv(b, x, y, "");
}
LLVMValueRef math_fneg(LLVMBuilderRef b, LLVMValueRef x) { return LLVMBuildFNeg(b, x, ""); }

/* Functions the NVPTX backend lowers itself; the rest go to libdevice. On
 * the CPU, functions without an intrinsic (j0, y1) go to libm. */
static const char *const gpu_native[] = {"sqrt", "fabs", "copysign", "trunc", "floor", "fma"};

static bool gpu_has_native(const char *name) {
  for (size_t i = 0; i < sizeof gpu_native / sizeof *gpu_native; i++)
    if (!strcmp(gpu_native[i], name))
      return true;
  return false;
}

/* The type of the first float argument: the result's, and the one that picks
 * the library's spelling (jn takes its integer order first). */
static LLVMTypeRef float_operand_type(LLVMValueRef *args, unsigned nargs) {
  for (unsigned i = 0; i < nargs; i++)
    if (kn_is_float_type(LLVMTypeOf(args[i])))
      return LLVMTypeOf(args[i]);
  kn_die("math call without a float argument");
}

/* libm's suffix for a type: jnf, jn, jnl. libdevice has no long double. */
static const char *type_suffix(LLVMTypeRef type) {
  switch (LLVMGetTypeKind(type)) {
  case LLVMFloatTypeKind:
    return "f";
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind:
    return "l";
  default:
    return "";
  }
}

/* A call of prefix+name, with the suffix of its float type. */
static LLVMValueRef call_library(LLVMBuilderRef b, const char *prefix, const char *name,
                                 LLVMValueRef *args, unsigned nargs) {
  LLVMTypeRef type = float_operand_type(args, nargs);
  char *symbol = kn_strdup_printf("%s%s%s", prefix, name, type_suffix(type));
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, symbol);
  LLVMTypeRef params[4];
  for (unsigned i = 0; i < nargs; i++)
    params[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fn_type = LLVMFunctionType(type, params, nargs, 0);
  if (!fn)
    fn = LLVMAddFunction(kn_module.mod, symbol, fn_type);
  free(symbol);
  return LLVMBuildCall2(b, fn_type, fn, args, nargs, "");
}

LLVMValueRef math_call(LLVMBuilderRef b, const char *name, LLVMValueRef *args, unsigned nargs) {
  if (kn_module.gpu && !gpu_has_native(name))
    return call_library(b, "__nv_", name, args, nargs);
  char intrinsic[64];
  int len = snprintf(intrinsic, sizeof intrinsic, "llvm.%s", name);
  unsigned id = LLVMLookupIntrinsicID(intrinsic, (size_t)len);
  if (!id)
    return call_library(b, "", name, args, nargs);
  /* powi and ldexp are overloaded on their integer operand too. */
  LLVMTypeRef overloads[2] = {LLVMTypeOf(args[0]), nargs > 1 ? LLVMTypeOf(args[1]) : NULL};
  unsigned noverloads = (!strcmp(name, "powi") || !strcmp(name, "ldexp")) ? 2 : 1;
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(kn_module.mod, id, overloads, noverloads);
  LLVMTypeRef fn_type = LLVMIntrinsicGetType(kn_module.ctx, id, overloads, noverloads);
  return LLVMBuildCall2(b, fn_type, fn, args, nargs, "");
}
