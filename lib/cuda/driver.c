/* Driver-API launches in host code: cuLaunchKernel(f, gx, gy, gz, bx, by,
 * bz, shmem, stream, kernelParams, extra) and cuLaunchKernelEx(config, f,
 * kernelParams, extra), RULE_LAUNCH rows of rules/cuda.def, as calls of the
 * runtime (runtime/kinase_cuda.h).
 *
 * The compiler knows neither the kernel behind f nor its parameters: what
 * it knows is the shadow of kernelParams. The user fills kernelParams with
 * the addresses of argument slots (void *args[] = {&x, &n}); those slots
 * are memory like any other, so the generators give the array and the
 * slots their shadows and mirror the stores: a shadow slot holds the
 * shadow of the pointer or CUdeviceptr stored into the slot, and stays
 * zero (Const) where the value stored has none. The runtime reads the
 * kernel's parameters from the kernel info of its module and takes each
 * pointer parameter whose shadow slot holds a shadow as 'd', the rest as
 * Const; the adjoint of a float parameter goes into its shadow slot, from
 * where the reverse of the store into the slot takes it.
 *
 *   aug: __kinase_driver_launch_augment(...) just before the user's call
 *        (which stays and launches the kernel) records the launch;
 *   rev: __kinase_driver_launch_reverse(record, shadow array) launches the
 *        reverse kernel;
 *   fwd: __kinase_driver_launch_tangent(...) launches the forward kernel in
 *        place of the user's call, whose result becomes CUDA_SUCCESS.
 * Packed arguments (`extra`) are refused: their layout is the user's.
 */
#include "kinase.h"

/* The launch calls, told apart by their operand count: where kernelParams
 * and extra are, and the runtime's entry points for them, which take the
 * operands up to kernelParams, then its shadow and `where`. */
static const struct LaunchForm {
  unsigned noperands, params, extra;
  const char *augment, *tangent;
} forms[] = {
    /* cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, kernelParams, extra) */
    {11, 9, 10, "__kinase_driver_launch_augment", "__kinase_driver_launch_tangent"},
    /* cuLaunchKernelEx(config, f, kernelParams, extra) */
    {4, 2, 3, "__kinase_driver_launch_ex_augment", "__kinase_driver_launch_ex_tangent"},
};

static const struct LaunchForm *form_of(LLVMValueRef call) {
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
    if (LLVMGetNumArgOperands(call) == forms[i].noperands)
      return &forms[i];
  kn_die("launch call '%s' of unknown form", kn_function_name(kn_called_function(call)));
}

static LLVMTypeRef ptr_type(void) { return LLVMPointerTypeInContext(kn_module.ctx, 0); }

bool cuda_launch_unsupported(LLVMValueRef call, LLVMValueRef subject) {
  if (LLVMIsNull(LLVMGetOperand(call, form_of(call)->extra)))
    return false;
  kn_error(call, subject, "%s with 'extra' (arguments packed in a buffer) is not supported: pass "
                          "the kernel's arguments through kernelParams",
           kn_function_name(kn_called_function(call)));
  return true;
}

/* Calls the runtime's `entry` (augment or tangent) for `call`. */
static LLVMValueRef call_runtime(LLVMBuilderRef b, const char *entry, LLVMTypeRef ret,
                                 LLVMValueRef call, LLVMValueRef shadows, LLVMValueRef subject) {
  LLVMValueRef args[16];
  unsigned n = 0;
  for (unsigned i = 0; i <= form_of(call)->params; i++)
    args[n++] = LLVMGetOperand(call, i);
  args[n++] = shadows ? shadows : LLVMConstNull(ptr_type());
  args[n++] = kn_constant_string(b, kn_function_name(subject));
  return kn_call_libc(b, entry, ret, args, n);
}

LLVMValueRef cuda_launch_augment(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef shadows,
                                 LLVMValueRef subject) {
  return call_runtime(b, form_of(call)->augment, ptr_type(), call, shadows, subject);
}

void cuda_launch_reverse(LLVMBuilderRef b, LLVMValueRef record, LLVMValueRef shadows) {
  LLVMValueRef args[2] = {record, shadows ? shadows : LLVMConstNull(ptr_type())};
  kn_call_libc(b, "__kinase_driver_launch_reverse", LLVMVoidTypeInContext(kn_module.ctx), args, 2);
}

void cuda_launch_tangent(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef tangents,
                         LLVMValueRef subject) {
  call_runtime(b, form_of(call)->tangent, LLVMVoidTypeInContext(kn_module.ctx), call, tangents,
               subject);
  LLVMReplaceAllUsesWith(call, LLVMConstNull(LLVMTypeOf(call)));
  LLVMInstructionEraseFromParent(call);
}
