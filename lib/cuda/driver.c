/* Launches through an array of argument pointers in host code: the driver
 * API's cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream,
 * kernelParams, extra) and cuLaunchKernelEx(config, f, kernelParams, extra),
 * and the runtime API's cudaLaunchKernel(kernel, grid, block, args, shmem,
 * stream) called by the user (not by a kernel's stub, cuda/launch.c) and
 * cudaLaunchKernelExC(config, kernel, args):
 * RULE_LAUNCH rows of rules/cuda.def, as calls of the runtime
 * (runtime/kinase_cuda.h).
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
 *   aug: __kinase_driver_launch_augment(...) launches the kernel in place
 *        of the user's call (whose result becomes CUDA_SUCCESS once the
 *        reverse sweep is built), or skips it as a launch through <<<>>>
 *        is skipped, and records the launch;
 *   rev: __kinase_driver_launch_reverse(record, shadow array) launches the
 *        reverse kernel;
 *   fwd: __kinase_driver_launch_tangent(...) launches the forward kernel in
 *        place of the user's call, whose result becomes CUDA_SUCCESS.
 * Packed arguments (`extra`) are refused: their layout is the user's.
 *
 * enzyme_dupnoneed: whether a parameter is used for nothing but launches is
 * decided where the <<<>>> path decides it (reverse/augment.c); here, which
 * argument slots only launches read (cuda_slot_only_launched), and which a
 * launch's array holds (cuda_launch_argument_slots). The runtime takes a
 * pointer parameter whose argument slot is listed as unneeded as 'n'.
 */
#include "kinase.h"

#include <string.h>

/* The launch calls, told apart by their operand count and whether they are
 * cooperative: whether `extra` (always last) is there, and the runtime's
 * entry points for them, which take the other operands, then the shadow of
 * the argument array and `where`. */
static const struct LaunchForm {
  unsigned noperands;
  bool cooperative, extra;
  const char *augment, *tangent;
} forms[] = {
    /* cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, kernelParams, extra) */
    {11, false, true, "__kinase_driver_launch_augment", "__kinase_driver_launch_tangent"},
    /* cuLaunchKernelEx(config, f, kernelParams, extra) */
    {4, false, true, "__kinase_driver_launch_ex_augment", "__kinase_driver_launch_ex_tangent"},
    /* cudaLaunchKernel(stub, grid, block, args, shmem, stream), each dim3
     * passed as {x | y << 32, z} (the x86-64 C ABI) */
    {8, false, false, "__kinase_direct_launch_augment", "__kinase_direct_launch_tangent"},
    /* cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, kernelParams) */
    {10, true, false, "__kinase_driver_cooperative_augment", "__kinase_driver_cooperative_tangent"},
    /* cudaLaunchKernelExC(config, stub, args): a cudaLaunchConfig_t */
    {3, false, false, "__kinase_direct_launch_ex_augment", "__kinase_direct_launch_ex_tangent"},
    /* cudaLaunchCooperativeKernel, with cudaLaunchKernel's operands */
    {8, true, false, "__kinase_direct_cooperative_augment", "__kinase_direct_cooperative_tangent"},
};

static const struct LaunchForm *form_of(LLVMValueRef call) {
  const char *name = kn_function_name(kn_called_function(call));
  bool cooperative = strstr(name, "Cooperative") != NULL;
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
    if (LLVMGetNumArgOperands(call) == forms[i].noperands && forms[i].cooperative == cooperative)
      return &forms[i];
  kn_die("launch call '%s' of unknown form", name);
}

static LLVMTypeRef ptr_type(void) { return LLVMPointerTypeInContext(kn_module.ctx, 0); }

bool cuda_is_argument_slot(LLVMValueRef p) {
  LLVMValueRef slot = kn_underlying_object(p);
  if (!LLVMIsAAllocaInst(slot))
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    bool stored_into = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot &&
                       LLVMGetOperand(user, 0) != slot;
    bool address_stored = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == slot;
    bool marker = LLVMIsACallInst(user) && kn_called_function(user) &&
                  !strncmp(kn_function_name(kn_called_function(user)), "llvm.lifetime.", 14);
    if (!stored_into && !address_stored && !marker)
      return false;
  }
  return true;
}

/* The kernelParams operand of a launch call, or NULL if `call` is none. */
static LLVMValueRef launch_params(LLVMValueRef call) {
  const Rule *rule = LLVMIsACallInst(call) ? rule_for_call(call) : NULL;
  return rule && rule->cuda && rule->kind == RULE_LAUNCH ? LLVMGetOperand(call, rule->arg) : NULL;
}

/* Whether the memory at `p` (an argument array, or a GEP into one) is only
 * filled and handed to launches as their kernelParams: nothing reads the
 * argument slots it points to but those launches. */
static bool only_launch_array(LLVMValueRef p, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(p); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    bool stored_into = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p &&
                       LLVMGetOperand(user, 0) != p;
    bool element = LLVMIsAGetElementPtrInst(user) && depth < 4 && only_launch_array(user, depth + 1);
    bool launched = launch_params(user) == p;
    bool marker = LLVMIsACallInst(user) && kn_called_function(user) &&
                  !strncmp(kn_function_name(kn_called_function(user)), "llvm.lifetime.", 14);
    if (!stored_into && !element && !launched && !marker)
      return false;
  }
  return true;
}

bool cuda_slot_only_launched(LLVMValueRef slot) {
  if (!LLVMIsAAllocaInst(slot) || !cuda_is_argument_slot(slot))
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 0) != slot)
      continue;
    LLVMValueRef array = kn_underlying_object(LLVMGetOperand(user, 1));
    if (!LLVMIsAAllocaInst(array) || !only_launch_array(array, 0))
      return false;
  }
  return true;
}

/* Adds to slots[*n] the allocas whose addresses are stored into the memory
 * at `p` (the launch's array, or a GEP into it). */
static void stored_slots(LLVMValueRef p, LLVMValueRef *slots, unsigned *n, unsigned max, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(p); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAGetElementPtrInst(user) && depth < 4)
      stored_slots(user, slots, n, max, depth + 1);
    else if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p && *n < max &&
             LLVMIsAAllocaInst(LLVMGetOperand(user, 0)))
      slots[(*n)++] = LLVMGetOperand(user, 0);
  }
}

unsigned cuda_launch_argument_slots(LLVMValueRef call, LLVMValueRef *slots, unsigned max) {
  LLVMValueRef array = kn_underlying_object(launch_params(call));
  unsigned n = 0;
  if (LLVMIsAAllocaInst(array))
    stored_slots(array, slots, &n, max, 0);
  return n;
}

bool cuda_launch_unsupported(LLVMValueRef call, LLVMValueRef subject) {
  unsigned last = LLVMGetNumArgOperands(call) - 1;
  if (!form_of(call)->extra || LLVMIsNull(LLVMGetOperand(call, last)))
    return false;
  kn_error(call, subject, "%s with 'extra' (arguments packed in a buffer) is not supported: pass "
                          "the kernel's arguments through kernelParams",
           kn_function_name(kn_called_function(call)));
  return true;
}

/* A NULL-terminated array of the n `slots`, or null when there are none;
 * in the entry block, as a launch may be in a loop. */
static LLVMValueRef slot_list(LLVMBuilderRef b, const LLVMValueRef *slots, unsigned n) {
  if (!n)
    return LLVMConstNull(ptr_type());
  LLVMBuilderRef entry = kn_entry_builder(LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)));
  LLVMValueRef list = LLVMBuildAlloca(entry, LLVMArrayType2(ptr_type(), n + 1), "kinase.unneeded");
  LLVMDisposeBuilder(entry);
  for (unsigned i = 0; i <= n; i++) {
    LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), i, 0);
    LLVMBuildStore(b, i < n ? slots[i] : LLVMConstNull(ptr_type()),
                   LLVMBuildGEP2(b, ptr_type(), list, &index, 1, ""));
  }
  return list;
}

/* Calls the runtime's `entry` (augment or tangent) for `call`; `unneeded`
 * goes after the shadows where not NULL (augment). */
static LLVMValueRef call_runtime(LLVMBuilderRef b, const char *entry, LLVMTypeRef ret,
                                 LLVMValueRef call, LLVMValueRef shadows, LLVMValueRef unneeded,
                                 LLVMValueRef subject) {
  LLVMValueRef args[16];
  unsigned n = 0, nargs = LLVMGetNumArgOperands(call) - form_of(call)->extra;
  for (unsigned i = 0; i < nargs; i++)
    args[n++] = LLVMGetOperand(call, i);
  args[n++] = shadows ? shadows : LLVMConstNull(ptr_type());
  if (unneeded)
    args[n++] = unneeded;
  args[n++] = kn_constant_string(b, kn_function_name(subject));
  return kn_call_libc(b, entry, ret, args, n);
}

LLVMValueRef cuda_launch_augment(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef shadows,
                                 const LLVMValueRef *unneeded, unsigned nunneeded,
                                 LLVMValueRef subject) {
  return call_runtime(b, form_of(call)->augment, ptr_type(), call, shadows,
                      slot_list(b, unneeded, nunneeded), subject);
}

void cuda_launch_replaced(LLVMValueRef call) {
  LLVMReplaceAllUsesWith(call, LLVMConstNull(LLVMTypeOf(call)));
  LLVMInstructionEraseFromParent(call);
}

void cuda_launch_reverse(LLVMBuilderRef b, LLVMValueRef record, LLVMValueRef shadows) {
  LLVMValueRef args[2] = {record, shadows ? shadows : LLVMConstNull(ptr_type())};
  kn_call_libc(b, "__kinase_driver_launch_reverse", LLVMVoidTypeInContext(kn_module.ctx), args, 2);
}

void cuda_launch_discard(LLVMBuilderRef b, LLVMValueRef record) {
  kn_call_libc(b, "__kinase_launch_discard", LLVMVoidTypeInContext(kn_module.ctx), &record, 1);
}

void cuda_launch_tangent(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef tangents,
                         LLVMValueRef subject) {
  call_runtime(b, form_of(call)->tangent, LLVMVoidTypeInContext(kn_module.ctx), call, tangents,
               NULL, subject);
  cuda_launch_replaced(call);
}
