/* Model bodies for models.def, but complex.h's (rules/complex.c). Each gets
 * the model's parameters and returns its result (NULL for a void model),
 * built with `b` in one block. */
#include "kinase.h"

#define MODEL(name) LLVMValueRef name(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result)

LLVMValueRef model_pack(LLVMBuilderRef b, LLVMTypeRef type, LLVMValueRef re, LLVMValueRef im) {
  LLVMValueRef v = LLVMGetPoison(type);
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
    v = LLVMBuildInsertElement(b, v, re, LLVMConstInt(i32, 0, 0), "");
    return LLVMBuildInsertElement(b, v, im, LLVMConstInt(i32, 1, 0), "");
  }
  v = LLVMBuildInsertValue(b, v, re, 0, "");
  return LLVMBuildInsertValue(b, v, im, 1, "");
}

/* modf(x) = {x - trunc(x), trunc(x)} */
MODEL(model_modf) {
  LLVMValueRef whole = math_call(b, "trunc", &p[0], 1);
  return model_pack(b, result, math_fsub(b, p[0], whole), whole);
}

/* modf(x, &whole), which clang calls with -fno-builtin: llvm.modf, whose
 * model has the derivatives and which computes what modf does, its whole
 * part stored. */
MODEL(model_modf_call) {
  LLVMTypeRef type = LLVMTypeOf(p[0]), parts[2] = {type, type};
  unsigned id = LLVMLookupIntrinsicID("llvm.modf", 9);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(kn_module.mod, id, &type, 1);
  LLVMTypeRef fn_type = LLVMFunctionType(LLVMStructTypeInContext(kn_module.ctx, parts, 2, 0), &type, 1, 0);
  LLVMValueRef pair = LLVMBuildCall2(b, fn_type, fn, p, 1, "");
  LLVMBuildStore(b, LLVMBuildExtractValue(b, pair, 1, ""), p[1]);
  (void)result;
  return LLVMBuildExtractValue(b, pair, 0, "");
}

/* llvm.sincos(x) = {sin x, cos x} */
MODEL(model_sincos_pair) {
  return model_pack(b, result, math_call(b, "sin", &p[0], 1), math_call(b, "cos", &p[0], 1));
}

/* sincos(x, &s, &c): s = sin x, c = cos x, stored; no result. */
MODEL(model_sincos) {
  (void)result;
  LLVMBuildStore(b, math_call(b, "sin", &p[0], 1), p[1]);
  LLVMBuildStore(b, math_call(b, "cos", &p[0], 1), p[2]);
  return NULL;
}

/* sincospi(x, &s, &c): sinpi and cospi, which have rules (math.def). */
MODEL(model_sincospi) {
  (void)result;
  LLVMBuildStore(b, math_call(b, "sinpi", &p[0], 1), p[1]);
  LLVMBuildStore(b, math_call(b, "cospi", &p[0], 1), p[2]);
  return NULL;
}

LLVMValueRef model_call_in_place(LLVMBuilderRef b, LLVMValueRef *p, unsigned n, LLVMTypeRef result,
                                  LLVMValueRef (*build)(LLVMTypeRef type)) {
  LLVMTypeRef params[8];
  for (unsigned i = 0; i < n; i++)
    params[i] = LLVMTypeOf(p[i]);
  LLVMTypeRef type = LLVMFunctionType(result, params, n, 0);
  LLVMValueRef call = LLVMBuildCall2(b, type, build(type), p, n, "");
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
  return call;
}

/* qsort(base, n, size, cmp): the sort built in rules/qsort.c. */
MODEL(model_qsort) { return model_call_in_place(b, p, 4, result, qsort_model_function); }

/* qsort_r(base, n, size, cmp, context) likewise. */
MODEL(model_qsort_r) { return model_call_in_place(b, p, 5, result, qsort_model_function); }

/* bsearch(key, base, n, size, cmp): the search built in rules/bsearch.c. */
MODEL(model_bsearch) { return model_call_in_place(b, p, 5, result, bsearch_model_function); }

/* reallocarray(p, n, size): realloc(p, n * size), which has a memory rule
 * (the product's overflow, which makes reallocarray fail, aside). */
MODEL(model_reallocarray) {
  LLVMValueRef args[2] = {p[0], LLVMBuildMul(b, p[1], p[2], "")};
  return kn_call_libc(b, "realloc", result, args, 2);
}
