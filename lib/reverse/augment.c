/* Reverse mode: the augmented forward sweep. The primal runs as it was,
 * with shadows beside its pointers (allocations, copies, stores and integer
 * copies of pointers), calls of the module's functions and registered
 * gradients replaced by their augmented passes, whose tapes it keeps, and
 * the predecessor recorded where a block has several. Separate because it
 * writes aug only; the reverse sweep reads what it leaves in Reverse
 * (shadow, calls, from). */
#include "reverse.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

/* ---- the augmented forward sweep ---- */

/* Pointers (also inside aggregates, as the {result, tape} of an augmented
 * sweep being differentiated again), and addresses held in integers, have
 * shadows. */
static bool has_shadow(Reverse *r, LLVMValueRef v) {
  LLVMTypeRef type = LLVMTypeOf(v);
  /* An aggregate parameter is enzyme_out (its adjoint comes back), never
   * passed with a shadow. */
  bool aggregate_param = !kn_is_pointer_type(type) && LLVMIsAArgument(v);
  return is_varied(r, v) && ((kn_type_has_pointers(type) && !aggregate_param) ||
                             vset_has(&r->addresses, v));
}

LLVMValueRef rev_shadow_of(Reverse *r, LLVMValueRef v, LLVMValueRef user) {
  if (has_shadow(r, v)) {
    LLVMValueRef s = vmap_get(&r->shadow, v);
    if (!s)
      kn_die("varied pointer %s has no shadow yet", kn_value_name(v));
    return s;
  }
  if (kn_is_pointer_type(LLVMTypeOf(v)) && cuda_null_shadow_suffices(user))
    return LLVMConstNull(LLVMTypeOf(v));
  return unsupported_missing_shadow(v, user, r->sig->fn, &r->failed);
}

/* The instruction applied to the shadows of operands [first, first+count).
 * A load or store through a shadow address that may be null (a pointer
 * read from memory set up outside any derivative, as the buckets of a
 * global std::unordered_map whose shadow is zero: core/nullshadow.c)
 * reads zeros or writes to a sink instead, as the reverse sweep's do. */
static LLVMValueRef shadow_twin(Reverse *r, LLVMValueRef inst, unsigned first, unsigned count) {
  LLVMValueRef copy = LLVMInstructionClone(inst);
  bool store = LLVMIsAStoreInst(inst);
  int address = LLVMIsALoadInst(inst) ? 0 : store ? 1 : -1;
  for (unsigned i = first; i < first + count; i++) {
    LLVMValueRef shadow = rev_shadow_of(r, LLVMGetOperand(inst, i), inst);
    LLVMValueRef base = (int)i == address ? null_shadow_base(shadow) : NULL;
    LLVMSetOperand(copy, i, base ? null_shadow_guard(r->ab, base, shadow, store) : shadow);
  }
  kn_drop_metadata(copy);
  bool is_void = LLVMGetTypeKind(LLVMTypeOf(copy)) == LLVMVoidTypeKind;
  LLVMInsertIntoBuilderWithName(r->ab, copy, is_void ? "" : "shadow"); /* a store has no name */
  vset_add(&r->shadow_code, copy);
  return copy;
}

static void set_shadow(Reverse *r, LLVMValueRef v, LLVMValueRef shadow) {
  vmap_put(&r->shadow, v, shadow);
  vset_add(&r->shadow_code, shadow);
}


static LLVMValueRef alloca_size(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMValueRef size = const64(LLVMABISizeOfType(kn_module.layout, LLVMGetAllocatedType(inst)));
  LLVMValueRef count = LLVMGetOperand(inst, 0);
  if (LLVMIsAConstantInt(count) && LLVMConstIntGetZExtValue(count) == 1)
    return size;
  return LLVMBuildMul(b, size, LLVMBuildZExtOrBitCast(b, count, i64(), ""), "");
}

/* The one value stored into local slot `slot`, or NULL. */
static LLVMValueRef only_value_stored(LLVMValueRef slot) {
  LLVMValueRef value = NULL;
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot)
      continue;
    if (value && value != LLVMGetOperand(user, 0))
      return NULL;
    value = LLVMGetOperand(user, 0);
  }
  return value;
}

/* Whether `arg`, an enzyme_dupnoneed parameter, is used for nothing but
 * one launch: passed to a kernel's launch stub (<<<>>>), or stored into an
 * argument slot that holds nothing else and that only launches' argument
 * arrays point to (cuLaunchKernel, cuLaunchKernelEx, cudaLaunchKernel). A
 * launch whose every written pointer is such may be skipped: the runtime
 * decides from the kernel info, for launches of both kinds. Given to a
 * second launch, the memory may be that one's input (a buffer between two
 * kernels): then what the first writes is needed. */
static bool only_launched(Reverse *r, LLVMValueRef arg) {
  if (!vset_has(&r->unneeded_params, arg))
    return false;
  unsigned launches = 0;
  for (LLVMUseRef use = LLVMGetFirstUse(arg); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (vset_has(&r->shadow_code, user))
      continue;
    LLVMValueRef callee = LLVMIsACallInst(user) ? kn_called_function(user) : NULL;
    bool into_slot = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == arg &&
                     cuda_slot_only_launched(LLVMGetOperand(user, 1)) &&
                     only_value_stored(LLVMGetOperand(user, 1)) == arg;
    if (!(callee && cuda_is_launch_stub(callee)) && !into_slot)
      return false;
    launches++;
  }
  return launches == 1;
}

Signature rev_call_signature(Reverse *r, LLVMValueRef call, LLVMValueRef callee) {
  Signature sig = {.fn = callee, .mode = MODE_REVERSE};
  sig.nparams = LLVMGetNumArgOperands(call);
  for (unsigned i = 0; i < sig.nparams; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    sig.params[i] = activity_own_shadow_argument(arg)       ? ACT_DUP
                    : !is_varied(r, arg)                      ? ACT_CONST
                    : kn_is_pointer_type(LLVMTypeOf(arg))     ? ACT_DUP
                    : vset_has(&r->addresses, arg)           ? ACT_DUP
                    : kn_type_has_floats(LLVMTypeOf(arg))     ? ACT_OUT
                                                              : ACT_CONST;
  }
  sig.ret_tangent = has_adjoint(r, call);
  /* Memory nothing writes while this pair runs stays so while the callee's does. */
  for (unsigned i = 0; i < sig.nparams; i++)
    if (vset_has(&r->frozen_params, kn_underlying_object(LLVMGetOperand(call, i))))
      sig.frozen |= 1ull << i;
  /* A launch may be skipped where all it writes is results nobody needs:
   * an enzyme_dupnoneed parameter used for nothing but launches. */
  bool launch = cuda_is_launch_stub(callee);
  for (unsigned i = 0; i < sig.nparams && launch; i++)
    if (sig.params[i] == ACT_DUP && only_launched(r, LLVMGetOperand(call, i)))
      sig.params[i] = ACT_DUPNONEED;
  return sig;
}

unsigned rev_call_args(Reverse *r, LLVMValueRef call, const Signature *sig, LLVMValueRef *primals,
                          LLVMValueRef *args, LLVMValueRef (*value)(Reverse *, LLVMValueRef)) {
  unsigned n = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    args[n++] = value(r, primals[i]);
    if (sig->params[i] == ACT_DUP || sig->params[i] == ACT_DUPNONEED)
      args[n++] = value(r, rev_shadow_of(r, primals[i], call));
  }
  return n;
}

static LLVMValueRef identity(Reverse *r, LLVMValueRef v) {
  (void)r;
  return v;
}

void rev_operands(LLVMValueRef call, LLVMValueRef *out) {
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++)
    out[i] = LLVMGetOperand(call, i);
}

/* A call of a function in the module: the augmented forward sweep calls its
 * aug function and keeps the tape for the reverse sweep. */
static void augment_user_call(Reverse *r, LLVMValueRef call, LLVMValueRef callee) {
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)) ||
      LLVMGetNumArgOperands(call) > KN_MAX_PARAMS) {
    fail(r, call, "it calls variadic or very long function '%s'", kn_function_name(callee));
    return;
  }
  if (unsupported_unseen_launch_memory(&r->varied, call, r->sig->fn)) {
    r->failed = true;
    return;
  }
  AugCall aug = {.sig = rev_call_signature(r, call, callee)};
  rev_operands(call, aug.args);
  LLVMValueRef args[2 * KN_MAX_PARAMS];
  unsigned n = rev_call_args(r, call, &aug.sig, aug.args, args, identity);
  aug.call = LLVMBuildCall2(r->ab, derive_aug_type(&aug.sig), derive_aug(&aug.sig), args, n, "");
  LLVMTypeRef ret = LLVMTypeOf(call);
  unsigned field = 0;
  if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind) {
    aug.result = LLVMBuildExtractValue(r->ab, aug.call, field++, kn_value_name(call));
    LLVMReplaceAllUsesWith(call, aug.result);
    if (is_varied(r, call))
      vset_add(&r->varied, aug.result);
    if (vset_has(&r->useful, call))
      vset_add(&r->useful, aug.result);
    if (kn_type_has_pointers(ret)) {
      LLVMValueRef shadow = LLVMBuildExtractValue(r->ab, aug.call, field++, "shadow");
      if (is_varied(r, call))
        vmap_put(&r->shadow, aug.result, shadow);
    }
  }
  aug.tape = LLVMBuildExtractValue(r->ab, aug.call, field, "tape");
  unwind_follow(call, aug.call);
  /* Its address may come back as a new instruction's. */
  vset_remove(&r->varied, call);
  LLVMInstructionEraseFromParent(call);
  arrput(r->calls, aug);
}

/* A registered gradient: the user's augmented pass takes every argument,
 * each pointer followed by its shadow, and returns nothing, a tape pointer,
 * or {tape, result[, shadow of a pointer result]}; where it gives no result
 * the function itself still runs for it. */
static void augment_custom_call(Reverse *r, LLVMValueRef call, const Registration *custom) {
  AugCall aug = {.sig = rev_call_signature(r, call, kn_called_function(call)),
                 .custom_reverse = custom->reverse};
  rev_operands(call, aug.args);
  LLVMValueRef args[2 * KN_MAX_PARAMS];
  unsigned n = 0;
  for (unsigned i = 0; i < aug.sig.nparams; i++) {
    args[n++] = aug.args[i];
    if (kn_is_pointer_type(LLVMTypeOf(aug.args[i])))
      args[n++] = rev_shadow_of(r, aug.args[i], call);
  }
  if (!registry_check_arity(custom->augmented, n, call, r->sig->fn)) {
    r->failed = true;
    return;
  }
  LLVMTypeRef type = LLVMGlobalGetValueType(custom->augmented);
  LLVMValueRef result = LLVMBuildCall2(r->ab, type, custom->augmented, args, n, "");
  LLVMTypeRef ret = LLVMGetReturnType(type);
  bool gives_result = LLVMGetTypeKind(ret) == LLVMStructTypeKind && LLVMCountStructElementTypes(ret) > 1;
  if (LLVMGetTypeKind(ret) == LLVMPointerTypeKind)
    aug.tape = result;
  else if (LLVMGetTypeKind(ret) == LLVMStructTypeKind)
    aug.tape = LLVMBuildExtractValue(r->ab, result, 0, "tape");
  aug.call = result;
  if (LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMVoidTypeKind || gives_result)
    unwind_follow(call, result);
  if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind) {
    LLVMValueRef primal = call;
    if (gives_result) {
      primal = LLVMBuildExtractValue(r->ab, result, 1, kn_value_name(call));
      LLVMReplaceAllUsesWith(call, primal);
      if (is_varied(r, call))
        vset_add(&r->varied, primal);
      if (vset_has(&r->useful, call))
        vset_add(&r->useful, primal);
      vset_remove(&r->varied, call);
      LLVMInstructionEraseFromParent(call);
    }
    aug.result = primal;
  } else {
    LLVMInstructionEraseFromParent(call);
  }
  arrput(r->calls, aug);
}

AugCall *rev_aug_call_of(Reverse *r, LLVMValueRef call) {
  for (ptrdiff_t i = 0; i < arrlen(r->calls); i++)
    if (r->calls[i].call == call)
      return &r->calls[i];
  return NULL;
}

/* The bytes of p's shadow that a realloc to n keeps: min(usable size, n). */
LLVMValueRef rev_kept_bytes(LLVMBuilderRef b, LLVMValueRef shadow, LLVMValueRef n) {
  LLVMValueRef usable = kn_call_libc(b, "malloc_usable_size", i64(), &shadow, 1);
  n = LLVMBuildZExtOrBitCast(b, n, i64(), "");
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, usable, n, ""), usable, n, "");
}

/* q = realloc(p, n): the shadow gets fresh zeroed memory; p's shadow stays
 * alive for the reverse sweep, which moves q's adjoints back into it.
 * Pointers' shadows are copied forward. */
static void augment_realloc(Reverse *r, LLVMValueRef call) {
  LLVMValueRef old = LLVMGetOperand(call, 0), n = LLVMGetOperand(call, 1);
  LLVMValueRef shadow = kn_call_calloc(r->ab, n);
  set_shadow(r, call, shadow);
  if (rev_realloc_types(r, call).pointers && is_varied(r, old)) {
    LLVMValueRef old_shadow = rev_shadow_of(r, old, call);
    vset_add(&r->shadow_code, LLVMBuildMemCpy(r->ab, shadow, 1, old_shadow, 1,
                                              rev_kept_bytes(r->ab, old_shadow, n)));
  }
}

/* A launch through an argument array: the runtime launches the kernel in
 * place of the call (or skips it) and records the launch; the record is the
 * call's "shadow", for the reverse sweep, which still walks the call: it
 * goes once that is built (rev_erase_replaced_launches). */
static void augment_cuda_launch(Reverse *r, LLVMValueRef call, const Rule *rule) {
  if (cuda_launch_unsupported(call, r->sig->fn)) {
    r->failed = true;
    return;
  }
  LLVMValueRef slots[KN_MAX_PARAMS], unneeded[KN_MAX_PARAMS];
  unsigned nslots = cuda_launch_argument_slots(call, slots, KN_MAX_PARAMS), nunneeded = 0;
  for (unsigned i = 0; i < nslots; i++) {
    LLVMValueRef value = only_value_stored(slots[i]);
    if (value && only_launched(r, value))
      unneeded[nunneeded++] = slots[i];
  }
  LLVMValueRef params = LLVMGetOperand(call, rule->arg);
  LLVMBuilderRef before = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderBefore(before, call);
  LLVMValueRef shadows = is_varied(r, params) ? rev_shadow_of(r, params, call) : NULL;
  LLVMValueRef record = cuda_launch_augment(before, call, shadows, unneeded, nunneeded, r->sig->fn);
  set_shadow(r, call, record);
  /* It launches in place of the call, an invoke's landing pad included. */
  unwind_follow(call, record);
  arrput(r->replaced_launches, call);
  LLVMDisposeBuilder(before);
}

void rev_erase_replaced_launches(Reverse *r) {
  for (ptrdiff_t i = 0; i < arrlen(r->replaced_launches); i++)
    cuda_launch_replaced(r->replaced_launches[i]);
  arrfree(r->replaced_launches);
}

/* A table of device pointers copied to the device (`float *const *xs`
 * for a kernel that reads one buffer a block): the shadow of the table is
 * the table of the buffers' shadows. The host code rarely reads such a
 * table, so its element type is not known here: for a copy of memory of
 * no known float type, the runtime keeps the shadows of the source, and a
 * launch taking the destination as a table copies them into its shadow. */
static void augment_cuda_pointer_copy(Reverse *r, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0), src = cuda_copy_source(rule, call);
  if (rule->cuda->pitched || rule->cuda->from_symbol || !is_varied(r, dst) || !is_varied(r, src))
    return;
  MemoryTypes m = rev_copy_types(r, call);
  if (m.floats || m.numbers || m.declared)
    return;
  LLVMBuilderRef before = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderBefore(before, call);
  cuda_copy_shadow_record(before, rule, call, rev_shadow_of(r, dst, call), rev_shadow_of(r, src, call),
                          r->sig->fn);
  LLVMDisposeBuilder(before);
}

/* CUDA memory calls: shadows from the runtime, which also keeps what
 * launches waiting for their reverse sweep read before it is overwritten. */
static void augment_cuda_memory_call(Reverse *r, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0), stream = cuda_stream_operand(rule, call);
  if (rule->kind == RULE_LAUNCH) {
    augment_cuda_launch(r, call, rule);
    return;
  }
  if (rule->kind == RULE_POSIX_MEMALIGN) {
    int host = cuda_mapped_operand(rule);
    LLVMValueRef mapped = host >= 0 && is_varied(r, LLVMGetOperand(call, (unsigned)host))
                              ? rev_shadow_of(r, LLVMGetOperand(call, (unsigned)host), call)
                              : NULL;
    LLVMValueRef shadow = cuda_shadow_alloc(r->ab, rule, call, mapped, stream, r->sig->fn);
    vset_add(&r->shadow_code, LLVMBuildStore(r->ab, shadow, rev_shadow_of(r, dst, call)));
    set_shadow(r, call, shadow);
    return;
  }
  /* What frees, copies and sets tell the runtime goes before them. */
  LLVMBuilderRef before = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderBefore(before, call);
  switch (rule->kind) {
  case RULE_FREE:
    cuda_defer_release(before, rule, call, r->sig->fn);
    r->defers_release = true;
    vset_remove(&r->varied, call);
    LLVMInstructionEraseFromParent(call);
    break;
  case RULE_MEMCPY:
    if (!rule->cuda->to_symbol) {
      r->failed |= unsupported_unshadowed_write(&r->varied, call, dst, cuda_copy_source(rule, call), r->sig->fn);
    } else {
      LLVMValueRef snapshot = cuda_before_symbol_copy(before, call, cuda_symbol_source_varied(&r->varied, call),
                                                      r->sig->fn);
      if (snapshot) {
        set_shadow(r, call, snapshot);
        r->defers_release = true;
      }
    }
    cuda_before_write(before, rule, call, r->sig->fn);
    augment_cuda_pointer_copy(r, call, rule);
    break;
  case RULE_MEMSET:
    cuda_before_write(before, rule, call, r->sig->fn);
    break;
  case RULE_MEMCPY_DESCRIBED: {
    LLVMValueRef shadow = is_varied(r, dst) ? rev_shadow_of(r, dst, call) : NULL;
    set_shadow(r, call, cuda_described_copy_record(before, rule, call, shadow, r->sig->fn));
    break;
  }
  default:
    break;
  }
  LLVMDisposeBuilder(before);
}

/* A copy of records holding pointers beside floats: the pointers' shadows
 * move with them, the floats' shadows (their adjoints, which the reverse
 * sweep moves) stay. */
static void copy_pointer_shadows(Reverse *r, LLVMValueRef call, LLVMTypeRef record) {
  LLVMValueRef fn = rev_copy_pointer_shadows_function(record);
  LLVMValueRef args[3] = {rev_shadow_of(r, LLVMGetOperand(call, 1), call), rev_shadow_of(r, LLVMGetOperand(call, 0), call),
                          LLVMBuildZExtOrBitCast(r->ab, LLVMGetOperand(call, 2), i64(), "")};
  vset_add(&r->shadow_code, LLVMBuildCall2(r->ab, LLVMGlobalGetValueType(fn), fn, args, 3, ""));
}

static void augment_memory_call(Reverse *r, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  if (rule->cuda) {
    augment_cuda_memory_call(r, call, rule);
    return;
  }
  switch (rule->kind) {
  case RULE_ALLOC:
  case RULE_CALLOC: {
    LLVMValueRef shadow =
        rule->kind == RULE_CALLOC
            ? kn_call_libc(r->ab, "calloc", ptr(),
                           (LLVMValueRef[]){LLVMGetOperand(call, 0), LLVMGetOperand(call, 1)}, 2)
            : kn_call_calloc(r->ab, LLVMGetOperand(call, rule->arg));
    set_shadow(r, call, shadow);
    return;
  }
  case RULE_REALLOC:
    augment_realloc(r, call);
    return;
  case RULE_POSIX_MEMALIGN: {
    LLVMValueRef slot = rev_shadow_of(r, dst, call);
    LLVMValueRef args[3] = {slot, LLVMGetOperand(call, 1), LLVMGetOperand(call, 2)};
    vset_add(&r->shadow_code, kn_call_libc(r->ab, "posix_memalign", LLVMTypeOf(call), args, 3));
    LLVMValueRef shadow = LLVMBuildLoad2(r->ab, ptr(), slot, "shadow");
    LLVMBuildMemSet(r->ab, shadow, zero_byte(), LLVMGetOperand(call, rule->arg), 1);
    set_shadow(r, call, shadow);
    return;
  }
  case RULE_MEMSET:
    cuda_announce_host_store(call, dst, LLVMGetOperand(call, 2), r->sig->fn);
    return;
  case RULE_MEMCPY:
    cuda_announce_host_store(call, dst, LLVMGetOperand(call, 2), r->sig->fn);
    /* Shadow memory of floats holds adjoints, which the reverse sweep moves;
     * pointers' shadows are copied now, so later loads find them. */
    if (is_varied(r, dst) && is_varied(r, LLVMGetOperand(call, 1))) {
      MemoryTypes m = rev_copy_types(r, call);
      if (m.pointers && m.floats && m.record)
        copy_pointer_shadows(r, call, m.record);
      else if (m.pointers && m.floats)
        fail(r, call, "it copies memory (%s) holding both pointers and floats, which Kinase "
                      "cannot yet split", "memcpy");
      else if (m.pointers)
        shadow_twin(r, call, 0, 2);
    }
    r->failed |= unsupported_unshadowed_write(&r->varied, call, dst, LLVMGetOperand(call, 1), r->sig->fn);
    return;
  default:
    return;
  }
}

/* A pointer copied through an integer: its shadow's bits move alongside. */
static bool augment_pointer_copy(Reverse *r, LLVMValueRef inst) {
  if (LLVMIsALoadInst(inst) && copy_of(r, inst) == inst) {
    LLVMValueRef bits = LLVMInstructionClone(inst);
    LLVMSetOperand(bits, 0, rev_shadow_of(r, LLVMGetOperand(inst, 0), inst));
    kn_drop_metadata(bits);
    LLVMInsertIntoBuilderWithName(r->ab, bits, "shadow");
    vset_add(&r->shadow_code, bits);
    vmap_put(&r->shadow, inst, bits);
    return true;
  }
  LLVMValueRef value = LLVMIsAStoreInst(inst) ? LLVMGetOperand(inst, 0) : NULL;
  if (!value || copy_of(r, value) != value || !is_varied(r, LLVMGetOperand(inst, 1)))
    return false;
  LLVMValueRef copy = LLVMInstructionClone(inst);
  LLVMSetOperand(copy, 0, vmap_get(&r->shadow, value));
  LLVMSetOperand(copy, 1, rev_shadow_of(r, LLVMGetOperand(inst, 1), inst));
  kn_drop_metadata(copy);
  LLVMInsertIntoBuilder(r->ab, copy);
  vset_add(&r->shadow_code, copy);
  return true;
}

/* Shared memory starts each block undefined, and nothing outside the
 * function seeds its shadow: a store there clears the location's shadow,
 * so that the reverse sweep starts from zero wherever the block wrote. The
 * barrier that lets other threads read the stored value orders the clear
 * before the adjoints they add in reverse (cuda/warp.c). A __half's bits
 * stored as an integer (`s = __float2half(0.f)`, an i16 once simplified)
 * clear it too. */
static void clear_shared_shadow(Reverse *r, LLVMValueRef store) {
  LLVMValueRef value = LLVMGetOperand(store, 0), at = LLVMGetOperand(store, 1);
  LLVMValueRef object = kn_underlying_object(at);
  bool shared = LLVMGetPointerAddressSpace(LLVMTypeOf(at)) == KN_SHARED_ADDRESS_SPACE ||
                LLVMGetPointerAddressSpace(LLVMTypeOf(object)) == KN_SHARED_ADDRESS_SPACE;
  if (!kn_module.gpu || !shared || !is_varied(r, at) || kn_type_has_pointers(LLVMTypeOf(value)))
    return;
  LLVMValueRef clear = LLVMBuildStore(r->ab, LLVMConstNull(LLVMTypeOf(value)), rev_shadow_of(r, at, store));
  LLVMSetAlignment(clear, LLVMGetAlignment(store));
  vset_add(&r->shadow_code, clear);
}

static void fail_indirect_call(Reverse *r, LLVMValueRef call) {
  char *why = devirt_why_indirect(call);
  fail(r, call, "it makes an indirect call with differentiated arguments%s", why);
  free(why);
}

static void augment_instruction(Reverse *r, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (augment_pointer_copy(r, inst))
    return;
  if (op == LLVMCall) {
    if (LLVMIsAInlineAsm(LLVMGetCalledValue(inst))) {
      r->failed |= texture_refused(&r->varied, inst, r->sig->fn, "gradient");
      return;
    }
    const Rule *rule = rule_for_call(inst);
    if (rule) {
      if (rule_is_memory(rule->kind))
        augment_memory_call(r, inst, rule);
      return;
    }
    if (cuda_unknown_api_call(inst, r->sig->fn)) {
      r->failed = true;
      return;
    }
    if (!activity_call_carries(&r->varied, inst) && !is_varied(r, inst))
      return;
    if (library_call_refused(inst, r->sig->fn)) {
      r->failed = true;
      return;
    }
    LLVMValueRef callee = kn_called_function(inst);
    if (!callee && devirt_is_fallback(inst))
      devirt_guard_fallback(r->ab, inst, r->sig->fn);
    else if (!callee)
      fail_indirect_call(r, inst);
    else if (registry_of(callee) && registry_of(callee)->augmented)
      augment_custom_call(r, inst, registry_of(callee));
    else if (LLVMIsDeclaration(callee))
      fail(r, inst,
           LLVMGetIntrinsicID(callee) ? "intrinsic '%s' has no derivative rule"
                                      : "external function '%s' has no derivative rule and no "
                                        "body to differentiate",
           kn_function_name(callee));
    else
      augment_user_call(r, inst, callee);
    return;
  }
  if (op == LLVMStore) {
    LLVMValueRef value = LLVMGetOperand(inst, 0), at = LLVMGetOperand(inst, 1);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx());
    cuda_announce_host_store(inst, at, LLVMConstInt(i64, LLVMStoreSizeOfType(kn_module.layout, LLVMTypeOf(value)), 0),
                             r->sig->fn);
    /* An address held in an integer (a CUdeviceptr) is stored as a pointer
     * is: its shadow beside it, so that a launch's argument array finds it. */
    bool unshadowed = !is_varied(r, value) && !LLVMIsAConstant(value);
    if (is_varied(r, at) && kn_is_pointer_type(LLVMTypeOf(value)) && unshadowed &&
        (cuda_is_argument_slot(at) || cuda_is_launch_struct(at) || cuda_is_handle(value))) {
      /* A Const pointer into a launch's argument slot, or a stream: null there. */
      LLVMValueRef zero = shadow_twin(r, inst, 1, 1);
      LLVMSetOperand(zero, 0, LLVMConstNull(LLVMTypeOf(value)));
    } else if (is_varied(r, at) &&
        (kn_is_pointer_type(LLVMTypeOf(value)) || vset_has(&r->addresses, value))) {
      shadow_twin(r, inst, 0, 2);
    } else if (is_varied(r, at) && kn_is_address_integer(LLVMTypeOf(value)) &&
               LLVMIsAAllocaInst(kn_underlying_object(at))) {
      /* One without a shadow (a Const CUdeviceptr) into a local slot: the
       * slot's shadow is null, whatever it held before. */
      LLVMValueRef zero = shadow_twin(r, inst, 1, 1);
      LLVMSetOperand(zero, 0, LLVMConstNull(LLVMTypeOf(value)));
    } else {
      r->failed |= unsupported_unshadowed_write(&r->varied, inst, at, value, r->sig->fn);
      clear_shared_shadow(r, inst);
    }
    return;
  }
  if (!has_shadow(r, inst))
    return;
  unsigned first, count;
  activity_structural_operands(op, &first, &count);
  int address = activity_address_operand(&r->varied, inst);
  if (address >= 0 && op != LLVMPtrToInt) {
    set_shadow(r, inst, shadow_twin(r, inst, (unsigned)address, 1));
  } else if (count) {
    set_shadow(r, inst, shadow_twin(r, inst, first, count));
  } else if (op == LLVMPHI) {
    set_shadow(r, inst, LLVMBuildPhi(r->ab, LLVMTypeOf(inst), "shadow"));
  } else if (op == LLVMAlloca) {
    /* The reverse sweep outlives this frame: the shadow goes on the heap. */
    kn_align_local(inst);
    set_shadow(r, inst, kn_call_calloc_aligned(r->ab, alloca_size(r->ab, inst), LLVMGetAlignment(inst)));
  }
}

static bool unsupported_instruction(Reverse *r, LLVMValueRef inst) {
  if (!unsupported_atomic(&r->varied, inst, r->sig->fn))
    return false;
  r->failed = true;
  return true;
}

/* Adds `value` for every CFG edge from `pred` to `phi`'s block: a switch
 * with two cases going to the same block makes two edges, and a phi needs an
 * entry for each. */
void rev_add_incoming_per_edge(LLVMValueRef phi, LLVMValueRef value, LLVMBasicBlockRef pred) {
  LLVMBasicBlockRef here = LLVMGetInstructionParent(phi);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(pred);
  for (unsigned i = 0, n = LLVMGetNumSuccessors(term); i < n; i++)
    if (LLVMGetSuccessor(term, i) == here)
      LLVMAddIncoming(phi, &value, &pred, 1);
}

/* The block whose conditional branch alone decides which of bb's two
 * predecessors runs: an if (A branches to bb and to B, B goes on to bb) or
 * an if-else (A branches to B1 and B2, both go on to bb). NULL otherwise. */
static LLVMBasicBlockRef deciding_block(Reverse *r, LLVMBasicBlockRef *preds) {
  LLVMBasicBlockRef decider[2];
  for (int i = 0; i < 2; i++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(preds[i]);
    LLVMBasicBlockRef *above = cfg_predecessors(r->cfg, preds[i]);
    if (LLVMIsABranchInst(term) && LLVMIsConditional(term))
      decider[i] = preds[i];
    else if (arrlen(above) == 1 && LLVMGetNumSuccessors(term) == 1)
      decider[i] = above[0];
    else
      return NULL;
  }
  LLVMValueRef branch = LLVMGetBasicBlockTerminator(decider[0]);
  if (decider[0] != decider[1] || !LLVMIsABranchInst(branch) || !LLVMIsConditional(branch) ||
      LLVMGetSuccessor(branch, 0) == LLVMGetSuccessor(branch, 1))
    return NULL;
  for (int i = 0; i < 2; i++)
    if (preds[i] != decider[0] && LLVMGetSuccessor(branch, 0) != preds[i] &&
        LLVMGetSuccessor(branch, 1) != preds[i])
      return NULL;
  return decider[0];
}

/* A block with several distinct predecessors records which one ran: the
 * index of the predecessor in cfg_predecessors. Where one branch decides
 * it, the index is a select on that branch's condition, which the reverse
 * sweep computes again rather than records. */
void rev_add_from_index(Reverse *r, LLVMBasicBlockRef bb) {
  LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, bb);
  if (arrlen(preds) < 2)
    return;
  LLVMBasicBlockRef decider = arrlen(preds) == 2 ? deciding_block(r, preds) : NULL;
  if (decider) {
    LLVMValueRef branch = LLVMGetBasicBlockTerminator(decider);
    LLVMBasicBlockRef on_true = LLVMGetSuccessor(branch, 0);
    unsigned true_index = on_true == preds[1] || (on_true == bb && preds[1] == decider);
    LLVMPositionBuilderBefore(r->ab, kn_first_non_phi(bb));
    LLVMValueRef from = LLVMBuildSelect(r->ab, LLVMGetCondition(branch), LLVMConstInt(i32(), true_index, 0),
                                        LLVMConstInt(i32(), !true_index, 0), "from");
    vmap_put(&r->from, LLVMBasicBlockAsValue(bb), from);
    return;
  }
  LLVMPositionBuilderBeforeInstrAndDbgRecords(r->ab, LLVMGetFirstInstruction(bb));
  LLVMValueRef phi = LLVMBuildPhi(r->ab, i32(), "from");
  for (ptrdiff_t i = 0; i < arrlen(preds); i++)
    rev_add_incoming_per_edge(phi, LLVMConstInt(i32(), (unsigned long long)i, 0), preds[i]);
  vmap_put(&r->from, LLVMBasicBlockAsValue(bb), phi);
}

void rev_augment(Reverse *r) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks) && !r->failed; k++) {
    LLVMBasicBlockRef bb = r->blocks[k];
    LLVMValueRef *insts = NULL;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      arrput(insts, inst);
    for (ptrdiff_t i = 0; i < arrlen(insts) && !r->failed; i++) {
      LLVMValueRef inst = insts[i];
      if (LLVMIsATerminatorInst(inst) || unsupported_instruction(r, inst))
        continue;
      /* A phi's shadow is a phi: before the debug records of the first
       * instruction after the phis, which no phi may carry (-g). */
      if (LLVMIsAPHINode(inst))
        LLVMPositionBuilderBeforeInstrAndDbgRecords(r->ab, kn_first_non_phi(bb));
      else
        LLVMPositionBuilderBefore(r->ab, LLVMGetNextInstruction(inst));
      augment_instruction(r, inst);
    }
    arrfree(insts);
  }
  /* Shadow phis get their incoming shadows once every shadow exists. */
  for (ptrdiff_t k = 0; k < arrlen(r->blocks) && !r->failed; k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst && LLVMIsAPHINode(inst);
         inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef s = vmap_get(&r->shadow, inst);
      if (!s || !LLVMIsAPHINode(s) || LLVMCountIncoming(s))
        continue;
      for (unsigned i = 0, n = LLVMCountIncoming(inst); i < n; i++) {
        LLVMValueRef v = rev_shadow_of(r, LLVMGetIncomingValue(inst, i), inst);
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(inst, i);
        LLVMAddIncoming(s, &v, &from, 1);
      }
    }
}

/* A user's reverse pass reads the memory its arguments point to, after aug
 * has returned: locals passed to a registered gradient live on the heap
 * until the reverse sweep frees them. */
void rev_keep_stack_alive(Reverse *r) {
  LLVMValueRef *allocas = NULL;
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      const Registration *custom = LLVMIsACallInst(inst) ? registry_of(kn_called_function(inst)) : NULL;
      if (!custom || !custom->augmented)
        continue;
      for (unsigned i = 0, n = LLVMGetNumArgOperands(inst); i < n; i++) {
        LLVMValueRef base = kn_underlying_object(LLVMGetOperand(inst, i));
        if (LLVMIsAAllocaInst(base) && !vset_has(&r->stack_on_heap, base)) {
          vset_add(&r->stack_on_heap, base);
          arrput(allocas, base);
        }
      }
    }
  vset_free(&r->stack_on_heap);
  for (ptrdiff_t i = 0; i < arrlen(allocas); i++) {
    /* Lifetime markers apply to stack slots only. */
    LLVMValueRef *markers = NULL;
    for (LLVMUseRef use = LLVMGetFirstUse(allocas[i]); use; use = LLVMGetNextUse(use)) {
      LLVMValueRef user = LLVMGetUser(use);
      LLVMValueRef callee = LLVMIsACallInst(user) ? kn_called_function(user) : NULL;
      if (callee && !strncmp(kn_function_name(callee), "llvm.lifetime.", 14))
        arrput(markers, user);
    }
    for (ptrdiff_t m = 0; m < arrlen(markers); m++)
      LLVMInstructionEraseFromParent(markers[m]);
    arrfree(markers);
    LLVMPositionBuilderBefore(r->ab, allocas[i]);
    kn_align_local(allocas[i]);
    LLVMValueRef heap = kn_call_calloc_aligned(r->ab, alloca_size(r->ab, allocas[i]), LLVMGetAlignment(allocas[i]));
    LLVMReplaceAllUsesWith(allocas[i], heap);
    LLVMInstructionEraseFromParent(allocas[i]);
    vset_add(&r->stack_on_heap, heap);
  }
  arrfree(allocas);
}
