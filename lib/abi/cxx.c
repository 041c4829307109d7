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
 *       marker_1..marker_n, value_1..value_n, extra_1..extra_n)
 *
 * where extra_i is the shadow of a dup or dupnoneed argument, where the
 * gradient of an enzyme_out argument goes, and nothing of use for a const
 * one. This puts them back in the C ABI's order for abi.c and records where
 * the results go: every result is stored through a pointer, so no C++
 * return convention (registers, sret) is involved. */
#include "kinase.h"

#include <stdio.h>
#include <string.h>

/* Operands before the markers: the tag, two markers, two destinations. */
#define HEAD 5

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
static bool returns_in_memory(LLVMValueRef fn, unsigned nargs) {
  unsigned sret = LLVMGetEnumAttributeKindForName("sret", 4);
  return LLVMCountParams(fn) == nargs + 1 && LLVMGetEnumAttributeAtIndex(fn, 1, sret);
}

/* enzyme_dup's global, declared if the module lacks it: a declaration no
 * instruction uses is not emitted. */
static LLVMValueRef dup_marker(void) {
  LLVMValueRef g = LLVMGetNamedGlobal(kn_module.mod, "enzyme_dup");
  return g ? g : LLVMAddGlobal(kn_module.mod, LLVMInt32TypeInContext(kn_module.ctx), "enzyme_dup");
}

bool cxx_ungroup(LLVMValueRef fn, LLVMValueRef *ops, unsigned n, CxxRequest *cxx,
                 LLVMValueRef *actual, unsigned *nactual, char *why, size_t size) {
  *cxx = (CxxRequest){.grouped = true};
  if (n < HEAD || (n - HEAD) % 3 != 0)
    return fail(why, size, "enzyme::autodiff: an argument passed by value as several values (a "
                           "struct passed by value) is not supported yet; pass it by pointer or "
                           "reference");
  LLVMValueRef ret = ops[1];
  cxx->ret = global_named(ret, "enzyme_active_return") ? RET_ACTIVE
             : global_named(ret, "enzyme_dup_return")  ? RET_DUP
                                                       : RET_CONST;
  cxx->primal = global_named(ops[2], "enzyme_primal_return");
  cxx->primal_out = ops[3];
  cxx->tangent_out = ops[4];
  unsigned k = (n - HEAD) / 3, count = 0;
  if (k >= KN_MAX_PARAMS)
    return fail(why, size, "too many arguments");
  if (returns_in_memory(fn, k)) {
    actual[count++] = dup_marker();
    actual[count++] = cxx->primal_out;
    actual[count++] = cxx->tangent_out;
  }
  for (unsigned i = 0; i < k; i++) {
    LLVMValueRef marker = ops[HEAD + i], extra = ops[HEAD + 2 * k + i];
    actual[count++] = marker;
    actual[count++] = ops[HEAD + k + i];
    if (global_named(marker, "enzyme_dup") || global_named(marker, "enzyme_dupnoneed"))
      actual[count++] = extra;
    else if (global_named(marker, "enzyme_out"))
      cxx->grad_out[cxx->ngrad++] = extra;
  }
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
  for (unsigned i = 0; i < cxx->ngrad; i++)
    cxx_store(b, LLVMBuildExtractValue(b, grads, i, ""), cxx->grad_out[i]);
}
