/* extern __shared__ arrays in derivative kernels (device modules).
 *
 * A block's dynamic shared memory is one region, sized by the launch, which
 * every extern __shared__ array starts at; a second array cannot be its
 * shadow. So in the copy of a kernel that derivatives are made from, the
 * arrays become one pointer parameter, which can have a shadow like any
 * pointer: the derivative kernel passes the region's start, and as its
 * shadow the region's second half, the runtime launching derivative kernels
 * with twice the dynamic shared memory (KINASE_KERNEL_DYNAMIC_SHARED).
 */
#include "kinase.h"

#include <stdlib.h>
#include <string.h>

static bool mentions_extern_shared(LLVMValueRef v, int depth) {
  if (kn_is_extern_shared(v))
    return true;
  if (!LLVMIsAConstantExpr(v) || depth > 8)
    return false;
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (mentions_extern_shared(LLVMGetOperand(v, (unsigned)i), depth + 1))
      return true;
  return false;
}

/* `v` with the arrays replaced by `base`: a constant expression around one
 * becomes instructions (GEPs and casts are what address arrays). */
static LLVMValueRef rebased(LLVMBuilderRef b, LLVMValueRef v, LLVMValueRef base) {
  if (kn_is_extern_shared(v))
    return base;
  if (!mentions_extern_shared(v, 0))
    return v;
  LLVMOpcode op = LLVMGetConstOpcode(v);
  LLVMValueRef inner = rebased(b, LLVMGetOperand(v, 0), base);
  if (op != LLVMGetElementPtr)
    return LLVMBuildCast(b, op, inner, LLVMTypeOf(v), "");
  unsigned n = (unsigned)LLVMGetNumOperands(v) - 1;
  LLVMValueRef indices[16];
  for (unsigned i = 0; i < n && i < 16; i++)
    indices[i] = LLVMGetOperand(v, i + 1);
  return LLVMBuildGEPWithNoWrapFlags(b, LLVMGetGEPSourceElementType(v), inner, indices, n < 16 ? n : 16,
                                     "", LLVMGEPGetNoWrapFlags(v));
}

static bool uses_extern_shared(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      for (int i = 0, n = LLVMGetNumOperands(inst); i < n; i++)
        if (mentions_extern_shared(LLVMGetOperand(inst, (unsigned)i), 0))
          return true;
  return false;
}

static void rebase_uses(LLVMValueRef fn, LLVMValueRef base) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      for (unsigned i = 0, n = (unsigned)LLVMGetNumOperands(inst); i < n; i++) {
        LLVMValueRef operand = LLVMGetOperand(inst, i);
        if (!mentions_extern_shared(operand, 0))
          continue;
        /* A phi's operand is computed at the end of its incoming block. */
        LLVMValueRef at = LLVMIsAPHINode(inst) ? LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(inst, i))
                                               : inst;
        LLVMPositionBuilderBefore(b, at);
        LLVMSetOperand(inst, i, rebased(b, operand, base));
      }
  LLVMDisposeBuilder(b);
}

LLVMValueRef cuda_dynamic_shared_as_parameter(LLVMValueRef fn) {
  if (!uses_extern_shared(fn))
    return fn;
  LLVMTypeRef type = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(type);
  LLVMTypeRef params[KN_MAX_PARAMS + 1];
  LLVMGetParamTypes(type, params);
  params[n] = LLVMPointerTypeInContext(kn_module.ctx, KN_SHARED_ADDRESS_SPACE);
  char *name = kn_strdup_printf("%s.dynamic_shared", kn_function_name(fn));
  LLVMValueRef with = LLVMAddFunction(kn_module.mod, name,
                                      LLVMFunctionType(LLVMGetReturnType(type), params, n + 1, 0));
  free(name);
  LLVMSetLinkage(with, LLVMInternalLinkage);
  for (unsigned i = 0; i < n; i++) /* structs passed by value stay so */
    cuda_copy_byval_attributes(fn, i, with, i);
  LLVMValueRef args[KN_MAX_PARAMS + 1];
  LLVMGetParams(with, args);
  move_body(fn, with, args);
  rebase_uses(with, LLVMGetParam(with, n));
  return with;
}

/* The region's start, as a declaration of Kinase's own. */
static LLVMValueRef region(void) {
  const char *name = "__kinase_dynamic_shared";
  LLVMValueRef g = LLVMGetNamedGlobal(kn_module.mod, name);
  if (!g) {
    LLVMTypeRef bytes = LLVMArrayType2(LLVMInt8TypeInContext(kn_module.ctx), 0);
    g = LLVMAddGlobalInAddressSpace(kn_module.mod, bytes, name, KN_SHARED_ADDRESS_SPACE);
    LLVMSetLinkage(g, LLVMExternalLinkage);
    LLVMSetAlignment(g, 16);
  }
  return g;
}

void cuda_dynamic_shared_args(LLVMBuilderRef b, LLVMValueRef *start, LLVMValueRef *shadow) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef size_reader = LLVMGetInlineAsm(LLVMFunctionType(i32, NULL, 0, 0), "mov.u32 $0, %dynamic_smem_size;",
                                              strlen("mov.u32 $0, %dynamic_smem_size;"), "=r", 2, 0, 0,
                                              LLVMInlineAsmDialectATT, 0);
  LLVMValueRef size = LLVMBuildCall2(b, LLVMFunctionType(i32, NULL, 0, 0), size_reader, NULL, 0, "dynamic_smem_size");
  LLVMValueRef half = LLVMBuildZExt(b, LLVMBuildLShr(b, size, LLVMConstInt(i32, 1, 0), ""),
                                    LLVMInt64TypeInContext(ctx), "");
  *start = region();
  *shadow = LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), *start, &half, 1, "dynamic_shared.shadow");
}

/* ---- device-side requests ---- */

static bool module_has_extern_shared(void) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(kn_module.mod); g; g = LLVMGetNextGlobal(g))
    if (kn_is_extern_shared(g))
      return true;
  return false;
}

/* kinase.dynamic_shared.check(end): stops the kernel with a message when a
 * byte before `end` of dynamic shared memory lies past the first half of
 * the launch's, where the shadow starts. Integers only: no derivative flows
 * through it, it needs no rule. */
static LLVMValueRef bounds_check(void) {
  const char *name = "kinase.dynamic_shared.check";
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  LLVMContextRef ctx = kn_module.ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
  fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx), &i64, 1, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBasicBlockRef past = LLVMAppendBasicBlockInContext(ctx, fn, "past_half");
  LLVMBasicBlockRef fits = LLVMAppendBasicBlockInContext(ctx, fn, "fits");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMTypeRef fields[2] = {i64, i64};
  LLVMTypeRef args_type = LLVMStructTypeInContext(ctx, fields, 2, 0);
  LLVMValueRef args = LLVMBuildAlloca(b, args_type, ""); /* in the entry: no stacksave where inlined */
  LLVMValueRef size = kn_call_libc(b, "llvm.nvvm.read.ptx.sreg.dynamic_smem_size", i32, NULL, 0);
  LLVMValueRef half = LLVMBuildZExt(b, LLVMBuildLShr(b, size, LLVMConstInt(i32, 1, 0), ""), i64, "half");
  LLVMValueRef end = LLVMGetParam(fn, 0);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, end, half, ""), past, fits);
  LLVMPositionBuilderAtEnd(b, past);
  LLVMBuildStore(b, end, LLVMBuildStructGEP2(b, args_type, args, 0, ""));
  LLVMBuildStore(b, LLVMBuildZExt(b, size, i64, ""), LLVMBuildStructGEP2(b, args_type, args, 1, ""));
  kn_device_stop(b,
                 "kinase: a function differentiated inside a kernel uses extern __shared__ memory up to byte "
                 "%llu, past the first half of the launch's %llu bytes of dynamic shared memory, whose second "
                 "half holds the shadow: launch the kernel with twice the dynamic shared memory the function "
                 "uses\n",
                 "kinase.dynamic_shared.message", LLVMBuildAddrSpaceCast(b, args, LLVMPointerTypeInContext(ctx, 0), ""));
  LLVMPositionBuilderAtEnd(b, fits);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* The address a load, store or atomic operation reaches, else NULL. */
static LLVMValueRef accessed_address(LLVMValueRef inst) {
  if (LLVMIsALoadInst(inst) || LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst))
    return LLVMGetOperand(inst, 0);
  return LLVMIsAStoreInst(inst) ? LLVMGetOperand(inst, 1) : NULL;
}

/* Before each access through the region `base` of `fn`: the check of its
 * last byte. */
static void check_accesses(LLVMValueRef fn, LLVMValueRef base) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMValueRef check = bounds_check();
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef ptr = accessed_address(inst);
      if (!ptr || kn_underlying_object(ptr) != base)
        continue;
      LLVMPositionBuilderBefore(b, inst);
      LLVMTypeRef accessed = LLVMIsAStoreInst(inst) ? LLVMTypeOf(LLVMGetOperand(inst, 0))
                             : LLVMIsAAtomicCmpXchgInst(inst) ? LLVMTypeOf(LLVMGetOperand(inst, 1))
                                                              : LLVMTypeOf(inst);
      /* A generic pointer into the region: its offset is the shared one's. */
      LLVMValueRef shared = LLVMTypeOf(ptr) == LLVMTypeOf(base) ? ptr : LLVMBuildAddrSpaceCast(b, ptr, LLVMTypeOf(base), "");
      LLVMValueRef offset = LLVMBuildSub(b, LLVMBuildPtrToInt(b, shared, i64, ""), LLVMBuildPtrToInt(b, base, i64, ""), "");
      LLVMValueRef end = LLVMBuildAdd(
          b, offset, LLVMConstInt(i64, LLVMStoreSizeOfType(kn_module.layout, accessed), 0), "dynamic_shared.end");
      LLVMBuildCall2(b, LLVMGlobalGetValueType(check), check, &end, 1, "");
    }
  LLVMDisposeBuilder(b);
}

LLVMValueRef cuda_request_dynamic_shared(LLVMValueRef fn) {
  if (!module_has_extern_shared())
    return fn;
  char *name = kn_strdup_printf("kinase.dynamic_shared.%s", kn_function_name(fn));
  LLVMValueRef made = LLVMGetNamedFunction(kn_module.mod, name);
  if (!made) {
    LLVMValueRef copy = clone_function(fn, name);
    rule_inline_calls(copy, DEVICE_INLINE_LEVELS);
    made = cuda_dynamic_shared_as_parameter(copy);
    if (made == copy) {
      LLVMDeleteFunction(copy);
      made = NULL;
    } else {
      LLVMSetValueName2(made, name, strlen(name));
      check_accesses(made, LLVMGetParam(made, LLVMCountParams(made) - 1));
    }
  }
  free(name);
  return made ? made : fn;
}
