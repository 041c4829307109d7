/* Model bodies for models.def. Each gets the model's parameters and returns
 * its result (NULL for a void model), built with `b` in one block. Complex
 * numbers arrive as (re, im) scalar pairs; the result is a {re, im} struct
 * or a <2 x float> vector, as the target's C ABI has it. */
#include "kinase.h"

#define MODEL(name) LLVMValueRef name(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result)

static LLVMValueRef pack(LLVMBuilderRef b, LLVMTypeRef type, LLVMValueRef re, LLVMValueRef im) {
  LLVMValueRef v = LLVMGetPoison(type);
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
    v = LLVMBuildInsertElement(b, v, re, LLVMConstInt(i32, 0, 0), "");
    return LLVMBuildInsertElement(b, v, im, LLVMConstInt(i32, 1, 0), "");
  }
  v = LLVMBuildInsertValue(b, v, re, 0, "");
  return LLVMBuildInsertValue(b, v, im, 1, "");
}

/* (a + bi)(c + di) = (ac - bd) + (ad + bc)i */
MODEL(model_complex_mul) {
  LLVMValueRef re = math_fsub(b, math_fmul(b, p[0], p[2]), math_fmul(b, p[1], p[3]));
  LLVMValueRef im = math_fadd(b, math_fmul(b, p[0], p[3]), math_fmul(b, p[1], p[2]));
  return pack(b, result, re, im);
}

/* (a + bi)/(c + di) = ((ac + bd) + (bc - ad)i) / (c^2 + d^2) */
MODEL(model_complex_div) {
  LLVMValueRef norm = math_fadd(b, math_fmul(b, p[2], p[2]), math_fmul(b, p[3], p[3]));
  LLVMValueRef re = math_fadd(b, math_fmul(b, p[0], p[2]), math_fmul(b, p[1], p[3]));
  LLVMValueRef im = math_fsub(b, math_fmul(b, p[1], p[2]), math_fmul(b, p[0], p[3]));
  return pack(b, result, math_fdiv(b, re, norm), math_fdiv(b, im, norm));
}

/* exp(a + bi) = e^a cos b + e^a sin b i */
MODEL(model_complex_exp) {
  LLVMValueRef scale = math_call(b, "exp", &p[0], 1);
  LLVMValueRef re = math_fmul(b, scale, math_call(b, "cos", &p[1], 1));
  LLVMValueRef im = math_fmul(b, scale, math_call(b, "sin", &p[1], 1));
  return pack(b, result, re, im);
}

/* modf(x) = {x - trunc(x), trunc(x)} */
MODEL(model_modf) {
  LLVMValueRef whole = math_call(b, "trunc", &p[0], 1);
  return pack(b, result, math_fsub(b, p[0], whole), whole);
}

/* llvm.sincos(x) = {sin x, cos x} */
MODEL(model_sincos_pair) {
  return pack(b, result, math_call(b, "sin", &p[0], 1), math_call(b, "cos", &p[0], 1));
}

/* sincos(x, &s, &c): s = sin x, c = cos x, stored; no result. */
MODEL(model_sincos) {
  (void)result;
  LLVMBuildStore(b, math_call(b, "sin", &p[0], 1), p[1]);
  LLVMBuildStore(b, math_call(b, "cos", &p[0], 1), p[2]);
  return NULL;
}

/* qsort(base, n, size, cmp): a call of the sort built in rules/qsort.c,
 * marked to be inlined where the model goes. */
MODEL(model_qsort) {
  (void)result;
  LLVMTypeRef params[4];
  for (unsigned i = 0; i < 4; i++)
    params[i] = LLVMTypeOf(p[i]);
  LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(kn_module.ctx), params, 4, 0);
  LLVMValueRef call = LLVMBuildCall2(b, type, qsort_model_function(type), p, 4, "");
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
  return call;
}
