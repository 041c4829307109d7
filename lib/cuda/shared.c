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
