/* CUDA memory calls in host code: what the generators emit, through the
 * Kinase runtime (runtime/kinase_cuda.h), for the memory rules of
 * rules/cuda.def. The generators resolve the operands (primal values in the
 * sweep being built); this file knows the runtime's entry points.
 *
 *   allocation  a zeroed shadow allocated as the primal was, freed when the
 *               reverse sweep is done with it (at the allocation's reverse);
 *   free        (and the destroy of a stream or event) deferred to the end of
 *               the request's reverse sweep, which still needs what it frees;
 *   copy        forward: the same copy on the shadows; reverse: dsrc +=
 *               ddst, then ddst = 0, in whichever memory each lives;
 *   set         forward: the shadow set to 0; reverse: the shadow zeroed.
 * Writes of the forward sweep to device memory tell the runtime first, so
 * that launches reading that memory keep what they read.
 */
#include "kinase.h"
#include "../../runtime/kinase_cuda.h"

#include <stdlib.h>
#include <string.h>

static LLVMTypeRef ptr_type(void) { return LLVMPointerTypeInContext(kn_module.ctx, 0); }
static LLVMTypeRef i64_type(void) { return LLVMInt64TypeInContext(kn_module.ctx); }
static LLVMTypeRef i32_type(void) { return LLVMInt32TypeInContext(kn_module.ctx); }

static LLVMValueRef where_string(LLVMBuilderRef b, LLVMValueRef subject) {
  return kn_constant_string(b, kn_function_name(subject));
}

static LLVMValueRef size_value(LLVMBuilderRef b, LLVMValueRef n) {
  return LLVMBuildZExtOrBitCast(b, n, i64_type(), "");
}

/* The driver API passes device memory as CUdeviceptr, an integer; the
 * runtime takes pointers. */
static LLVMValueRef as_pointer(LLVMBuilderRef b, LLVMValueRef v) {
  return kn_is_pointer_type(LLVMTypeOf(v)) ? v : LLVMBuildIntToPtr(b, v, ptr_type(), "");
}

LLVMValueRef cuda_bytes(LLVMBuilderRef b, const Rule *rule, LLVMValueRef count) {
  LLVMValueRef bytes = size_value(b, count);
  return rule->cuda->unit > 1 ? LLVMBuildMul(b, bytes, LLVMConstInt(i64_type(), rule->cuda->unit, 0), "")
                              : bytes;
}

LLVMValueRef cuda_stream_operand(const Rule *rule, LLVMValueRef call) {
  return rule->cuda->stream_arg >= 0 ? LLVMGetOperand(call, (unsigned)rule->cuda->stream_arg)
                                     : LLVMConstNull(ptr_type());
}

LLVMValueRef cuda_kind_operand(const Rule *rule, LLVMValueRef call) {
  return rule->cuda->kind_arg >= 0 ? LLVMGetOperand(call, (unsigned)rule->cuda->kind_arg)
                                   : LLVMConstInt(i32_type(), 4 /* cudaMemcpyDefault */, 0);
}

void cuda_before_write(LLVMBuilderRef b, LLVMValueRef dst, LLVMValueRef bytes, LLVMValueRef stream,
                       LLVMValueRef subject) {
  LLVMValueRef args[4] = {as_pointer(b, dst), size_value(b, bytes), stream, where_string(b, subject)};
  kn_call_libc(b, "__kinase_before_write", LLVMVoidTypeInContext(kn_module.ctx), args, 4);
}

LLVMValueRef cuda_shadow_alloc(LLVMBuilderRef b, const Rule *rule, LLVMValueRef bytes,
                               LLVMValueRef stream, LLVMValueRef subject) {
  LLVMValueRef args[4] = {size_value(b, bytes), LLVMConstInt(i32_type(), (unsigned)rule->cuda->how, 0),
                          stream, where_string(b, subject)};
  return kn_call_libc(b, "__kinase_shadow_alloc", ptr_type(), args, 4);
}

void cuda_shadow_free(LLVMBuilderRef b, const Rule *rule, LLVMValueRef shadow, LLVMValueRef stream,
                      LLVMValueRef subject) {
  LLVMValueRef args[4] = {as_pointer(b, shadow), LLVMConstInt(i32_type(), (unsigned)rule->cuda->how, 0),
                          stream, where_string(b, subject)};
  kn_call_libc(b, "__kinase_shadow_free", LLVMVoidTypeInContext(kn_module.ctx), args, 4);
}

/* The runtime's KINASE_ELEMENT_* of `floats`, 0 for none. */
static unsigned element_of(LLVMTypeRef floats) {
  switch (floats ? LLVMGetTypeKind(floats) : LLVMVoidTypeKind) {
  case LLVMFloatTypeKind: return KINASE_ELEMENT_F32;
  case LLVMDoubleTypeKind: return KINASE_ELEMENT_F64;
  case LLVMHalfTypeKind: return KINASE_ELEMENT_F16;
  case LLVMBFloatTypeKind: return KINASE_ELEMENT_BF16;
  default: return 0;
  }
}

void cuda_copy_reverse(LLVMBuilderRef b, LLVMValueRef dsrc, LLVMValueRef ddst, LLVMValueRef bytes,
                       LLVMValueRef kind, LLVMValueRef stream, LLVMTypeRef floats,
                       LLVMValueRef subject) {
  LLVMValueRef args[7] = {dsrc ? as_pointer(b, dsrc) : LLVMConstNull(ptr_type()),
                          as_pointer(b, ddst),
                          size_value(b, bytes),
                          LLVMBuildZExtOrBitCast(b, kind, i32_type(), ""),
                          stream,
                          LLVMConstInt(i32_type(), element_of(floats), 0),
                          where_string(b, subject)};
  kn_call_libc(b, "__kinase_copy_reverse", LLVMVoidTypeInContext(kn_module.ctx), args, 7);
}

/* Whether some forward sweep of this module defers a release: its requests
 * then release them once their reverse sweep is done. */
static bool defers;

void cuda_defer_release(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef subject) {
  LLVMValueRef args[3] = {LLVMConstInt(i32_type(), (unsigned)rule->cuda->how, 0),
                          as_pointer(b, LLVMGetOperand(call, rule->arg)), where_string(b, subject)};
  kn_call_libc(b, "__kinase_defer_release", LLVMVoidTypeInContext(kn_module.ctx), args, 3);
  if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind)
    LLVMReplaceAllUsesWith(call, LLVMConstNull(LLVMTypeOf(call)));
  defers = true;
}

void cuda_release_after_requests(LLVMValueRef *reverse_sweeps, size_t n) {
  if (!defers)
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (size_t i = 0; i < n; i++) {
    /* After the sweep: on its normal edge when it is an invoke (a request
     * among C++ locals with destructors). */
    LLVMValueRef sweep = reverse_sweeps[i];
    if (LLVMIsAInvokeInst(sweep))
      LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetNormalDest(sweep)));
    else
      LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(sweep));
    cuda_release_deferred(b);
  }
  LLVMDisposeBuilder(b);
  defers = false;
}

/* Whether what is stored through `address` (a local variable, or a place
 * in one) carries no derivative: every use loads, stores a value without
 * one, computes an address that is so used, or is a call that writes
 * nothing there (the copies to symbols themselves, lifetime markers). A
 * local array of coefficients set from constants is such memory, though
 * its address has a shadow as every local holding floats has. */
static bool local_without_derivatives(ValueSet *varied, LLVMValueRef address, int depth) {
  if (depth > 8)
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    const Rule *rule = kn_is_call_site(user) ? rule_for_call(user) : NULL;
    bool fine = LLVMIsALoadInst(user) ||
                (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == address &&
                 !vset_has(varied, LLVMGetOperand(user, 0))) ||
                (rule && (rule->kind == RULE_INACTIVE || (rule->cuda && rule->cuda->to_symbol)));
    bool derived = LLVMIsAGetElementPtrInst(user) || LLVMIsACastInst(user);
    if (!fine && !(derived && local_without_derivatives(varied, user, depth + 1)))
      return false;
  }
  return true;
}

void cuda_release_deferred(LLVMBuilderRef b) {
  kn_call_libc(b, "__kinase_release_deferred", LLVMVoidTypeInContext(kn_module.ctx), NULL, 0);
}

bool cuda_symbol_copy_unsupported(ValueSet *varied, const Rule *rule, LLVMValueRef call,
                                  LLVMValueRef subject) {
  LLVMValueRef src = LLVMGetOperand(call, 1), local = kn_underlying_object(src);
  if (!rule->cuda->to_symbol || !vset_has(varied, src) ||
      (LLVMIsAAllocaInst(local) && local_without_derivatives(varied, local, 0)))
    return false;
  kn_error(call, subject, "%s copies values that carry derivatives into a __device__ or "
                          "__constant__ variable, which has no shadow: pass them to the kernels "
                          "as arguments",
           kn_function_name(kn_called_function(call)));
  return true;
}

/* The CUDA API's entry points: cudaX and cuX (driver), and clang's own
 * __cuda bookkeeping. */
static bool is_cuda_api(const char *name) {
  return !strncmp(name, "cuda", 4) || !strncmp(name, "__cuda", 6) ||
         (!strncmp(name, "cu", 2) && name[2] >= 'A' && name[2] <= 'Z');
}

bool cuda_unknown_api_call(LLVMValueRef call, LLVMValueRef subject) {
  LLVMValueRef callee = kn_called_function(call);
  if (!callee || !LLVMIsDeclaration(callee) || !is_cuda_api(kn_function_name(callee)) ||
      rule_for_function(callee))
    return false;
  kn_error(call, subject, "CUDA API function '%s' has no derivative rule in Kinase",
           kn_function_name(callee));
  return true;
}
