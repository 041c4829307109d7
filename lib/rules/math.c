/* Partial derivatives of the math functions in math.def. Each returns
 * d(result)/d(args[i]) in the type of args[i]; `y` is the call's result, so
 * functions whose derivative is a function of the result reuse it. */
#include "partial.h"

static const double LN2 = 0.69314718055994530942, LN10 = 2.30258509299404568402;
static const double TWO_OVER_SQRT_PI = 1.12837916709551257390, PI = 3.14159265358979323846;
static const double SQRT_PI_OVER_TWO = 0.88622692545275801365, SQRT_TWO_PI = 2.50662827463100050242;

static LLVMValueRef call1(LLVMBuilderRef b, const char *fn, LLVMValueRef x) {
  return math_call(b, fn, &x, 1);
}
static LLVMValueRef square(LLVMBuilderRef b, LLVMValueRef x) { return math_fmul(b, x, x); }
static LLVMValueRef select_const(LLVMBuilderRef b, LLVMValueRef cond, LLVMTypeRef type, double yes,
                                 double no) {
  return LLVMBuildSelect(b, cond, math_const(type, yes), math_const(type, no), "");
}

PARTIAL(partial_zero) { UNUSED; return K(0.0); }
PARTIAL(partial_result) { UNUSED; return y; }
PARTIAL(partial_sqrt) { UNUSED; return math_fdiv(b, K(0.5), y); }
PARTIAL(partial_cbrt) { UNUSED; return math_fdiv(b, y, math_fmul(b, K(3.0), X)); }
PARTIAL(partial_sin) { UNUSED; return call1(b, "cos", X); }
PARTIAL(partial_cos) { UNUSED; return math_fneg(b, call1(b, "sin", X)); }
PARTIAL(partial_tan) { UNUSED; return math_fadd(b, K(1.0), square(b, y)); }
PARTIAL(partial_asin) {
  UNUSED;
  return math_fdiv(b, K(1.0), call1(b, "sqrt", math_fsub(b, K(1.0), square(b, X))));
}
PARTIAL(partial_acos) {
  UNUSED;
  return math_fdiv(b, K(-1.0), call1(b, "sqrt", math_fsub(b, K(1.0), square(b, X))));
}
PARTIAL(partial_atan) { UNUSED; return math_fdiv(b, K(1.0), math_fadd(b, K(1.0), square(b, X))); }
/* atan2(a, c): d/da = c / (a^2 + c^2), d/dc = -a / (a^2 + c^2). */
PARTIAL(partial_atan2) {
  UNUSED;
  LLVMValueRef norm = math_fadd(b, square(b, args[0]), square(b, args[1]));
  return i == 0 ? math_fdiv(b, args[1], norm) : math_fdiv(b, math_fneg(b, args[0]), norm);
}
PARTIAL(partial_sinh) { UNUSED; return call1(b, "cosh", X); }
PARTIAL(partial_cosh) { UNUSED; return call1(b, "sinh", X); }
PARTIAL(partial_tanh) { UNUSED; return math_fsub(b, K(1.0), square(b, y)); }
PARTIAL(partial_asinh) {
  UNUSED;
  return math_fdiv(b, K(1.0), call1(b, "sqrt", math_fadd(b, square(b, X), K(1.0))));
}
PARTIAL(partial_acosh) {
  UNUSED;
  return math_fdiv(b, K(1.0), call1(b, "sqrt", math_fsub(b, square(b, X), K(1.0))));
}
PARTIAL(partial_atanh) { UNUSED; return math_fdiv(b, K(1.0), math_fsub(b, K(1.0), square(b, X))); }
PARTIAL(partial_exp2) { UNUSED; return math_fmul(b, y, K(LN2)); }
PARTIAL(partial_exp10) { UNUSED; return math_fmul(b, y, K(LN10)); }
PARTIAL(partial_expm1) { UNUSED; return math_fadd(b, y, K(1.0)); }
PARTIAL(partial_log) { UNUSED; return math_fdiv(b, K(1.0), X); }
PARTIAL(partial_log2) { UNUSED; return math_fdiv(b, K(1.0), math_fmul(b, X, K(LN2))); }
PARTIAL(partial_log10) { UNUSED; return math_fdiv(b, K(1.0), math_fmul(b, X, K(LN10))); }
PARTIAL(partial_log1p) { UNUSED; return math_fdiv(b, K(1.0), math_fadd(b, K(1.0), X)); }

/* pow(x, e): d/dx = e * pow(x, e - 1), taken as 0 where e is 0 (x^0 is the
 * constant 1, but 0 * pow(0, -1) is 0 * inf: std::pow(x, n) with n = 0 at
 * x = 0); d/de = pow(x, e) * log(x), taken as 0 where pow(x, e) is 0 so that
 * x = 0 gives 0 rather than 0 * -inf. With `pow` and `log` the library's
 * names of the two (nvvm.c's fast pow). */
LLVMValueRef partial_pow_with(LLVMBuilderRef b, LLVMValueRef *args, LLVMValueRef y, unsigned i,
                              const char *pow, const char *log) {
  LLVMValueRef e = args[1];
  if (i == 0) {
    LLVMValueRef pow_args[2] = {X, math_fsub(b, e, K(1.0))};
    LLVMValueRef constant = LLVMBuildFCmp(b, LLVMRealOEQ, e, K(0.0), "");
    return LLVMBuildSelect(b, constant, K(0.0),
                           math_fmul(b, e, math_call(b, pow, pow_args, 2)), "");
  }
  LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, y, K(0.0), "");
  return LLVMBuildSelect(b, zero, K(0.0), math_fmul(b, y, call1(b, log, X)), "");
}
PARTIAL(partial_pow) { UNUSED; return partial_pow_with(b, args, y, i, "pow", "log"); }

/* powi(x, n) = x^n for an integer n: n * x^(n-1), and 0 for n = 0 (as pow). */
PARTIAL(partial_powi) {
  UNUSED;
  LLVMValueRef n = args[1];
  LLVMValueRef pow_args[2] = {X, LLVMBuildSub(b, n, LLVMConstInt(LLVMTypeOf(n), 1, 0), "")};
  LLVMValueRef n_float = LLVMBuildSIToFP(b, n, LLVMTypeOf(X), "");
  LLVMValueRef constant = LLVMBuildICmp(b, LLVMIntEQ, n, LLVMConstInt(LLVMTypeOf(n), 0, 0), "");
  return LLVMBuildSelect(b, constant, K(0.0),
                         math_fmul(b, n_float, math_call(b, "powi", pow_args, 2)), "");
}

/* ldexp(x, n) = x * 2^n. */
PARTIAL(partial_ldexp) {
  UNUSED;
  LLVMValueRef ldexp_args[2] = {K(1.0), args[1]};
  return math_call(b, "ldexp", ldexp_args, 2);
}

static LLVMValueRef gaussian(LLVMBuilderRef b, LLVMValueRef x, double scale) {
  LLVMValueRef e = call1(b, "exp", math_fneg(b, square(b, x)));
  return math_fmul(b, math_const(LLVMTypeOf(x), scale), e);
}
PARTIAL(partial_erf) { UNUSED; return gaussian(b, X, TWO_OVER_SQRT_PI); }
PARTIAL(partial_erfc) { UNUSED; return gaussian(b, X, -TWO_OVER_SQRT_PI); }
/* hypot, norm3d, norm4d: the argument over the norm. */
PARTIAL(partial_hypot) { UNUSED; return math_fdiv(b, args[i], y); }
/* rhypot, rnorm3d, rnorm4d, 1 / the norm: -argument / norm^3. */
PARTIAL(partial_rnorm) { UNUSED; return math_fneg(b, math_fmul(b, args[i], math_fmul(b, y, square(b, y)))); }
/* sin(pi x) and cos(pi x); libdevice returns exact zeros at the integers
 * through a branch whose derivative would be 0. */
PARTIAL(partial_sinpi) { UNUSED; return math_fmul(b, K(PI), call1(b, "cospi", X)); }
PARTIAL(partial_cospi) { UNUSED; return math_fmul(b, K(-PI), call1(b, "sinpi", X)); }
/* The inverses of erf and erfc, from the result: +-sqrt(pi)/2 exp(y^2). */
PARTIAL(partial_erfinv) { UNUSED; return math_fmul(b, K(SQRT_PI_OVER_TWO), call1(b, "exp", square(b, y))); }
PARTIAL(partial_erfcinv) { UNUSED; return math_fmul(b, K(-SQRT_PI_OVER_TWO), call1(b, "exp", square(b, y))); }
/* The standard normal's distribution function and its inverse. */
PARTIAL(partial_normcdf) {
  UNUSED;
  return math_fdiv(b, call1(b, "exp", math_fmul(b, K(-0.5), square(b, X))), K(SQRT_TWO_PI));
}
PARTIAL(partial_normcdfinv) {
  UNUSED;
  return math_fmul(b, K(SQRT_TWO_PI), call1(b, "exp", math_fmul(b, K(0.5), square(b, y))));
}
/* erfcx(x) = exp(x^2) erfc(x): 2 x erfcx(x) - 2 / sqrt(pi). */
PARTIAL(partial_erfcx) { UNUSED; return math_fsub(b, math_fmul(b, K(2.0), math_fmul(b, X, y)), K(TWO_OVER_SQRT_PI)); }
/* sign(x), with sign(-0) = -1 as Enzyme has it. */
PARTIAL(partial_fabs) {
  UNUSED;
  LLVMValueRef sign[2] = {K(1.0), X};
  return math_call(b, "copysign", sign, 2);
}
/* Bessel functions: j0' = -j1, y0' = -y1, j1' = j0 - j1 / x, y1' = y0 - y1 / x. */
PARTIAL(partial_j0) { UNUSED; return math_fneg(b, call1(b, "j1", X)); }
PARTIAL(partial_y0) { UNUSED; return math_fneg(b, call1(b, "y1", X)); }
PARTIAL(partial_j1) { UNUSED; return math_fsub(b, call1(b, "j0", X), math_fdiv(b, y, X)); }
PARTIAL(partial_y1) { UNUSED; return math_fsub(b, call1(b, "y0", X), math_fdiv(b, y, X)); }

/* Z_k(x) for Z = jn or yn and any order k. libdevice's jn and yn return NaN
 * for a negative order, which the derivative at n = 0 asks for (order -1):
 * Z_-m = (-1)^m Z_m. */
static LLVMValueRef bessel_order(LLVMBuilderRef b, const char *fn, LLVMValueRef k, LLVMValueRef x) {
  LLVMTypeRef int_type = LLVMTypeOf(k);
  LLVMValueRef negative = LLVMBuildICmp(b, LLVMIntSLT, k, LLVMConstInt(int_type, 0, 0), "");
  LLVMValueRef args[2] = {LLVMBuildSelect(b, negative, LLVMBuildNeg(b, k, ""), k, ""), x};
  LLVMValueRef z = math_call(b, fn, args, 2);
  LLVMValueRef odd = LLVMBuildTrunc(b, k, LLVMInt1TypeInContext(kn_module.ctx), "");
  return LLVMBuildSelect(b, LLVMBuildAnd(b, negative, odd, ""), math_fneg(b, z), z, "");
}
/* Z_n' = (Z_n-1 - Z_n+1) / 2 for Z = jn, yn; the order n is an integer. */
static LLVMValueRef bessel_n(LLVMBuilderRef b, const char *fn, LLVMValueRef *args, unsigned i) {
  LLVMValueRef n = args[0], x = args[1], one = LLVMConstInt(LLVMTypeOf(n), 1, 0);
  LLVMTypeRef type = LLVMTypeOf(x);
  if (i == 0)
    return math_const(type, 0.0);
  LLVMValueRef below = bessel_order(b, fn, LLVMBuildSub(b, n, one, ""), x);
  LLVMValueRef above = bessel_order(b, fn, LLVMBuildAdd(b, n, one, ""), x);
  return math_fmul(b, math_const(type, 0.5), math_fsub(b, below, above));
}
PARTIAL(partial_jn) { UNUSED; return bessel_n(b, "jn", args, i); }
PARTIAL(partial_yn) { UNUSED; return bessel_n(b, "yn", args, i); }
/* lgamma' = digamma; tgamma' = tgamma digamma. */
PARTIAL(partial_lgamma) { UNUSED; return math_digamma(b, X); }
PARTIAL(partial_tgamma) { UNUSED; return math_fmul(b, y, math_digamma(b, X)); }
/* fma(a, b, c) = a * b + c. */
PARTIAL(partial_fma) {
  UNUSED;
  return i == 0 ? args[1] : i == 1 ? args[0] : K(1.0);
}

/* min and max: the argument that was chosen gets the whole derivative; ties
 * go to the first, a NaN to the other argument. */
static LLVMValueRef chosen(LLVMBuilderRef b, LLVMValueRef *args, unsigned i, LLVMRealPredicate keep) {
  LLVMValueRef first = LLVMBuildOr(b, LLVMBuildFCmp(b, keep, args[0], args[1], ""),
                                   LLVMBuildFCmp(b, LLVMRealUNO, args[1], args[1], ""), "");
  if (i == 1)
    first = LLVMBuildNot(b, first, "");
  return select_const(b, first, LLVMTypeOf(args[0]), 1.0, 0.0);
}
PARTIAL(partial_min) { UNUSED; return chosen(b, args, i, LLVMRealOLE); }
PARTIAL(partial_max) { UNUSED; return chosen(b, args, i, LLVMRealOGE); }

/* fmod(x, c) = x - trunc(x / c) * c. */
PARTIAL(partial_fmod) {
  UNUSED;
  if (i == 0)
    return K(1.0);
  return math_fneg(b, call1(b, "trunc", math_fdiv(b, args[0], args[1])));
}
/* remainder(x, c) = x - rint(x / c) * c. */
PARTIAL(partial_remainder) {
  UNUSED;
  if (i == 0)
    return K(1.0);
  return math_fneg(b, call1(b, "rint", math_fdiv(b, args[0], args[1])));
}
/* frexp(x, &e) = x * 2^-e, exactly y / x; 0 at x = 0 is taken as 1. */
PARTIAL(partial_frexp) {
  UNUSED;
  LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, X, K(0.0), "");
  return LLVMBuildSelect(b, zero, K(1.0), math_fdiv(b, y, X), "");
}
/* nextafter(x, toward): x moved by one unit in the last place. */
PARTIAL(partial_first) {
  UNUSED;
  return K(i == 0 ? 1.0 : 0.0);
}
/* fdim(x, c) = x > c ? x - c : 0. */
PARTIAL(partial_fdim) {
  UNUSED;
  LLVMValueRef above = LLVMBuildFCmp(b, LLVMRealOGT, args[0], args[1], "");
  return select_const(b, above, LLVMTypeOf(X), i == 0 ? 1.0 : -1.0, 0.0);
}
/* copysign(x, s) = |x| * sign(s): d/dx = sign(x) * sign(s), d/ds = 0. */
PARTIAL(partial_copysign) {
  UNUSED;
  if (i == 1)
    return K(0.0);
  LLVMValueRef sign_x[2] = {K(1.0), args[0]}, sign_s[2] = {K(1.0), args[1]};
  return math_fmul(b, math_call(b, "copysign", sign_x, 2), math_call(b, "copysign", sign_s, 2));
}

/* Instructions (arith.def). */
PARTIAL(partial_fadd) { UNUSED; return K(1.0); }
PARTIAL(partial_fsub) { UNUSED; return K(i == 0 ? 1.0 : -1.0); }
PARTIAL(partial_fmul) { UNUSED; return args[1 - i]; }
/* a / c: d/da = 1 / c, d/dc = -(a / c) / c. */
PARTIAL(partial_fdiv) {
  UNUSED;
  return i == 0 ? math_fdiv(b, K(1.0), args[1]) : math_fneg(b, math_fdiv(b, y, args[1]));
}
