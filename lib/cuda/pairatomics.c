/* Atomic adds of __half2 and __nv_bfloat162 pairs as the instructions
 * CUDA's atomicAdd uses. The generators read that atomicAdd's assembly as an
 * `atomicrmw fadd` of <2 x half> or <2 x bfloat> (rules/asm.def) and add
 * adjoints and tangents into pair shadows the same way; the NVPTX backend
 * has no such instruction and expands each into a compare-and-swap loop at
 * system scope. Once the module's derivatives are made, each becomes the
 * atom.add.noftz.f16x2 / .bf16x2 that atomicAdd itself is (device scope,
 * relaxed, as atomicAdd), where the target has it: f16x2 from sm_60,
 * bf16x2 from sm_90; older targets keep the loop. */
#include "kinase.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *text;
  unsigned first_sm; /* the oldest target with the instruction */
} PairAdd;

static const PairAdd pair_adds[] = {
    {"atom.add.noftz.f16x2 $0,[$1],$2;", 60},
    {"atom.add.noftz.bf16x2 $0,[$1],$2;", 90},
};

/* The instruction for `rmw`, an atomic add of a pair, or NULL. */
static const PairAdd *pair_add_of(LLVMValueRef rmw) {
  if (!LLVMIsAAtomicRMWInst(rmw) || LLVMGetAtomicRMWBinOp(rmw) != LLVMAtomicRMWBinOpFAdd)
    return NULL;
  LLVMTypeRef t = LLVMTypeOf(rmw);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetVectorSize(t) != 2)
    return NULL;
  switch (LLVMGetTypeKind(LLVMGetElementType(t))) {
  case LLVMHalfTypeKind: return &pair_adds[0];
  case LLVMBFloatTypeKind: return &pair_adds[1];
  default: return NULL;
  }
}

/* The sm number of the "target-cpu" clang gives the module's own functions
 * (sm_90: 90; derivatives have none), 0 where none says. */
static unsigned module_sm(void) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn)) {
    LLVMAttributeRef cpu = LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-cpu", 10);
    unsigned len = 0;
    const char *value = cpu ? LLVMGetStringAttributeValue(cpu, &len) : "";
    if (len > 3 && !strncmp(value, "sm_", 3))
      return (unsigned)strtoul(value + 3, NULL, 10);
  }
  return 0;
}

static void make_native(LLVMBuilderRef b, LLVMValueRef rmw, const PairAdd *add) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), generic = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef params[] = {generic, i32};
  LLVMTypeRef type = LLVMFunctionType(i32, params, 2, false);
  const char *constraints = "=r,l,r,~{memory}";
  LLVMValueRef asm_add = LLVMGetInlineAsm(type, (char *)add->text, strlen(add->text), (char *)constraints,
                                          strlen(constraints), true, false, LLVMInlineAsmDialectATT, false);
  LLVMPositionBuilderBefore(b, rmw);
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(rmw));
  LLVMValueRef args[] = {LLVMBuildAddrSpaceCast(b, LLVMGetOperand(rmw, 0), generic, ""),
                         LLVMBuildBitCast(b, LLVMGetOperand(rmw, 1), i32, "")};
  LLVMValueRef old = LLVMBuildCall2(b, type, asm_add, args, 2, "");
  LLVMReplaceAllUsesWith(rmw, LLVMBuildBitCast(b, old, LLVMTypeOf(rmw), ""));
  LLVMInstructionEraseFromParent(rmw);
}

void cuda_native_pair_atomics(void) {
  unsigned sm = module_sm();
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb), next; inst; inst = next) {
        next = LLVMGetNextInstruction(inst);
        const PairAdd *add = pair_add_of(inst);
        if (add && sm >= add->first_sm)
          make_native(b, inst, add);
      }
  LLVMDisposeBuilder(b);
}
