/* The derivative cache: one derivative function per (function, mode,
 * activity pattern), declared when first asked for and generated from a work
 * list, so that recursion finds the declaration. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A derivative: forward mode has one function; reverse mode a pair, the
 * augmented forward sweep (primal + tape) and the reverse sweep. */
typedef struct {
  Signature sig;
  LLVMValueRef deriv, aug;
  LLVMValueRef release; /* reverse mode on the host: frees a tape the reverse sweep will not get */
  LLVMTypeRef tape; /* reverse: the tape's layout, once generated */
  enum { JOB_PENDING, JOB_RUNNING, JOB_DONE } state;
} Job;

static struct { char *key; Job *value; } *cache;
static Job **pending;

const char *activity_name(Activity activity) {
  static const char *const names[] = {"const", "dup", "dupnoneed", "out"};
  return names[activity];
}

static char *cache_key(const Signature *sig) {
  char pattern[KN_MAX_PARAMS + 1];
  for (unsigned i = 0; i < sig->nparams; i++)
    pattern[i] = "cdno"[sig->params[i]];
  pattern[sig->nparams] = 0;
  return kn_strdup_printf("%s|%d|%s|%d%d%d|%llx|%llx|%u", kn_function_name(sig->fn), sig->mode, pattern,
                          sig->ret_tangent, sig->ret_primal, sig->adjacent, sig->frozen, sig->owned,
                          kn_width(sig));
}

/* The primal parameters, each followed by its shadow where dup (one per
 * lane in batch mode). */
static unsigned primal_and_shadow_types(const Signature *sig, LLVMTypeRef *params) {
  LLVMTypeRef orig[KN_MAX_PARAMS];
  LLVMGetParamTypes(LLVMGlobalGetValueType(sig->fn), orig);
  unsigned n = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    params[n++] = orig[i];
    for (unsigned lane = 0; lane < kn_width(sig) && (sig->params[i] == ACT_DUP || sig->params[i] == ACT_DUPNONEED);
         lane++)
      params[n++] = orig[i];
  }
  return n;
}

static LLVMTypeRef return_type(const Signature *sig) {
  return LLVMGetReturnType(LLVMGlobalGetValueType(sig->fn));
}

static LLVMTypeRef ptr_type(void) { return LLVMPointerTypeInContext(kn_module.ctx, 0); }

/* Forward mode: (primals and shadows) -> [primal result][, tangent], as
 * {primal, tangent} when both; in batch mode the tangent is [W x T]. */
static LLVMTypeRef forward_type(const Signature *sig) {
  LLVMTypeRef params[KN_MAX_ARGS], ret = return_type(sig);
  unsigned n = primal_and_shadow_types(sig, params);
  LLVMTypeRef tangent = kn_width(sig) > 1 ? LLVMArrayType2(ret, kn_width(sig)) : ret;
  LLVMTypeRef result = LLVMVoidTypeInContext(kn_module.ctx);
  if (sig->ret_tangent && sig->ret_primal)
    result = LLVMStructTypeInContext(kn_module.ctx, (LLVMTypeRef[]){ret, tangent}, 2, 0);
  else if (sig->ret_tangent)
    result = tangent;
  else if (sig->ret_primal)
    result = ret;
  return LLVMFunctionType(result, params, n, 0);
}

/* Reverse sweep: (primals and shadows, [adjoint of the result], tape) ->
 * {adjoints of the enzyme_out parameters}. */
static LLVMTypeRef reverse_type(const Signature *sig) {
  LLVMTypeRef params[KN_MAX_ARGS + 2], orig[KN_MAX_PARAMS], outs[KN_MAX_PARAMS];
  unsigned n = primal_and_shadow_types(sig, params), nout = 0;
  if (sig->ret_tangent)
    params[n++] = return_type(sig);
  params[n++] = ptr_type();
  LLVMGetParamTypes(LLVMGlobalGetValueType(sig->fn), orig);
  for (unsigned i = 0; i < sig->nparams; i++)
    if (sig->params[i] == ACT_OUT)
      outs[nout++] = orig[i];
  /* No enzyme_out parameter: nothing to return (NVPTX cannot return {}). */
  LLVMTypeRef ret = nout ? LLVMStructTypeInContext(kn_module.ctx, outs, nout, 0)
                         : LLVMVoidTypeInContext(kn_module.ctx);
  return LLVMFunctionType(ret, params, n, 0);
}

LLVMTypeRef derive_type(const Signature *sig) {
  return sig->mode == MODE_FORWARD ? forward_type(sig) : reverse_type(sig);
}

/* Augmented forward sweep: (primals and shadows[, tape memory]) ->
 * {[result], [shadow of a result holding pointers], tape}. A request's pair
 * (adjacent) keeps its tape in memory the caller holds on its stack. */
LLVMTypeRef derive_aug_type(const Signature *sig) {
  LLVMTypeRef params[KN_MAX_ARGS + 1], fields[3], ret = return_type(sig);
  unsigned n = primal_and_shadow_types(sig, params), nfields = 0;
  if (sig->adjacent)
    params[n++] = ptr_type();
  if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind)
    fields[nfields++] = ret;
  if (kn_type_has_pointers(ret))
    fields[nfields++] = ret;
  fields[nfields++] = ptr_type();
  return LLVMFunctionType(LLVMStructTypeInContext(kn_module.ctx, fields, nfields, 0), params, n, 0);
}

static void describe(const Signature *sig, LLVMValueRef deriv) {
  fprintf(stderr, "kinase: %s derivative of '%s' (", sig->mode == MODE_FORWARD ? "forward" : "reverse",
          kn_function_name(sig->fn));
  for (unsigned i = 0; i < sig->nparams; i++)
    fprintf(stderr, "%s%s", i ? ", " : "", activity_name(sig->params[i]));
  if (kn_width(sig) > 1)
    fprintf(stderr, ", width %u", kn_width(sig));
  fprintf(stderr, ") -> %s\n", kn_function_name(deriv));
}

static LLVMValueRef declare(const char *prefix, const Signature *sig, LLVMTypeRef type) {
  char width[16] = "";
  if (kn_width(sig) > 1) /* batch mode: __kinase_fwd4_f */
    snprintf(width, sizeof width, "%u", kn_width(sig));
  char *name = kn_strdup_printf("__kinase_%s%s_%s", prefix, width, kn_function_name(sig->fn));
  LLVMValueRef fn = LLVMAddFunction(kn_module.mod, name, type);
  free(name);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  return fn;
}

static LLVMValueRef user_call_reaching(LLVMValueRef fn, LLVMValueRef *user);

static Job *job_for(const Signature *sig) {
  if (!cache) {
    sh_new_strdup(cache);
    kn_set_user_call_finder(user_call_reaching);
  }
  char *key = cache_key(sig);
  Job *job = shget(cache, key);
  if (!job) {
    job = malloc(sizeof *job);
    if (!job)
      kn_die("out of memory");
    bool forward = sig->mode == MODE_FORWARD;
    LLVMTypeRef release_type =
        LLVMFunctionType(LLVMVoidTypeInContext(kn_module.ctx), (LLVMTypeRef[]){ptr_type()}, 1, 0);
    *job = (Job){.sig = *sig,
                 .deriv = declare(forward ? "fwd" : "rev", sig, derive_type(sig)),
                 .aug = forward ? NULL : declare("aug", sig, derive_aug_type(sig)),
                 .release = forward || kn_module.gpu ? NULL : declare("free", sig, release_type),
                 .state = JOB_PENDING};
    shput(cache, key, job);
    arrput(pending, job);
    if (kn_want_list())
      describe(sig, job->deriv);
  }
  free(key);
  return job;
}

LLVMValueRef derive_get(const Signature *sig) { return job_for(sig)->deriv; }

LLVMValueRef derive_aug(const Signature *sig) { return job_for(sig)->aug; }

LLVMValueRef derive_release(const Signature *sig) { return job_for(sig)->release; }

/* A pair that could not be generated allocated nothing to release. */
static void release_nothing(LLVMValueRef release) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, release, "entry"));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

/* A derivative that could not be generated still needs a valid body. */
static void give_up(LLVMValueRef deriv) {
  while (LLVMGetFirstBasicBlock(deriv))
    LLVMDeleteBasicBlock(LLVMGetFirstBasicBlock(deriv));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, deriv, "failed"));
  LLVMBuildUnreachable(b);
  LLVMDisposeBuilder(b);
}

static bool verify(LLVMValueRef fn) { return !fn || !LLVMVerifyFunction(fn, LLVMReturnStatusAction); }

static void generate(Job *job);

static Job *job_of_function(LLVMValueRef fn) {
  for (ptrdiff_t i = 0; i < arrlen(pending); i++)
    if (pending[i]->deriv == fn || pending[i]->aug == fn || pending[i]->release == fn)
      return pending[i];
  return NULL;
}

bool derive_is_derivative(LLVMValueRef fn) { return fn && job_of_function(fn); }

LLVMValueRef derive_primal_of(LLVMValueRef fn) {
  Job *job = fn ? job_of_function(fn) : NULL;
  return job ? job->sig.fn : NULL;
}

static bool is_differentiated(LLVMValueRef fn) {
  for (ptrdiff_t i = 0; i < arrlen(pending); i++)
    if (pending[i]->sig.fn == fn)
      return true;
  return false;
}

/* The call, outside headers, in a function being differentiated, that
 * reaches `fn` up the module's calls (a few steps: the headers' wrappers
 * are not differentiated themselves when inlined into their caller's copy). */
static LLVMValueRef user_call(LLVMValueRef fn, LLVMValueRef *user, int depth, ValueSet *seen) {
  if (depth > 8 || !vset_add(seen, fn))
    return NULL;
  for (LLVMUseRef use = LLVMGetFirstUse(fn); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef call = LLVMGetUser(use);
    if (!kn_is_call_site(call) || LLVMGetCalledValue(call) != fn)
      continue;
    LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    if (is_differentiated(caller) && !kn_location_in_header(kn_source_location(call))) {
      *user = caller;
      return call;
    }
    LLVMValueRef found = user_call(caller, user, depth + 1, seen);
    if (found)
      return found;
  }
  return NULL;
}

static LLVMValueRef user_call_reaching(LLVMValueRef fn, LLVMValueRef *user) {
  ValueSet seen = {0};
  LLVMValueRef call = user_call(fn, user, 0, &seen);
  vset_free(&seen);
  return call;
}

/* A function that calls a derivative (a second-order request) is
 * differentiated after that derivative has its body. */
static void generate_callees_first(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      /* an invoke: a request in a try block */
      LLVMValueRef callee = kn_is_call_site(inst) ? kn_called_function(inst) : NULL;
      Job *job = callee && LLVMIsDeclaration(callee) ? job_of_function(callee) : NULL;
      if (job && job->state == JOB_PENDING)
        generate(job);
    }
}

/* Each order of derivative adds a prefix; a function that asks for its own
 * derivative would add them forever. */
static bool nested_too_deep(const Signature *sig) {
  unsigned depth = 0;
  for (const char *p = kn_function_name(sig->fn); (p = strstr(p, "__kinase_")); p++)
    depth++;
  return depth >= 4;
}

static void generate(Job *job) {
  if (job->state != JOB_PENDING)
    return;
  job->state = JOB_RUNNING;
  generate_callees_first(job->sig.fn);
  abi_size_tape_slots(); /* the copy of job's function must hold sized tape slots */
  if (nested_too_deep(&job->sig)) {
    kn_error(NULL, job->sig.fn, "derivatives nest more than four deep: does a function ask for "
                                "its own derivative?");
    give_up(job->deriv);
    if (job->aug)
      give_up(job->aug);
    if (job->release)
      give_up(job->release);
    job->state = JOB_DONE;
    return;
  }
  bool ok = cuda_is_launch_stub(job->sig.fn) ? cuda_generate_launch(&job->sig, job->aug, job->deriv, job->release)
            : job->sig.mode == MODE_FORWARD ? forward_generate(&job->sig, job->deriv)
                                            : reverse_generate(&job->sig, job->aug, job->deriv, job->release);
  if (job->release && LLVMIsDeclaration(job->release))
    release_nothing(job->release);
  if (ok && (!verify(job->deriv) || !verify(job->aug) || !verify(job->release))) {
    if (kn_want_print()) {
      LLVMDumpValue(job->deriv);
      if (job->aug)
        LLVMDumpValue(job->aug);
      LLVMVerifyFunction(job->deriv, LLVMPrintMessageAction);
      if (job->aug)
        LLVMVerifyFunction(job->aug, LLVMPrintMessageAction);
      if (job->release)
        LLVMVerifyFunction(job->release, LLVMPrintMessageAction);
    }
    kn_error(NULL, job->sig.fn, "internal error: the generated derivative is not valid IR "
                                "(please report this, with -mllvm -kinase-print output)");
    ok = false;
  }
  LLVMValueRef fns[3] = {job->aug, job->deriv, job->release};
  LLVMFastMathFlags fast_math = kn_common_fast_math(job->sig.fn);
  for (int i = 0; i < 3; i++) {
    if (!fns[i])
      continue;
    if (!ok) {
      give_up(fns[i]);
      continue;
    }
    strip_debug_locations(fns[i]);
    kn_grant_fast_math(fns[i], fast_math);
    simplify_after(fns[i]);
    if (fns[i] == job->deriv && job->sig.mode != MODE_FORWARD) {
      rev_factor_reductions(fns[i]);
      if (kn_module.gpu)
        simplify_unroll_loops(fns[i], DEVICE_REVERSE_UNROLL);
    }
    if (kn_want_print()) {
      char *text = LLVMPrintValueToString(fns[i]);
      fputs(text, stderr);
      LLVMDisposeMessage(text);
    }
  }
  job->state = JOB_DONE;
}

void derive_set_tape_type(const Signature *sig, LLVMTypeRef tape) { job_for(sig)->tape = tape; }

LLVMTypeRef derive_tape_type(const Signature *sig) { return job_for(sig)->tape; }

void derive_drain(void) {
  for (ptrdiff_t i = 0; i < arrlen(pending); i++)
    generate(pending[i]);
}

void derive_reset(void) {
  for (ptrdiff_t i = 0; i < shlen(cache); i++)
    free(cache[i].value);
  shfree(cache);
  arrfree(pending);
}
