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
 *               ddst, then ddst = 0, in whichever memory each lives (for
 *               pitched copies, row by row: width bytes, pitch apart);
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

/* Where the operands of a copy or set are, by its rule: 1-D ones have
 * memcpy's and memset's (dst, src or value, bytes); pitched ones CUDA's
 * (cudaMemcpy2D: dst, dpitch, src, spitch, width, height; cudaMemset2D: dst,
 * pitch, value, width, height). -1: none. */
typedef struct {
  int src, bytes, dpitch, spitch, width, height;
} WriteOperands;

static WriteOperands write_operands(const Rule *rule) {
  bool copy = rule->kind == RULE_MEMCPY;
  if (!rule->cuda->pitched)
    return (WriteOperands){copy ? 1 : -1, 2, -1, -1, -1, -1};
  return copy ? (WriteOperands){2, -1, 1, 3, 4, 5} : (WriteOperands){-1, -1, 1, -1, 3, 4};
}

LLVMValueRef cuda_copy_source(const Rule *rule, LLVMValueRef call) {
  int src = write_operands(rule).src;
  return src >= 0 ? LLVMGetOperand(call, (unsigned)src) : NULL;
}

bool cuda_address_operand(const Rule *rule, unsigned i) {
  switch (rule->kind) {
  case RULE_MEMCPY:
    return i == 0 || (int)i == write_operands(rule).src;
  case RULE_MEMSET:
    return i == 0;
  case RULE_FREE:
    return i == rule->arg;
  default:
    return false;
  }
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

/* pitch * height: the span of a pitched array (its last row's padding too,
 * which the runtime's snapshots and shadows may cover as the allocation does). */
static LLVMValueRef pitched_span(LLVMBuilderRef b, LLVMValueRef pitch, LLVMValueRef height) {
  return LLVMBuildMul(b, size_value(b, pitch), size_value(b, height), "");
}

void cuda_before_write(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef subject) {
  WriteOperands at = write_operands(rule);
  LLVMValueRef bytes = at.bytes >= 0 ? cuda_bytes(b, rule, LLVMGetOperand(call, (unsigned)at.bytes))
                                     : pitched_span(b, LLVMGetOperand(call, (unsigned)at.dpitch),
                                                    LLVMGetOperand(call, (unsigned)at.height));
  LLVMValueRef args[4] = {as_pointer(b, LLVMGetOperand(call, 0)), bytes, cuda_stream_operand(rule, call),
                          where_string(b, subject)};
  kn_call_libc(b, "__kinase_before_write", LLVMVoidTypeInContext(kn_module.ctx), args, 4);
}

void cuda_copy_shadow_record(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef ddst,
                             LLVMValueRef dsrc, LLVMValueRef subject) {
  LLVMValueRef args[5] = {as_pointer(b, ddst), as_pointer(b, dsrc),
                          cuda_bytes(b, rule, LLVMGetOperand(call, (unsigned)write_operands(rule).bytes)),
                          cuda_stream_operand(rule, call), where_string(b, subject)};
  kn_call_libc(b, "__kinase_copy_shadow_record", LLVMVoidTypeInContext(kn_module.ctx), args, 5);
}

LLVMValueRef cuda_alloc_bytes(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call) {
  LLVMValueRef size = LLVMGetOperand(call, rule->arg);
  if (!rule->cuda->pitched)
    return size;
  LLVMValueRef pitch = LLVMBuildLoad2(b, i64_type(), LLVMGetOperand(call, 1), "pitch");
  return pitched_span(b, pitch, size);
}

static LLVMValueRef file_kernel_stub(void);

/* The device module's shadow of the variable whose address `call` (a
 * cudaGetSymbolAddress or cuModuleGetGlobal) takes, or null. */
static LLVMValueRef module_shadow_of(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef subject) {
  bool driver = strncmp(kn_function_name(kn_called_function(call)), "cuda", 4) != 0;
  if (driver) { /* cuModuleGetGlobal(&dptr, &bytes, module, name) */
    LLVMValueRef args[3] = {LLVMGetOperand(call, 2), LLVMGetOperand(call, 3), where_string(b, subject)};
    return kn_call_libc(b, "__kinase_module_shadow", ptr_type(), args, 3);
  }
  LLVMValueRef handle = kn_strip_casts(LLVMGetOperand(call, 1)), stub = file_kernel_stub();
  if (!LLVMIsAGlobalVariable(handle) || !stub)
    return LLVMConstNull(ptr_type());
  LLVMValueRef args[4] = {stub, kn_constant_string(b, kn_value_name(handle)),
                          LLVMConstInt(i64_type(), 0, 0), where_string(b, subject)};
  return kn_call_libc(b, "__kinase_symbol_shadow", ptr_type(), args, 4);
}

bool cuda_shadow_is_variables(const Rule *rule) { return rule->cuda->how == KINASE_ALLOC_VARIABLE; }

int cuda_mapped_operand(const Rule *rule) {
  return rule->kind == RULE_POSIX_MEMALIGN && rule->cuda->how == KINASE_ALLOC_MAPPED ? (int)rule->arg : -1;
}

LLVMValueRef cuda_shadow_alloc(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef mapped,
                               LLVMValueRef stream, LLVMValueRef subject) {
  if (cuda_mapped_operand(rule) >= 0) { /* the shadow's own device address */
    if (!mapped)
      return LLVMConstNull(ptr_type());
    LLVMValueRef args[2] = {as_pointer(b, mapped), where_string(b, subject)};
    return kn_call_libc(b, "__kinase_mapped_shadow", ptr_type(), args, 2);
  }
  if (cuda_shadow_is_variables(rule)) { /* after the call, which wrote the address */
    LLVMValueRef address = LLVMBuildLoad2(b, ptr_type(), LLVMGetOperand(call, 0), "variable");
    LLVMValueRef args[3] = {address, module_shadow_of(b, call, subject), where_string(b, subject)};
    return kn_call_libc(b, "__kinase_variable_shadow", ptr_type(), args, 3);
  }
  LLVMValueRef args[4] = {size_value(b, cuda_alloc_bytes(b, rule, call)),
                          LLVMConstInt(i32_type(), (unsigned)rule->cuda->how, 0), stream,
                          where_string(b, subject)};
  return kn_call_libc(b, "__kinase_shadow_alloc", ptr_type(), args, 4);
}

void cuda_shadow_free(LLVMBuilderRef b, const Rule *rule, LLVMValueRef shadow, LLVMValueRef stream,
                      LLVMValueRef subject) {
  if (cuda_mapped_operand(rule) >= 0) /* the host shadow's, freed with it */
    return;
  if (cuda_shadow_is_variables(rule)) {
    LLVMValueRef args[2] = {as_pointer(b, shadow), where_string(b, subject)};
    kn_call_libc(b, "__kinase_variable_shadow_release", LLVMVoidTypeInContext(kn_module.ctx), args, 2);
    return;
  }
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

void cuda_reverse_of_write(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, CudaOperandFn primal,
                           void *sweep, LLVMValueRef dsrc, LLVMValueRef ddst, LLVMTypeRef floats,
                           LLVMValueRef subject) {
  WriteOperands at = write_operands(rule);
  /* A set reverses as a copy from nowhere: ddst = 0. */
  LLVMValueRef kind = rule->kind == RULE_MEMCPY ? primal(sweep, cuda_kind_operand(rule, call))
                                                : LLVMConstInt(i32_type(), 4 /* cudaMemcpyDefault */, 0);
  LLVMValueRef source = dsrc ? as_pointer(b, dsrc) : LLVMConstNull(ptr_type());
  LLVMValueRef common[4] = {LLVMBuildZExtOrBitCast(b, kind, i32_type(), ""),
                            primal(sweep, cuda_stream_operand(rule, call)),
                            LLVMConstInt(i32_type(), element_of(floats), 0), where_string(b, subject)};
  if (at.bytes >= 0) {
    LLVMValueRef bytes = cuda_bytes(b, rule, primal(sweep, LLVMGetOperand(call, (unsigned)at.bytes)));
    LLVMValueRef args[7] = {source, as_pointer(b, ddst), bytes, common[0], common[1], common[2], common[3]};
    kn_call_libc(b, "__kinase_copy_reverse", LLVMVoidTypeInContext(kn_module.ctx), args, 7);
    return;
  }
  int sizes[4] = {at.spitch, at.dpitch, at.width, at.height};
  LLVMValueRef size[4];
  for (int i = 0; i < 4; i++)
    size[i] = sizes[i] >= 0 ? size_value(b, primal(sweep, LLVMGetOperand(call, (unsigned)sizes[i])))
                            : LLVMConstInt(i64_type(), 0, 0); /* a set has no source */
  /* The driver's 2-D sets (cuMemsetD2D32) count the width in elements. */
  size[2] = cuda_bytes(b, rule, size[2]);
  LLVMValueRef args[10] = {source,    size[0],   as_pointer(b, ddst), size[1],  size[2],
                           size[3],   common[0], common[1],           common[2], common[3]};
  kn_call_libc(b, "__kinase_copy2d_reverse", LLVMVoidTypeInContext(kn_module.ctx), args, 10);
}

/* Copies a CUDA_MEMCPY2D describes: the runtime reads the descriptor and
 * its shadow, whose address fields hold the shadows of the addresses stored
 * in it, as the forward sweep mirrored those stores. */
static LLVMValueRef shadow_or_null(LLVMValueRef shadow) { return shadow ? shadow : LLVMConstNull(ptr_type()); }

LLVMValueRef cuda_described_copy_record(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call,
                                        LLVMValueRef shadow, LLVMValueRef subject) {
  LLVMValueRef args[4] = {LLVMGetOperand(call, 0), shadow_or_null(shadow), cuda_stream_operand(rule, call),
                          where_string(b, subject)};
  return kn_call_libc(b, "__kinase_copy2d_record", ptr_type(), args, 4);
}

void cuda_described_copy_reverse(LLVMBuilderRef b, LLVMValueRef record, LLVMValueRef stream,
                                 LLVMValueRef subject) {
  LLVMValueRef args[3] = {record, stream, where_string(b, subject)};
  kn_call_libc(b, "__kinase_copy2d_record_reverse", LLVMVoidTypeInContext(kn_module.ctx), args, 3);
}

void cuda_described_copy_tangent(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call,
                                 LLVMValueRef tangent, LLVMValueRef subject) {
  LLVMValueRef args[4] = {LLVMGetOperand(call, 0), tangent, cuda_stream_operand(rule, call),
                          where_string(b, subject)};
  kn_call_libc(b, "__kinase_copy2d_tangent", LLVMVoidTypeInContext(kn_module.ctx), args, 4);
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

/* Whether `call` (memset, memcpy) fills the memory at `address` with
 * constants: a set, or a copy of a constant global (how clang initialises
 * `double zeros[2] = {0, 0}` or a local array of coefficients). */
static bool fills_with_constants(const Rule *rule, LLVMValueRef call, LLVMValueRef address) {
  if (LLVMGetOperand(call, 0) != address)
    return false;
  LLVMValueRef source = rule->kind == RULE_MEMCPY ? kn_strip_casts(LLVMGetOperand(call, 1)) : NULL;
  return rule->kind == RULE_MEMSET ||
         (source && LLVMIsAGlobalVariable(source) && LLVMIsGlobalConstant(source));
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
                (rule && (rule->kind == RULE_INACTIVE || (rule->cuda && rule->cuda->to_symbol))) ||
                (rule && !rule->cuda && fills_with_constants(rule, user, address));
    bool derived = LLVMIsAGetElementPtrInst(user) || LLVMIsACastInst(user);
    if (!fine && !(derived && local_without_derivatives(varied, user, depth + 1)))
      return false;
  }
  return true;
}

bool cuda_symbol_source_varied(ValueSet *varied, LLVMValueRef call) {
  LLVMValueRef src = LLVMGetOperand(call, 1), local = kn_underlying_object(src);
  return vset_has(varied, src) &&
         !(LLVMIsAAllocaInst(local) && local_without_derivatives(varied, local, 0));
}

void cuda_release_deferred(LLVMBuilderRef b) {
  kn_call_libc(b, "__kinase_release_deferred", LLVMVoidTypeInContext(kn_module.ctx), NULL, 0);
}

/* A kernel stub this file defines: through it the runtime finds the device
 * module that holds the file's __device__ variables and their shadows. */
static LLVMValueRef file_kernel_stub(void) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn) && cuda_is_launch_stub(fn))
      return fn;
  return NULL;
}

/* The element a handle's variable holds (float g_sum, double acc[4]). */
static LLVMTypeRef variable_floats(LLVMValueRef handle) {
  LLVMTypeRef type = LLVMGlobalGetValueType(handle);
  while (LLVMGetTypeKind(type) == LLVMArrayTypeKind)
    type = LLVMGetElementType(type);
  return kn_is_float_or_double(type) ? type : NULL;
}

static bool is_cuda_api(const char *name);

/* Whether `fn` or a function it calls calls the CUDA API (a launch's stub
 * does). */
static bool reaches_cuda_api(LLVMValueRef fn, ValueSet *seen) {
  if (!fn || !vset_add(seen, fn))
    return false;
  if (LLVMIsDeclaration(fn))
    return is_cuda_api(kn_function_name(fn));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (kn_is_call_site(inst) && reaches_cuda_api(kn_called_function(inst), seen))
        return true;
  return false;
}

void cuda_clear_symbol_shadows(LLVMBuilderRef b, LLVMValueRef subject) {
  LLVMValueRef stub = file_kernel_stub();
  ValueSet seen = {0};
  bool reaches = stub && reaches_cuda_api(subject, &seen);
  vset_free(&seen);
  if (!reaches)
    return;
  for (LLVMValueRef g = LLVMGetFirstGlobal(kn_module.mod); g; g = LLVMGetNextGlobal(g)) {
    if (!globals_is_device_variable_handle(g) || !kn_type_has_floats(LLVMGlobalGetValueType(g)))
      continue;
    LLVMValueRef args[3] = {stub, kn_constant_string(b, kn_value_name(g)), where_string(b, subject)};
    kn_call_libc(b, "__kinase_symbol_shadow_clear", LLVMVoidTypeInContext(kn_module.ctx), args, 3);
  }
}

LLVMValueRef cuda_before_symbol_copy(LLVMBuilderRef b, LLVMValueRef call, bool source_varied,
                                     LLVMValueRef subject) {
  LLVMValueRef handle = kn_strip_casts(LLVMGetOperand(call, 0)), stub = file_kernel_stub();
  if (!LLVMIsAGlobalVariable(handle) || !stub || !kn_type_has_floats(LLVMGlobalGetValueType(handle)))
    return NULL; /* no derivative goes through it, or the copy's reverse reports it */
  LLVMValueRef name = kn_constant_string(b, kn_value_name(handle)), where = where_string(b, subject);
  if (source_varied) {
    LLVMValueRef live[3] = {stub, name, where};
    kn_call_libc(b, "__kinase_symbol_live", LLVMVoidTypeInContext(kn_module.ctx), live, 3);
  }
  LLVMValueRef args[5] = {stub, name, size_value(b, LLVMGetOperand(call, 3)), size_value(b, LLVMGetOperand(call, 2)),
                          where};
  defers = true; /* the request puts the variable's last value back at its end */
  return kn_call_libc(b, "__kinase_symbol_snapshot", ptr_type(), args, 5);
}

void cuda_symbol_restore(LLVMBuilderRef b, LLVMValueRef snapshot, LLVMValueRef subject) {
  LLVMValueRef args[2] = {snapshot, where_string(b, subject)};
  kn_call_libc(b, "__kinase_symbol_restore", LLVMVoidTypeInContext(kn_module.ctx), args, 2);
}

LLVMValueRef cuda_symbol_discard_function(void) {
  LLVMTypeRef ptr = ptr_type();
  return kn_libc_function("__kinase_symbol_discard", LLVMVoidTypeInContext(kn_module.ctx), &ptr, 1);
}

static LLVMValueRef operand_of(CudaOperandFn primal, void *sweep, LLVMValueRef call, unsigned i) {
  LLVMValueRef v = LLVMGetOperand(call, i);
  return primal ? primal(sweep, v) : v;
}

bool cuda_symbol_copy_derivative(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call,
                                 CudaOperandFn primal, void *sweep, LLVMValueRef shadow,
                                 LLVMValueRef subject) {
  bool from = rule->cuda->from_symbol;
  LLVMValueRef handle = kn_strip_casts(LLVMGetOperand(call, from ? 1 : 0)), stub = file_kernel_stub();
  if (!LLVMIsAGlobalVariable(handle) || !stub) {
    kn_error(call, subject, "%s of %s: Kinase finds the shadow of a __device__ variable through "
                            "the kernels of the file that defines it; copy the variable itself, "
                            "in the file of a kernel that writes it",
             kn_function_name(kn_called_function(call)),
             LLVMIsAGlobalVariable(handle) ? "a variable of a file without kernels" : "a computed symbol");
    return false;
  }
  LLVMValueRef args[4] = {stub, kn_constant_string(b, kn_value_name(handle)),
                          size_value(b, operand_of(primal, sweep, call, 3)), where_string(b, subject)};
  LLVMValueRef variable = kn_call_libc(b, "__kinase_symbol_shadow", ptr_type(), args, 4);
  LLVMValueRef bytes = size_value(b, operand_of(primal, sweep, call, 2));
  LLVMValueRef stream = primal ? primal(sweep, cuda_stream_operand(rule, call)) : cuda_stream_operand(rule, call);
  LLVMValueRef other = shadow ? as_pointer(b, shadow) : LLVMConstNull(ptr_type());
  LLVMValueRef to = from ? other : variable, source = from ? variable : other;
  if (!primal) { /* forward mode: the tangents copied as the values are */
    LLVMValueRef tangent[5] = {to, source, bytes, stream, where_string(b, subject)};
    kn_call_libc(b, "__kinase_copy_tangent", LLVMVoidTypeInContext(kn_module.ctx), tangent, 5);
    return true;
  }
  LLVMValueRef reverse[7] = {source,
                             to,
                             bytes,
                             LLVMConstInt(i32_type(), 4 /* cudaMemcpyDefault */, 0),
                             stream,
                             LLVMConstInt(i32_type(), element_of(variable_floats(handle)), 0),
                             where_string(b, subject)};
  kn_call_libc(b, "__kinase_copy_reverse", LLVMVoidTypeInContext(kn_module.ctx), reverse, 7);
  return true;
}

/* The CUDA API's entry points: cudaX and cuX (driver), and clang's own
 * __cuda bookkeeping. */
static bool is_cuda_api(const char *name) {
  return !strncmp(name, "cuda", 4) || !strncmp(name, "__cuda", 6) ||
         (!strncmp(name, "cu", 2) && name[2] >= 'A' && name[2] <= 'Z');
}

/* cuda.def's CUDA_REFUSED rows: calls refused with a reason. */
static const struct {
  const char *name, *why;
} refused[] = {
#define CUDA(name, kind, arg, how, kind_arg, stream_arg)
#define CUDA_2D(name, kind, arg, how, kind_arg, stream_arg)
#define CUDA_SET(name, unit, stream_arg)
#define CUDA_SET_2D(name, unit, stream_arg)
#define CUDA_TO_SYMBOL(name, stream_arg)
#define CUDA_FROM_SYMBOL(name, stream_arg)
#define CUDA_REFUSED(name, why) {name, why},
#include "rules/cuda.def"
#undef CUDA_REFUSED
#undef CUDA_FROM_SYMBOL
#undef CUDA_TO_SYMBOL
#undef CUDA_SET_2D
#undef CUDA_SET
#undef CUDA_2D
#undef CUDA
};

bool cuda_unknown_api_call(LLVMValueRef call, LLVMValueRef subject) {
  LLVMValueRef callee = kn_called_function(call);
  if (!callee || !LLVMIsDeclaration(callee) || !is_cuda_api(kn_function_name(callee)) ||
      rule_for_function(callee))
    return false;
  const char *name = kn_function_name(callee);
  for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
    if (!strcmp(refused[k].name, name)) {
      kn_error(call, subject, "%s (%s)", refused[k].why, name);
      return true;
    }
  kn_error(call, subject, "CUDA API function '%s' has no derivative rule in Kinase", name);
  return true;
}
