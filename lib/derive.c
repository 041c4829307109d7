/* The derivative cache: one derivative function per (function, mode,
 * activity pattern), declared when first asked for and generated from a work
 * list, so that recursion finds the declaration. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  Signature sig;
  LLVMValueRef deriv;
} Job;

static struct { char *key; LLVMValueRef value; } *cache;
static Job *pending;

const char *activity_name(Activity activity) {
  static const char *const names[] = {"const", "dup", "dupnoneed", "out"};
  return names[activity];
}

static char *cache_key(const Signature *sig) {
  char pattern[KN_MAX_PARAMS + 1];
  for (unsigned i = 0; i < sig->nparams; i++)
    pattern[i] = "cdno"[sig->params[i]];
  pattern[sig->nparams] = 0;
  return kn_strdup_printf("%s|%d|%s|%d%d", kn_function_name(sig->fn), sig->mode, pattern,
                          sig->ret_tangent, sig->ret_primal);
}

LLVMTypeRef derive_type(const Signature *sig) {
  LLVMTypeRef fn_type = LLVMGlobalGetValueType(sig->fn);
  LLVMTypeRef params[2 * KN_MAX_PARAMS], orig[KN_MAX_PARAMS];
  LLVMGetParamTypes(fn_type, orig);
  unsigned n = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    params[n++] = orig[i];
    if (sig->params[i] == ACT_DUP || sig->params[i] == ACT_DUPNONEED)
      params[n++] = orig[i];
  }
  LLVMTypeRef ret = LLVMGetReturnType(fn_type);
  LLVMTypeRef result = LLVMVoidTypeInContext(kn_module.ctx);
  if (sig->ret_tangent && sig->ret_primal)
    result = LLVMStructTypeInContext(kn_module.ctx, (LLVMTypeRef[]){ret, ret}, 2, 0);
  else if (sig->ret_tangent || sig->ret_primal)
    result = ret;
  return LLVMFunctionType(result, params, n, 0);
}

static void describe(const Signature *sig, LLVMValueRef deriv) {
  fprintf(stderr, "kinase: %s derivative of '%s' (", sig->mode == MODE_FORWARD ? "forward" : "reverse",
          kn_function_name(sig->fn));
  for (unsigned i = 0; i < sig->nparams; i++)
    fprintf(stderr, "%s%s", i ? ", " : "", activity_name(sig->params[i]));
  fprintf(stderr, ") -> %s\n", kn_function_name(deriv));
}

LLVMValueRef derive_get(const Signature *sig) {
  if (!cache)
    sh_new_strdup(cache);
  char *key = cache_key(sig);
  LLVMValueRef deriv = shget(cache, key);
  if (!deriv) {
    const char *prefix = sig->mode == MODE_FORWARD ? "fwd" : "rev";
    char *name = kn_strdup_printf("__kinase_%s_%s", prefix, kn_function_name(sig->fn));
    deriv = LLVMAddFunction(kn_module.mod, name, derive_type(sig));
    free(name);
    LLVMSetLinkage(deriv, LLVMInternalLinkage);
    shput(cache, key, deriv);
    arrput(pending, ((Job){*sig, deriv}));
    if (kn_want_list())
      describe(sig, deriv);
  }
  free(key);
  return deriv;
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

static void generate(Job *job) {
  bool ok = forward_generate(&job->sig, job->deriv);
  if (ok && LLVMVerifyFunction(job->deriv, LLVMReturnStatusAction)) {
    kn_error(NULL, job->sig.fn, "internal error: the generated derivative is not valid IR "
                                "(please report this, with -mllvm -kinase-print output)");
    if (kn_want_print())
      LLVMDumpValue(job->deriv);
    ok = false;
  }
  if (!ok) {
    give_up(job->deriv);
    return;
  }
  strip_debug_locations(job->deriv);
  simplify_after(job->deriv);
  if (kn_want_print()) {
    char *text = LLVMPrintValueToString(job->deriv);
    fputs(text, stderr);
    LLVMDisposeMessage(text);
  }
}

void derive_drain(void) {
  while (arrlen(pending)) {
    Job job = pending[0];
    arrdel(pending, 0);
    generate(&job);
  }
}

void derive_reset(void) {
  shfree(cache);
  arrfree(pending);
}
