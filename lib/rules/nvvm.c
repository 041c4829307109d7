/* Partial derivatives of the rows of nvvm.def that math.c has no partial
 * for: NVVM intrinsics and CUDA's fast libdevice functions. Same contract
 * as math.c: d(result)/d(args[i]) in the type of args[i], `y` the result.
 * Where the primal is approximate, so is its partial, built from the same
 * fast hardware instructions (a multiply-add or two and one MUFU op): the
 * derivative of fast code stays fast, and no more exact than the value. */
#include "partial.h"

#include <string.h>

static const double INV_LN2 = 1.44269504088896340736, INV_LN10 = 0.43429448190325182765;

/* A call of a non-overloaded NVVM intrinsic (float ones, which have no
 * double form: callers check the type). */
static LLVMValueRef nvvm_call(LLVMBuilderRef b, const char *name, LLVMValueRef *args, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id)
    kn_die("no intrinsic %s", name);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(kn_module.mod, id, NULL, 0);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static bool is_f32(LLVMValueRef v) { return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMFloatTypeKind; }

/* a / c, with div.approx in single precision (about 2 ulp, one MUFU rcp and
 * a multiply) rather than the IEEE division's subroutine. */
static LLVMValueRef approx_div(LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef c) {
  LLVMValueRef args[2] = {a, c};
  return is_f32(c) ? nvvm_call(b, "llvm.nvvm.div.approx.f", args, 2) : math_fdiv(b, a, c);
}

/* rsqrt(x) = x^-1/2: -0.5 x^-3/2 = -0.5 y^3, from the result alone. */
PARTIAL(partial_rsqrt) {
  UNUSED;
  return math_fmul(b, K(-0.5), math_fmul(b, y, math_fmul(b, y, y)));
}
/* sqrt.approx: 0.5 / sqrt(x) as 0.5 rsqrt.approx(x). */
PARTIAL(partial_sqrt_approx) {
  UNUSED;
  LLVMValueRef x = X;
  return math_fmul(b, K(0.5), nvvm_call(b, "llvm.nvvm.rsqrt.approx.f", &x, 1));
}
/* div.approx(a, c), div.full, __fdividef: 1 / c and -(a / c) / c. */
PARTIAL(partial_div_approx) {
  UNUSED;
  return i == 0 ? approx_div(b, K(1.0), args[1]) : approx_div(b, math_fneg(b, y), args[1]);
}
/* rcp(x) = 1 / x: -1 / x^2 = -y^2. */
PARTIAL(partial_rcp) { UNUSED; return math_fneg(b, math_fmul(b, y, y)); }
/* log2, log and log10, approximate: 1 / (x ln b). */
PARTIAL(partial_lg2_approx) { UNUSED; return approx_div(b, K(INV_LN2), X); }
PARTIAL(partial_log_approx) { UNUSED; return approx_div(b, K(1.0), X); }
PARTIAL(partial_log10_approx) { UNUSED; return approx_div(b, K(INV_LN10), X); }
/* sine and cosine, each the other's derivative: sin.approx, cos.approx
 * (intrinsic) or __sinf, __cosf (libdevice's fast pair; math_call adds
 * __nv_ and f). */
static LLVMValueRef other_of_pair(LLVMBuilderRef b, LLVMValueRef x, bool intrinsic, bool of_sin) {
  const char *name = intrinsic ? (of_sin ? "llvm.nvvm.cos.approx.f" : "llvm.nvvm.sin.approx.f")
                               : (of_sin ? "fast_cos" : "fast_sin");
  LLVMValueRef v = intrinsic ? nvvm_call(b, name, &x, 1) : math_call(b, name, &x, 1);
  return of_sin ? v : math_fneg(b, v);
}
PARTIAL(partial_sin_approx) { UNUSED; return other_of_pair(b, X, true, true); }
PARTIAL(partial_cos_approx) { UNUSED; return other_of_pair(b, X, true, false); }
PARTIAL(partial_sin_fast) { UNUSED; return other_of_pair(b, X, false, true); }
PARTIAL(partial_cos_fast) { UNUSED; return other_of_pair(b, X, false, false); }
/* hsin and hcos (and their pairs): cos and -sin in single precision,
 * cos.approx and sin.approx of each lane widened, rounded back. */
static LLVMValueRef lanes_through_f32(LLVMBuilderRef b, const char *name, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x), f32 = LLVMFloatTypeInContext(kn_module.ctx);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) {
    LLVMValueRef wide = LLVMBuildFPExt(b, x, f32, "");
    return LLVMBuildFPTrunc(b, nvvm_call(b, name, &wide, 1), t, "");
  }
  LLVMValueRef v = LLVMGetPoison(t);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
  for (unsigned k = 0; k < LLVMGetVectorSize(t); k++) {
    LLVMValueRef lane = LLVMBuildExtractElement(b, x, LLVMConstInt(i32, k, 0), "");
    v = LLVMBuildInsertElement(b, v, lanes_through_f32(b, name, lane), LLVMConstInt(i32, k, 0), "");
  }
  return v;
}
PARTIAL(partial_half_sin) { UNUSED; return lanes_through_f32(b, "llvm.nvvm.cos.approx.ftz.f", X); }
PARTIAL(partial_half_cos) { UNUSED; return math_fneg(b, lanes_through_f32(b, "llvm.nvvm.sin.approx.ftz.f", X)); }
/* __powf(x, e) = 2^(e log2 x): as pow, through __powf and __logf. */
PARTIAL(partial_pow_fast) { UNUSED; return partial_pow_with(b, args, y, i, "fast_pow", "fast_log"); }
/* rcbrt(x) = x^-1/3: -1/3 x^-4/3 = -y / (3 x). */
PARTIAL(partial_rcbrt) {
  UNUSED;
  return math_fdiv(b, math_fneg(b, y), math_fmul(b, K(3.0), X));
}
/* min.xorsign.abs(a, b) = sign(a) sign(b) min(|a|, |b|): min's partial
 * (which operand was chosen) taken on the magnitudes, times the sign of the
 * other operand, since sign(a) |a| = a. max alike. */
PARTIAL(partial_min);
PARTIAL(partial_max);
static LLVMValueRef xorsign_partial(LLVMBuilderRef b, LLVMValueRef *args, LLVMValueRef y, unsigned i,
                                    LLVMValueRef (*pick)(LLVMBuilderRef, LLVMValueRef *, LLVMValueRef, unsigned)) {
  LLVMValueRef magnitudes[2] = {math_call(b, "fabs", &args[0], 1), math_call(b, "fabs", &args[1], 1)};
  LLVMValueRef sign_of_other[2] = {K(1.0), args[1 - i]};
  return math_fmul(b, pick(b, magnitudes, y, i), math_call(b, "copysign", sign_of_other, 2));
}
PARTIAL(partial_min_xorsign) { return xorsign_partial(b, args, y, i, partial_min); }
PARTIAL(partial_max_xorsign) { return xorsign_partial(b, args, y, i, partial_max); }
/* saturate(x) = min(max(x, 0), 1): 1 inside [0, 1], 0 where clamped (and
 * for NaN, which saturates to 0). A select of constants, so that it is
 * applied by picking (core/mathbuild.c). */
PARTIAL(partial_saturate) {
  UNUSED;
  LLVMValueRef inside = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGE, X, K(0.0), ""),
                                     LLVMBuildFCmp(b, LLVMRealOLE, X, K(1.0), ""), "");
  return LLVMBuildSelect(b, inside, K(1.0), K(0.0), "");
}
/* A conversion (kinase.cvt.*: a float rounded to half or bfloat16 toward
 * zero, down or up): the derivative passes through. */
PARTIAL(partial_one) { UNUSED; return K(1.0); }
/* The .sat and .relu forms: the operation's partial where y was not
 * clamped (0 < y < 1; y > 0), else 0. A select of the partial, so that it is
 * applied by picking. */
PARTIAL(partial_fma);
static LLVMValueRef unless_clamped(LLVMBuilderRef b, LLVMValueRef *args, LLVMValueRef y, LLVMValueRef partial,
                                   bool saturated) {
  LLVMValueRef inside = LLVMBuildFCmp(b, LLVMRealOGT, y, K(0.0), "");
  if (saturated)
    inside = LLVMBuildAnd(b, inside, LLVMBuildFCmp(b, LLVMRealOLT, y, K(1.0), ""), "");
  return LLVMBuildSelect(b, inside, partial, K(0.0), "");
}
PARTIAL(partial_fadd_sat) { UNUSED; return unless_clamped(b, args, y, K(1.0), true); }
PARTIAL(partial_fma_sat) { return unless_clamped(b, args, y, partial_fma(b, args, y, i), true); }
PARTIAL(partial_fma_relu) { return unless_clamped(b, args, y, partial_fma(b, args, y, i), false); }
