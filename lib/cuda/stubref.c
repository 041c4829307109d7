/* Structs of 9 to 16 bytes launched from host code, passed whole.
 *
 * The x86-64 C ABI passes `struct {const float *x; float a; int n;}` to the
 * kernel's host stub as its two eightbytes, and one that holds a float and
 * an integer is an i64: once the caller's struct is split into registers,
 * the float reaches the launch as bits of an integer, and its adjoint could
 * not come back. So, before the copy differentiated is simplified, a stub
 * call whose pieces of such a struct are loads from one local becomes a call
 * of `kinase.stubref.STUB`, which takes the local's address in their place,
 * loads the pieces and calls the stub. Launch derivatives take it as a stub
 * whose parameter is the struct (as a byval one is: cuda/launch.c), so the
 * float's shadow is the local's shadow, as for a struct passed in memory.
 */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

#define STUBREF_PREFIX "kinase.stubref."

bool cuda_is_stub_by_reference(LLVMValueRef fn) {
  return !strncmp(kn_function_name(fn), STUBREF_PREFIX, sizeof STUBREF_PREFIX - 1);
}

/* The stub's call in the body of a kinase.stubref function. */
static LLVMValueRef stub_call(LLVMValueRef fn) {
  for (LLVMValueRef inst = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)); inst;
       inst = LLVMGetNextInstruction(inst))
    if (LLVMIsACallInst(inst))
      return inst;
  return NULL;
}

LLVMValueRef cuda_launched_stub(LLVMValueRef fn) {
  return cuda_is_stub_by_reference(fn) ? kn_called_function(stub_call(fn)) : fn;
}

static int param_index(LLVMValueRef fn, LLVMValueRef v) {
  for (unsigned j = 0, n = LLVMCountParams(fn); j < n; j++)
    if (LLVMGetParam(fn, j) == v)
      return (int)j;
  return -1;
}

bool cuda_stub_by_reference_layout(LLVMValueRef fn, StubLayout *out) {
  LLVMValueRef call = stub_call(fn);
  StubLayout stub;
  if (!call || !cuda_stub_layout(kn_called_function(call), &stub))
    return false;
  *out = stub;
  for (unsigned j = 0; j < KN_MAX_PARAMS; j++)
    out->kernel_of[j] = -1;
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    unsigned k = (unsigned)stub.kernel_of[i];
    int j = param_index(fn, arg);
    if (j >= 0) {
      out->kernel_of[j] = (int)k;
      out->offset[j] = stub.offset[i];
    } else if (LLVMIsALoadInst(arg)) {
      j = param_index(fn, kn_underlying_object(LLVMGetOperand(arg, 0)));
      if (j < 0)
        return false;
      out->kernel_of[j] = (int)k;
      out->offset[j] = 0;
      out->slot[k] = NULL; /* the parameter is the struct */
    } else {
      return false;
    }
  }
  for (unsigned j = 0, n = LLVMCountParams(fn); j < n; j++)
    if (out->kernel_of[j] < 0)
      return false;
  return true;
}

/* The local whose bytes the stub's pieces of kernel parameter k are, each
 * loaded from its offset; NULL if they are not. */
static LLVMValueRef pieces_local(LLVMValueRef call, const StubLayout *layout, unsigned k) {
  LLVMValueRef local = NULL;
  for (unsigned j = 0, n = LLVMGetNumArgOperands(call); j < n; j++) {
    if (layout->kernel_of[j] != (int)k)
      continue;
    LLVMValueRef piece = LLVMGetOperand(call, j), at = NULL;
    unsigned long long offset;
    if (!LLVMIsALoadInst(piece) || !abi_offset_in_slot(LLVMGetOperand(piece, 0), &at, &offset) ||
        offset != layout->offset[j] || (local && at != local))
      return NULL;
    local = at;
  }
  uint64_t size = LLVMABISizeOfType(kn_module.layout, layout->slot[k]);
  return local && LLVMABISizeOfType(kn_module.layout, LLVMGetAllocatedType(local)) >= size ? local : NULL;
}

/* Whether kernel parameter k is a struct in pieces one of which is an
 * integer where the struct has floats: the case this file is for. */
static bool floats_in_integer_piece(LLVMValueRef stub, const StubLayout *layout, unsigned k) {
  if (!layout->slot[k] || !cuda_stub_aggregate(layout, k) || !kn_type_has_floats(layout->slot[k]))
    return false;
  for (unsigned j = 0, n = LLVMCountParams(stub); j < n; j++)
    if (layout->kernel_of[j] == (int)k &&
        LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(stub, j))) == LLVMIntegerTypeKind)
      return true;
  return false;
}

/* kinase.stubref.STUB for `call`, whose kernel parameters marked in
 * `whole` are passed as the address of their bytes; made once per stub and
 * set of such parameters. */
static LLVMValueRef by_reference(LLVMValueRef stub, const StubLayout *layout, const bool *whole) {
  char marks[KN_MAX_PARAMS + 1];
  for (unsigned k = 0; k < layout->nkernel; k++)
    marks[k] = whole[k] ? 'r' : 'v';
  marks[layout->nkernel] = 0;
  char *name = kn_strdup_printf(STUBREF_PREFIX "%s.%s", kn_function_name(stub), marks);
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn) {
    free(name);
    return fn;
  }
  LLVMTypeRef ptr = LLVMPointerTypeInContext(kn_module.ctx, 0), params[KN_MAX_PARAMS];
  unsigned n = LLVMCountParams(stub), nparams = 0, first_of[KN_MAX_PARAMS];
  bool taken[KN_MAX_PARAMS] = {0};
  for (unsigned j = 0; j < n; j++) {
    unsigned k = (unsigned)layout->kernel_of[j];
    if (!whole[k])
      params[nparams++] = LLVMTypeOf(LLVMGetParam(stub, j));
    else if (!taken[k]) {
      taken[k] = true;
      first_of[k] = nparams;
      params[nparams++] = ptr;
    }
  }
  fn = LLVMAddFunction(kn_module.mod, name,
                       LLVMFunctionType(LLVMVoidTypeInContext(kn_module.ctx), params, nparams, 0));
  free(name);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "entry"));
  LLVMValueRef args[KN_MAX_PARAMS];
  for (unsigned j = 0, p = 0; j < n; j++) {
    unsigned k = (unsigned)layout->kernel_of[j];
    if (!whole[k]) {
      args[j] = LLVMGetParam(fn, p++);
      continue;
    }
    if (first_of[k] == p)
      p++;
    LLVMValueRef offset = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), layout->offset[j], 0);
    LLVMValueRef at = LLVMBuildGEP2(b, LLVMInt8TypeInContext(kn_module.ctx),
                                    LLVMGetParam(fn, first_of[k]), &offset, 1, "");
    args[j] = LLVMBuildLoad2(b, LLVMTypeOf(LLVMGetParam(stub, j)), at, "");
  }
  LLVMBuildCall2(b, LLVMGlobalGetValueType(stub), stub, args, n, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static void pass_whole(LLVMValueRef call, LLVMValueRef stub) {
  StubLayout layout;
  if (!cuda_stub_layout(stub, &layout))
    return;
  bool whole[KN_MAX_PARAMS] = {0}, any = false;
  LLVMValueRef local[KN_MAX_PARAMS] = {0};
  for (unsigned k = 0; k < layout.nkernel; k++) {
    local[k] = floats_in_integer_piece(stub, &layout, k) ? pieces_local(call, &layout, k) : NULL;
    any |= whole[k] = local[k] != NULL;
  }
  if (!any)
    return;
  LLVMValueRef fn = by_reference(stub, &layout, whole);
  LLVMValueRef args[KN_MAX_PARAMS];
  unsigned nargs = 0;
  bool taken[KN_MAX_PARAMS] = {0};
  for (unsigned j = 0, n = LLVMGetNumArgOperands(call); j < n; j++) {
    unsigned k = (unsigned)layout.kernel_of[j];
    if (!whole[k])
      args[nargs++] = LLVMGetOperand(call, j);
    else if (!taken[k]) {
      taken[k] = true;
      args[nargs++] = local[k];
    }
  }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, call);
  /* Among C++ locals with destructors the launch is an invoke. */
  LLVMValueRef replacement =
      LLVMIsAInvokeInst(call)
          ? LLVMBuildInvoke2(b, LLVMGlobalGetValueType(fn), fn, args, nargs, LLVMGetNormalDest(call),
                             LLVMGetUnwindDest(call), "")
          : LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, nargs, "");
  LLVMInstructionSetDebugLoc(replacement, LLVMInstructionGetDebugLoc(call));
  LLVMDisposeBuilder(b);
  LLVMInstructionEraseFromParent(call);
}

void cuda_launch_structs_whole(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef callee = kn_is_call_site(inst) ? kn_called_function(inst) : NULL;
      if (callee && !cuda_is_stub_by_reference(callee) && cuda_is_launch_stub(callee))
        arrput(calls, inst);
    }
  for (ptrdiff_t i = 0; i < arrlen(calls); i++)
    pass_whole(calls[i], kn_called_function(calls[i]));
  arrfree(calls);
}
