/* complex.h's functions as models (models.def): each body computes the
 * function from its real and imaginary parts with real operations that
 * have rules, so its derivative is the function's. rule_model_function
 * hands every body (re, im) scalar pairs, whichever way the C ABI passed
 * them; the result is packed back with model_pack.
 *
 * The inverse functions are the logarithmic forms that define their
 * principal values (C11 G.6, Kahan's "Branch cuts for complex elementary
 * functions"): they agree with the library's off the branch cuts, so their
 * derivatives are the library's too. */
#include "kinase.h"

typedef struct {
  LLVMValueRef re, im;
} Complex;

#define COMPLEX_MODEL(name) LLVMValueRef name(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result)

static LLVMValueRef real_call(LLVMBuilderRef b, const char *name, LLVMValueRef x) {
  return math_call(b, name, &x, 1);
}

static LLVMValueRef real_call2(LLVMBuilderRef b, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMValueRef args[2] = {x, y};
  return math_call(b, name, args, 2);
}

static LLVMValueRef constant_like(LLVMValueRef x, double value) { return math_const(LLVMTypeOf(x), value); }

static Complex arg_complex(LLVMValueRef *p) { return (Complex){p[0], p[1]}; }

static LLVMValueRef pack(LLVMBuilderRef b, LLVMTypeRef result, Complex z) {
  return model_pack(b, result, z.re, z.im);
}

static Complex cx_add(LLVMBuilderRef b, Complex x, Complex y) {
  return (Complex){math_fadd(b, x.re, y.re), math_fadd(b, x.im, y.im)};
}

static Complex cx_sub(LLVMBuilderRef b, Complex x, Complex y) {
  return (Complex){math_fsub(b, x.re, y.re), math_fsub(b, x.im, y.im)};
}

/* (a + bi)(c + di) = (ac - bd) + (ad + bc)i */
static Complex cx_mul(LLVMBuilderRef b, Complex x, Complex y) {
  return (Complex){math_fsub(b, math_fmul(b, x.re, y.re), math_fmul(b, x.im, y.im)),
                   math_fadd(b, math_fmul(b, x.re, y.im), math_fmul(b, x.im, y.re))};
}

/* (a + bi)/(c + di) = ((ac + bd) + (bc - ad)i) / (c^2 + d^2) */
static Complex cx_div(LLVMBuilderRef b, Complex x, Complex y) {
  LLVMValueRef norm = math_fadd(b, math_fmul(b, y.re, y.re), math_fmul(b, y.im, y.im));
  LLVMValueRef re = math_fadd(b, math_fmul(b, x.re, y.re), math_fmul(b, x.im, y.im));
  LLVMValueRef im = math_fsub(b, math_fmul(b, x.im, y.re), math_fmul(b, x.re, y.im));
  return (Complex){math_fdiv(b, re, norm), math_fdiv(b, im, norm)};
}

/* i z and -i z */
static Complex cx_times_i(LLVMBuilderRef b, Complex z) { return (Complex){math_fneg(b, z.im), z.re}; }
static Complex cx_times_minus_i(LLVMBuilderRef b, Complex z) { return (Complex){z.im, math_fneg(b, z.re)}; }

static Complex cx_real(LLVMValueRef like, double value) {
  return (Complex){constant_like(like, value), constant_like(like, 0.0)};
}

/* exp(a + bi) = e^a cos b + e^a sin b i */
static Complex cx_exp(LLVMBuilderRef b, Complex z) {
  LLVMValueRef scale = real_call(b, "exp", z.re);
  return (Complex){math_fmul(b, scale, real_call(b, "cos", z.im)),
                   math_fmul(b, scale, real_call(b, "sin", z.im))};
}

/* log z = log |z| + i arg z */
static Complex cx_log(LLVMBuilderRef b, Complex z) {
  return (Complex){real_call(b, "log", real_call2(b, "hypot", z.re, z.im)),
                   real_call2(b, "atan2", z.im, z.re)};
}

/* The principal square root from t = sqrt((|z| + |a|)/2), which is 0 only
 * at z = 0: for a >= 0 it is t + (b/2t)i, else |b|/2t + copysign(t, b)i.
 * The form with sqrt((|z| - a)/2) has sqrt'(0) * 0 = NaN in b on the
 * positive reals, and the arm a select drops still passes its adjoint's
 * product on to the operands. */
static Complex cx_sqrt(LLVMBuilderRef b, Complex z) {
  LLVMValueRef r = real_call2(b, "hypot", z.re, z.im), half = constant_like(z.re, 0.5);
  LLVMValueRef t = real_call(b, "sqrt", math_fmul(b, half, math_fadd(b, r, real_call(b, "fabs", z.re))));
  LLVMValueRef other = math_fdiv(b, math_fmul(b, half, z.im), t);
  LLVMValueRef other_size = math_fdiv(b, math_fmul(b, half, real_call(b, "fabs", z.im)), t);
  LLVMValueRef negative_im = LLVMBuildFCmp(b, LLVMRealOLT, z.im, constant_like(z.im, 0.0), "");
  LLVMValueRef signed_t = LLVMBuildSelect(b, negative_im, math_fneg(b, t), t, "");
  LLVMValueRef right = LLVMBuildFCmp(b, LLVMRealOGE, z.re, constant_like(z.re, 0.0), "");
  return (Complex){LLVMBuildSelect(b, right, t, other_size, ""), LLVMBuildSelect(b, right, other, signed_t, "")};
}

/* asinh z = log(z + sqrt(z^2 + 1)) */
static Complex cx_asinh(LLVMBuilderRef b, Complex z) {
  Complex root = cx_sqrt(b, cx_add(b, cx_mul(b, z, z), cx_real(z.re, 1.0)));
  return cx_log(b, cx_add(b, z, root));
}

/* atanh z = (log(1 + z) - log(1 - z)) / 2 */
static Complex cx_atanh(LLVMBuilderRef b, Complex z) {
  Complex one = cx_real(z.re, 1.0);
  Complex twice = cx_sub(b, cx_log(b, cx_add(b, one, z)), cx_log(b, cx_sub(b, one, z)));
  LLVMValueRef half = constant_like(z.re, 0.5);
  return (Complex){math_fmul(b, half, twice.re), math_fmul(b, half, twice.im)};
}

static Complex cx_sin(LLVMBuilderRef b, Complex z) {
  return (Complex){math_fmul(b, real_call(b, "sin", z.re), real_call(b, "cosh", z.im)),
                   math_fmul(b, real_call(b, "cos", z.re), real_call(b, "sinh", z.im))};
}

static Complex cx_cos(LLVMBuilderRef b, Complex z) {
  return (Complex){math_fmul(b, real_call(b, "cos", z.re), real_call(b, "cosh", z.im)),
                   math_fneg(b, math_fmul(b, real_call(b, "sin", z.re), real_call(b, "sinh", z.im)))};
}

/* sinh z = -i sin(iz), cosh z = cos(iz) */
static Complex cx_sinh(LLVMBuilderRef b, Complex z) { return cx_times_minus_i(b, cx_sin(b, cx_times_i(b, z))); }
static Complex cx_cosh(LLVMBuilderRef b, Complex z) { return cx_cos(b, cx_times_i(b, z)); }

COMPLEX_MODEL(model_complex_mul) { return pack(b, result, cx_mul(b, arg_complex(p), arg_complex(p + 2))); }
COMPLEX_MODEL(model_complex_div) { return pack(b, result, cx_div(b, arg_complex(p), arg_complex(p + 2))); }
COMPLEX_MODEL(model_complex_exp) { return pack(b, result, cx_exp(b, arg_complex(p))); }
COMPLEX_MODEL(model_complex_log) { return pack(b, result, cx_log(b, arg_complex(p))); }
COMPLEX_MODEL(model_complex_sqrt) { return pack(b, result, cx_sqrt(b, arg_complex(p))); }
/* z^w = exp(w log z) */
COMPLEX_MODEL(model_complex_pow) {
  return pack(b, result, cx_exp(b, cx_mul(b, arg_complex(p + 2), cx_log(b, arg_complex(p)))));
}
COMPLEX_MODEL(model_complex_sin) { return pack(b, result, cx_sin(b, arg_complex(p))); }
COMPLEX_MODEL(model_complex_cos) { return pack(b, result, cx_cos(b, arg_complex(p))); }
COMPLEX_MODEL(model_complex_tan) {
  Complex z = arg_complex(p);
  return pack(b, result, cx_div(b, cx_sin(b, z), cx_cos(b, z)));
}
COMPLEX_MODEL(model_complex_sinh) { return pack(b, result, cx_sinh(b, arg_complex(p))); }
COMPLEX_MODEL(model_complex_cosh) { return pack(b, result, cx_cosh(b, arg_complex(p))); }
COMPLEX_MODEL(model_complex_tanh) {
  Complex z = arg_complex(p);
  return pack(b, result, cx_div(b, cx_sinh(b, z), cx_cosh(b, z)));
}
COMPLEX_MODEL(model_complex_asinh) { return pack(b, result, cx_asinh(b, arg_complex(p))); }
/* asin z = -i asinh(iz) */
COMPLEX_MODEL(model_complex_asin) {
  return pack(b, result, cx_times_minus_i(b, cx_asinh(b, cx_times_i(b, arg_complex(p)))));
}
/* acos z = pi/2 - asin z */
COMPLEX_MODEL(model_complex_acos) {
  Complex asin = cx_times_minus_i(b, cx_asinh(b, cx_times_i(b, arg_complex(p))));
  return pack(b, result, cx_sub(b, cx_real(asin.re, 1.5707963267948966), asin));
}
/* acosh z = log(z + sqrt(z + 1) sqrt(z - 1)) */
COMPLEX_MODEL(model_complex_acosh) {
  Complex z = arg_complex(p), one = cx_real(z.re, 1.0);
  Complex root = cx_mul(b, cx_sqrt(b, cx_add(b, z, one)), cx_sqrt(b, cx_sub(b, z, one)));
  return pack(b, result, cx_log(b, cx_add(b, z, root)));
}
COMPLEX_MODEL(model_complex_atanh) { return pack(b, result, cx_atanh(b, arg_complex(p))); }
/* atan z = -i atanh(iz) */
COMPLEX_MODEL(model_complex_atan) {
  return pack(b, result, cx_times_minus_i(b, cx_atanh(b, cx_times_i(b, arg_complex(p)))));
}
/* The projection only changes infinities, where no derivative is finite. */
COMPLEX_MODEL(model_complex_proj) { return pack(b, result, arg_complex(p)); }

/* creal, cimag and conj are builtins clang expands, but calls with
 * -fno-builtin. */
COMPLEX_MODEL(model_complex_real) {
  (void)b, (void)result;
  return p[0];
}
COMPLEX_MODEL(model_complex_imag) {
  (void)b, (void)result;
  return p[1];
}
COMPLEX_MODEL(model_complex_conj) { return pack(b, result, (Complex){p[0], math_fneg(b, p[1])}); }

COMPLEX_MODEL(model_complex_abs) {
  (void)result;
  return real_call2(b, "hypot", p[0], p[1]);
}

COMPLEX_MODEL(model_complex_arg) {
  (void)result;
  return real_call2(b, "atan2", p[1], p[0]);
}
