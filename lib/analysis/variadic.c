/* Calls of the module's variadic functions (a sum over `...`, a logging
 * helper handed a double), as calls of fixed-arity copies, on x86-64 with
 * the System V va_list (Linux, the BSDs, macOS; not Windows).
 *
 * Clang lowers va_arg on x86-64 itself: it reads the va_list's gp_offset
 * and fp_offset and takes the value from the register save area while they
 * are below 48 and 176, else from the overflow area, which it then steps.
 * The copy kinase.fixed.NAME takes one more parameter, the variable
 * arguments laid out as the overflow area, and its va_start sets both
 * offsets past their limits, so that every va_arg (and a vfprintf handed
 * the va_list) reads that memory. The caller lays the arguments out in a
 * local of its own. The generators then see memory, loads and stores, which
 * have shadows and adjoints like any other. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

enum {
  GP_OFFSET_LIMIT = 48,  /* six integer registers of 8 bytes */
  FP_OFFSET_LIMIT = 176, /* and eight vector registers of 16 */
  VA_LIST_BYTES = 24,    /* {i32 gp_offset, i32 fp_offset, ptr overflow, ptr save} */
};

/* x86-64's System V va_list; Windows' is a plain pointer. */
static bool is_x86_64_sysv(void) {
  const char *triple = LLVMGetTarget(kn_module.mod);
  return !strncmp(triple, "x86_64", 6) && !strstr(triple, "windows") && !strstr(triple, "mingw") &&
         !strstr(triple, "cygwin") && !strstr(triple, "win32");
}

static LLVMValueRef intrinsic_callee(LLVMValueRef inst, const char *name) {
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  return callee && !strncmp(kn_function_name(callee), name, strlen(name)) ? callee : NULL;
}

/* Whether fn's body only uses va_start, va_copy and va_end on its va_lists
 * (no IR va_arg, which clang does not emit for x86-64). */
static bool fixable(LLVMValueRef fn) {
  if (LLVMIsDeclaration(fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (LLVMGetInstructionOpcode(inst) == LLVMVAArg)
        return false;
  return true;
}

static LLVMTypeRef i32_type(void) { return LLVMInt32TypeInContext(kn_module.ctx); }
static LLVMTypeRef i64_type(void) { return LLVMInt64TypeInContext(kn_module.ctx); }

/* va_start(list): offsets past the registers, both areas at `area`. */
static void start_in_area(LLVMBuilderRef b, LLVMValueRef list, LLVMValueRef area) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(kn_module.ctx);
  LLVMValueRef fields[4] = {LLVMConstInt(i32_type(), GP_OFFSET_LIMIT, 0),
                            LLVMConstInt(i32_type(), FP_OFFSET_LIMIT, 0), area, area};
  unsigned offsets[4] = {0, 4, 8, 16};
  for (unsigned k = 0; k < 4; k++) {
    LLVMValueRef at = LLVMConstInt(i64_type(), offsets[k], 0);
    LLVMBuildStore(b, fields[k], LLVMBuildGEP2(b, i8, list, &at, 1, ""));
  }
}

/* ptrmask(p, mask) as p plus the bytes the mask takes off: an address in
 * the same object, whose shadow is the shadow's at that offset (va_arg
 * aligns the overflow area so for a long double). */
static LLVMValueRef masked_as_offset(LLVMBuilderRef b, LLVMValueRef p, LLVMValueRef mask) {
  LLVMValueRef address = LLVMBuildPtrToInt(b, p, LLVMTypeOf(mask), "");
  LLVMValueRef offset = LLVMBuildSub(b, LLVMBuildAnd(b, address, mask, ""), address, "");
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx), p, &offset, 1, "");
}

/* Replaces va_start, va_copy, va_end and va_arg's ptrmask in the fixed
 * copy `fn`. */
static void lower_va_intrinsics(LLVMValueRef fn, LLVMValueRef area) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef next;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = next) {
      next = LLVMGetNextInstruction(inst);
      bool start = intrinsic_callee(inst, "llvm.va_start") != NULL;
      bool copy = intrinsic_callee(inst, "llvm.va_copy") != NULL;
      bool mask = intrinsic_callee(inst, "llvm.ptrmask") != NULL;
      if (!start && !copy && !mask && !intrinsic_callee(inst, "llvm.va_end"))
        continue;
      LLVMPositionBuilderBefore(b, inst);
      LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(inst));
      if (mask)
        LLVMReplaceAllUsesWith(inst, masked_as_offset(b, LLVMGetOperand(inst, 0), LLVMGetOperand(inst, 1)));
      if (start)
        start_in_area(b, LLVMGetOperand(inst, 0), area);
      if (copy)
        LLVMBuildMemCpy(b, LLVMGetOperand(inst, 0), 8, LLVMGetOperand(inst, 1), 8,
                        LLVMConstInt(i64_type(), VA_LIST_BYTES, 0));
      LLVMInstructionEraseFromParent(inst);
    }
  }
  LLVMDisposeBuilder(b);
}

/* kinase.fixed.NAME(fixed parameters..., ptr area), made once. */
static LLVMValueRef fixed_copy(LLVMValueRef callee) {
  char *name = kn_strdup_printf("kinase.fixed.%s", kn_function_name(callee));
  LLVMValueRef fixed = LLVMGetNamedFunction(kn_module.mod, name);
  if (fixed) {
    free(name);
    return fixed;
  }
  LLVMTypeRef type = LLVMGlobalGetValueType(callee);
  unsigned n = LLVMCountParamTypes(type);
  LLVMTypeRef params[KN_MAX_PARAMS + 1];
  LLVMGetParamTypes(type, params);
  params[n] = LLVMPointerTypeInContext(kn_module.ctx, 0);
  fixed = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(LLVMGetReturnType(type), params, n + 1, 0));
  free(name);
  LLVMSetLinkage(fixed, LLVMInternalLinkage);
  LLVMValueRef args[KN_MAX_PARAMS + 1];
  LLVMGetParams(fixed, args);
  for (unsigned i = 0; i < n; i++) {
    const char *param = kn_value_name(LLVMGetParam(callee, i));
    LLVMSetValueName2(args[i], param, strlen(param));
  }
  LLVMSetValueName2(args[n], "variadic.area", strlen("variadic.area"));
  move_body(clone_function(callee, "kinase.variadic"), fixed, args);
  lower_va_intrinsics(fixed, args[n]);
  return fixed;
}

static unsigned long long round_up(unsigned long long x, unsigned long long to) {
  return (x + to - 1) / to * to;
}

/* The type and size of variable argument i of `call` in the overflow area:
 * a struct passed byval is its bytes, anything else its value; each starts
 * at a multiple of 8, or of 16 for types aligned so (long double). */
static LLVMTypeRef slot_type(LLVMValueRef call, unsigned i, bool *in_memory) {
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef attr = LLVMGetCallSiteEnumAttribute(call, i + 1, byval);
  *in_memory = attr != NULL;
  return attr ? LLVMGetTypeAttributeValue(attr) : LLVMTypeOf(LLVMGetOperand(call, i));
}

/* The call of the fixed copy in place of `call`, its variable arguments
 * laid out in a local of `fn`. */
static void call_fixed(LLVMValueRef fn, LLVMValueRef call, LLVMValueRef fixed) {
  LLVMValueRef callee = kn_called_function(call);
  unsigned nfixed = LLVMCountParams(callee), nargs = LLVMGetNumArgOperands(call);
  unsigned long long offsets[3 * KN_MAX_PARAMS], size = 0;
  for (unsigned i = nfixed; i < nargs; i++) {
    bool in_memory;
    LLVMTypeRef t = slot_type(call, i, &in_memory);
    size = round_up(size, LLVMABIAlignmentOfType(kn_module.layout, t) > 8 ? 16 : 8);
    offsets[i] = size;
    size += round_up(LLVMABISizeOfType(kn_module.layout, t), 8);
  }
  LLVMTypeRef i8 = LLVMInt8TypeInContext(kn_module.ctx);
  LLVMBuilderRef entry = kn_entry_builder(fn);
  LLVMValueRef area = LLVMBuildAlloca(entry, LLVMArrayType2(i8, size ? size : 8), "variadic.area");
  LLVMSetAlignment(area, 16);
  LLVMDisposeBuilder(entry);

  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, call);
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  LLVMValueRef args[KN_MAX_PARAMS + 1];
  for (unsigned i = 0; i < nfixed; i++)
    args[i] = LLVMGetOperand(call, i);
  args[nfixed] = area;
  for (unsigned i = nfixed; i < nargs; i++) {
    bool in_memory;
    LLVMTypeRef t = slot_type(call, i, &in_memory);
    LLVMValueRef offset = LLVMConstInt(i64_type(), offsets[i], 0);
    LLVMValueRef at = LLVMBuildGEP2(b, i8, area, &offset, 1, "");
    if (in_memory)
      LLVMBuildMemCpy(b, at, 8, LLVMGetOperand(call, i), 8,
                      LLVMConstInt(i64_type(), LLVMABISizeOfType(kn_module.layout, t), 0));
    else
      LLVMBuildStore(b, LLVMGetOperand(call, i), at);
  }
  LLVMValueRef fixed_call = LLVMBuildCall2(b, LLVMGlobalGetValueType(fixed), fixed, args, nfixed + 1, "");
  LLVMDisposeBuilder(b);
  LLVMReplaceAllUsesWith(call, fixed_call);
  LLVMInstructionEraseFromParent(call);
}

void variadic_fix_calls(LLVMValueRef fn) {
  if (!is_x86_64_sysv())
    return;
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (callee && LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)) &&
          LLVMCountParams(callee) < KN_MAX_PARAMS && LLVMGetNumArgOperands(inst) < 3 * KN_MAX_PARAMS &&
          !rule_for_function(callee) && fixable(callee))
        arrput(calls, inst);
    }
  for (ptrdiff_t i = 0; i < arrlen(calls); i++)
    call_fixed(fn, calls[i], fixed_copy(kn_called_function(calls[i])));
  arrfree(calls);
}
