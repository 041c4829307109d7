/* The model of bsearch (models.def): the binary search glibc's is, calling
 * the user's comparator, whose result is base + k * size or NULL. Put in
 * place of the call in the copy being differentiated (rule_inline_models),
 * the result is an address computed from base, so it gets base's shadow at
 * the same offset, where the library's result would be a pointer from
 * outside with none. The comparisons carry no derivative. */
#include "kinase.h"

/* kinase.model.bsearch(key, base, n, size, cmp):
 *   lo = 0, hi = n
 *   while (lo < hi) { mid = (lo + hi) / 2; at = base + mid * size;
 *     order = cmp(key, at); if (order < 0) hi = mid;
 *     else if (order > 0) lo = mid + 1; else return at; }
 *   return NULL */
static void build_body(LLVMValueRef fn) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMValueRef key = LLVMGetParam(fn, 0), base = LLVMGetParam(fn, 1), n = LLVMGetParam(fn, 2),
               size = LLVMGetParam(fn, 3), cmp = LLVMGetParam(fn, 4);
  LLVMTypeRef index = LLVMTypeOf(n), ptr = LLVMTypeOf(base), i32 = LLVMInt32TypeInContext(ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry"),
                    head = LLVMAppendBasicBlockInContext(ctx, fn, "head"),
                    body = LLVMAppendBasicBlockInContext(ctx, fn, "body"),
                    above = LLVMAppendBasicBlockInContext(ctx, fn, "above"),
                    found = LLVMAppendBasicBlockInContext(ctx, fn, "found"),
                    missing = LLVMAppendBasicBlockInContext(ctx, fn, "missing");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildBr(b, head);

  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef lo = LLVMBuildPhi(b, index, "lo"), hi = LLVMBuildPhi(b, index, "hi");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, lo, hi, ""), body, missing);

  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef mid = LLVMBuildLShr(b, LLVMBuildAdd(b, lo, hi, ""), LLVMConstInt(index, 1, 0), "mid");
  LLVMValueRef offset = LLVMBuildMul(b, mid, size, "");
  LLVMValueRef at = LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), base, &offset, 1, "at");
  LLVMTypeRef params[2] = {ptr, ptr};
  LLVMValueRef args[2] = {key, at};
  LLVMValueRef order = LLVMBuildCall2(b, LLVMFunctionType(i32, params, 2, 0), cmp, args, 2, "order");
  LLVMValueRef zero = LLVMConstInt(i32, 0, 0);
  LLVMBasicBlockRef below_or_equal = LLVMAppendBasicBlockInContext(ctx, fn, "not_below");
  LLVMValueRef below = LLVMBuildICmp(b, LLVMIntSLT, order, zero, "");
  LLVMBuildCondBr(b, below, head, below_or_equal);
  LLVMPositionBuilderAtEnd(b, below_or_equal);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGT, order, zero, ""), above, found);

  LLVMPositionBuilderAtEnd(b, above);
  LLVMValueRef next_lo = LLVMBuildAdd(b, mid, LLVMConstInt(index, 1, 0), "");
  LLVMBuildBr(b, head);

  LLVMValueRef lo_in[3] = {LLVMConstInt(index, 0, 0), lo, next_lo}, hi_in[3] = {n, mid, hi};
  LLVMBasicBlockRef from[3] = {entry, body, above};
  LLVMAddIncoming(lo, lo_in, from, 3);
  LLVMAddIncoming(hi, hi_in, from, 3);

  LLVMPositionBuilderAtEnd(b, found);
  LLVMBuildRet(b, at);
  LLVMPositionBuilderAtEnd(b, missing);
  LLVMBuildRet(b, LLVMConstNull(ptr));
  LLVMDisposeBuilder(b);
}

LLVMValueRef bsearch_model_function(LLVMTypeRef type) {
  const char *name = "kinase.model.bsearch";
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  fn = LLVMAddFunction(kn_module.mod, name, type);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  build_body(fn);
  return fn;
}
