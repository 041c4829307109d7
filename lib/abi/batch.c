/* Enzyme's batch mode: W derivatives, or W primal calls, from one request.
 *
 * `enzyme_width, W` anywhere among a request's arguments gives every value
 * W tangents. A dup argument is followed by its W shadows (x, dx0, ...,
 * dx(W-1)); `enzyme_dupv, stride, x, dx` (and enzyme_dupnoneedv) passes
 * them as one array instead, lane k starting k * stride bytes after dx.
 * __enzyme_batch(fn, enzyme_width, W, args...) calls fn for W lanes of
 * arguments and returns the W results: `enzyme_vector, x0, ..., x(W-1)`
 * (an unmarked argument too), `enzyme_scalar, x` (every lane's), and
 * `enzyme_buffer, stride, x` (lane k at x + k * stride bytes).
 *
 * This file reads those markers; forward/forward.c carries the lanes of
 * tangents, and abi/abi.c hands the results back as the caller declared. */
#include "kinase.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The markers of batch mode, which only this file reads. */
static const char *const batch_markers[] = {"enzyme_width",  "enzyme_dupv",   "enzyme_dupnoneedv",
                                            "enzyme_vector", "enzyme_scalar", "enzyme_buffer"};

bool batch_is_marker(LLVMValueRef arg) {
  for (size_t i = 0; i < sizeof batch_markers / sizeof *batch_markers; i++)
    if (abi_is_marker(arg, batch_markers[i]))
      return true;
  return false;
}

static bool fail(char *why, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
  return false;
}

/* The width as a number: a constant, also through a local or a constant
 * global that holds one (`const int W = 4;` at -O0). 0 where it is not
 * known at compile time. */
static unsigned long long constant_width(LLVMValueRef v) {
  v = kn_strip_casts(inline_known_constant(v));
  if (LLVMIsALoadInst(v)) {
    LLVMValueRef g = kn_strip_casts(LLVMGetOperand(v, 0));
    if (LLVMIsAGlobalVariable(g) && LLVMIsGlobalConstant(g) && LLVMGetInitializer(g))
      v = LLVMGetInitializer(g);
  }
  if (!LLVMIsAConstantInt(v))
    return 0;
  long long w = LLVMConstIntGetSExtValue(v);
  return w > 0 ? (unsigned long long)w : 0;
}

/* Takes enzyme_width and its value out of ops. */
static bool take_width(LLVMValueRef *ops, unsigned *n, unsigned *width, char *why, size_t size) {
  unsigned out = 0;
  bool found = false;
  *width = 1;
  for (unsigned k = 0; k < *n; k++) {
    if (!abi_is_marker(ops[k], "enzyme_width")) {
      ops[out++] = ops[k];
      continue;
    }
    if (found)
      return fail(why, size, "enzyme_width is given twice");
    if (k + 1 == *n)
      return fail(why, size, "enzyme_width must be followed by the number of lanes");
    unsigned long long w = constant_width(ops[++k]);
    if (!w)
      return fail(why, size, "the width after enzyme_width must be a positive integer constant");
    if (w > KN_MAX_WIDTH)
      return fail(why, size, "enzyme_width %llu is more lanes than Kinase has (%d)", w, KN_MAX_WIDTH);
    *width = (unsigned)w;
    found = true;
  }
  *n = out;
  return true;
}

/* Lane k of a strided array: base + k * stride bytes. */
static LLVMValueRef lane_address(LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef stride, unsigned k) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(kn_module.ctx);
  LLVMValueRef offset = LLVMBuildMul(b, LLVMBuildIntCast2(b, stride, i64, 1, ""), LLVMConstInt(i64, k, 0), "");
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx), base, &offset, 1, "lane");
}

/* ops[k] is the strided marker `name`: its stride, primal (for enzyme_dupv)
 * and array follow. Writes `replacement` (a marker, or NULL for none), the
 * primal where there is one, and the W lane addresses to out. */
static bool expand_strided(LLVMBuilderRef b, LLVMValueRef *ops, unsigned n, unsigned k, const char *name,
                           bool primal, LLVMValueRef replacement, unsigned width, LLVMValueRef *out,
                           unsigned *nout, char *why, size_t size) {
  unsigned need = primal ? 3 : 2;
  if (k + need >= n)
    return fail(why, size, "%s must be followed by the stride in bytes between lanes, %s", name,
                primal ? "the value and its shadows' array" : "and the array of lanes");
  LLVMValueRef stride = ops[k + 1], array = ops[k + need];
  if (LLVMGetTypeKind(LLVMTypeOf(stride)) != LLVMIntegerTypeKind)
    return fail(why, size, "the stride after %s must be an integer (bytes between lanes)", name);
  if (!kn_is_pointer_type(LLVMTypeOf(array)))
    return fail(why, size, "the lanes after %s must be passed as a pointer", name);
  if (*nout + width + 2 > KN_MAX_ARGS)
    return fail(why, size, "too many arguments");
  if (replacement)
    out[(*nout)++] = replacement;
  if (primal)
    out[(*nout)++] = ops[k + 2];
  for (unsigned lane = 0; lane < width; lane++)
    out[(*nout)++] = lane_address(b, array, stride, lane);
  return true;
}

bool batch_read_markers(LLVMBuilderRef b, LLVMValueRef *ops, unsigned *n, unsigned *width, char *why,
                        size_t size) {
  if (!take_width(ops, n, width, why, size))
    return false;
  LLVMValueRef out[KN_MAX_ARGS];
  unsigned nout = 0;
  for (unsigned k = 0; k < *n; k++) {
    bool dupv = abi_is_marker(ops[k], "enzyme_dupv"), noneedv = abi_is_marker(ops[k], "enzyme_dupnoneedv");
    if (dupv || noneedv) {
      LLVMValueRef marker = abi_marker(dupv ? "enzyme_dup" : "enzyme_dupnoneed");
      if (!expand_strided(b, ops, *n, k, dupv ? "enzyme_dupv" : "enzyme_dupnoneedv", true, marker, *width, out,
                          &nout, why, size))
        return false;
      k += 3;
      continue;
    }
    if (nout == KN_MAX_ARGS)
      return fail(why, size, "too many arguments");
    out[nout++] = ops[k];
  }
  memcpy(ops, out, nout * sizeof *out);
  *n = nout;
  return true;
}

/* ---- __enzyme_batch ---- */

static const char *plural(unsigned n) { return n == 1 ? "" : "s"; }

/* The W values of parameter i from ops[*k...], each coerced to `type`. */
static bool lane_values(LLVMBuilderRef b, LLVMValueRef fn, unsigned i, LLVMValueRef *ops, unsigned n,
                        unsigned *k, unsigned width, LLVMValueRef *lanes, char *why, size_t size) {
  LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(fn, i));
  LLVMValueRef buffer[KN_MAX_WIDTH];
  unsigned nbuffer = 0, count = width;
  if (abi_is_marker(ops[*k], "enzyme_scalar")) {
    (*k)++;
    count = 1;
  } else if (abi_is_marker(ops[*k], "enzyme_buffer")) {
    if (!expand_strided(b, ops, n, *k, "enzyme_buffer", false, NULL, width, buffer, &nbuffer, why, size))
      return false;
    *k += 3;
  } else if (abi_is_marker(ops[*k], "enzyme_vector")) {
    (*k)++;
  }
  if (!nbuffer && *k + count > n)
    return fail(why, size, "'%s' has %u parameter%s but the call ends at parameter %u (%s)",
                kn_function_name(fn), LLVMCountParams(fn), plural(LLVMCountParams(fn)), i + 1,
                count == 1 ? "enzyme_scalar takes one value" : "a vector argument takes one value per lane");
  for (unsigned lane = 0; lane < width; lane++) {
    LLVMValueRef value = nbuffer ? buffer[lane] : ops[*k + (count == 1 ? 0 : lane)];
    if (abi_is_marker(value, "enzyme_scalar") || abi_is_marker(value, "enzyme_vector") ||
        abi_is_marker(value, "enzyme_buffer"))
      return fail(why, size, "a marker stands where parameter %u of '%s' expects its value for lane %u",
                  i + 1, kn_function_name(fn), lane);
    bool ok;
    lanes[lane] = coerce(b, value, type, &ok);
    if (!ok)
      return fail(why, size, "the value for lane %u of parameter %u of '%s' does not match its type", lane,
                  i + 1, kn_function_name(fn));
  }
  if (!nbuffer)
    *k += count;
  return true;
}

bool batch_call_lanes(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef *ops, unsigned n, unsigned width,
                      LLVMValueRef *results, char *why, size_t size) {
  unsigned nparams = LLVMCountParams(fn), k = 0;
  if (nparams > KN_MAX_PARAMS)
    return fail(why, size, "'%s' has more than %d parameters", kn_function_name(fn), KN_MAX_PARAMS);
  LLVMValueRef args[KN_MAX_WIDTH][KN_MAX_PARAMS];
  for (unsigned i = 0; i < nparams; i++) {
    if (k == n)
      return fail(why, size, "'%s' has %u parameter%s but the call ends at parameter %u", kn_function_name(fn),
                  nparams, plural(nparams), i + 1);
    LLVMValueRef lanes[KN_MAX_WIDTH];
    if (!lane_values(b, fn, i, ops, n, &k, width, lanes, why, size))
      return false;
    for (unsigned lane = 0; lane < width; lane++)
      args[lane][i] = lanes[lane];
  }
  if (k != n)
    return fail(why, size, "'%s' has %u parameter%s but the call passes %u more argument%s", kn_function_name(fn),
                nparams, plural(nparams), n - k, plural(n - k));
  LLVMTypeRef type = LLVMGlobalGetValueType(fn), ret = LLVMGetReturnType(type);
  bool has_result = LLVMGetTypeKind(ret) != LLVMVoidTypeKind;
  *results = has_result ? LLVMGetPoison(LLVMArrayType2(ret, width)) : NULL;
  for (unsigned lane = 0; lane < width; lane++) {
    LLVMValueRef call = LLVMBuildCall2(b, type, fn, args[lane], nparams, "");
    if (has_result)
      *results = LLVMBuildInsertValue(b, *results, call, lane, "");
  }
  return true;
}
