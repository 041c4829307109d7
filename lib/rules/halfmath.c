/* The math functions of cuda_fp16.h and cuda_bf16.h (hexp, hlog, hsin,
 * h2exp, ...), differentiated by name. Their bodies are assembly with
 * special cases patched by the ulp, or float code whose range reduction
 * rounds on purpose (hsin's __float_simpl_sinf): differentiating either
 * instruction by instruction would be wrong or impossible. So in a copy about
 * to be differentiated each call becomes a call of a wrapper taking and
 * returning the value as half, bfloat, <2 x half> or <2 x bfloat>,
 * kinase.half.BASE.TYPE, whose body calls the header's function (the primal
 * is bit for bit the header's) and whose partial is a row of nvvm.def. A
 * header function without such a row stays a call to inline as before.
 *
 * And the conversions __float2half, __half2float, __float2bfloat16, ...: in
 * device code they are assembly (rules/asm.def), but in host code they are
 * integer arithmetic on the bits, through which no derivative flows. Calls
 * of them become fptrunc and fpext, the same rounding to nearest. Those
 * rounding otherwise (__float2half_rz, _rd, _ru and bfloat16's) have no
 * such IR: they are wrapped as the math functions are, in
 * kinase.cvt.MODE.TYPE taking a float, whose partial is 1 (nvvm.def). */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

/* The header's parameter types, as Itanium mangling spells them, with the
 * wrapper's type suffix; the pairs are named h2BASE, the scalars hBASE. */
static const struct {
  const char *mangled, *suffix;
  bool pair;
} half_types[] = {
    {"6__half", "f16", false},
    {"13__nv_bfloat16", "bf16", false},
    {"7__half2", "v2f16", true},
    {"14__nv_bfloat162", "v2bf16", true},
};

/* A function of namespace scope, mangled _Z[L]<length><name><parameters>:
 * its name (not terminated, *len long) and parameters; NULL for others. */
static const char *demangled(LLVMValueRef fn, int *len, const char **params) {
  const char *name = fn ? kn_function_name(fn) : "";
  if (strncmp(name, "_Z", 2))
    return NULL;
  name += name[2] == 'L' ? 3 : 2;
  char *end;
  long n = strtol(name, &end, 10);
  if (n < 1 || (long)strlen(end) <= n)
    return NULL;
  *len = (int)n;
  *params = end + n;
  return end;
}

/* "kinase.half.exp.f16" for _ZL4hexp6__half, or NULL where `fn` is no
 * header math function with a row (the caller frees the name). */
static char *wrapper_name(LLVMValueRef fn) {
  int len;
  const char *params, *end = demangled(fn, &len, &params);
  if (!end || len < 2 || end[0] != 'h')
    return NULL;
  for (size_t k = 0; k < sizeof half_types / sizeof *half_types; k++) {
    const char *base = end + (half_types[k].pair ? 2 : 1);
    if (strcmp(params, half_types[k].mangled) || (half_types[k].pair && end[1] != '2'))
      continue;
    char *wrapper = kn_strdup_printf("kinase.half.%.*s.%s", (int)(params - base), base, half_types[k].suffix);
    const Rule *rule = rule_for_name(wrapper);
    if (rule && rule->kind == RULE_MATH)
      return wrapper;
    free(wrapper);
  }
  return NULL;
}

static int conversion_of(LLVMValueRef fn);
static bool conversion_is_wrapped(int k);

bool half_math_is_header_function(LLVMValueRef fn) {
  char *name = wrapper_name(fn);
  free(name);
  return name != NULL || conversion_is_wrapped(conversion_of(fn));
}

static LLVMTypeRef wrapper_type_of(const char *wrapper) {
  LLVMContextRef ctx = kn_module.ctx;
  const char *suffix = strrchr(wrapper, '.') + 1;
  bool pair = suffix[0] == 'v';
  LLVMTypeRef lane = strstr(suffix, "bf16") ? LLVMBFloatTypeInContext(ctx) : LLVMHalfTypeInContext(ctx);
  return pair ? LLVMVectorType(lane, 2) : lane;
}

/* A slot in fn's entry block, where sroa finds it. */
static LLVMValueRef entry_alloca(LLVMValueRef fn, LLVMTypeRef type) {
  LLVMBuilderRef at = kn_entry_builder(fn);
  LLVMValueRef slot = LLVMBuildAlloca(at, type, "half.slot");
  LLVMDisposeBuilder(at);
  return slot;
}

static LLVMAttributeRef param_attribute(LLVMValueRef fn, unsigned i, const char *kind) {
  return LLVMGetEnumAttributeAtIndex(fn, i + 1, LLVMGetEnumAttributeKindForName(kind, strlen(kind)));
}

/* `v` as a value of `type` of the same size: through memory, which sroa
 * folds into a bitcast. */
static LLVMValueRef as_type(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef v, LLVMTypeRef type) {
  if (LLVMTypeOf(v) == type)
    return v;
  LLVMValueRef slot = entry_alloca(fn, type);
  LLVMBuildStore(b, v, slot);
  return LLVMBuildLoad2(b, type, slot, "");
}

/* The wrapper, from `param` to `t`: its argument handed to `header` as the
 * header takes it (byval, sret or by value), the result read back. */
static LLVMValueRef wrapper_of(LLVMValueRef header, const char *name, LLVMTypeRef param, LLVMTypeRef t) {
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(t, &param, 1, false));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "entry"));
  LLVMTypeRef header_type = LLVMGlobalGetValueType(header);
  unsigned n = LLVMCountParamTypes(header_type);
  LLVMTypeRef params[4];
  LLVMValueRef args[4], result_slot = NULL;
  if (n > 4)
    kn_die("half math function %s with %u parameters", kn_function_name(header), n);
  LLVMGetParamTypes(header_type, params);
  for (unsigned i = 0; i < n; i++) {
    LLVMAttributeRef byval = param_attribute(header, i, "byval"), sret = param_attribute(header, i, "sret");
    if (sret) {
      args[i] = result_slot = LLVMBuildAlloca(b, LLVMGetTypeAttributeValue(sret), "");
    } else if (byval) {
      args[i] = LLVMBuildAlloca(b, LLVMGetTypeAttributeValue(byval), "");
      LLVMBuildStore(b, LLVMGetParam(fn, 0), args[i]);
    } else {
      args[i] = as_type(b, fn, LLVMGetParam(fn, 0), params[i]);
    }
  }
  LLVMValueRef call = LLVMBuildCall2(b, header_type, header, args, n, "");
  for (unsigned i = 0; i < n; i++)
    for (const char *const *kind = (const char *const[]){"byval", "sret", NULL}; *kind; kind++) {
      LLVMAttributeRef attr = param_attribute(header, i, *kind);
      if (attr)
        LLVMAddCallSiteAttribute(call, i + 1, attr);
    }
  LLVMBuildRet(b, result_slot ? LLVMBuildLoad2(b, t, result_slot, "") : as_type(b, fn, call, t));
  LLVMDisposeBuilder(b);
  return fn;
}

/* In place of `call` of a header function of one argument, with `b` before
 * it: `how`(b, x), x its argument read as type t; the result handed back as
 * the header returns it (by value or through sret). */
static void replace_call(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef call, LLVMTypeRef t,
                         LLVMValueRef (*how)(LLVMBuilderRef, LLVMValueRef, const void *), const void *data) {
  LLVMValueRef header = kn_called_function(call);
  LLVMPositionBuilderBefore(b, call);
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef x = NULL, result_slot = NULL;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    if (param_attribute(header, i, "sret"))
      result_slot = arg;
    else if (param_attribute(header, i, "byval"))
      x = LLVMBuildLoad2(b, t, arg, "");
    else
      x = as_type(b, fn, arg, t);
  }
  LLVMValueRef y = how(b, x, data);
  if (result_slot)
    LLVMBuildStore(b, y, result_slot);
  else
    LLVMReplaceAllUsesWith(call, as_type(b, fn, y, LLVMTypeOf(call)));
  /* Host C++ invokes them among locals with destructors; a conversion
   * throws nothing, so the invoke goes on to its normal destination. */
  if (LLVMIsAInvokeInst(call)) {
    LLVMBuildBr(b, LLVMGetNormalDest(call));
    cfg_retarget_phis(LLVMGetUnwindDest(call), LLVMGetInstructionParent(call), NULL);
  }
  LLVMInstructionEraseFromParent(call);
}

static LLVMValueRef call_wrapper(LLVMBuilderRef b, LLVMValueRef x, const void *wrapper) {
  LLVMValueRef w = (LLVMValueRef)wrapper;
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(w), w, &x, 1, "");
}

/* ---- conversions ---- */

/* The conversions between float and the 16-bit types, by name and
 * mangled parameters (the argument's type). */
typedef struct {
  const char *name, *params;
  bool widen;
  bool bfloat;
  const char *wrapper; /* for those rounding other than to nearest */
} Conversion;

static const Conversion conversions[] = {
    {"__float2half", "f", false, false, NULL},
    {"__float2half_rn", "f", false, false, NULL},
    {"__half2float", "6__half", true, false, NULL},
    {"__float2bfloat16", "f", false, true, NULL},
    {"__float2bfloat16_rn", "f", false, true, NULL},
    {"__bfloat162float", "13__nv_bfloat16", true, true, NULL},
    {"__float2half_rz", "f", false, false, "kinase.cvt.rz.f16"},
    {"__float2half_rd", "f", false, false, "kinase.cvt.rm.f16"},
    {"__float2half_ru", "f", false, false, "kinase.cvt.rp.f16"},
    {"__float2bfloat16_rz", "f", false, true, "kinase.cvt.rz.bf16"},
    {"__float2bfloat16_rd", "f", false, true, "kinase.cvt.rm.bf16"},
    {"__float2bfloat16_ru", "f", false, true, "kinase.cvt.rp.bf16"},
};
enum { NCONVERSIONS = sizeof conversions / sizeof *conversions };

/* Which of `conversions` `fn` is, or -1. */
static int conversion_of(LLVMValueRef fn) {
  int len;
  const char *params, *name = demangled(fn, &len, &params);
  for (int k = 0; name && k < NCONVERSIONS; k++)
    if ((int)strlen(conversions[k].name) == len && !strncmp(name, conversions[k].name, (size_t)len) &&
        !strcmp(params, conversions[k].params))
      return k;
  return -1;
}

static bool conversion_is_wrapped(int k) { return k >= 0 && conversions[k].wrapper; }

static LLVMTypeRef half_of(const Conversion *c) {
  return c->bfloat ? LLVMBFloatTypeInContext(kn_module.ctx) : LLVMHalfTypeInContext(kn_module.ctx);
}

static LLVMValueRef convert(LLVMBuilderRef b, LLVMValueRef x, const void *row) {
  const Conversion *c = row;
  return c->widen ? LLVMBuildFPExt(b, x, LLVMFloatTypeInContext(kn_module.ctx), "")
                  : LLVMBuildFPTrunc(b, x, half_of(c), "");
}

void half_math_wrap_calls(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  char **names = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef callee = kn_is_call_site(inst) ? kn_called_function(inst) : NULL;
      char *name = wrapper_name(callee);
      if (name || conversion_of(callee) >= 0) {
        arrput(calls, inst);
        arrput(names, name);
      }
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; k < arrlen(calls); k++) {
    int c = conversion_of(kn_called_function(calls[k]));
    LLVMTypeRef f32 = LLVMFloatTypeInContext(kn_module.ctx);
    if (names[k]) {
      LLVMTypeRef t = wrapper_type_of(names[k]);
      LLVMValueRef wrapper = wrapper_of(kn_called_function(calls[k]), names[k], t, t);
      replace_call(b, fn, calls[k], t, call_wrapper, wrapper);
    } else if (conversion_is_wrapped(c)) {
      const Conversion *row = &conversions[c];
      LLVMValueRef wrapper = wrapper_of(kn_called_function(calls[k]), row->wrapper, f32, half_of(row));
      replace_call(b, fn, calls[k], f32, call_wrapper, wrapper);
    } else {
      const Conversion *row = &conversions[c];
      replace_call(b, fn, calls[k], row->widen ? half_of(row) : f32, convert, row);
    }
    free(names[k]);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
  arrfree(names);
}
