/* The model of qsort and GNU's qsort_r (models.def): a stable merge sort of
 * a permutation, calling the user's comparator (with qsort_r's context), then the elements moved into place with
 * memcpy. Differentiated as the user's own code once inlined into the copy
 * being differentiated (rule_inline_models), the memcpys move the
 * shadows, or the adjoints in reverse, along the permutation the primal
 * chose; the comparisons carry no derivative. The permutation keeps the
 * elements still while they are compared, so each moves once, as a whole:
 * memcpy's element type comes from the caller's accesses to the array. */
#include "kinase.h"

typedef struct {
  LLVMBuilderRef b;
  LLVMValueRef fn;
  LLVMTypeRef size_t_type, ptr;
  LLVMValueRef context; /* qsort_r's last argument, handed to the comparator; NULL for qsort */
} Sort;

/* A loop `while (phis[0] < limit)` whose phis start at start[]: opened with
 * the builder left in its body, closed with the phis' next values. */
typedef struct {
  LLVMBasicBlockRef head, exit;
  LLVMValueRef phis[3];
  unsigned n;
} SortLoop;

static LLVMBasicBlockRef block(Sort *s, const char *name) {
  return LLVMAppendBasicBlockInContext(kn_module.ctx, s->fn, name);
}

static void loop_open(Sort *s, SortLoop *l, LLVMValueRef *start, unsigned n, LLVMValueRef limit) {
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(s->b), body = block(s, "body");
  l->head = block(s, "head");
  l->exit = block(s, "exit");
  l->n = n;
  LLVMBuildBr(s->b, l->head);
  LLVMPositionBuilderAtEnd(s->b, l->head);
  for (unsigned k = 0; k < n; k++) {
    l->phis[k] = LLVMBuildPhi(s->b, LLVMTypeOf(start[k]), "");
    LLVMAddIncoming(l->phis[k], &start[k], &pre, 1);
  }
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntULT, l->phis[0], limit, ""), body, l->exit);
  LLVMPositionBuilderAtEnd(s->b, body);
}

static void loop_close(Sort *s, SortLoop *l, LLVMValueRef *next) {
  LLVMBasicBlockRef from = LLVMGetInsertBlock(s->b);
  for (unsigned k = 0; k < l->n; k++)
    LLVMAddIncoming(l->phis[k], &next[k], &from, 1);
  LLVMBuildBr(s->b, l->head);
  LLVMPositionBuilderAtEnd(s->b, l->exit);
}

static LLVMValueRef index_at(Sort *s, LLVMValueRef perm, LLVMValueRef i) {
  return LLVMBuildGEP2(s->b, s->size_t_type, perm, &i, 1, "");
}

static LLVMValueRef element_at(Sort *s, LLVMValueRef base, LLVMValueRef index, LLVMValueRef size) {
  LLVMValueRef offset = LLVMBuildMul(s->b, index, size, "");
  return LLVMBuildGEP2(s->b, LLVMInt8TypeInContext(kn_module.ctx), base, &offset, 1, "");
}

static LLVMValueRef umin(Sort *s, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(s->b, LLVMBuildICmp(s->b, LLVMIntULT, a, b, ""), a, b, "");
}

/* Merges the runs [lo, mid) and [mid, hi) of src into dst, by the
 * comparator on the elements the indices name; the left run wins ties. */
static void merge(Sort *s, LLVMValueRef *p, LLVMValueRef src, LLVMValueRef dst, LLVMValueRef lo,
                  LLVMValueRef mid, LLVMValueRef hi) {
  LLVMValueRef base = p[0], size = p[2], cmp = p[3];
  SortLoop k;
  LLVMValueRef start[3] = {lo, lo, mid};
  loop_open(s, &k, start, 3, hi);
  LLVMValueRef i = k.phis[1], j = k.phis[2];
  LLVMValueRef left = LLVMBuildICmp(s->b, LLVMIntULT, i, mid, "");
  LLVMValueRef right = LLVMBuildICmp(s->b, LLVMIntULT, j, hi, "");
  LLVMBasicBlockRef decide = LLVMGetInsertBlock(s->b), compare = block(s, "compare"), pick = block(s, "pick");
  LLVMBuildCondBr(s->b, LLVMBuildAnd(s->b, left, right, ""), compare, pick);
  LLVMPositionBuilderAtEnd(s->b, compare);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx), params[3] = {s->ptr, s->ptr, s->ptr};
  LLVMValueRef args[3] = {
      element_at(s, base, LLVMBuildLoad2(s->b, s->size_t_type, index_at(s, src, i), ""), size),
      element_at(s, base, LLVMBuildLoad2(s->b, s->size_t_type, index_at(s, src, j), ""), size), s->context};
  unsigned nargs = s->context ? 3 : 2;
  LLVMValueRef order = LLVMBuildCall2(s->b, LLVMFunctionType(i32, params, nargs, 0), cmp, args, nargs, "");
  LLVMValueRef left_first = LLVMBuildICmp(s->b, LLVMIntSLE, order, LLVMConstInt(i32, 0, 0), "");
  LLVMBuildBr(s->b, pick);
  LLVMPositionBuilderAtEnd(s->b, pick);
  LLVMValueRef take_left = LLVMBuildPhi(s->b, LLVMInt1TypeInContext(kn_module.ctx), "");
  LLVMValueRef values[2] = {left, left_first};
  LLVMBasicBlockRef from[2] = {decide, compare};
  LLVMAddIncoming(take_left, values, from, 2);
  LLVMValueRef taken = LLVMBuildLoad2(s->b, s->size_t_type, index_at(s, src, LLVMBuildSelect(s->b, take_left, i, j, "")), "");
  LLVMBuildStore(s->b, taken, index_at(s, dst, k.phis[0]));
  LLVMValueRef one = LLVMConstInt(s->size_t_type, 1, 0);
  LLVMValueRef step = LLVMBuildZExt(s->b, take_left, s->size_t_type, "");
  LLVMValueRef next[3] = {LLVMBuildAdd(s->b, k.phis[0], one, ""), LLVMBuildAdd(s->b, i, step, ""),
                          LLVMBuildAdd(s->b, j, LLVMBuildSub(s->b, one, step, ""), "")};
  loop_close(s, &k, next);
}

/* kinase.model.qsort(base, n, size, cmp), kinase.model.qsort_r(base, n,
 * size, cmp, context) */
static void build_body(Sort *s, LLVMValueRef *p) {
  LLVMValueRef base = p[0], n = p[1], size = p[2];
  LLVMValueRef zero = LLVMConstInt(s->size_t_type, 0, 0), one = LLVMConstInt(s->size_t_type, 1, 0);
  LLVMValueRef bytes = LLVMBuildMul(s->b, n, LLVMConstInt(s->size_t_type, 8, 0), "");
  LLVMValueRef perm = kn_call_libc(s->b, "malloc", s->ptr, &bytes, 1);
  LLVMValueRef other = kn_call_libc(s->b, "malloc", s->ptr, &bytes, 1);
  SortLoop init;
  loop_open(s, &init, &zero, 1, n);
  LLVMBuildStore(s->b, init.phis[0], index_at(s, perm, init.phis[0]));
  LLVMValueRef next = LLVMBuildAdd(s->b, init.phis[0], one, "");
  loop_close(s, &init, &next);

  /* runs of width 1, 2, 4, ... merged from src into dst, which swap */
  SortLoop widths;
  LLVMValueRef start[3] = {one, perm, other};
  loop_open(s, &widths, start, 3, n);
  LLVMValueRef width = widths.phis[0], src = widths.phis[1], dst = widths.phis[2];
  LLVMValueRef pair = LLVMBuildAdd(s->b, width, width, "");
  SortLoop runs;
  loop_open(s, &runs, &zero, 1, n);
  LLVMValueRef lo = runs.phis[0];
  merge(s, p, src, dst, lo, umin(s, LLVMBuildAdd(s->b, lo, width, ""), n),
        umin(s, LLVMBuildAdd(s->b, lo, pair, ""), n));
  LLVMValueRef next_lo = LLVMBuildAdd(s->b, lo, pair, "");
  loop_close(s, &runs, &next_lo);
  LLVMValueRef swapped[3] = {pair, dst, src};
  loop_close(s, &widths, swapped);
  LLVMValueRef sorted = widths.phis[1];

  LLVMValueRef total = LLVMBuildMul(s->b, n, size, "");
  LLVMValueRef copy = kn_call_libc(s->b, "malloc", s->ptr, &total, 1);
  LLVMBuildMemCpy(s->b, copy, 1, base, 1, total);
  SortLoop place;
  loop_open(s, &place, &zero, 1, n);
  LLVMValueRef from = LLVMBuildLoad2(s->b, s->size_t_type, index_at(s, sorted, place.phis[0]), "");
  LLVMBuildMemCpy(s->b, element_at(s, base, place.phis[0], size), 1, element_at(s, copy, from, size), 1, size);
  next = LLVMBuildAdd(s->b, place.phis[0], one, "");
  loop_close(s, &place, &next);
  kn_call_free(s->b, copy);
  kn_call_free(s->b, perm);
  kn_call_free(s->b, other);
  LLVMBuildRetVoid(s->b);
}

LLVMValueRef qsort_model_function(LLVMTypeRef type) {
  bool with_context = LLVMCountParamTypes(type) == 5;
  const char *name = with_context ? "kinase.model.qsort_r" : "kinase.model.qsort";
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  fn = LLVMAddFunction(kn_module.mod, name, type);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMValueRef params[5];
  LLVMGetParams(fn, params);
  Sort s = {.b = LLVMCreateBuilderInContext(kn_module.ctx),
            .fn = fn,
            .size_t_type = LLVMTypeOf(params[1]),
            .ptr = LLVMTypeOf(params[0]),
            .context = with_context ? params[4] : NULL};
  LLVMPositionBuilderAtEnd(s.b, block(&s, "entry"));
  build_body(&s, params);
  LLVMDisposeBuilder(s.b);
  return fn;
}
