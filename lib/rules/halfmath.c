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
 * And the conversions __float2half, __half2float, __float2bfloat16, and
 * those into and out of pairs (__floats2half2_rn, __low2float, ...): in
 * device code they are assembly (rules/asm.def), but in host code they are
 * integer arithmetic on the bits, through which no derivative flows. Calls
 * of them become fptrunc, fpext and lane moves, the same rounding to
 * nearest. Those
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

bool half_math_is_conversion(LLVMValueRef fn) { return conversion_of(fn) >= 0; }

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

typedef LLVMValueRef (*BuildFn)(LLVMBuilderRef b, LLVMValueRef *x, const void *data);

/* In place of `call` of a header function, with `b` before it: `how`(b, x),
 * x its arguments read as `types`; the result handed back as the header
 * returns it (by value or through sret). Host C++ passes a __half2, not
 * trivially copyable, by the address of a copy: that is loaded. */
static void replace_call(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef call, const LLVMTypeRef *types,
                         BuildFn how, const void *data) {
  LLVMValueRef header = kn_called_function(call);
  LLVMPositionBuilderBefore(b, call);
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  unsigned n = LLVMGetNumArgOperands(call), k = 0;
  LLVMValueRef x[2], result_slot = NULL;
  for (unsigned i = 0; i < n && k < 2; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    if (param_attribute(header, i, "sret")) {
      result_slot = arg;
      continue;
    }
    LLVMTypeRef t = types[k];
    bool by_address = kn_is_pointer_type(LLVMTypeOf(arg)) && !kn_is_pointer_type(t);
    x[k++] = by_address ? LLVMBuildLoad2(b, t, arg, "") : as_type(b, fn, arg, t);
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

static LLVMValueRef call_wrapper(LLVMBuilderRef b, LLVMValueRef *x, const void *wrapper) {
  LLVMValueRef w = (LLVMValueRef)wrapper;
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(w), w, x, 1, "");
}

/* ---- conversions ---- */

/* What a conversion does: h is half or bfloat, h2 a pair of them, f2 a
 * float2 (as the host's C ABI passes it, <2 x float>). */
typedef enum {
  CVT_WIDEN,       /* h -> float */
  CVT_NARROW,      /* float -> h */
  CVT_LOW,         /* h2 -> float, its low lane */
  CVT_HIGH,        /* h2 -> float, its high lane */
  CVT_LOW_HALF,    /* h2 -> h */
  CVT_HIGH_HALF,   /* h2 -> h */
  CVT_PACK,        /* float, float -> h2 */
  CVT_HALVES,      /* h, h -> h2 */
  CVT_SPLAT,       /* float -> h2, both lanes */
  CVT_PAIR_WIDEN,  /* h2 -> f2 */
  CVT_PAIR_NARROW, /* f2 -> h2 */
} ConversionOp;

/* The conversions between floats and the 16-bit types and their pairs, by
 * name and mangled parameters (the arguments' types). In device code they
 * are assembly (rules/asm.def); in host code, integer arithmetic on the
 * bits, through which no derivative flows. */
typedef struct {
  const char *name, *params;
  ConversionOp op;
  bool bfloat;
  const char *wrapper; /* for those rounding other than to nearest */
} Conversion;

static const Conversion conversions[] = {
    {"__float2half", "f", CVT_NARROW, false, NULL},
    {"__float2half_rn", "f", CVT_NARROW, false, NULL},
    {"__half2float", "6__half", CVT_WIDEN, false, NULL},
    {"__float2bfloat16", "f", CVT_NARROW, true, NULL},
    {"__float2bfloat16_rn", "f", CVT_NARROW, true, NULL},
    {"__bfloat162float", "13__nv_bfloat16", CVT_WIDEN, true, NULL},
    {"__low2float", "7__half2", CVT_LOW, false, NULL},
    {"__high2float", "7__half2", CVT_HIGH, false, NULL},
    {"__low2float", "14__nv_bfloat162", CVT_LOW, true, NULL},
    {"__high2float", "14__nv_bfloat162", CVT_HIGH, true, NULL},
    {"__low2half", "7__half2", CVT_LOW_HALF, false, NULL},
    {"__high2half", "7__half2", CVT_HIGH_HALF, false, NULL},
    {"__low2bfloat16", "14__nv_bfloat162", CVT_LOW_HALF, true, NULL},
    {"__high2bfloat16", "14__nv_bfloat162", CVT_HIGH_HALF, true, NULL},
    {"__floats2half2_rn", "ff", CVT_PACK, false, NULL},
    {"__floats2bfloat162_rn", "ff", CVT_PACK, true, NULL},
    {"__halves2half2", "6__halfS_", CVT_HALVES, false, NULL},
    {"__halves2bfloat162", "13__nv_bfloat16S_", CVT_HALVES, true, NULL},
    {"__float2half2_rn", "f", CVT_SPLAT, false, NULL},
    {"__float2bfloat162_rn", "f", CVT_SPLAT, true, NULL},
    {"__half22float2", "7__half2", CVT_PAIR_WIDEN, false, NULL},
    {"__bfloat1622float2", "14__nv_bfloat162", CVT_PAIR_WIDEN, true, NULL},
    {"__float22half2_rn", "6float2", CVT_PAIR_NARROW, false, NULL},
    {"__float22bfloat162_rn", "6float2", CVT_PAIR_NARROW, true, NULL},
    {"__float2half_rz", "f", CVT_NARROW, false, "kinase.cvt.rz.f16"},
    {"__float2half_rd", "f", CVT_NARROW, false, "kinase.cvt.rm.f16"},
    {"__float2half_ru", "f", CVT_NARROW, false, "kinase.cvt.rp.f16"},
    {"__float2bfloat16_rz", "f", CVT_NARROW, true, "kinase.cvt.rz.bf16"},
    {"__float2bfloat16_rd", "f", CVT_NARROW, true, "kinase.cvt.rm.bf16"},
    {"__float2bfloat16_ru", "f", CVT_NARROW, true, "kinase.cvt.rp.bf16"},
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

/* The types the conversion's arguments are read as. */
static void argument_types(const Conversion *c, LLVMTypeRef *types) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(kn_module.ctx), h = half_of(c);
  switch (c->op) {
  case CVT_WIDEN: case CVT_HALVES: types[0] = types[1] = h; break;
  case CVT_NARROW: case CVT_PACK: case CVT_SPLAT: types[0] = types[1] = f32; break;
  case CVT_PAIR_NARROW: types[0] = LLVMVectorType(f32, 2); break;
  default: types[0] = LLVMVectorType(h, 2); break; /* from a pair */
  }
}

static LLVMValueRef pair_of(LLVMBuilderRef b, LLVMValueRef low, LLVMValueRef high) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
  LLVMValueRef pair = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(low), 2));
  pair = LLVMBuildInsertElement(b, pair, low, LLVMConstInt(i32, 0, 0), "");
  return LLVMBuildInsertElement(b, pair, high, LLVMConstInt(i32, 1, 0), "");
}

static LLVMValueRef convert(LLVMBuilderRef b, LLVMValueRef *x, const void *row) {
  const Conversion *c = row;
  LLVMTypeRef f32 = LLVMFloatTypeInContext(kn_module.ctx), h = half_of(c);
  LLVMValueRef low = LLVMConstInt(LLVMInt32TypeInContext(kn_module.ctx), 0, 0);
  LLVMValueRef high = LLVMConstInt(LLVMInt32TypeInContext(kn_module.ctx), 1, 0);
  switch (c->op) {
  case CVT_WIDEN: return LLVMBuildFPExt(b, x[0], f32, "");
  case CVT_NARROW: return LLVMBuildFPTrunc(b, x[0], h, "");
  case CVT_LOW: return LLVMBuildFPExt(b, LLVMBuildExtractElement(b, x[0], low, ""), f32, "");
  case CVT_HIGH: return LLVMBuildFPExt(b, LLVMBuildExtractElement(b, x[0], high, ""), f32, "");
  case CVT_LOW_HALF: return LLVMBuildExtractElement(b, x[0], low, "");
  case CVT_HIGH_HALF: return LLVMBuildExtractElement(b, x[0], high, "");
  case CVT_PACK: return pair_of(b, LLVMBuildFPTrunc(b, x[0], h, ""), LLVMBuildFPTrunc(b, x[1], h, ""));
  case CVT_HALVES: return pair_of(b, x[0], x[1]);
  case CVT_SPLAT: {
    LLVMValueRef y = LLVMBuildFPTrunc(b, x[0], h, "");
    return pair_of(b, y, y);
  }
  case CVT_PAIR_WIDEN: return LLVMBuildFPExt(b, x[0], LLVMVectorType(f32, 2), "");
  case CVT_PAIR_NARROW: return LLVMBuildFPTrunc(b, x[0], LLVMVectorType(h, 2), "");
  }
  return NULL;
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
    LLVMTypeRef types[2];
    if (names[k]) {
      types[0] = wrapper_type_of(names[k]);
      LLVMValueRef wrapper = wrapper_of(kn_called_function(calls[k]), names[k], types[0], types[0]);
      replace_call(b, fn, calls[k], types, call_wrapper, wrapper);
    } else if (conversion_is_wrapped(c)) {
      const Conversion *row = &conversions[c];
      argument_types(row, types);
      LLVMValueRef wrapper = wrapper_of(kn_called_function(calls[k]), row->wrapper, types[0], half_of(row));
      replace_call(b, fn, calls[k], types, call_wrapper, wrapper);
    } else {
      argument_types(&conversions[c], types);
      replace_call(b, fn, calls[k], types, convert, &conversions[c]);
    }
    free(names[k]);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
  arrfree(names);
}
