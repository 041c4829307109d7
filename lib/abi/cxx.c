/* Requests made by <enzyme/enzyme> (include/enzyme/enzyme). A C++ template
 * cannot interleave markers, values and shadows in one call without storing
 * the markers somewhere first, and a stored marker would stay referenced
 * (an undefined symbol at -O0). So the header groups them, one pack
 * expansion each:
 *
 *   __enzyme_autodiff<void>(fn, &__kinase_cxx_request,
 *       result's marker (&enzyme_active_return, _const_return, _dup_return),
 *       &enzyme_primal_return or &enzyme_noret,
 *       where the primal result goes, where its tangent goes,
 *       the enzyme::context's state (or null), the header's context_swap,
 *       marker_1..marker_n, size_1..size_n, value_1..value_n, extra_1..extra_n)
 *
 * where extra_i is the shadow of a dup or dupnoneed argument, where the
 * gradient of an enzyme_out argument goes, and nothing of use for a const
 * one; size_i is the size of a class clang may pass as several values (a
 * struct of two doubles by value: two doubles), 0 for others. A value split
 * so (and its shadow) becomes one C ABI argument per piece, each with the
 * argument's marker. This puts them back in the C ABI's order for abi.c and records where
 * the results go: every result is stored through a pointer, so no C++
 * return convention (registers, sret) is involved. */
#include "kinase.h"

#include <stdio.h>
#include <string.h>

/* Operands before the markers: the tag, two markers, two destinations, the
 * context and its swap function. */
#define HEAD 7

static bool global_named(LLVMValueRef v, const char *name) {
  v = kn_strip_casts(v);
  return LLVMIsAGlobalVariable(v) && !strcmp(kn_value_name(v), name);
}

bool cxx_is_grouped(LLVMValueRef first_operand) {
  return global_named(first_operand, "__kinase_cxx_request");
}

static bool fail(char *why, size_t size, const char *text) {
  snprintf(why, size, "%s", text);
  return false;
}

/* A function returning a class in memory (std::vector<double> f(...))
 * takes the result's place as a hidden first parameter (sret): it gets the
 * primal result's place, with the tangent's as its shadow. */
static bool returns_in_memory(LLVMValueRef fn, unsigned nvalues) {
  unsigned sret = LLVMGetEnumAttributeKindForName("sret", 4);
  return LLVMCountParams(fn) == nvalues + 1 && LLVMGetEnumAttributeAtIndex(fn, 1, sret);
}

static bool is_argument_marker(LLVMValueRef v) {
  static const char *const names[] = {"enzyme_dup", "enzyme_dupnoneed", "enzyme_const", "enzyme_out"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (global_named(v, names[i]))
      return true;
  return false;
}

/* How many parameters of `fn`, from `first`, one argument of `size` bytes
 * takes. The header passes the size of a class it may split (trivially
 * copyable, at most 16 bytes), else 0. Clang passes such a class as its
 * eightbytes, each a parameter (struct {double x, y;}: two doubles);
 * anything else, and a class passed in memory (byval), is one parameter. */
static unsigned parameters_of(LLVMValueRef fn, unsigned first, uint64_t size) {
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), count = 0;
  uint64_t covered = 0;
  for (unsigned p = first; p < LLVMCountParams(fn); p++) {
    if (count && covered >= size)
      break;
    if (LLVMGetEnumAttributeAtIndex(fn, p + 1, byval))
      return count ? count : 1;
    uint64_t bytes = LLVMStoreSizeOfType(kn_module.layout, LLVMTypeOf(LLVMGetParam(fn, p)));
    covered += (bytes + 7) / 8 * 8;
    count++;
  }
  return count ? count : 1;
}

/* The offset of each eightbyte of a split class, for the gradient's pieces. */
static unsigned piece_offset(LLVMValueRef fn, unsigned first, unsigned piece) {
  unsigned offset = 0;
  for (unsigned j = 0; j < piece; j++)
    offset += (unsigned)((LLVMStoreSizeOfType(kn_module.layout, LLVMTypeOf(LLVMGetParam(fn, first + j))) + 7) / 8 * 8);
  return offset;
}

static const char shape_error[] = "enzyme::autodiff: the request's arguments do not have the shape "
                                  "<enzyme/enzyme> gives them (a header from another version?)";

bool cxx_ungroup(LLVMValueRef fn, LLVMValueRef *ops, unsigned n, CxxRequest *cxx,
                 LLVMValueRef *actual, unsigned *nactual, char *why, size_t size) {
  *cxx = (CxxRequest){.grouped = true};
  unsigned k = 0;
  while (HEAD + k < n && is_argument_marker(ops[HEAD + k]))
    k++;
  if (n < HEAD + 2 * k || k >= KN_MAX_PARAMS)
    return fail(why, size, k >= KN_MAX_PARAMS ? "too many arguments" : shape_error);
  LLVMValueRef ret = ops[1];
  cxx->ret = global_named(ret, "enzyme_active_return") ? RET_ACTIVE
             : global_named(ret, "enzyme_dup_return")  ? RET_DUP
                                                       : RET_CONST;
  cxx->primal = global_named(ops[2], "enzyme_primal_return");
  cxx->primal_out = ops[3];
  cxx->tangent_out = ops[4];
  if (!(LLVMIsConstant(ops[5]) && LLVMIsNull(ops[5]))) {
    if (!LLVMIsAFunction(kn_strip_casts(ops[6])))
      return fail(why, size, shape_error);
    cxx->context = ops[5];
    cxx->context_swap = kn_strip_casts(ops[6]);
  }
  LLVMValueRef *markers = ops + HEAD, *sizes = ops + HEAD + k;
  unsigned count = 0, param = 0, value = HEAD + 2 * k;
  /* The values take the function's parameters (but a hidden sret one). */
  unsigned nvalues = LLVMCountParams(fn);
  if (nvalues && returns_in_memory(fn, nvalues - 1)) {
    nvalues--;
    param = 1;
    actual[count++] = abi_marker("enzyme_dup");
    actual[count++] = cxx->primal_out;
    actual[count++] = cxx->tangent_out;
  }
  unsigned extra = value + nvalues;
  for (unsigned i = 0; i < k; i++) {
    if (!LLVMIsAConstantInt(sizes[i]))
      return fail(why, size, shape_error);
    unsigned pieces = parameters_of(fn, param, LLVMConstIntGetZExtValue(sizes[i]));
    bool shadowed = global_named(markers[i], "enzyme_dup") || global_named(markers[i], "enzyme_dupnoneed");
    bool out = global_named(markers[i], "enzyme_out");
    if (value + pieces > HEAD + 2 * k + nvalues || extra + (shadowed ? pieces : 1) > n ||
        count + 3 * pieces > 3 * KN_MAX_PARAMS || cxx->ngrad + pieces > KN_MAX_PARAMS)
      return fail(why, size, shape_error);
    for (unsigned j = 0; j < pieces; j++) {
      actual[count++] = markers[i];
      actual[count++] = ops[value + j];
      if (shadowed)
        actual[count++] = ops[extra + j];
      if (out) {
        cxx->grad_out[cxx->ngrad] = ops[extra];
        cxx->grad_offset[cxx->ngrad++] = piece_offset(fn, param, j);
      }
    }
    value += pieces;
    param += pieces;
    extra += shadowed ? pieces : 1;
  }
  if (value != HEAD + 2 * k + nvalues || extra != n)
    return fail(why, size, shape_error);
  *nactual = count;
  return true;
}

/* A bool (i1) is a whole byte in memory. */
void cxx_store(LLVMBuilderRef b, LLVMValueRef value, LLVMValueRef where) {
  LLVMTypeRef type = LLVMTypeOf(value);
  if (LLVMGetTypeKind(type) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(type) % 8)
    value = LLVMBuildZExt(
        b, value, LLVMIntTypeInContext(kn_module.ctx, (LLVMGetIntTypeWidth(type) + 7) / 8 * 8), "");
  LLVMBuildStore(b, value, where);
}

void cxx_store_gradients(LLVMBuilderRef b, const CxxRequest *cxx, LLVMValueRef grads) {
  LLVMTypeRef byte = LLVMInt8TypeInContext(kn_module.ctx);
  for (unsigned i = 0; i < cxx->ngrad; i++) {
    LLVMValueRef offset = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), cxx->grad_offset[i], 0);
    LLVMValueRef where = cxx->grad_offset[i] ? LLVMBuildGEP2(b, byte, cxx->grad_out[i], &offset, 1, "")
                                             : cxx->grad_out[i];
    cxx_store(b, LLVMBuildExtractValue(b, grads, i, ""), where);
  }
}
