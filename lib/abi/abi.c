/* The Enzyme C ABI: __enzyme_fwddiff(fn, args...), __enzyme_autodiff(fn,
 * args...) and the split pair __enzyme_augmentfwd(fn, args...) /
 * __enzyme_reverse(fn, args..., [seed,] tape), with activity markers
 * (enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out) passed as the
 * values of globals of those names, and in split mode enzyme_tape, t (the
 * tape) and enzyme_allocated, n (the caller holds the tape in n bytes of
 * its own at t). A call is replaced by a call of the derivative. Forward
 * mode's batch markers (enzyme_width, enzyme_dupv) and __enzyme_batch are
 * read in batch.c. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  Activity activity;
} markers[] = {
    {"enzyme_dup", ACT_DUP},
    {"enzyme_dupnoneed", ACT_DUPNONEED},
    {"enzyme_const", ACT_CONST},
    {"enzyme_out", ACT_OUT},
};

/* Markers of Enzyme options not supported yet, and what they ask for. */
typedef struct {
  const char *name, *what;
} UnsupportedMarker;

static const UnsupportedMarker unsupported_markers[] = {
    {"enzyme_primal_return", "the primal result returned with the derivative"},
    {"enzyme_noret", "no result returned"},
};

/* A marker global is named like the marker; as a C++ internal variable
 * (static __device__ int enzyme_dup) it is mangled _ZL10enzyme_dup, and
 * with -fgpu-rdc clang may append __static__<id>. */
static bool is_marker_name(const char *name, const char *marker) {
  char mangled[64];
  snprintf(mangled, sizeof mangled, "_ZL%zu", strlen(marker));
  if (!strncmp(name, mangled, strlen(mangled)))
    name += strlen(mangled);
  size_t n = strlen(marker);
  return !strncmp(name, marker, n) && (!name[n] || !strncmp(name + n, "__static__", 10));
}

static LLVMValueRef marker_global(LLVMValueRef arg) {
  LLVMValueRef v = kn_strip_casts(arg);
  if (LLVMIsALoadInst(v))
    v = kn_strip_casts(LLVMGetOperand(v, 0));
  return LLVMIsAGlobalVariable(v) ? v : NULL;
}

static const UnsupportedMarker *unsupported_marker(LLVMValueRef arg) {
  LLVMValueRef v = marker_global(arg);
  for (size_t i = 0; v && i < sizeof unsupported_markers / sizeof *unsupported_markers; i++)
    if (is_marker_name(kn_value_name(v), unsupported_markers[i].name))
      return &unsupported_markers[i];
  return NULL;
}

/* Whether every use of v is a load whose value nothing uses, directly or
 * through a constant cast (a __device__ global in addrspace(1)); with
 * `erase`, erases those loads. */
static bool only_dead_loads(LLVMValueRef v, bool erase) {
  for (LLVMUseRef use = LLVMGetFirstUse(v), after; use; use = after) {
    after = LLVMGetNextUse(use);
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsALoadInst(user) && !LLVMGetFirstUse(user)) {
      if (erase)
        LLVMInstructionEraseFromParent(user);
    } else if (!LLVMIsAConstantExpr(user) || !only_dead_loads(user, erase)) {
      return false;
    }
  }
  return true;
}

/* Marker globals the program declares itself and no longer uses (but in
 * the loads -O0 left for the lowered requests), once its requests are
 * lowered. Left in device code at -O0, an `extern __device__ int
 * enzyme_dup;` (Enzyme's own tests declare them so) reaches the PTX as an
 * extern variable nothing defines, which ptxas warns of at every compile. */
void abi_drop_unused_markers(void) {
  LLVMValueRef g = LLVMGetFirstGlobal(kn_module.mod);
  while (g) {
    LLVMValueRef next = LLVMGetNextGlobal(g);
    bool marker = false;
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
      marker |= is_marker_name(kn_value_name(g), markers[i].name);
    if (marker && LLVMIsDeclaration(g) && only_dead_loads(g, false)) {
      only_dead_loads(g, true);
      LLVMReplaceAllUsesWith(g, LLVMGetPoison(LLVMTypeOf(g)));
      LLVMDeleteGlobal(g);
    }
    g = next;
  }
}

/* The marker an argument is (its global, or a load of it), or -1. */
static int marker_of(LLVMValueRef arg) {
  LLVMValueRef v = marker_global(arg);
  if (!v)
    return -1;
  for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
    if (is_marker_name(kn_value_name(v), markers[i].name))
      return (int)markers[i].activity;
  return -1;
}

static const char *entry_name(RequestKind kind) {
  static const char *const names[] = {"__enzyme_fwddiff", "__enzyme_autodiff", "__enzyme_augmentfwd",
                                      "__enzyme_reverse", "__enzyme_batch"};
  return names[kind];
}

/* Default activity of an unmarked argument, as in Enzyme. */
static Activity default_activity(LLVMTypeRef param, Mode mode) {
  if (kn_is_float_type(param))
    return mode == MODE_FORWARD ? ACT_DUP : ACT_OUT;
  if (kn_is_pointer_type(param))
    return ACT_DUP;
  return ACT_CONST;
}

typedef struct {
  LLVMValueRef call;
  RequestKind kind;
  Mode mode;
  unsigned first;    /* the function's argument: 1 after an sret pointer */
  LLVMValueRef sret; /* where a large declared result goes, or NULL */
  LLVMTypeRef declared; /* the declared result type */
  LLVMValueRef fn;
  LLVMBuilderRef b;
  LLVMValueRef args[KN_MAX_ARGS];
  unsigned nargs;
  /* The call's arguments after the function, split-mode and batch-mode
   * markers taken out. */
  LLVMValueRef actual[KN_MAX_ARGS];
  unsigned nactual;
  unsigned width;         /* enzyme_width's lanes, 1 without */
  LLVMValueRef tape;      /* enzyme_tape's value, or NULL */
  LLVMValueRef allocated; /* enzyme_allocated's size, or NULL */
  /* Per parameter: the shadow of a struct of floats passed in memory and
   * marked enzyme_out, which collects its gradient (out_struct), or NULL. */
  LLVMValueRef out_structs[KN_MAX_PARAMS];
  CxxRequest cxx;         /* a request from <enzyme/enzyme> (cxx.c) */
} Request;

static bool request_error(Request *r, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  kn_error(r->call, NULL, "%s: %s", entry_name(r->kind), what);
  return false;
}

static bool check_activity(Request *r, unsigned i, LLVMTypeRef param, Activity act) {
  bool is_float = kn_is_float_type(param);
  /* An integer as wide as a pointer marked enzyme_dup or enzyme_dupnoneed
   * is an address with a shadow: the CUDA driver API's CUdeviceptr (an
   * unsigned long long), whose shadow is its shadow's address (docs/cuda.md). */
  bool is_pointer = kn_is_pointer_type(param) ||
                    ((act == ACT_DUP || act == ACT_DUPNONEED) && kn_is_address_integer(param));
  if (act == ACT_OUT && r->mode == MODE_FORWARD)
    return request_error(r, "enzyme_out (parameter %u of '%s') is a reverse-mode marker; use "
                            "enzyme_dup in forward mode",
                         i + 1, kn_function_name(r->fn));
  if (act == ACT_OUT && !is_float)
    return request_error(r, "parameter %u of '%s' is enzyme_out but is not a floating-point value",
                         i + 1, kn_function_name(r->fn));
  if ((act == ACT_DUP || act == ACT_DUPNONEED) && r->mode == MODE_REVERSE && !is_pointer)
    return request_error(r, "parameter %u of '%s' is %s but is not a pointer: in reverse mode, "
                            "pass a floating-point value as enzyme_out",
                         i + 1, kn_function_name(r->fn), activity_name(act));
  if ((act == ACT_DUP || act == ACT_DUPNONEED) && !is_float && !is_pointer &&
      !kn_type_has_floats(param))
    return request_error(r, "parameter %u of '%s' is %s but is an integer, which has no derivative",
                         i + 1, kn_function_name(r->fn), activity_name(act));
  return true;
}

/* A type as the C programmer wrote it, roughly: for messages. */
static const char *type_in_words(LLVMTypeRef type) {
  switch (LLVMGetTypeKind(type)) {
  case LLVMPointerTypeKind:
    return "a pointer";
  case LLVMIntegerTypeKind:
    return "an integer";
  case LLVMStructTypeKind:
  case LLVMArrayTypeKind:
    return "a struct";
  case LLVMVectorTypeKind:
    return "a vector";
  default:
    return kn_is_float_type(type) ? "a floating-point number" : "a value of another kind";
  }
}

static bool push_arg(Request *r, unsigned i, bool shadow, LLVMValueRef value, LLVMTypeRef type) {
  if (r->nargs == KN_MAX_ARGS)
    return request_error(r, "too many arguments");
  bool ok;
  LLVMValueRef converted = coerce(r->b, value, type, &ok);
  if (!ok)
    return request_error(r, "%s for parameter %u of '%s' does not match its type (%s where it takes %s)",
                         shadow ? "the shadow" : "argument", i + 1, kn_function_name(r->fn),
                         type_in_words(LLVMTypeOf(value)), type_in_words(type));
  r->args[r->nargs++] = converted;
  return true;
}

bool abi_is_marker(LLVMValueRef arg, const char *marker) {
  LLVMValueRef v = marker_global(arg);
  return v && is_marker_name(kn_value_name(v), marker);
}

static bool is_any_marker(LLVMValueRef arg) {
  return marker_of(arg) >= 0 || abi_is_marker(arg, "enzyme_tape") || abi_is_marker(arg, "enzyme_allocated") ||
         batch_is_marker(arg);
}

/* The arguments after the function, in the C ABI's order: as the call has
 * them, or regrouped when they come from <enzyme/enzyme>. */
static bool operands(Request *r, LLVMValueRef *ops, unsigned *n) {
  unsigned count = 0;
  for (unsigned k = r->first + 1; k < LLVMGetNumArgOperands(r->call); k++) {
    if (count == KN_MAX_ARGS)
      return request_error(r, "too many arguments");
    ops[count++] = LLVMGetOperand(r->call, k);
  }
  *n = count;
  if (!count || !cxx_is_grouped(ops[0]))
    return true;
  LLVMValueRef grouped[KN_MAX_ARGS];
  memcpy(grouped, ops, count * sizeof *ops);
  char why[160];
  return cxx_ungroup(r->fn, grouped, count, &r->cxx, ops, n, why, sizeof why) ||
         request_error(r, "%s", why);
}

/* Fills r->actual with the arguments after the function, taking out the
 * split-mode markers and their values, and batch mode's (batch.c). */
static bool collect_actual(Request *r) {
  LLVMValueRef ops[KN_MAX_ARGS];
  unsigned n;
  char why[200];
  if (!operands(r, ops, &n))
    return false;
  if (!batch_read_markers(r->b, ops, &n, &r->width, why, sizeof why))
    return request_error(r, "%s", why);
  if (r->width > 1 && r->mode == MODE_REVERSE)
    return request_error(r, "enzyme_width (Enzyme's batch mode) is supported in forward mode only "
                            "(__enzyme_fwddiff); call the gradient once per direction");
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef arg = ops[k];
    const UnsupportedMarker *unsupported = unsupported_marker(arg);
    if (unsupported)
      return request_error(r, "marker '%s' (%s) is not supported yet", unsupported->name,
                           unsupported->what);
    /* enzyme_nocache: the caller promises that nothing changes the next
     * argument's memory between the two sweeps, so that Enzyme may leave
     * its values off the tape. A hint: Kinase records what it needs.
     * enzyme_nofree asks Enzyme's split mode to keep what the tape points
     * to; Kinase's reverse pass releases it as ever, so a tape serves one
     * reverse pass. */
    if (abi_is_marker(arg, "enzyme_nocache") || abi_is_marker(arg, "enzyme_nofree"))
      continue;
    LLVMValueRef *slot = abi_is_marker(arg, "enzyme_tape")        ? &r->tape
                         : abi_is_marker(arg, "enzyme_allocated") ? &r->allocated
                                                                  : NULL;
    bool split = r->kind == REQ_AUGMENT || r->kind == REQ_REVERSE;
    if (slot && (!split || k + 1 == n))
      return request_error(r, "marker '%s' %s", kn_value_name(marker_global(arg)),
                           split ? "must be followed by a value" : "belongs to split mode");
    if (slot) {
      *slot = ops[++k];
    } else {
      if (r->nactual == sizeof r->actual / sizeof *r->actual)
        return request_error(r, "too many arguments");
      r->actual[r->nactual++] = arg;
    }
  }
  return true;
}

/* The marker global for activity `act`. */
static LLVMValueRef marker_for(Activity act) {
  for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
    if (markers[i].activity == act)
      return abi_marker(markers[i].name);
  kn_die("no marker for activity %d", (int)act);
}

static bool has_shadow(Activity act) {
  return act == ACT_DUP || act == ACT_DUPNONEED;
}

/* The activity of one piece of a structure passed by value: after a marker
 * with a shadow, a piece narrower than an address (an int beside the
 * pointers) is Const; unmarked, each piece gets the default of its type, as
 * a scalar of that type would. */
static Activity piece_activity(int marker, LLVMTypeRef type, Mode mode) {
  if (marker < 0)
    return default_activity(type, mode);
  bool number = LLVMGetTypeKind(type) == LLVMIntegerTypeKind && !kn_is_address_integer(type);
  return has_shadow((Activity)marker) && number ? ACT_CONST : (Activity)marker;
}

/* Where r->actual[at] is a structure passed in memory that the function
 * takes as pieces from parameter `param` on, puts its pieces in its place
 * (abi/pieces.c). */
static bool unpack_byval(Request *r, unsigned at, unsigned param) {
  LLVMValueRef pieces[2];
  unsigned n = at < r->nactual ? abi_unpack_byval(r->b, r->call, r->actual[at], r->fn, param, pieces) : 0;
  if (!n)
    return true;
  if (r->nactual + n - 1 > sizeof r->actual / sizeof *r->actual)
    return request_error(r, "too many arguments");
  memmove(r->actual + at + n, r->actual + at + 1, (r->nactual - at - 1) * sizeof *r->actual);
  memcpy(r->actual + at, pieces, n * sizeof *pieces);
  r->nactual += n - 1;
  return true;
}

/* A structure passed by value arrives as its pieces, then (where it has a
 * shadow) its shadow's, one shadow per lane in batch mode: clang passes a
 * small structure as its eightbytes, one parameter each. Each piece becomes
 * an argument with its own marker, followed by the shadows' pieces where
 * it has them, so struct {CUdeviceptr
 * out, in;} passed enzyme_dup is two CUdeviceptrs with shadows, and an
 * unmarked struct {double *p, *q;} passed as `s, ds` is two pointers with
 * their shadows rather than p with q as its shadow. The walk follows the
 * parameters, so that a value after a marker or a shadow is never taken for
 * the start of a structure. */
static bool regroup_pieces(Request *r) {
  LLVMValueRef out[sizeof r->actual / sizeof *r->actual];
  unsigned n = 0, room = sizeof out / sizeof *out, nparams = LLVMCountParams(r->fn);
  unsigned sret_kind = LLVMGetEnumAttributeKindForName("sret", 4);
  unsigned param = nparams && LLVMGetEnumAttributeAtIndex(r->fn, 1, sret_kind) ? 1 : 0;
  unsigned k = 0, copies = 1 + r->width; /* a shadowed value and its shadows */
  for (; k < r->nactual && param < nparams;) {
    int marker = marker_of(r->actual[k]);
    unsigned at = k + (marker >= 0);
    if (!unpack_byval(r, at, param))
      return false;
    LLVMValueRef *values = r->actual + at;
    unsigned rest = r->nactual - at, pieces = abi_pieces(values, rest);
    bool shadowed = marker >= 0 ? has_shadow((Activity)marker) : false;
    for (unsigned j = 0; marker < 0 && j < pieces && j < rest; j++)
      shadowed |= has_shadow(default_activity(LLVMTypeOf(values[j]), r->mode));
    for (unsigned lane = 1; shadowed && lane < copies; lane++)
      if (!unpack_byval(r, at + lane * pieces, param))
        return false;
    rest = r->nactual - at;
    bool same = copies * pieces <= rest;
    for (unsigned lane = 1; same && lane < copies; lane++)
      same = abi_same_pieces(values, values + lane * pieces, pieces);
    bool grouped = pieces >= 2 && param + pieces <= nparams && (!shadowed || same);
    if (!grouped) {
      Activity act = marker >= 0 ? (Activity)marker
                                 : default_activity(LLVMTypeOf(LLVMGetParam(r->fn, param)), r->mode);
      unsigned take = (at - k) + (has_shadow(act) ? copies : 1);
      for (unsigned j = 0; j < take && k < r->nactual; j++) {
        if (n == room)
          return request_error(r, "too many arguments");
        out[n++] = r->actual[k++];
      }
      param++;
      continue;
    }
    for (unsigned j = 0; j < pieces; j++) {
      Activity act = piece_activity(marker, LLVMTypeOf(values[j]), r->mode);
      if (n + 1 + copies > room)
        return request_error(r, "too many arguments");
      out[n++] = marker_for(act);
      out[n++] = values[j];
      for (unsigned lane = 1; has_shadow(act) && lane < copies; lane++)
        out[n++] = values[lane * pieces + j];
    }
    k = at + pieces * (shadowed ? copies : 1);
    param += pieces;
  }
  for (; k < r->nactual; k++) { /* split mode's seed and tape, or too many: read_arguments says */
    if (n == room)
      return request_error(r, "too many arguments");
    out[n++] = r->actual[k];
  }
  memcpy(r->actual, out, n * sizeof *out);
  r->nactual = n;
  return true;
}

/* Whether the shadow a device-side request passes for pointer parameter i
 * is the calling thread's alone (cuda/threads.c); a gradient's remark says
 * why, at the request. */
static bool owns_shadow(Request *r, unsigned i, LLVMValueRef shadow) {
  Reason why;
  bool owned = cuda_request_owns(r->call, shadow, r->fn, i, &why);
  RemarkKind kind = owned ? KN_OWN_SHADOW : KN_SHARED_SHADOW;
  if (r->mode != MODE_REVERSE || !kn_remarks_on(kind))
    return owned;
  char *because = kn_reason_text(why);
  kn_remark(kind, r->call, r->fn, "gradient",
            owned ? "the shadow passed for parameter %u is the thread's own: %s"
                  : "the shadow passed for parameter %u is not the thread's own, its adjoints are "
                    "added atomically: %s",
            i + 1, because);
  free(because);
  return owned;
}

/* The type a byval parameter i of `fn` points to, or NULL. */
static LLVMTypeRef byval_type(LLVMValueRef fn, unsigned i) {
  LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(fn, i + 1, LLVMGetEnumAttributeKindForName("byval", 5));
  return a ? LLVMGetTypeAttributeValue(a) : NULL;
}

/* Stores values[*k...] (n of them) into the `t` at `at`, in order: a value
 * of a field's type fills it whole (clang passes an array field as one
 * [N x float]), else the field's own fields take the next values; false
 * where they run out or a scalar's type differs. */
static bool store_leaves(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef at, LLVMValueRef *values, unsigned n,
                         unsigned *k) {
  if (*k >= n)
    return false;
  if (LLVMTypeOf(values[*k]) == t) {
    LLVMBuildStore(b, values[(*k)++], at);
    return true;
  }
  LLVMTypeKind kind = LLVMGetTypeKind(t);
  if (kind != LLVMStructTypeKind && kind != LLVMArrayTypeKind)
    return false;
  unsigned fields = kind == LLVMStructTypeKind ? LLVMCountStructElementTypes(t) : (unsigned)LLVMGetArrayLength2(t);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
  for (unsigned f = 0; f < fields; f++) {
    LLVMValueRef index[2] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, f, 0)};
    LLVMValueRef field = LLVMBuildInBoundsGEP2(b, t, at, index, 2, "");
    LLVMTypeRef ft = kind == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(t, f) : LLVMGetElementType(t);
    if (!store_leaves(b, ft, field, values, n, k))
      return false;
  }
  return true;
}

/* Whether `call` passes `value` as a byval struct of type `t`: a C++
 * variadic template declaration of the request (`template <typename R,
 * typename... A> R __enzyme_autodiff(void *, A...)`) takes the struct
 * whole, as the function does, where a C `...` takes its fields. */
static bool passed_byval(LLVMValueRef call, LLVMValueRef value, LLVMTypeRef t) {
  return kn_is_pointer_type(LLVMTypeOf(value)) && abi_byval_operand_type(call, value) == t;
}

/* A struct passed by value through the variadic call arrives, on NVPTX
 * (device code), as its fields, one argument each, where the function
 * takes the struct byval: they are put together in a slot of the caller, whose address is
 * the argument. NULL (with an error) where they do not fit the struct. */
static LLVMValueRef gather_byval(Request *r, unsigned i, LLVMTypeRef t, LLVMTypeRef param, unsigned *cursor) {
  LLVMValueRef whole = r->actual[*cursor];
  if (passed_byval(r->call, whole, t)) {
    (*cursor)++;
    return LLVMTypeOf(whole) == param ? whole : LLVMBuildAddrSpaceCast(r->b, whole, param, "");
  }
  unsigned k = 0;
  LLVMBuilderRef entry = kn_entry_builder(LLVMGetBasicBlockParent(LLVMGetInstructionParent(r->call)));
  LLVMValueRef slot = LLVMBuildAlloca(entry, t, "byval.arg");
  LLVMDisposeBuilder(entry);
  if (!store_leaves(r->b, t, slot, r->actual + *cursor, r->nactual - *cursor, &k)) {
    request_error(r, "the arguments for parameter %u of '%s', a struct passed by value, do not match its fields",
                  i + 1, kn_function_name(r->fn));
    return NULL;
  }
  *cursor += k;
  return LLVMTypeOf(slot) == param ? slot : LLVMBuildAddrSpaceCast(r->b, slot, param, "");
}

/* A function returning a large struct takes a hidden first pointer
 * (sret), which the caller of a request cannot pass. In forward mode the
 * request, declared to return the same struct, has one too: it receives the
 * tangent, as the shadow of a primal result the caller never sees. *first
 * is the parameter the caller's arguments start at. */
static bool struct_result(Request *r, Signature *sig, unsigned *first) {
  unsigned sret_kind = LLVMGetEnumAttributeKindForName("sret", 4);
  LLVMAttributeRef sret = LLVMCountParams(r->fn) ? LLVMGetEnumAttributeAtIndex(r->fn, 1, sret_kind) : NULL;
  *first = 0;
  if (!sret || r->cxx.grouped) /* the header's requests pass the result pointer (docs/cpp.md) */
    return true;
  LLVMTypeRef type = LLVMGetTypeAttributeValue(sret);
  if (r->kind != REQ_FORWARD)
    return request_error(r, "'%s' returns a struct through a hidden pointer (sret): reverse mode needs "
                            "a floating-point result; differentiate a function that stores the struct "
                            "through an enzyme_dup pointer parameter instead",
                         kn_function_name(r->fn));
  unsigned long long size = LLVMABISizeOfType(kn_module.layout, type);
  if (!r->sret || LLVMABISizeOfType(kn_module.layout, r->declared) != r->width * size)
    return request_error(r, "'%s' returns a struct through a hidden pointer (sret): declare %s "
                            "returning %s to receive %s",
                         kn_function_name(r->fn), entry_name(r->kind),
                         r->width > 1 ? "an array of that struct, one per lane," : "the same struct",
                         r->width > 1 ? "the tangents" : "its tangent");
  LLVMBuilderRef entry = kn_entry_builder(LLVMGetBasicBlockParent(LLVMGetInsertBlock(r->b)));
  r->args[r->nargs++] = LLVMBuildAlloca(entry, type, "primal.result");
  LLVMDisposeBuilder(entry);
  /* In batch mode lane k's tangent is the k-th struct of the result. */
  LLVMTypeRef i64 = LLVMInt64TypeInContext(kn_module.ctx);
  for (unsigned lane = 0; lane < r->width; lane++) {
    LLVMValueRef offset = LLVMConstInt(i64, lane * size, 0);
    r->args[r->nargs++] =
        lane ? LLVMBuildGEP2(r->b, LLVMInt8TypeInContext(kn_module.ctx), r->sret, &offset, 1, "lane") : r->sret;
  }
  sig->params[0] = ACT_DUP;
  r->sret = NULL; /* the derivative stores the tangent there itself */
  r->declared = LLVMVoidTypeInContext(kn_module.ctx);
  *first = 1;
  return true;
}

/* Whether every scalar inside `t` is a float (a struct or array of them). */
static bool all_floats(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMStructTypeKind:
    for (unsigned i = 0, n = LLVMCountStructElementTypes(t); i < n; i++)
      if (!all_floats(LLVMStructGetTypeAtIndex(t, i)))
        return false;
    return LLVMCountStructElementTypes(t) > 0;
  case LLVMArrayTypeKind:
    return all_floats(LLVMGetElementType(t));
  default:
    return kn_is_float_type(t);
  }
}

/* A struct of floats too large for registers (struct {double x, y, z;},
 * std::array<double, 3>) is passed in memory, as a pointer (byval). Marked
 * enzyme_out, or unmarked in reverse mode, its gradient is a struct of the
 * same type: the function takes it as Duplicated, its shadow a zeroed copy
 * in the caller that collects the gradient, returned in parameter order
 * with the other enzyme_out ones (return_gradients). */
static bool out_struct(Request *r, unsigned i, LLVMTypeRef t, LLVMTypeRef param, unsigned *cursor) {
  if (r->kind != REQ_GRADIENT || r->width > 1)
    return request_error(r, "parameter %u of '%s' is a struct passed in memory and marked enzyme_out, "
                            "which only __enzyme_autodiff without enzyme_width supports; take the "
                            "struct by pointer and pass it with enzyme_dup",
                         i + 1, kn_function_name(r->fn));
  LLVMValueRef value = r->actual[(*cursor)++];
  LLVMBuilderRef entry = kn_entry_builder(LLVMGetBasicBlockParent(LLVMGetInstructionParent(r->call)));
  LLVMValueRef shadow = LLVMBuildAlloca(entry, t, "out.struct");
  LLVMDisposeBuilder(entry);
  LLVMBuildStore(r->b, LLVMConstNull(t), shadow);
  r->out_structs[i] = shadow;
  return push_arg(r, i, false, value, param) && push_arg(r, i, true, shadow, param);
}

/* What an argument of `needed` values needs, in words. */
static const char *needed_words(unsigned needed, unsigned width) {
  static char words[96];
  if (needed == 1)
    return "a value";
  if (width == 1)
    return "a value and its shadow";
  snprintf(words, sizeof words, "a value and its %u shadows, one per lane of enzyme_width %u", width, width);
  return words;
}

/* Reads the markers and values after the function argument into `sig` and
 * the argument list of the derivative; *read is how many it read. */
static bool read_arguments(Request *r, Signature *sig, unsigned *read) {
  unsigned nparams = LLVMCountParams(r->fn), cursor = 0, nactual = r->nactual, first;
  if (nparams > KN_MAX_PARAMS)
    return request_error(r, "'%s' has more than %d parameters", kn_function_name(r->fn),
                         KN_MAX_PARAMS);
  sig->nparams = nparams;
  if (!struct_result(r, sig, &first))
    return false;
  for (unsigned i = first; i < nparams; i++) {
    LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(r->fn, i));
    int marker = cursor < nactual ? marker_of(r->actual[cursor]) : -1;
    LLVMTypeRef by_value = byval_type(r->fn, i);
    bool float_struct = by_value && r->mode == MODE_REVERSE && !kn_module.gpu && all_floats(by_value);
    Activity act = marker >= 0 ? (Activity)marker : float_struct ? ACT_OUT : default_activity(type, r->mode);
    cursor += marker >= 0;
    if (act == ACT_OUT && float_struct && cursor < nactual) {
      if (!out_struct(r, i, by_value, type, &cursor))
        return false;
      sig->params[i] = ACT_DUP;
      continue;
    }
    unsigned needed = (act == ACT_DUP || act == ACT_DUPNONEED) ? 1 + r->width : 1;
    if (cursor + needed > nactual)
      return request_error(r, "'%s' has %u parameter%s but the call ends at parameter %u (%s needs %s)",
                           kn_function_name(r->fn), nparams, nparams == 1 ? "" : "s", i + 1,
                           activity_name(act), needed_words(needed, r->width));
    if (!check_activity(r, i, type, act))
      return false;
    for (unsigned k = 0; k < needed; k++) {
      LLVMValueRef value = r->actual[cursor];
      if (marker_of(value) >= 0 && r->width > 1 && k)
        return request_error(r, "a marker stands where parameter %u of '%s' expects its shadow for "
                                "lane %u (enzyme_width %u: one shadow per lane)",
                             i + 1, kn_function_name(r->fn), k - 1, r->width);
      if (marker_of(value) >= 0)
        return request_error(r, "a marker stands where parameter %u of '%s' expects a %s",
                             i + 1, kn_function_name(r->fn), k ? "shadow" : "value");
      if (by_value && kn_module.gpu)
        value = gather_byval(r, i, by_value, type, &cursor);
      else
        cursor++;
      if (!value)
        return false;
      if (!push_arg(r, i, k > 0, value, type))
        return false;
    }
    if (kn_module.gpu && needed == 2 && kn_is_pointer_type(type) && owns_shadow(r, i, r->actual[cursor - 1]))
      sig->owned |= 1ull << i;
    /* A function passed enzyme_const (a callback) is its own shadow, as
     * in the function's calls (activity_own_shadow_argument): the
     * function may store it into memory with a shadow, a local struct. */
    if (act == ACT_CONST && kn_is_pointer_type(type) && LLVMIsAFunction(kn_strip_casts(r->actual[cursor - 1]))) {
      for (unsigned lane = 0; lane < r->width; lane++)
        if (!push_arg(r, i, true, r->actual[cursor - 1], type))
          return false;
      act = ACT_DUP;
    }
    sig->params[i] = act;
  }
  *read = cursor;
  return true;
}

/* No argument may be left over. */
static bool check_all_read(Request *r, unsigned cursor) {
  unsigned nparams = LLVMCountParams(r->fn);
  if (cursor != r->nactual)
    return request_error(r, "'%s' has %u parameter%s but the call passes %u more argument%s",
                         kn_function_name(r->fn), nparams, nparams == 1 ? "" : "s",
                         r->nactual - cursor, r->nactual - cursor == 1 ? "" : "s");
  return true;
}

/* The marker loads are dead once the call is gone (one load may serve
 * several markers); an extern marker must not stay referenced. */
static void erase_dead_markers(LLVMValueRef *args, unsigned n) {
  ValueSet seen = {0};
  for (unsigned i = 0; i < n; i++)
    if (vset_add(&seen, args[i]) && LLVMIsALoadInst(args[i]) && is_any_marker(args[i]) &&
        !LLVMGetFirstUse(args[i]))
      LLVMInstructionEraseFromParent(args[i]);
  vset_free(&seen);
}

static bool call_forward(Request *r, Signature *sig, LLVMTypeRef ret);
static bool call_gradient(Request *r, Signature *sig, LLVMTypeRef ret);
static bool call_augment(Request *r, Signature *sig, LLVMTypeRef ret);
static bool call_split_reverse(Request *r, Signature *sig, LLVMTypeRef ret, unsigned cursor);

/* Hands the result to the caller: as the call's value, or through the sret
 * pointer of a large declared struct. */
static void deliver(Request *r, LLVMValueRef value) {
  if (r->sret)
    LLVMBuildStore(r->b, value, r->sret);
  else
    LLVMReplaceAllUsesWith(r->call, value);
}

/* A struct result too large for registers arrives as a hidden first
 * pointer argument marked sret. */
static void find_result(Request *r) {
  unsigned sret_kind = LLVMGetEnumAttributeKindForName("sret", 4);
  LLVMAttributeRef sret = LLVMGetNumArgOperands(r->call)
                              ? LLVMGetCallSiteEnumAttribute(r->call, 1, sret_kind)
                              : NULL;
  r->declared = LLVMTypeOf(r->call);
  if (sret) {
    r->first = 1;
    r->sret = LLVMGetOperand(r->call, 0);
    r->declared = LLVMGetTypeAttributeValue(sret);
  }
}

/* A function using extern __shared__ arrays is differentiated as a copy
 * taking the region as one more parameter, dup: the launch's dynamic shared
 * memory, whose second half holds the shadow (cuda/shared.c). */
static bool pass_dynamic_shared(Request *r, Signature *sig) {
  LLVMValueRef with = cuda_request_dynamic_shared(r->fn);
  if (with == r->fn)
    return true;
  if (sig->nparams == KN_MAX_PARAMS)
    return request_error(r, "'%s' has %d parameters and uses extern __shared__ memory, which takes one more",
                         kn_function_name(r->fn), KN_MAX_PARAMS);
  cuda_dynamic_shared_args(r->b, &r->args[r->nargs], &r->args[r->nargs + 1]);
  r->nargs += 2;
  sig->params[sig->nparams++] = ACT_DUP;
  sig->fn = with;
  return true;
}

/* __enzyme_batch: the function called once per lane (batch.c), the
 * results handed back as declared. */
static bool call_batch(Request *r) {
  LLVMValueRef ops[KN_MAX_ARGS], results;
  unsigned n;
  char why[200];
  if (!operands(r, ops, &n))
    return false;
  if (!batch_read_markers(r->b, ops, &n, &r->width, why, sizeof why) ||
      !batch_call_lanes(r->b, r->fn, ops, n, r->width, &results, why, sizeof why))
    return request_error(r, "%s", why);
  LLVMTypeRef declared = r->declared;
  if (LLVMGetTypeKind(declared) == LLVMVoidTypeKind)
    return true;
  bool ok = results != NULL;
  LLVMValueRef value = ok ? coerce(r->b, results, declared, &ok) : NULL;
  if (!ok)
    return request_error(r, "the declared return type cannot hold the %u results of '%s': declare "
                            "a struct or array of %u of its result type",
                         r->width, kn_function_name(r->fn), r->width);
  deliver(r, value);
  return true;
}

static bool lower(Request *r) {
  find_result(r);
  if (LLVMGetNumArgOperands(r->call) <= r->first)
    return request_error(r, "the function to differentiate must be the first argument");
  LLVMValueRef target = inline_known_constant(LLVMGetOperand(r->call, r->first));
  if (!LLVMIsAFunction(target))
    return request_error(r, "the first argument must be a function, not %s",
                         LLVMIsAConstant(target) ? "a constant" : "a computed pointer");
  if (LLVMIsDeclaration(target) && r->kind != REQ_BATCH)
    return request_error(r, "'%s' has no body in this module to differentiate",
                         kn_function_name(target));
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(target)))
    return request_error(r, "'%s' is variadic", kn_function_name(target));
  r->fn = target;
  if (r->kind == REQ_BATCH)
    return call_batch(r);
  Signature sig = {.fn = target, .mode = r->mode};
  unsigned cursor = 0;
  /* Device code takes a structure by value as one byval parameter, whose
   * scalars read_arguments gathers (gather_byval); host code as pieces. */
  bool pieces = !r->cxx.grouped && !kn_module.gpu;
  if (!collect_actual(r) || (pieces && !regroup_pieces(r)) ||
      !read_arguments(r, &sig, &cursor))
    return false;
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(target));
  if (r->kind == REQ_REVERSE)
    return call_split_reverse(r, &sig, ret, cursor);
  if (!check_all_read(r, cursor))
    return false;
  if (kn_module.gpu && (r->kind == REQ_FORWARD || r->kind == REQ_GRADIENT) && !pass_dynamic_shared(r, &sig))
    return false;
  switch (r->kind) {
  case REQ_FORWARD:
    return call_forward(r, &sig, ret);
  case REQ_GRADIENT:
    return call_gradient(r, &sig, ret);
  default:
    return call_augment(r, &sig, ret);
  }
}

/* A header request with an enzyme::context: the globals' shadows come from
 * the context from `first` (the derivative's first call) on, and go back
 * into it where the request's code ends, marked by a placeholder. */
static void use_context(Request *r, LLVMValueRef first) {
  if (!r->cxx.context)
    return;
  LLVMValueRef end = LLVMBuildFreeze(r->b, LLVMConstNull(LLVMInt1TypeInContext(kn_module.ctx)), "");
  globals_use_context(first, end, r->fn, r->cxx.context, r->cxx.context_swap);
}

/* A header request: the result's tangent and the primal result, as asked,
 * each stored where it goes. */
static bool call_forward_cxx(Request *r, Signature *sig, LLVMTypeRef ret) {
  const CxxRequest *cxx = &r->cxx;
  bool has_result = LLVMGetTypeKind(ret) != LLVMVoidTypeKind;
  if (r->width > 1)
    return request_error(r, "enzyme_width (batch mode) belongs to __enzyme_fwddiff's C interface, "
                            "not to enzyme::autodiff");
  if (cxx->ret == RET_ACTIVE)
    return request_error(r, "an Active result belongs to reverse mode: in forward mode the result "
                            "of '%s' is Duplicated, DuplicatedNoNeed or Const",
                         kn_function_name(r->fn));
  sig->ret_tangent = cxx->ret == RET_DUP && has_result && kn_type_has_floats(ret);
  sig->ret_primal = cxx->primal && has_result;
  LLVMValueRef result =
      LLVMBuildCall2(r->b, derive_type(sig), derive_get(sig), r->args, r->nargs, "");
  globals_clear_before(result, r->fn);
  if (sig->ret_tangent && sig->ret_primal) {
    cxx_store(r->b, LLVMBuildExtractValue(r->b, result, 0, ""), cxx->primal_out);
    cxx_store(r->b, LLVMBuildExtractValue(r->b, result, 1, ""), cxx->tangent_out);
  } else if (sig->ret_tangent || sig->ret_primal) {
    cxx_store(r->b, result, sig->ret_tangent ? cxx->tangent_out : cxx->primal_out);
  }
  use_context(r, result);
  return true;
}

static bool call_forward(Request *r, Signature *sig, LLVMTypeRef ret) {
  if (r->cxx.grouped)
    return call_forward_cxx(r, sig, ret);
  LLVMTypeRef declared = r->declared;
  sig->ret_tangent = LLVMGetTypeKind(declared) != LLVMVoidTypeKind && kn_type_has_floats(ret);
  sig->width = r->width;
  /* A global has one shadow, which every lane would read and write. */
  if (r->width > 1 && globals_reached_by(r->fn))
    return request_error(r, "batch mode (enzyme_width) is not supported for '%s', which uses a global "
                            "variable holding floats that the program writes: its one shadow cannot "
                            "hold a tangent per lane",
                         kn_function_name(r->fn));
  LLVMValueRef result =
      LLVMBuildCall2(r->b, derive_type(sig), derive_get(sig), r->args, r->nargs, "");
  globals_clear_before(result, r->fn);
  if (LLVMGetTypeKind(declared) == LLVMVoidTypeKind)
    return true;
  bool ok = sig->ret_tangent;
  LLVMValueRef value = ok ? coerce(r->b, result, declared, &ok) : NULL;
  if (!ok && sig->ret_tangent && r->width > 1)
    return request_error(r, "the declared return type cannot hold the %u tangents of '%s''s result: "
                            "declare a struct or array of %u of its type",
                         r->width, kn_function_name(r->fn), r->width);
  if (!ok && sig->ret_tangent)
    return request_error(r, "the declared return type cannot hold the derivative of '%s''s result",
                         kn_function_name(r->fn));
  deliver(r, value ? value : LLVMConstNull(declared));
  return true;
}

/* The gradients of the enzyme_out parameters in parameter order: the
 * scalars' from the reverse sweep's `grads`, a struct's passed in memory
 * from its shadow (out_struct). *structs says whether there was one. */
static unsigned ordered_gradients(Request *r, const Signature *sig, LLVMValueRef grads,
                                  LLVMValueRef *out, bool *structs) {
  unsigned n = 0, k = 0;
  *structs = false;
  for (unsigned i = 0; i < sig->nparams; i++) {
    LLVMValueRef shadow = r->out_structs[i];
    *structs |= shadow != NULL;
    if (shadow)
      out[n++] = LLVMBuildLoad2(r->b, LLVMGetAllocatedType(shadow), shadow, "out.gradient");
    else if (sig->params[i] == ACT_OUT)
      out[n++] = LLVMBuildExtractValue(r->b, grads, k++, "");
  }
  return n;
}

/* The gradients of the enzyme_out parameters, as the caller declared them:
 * one value, or a struct of them in order. */
static bool return_gradients(Request *r, const Signature *sig, LLVMValueRef grads) {
  LLVMTypeRef declared = r->declared;
  if (LLVMGetTypeKind(declared) == LLVMVoidTypeKind)
    return true;
  LLVMValueRef g[KN_MAX_PARAMS];
  bool structs, ok = true;
  unsigned n = ordered_gradients(r, sig, grads, g, &structs);
  LLVMValueRef value = NULL;
  if (n == 0) {
    value = LLVMConstNull(declared);
  } else if (n == 1) {
    value = coerce(r->b, g[0], declared, &ok);
  } else if (LLVMGetTypeKind(declared) == LLVMStructTypeKind &&
             LLVMCountStructElementTypes(declared) == n) {
    value = LLVMGetPoison(declared);
    for (unsigned i = 0; i < n && ok; i++) {
      LLVMValueRef field = coerce(r->b, g[i], LLVMStructGetTypeAtIndex(declared, i), &ok);
      if (ok)
        value = LLVMBuildInsertValue(r->b, value, field, i, "");
    }
  } else {
    ok = !structs; /* an array of scalars' gradients, as the reverse sweep returns them */
    value = ok ? coerce(r->b, grads, declared, &ok) : NULL;
  }
  if (!ok)
    return request_error(r, "the declared return type cannot hold the %u gradient%s of '%s''s "
                            "enzyme_out parameters",
                         n, n == 1 ? "" : "s", kn_function_name(r->fn));
  deliver(r, value);
  return true;
}

/* A request's tape lives in a stack slot of its caller, sized once the pair
 * is generated: no allocation per request (device code has little heap). */
typedef struct {
  LLVMValueRef slot; /* placeholder alloca in the caller's entry */
  Signature sig;
} TapeSlot;
static TapeSlot *tape_slots;
/* The calls of the requests' reverse sweeps. */
static LLVMValueRef *reverse_sweeps;

LLVMValueRef *abi_reverse_sweeps(void) { return reverse_sweeps; }

static LLVMValueRef tape_slot_in(LLVMValueRef caller, const Signature *sig) {
  LLVMBuilderRef entry = kn_entry_builder(caller);
  LLVMValueRef slot = LLVMBuildAlloca(entry, LLVMInt8TypeInContext(kn_module.ctx), "tape.slot");
  LLVMDisposeBuilder(entry);
  arrput(tape_slots, ((TapeSlot){slot, *sig}));
  return slot;
}

static LLVMValueRef tape_slot(Request *r, const Signature *sig) {
  return tape_slot_in(LLVMGetBasicBlockParent(LLVMGetInstructionParent(r->call)), sig);
}

void abi_size_tape_slots(void) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  TapeSlot *unsized = NULL;
  for (ptrdiff_t i = 0; i < arrlen(tape_slots); i++) {
    LLVMTypeRef tape = derive_tape_type(&tape_slots[i].sig);
    if (!tape) {
      arrput(unsized, tape_slots[i]);
      continue;
    }
    LLVMValueRef old = tape_slots[i].slot;
    LLVMPositionBuilderBefore(b, old);
    LLVMValueRef slot = LLVMBuildAlloca(b, tape, "tape.slot");
    LLVMReplaceAllUsesWith(old, slot);
    LLVMInstructionEraseFromParent(old);
  }
  LLVMDisposeBuilder(b);
  arrfree(tape_slots);
  tape_slots = unsized;
}

void abi_drop_tape_slots_in(LLVMValueRef fn) {
  for (ptrdiff_t i = arrlen(tape_slots) - 1; i >= 0; i--)
    if (LLVMGetBasicBlockParent(LLVMGetInstructionParent(tape_slots[i].slot)) == fn)
      arrdel(tape_slots, i);
}

void abi_reset(void) {
  arrfree(tape_slots);
  arrfree(reverse_sweeps);
}

static LLVMValueRef last_field(LLVMBuilderRef b, LLVMValueRef aggregate, const char *name) {
  return LLVMBuildExtractValue(b, aggregate, LLVMCountStructElementTypes(LLVMTypeOf(aggregate)) - 1, name);
}

LLVMValueRef abi_call_augmented(LLVMBuilderRef b, Signature *sig, LLVMValueRef *args, unsigned n) {
  sig->ret_tangent = false;
  sig->adjacent = true;
  LLVMValueRef aug_args[2 * KN_MAX_PARAMS + 1];
  memcpy(aug_args, args, n * sizeof *args);
  aug_args[n] = tape_slot_in(LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)), sig);
  return LLVMBuildCall2(b, derive_aug_type(sig), derive_aug(sig), aug_args, n + 1, "");
}

LLVMValueRef abi_call_reverse(LLVMBuilderRef b, Signature *sig, LLVMValueRef *args, unsigned n,
                              LLVMValueRef aug) {
  LLVMValueRef rev_args[2 * KN_MAX_PARAMS + 1];
  memcpy(rev_args, args, n * sizeof *args);
  rev_args[n] = last_field(b, aug, "tape");
  return LLVMBuildCall2(b, derive_type(sig), derive_get(sig), rev_args, n + 1, "");
}

static LLVMValueRef call_aug(Request *r, Signature *sig, bool ret_tangent, bool adjacent) {
  sig->ret_tangent = ret_tangent;
  sig->adjacent = adjacent;
  LLVMValueRef args[2 * KN_MAX_PARAMS + 3];
  memcpy(args, r->args, r->nargs * sizeof *args);
  unsigned n = r->nargs;
  if (adjacent)
    args[n++] = tape_slot(r, sig);
  LLVMValueRef aug = LLVMBuildCall2(r->b, derive_aug_type(sig), derive_aug(sig), args, n, "");
  globals_clear_before(aug, r->fn);
  return aug;
}

static LLVMValueRef call_rev(Request *r, Signature *sig, LLVMValueRef seed, LLVMValueRef tape) {
  LLVMValueRef args[2 * KN_MAX_PARAMS + 2];
  memcpy(args, r->args, r->nargs * sizeof *args);
  unsigned n = r->nargs;
  if (sig->ret_tangent)
    args[n++] = seed;
  args[n++] = tape;
  LLVMValueRef call = LLVMBuildCall2(r->b, derive_type(sig), derive_get(sig), args, n, "");
  arrput(reverse_sweeps, call);
  return call;
}

/* A header request: the result is seeded with 1 when Active; the primal
 * result and the gradients are stored where they go. */
static bool call_gradient_cxx(Request *r, Signature *sig, LLVMTypeRef ret) {
  const CxxRequest *cxx = &r->cxx;
  if (cxx->ret == RET_DUP)
    return request_error(r, "in reverse mode the result of '%s' is Active or Const, not "
                            "Duplicated",
                         kn_function_name(r->fn));
  if (cxx->ret == RET_ACTIVE && !kn_is_float_type(ret))
    return request_error(r, "the result of '%s' is Active but not a floating-point value",
                         kn_function_name(r->fn));
  LLVMValueRef aug = call_aug(r, sig, cxx->ret == RET_ACTIVE, true);
  if (cxx->primal && LLVMGetTypeKind(ret) != LLVMVoidTypeKind)
    cxx_store(r->b, LLVMBuildExtractValue(r->b, aug, 0, ""), cxx->primal_out);
  LLVMValueRef seed = sig->ret_tangent ? math_const(ret, 1.0) : NULL;
  LLVMValueRef grads = call_rev(r, sig, seed, last_field(r->b, aug, "tape"));
  cxx_store_gradients(r->b, cxx, grads);
  use_context(r, aug);
  return true;
}

static bool call_gradient(Request *r, Signature *sig, LLVMTypeRef ret) {
  if (r->cxx.grouped)
    return call_gradient_cxx(r, sig, ret);
  LLVMValueRef aug = call_aug(r, sig, kn_is_float_type(ret), true);
  LLVMValueRef seed = sig->ret_tangent ? math_const(ret, 1.0) : NULL;
  return return_gradients(r, sig, call_rev(r, sig, seed, last_field(r->b, aug, "tape")));
}

/* Split mode keeps the tape where the caller said: in the enzyme_allocated
 * bytes at enzyme_tape's pointer, which must hold a pointer. */
static bool check_allocated_tape(Request *r) {
  if (!r->tape)
    return request_error(r, "enzyme_allocated needs enzyme_tape, the memory that holds the tape");
  LLVMValueRef size = r->allocated;
  if (LLVMIsAConstantInt(size) && LLVMConstIntGetSExtValue(size) < (long long)sizeof(void *))
    return request_error(r, "enzyme_allocated gives %lld bytes for the tape; Kinase needs %zu",
                         LLVMConstIntGetSExtValue(size), sizeof(void *));
  return true;
}

/* A struct result of __enzyme_augmentfwd, filled from the augmented
 * call's {result[, result's shadow], tape}. Enzyme's order puts the tape
 * first ({void *tape; double result}, the TapeAndDouble of its C++
 * programs); some programs declare the result first ({double result; void
 * *tape}, virtualshadow.cpp). Only the types tell the two apart: the result
 * is first when the first field has the result's own type and that type is
 * no pointer. A pointer result keeps Enzyme's order, which its types cannot
 * rule out. NULL when the declared struct fits neither order. */
static LLVMValueRef augmented_struct(Request *r, LLVMValueRef aug, LLVMTypeRef declared) {
  LLVMTypeRef produced = LLVMTypeOf(aug);
  unsigned have = LLVMCountStructElementTypes(produced);
  unsigned want = LLVMCountStructElementTypes(declared);
  LLVMTypeRef result = have > 1 ? LLVMStructGetTypeAtIndex(produced, 0) : NULL;
  bool result_first = want > 0 && result && !kn_is_pointer_type(result) &&
                      LLVMStructGetTypeAtIndex(declared, 0) == result;
  /* The tape is last in the result's order: every field must be declared. */
  bool fits = want > 0 && (result_first ? want == have : want <= have);
  LLVMValueRef value = LLVMGetPoison(declared);
  for (unsigned i = 0; fits && i < want; i++) {
    unsigned from = result_first ? i : i == 0 ? have - 1 : i - 1;
    LLVMValueRef field = coerce(r->b, LLVMBuildExtractValue(r->b, aug, from, ""),
                                LLVMStructGetTypeAtIndex(declared, i), &fits);
    if (fits)
      value = LLVMBuildInsertValue(r->b, value, field, i, "");
  }
  return fits ? value : NULL;
}

/* __enzyme_augmentfwd returns the tape, or a struct holding the tape and
 * the result (see augmented_struct), or keeps the tape in the caller's
 * enzyme_allocated memory. */
static bool call_augment(Request *r, Signature *sig, LLVMTypeRef ret) {
  if (r->allocated && !check_allocated_tape(r))
    return false;
  LLVMValueRef aug = call_aug(r, sig, kn_is_float_type(ret), false);
  LLVMValueRef tape = last_field(r->b, aug, "tape");
  LLVMTypeRef declared = r->declared;
  if (r->allocated)
    LLVMBuildStore(r->b, tape, r->tape);
  if (LLVMGetTypeKind(declared) == LLVMVoidTypeKind)
    return r->allocated ? true
                        : request_error(r, "the tape is lost: declare it to return a pointer (the "
                                           "tape) or pass enzyme_allocated, n, enzyme_tape, memory");
  if (LLVMGetTypeKind(declared) == LLVMPointerTypeKind) {
    deliver(r, tape);
    return true;
  }
  LLVMValueRef value =
      LLVMGetTypeKind(declared) == LLVMStructTypeKind ? augmented_struct(r, aug, declared) : NULL;
  if (!value)
    return request_error(r, "the declared return type holds neither {tape, result[, shadow]} nor "
                            "{result[, shadow], tape} of '%s'",
                         kn_function_name(r->fn));
  deliver(r, value);
  return true;
}

/* __enzyme_reverse(fn, args..., [seed,] tape): the seed (the derivative of
 * a floating-point result) and the tape follow the parameters, unless the
 * tape comes with enzyme_tape. */
static bool call_split_reverse(Request *r, Signature *sig, LLVMTypeRef ret, unsigned cursor) {
  sig->ret_tangent = kn_is_float_type(ret);
  sig->adjacent = false;
  bool ok = true;
  LLVMValueRef seed = NULL, tape = r->tape;
  if (sig->ret_tangent) {
    if (cursor == r->nactual)
      return request_error(r, "'%s' returns a floating-point value: the derivative of the result "
                              "must follow its parameters",
                           kn_function_name(r->fn));
    seed = coerce(r->b, r->actual[cursor++], ret, &ok);
  }
  if (!tape && cursor < r->nactual)
    tape = r->actual[cursor++];
  if (!ok || !tape || !kn_is_pointer_type(LLVMTypeOf(tape)))
    return request_error(r, "the tape from __enzyme_augmentfwd must follow the parameters%s",
                         sig->ret_tangent ? " and the derivative of the result" : "");
  if (r->allocated) {
    if (!check_allocated_tape(r))
      return false;
    tape = LLVMBuildLoad2(r->b, LLVMPointerTypeInContext(kn_module.ctx, 0), r->tape, "tape");
  }
  return check_all_read(r, cursor) && return_gradients(r, sig, call_rev(r, sig, seed, tape));
}

/* An invoke ends its block: in its place goes an invoke of a function that
 * does nothing and cannot throw, so the unwind edge and the phis behind it
 * stay valid until the optimiser removes both. */
static void replace_invoke(LLVMValueRef invoke) {
  LLVMValueRef nothing = LLVMGetNamedFunction(kn_module.mod, "kinase.request.done");
  LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(kn_module.ctx), NULL, 0, 0);
  if (!nothing) {
    nothing = LLVMAddFunction(kn_module.mod, "kinase.request.done", type);
    LLVMSetLinkage(nothing, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(nothing, LLVMAttributeFunctionIndex,
                               LLVMCreateEnumAttribute(kn_module.ctx,
                                                       LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, nothing, "entry"));
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
  }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, invoke);
  LLVMBuildInvoke2(b, type, nothing, NULL, 0, LLVMGetNormalDest(invoke), LLVMGetUnwindDest(invoke), "");
  LLVMDisposeBuilder(b);
}

/* The derivative's calls standing for a request that is an invoke run the
 * primal, which may throw: they unwind where the request would have (to
 * the caller's catch or cleanups), each ending a block. `before` is the
 * instruction that preceded them. */
static void unwind_like_request(LLVMValueRef request, LLVMValueRef before) {
  LLVMBasicBlockRef unwind = LLVMGetUnwindDest(request);
  LLVMValueRef *calls = NULL;
  LLVMValueRef inst = before ? LLVMGetNextInstruction(before)
                             : LLVMGetFirstInstruction(LLVMGetInstructionParent(request));
  for (; inst != request; inst = LLVMGetNextInstruction(inst))
    if (LLVMIsACallInst(inst) && derive_is_derivative(kn_called_function(inst)))
      arrput(calls, inst);
  for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(calls[i]);
    LLVMValueRef invoke = unwind_through(calls[i], unwind);
    /* The call is gone: a reverse sweep is now this invoke. */
    for (ptrdiff_t k = 0; k < arrlen(reverse_sweeps); k++)
      if (reverse_sweeps[k] == calls[i])
        reverse_sweeps[k] = invoke;
    cfg_copy_incoming(unwind, LLVMGetInstructionParent(request), bb);
  }
  arrfree(calls);
}

/* Enzyme's __enzyme_virtualreverse(f) makes the shadow of a function
 * pointer or a vtable, for the shadow of an object that holds one. Kinase
 * never reads such a shadow: it differentiates an indirect call by what the
 * primal pointer holds (analysis/devirt.c). So the shadow is the pointer
 * itself, which keeps the shadow object usable as the primal one is. */
void abi_lower_virtualreverse(LLVMValueRef call) {
  LLVMValueRef arg = LLVMGetNumArgOperands(call) ? LLVMGetOperand(call, 0) : NULL;
  LLVMTypeRef type = LLVMTypeOf(call);
  if (LLVMGetTypeKind(type) != LLVMVoidTypeKind) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
    LLVMPositionBuilderBefore(b, call);
    bool ok = arg != NULL;
    LLVMValueRef value = ok ? coerce(b, arg, type, &ok) : NULL;
    LLVMDisposeBuilder(b);
    if (!ok)
      kn_error(call, NULL, "__enzyme_virtualreverse takes the function pointer or vtable to "
                           "make a shadow of, and returns it");
    LLVMReplaceAllUsesWith(call, ok ? value : LLVMGetPoison(type));
  }
  if (LLVMIsAInvokeInst(call))
    replace_invoke(call);
  LLVMInstructionEraseFromParent(call);
}

bool abi_lower_request(LLVMValueRef call, RequestKind kind) {
  Request r = {.call = call,
               .kind = kind,
               .mode = kind == REQ_FORWARD ? MODE_FORWARD : MODE_REVERSE,
               .b = LLVMCreateBuilderInContext(kn_module.ctx)};
  inline_locate_in_caller(call);
  LLVMPositionBuilderBefore(r.b, call);
  LLVMValueRef before = LLVMGetPreviousInstruction(call);
  bool ok = lower(&r);
  if (!ok && LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind)
    LLVMReplaceAllUsesWith(call, LLVMGetPoison(LLVMTypeOf(call)));
  LLVMValueRef operands[KN_MAX_ARGS];
  unsigned n = LLVMGetNumArgOperands(call);
  n = n > KN_MAX_ARGS ? KN_MAX_ARGS : n;
  for (unsigned i = 0; i < n; i++)
    operands[i] = LLVMGetOperand(call, i);
  if (LLVMIsAInvokeInst(call)) {
    unwind_like_request(call, before);
    replace_invoke(call);
  }
  LLVMInstructionEraseFromParent(call);
  erase_dead_markers(operands, n);
  LLVMDisposeBuilder(r.b);
  return ok;
}
