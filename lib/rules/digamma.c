/* digamma(x) = d lgamma(x) / dx, which neither libm nor libdevice has: an
 * internal function, kinase.digamma.<type>, emitted once per module and
 * float type and called by the derivatives of lgamma and tgamma.
 *
 *   x < 0    reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
 *   x < 10   recurrence: psi(x) = psi(x + 1) - 1 / x, up to 10
 *   x >= 10  asymptotic series: log x - 1/2x - sum B2k / (2k x^2k), k <= 7;
 *            the first term left out is below 5e-17 there
 * About 1e-16 absolute error times the (at most ten) terms: 1e-15 relative
 * and better, except near the roots of psi (1.4616..., and one in each
 * negative unit interval), where only the absolute error stays that small.
 * Float and half go through the double version. */
#include "kinase.h"

#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* B2k / 2k for k = 1..7, the coefficients of w^(k-1) with w = 1/x^2. */
static const double series[] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240,
                                1.0 / 132, -691.0 / 32760, 1.0 / 12};

/* log z - 1/2z - w (c1 + w (c2 + ... + w c7)), w = 1/z^2 */
static LLVMValueRef asymptotic(LLVMBuilderRef b, LLVMValueRef z) {
  LLVMTypeRef type = LLVMTypeOf(z);
  LLVMValueRef w = math_fdiv(b, math_const(type, 1.0), math_fmul(b, z, z));
  size_t n = sizeof series / sizeof *series;
  LLVMValueRef poly = math_const(type, series[n - 1]);
  for (size_t k = n - 1; k-- > 0;)
    poly = math_fadd(b, math_const(type, series[k]), math_fmul(b, w, poly));
  LLVMValueRef head = math_fsub(b, math_call(b, "log", &z, 1), math_fdiv(b, math_const(type, 0.5), z));
  return math_fsub(b, head, math_fmul(b, w, poly));
}

/* -pi / tan(pi x), the reflection's term. tan has period pi, so x is first
 * reduced to r = x - rint(x) in [-1/2, 1/2], exactly: pi r then loses
 * nothing to a large x. */
static LLVMValueRef reflection(LLVMBuilderRef b, LLVMValueRef x) {
  LLVMTypeRef type = LLVMTypeOf(x);
  LLVMValueRef r = math_fsub(b, x, math_call(b, "rint", &x, 1));
  LLVMValueRef angle = math_fmul(b, math_const(type, PI), r);
  return math_fdiv(b, math_const(type, -PI), math_call(b, "tan", &angle, 1));
}

static void add_attribute(LLVMValueRef fn, const char *name, uint64_t value) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(kn_module.ctx, kind, value));
}

/* entry -> [reflect] -> shift (loop while z < 10, acc -= 1/z) -> series */
static void build_digamma(LLVMValueRef fn, LLVMTypeRef type) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBasicBlockRef reflect = LLVMAppendBasicBlockInContext(ctx, fn, "reflect");
  LLVMBasicBlockRef shift = LLVMAppendBasicBlockInContext(ctx, fn, "shift");
  LLVMBasicBlockRef step = LLVMAppendBasicBlockInContext(ctx, fn, "step");
  LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(ctx, fn, "series");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef x = LLVMGetParam(fn, 0), zero = math_const(type, 0.0), one = math_const(type, 1.0);

  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef negative = LLVMBuildFCmp(b, LLVMRealOLT, x, zero, "negative");
  LLVMValueRef start = LLVMBuildSelect(b, negative, math_fsub(b, one, x), x, "start");
  LLVMBuildCondBr(b, negative, reflect, shift);

  LLVMPositionBuilderAtEnd(b, reflect);
  LLVMValueRef reflected = reflection(b, x);
  LLVMBuildBr(b, shift);

  LLVMPositionBuilderAtEnd(b, shift);
  LLVMValueRef z = LLVMBuildPhi(b, type, "z"), acc = LLVMBuildPhi(b, type, "acc");
  LLVMBuildCondBr(b, LLVMBuildFCmp(b, LLVMRealOLT, z, math_const(type, 10.0), ""), step, tail);

  LLVMPositionBuilderAtEnd(b, step);
  LLVMValueRef next_acc = math_fsub(b, acc, math_fdiv(b, one, z));
  LLVMValueRef next_z = math_fadd(b, z, one);
  LLVMBuildBr(b, shift);
  LLVMAddIncoming(z, (LLVMValueRef[]){start, start, next_z},
                  (LLVMBasicBlockRef[]){entry, reflect, step}, 3);
  LLVMAddIncoming(acc, (LLVMValueRef[]){zero, reflected, next_acc},
                  (LLVMBasicBlockRef[]){entry, reflect, step}, 3);

  LLVMPositionBuilderAtEnd(b, tail);
  LLVMBuildRet(b, math_fadd(b, asymptotic(b, z), acc));
  LLVMDisposeBuilder(b);
}

static LLVMValueRef digamma_function(LLVMTypeRef type) {
  char *type_name = LLVMPrintTypeToString(type);
  char *name = kn_strdup_printf("kinase.digamma.%s", type_name);
  LLVMDisposeMessage(type_name);
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (!fn) {
    fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(type, &type, 1, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    /* Pure and terminating (z grows by 1 to 10), so that calls can move,
     * merge and go when unused. */
    add_attribute(fn, "memory", 0);
    add_attribute(fn, "nounwind", 0);
    add_attribute(fn, "willreturn", 0);
    build_digamma(fn, type);
  }
  free(name);
  return fn;
}

LLVMValueRef math_digamma(LLVMBuilderRef b, LLVMValueRef x) {
  LLVMTypeRef type = LLVMTypeOf(x);
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  if (kind == LLVMVectorTypeKind || kind == LLVMScalableVectorTypeKind)
    kn_die("digamma of a vector");
  bool narrow = kind == LLVMFloatTypeKind || kind == LLVMHalfTypeKind || kind == LLVMBFloatTypeKind;
  LLVMTypeRef inner = narrow ? LLVMDoubleTypeInContext(kn_module.ctx) : type;
  LLVMValueRef arg = narrow ? LLVMBuildFPExt(b, x, inner, "") : x;
  LLVMValueRef fn = digamma_function(inner);
  LLVMValueRef psi = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &arg, 1, "");
  return narrow ? LLVMBuildFPTrunc(b, psi, type, "") : psi;
}
