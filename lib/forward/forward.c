/* Forward mode: the derivative function computes the primal and, beside
 * every varied value, its tangent (for a pointer: its shadow pointer).
 *
 * require: `deriv` declared with derive_type(sig), empty.
 * The user's function is copied and simplified, its body moved into
 * `deriv`, and tangent code inserted after each varied instruction, visiting
 * blocks in reverse post-order so that operands' tangents exist before their
 * uses (phis get their tangent phis first and incoming values last).
 *
 * Every value has a tangent of its own type; a value that is not varied has
 * the zero tangent, written NULL here. Integers loaded from shadow memory
 * carry the shadow's bits, so that copies of floats through integer loads
 * and stores keep their tangents; integer arithmetic is never varied.
 *
 * Batch mode (kn_width(sig) lanes, Enzyme's enzyme_width) gives every
 * varied value one tangent per lane: the rules run lane by lane on that
 * lane's tangents, except where the table `lane_uses` says otherwise (a
 * math function's partials are computed once for all lanes; a kernel
 * launch is refused), and a call of a module function passes every lane to
 * its callee's derivative of the same width. What varies, and so where
 * tangent code goes, is the same in every lane. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const Signature *sig;
  LLVMValueRef deriv;
  LLVMBuilderRef b;
  ValueSet varied;                /* values with a nonzero tangent */
  unsigned width;                 /* lanes: tangents per varied value */
  unsigned lane;                  /* the lane the rules are working on */
  ValueMap tangent[KN_MAX_WIDTH]; /* per lane: varied value -> its tangent */
  LLVMValueRef *phis;             /* varied phis, whose tangents get incoming values last */
  bool failed;
} Forward;

static void fail(Forward *f, LLVMValueRef where, const char *fmt, const char *detail) {
  kn_error(where, f->sig->fn, fmt, detail);
  f->failed = true;
}

static bool is_varied(Forward *f, LLVMValueRef v) { return vset_has(&f->varied, v); }

static bool any_operand_varied(Forward *f, LLVMValueRef inst, unsigned first, unsigned count) {
  return activity_any_operand(&f->varied, inst, first, count);
}

/* ---- tangents ---- */

/* The tangent of `v` as a value, zero when `v` is not varied. A pointer
 * with no shadow has no zero tangent: `user` is where it is needed. */
static LLVMValueRef tangent_of(Forward *f, LLVMValueRef v, LLVMValueRef user) {
  if (is_varied(f, v)) {
    LLVMValueRef t = vmap_get(&f->tangent[f->lane], v);
    /* A global's shadow (globals_seed) is lane 0's only: every lane reads
     * it, and a batch request of a function reaching a global the program
     * writes is refused (abi/abi.c). */
    if (!t && LLVMIsAConstant(v))
      t = vmap_get(&f->tangent[0], v);
    if (!t)
      kn_die("varied value %s has no tangent yet", kn_value_name(v));
    return t;
  }
  if (kn_is_pointer_type(LLVMTypeOf(v)) && cuda_null_shadow_suffices(user))
    return LLVMConstNull(LLVMTypeOf(v));
  return unsupported_missing_shadow(v, user, f->sig->fn, &f->failed);
}

static void set_tangent(Forward *f, LLVMValueRef v, LLVMValueRef t) {
  vmap_put(&f->tangent[f->lane], v, t);
}

/* The same instruction with operands [first, first+count) replaced by their
 * tangents: the tangent of a linear, structural instruction, or the shadow
 * twin of a memory operation. */
static LLVMValueRef twin(Forward *f, LLVMValueRef inst, unsigned first, unsigned count) {
  LLVMValueRef copy = LLVMInstructionClone(inst);
  for (unsigned i = first; i < first + count; i++) {
    LLVMValueRef tangent = tangent_of(f, LLVMGetOperand(inst, i), inst);
    LLVMValueRef base = LLVMIsALoadInst(inst) ? null_shadow_base(tangent) : NULL;
    LLVMSetOperand(copy, i, base ? null_shadow_guard(f->b, base, tangent, false) : tangent);
  }
  kn_drop_metadata(copy);
  const char *name = kn_value_name(inst);
  char *dname = kn_strdup_printf("%s%s", *name ? "d." : "", name);
  LLVMInsertIntoBuilderWithName(f->b, copy, dname);
  free(dname);
  return copy;
}

/* The tangent of `result` in every lane: the sum over i of partial_i *
 * tangent(arg_i), for the varied args. Each partial is computed once, for
 * all lanes. */
static void combine_partials(Forward *f, PartialFn partial, LLVMValueRef *args, unsigned nargs,
                             LLVMValueRef result) {
  LLVMValueRef sums[KN_MAX_WIDTH] = {0};
  for (unsigned i = 0; i < nargs; i++) {
    if (!is_varied(f, args[i]))
      continue;
    LLVMValueRef d = partial(f->b, args, result, i);
    for (f->lane = 0; f->lane < f->width; f->lane++) {
      LLVMValueRef term = math_fmul(f->b, d, tangent_of(f, args[i], result));
      sums[f->lane] = sums[f->lane] ? math_fadd(f->b, sums[f->lane], term) : term;
    }
  }
  for (f->lane = 0; f->lane < f->width; f->lane++) {
    LLVMValueRef sum = sums[f->lane];
    if (!sum)
      sum = LLVMConstNull(LLVMTypeOf(result));
    /* A conversion's partials are in the type of what it converts. */
    else if (LLVMTypeOf(sum) != LLVMTypeOf(result))
      sum = LLVMBuildFPCast(f->b, sum, LLVMTypeOf(result), "");
    set_tangent(f, result, sum);
  }
  f->lane = 0;
}

/* Runs `rule`, a rule of one lane, on `inst` in every lane. */
static void in_each_lane(Forward *f, void (*rule)(Forward *, LLVMValueRef), LLVMValueRef inst) {
  for (f->lane = 0; f->lane < f->width && !f->failed; f->lane++)
    rule(f, inst);
  f->lane = 0;
}

static LLVMValueRef operands_of(LLVMValueRef inst, unsigned n, LLVMValueRef *out) {
  for (unsigned i = 0; i < n; i++)
    out[i] = LLVMGetOperand(inst, i);
  return inst;
}

static void shadow_alloca(Forward *f, LLVMValueRef inst) {
  kn_align_local(inst);
  LLVMValueRef shadow = twin(f, inst, 0, 0);
  LLVMTypeRef type = LLVMGetAllocatedType(inst);
  LLVMValueRef size = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx),
                                   LLVMABISizeOfType(kn_module.layout, type), 0);
  LLVMValueRef count = LLVMGetOperand(inst, 0);
  if (!LLVMIsAConstantInt(count) || LLVMConstIntGetZExtValue(count) != 1)
    size = LLVMBuildMul(f->b, size, LLVMBuildZExtOrBitCast(f->b, count, LLVMTypeOf(size), ""), "");
  LLVMBuildMemSet(f->b, shadow, LLVMConstInt(LLVMInt8TypeInContext(kn_module.ctx), 0, 0), size,
                  LLVMGetAlignment(inst));
  set_tangent(f, inst, shadow);
}

static LLVMValueRef zero_byte(void) { return LLVMConstInt(LLVMInt8TypeInContext(kn_module.ctx), 0, 0); }

static void store_tangent(Forward *f, LLVMValueRef store) {
  LLVMValueRef value = LLVMGetOperand(store, 0), ptr = LLVMGetOperand(store, 1);
  if (!is_varied(f, ptr)) {
    f->failed |= unsupported_unshadowed_write(&f->varied, store, ptr, value, f->sig->fn);
    return;
  }
  LLVMValueRef copy = LLVMInstructionClone(store);
  /* A Const pointer into a launch's argument slot, or a stream: null there. */
  bool const_argument =
      kn_is_pointer_type(LLVMTypeOf(value)) && !is_varied(f, value) && !LLVMIsAConstant(value) &&
      (cuda_is_argument_slot(ptr) || cuda_is_launch_struct(ptr) || cuda_is_handle(value));
  LLVMSetOperand(copy, 0, const_argument ? LLVMConstNull(LLVMTypeOf(value)) : tangent_of(f, value, store));
  LLVMValueRef at = tangent_of(f, ptr, store), base = null_shadow_base(at);
  LLVMSetOperand(copy, 1, base ? null_shadow_guard(f->b, base, at, true) : at);
  kn_drop_metadata(copy);
  LLVMInsertIntoBuilder(f->b, copy);
}

/* atomicAdd: the tangent accumulates alike, and the old value's tangent is
 * the old tangent. */
static void accumulation_tangent(Forward *f, LLVMValueRef atomic) {
  LLVMValueRef at = LLVMGetOperand(atomic, 0), value = LLVMGetOperand(atomic, 1);
  if (!is_varied(f, at)) {
    f->failed |= unsupported_unshadowed_write(&f->varied, atomic, at, value, f->sig->fn);
    return;
  }
  LLVMValueRef tangent = twin(f, atomic, 0, 2);
  if (is_varied(f, atomic))
    set_tangent(f, atomic, tangent);
}

/* ---- calls ---- */

/* Each lane's tangent of `v` from `t`, what a derivative of the width of
 * this one returned: [W x T] in batch mode, else the tangent itself. */
static void set_lane_tangents(Forward *f, LLVMValueRef v, LLVMValueRef t) {
  if (f->width == 1) {
    set_tangent(f, v, t);
    return;
  }
  for (f->lane = 0; f->lane < f->width; f->lane++)
    set_tangent(f, v, LLVMBuildExtractValue(f->b, t, f->lane, ""));
  f->lane = 0;
}

/* Calls the forward derivative of `callee` in place of `call`, of this
 * derivative's width: each varied argument passes its tangent in every
 * lane. A model (RULE_MODEL) gives only the tangent, of the lane at hand:
 * the primal keeps calling the library. */
static void call_derivative(Forward *f, LLVMValueRef call, LLVMValueRef callee, bool model) {
  unsigned first = model ? f->lane : 0, lanes = model ? 1 : f->width;
  Signature sig = {.fn = callee, .mode = MODE_FORWARD, .width = lanes};
  unsigned nargs = LLVMGetNumArgOperands(call);
  if (nargs > KN_MAX_PARAMS || LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)) ||
      (1 + lanes) * nargs > KN_MAX_ARGS) {
    fail(f, call, "it calls variadic or very long function '%s'", kn_function_name(callee));
    return;
  }
  sig.nparams = nargs;
  LLVMValueRef args[KN_MAX_ARGS];
  unsigned n = 0;
  for (unsigned i = 0; i < nargs; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    args[n++] = arg;
    sig.params[i] = is_varied(f, arg) || activity_own_shadow_argument(arg) ? ACT_DUP : ACT_CONST;
    for (f->lane = first; sig.params[i] == ACT_DUP && f->lane < first + lanes; f->lane++)
      args[n++] = tangent_of(f, arg, call);
    f->lane = first;
  }
  sig.ret_tangent = is_varied(f, call);
  sig.ret_primal = !model && LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind;
  LLVMValueRef deriv = derive_get(&sig);
  LLVMValueRef result = LLVMBuildCall2(f->b, derive_type(&sig), deriv, args, n, "");
  if (model) {
    set_tangent(f, call, result);
    return;
  }
  if (sig.ret_tangent && sig.ret_primal) {
    LLVMValueRef primal = LLVMBuildExtractValue(f->b, result, 0, kn_value_name(call));
    LLVMValueRef t = LLVMBuildExtractValue(f->b, result, 1, "");
    LLVMReplaceAllUsesWith(call, primal);
    vset_add(&f->varied, primal);
    set_lane_tangents(f, primal, t);
  } else if (sig.ret_primal) {
    LLVMReplaceAllUsesWith(call, result);
  }
  unwind_follow(call, result);
  /* Its address may come back as a new instruction's. */
  vset_remove(&f->varied, call);
  LLVMInstructionEraseFromParent(call);
}

static void memory_call(Forward *f, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  switch (rule->kind) {
  case RULE_ALLOC: {
    LLVMValueRef size = LLVMGetOperand(call, rule->arg);
    if (rule->foreign) {
      set_tangent(f, call, kn_call_calloc(f->b, size));
      return;
    }
    LLVMValueRef shadow = twin(f, call, 0, 0);
    LLVMBuildMemSet(f->b, shadow, zero_byte(), size, 1);
    set_tangent(f, call, shadow);
    return;
  }
  case RULE_CALLOC:
    set_tangent(f, call, twin(f, call, 0, 0));
    return;
  case RULE_REALLOC:
    set_tangent(f, call, twin(f, call, 0, 1));
    return;
  case RULE_POSIX_MEMALIGN:
    if (is_varied(f, dst)) {
      twin(f, call, 0, 1);
      LLVMTypeRef ptr_type = LLVMPointerTypeInContext(kn_module.ctx, 0);
      LLVMValueRef shadow = LLVMBuildLoad2(f->b, ptr_type, tangent_of(f, dst, call), "");
      LLVMBuildMemSet(f->b, shadow, zero_byte(), LLVMGetOperand(call, rule->arg), 1);
    }
    return;
  case RULE_FREE: {
    LLVMValueRef p = LLVMGetOperand(call, rule->arg);
    if (is_varied(f, p) && rule->foreign)
      kn_call_free(f->b, tangent_of(f, p, call));
    else if (is_varied(f, p))
      twin(f, call, rule->arg, 1);
    return;
  }
  case RULE_MEMCPY:
    if (!is_varied(f, dst)) {
      f->failed |= unsupported_unshadowed_write(&f->varied, call, dst, LLVMGetOperand(call, 1), f->sig->fn);
      return;
    }
    if (is_varied(f, LLVMGetOperand(call, 1))) {
      twin(f, call, 0, 2);
    } else {
      LLVMValueRef len = LLVMGetOperand(call, 2);
      LLVMBuildMemSet(f->b, tangent_of(f, dst, call), zero_byte(), len, 1);
    }
    return;
  case RULE_MEMSET:
    if (is_varied(f, dst)) {
      LLVMValueRef copy = twin(f, call, 0, 1);
      LLVMSetOperand(copy, 1, LLVMConstNull(LLVMTypeOf(LLVMGetOperand(call, 1))));
    }
    return;
  default:
    return;
  }
}

static LLVMValueRef operand_itself(void *sweep, LLVMValueRef operand) {
  (void)sweep;
  return operand;
}

/* CUDA calls the generic memory rules do not cover: shadows come from the
 * runtime, and a copy of memory without tangents zeroes the destination's
 * wherever it lives. False leaves the call to memory_call. */
static bool cuda_memory_tangent(Forward *f, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0), stream = cuda_stream_operand(rule, call);
  switch (rule->kind) {
  case RULE_LAUNCH: {
    LLVMValueRef params = LLVMGetOperand(call, rule->arg);
    if (cuda_launch_unsupported(call, f->sig->fn))
      f->failed = true;
    else
      cuda_launch_tangent(f->b, call, is_varied(f, params) ? tangent_of(f, params, call) : NULL,
                          f->sig->fn);
    return true;
  }
  case RULE_POSIX_MEMALIGN:
    if (is_varied(f, dst)) {
      int host = cuda_mapped_operand(rule);
      LLVMValueRef mapped = host >= 0 && is_varied(f, LLVMGetOperand(call, (unsigned)host))
                                ? tangent_of(f, LLVMGetOperand(call, (unsigned)host), call)
                                : NULL;
      LLVMValueRef tangent = cuda_shadow_alloc(f->b, rule, call, mapped, stream, f->sig->fn);
      LLVMBuildStore(f->b, tangent, tangent_of(f, dst, call));
      /* No sweep follows in which to give a variable's tangent back: each
       * taking starts it from zero. */
      if (cuda_shadow_is_variables(rule))
        cuda_shadow_free(f->b, rule, tangent, stream, f->sig->fn);
    }
    return true;
  case RULE_FREE:
    if (is_varied(f, dst))
      cuda_shadow_free(f->b, rule, tangent_of(f, dst, call), stream, f->sig->fn);
    return true;
  case RULE_MEMCPY:
    if (rule->cuda->to_symbol) { /* the variable's tangent is the source's, or 0 */
      LLVMValueRef src = LLVMGetOperand(call, 1);
      bool varied = cuda_symbol_source_varied(&f->varied, call);
      f->failed |= !cuda_symbol_copy_derivative(f->b, rule, call, NULL, NULL,
                                                varied ? tangent_of(f, src, call) : NULL, f->sig->fn);
      return true;
    }
    if (rule->cuda->from_symbol) {
      if (is_varied(f, dst))
        f->failed |= !cuda_symbol_copy_derivative(f->b, rule, call, NULL, NULL, tangent_of(f, dst, call),
                                                  f->sig->fn);
      return true;
    }
    if (!rule->cuda->pitched && (!is_varied(f, dst) || is_varied(f, LLVMGetOperand(call, 1))))
      return false;
    if (!is_varied(f, dst)) {
      f->failed |= unsupported_unshadowed_write(&f->varied, call, dst, cuda_copy_source(rule, call), f->sig->fn);
      return true;
    }
    if (is_varied(f, cuda_copy_source(rule, call))) { /* the same rows of the tangents */
      LLVMValueRef copy = twin(f, call, 0, 1);
      LLVMSetOperand(copy, 2, tangent_of(f, cuda_copy_source(rule, call), call));
      return true;
    }
    cuda_reverse_of_write(f->b, rule, call, operand_itself, NULL, NULL, tangent_of(f, dst, call), NULL,
                          f->sig->fn);
    return true;
  case RULE_MEMCPY_DESCRIBED:
    if (is_varied(f, dst))
      cuda_described_copy_tangent(f->b, rule, call, tangent_of(f, dst, call), f->sig->fn);
    return true;
  case RULE_MEMSET: /* the generic memset's operands are not a pitched set's */
    if (!rule->cuda->pitched)
      return false;
    if (is_varied(f, dst))
      cuda_reverse_of_write(f->b, rule, call, operand_itself, NULL, NULL, tangent_of(f, dst, call), NULL,
                            f->sig->fn);
    return true;
  default:
    return false;
  }
}

/* A registered tangent function takes every argument, each pointer or float
 * followed by its tangent, and returns the result's tangent. */
static void call_custom_forward(Forward *f, LLVMValueRef call, LLVMValueRef tangent_fn) {
  LLVMValueRef args[2 * KN_MAX_PARAMS];
  unsigned n = 0, nargs = LLVMGetNumArgOperands(call);
  for (unsigned i = 0; i < nargs && n + 2 <= 2 * KN_MAX_PARAMS; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    args[n++] = arg;
    if (activity_differentiable_type(LLVMTypeOf(arg)))
      args[n++] = is_varied(f, arg) ? tangent_of(f, arg, call) : LLVMConstNull(LLVMTypeOf(arg));
  }
  if (!registry_check_arity(tangent_fn, n, call, f->sig->fn)) {
    f->failed = true;
    return;
  }
  LLVMTypeRef params[2 * KN_MAX_PARAMS];
  LLVMGetParamTypes(LLVMGlobalGetValueType(tangent_fn), params);
  bool ok = true;
  for (unsigned i = 0; i < n && ok; i++)
    args[i] = coerce(f->b, args[i], params[i], &ok);
  LLVMValueRef t = ok ? LLVMBuildCall2(f->b, LLVMGlobalGetValueType(tangent_fn), tangent_fn, args, n, "")
                      : NULL;
  if (ok && is_varied(f, call))
    t = coerce(f->b, t, LLVMTypeOf(call), &ok);
  if (!ok) {
    fail(f, call, "custom derivative '%s' does not take or return the types of the function it "
                  "stands for", kn_function_name(tangent_fn));
    return;
  }
  if (is_varied(f, call))
    set_tangent(f, call, t);
}

/* How a rule's tangents meet the lanes of batch mode: per lane by default. */
typedef enum {
  LANES_EACH,    /* the rule runs once per lane, on that lane's tangents */
  LANES_SHARED,  /* partial derivatives computed once, combined in each lane */
  LANES_REFUSED, /* not in batch mode */
} LaneUse;

static const struct {
  RuleKind kind;
  LaneUse use;
  const char *why; /* LANES_REFUSED: what it would repeat */
} lane_uses[] = {
    {RULE_MATH, LANES_SHARED, NULL},
    /* The forward kernel runs the kernel too: once per lane would repeat
     * its writes, which may read what they overwrite. */
    {RULE_LAUNCH, LANES_REFUSED, "launches a kernel, whose forward kernel would run once per lane"},
};

static const char *refused_in_batch(RuleKind kind) {
  for (size_t i = 0; i < sizeof lane_uses / sizeof *lane_uses; i++)
    if (lane_uses[i].kind == kind && lane_uses[i].use == LANES_REFUSED)
      return lane_uses[i].why;
  return NULL;
}

static LaneUse lane_use(RuleKind kind) {
  for (size_t i = 0; i < sizeof lane_uses / sizeof *lane_uses; i++)
    if (lane_uses[i].kind == kind)
      return lane_uses[i].use;
  return LANES_EACH;
}

/* The tangent of a call with a rule, in lane f->lane. */
static void rule_tangent(Forward *f, LLVMValueRef call) {
  const Rule *rule = rule_for_call(call);
  switch (rule->kind) {
  case RULE_MODEL:
    if (is_varied(f, call))
      call_derivative(f, call, rule_model_function(rule, call), true);
    return;
  case RULE_SHUFFLE:
    if (is_varied(f, call))
      set_tangent(f, call, cuda_shuffle_tangent(f->b, call, tangent_of(f, LLVMGetOperand(call, rule->arg), call)));
    return;
  case RULE_BARRIER:
    return; /* it stays in the primal, which orders the tangents' memory too */
  default:
    if (!rule->cuda || !cuda_memory_tangent(f, call, rule))
      memory_call(f, call, rule);
    return;
  }
}

/* A call of a registered tangent function, in lane f->lane. */
static void custom_tangent(Forward *f, LLVMValueRef call) {
  call_custom_forward(f, call, registry_of(kn_called_function(call))->forward);
}

static void call_with_rule(Forward *f, LLVMValueRef call, const Rule *rule) {
  const char *refused = f->width > 1 ? refused_in_batch(rule->kind) : NULL;
  if (refused) {
    fail(f, call, "batch mode (enzyme_width) is not supported here: it %s", refused);
    return;
  }
  if (lane_use(rule->kind) == LANES_SHARED) {
    if (is_varied(f, call)) {
      LLVMValueRef args[4];
      unsigned nargs = LLVMGetNumArgOperands(call);
      operands_of(call, nargs < 4 ? nargs : 4, args);
      combine_partials(f, rule->partial, args, rule->arg, call);
    }
    return;
  }
  in_each_lane(f, rule_tangent, call);
}

static void call_tangent(Forward *f, LLVMValueRef call) {
  if (LLVMIsAInlineAsm(LLVMGetCalledValue(call))) {
    f->failed |= texture_refused(&f->varied, call, f->sig->fn, NULL);
    return;
  }
  const Registration *custom = registry_of(kn_called_function(call));
  if (custom && custom->forward) {
    if (any_operand_varied(f, call, 0, LLVMGetNumArgOperands(call)))
      in_each_lane(f, custom_tangent, call);
    return;
  }
  const Rule *rule = rule_for_call(call);
  if (rule) {
    call_with_rule(f, call, rule);
    return;
  }
  if (cuda_unknown_api_call(call, f->sig->fn)) {
    f->failed = true;
    return;
  }
  if (!activity_call_carries(&f->varied, call) && !is_varied(f, call))
    return;
  if (library_call_refused(call, f->sig->fn)) {
    f->failed = true;
    return;
  }
  LLVMValueRef callee = kn_called_function(call);
  if (!callee && devirt_is_fallback(call)) {
    devirt_guard_fallback(f->b, call, f->sig->fn);
  } else if (!callee) {
    char *why = devirt_why_indirect(call);
    fail(f, call, "it makes an indirect call with differentiated arguments%s", why);
    free(why);
  } else if (LLVMIsDeclaration(callee)) {
    fail(f, call,
         LLVMGetIntrinsicID(callee) ? "intrinsic '%s' has no derivative rule"
                                    : "external function '%s' has no derivative rule and no body "
                                      "to differentiate",
         kn_function_name(callee));
  } else if (f->width > 1 && cuda_is_launch_stub(callee)) {
    /* a launch through <<<>>>: the launch rule's lanes */
    fail(f, call, "batch mode (enzyme_width) is not supported here: it %s", refused_in_batch(RULE_LAUNCH));
  } else if (unsupported_unseen_launch_memory(&f->varied, call, f->sig->fn)) {
    f->failed = true;
  } else {
    call_derivative(f, call, callee, false); /* every lane in one call */
  }
}

/* ---- instructions ---- */

static void phi_tangent(Forward *f, LLVMValueRef phi) {
  LLVMValueRef t = LLVMBuildPhi(f->b, LLVMTypeOf(phi), "");
  set_tangent(f, phi, t);
  if (f->lane == 0)
    arrput(f->phis, phi);
}

static void fill_phi_tangents(Forward *f) {
  for (ptrdiff_t k = 0; k < arrlen(f->phis); k++)
    for (f->lane = 0; f->lane < f->width; f->lane++) {
      LLVMValueRef phi = f->phis[k], t = vmap_get(&f->tangent[f->lane], phi);
      for (unsigned i = 0, n = LLVMCountIncoming(phi); i < n; i++) {
        LLVMValueRef value = tangent_of(f, LLVMGetIncomingValue(phi, i), phi);
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, i);
        LLVMAddIncoming(t, &value, &from, 1);
      }
    }
  f->lane = 0;
}

/* The operand a structural instruction moves tangents through: its address
 * operand, or -1 where it moves them through [first, first+count) (count
 * 0: it has partials, or is a phi or an alloca). */
static int structural_operands(Forward *f, LLVMValueRef inst, unsigned *first, unsigned *count) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  activity_structural_operands(op, first, count);
  int address = activity_address_operand(&f->varied, inst);
  return address >= 0 && op != LLVMPtrToInt ? address : -1;
}

/* The tangent of a varied instruction that is no call, store or atomic and
 * has no partials, in lane f->lane. */
static void instruction_tangent(Forward *f, LLVMValueRef inst) {
  unsigned first, count;
  int address = structural_operands(f, inst, &first, &count);
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (address >= 0)
    set_tangent(f, inst, twin(f, inst, (unsigned)address, 1));
  else if (count)
    set_tangent(f, inst, twin(f, inst, first, count));
  else if (op == LLVMPHI)
    phi_tangent(f, inst);
  else if (op == LLVMAlloca)
    shadow_alloca(f, inst);
  else
    kn_die("varied instruction with opcode %d has no tangent rule", op);
}

static void emit_tangent(Forward *f, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op == LLVMCall) {
    call_tangent(f, inst);
    return;
  }
  if (op == LLVMStore) {
    in_each_lane(f, store_tangent, inst);
    return;
  }
  if (op == LLVMAtomicRMW) {
    in_each_lane(f, accumulation_tangent, inst);
    return;
  }
  if (!is_varied(f, inst))
    return;
  unsigned first, count;
  PartialFn partial = rule_for_opcode(op);
  if (partial && structural_operands(f, inst, &first, &count) < 0 && !count) {
    LLVMValueRef args[2];
    operands_of(inst, 2, args);
    combine_partials(f, partial, args, 2, inst);
    return;
  }
  in_each_lane(f, instruction_tangent, inst);
}

static bool unsupported_instruction(Forward *f, LLVMValueRef inst) {
  if (!unsupported_atomic(&f->varied, inst, f->sig->fn))
    return false;
  f->failed = true;
  return true;
}

static void emit_block(Forward *f, LLVMBasicBlockRef bb) {
  LLVMValueRef *insts = NULL;
  for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
    arrput(insts, inst);
  for (ptrdiff_t k = 0; k < arrlen(insts) && !f->failed; k++) {
    LLVMValueRef inst = insts[k];
    if (LLVMIsATerminatorInst(inst) || unsupported_instruction(f, inst))
      continue;
    /* A phi's tangent is a phi: before the debug records of the first
     * instruction after the phis, which no phi may carry (-g). */
    if (LLVMIsAPHINode(inst))
      LLVMPositionBuilderBeforeInstrAndDbgRecords(f->b, kn_first_non_phi(bb));
    else
      LLVMPositionBuilderBefore(f->b, LLVMGetNextInstruction(inst));
    emit_tangent(f, inst);
  }
  arrfree(insts);
}

/* ---- returns ---- */

/* The tangent of the result `primal` as derive_type returns it: the
 * tangent, or in batch mode the [W x T] of the lanes'. */
static LLVMValueRef result_tangent(Forward *f, LLVMValueRef primal, LLVMValueRef ret) {
  if (f->width == 1)
    return tangent_of(f, primal, ret);
  LLVMValueRef lanes = LLVMGetPoison(LLVMArrayType2(LLVMTypeOf(primal), f->width));
  for (f->lane = 0; f->lane < f->width; f->lane++)
    lanes = LLVMBuildInsertValue(f->b, lanes, tangent_of(f, primal, ret), f->lane, "");
  f->lane = 0;
  return lanes;
}

static void rewrite_returns(Forward *f) {
  LLVMTypeRef ret_type = LLVMGetReturnType(derive_type(f->sig));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f->deriv); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef ret = LLVMGetBasicBlockTerminator(bb);
    if (!ret || LLVMGetInstructionOpcode(ret) != LLVMRet)
      continue;
    LLVMPositionBuilderBefore(f->b, ret);
    LLVMValueRef primal = LLVMGetNumOperands(ret) ? LLVMGetOperand(ret, 0) : NULL;
    if (f->sig->ret_tangent && f->sig->ret_primal) {
      LLVMValueRef pair = LLVMGetPoison(ret_type);
      pair = LLVMBuildInsertValue(f->b, pair, primal, 0, "");
      pair = LLVMBuildInsertValue(f->b, pair, result_tangent(f, primal, ret), 1, "");
      LLVMBuildRet(f->b, pair);
    } else if (f->sig->ret_tangent) {
      LLVMBuildRet(f->b, result_tangent(f, primal, ret));
    } else if (f->sig->ret_primal) {
      LLVMBuildRet(f->b, primal);
    } else {
      LLVMBuildRetVoid(f->b);
    }
    LLVMInstructionEraseFromParent(ret);
  }
}

/* ---- entry ---- */

/* The blocks only unwinding reaches (core/unwind.c) run the primal's
 * cleanups on a throw. They get tangent code too, so that the derivatives
 * their calls make release what the derivative allocated (a shadow
 * vector's buffer goes with the vector's). After the normal path, whose
 * values they use. */
static void append_unwind_blocks(LLVMBasicBlockRef **blocks, UnwindEdge *unwinds) {
  ValueSet seen = {0};
  for (ptrdiff_t i = 0; i < arrlen(*blocks); i++)
    vset_add(&seen, LLVMBasicBlockAsValue((*blocks)[i]));
  for (ptrdiff_t i = 0; i < arrlen(unwinds); i++) {
    if (!unwinds[i].unwind)
      continue;
    LLVMBasicBlockRef *more = cfg_reverse_post_order_from(unwinds[i].unwind, &seen);
    for (ptrdiff_t k = 0; k < arrlen(more); k++)
      arrput(*blocks, more[k]);
    arrfree(more);
  }
  vset_free(&seen);
}

/* The dup parameters are varied, their shadows (one per lane, in order
 * after the primal) their tangents. */
static void seed_parameters(Forward *f, LLVMValueRef *primals, LLVMValueRef *shadows) {
  unsigned k = 0;
  for (unsigned i = 0; i < f->sig->nparams; i++) {
    k++; /* the primal */
    if (!shadows[i])
      continue;
    vset_add(&f->varied, primals[i]);
    for (f->lane = 0; f->lane < f->width; f->lane++) {
      LLVMValueRef shadow = LLVMGetParam(f->deriv, k++);
      set_tangent(f, primals[i], shadow);
      if (f->lane) {
        char *name = kn_strdup_printf("%s.%u", kn_value_name(shadows[i]), f->lane);
        LLVMSetValueName2(shadow, name, strlen(name));
        free(name);
      }
    }
  }
  f->lane = 0;
}

bool forward_generate(const Signature *sig, LLVMValueRef deriv) {
  Forward f = {.sig = sig, .deriv = deriv, .b = LLVMCreateBuilderInContext(kn_module.ctx), .width = kn_width(sig)};
  LLVMValueRef primals[KN_MAX_PARAMS], shadows[KN_MAX_PARAMS];
  UnwindEdge *unwinds = NULL;
  if (!adopt_simplified_body(sig, deriv, primals, shadows, &unwinds)) {
    arrfree(unwinds);
    LLVMDisposeBuilder(f.b);
    return false;
  }
  seed_parameters(&f, primals, shadows);
  LLVMBasicBlockRef *blocks = cfg_reverse_post_order(deriv);
  append_unwind_blocks(&blocks, unwinds);
  do
    activity_find_varied(&f.varied, blocks, true);
  while (globals_seed(&f.varied, &f.tangent[0], blocks));
  for (ptrdiff_t k = 0; k < arrlen(blocks) && !f.failed; k++)
    emit_block(&f, blocks[k]);
  if (!f.failed)
    fill_phi_tangents(&f);
  if (!f.failed)
    rewrite_returns(&f);
  for (unsigned i = 0; i < sig->nparams && !f.failed; i++)
    if (sig->params[i] == ACT_DUPNONEED && kn_is_pointer_type(LLVMTypeOf(primals[i])))
      drop_unneeded_writes(primals[i]);
  if (!f.failed)
    unwind_reattach(deriv, unwinds, NULL, NULL);
  arrfree(unwinds);
  arrfree(blocks);
  arrfree(f.phis);
  for (unsigned lane = 0; lane < f.width; lane++)
    vmap_free(&f.tangent[lane]);
  vset_free(&f.varied);
  LLVMDisposeBuilder(f.b);
  return !f.failed;
}
