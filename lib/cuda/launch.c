/* Kernel launches in host code: the derivatives of a launch stub.
 *
 * Clang turns kernel<<<grid, block, shmem, stream>>>(args) into
 * __cudaPushCallConfiguration(grid, block, shmem, stream) followed by a
 * call of the kernel's host stub, which pops the configuration and calls
 * cudaLaunchKernel(stub, grid, block, args, shmem, stream). A call of the
 * stub is thus the launch, and the derivative cache asks this file, not the
 * generators, for the stub's derivatives: they pop the configuration as the
 * stub does and hand the launch to the runtime (runtime/kinase_cuda.h),
 * which finds the derivative kernels the device module holds.
 *
 *   aug: __kinase_launch_augment(...) launches the kernel (or skips it when
 *        it only writes results nobody needs) and returns the launch's
 *        record, which is the tape;
 *   rev: __kinase_launch_reverse(record, adjoints) launches the reverse
 *        kernel and returns the adjoints of active float arguments;
 *   fwd: __kinase_launch_tangent(...) launches the forward kernel instead.
 *
 * The pair's release function, called when an exception unwinds through the
 * caller's augmented sweep after the launch, hands the record back with
 * __kinase_launch_discard.
 */
#include "kinase.h"

#include <stdlib.h>
#include <string.h>

static LLVMTypeRef ptr_type(void) { return LLVMPointerTypeInContext(kn_module.ctx, 0); }

/* A stub passes itself to cudaLaunchKernel: looking at that function's
 * calls, few and only in host CUDA modules, costs nothing elsewhere. */
bool cuda_is_launch_stub(LLVMValueRef fn) {
  static const char *const launchers[] = {"cudaLaunchKernel", "cudaLaunchKernel_ptsz"};
  if (cuda_is_stub_by_reference(fn))
    return true;
  for (size_t k = 0; k < sizeof launchers / sizeof *launchers; k++) {
    LLVMValueRef launcher = LLVMGetNamedFunction(kn_module.mod, launchers[k]);
    for (LLVMUseRef use = launcher ? LLVMGetFirstUse(launcher) : NULL; use; use = LLVMGetNextUse(use)) {
      LLVMValueRef call = LLVMGetUser(use);
      if (LLVMIsACallInst(call) && kn_called_function(call) == launcher &&
          LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)) == fn &&
          LLVMGetNumArgOperands(call) > 0 && kn_strip_casts(LLVMGetOperand(call, 0)) == fn)
        return true;
    }
  }
  return false;
}

/* Whether `v` reaches memory only through launches and the copies it is
 * the source of (through address arithmetic, phis and selects). */
static bool only_given_to_kernels(LLVMValueRef v, int depth) {
  if (depth > 4)
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAICmpInst(user))
      continue;
    bool passes_on = (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == v) ||
                     LLVMIsABitCastInst(user) || LLVMIsAAddrSpaceCastInst(user) || LLVMIsAPHINode(user) ||
                     (LLVMIsASelectInst(user) && LLVMGetOperand(user, 0) != v);
    if (passes_on) {
      if (!only_given_to_kernels(user, depth + 1))
        return false;
      continue;
    }
    LLVMValueRef callee = kn_is_call_site(user) ? kn_called_function(user) : NULL;
    const Rule *rule = callee ? rule_for_function(callee) : NULL;
    /* The launch may already be its derivative's call (phis come last). */
    LLVMValueRef primal = callee ? derive_primal_of(callee) : NULL;
    bool launched = callee && cuda_is_launch_stub(primal ? primal : callee);
    bool copied_from = rule && rule->cuda && rule->kind == RULE_MEMCPY && cuda_copy_source(rule, user) == v &&
                       LLVMGetOperand(user, 0) != v;
    if (!launched && !copied_from)
      return false;
  }
  return true;
}

bool cuda_null_shadow_suffices(LLVMValueRef merge) {
  return (LLVMIsAPHINode(merge) || LLVMIsASelectInst(merge)) && only_given_to_kernels(merge, 0);
}

char *cuda_launched_kernel_name(LLVMValueRef stub) {
  const char *name = kn_function_name(stub), *start = name;
  size_t length = strlen(name);
  if (!strncmp(name, "_Z", 2)) {
    char *end;
    length = strtoul(name + 2, &end, 10);
    start = end;
  }
  static const char prefix[] = "__device_stub__";
  if (length > sizeof prefix - 1 && !strncmp(start, prefix, sizeof prefix - 1)) {
    start += sizeof prefix - 1;
    length -= sizeof prefix - 1;
  }
  return kn_strdup_printf("%.*s", (int)length, start);
}

/* "a launch of kernel 'loglik'". */
static LLVMValueRef where_string(LLVMBuilderRef b, LLVMValueRef stub) {
  char *kernel = cuda_launched_kernel_name(stub);
  char *text = kn_strdup_printf("a launch of kernel '%s'", kernel);
  LLVMValueRef s = kn_constant_string(b, text);
  free(kernel);
  free(text);
  return s;
}

/* An array of n pointers (NULL elements give NULL): what cudaLaunchKernel
 * takes as its arguments, and the runtime as shadows. */
static LLVMValueRef pointer_array(LLVMBuilderRef b, LLVMValueRef *elements, unsigned n) {
  LLVMTypeRef type = LLVMArrayType2(ptr_type(), n ? n : 1);
  LLVMValueRef array = LLVMBuildAlloca(b, type, "kinase.args");
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), i, 0);
    LLVMBuildStore(b, elements[i] ? elements[i] : LLVMConstNull(ptr_type()),
                   LLVMBuildGEP2(b, ptr_type(), array, &index, 1, ""));
  }
  return array;
}

static LLVMValueRef at_offset(LLVMBuilderRef b, LLVMValueRef base, unsigned offset) {
  LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), offset, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx), base, &index, 1, "");
}

/* A fresh local of `type`, zeroed where `zeroed`, holding values[j] at its
 * offset for each stub parameter j that is part of kernel parameter k and
 * has a value (NULL: none). */
static LLVMValueRef slot_of(LLVMBuilderRef b, const StubLayout *layout, unsigned k, LLVMTypeRef type,
                            bool zeroed, LLVMValueRef *values, unsigned nvalues) {
  LLVMValueRef slot = LLVMBuildAlloca(b, type, "");
  if (zeroed)
    LLVMBuildStore(b, LLVMConstNull(type), slot);
  for (unsigned j = 0; j < nvalues; j++)
    if (layout->kernel_of[j] == (int)k && values[j])
      LLVMBuildStore(b, values[j], at_offset(b, slot, layout->offset[j]));
  return slot;
}

/* The one stub parameter that is kernel parameter k, which is no struct
 * split into pieces. */
static unsigned stub_param(const StubLayout *layout, unsigned k) {
  unsigned j = 0;
  while (layout->kernel_of[j] != (int)k)
    j++;
  return j;
}

/* The stub's parameters as `fn` (a derivative of the stub) has them: each
 * primal, and the shadow (tangent) of each active one, else NULL. */
static void stub_values(const Signature *sig, LLVMValueRef fn, LLVMValueRef *primals, LLVMValueRef *shadows) {
  for (unsigned i = 0, p = 0; i < sig->nparams; i++) {
    primals[i] = LLVMGetParam(fn, p++);
    bool has_shadow = sig->params[i] == ACT_DUP || sig->params[i] == ACT_DUPNONEED;
    shadows[i] = has_shadow ? LLVMGetParam(fn, p++) : NULL;
  }
}

/* What the runtime is told of each argument (runtime/kinase_cuda.h). */
static char mode_letter(Activity act, LLVMTypeRef type) {
  bool pointer = kn_is_pointer_type(type);
  /* An integer (a pitch read back from cudaMallocPitch's slot, which has a
   * shadow) carries no derivative, whatever the caller's analysis gave it. */
  if (LLVMGetTypeKind(type) == LLVMIntegerTypeKind)
    return 'c';
  switch (act) {
  case ACT_DUP:
    return pointer ? 'd' : 'o';
  case ACT_DUPNONEED:
    return pointer ? 'n' : 'o';
  case ACT_OUT:
    return 'o';
  default:
    return 'c';
  }
}

typedef struct {
  LLVMValueRef grid, block, shmem, stream, args, shadows, modes, where;
} Launch;

/* The stub's own first steps: pop the configuration, gather the arguments;
 * and the shadows (tangents in forward mode) of the active ones, one per
 * kernel parameter: a struct's shadow is a struct of the same layout, its
 * pointer fields the shadows (NULL for Const), its float fields the
 * tangents in forward mode (runtime/kinase_cuda.h). */
static Launch begin_launch(LLVMBuilderRef b, const Signature *sig, const StubLayout *layout,
                           LLVMValueRef deriv) {
  LLVMContextRef c = kn_module.ctx;
  LLVMTypeRef dim3 = LLVMArrayType2(LLVMInt32TypeInContext(c), 3), i64 = LLVMInt64TypeInContext(c);
  Launch l;
  l.grid = LLVMBuildAlloca(b, dim3, "grid");
  l.block = LLVMBuildAlloca(b, dim3, "block");
  LLVMValueRef shmem = LLVMBuildAlloca(b, i64, "shmem"), stream = LLVMBuildAlloca(b, ptr_type(), "stream");
  LLVMValueRef pop[4] = {l.grid, l.block, shmem, stream};
  kn_call_libc(b, "__cudaPopCallConfiguration", LLVMInt32TypeInContext(c), pop, 4);
  l.shmem = LLVMBuildLoad2(b, i64, shmem, "");
  l.stream = LLVMBuildLoad2(b, ptr_type(), stream, "");
  LLVMValueRef primals[KN_MAX_PARAMS], shadows[KN_MAX_PARAMS];
  stub_values(sig, deriv, primals, shadows);
  LLVMValueRef args[KN_MAX_PARAMS], shadow_args[KN_MAX_PARAMS];
  char modes[KN_MAX_PARAMS + 1];
  for (unsigned k = 0; k < layout->nkernel; k++) {
    unsigned j = stub_param(layout, k);
    if (!layout->slot[k]) { /* byval: the stub's parameter is the argument */
      args[k] = primals[j];
      shadow_args[k] = shadows[j];
      modes[k] = shadows[j] ? 'd' : 'c';
    } else if (cuda_stub_aggregate(layout, k)) {
      args[k] = slot_of(b, layout, k, layout->slot[k], false, primals, sig->nparams);
      shadow_args[k] = slot_of(b, layout, k, layout->slot[k], true, shadows, sig->nparams);
      modes[k] = 'd';
    } else {
      args[k] = slot_of(b, layout, k, LLVMTypeOf(primals[j]), false, primals, sig->nparams);
      shadow_args[k] = shadows[j] ? slot_of(b, layout, k, LLVMTypeOf(shadows[j]), false, shadows, sig->nparams)
                                  : NULL;
      modes[k] = mode_letter(sig->params[j], LLVMTypeOf(primals[j]));
    }
  }
  modes[layout->nkernel] = 0;
  l.args = pointer_array(b, args, layout->nkernel);
  l.shadows = pointer_array(b, shadow_args, layout->nkernel);
  l.modes = kn_constant_string(b, modes);
  l.where = where_string(b, cuda_launched_stub(sig->fn));
  return l;
}

static LLVMBuilderRef builder_in(LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "entry"));
  return b;
}

static void generate_augment(const Signature *sig, const StubLayout *layout, LLVMValueRef aug) {
  LLVMBuilderRef b = builder_in(aug);
  Launch l = begin_launch(b, sig, layout, aug);
  LLVMValueRef args[9] = {cuda_launched_stub(sig->fn), l.grid,    l.block, l.shmem, l.stream,
                          l.args,  l.shadows, l.modes, l.where};
  LLVMValueRef record = kn_call_libc(b, "__kinase_launch_augment", ptr_type(), args, 9);
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(aug));
  LLVMBuildRet(b, LLVMBuildInsertValue(b, LLVMGetPoison(ret), record, 0, ""));
  LLVMDisposeBuilder(b);
}

/* The runtime adds the adjoints of an active float parameter, or of a
 * struct's float fields, into its element of the adjoints array (NULL: not
 * wanted): a zeroed local, whose active parts are returned, or for a byval
 * struct its shadow, from where the caller's reverse sweep takes them. */
static void generate_reverse(const Signature *sig, const StubLayout *layout, LLVMValueRef rev) {
  LLVMBuilderRef b = builder_in(rev);
  LLVMTypeRef types[KN_MAX_PARAMS];
  LLVMGetParamTypes(LLVMGlobalGetValueType(sig->fn), types);
  LLVMValueRef primals[KN_MAX_PARAMS], shadows[KN_MAX_PARAMS], elements[KN_MAX_PARAMS] = {0};
  stub_values(sig, rev, primals, shadows);
  for (unsigned i = 0; i < sig->nparams; i++) {
    unsigned k = (unsigned)layout->kernel_of[i];
    if (!layout->slot[k])
      elements[k] = shadows[i];
    else if (sig->params[i] == ACT_OUT && !elements[k])
      elements[k] = slot_of(b, layout, k, cuda_stub_aggregate(layout, k) ? layout->slot[k] : types[i],
                            true, NULL, 0);
  }
  LLVMValueRef adjoints = pointer_array(b, elements, layout->nkernel);
  LLVMValueRef tape = LLVMGetLastParam(rev);
  kn_call_libc(b, "__kinase_launch_reverse", LLVMVoidTypeInContext(kn_module.ctx),
               (LLVMValueRef[]){tape, adjoints}, 2);
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(rev));
  if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind) {
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    return;
  }
  LLVMValueRef result = LLVMGetPoison(ret);
  for (unsigned i = 0, field = 0; i < sig->nparams; i++) {
    if (sig->params[i] != ACT_OUT)
      continue;
    LLVMValueRef slot = elements[layout->kernel_of[i]];
    LLVMValueRef adjoint = LLVMBuildLoad2(b, types[i], at_offset(b, slot, layout->offset[i]), "");
    result = LLVMBuildInsertValue(b, result, adjoint, field++, "");
  }
  LLVMBuildRet(b, result);
  LLVMDisposeBuilder(b);
}

static void generate_tangent(const Signature *sig, const StubLayout *layout, LLVMValueRef fwd) {
  LLVMBuilderRef b = builder_in(fwd);
  Launch l = begin_launch(b, sig, layout, fwd);
  LLVMValueRef args[9] = {cuda_launched_stub(sig->fn), l.grid,    l.block, l.shmem, l.stream,
                          l.args,  l.shadows, l.modes, l.where};
  kn_call_libc(b, "__kinase_launch_tangent", LLVMVoidTypeInContext(kn_module.ctx), args, 9);
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(fwd));
  if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, LLVMConstNull(ret));
  LLVMDisposeBuilder(b);
}

/* The record is null when the caller's augmented sweep never got to the
 * launch (its tape's fields start zeroed). */
static void generate_release(LLVMValueRef release) {
  LLVMBuilderRef b = builder_in(release);
  LLVMBasicBlockRef discard = LLVMAppendBasicBlockInContext(kn_module.ctx, release, "discard");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(kn_module.ctx, release, "done");
  LLVMValueRef record = LLVMGetParam(release, 0);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, record, ""), done, discard);
  LLVMPositionBuilderAtEnd(b, discard);
  cuda_launch_discard(b, record);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

bool cuda_generate_launch(const Signature *sig, LLVMValueRef aug, LLVMValueRef deriv, LLVMValueRef release) {
  StubLayout layout;
  if (!cuda_stub_layout(sig->fn, &layout)) {
    kn_error(NULL, sig->fn, "this kernel launch stub does not fill cudaLaunchKernel's arguments "
                            "as clang does: Kinase cannot tell which argument is which");
    return false;
  }
  if (sig->mode == MODE_FORWARD) {
    generate_tangent(sig, &layout, deriv);
    return true;
  }
  if (sig->adjacent) {
    kn_error(NULL, sig->fn, "a kernel's launch stub is not a function to ask derivatives of: "
                            "differentiate the host function that launches it");
    return false;
  }
  generate_augment(sig, &layout, aug);
  generate_reverse(sig, &layout, deriv);
  if (release)
    generate_release(release);
  derive_set_tape_type(sig, ptr_type());
  return true;
}
