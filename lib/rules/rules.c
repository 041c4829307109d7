/* Lookup of the rule tables (rules/ *.def) for a call. */
#include "kinase.h"
#include "../../runtime/kinase_cuda.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

#define PARTIAL(name)                                                                              \
  LLVMValueRef name(LLVMBuilderRef b, LLVMValueRef *args, LLVMValueRef y, unsigned i);
#define MATH(name, intrinsic, nargs, partial) PARTIAL(partial)
#include "math.def"
#undef MATH
#define ARITH(opcode, partial) PARTIAL(partial)
#include "arith.def"
#undef ARITH
#define NVVM(names, nargs, partial) PARTIAL(partial)
#include "nvvm.def"
#undef NVVM

static const struct {
  LLVMOpcode opcode;
  PartialFn partial;
} arith_table[] = {
#define ARITH(opcode, partial) {opcode, partial},
#include "arith.def"
#undef ARITH
};

PartialFn rule_for_opcode(LLVMOpcode opcode) {
  for (size_t i = 0; i < sizeof arith_table / sizeof *arith_table; i++)
    if (arith_table[i].opcode == opcode)
      return arith_table[i].partial;
  return NULL;
}

static const struct {
  const char *name, *intrinsic;
  unsigned float_args;
  PartialFn partial;
} math_table[] = {
#define MATH(name, intrinsic, nargs, partial) {name, intrinsic, nargs, partial},
#include "math.def"
#undef MATH
/* nvvm.def's rows have exact names only, in place of the intrinsic. */
#define NVVM(names, nargs, partial) {NULL, names, nargs, partial},
#include "nvvm.def"
#undef NVVM
};

static const struct {
  const char *name;
  RuleKind kind;
  unsigned arg;
} call_table[] = {
#define CALL(name, kind, arg) {name, kind, arg},
#include "calls.def"
#undef CALL
};

static const struct {
  const char *name;
  RuleKind kind;
  unsigned arg;
  CudaCall cuda;
} cuda_table[] = {
#define CUDA(name, kind, arg, how, kind_arg, stream_arg)                                          \
  {name, kind, arg, {how, kind_arg, stream_arg, 1, false, false, false}},
#define CUDA_2D(name, kind, arg, how, kind_arg, stream_arg)                                       \
  {name, kind, arg, {how, kind_arg, stream_arg, 1, false, true, false}},
#define CUDA_SET(name, unit, stream_arg) {name, RULE_MEMSET, 0, {0, -1, stream_arg, unit, false, false, false}},
#define CUDA_SET_2D(name, unit, stream_arg) {name, RULE_MEMSET, 0, {0, -1, stream_arg, unit, false, true, false}},
#define CUDA_TO_SYMBOL(name, stream_arg) {name, RULE_MEMCPY, 0, {0, 4, stream_arg, 1, true, false, false}},
#define CUDA_FROM_SYMBOL(name, stream_arg) {name, RULE_MEMCPY, 0, {0, 4, stream_arg, 1, false, false, true}},
#define CUDA_REFUSED(name, why)
#include "cuda.def"
#undef CUDA_REFUSED
#undef CUDA_FROM_SYMBOL
#undef CUDA_TO_SYMBOL
#undef CUDA_2D
#undef CUDA_SET_2D
#undef CUDA_SET
#undef CUDA
};

static const struct {
  const char *name;
  RuleKind kind;
  WarpOp warp;
} warp_table[] = {
#define WARP(name, kind, shuffle, mirror) {name, kind, {shuffle, mirror}},
#include "warp.def"
#undef WARP
};

#define MODEL(name, body) LLVMValueRef body(LLVMBuilderRef b, LLVMValueRef *p, LLVMTypeRef result);
#define MODEL_IN_PLACE MODEL
#include "models.def"
#undef MODEL_IN_PLACE
#undef MODEL

static const struct {
  const char *name;
  ModelFn body;
  bool in_place;
} model_table[] = {
#define MODEL(name, body) {name, body, false},
#define MODEL_IN_PLACE(name, body) {name, body, true},
#include "models.def"
#undef MODEL_IN_PLACE
#undef MODEL
};

#define NMATH (sizeof math_table / sizeof *math_table)
#define NCALL (sizeof call_table / sizeof *call_table)
#define NMODEL (sizeof model_table / sizeof *model_table)
#define NCUDA (sizeof cuda_table / sizeof *cuda_table)
#define NWARP (sizeof warp_table / sizeof *warp_table)

static Rule rules[NMATH + NCALL + NMODEL + NCUDA + NWARP];
static struct { char *key; Rule *value; } *by_name;
static struct { unsigned key; Rule *value; } *by_intrinsic;

static void add_name(Rule *rule, const char *name) {
  if (!name)
    return;
  if (!strncmp(name, "llvm.", 5)) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id)
      kn_die("rule table names unknown intrinsic %s", name);
    hmput(by_intrinsic, id, rule);
  } else {
    shput(by_name, name, rule);
  }
}

/* sin also answers to sinf, sinl, __nv_sin and __nv_sinf. */
static void add_math_spellings(Rule *rule, const char *name) {
  static const char *const forms[] = {"%s", "%sf", "%sl", "__nv_%s", "__nv_%sf"};
  for (size_t i = 0; name && i < sizeof forms / sizeof *forms; i++) {
    char *spelled = kn_strdup_printf(forms[i], name);
    add_name(rule, spelled);
    free(spelled);
  }
}

/* nvvm.def's names: "llvm.nvvm.div.{rn,rz}.{f,d}" stands for four, each of
 * which must exist (add_name stops on an unknown intrinsic). */
static void add_expanded(Rule *rule, const char *names) {
  if (!names)
    return;
  const char *open = strchr(names, '{'), *close = open ? strchr(open, '}') : NULL;
  if (!open) {
    add_name(rule, names);
    return;
  }
  if (!close)
    kn_die("unbalanced braces in rule names %s", names);
  for (const char *alt = open + 1;;) {
    size_t len = strcspn(alt, ",}");
    char *spelled = kn_strdup_printf("%.*s%.*s%s", (int)(open - names), names, (int)len, alt, close + 1);
    add_expanded(rule, spelled);
    free(spelled);
    alt += len;
    if (*alt++ == '}')
      break;
  }
}

static void build_index(void) {
  sh_new_strdup(by_name);
  for (size_t i = 0; i < NMATH; i++) {
    rules[i] = (Rule){.name = math_table[i].name ? math_table[i].name : math_table[i].intrinsic,
                      .kind = RULE_MATH, .partial = math_table[i].partial, .arg = math_table[i].float_args};
    add_math_spellings(&rules[i], math_table[i].name);
    add_expanded(&rules[i], math_table[i].intrinsic);
  }
  for (size_t i = 0; i < NCALL; i++) {
    rules[NMATH + i] = (Rule){.name = call_table[i].name, .kind = call_table[i].kind, .arg = call_table[i].arg};
    add_name(&rules[NMATH + i], call_table[i].name);
  }
  for (size_t i = 0; i < NMODEL; i++) {
    Rule *rule = &rules[NMATH + NCALL + i];
    *rule = (Rule){.name = model_table[i].name, .kind = RULE_MODEL, .model = model_table[i].body,
                   .in_place = model_table[i].in_place};
    add_expanded(rule, model_table[i].name);
  }
  for (size_t i = 0; i < NCUDA; i++) {
    Rule *rule = &rules[NMATH + NCALL + NMODEL + i];
    *rule = (Rule){.name = cuda_table[i].name, .kind = cuda_table[i].kind, .arg = cuda_table[i].arg,
                   .cuda = &cuda_table[i].cuda};
    add_name(rule, cuda_table[i].name);
  }
  for (size_t i = 0; i < NWARP; i++) {
    Rule *rule = &rules[NMATH + NCALL + NMODEL + NCUDA + i];
    *rule = (Rule){.name = warp_table[i].name, .kind = warp_table[i].kind, .arg = 1,
                   .warp = &warp_table[i].warp};
    add_name(rule, warp_table[i].name);
  }
}

bool rule_inlinable(LLVMValueRef callee) {
  return callee && !LLVMIsDeclaration(callee) && !rule_for_function(callee) && !registry_of(callee) &&
         !half_math_is_header_function(callee) && !LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee));
}

/* Marks fn's call sites that rule_inlinable takes, and `wanted` (NULL:
 * every call, not invoke), to be inlined. */
static bool mark_calls(LLVMValueRef fn, bool (*wanted)(LLVMValueRef site)) {
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  bool any = false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      bool site = wanted ? kn_is_call_site(inst) && wanted(inst) : LLVMIsACallInst(inst) != NULL;
      LLVMValueRef callee = site ? kn_called_function(inst) : NULL;
      if (!rule_inlinable(callee) || callee == fn)
        continue;
      LLVMAddCallSiteAttribute(inst, LLVMAttributeFunctionIndex,
                               LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
      any = true;
    }
  return any;
}

void rule_inline_calls(LLVMValueRef fn, int levels) {
  for (int level = 0; level < levels && mark_calls(fn, NULL); level++)
    simplify_inline_marked_calls();
}

/* Whether a store into `at` (an alloca, or an address in it) keeps the
 * address of another alloca there, or a copy into it brings one (a closure
 * passed by value, copied by the inliner). */
static bool stores_local_address(LLVMValueRef at, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(at); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == at &&
        LLVMIsAAllocaInst(kn_underlying_object(LLVMGetOperand(user, 0))))
      return true;
    const Rule *copy = LLVMIsACallInst(user) ? rule_for_call(user) : NULL;
    LLVMValueRef from = copy && copy->kind == RULE_MEMCPY && LLVMGetOperand(user, 0) == at
                            ? kn_underlying_object(LLVMGetOperand(user, 1))
                            : NULL;
    if (from && from != at && LLVMIsAAllocaInst(from) && depth < 2 && stores_local_address(from, depth + 1))
      return true;
    if (LLVMIsAGetElementPtrInst(user) && depth < 2 && stores_local_address(user, depth + 1))
      return true;
  }
  return false;
}

/* A call given a local that holds addresses of locals: the closure of a
 * lambda capturing by reference, or any object of references to locals. */
static bool takes_closure(LLVMValueRef call) {
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++) {
    LLVMValueRef base = kn_underlying_object(LLVMGetOperand(call, i));
    if (LLVMIsAAllocaInst(base) && stores_local_address(base, 0))
      return true;
  }
  return false;
}

/* cuda_runtime.h's C++ overloads of the CUDA API (cudaMalloc<T>,
 * cudaMemcpyToSymbol<T>, ...) are static inline functions named like the
 * call they make (mangled _ZL<length>cuda...). Inlined, that call sees the
 * caller's arguments: a local array of constants copied to a symbol is seen
 * to carry no derivative, where the overload's parameter could be anything. */
static bool calls_cuda_header_overload(LLVMValueRef site) {
  LLVMValueRef callee = kn_called_function(site);
  const char *name = callee ? kn_function_name(callee) : "";
  char *end;
  if (strncmp(name, "_ZL", 3) || LLVMGetLinkage(callee) != LLVMInternalLinkage)
    return false;
  unsigned long length = strtoul(name + 3, &end, 10);
  return length > 4 && !strncmp(end, "cuda", 4);
}

/* The largest body taken for an accessor: `operator[]` or `data()` at -O0
 * is about a dozen instructions, spills of its parameters included. */
enum { ACCESSOR_MAX_INSTRUCTIONS = 24, ACCESSOR_MAX_DEPTH = 3 };

/* A C++ accessor (`std::vector::data()`, `operator[]`, `get()`): an inline
 * function (linkonce_odr) returning an address, one block of address
 * arithmetic, loads and stores, calling only intrinsics and other
 * accessors. Inlined, the accesses through the pointer it returns show
 * the caller what the memory holds: a device-to-host copy into `w.data()`
 * read back as `w[i]` is seen to move doubles. */
static bool is_accessor(LLVMValueRef callee, int depth) {
  LLVMTypeRef returns = LLVMGetReturnType(LLVMGlobalGetValueType(callee));
  if (depth > ACCESSOR_MAX_DEPTH || LLVMGetLinkage(callee) != LLVMLinkOnceODRLinkage ||
      !kn_is_pointer_type(returns) || LLVMCountBasicBlocks(callee) != 1)
    return false;
  int count = 0;
  for (LLVMValueRef inst = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(callee)); inst;
       inst = LLVMGetNextInstruction(inst)) {
    if (++count > ACCESSOR_MAX_INSTRUCTIONS)
      return false;
    if (!kn_is_call_site(inst))
      continue;
    LLVMValueRef inner = kn_called_function(inst);
    if (!inner || (!LLVMGetIntrinsicID(inner) && !(rule_inlinable(inner) && is_accessor(inner, depth + 1))))
      return false;
  }
  return true;
}

static bool calls_accessor(LLVMValueRef site) {
  LLVMValueRef callee = kn_called_function(site);
  return callee && rule_inlinable(callee) && is_accessor(callee, 0);
}

bool rule_inline_accessors(LLVMValueRef fn) {
  bool any = false;
  for (int level = 0; level <= ACCESSOR_MAX_DEPTH && mark_calls(fn, calls_accessor); level++) {
    simplify_inline_marked_calls();
    any = true;
  }
  return any;
}

/* A function only reinterpreting a float vector's bits as integers or back
 * (SSE's _mm_castpd_si128, _mm_castsi128_pd): one parameter, a vector of the
 * result's size, one side floats and the other integers, no calls. Called,
 * it hides the floats (an integer result carries no adjoint); inlined, the
 * bitcasts show them, and core/bitshuffle.c turns integer shuffles of
 * whole floats back into float shuffles. */
static bool reinterprets_float_vector(LLVMValueRef site) {
  LLVMValueRef callee = kn_called_function(site);
  if (!callee || LLVMIsDeclaration(callee) || LLVMCountParams(callee) != 1 || LLVMCountBasicBlocks(callee) != 1)
    return false;
  LLVMTypeRef to = LLVMGetReturnType(LLVMGlobalGetValueType(callee)), from = LLVMTypeOf(LLVMGetParam(callee, 0));
  if (LLVMGetTypeKind(to) != LLVMVectorTypeKind || LLVMGetTypeKind(from) != LLVMVectorTypeKind ||
      LLVMSizeOfTypeInBits(kn_module.layout, to) != LLVMSizeOfTypeInBits(kn_module.layout, from) ||
      kn_is_float_type(LLVMGetElementType(to)) == kn_is_float_type(LLVMGetElementType(from)))
    return false;
  for (LLVMValueRef inst = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(callee)); inst;
       inst = LLVMGetNextInstruction(inst))
    if (kn_is_call_site(inst) && !LLVMGetIntrinsicID(kn_called_function(inst)))
      return false;
  return true;
}

/* A free function taking or returning __half, __nv_bfloat16 or their
 * pairs (their types in its mangled name: `_ZmlRK6__halfS1_`, operator*;
 * `_ZL6__hmul6__halfS_`), or a member of one of those types, other than a
 * conversion: on the host their values cross calls as 16-bit integers,
 * through which no derivative flows. Inlined, the operators' host code
 * (__hmul: __float2half(__half2float(a) * __half2float(b))) is conversions
 * around float arithmetic, which half_math_wrap_calls reads. Members of
 * other classes (std::vector<__half>'s) and the standard library's
 * functions stay calls. */
static bool passes_sixteen_bit_floats(LLVMValueRef site) {
  static const char *const types[] = {"6__half", "13__nv_bfloat16", "7__half2", "14__nv_bfloat162"};
  LLVMValueRef callee = kn_called_function(site);
  const char *name = callee ? kn_function_name(callee) : "";
  if (strncmp(name, "_Z", 2) || !strncmp(name, "_ZSt", 4) || half_math_is_conversion(callee))
    return false;
  bool nested = name[2] == 'N';
  const char *scope = name + 3 + (nested && name[3] == 'K');
  for (size_t k = 0; k < sizeof types / sizeof *types; k++)
    if (nested ? !strncmp(scope, types[k], strlen(types[k])) : strstr(name, types[k]) != NULL)
      return true;
  return false;
}

static bool inlined_on_host(LLVMValueRef site) {
  return takes_closure(site) || calls_cuda_header_overload(site) || reinterprets_float_vector(site) ||
         passes_sixteen_bit_floats(site);
}

void rule_inline_host_calls(LLVMValueRef fn) {
  for (int level = 0; level < CLOSURE_INLINE_LEVELS && mark_calls(fn, inlined_on_host); level++)
    simplify_inline_marked_calls();
}

const Rule *rule_for_call(LLVMValueRef call) { return rule_for_function(kn_called_function(call)); }

const Rule *rule_for_name(const char *name) {
  if (!by_name)
    build_index();
  return shget(by_name, name);
}

/* A function of the module that never returns (no `ret`: an abstract
 * class's deleting destructor, which traps, reached by a virtual call's
 * comparisons; a helper that always throws) hands nothing back to
 * differentiate: its calls run as they are, and nothing after them does. */
static bool never_returns(LLVMValueRef fn) {
  if (LLVMIsDeclaration(fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (term && LLVMGetInstructionOpcode(term) == LLVMRet)
      return false;
  }
  return true;
}

const Rule *rule_for_function(LLVMValueRef fn) {
  static const Rule inactive = {.name = "__enzyme_inactivefn", .kind = RULE_INACTIVE};
  if (!by_name)
    build_index();
  if (!fn)
    return NULL;
  const Registration *registered = registry_of(fn);
  if (registered && registered->inactive)
    return &inactive;
  if (registered && registered->memory)
    return registered->memory;
  if (registered && registered->like)
    return rule_for_name(registered->like);
  unsigned id = LLVMGetIntrinsicID(fn);
  if (id)
    return hmget(by_intrinsic, id);
  const char *name = kn_function_name(fn);
  if (!strncmp(name, MODEL_PARTS_PREFIX, strlen(MODEL_PARTS_PREFIX)))
    name += strlen(MODEL_PARTS_PREFIX); /* rule_unpack_model_arguments' wrapper */
  const Rule *rule = shget(by_name, name);
  if (rule)
    return rule;
  return cxxlib_is_inactive(name) || never_returns(fn) ? &inactive : NULL;
}

/* The model's parameters as the scalars its body takes: a complex number
 * the C ABI passed as a <2 x float> vector (float complex on x86-64) as its
 * two lanes. One passed in memory arrives in parts already
 * (rule_unpack_model_arguments). */
static void model_scalars(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef *scalars, unsigned max) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
  unsigned n = 0;
  for (LLVMValueRef param = LLVMGetFirstParam(fn); param; param = LLVMGetNextParam(param)) {
    LLVMTypeRef type = LLVMTypeOf(param);
    bool pair = LLVMGetTypeKind(type) == LLVMVectorTypeKind && LLVMGetVectorSize(type) == 2;
    if (n + (pair ? 2 : 1) > max)
      kn_die("model %s has more than %u scalar parameters", kn_function_name(fn), max);
    if (!pair)
      scalars[n++] = param;
    for (unsigned k = 0; pair && k < 2; k++)
      scalars[n++] = LLVMBuildExtractElement(b, param, LLVMConstInt(i32, k, 0), "");
  }
}

LLVMValueRef rule_model_function(const Rule *rule, LLVMValueRef call) {
  char *name = kn_strdup_printf("kinase.model.%s", kn_function_name(kn_called_function(call)));
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (!fn) {
    LLVMTypeRef type = LLVMGetCalledFunctionType(call);
    fn = LLVMAddFunction(kn_module.mod, name, type);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "entry"));
    LLVMValueRef params[8];
    model_scalars(b, fn, params, 8);
    LLVMBuildRet(b, rule->model(b, params, LLVMGetReturnType(type)));
    LLVMDisposeBuilder(b);
  }
  free(name);
  return fn;
}

/* A call's derivative is a function of its arguments: it cannot see what a
 * model stores through them, nor give a pointer it returns a shadow. So a
 * model without a result (sincos) or returning an address into its
 * arguments (bsearch) takes the place of its calls in the copy being
 * differentiated, before that is simplified; its math calls, stores and
 * addresses have rules of their own. */
void rule_inline_models(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      const Rule *rule = LLVMIsACallInst(inst) ? rule_for_call(inst) : NULL;
      const Registration *custom = rule ? registry_of(kn_called_function(inst)) : NULL;
      bool own_rule = custom && (custom->forward || custom->augmented); /* the user's wins */
      if (rule && rule->kind == RULE_MODEL && !own_rule &&
          (rule->in_place || LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMVoidTypeKind))
        arrput(calls, inst);
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  bool to_inline = false;
  for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
    LLVMValueRef args[8];
    unsigned nargs = LLVMGetNumArgOperands(calls[i]);
    for (unsigned k = 0; k < nargs && k < 8; k++)
      args[k] = LLVMGetOperand(calls[i], k);
    LLVMPositionBuilderBefore(b, calls[i]);
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(calls[i]));
    LLVMValueRef in_place = rule_for_call(calls[i])->model(b, args, LLVMTypeOf(calls[i]));
    if (in_place && LLVMGetTypeKind(LLVMTypeOf(calls[i])) != LLVMVoidTypeKind)
      LLVMReplaceAllUsesWith(calls[i], in_place);
    to_inline |= in_place != NULL;
    LLVMInstructionEraseFromParent(calls[i]);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
  if (to_inline)
    simplify_inline_marked_calls();
}

/* The type a call passes its argument i in memory (byval), or NULL. */
static LLVMTypeRef byval_type(LLVMValueRef call, unsigned i) {
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef attr = LLVMGetCallSiteEnumAttribute(call, i + 1, byval);
  return attr ? LLVMGetTypeAttributeValue(attr) : NULL;
}

/* kinase.parts.NAME: NAME taking each argument it takes in memory as the
 * values of its fields instead, which it stores into memory of its own and
 * passes on as `call` does. */
static LLVMValueRef parts_wrapper(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  char *name = kn_strdup_printf("%s%s", MODEL_PARTS_PREFIX, kn_function_name(callee));
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  unsigned nargs = LLVMGetNumArgOperands(call), nparams = 0;
  if (!fn) {
    LLVMTypeRef params[8];
    for (unsigned i = 0; i < nargs; i++) {
      LLVMTypeRef memory = byval_type(call, i);
      for (unsigned k = 0, n = memory ? LLVMCountStructElementTypes(memory) : 1; k < n && nparams < 8; k++)
        params[nparams++] = memory ? LLVMStructGetTypeAtIndex(memory, k) : LLVMTypeOf(LLVMGetOperand(call, i));
    }
    LLVMTypeRef type = LLVMFunctionType(LLVMTypeOf(call), params, nparams, 0);
    fn = LLVMAddFunction(kn_module.mod, name, type);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "entry"));
    LLVMValueRef args[8];
    for (unsigned i = 0, p = 0; i < nargs; i++) {
      LLVMTypeRef memory = byval_type(call, i);
      if (!memory) {
        args[i] = LLVMGetParam(fn, p++);
        continue;
      }
      args[i] = LLVMBuildAlloca(b, memory, "");
      LLVMSetAlignment(args[i], LLVMABIAlignmentOfType(kn_module.layout, memory));
      for (unsigned k = 0; k < LLVMCountStructElementTypes(memory); k++)
        LLVMBuildStore(b, LLVMGetParam(fn, p++), LLVMBuildStructGEP2(b, memory, args[i], k, ""));
    }
    LLVMValueRef forwarded = LLVMBuildCall2(b, LLVMGetCalledFunctionType(call), callee, args, nargs, "");
    for (unsigned i = 0; i <= nargs; i++) {
      unsigned index = i == nargs ? (unsigned)LLVMAttributeFunctionIndex : i + 1;
      LLVMAttributeRef attrs[16];
      unsigned count = LLVMGetCallSiteAttributeCount(call, index);
      LLVMGetCallSiteAttributes(call, index, attrs);
      for (unsigned a = 0; a < count && a < 16; a++)
        LLVMAddCallSiteAttribute(forwarded, index, attrs[a]);
    }
    LLVMBuildRet(b, forwarded);
    LLVMDisposeBuilder(b);
  }
  free(name);
  return fn;
}

/* The reverse sweep runs a model on the arguments of the library call, so
 * it cannot take them from memory, which is the augmented sweep's stack (a
 * long double complex is passed byval on x86-64): in `fn`, a copy about to
 * be simplified, each such call becomes a call of its parts_wrapper with the
 * fields loaded as values, which simplification then takes from the stores
 * that filled them. */
void rule_unpack_model_arguments(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      const Rule *rule = LLVMIsACallInst(inst) ? rule_for_call(inst) : NULL;
      bool in_memory = false;
      for (unsigned i = 0; rule && rule->kind == RULE_MODEL && i < LLVMGetNumArgOperands(inst); i++)
        in_memory |= byval_type(inst, i) != NULL;
      if (in_memory)
        arrput(calls, inst);
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t c = 0; c < arrlen(calls); c++) {
    LLVMValueRef call = calls[c], wrapper = parts_wrapper(call), args[8];
    unsigned n = 0;
    LLVMPositionBuilderBefore(b, call);
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
    for (unsigned i = 0; i < LLVMGetNumArgOperands(call); i++) {
      LLVMTypeRef memory = byval_type(call, i);
      LLVMValueRef arg = LLVMGetOperand(call, i);
      for (unsigned k = 0, count = memory ? LLVMCountStructElementTypes(memory) : 1; k < count && n < 8; k++)
        args[n++] = memory ? LLVMBuildLoad2(b, LLVMStructGetTypeAtIndex(memory, k),
                                            LLVMBuildStructGEP2(b, memory, arg, k, ""), "")
                           : arg;
    }
    LLVMValueRef unpacked = LLVMBuildCall2(b, LLVMGlobalGetValueType(wrapper), wrapper, args, n, "");
    LLVMReplaceAllUsesWith(call, unpacked);
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
}
