/* Warp shuffles of floats' bits as integers.
 *
 * Cooperative groups shuffle a value that is no arithmetic type (a float2,
 * a user's struct {mean, m2}) by copying it into ints and shuffling those
 * (thread_block_tile::shfl_down, shfl_xor, ...): once simplified, each
 * float goes `bitcast float to i32`, `shfl.sync.MODE.i32`, `bitcast` back.
 * Through the integers its derivative was lost without a word (and the
 * kernel info saw no floats reach the output). The same bits move as the
 * float's own shuffle, which cuda/warp.c transposes: so it becomes that.
 * A double's bits move as two such shuffles of its halves; those are an
 * error at the shuffle, which names what to do. Both need the shuffle in
 * the function differentiated: the calls that reach one are inlined.
 *
 * require: simplified (sroa, instcombine), so that the bitcasts are next
 * to the shuffles. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdio.h>
#include <string.h>

static const char *const modes[] = {"idx", "up", "down", "bfly"};

/* The mode of a call of llvm.nvvm.shfl.sync.MODE.i32, or NULL. */
static const char *integer_shuffle_mode(LLVMValueRef inst) {
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  const char *name = callee ? kn_function_name(callee) : "";
  static const char prefix[] = "llvm.nvvm.shfl.sync.";
  if (strncmp(name, prefix, sizeof prefix - 1))
    return NULL;
  for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
    size_t n = strlen(modes[k]);
    const char *rest = name + sizeof prefix - 1;
    if (!strncmp(rest, modes[k], n) && !strcmp(rest + n, ".i32"))
      return modes[k];
  }
  return NULL;
}

/* The float whose bits `v` is, or NULL. */
static LLVMValueRef float_bits(LLVMValueRef v) {
  return LLVMIsABitCastInst(v) && LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(v, 0))) == LLVMFloatTypeKind
             ? LLVMGetOperand(v, 0)
             : NULL;
}

/* Whether `v` is part of the bits of a wider float (a double's half:
 * a truncation, perhaps of a shift, of its bits). */
static bool part_of_float_bits(LLVMValueRef v) {
  for (int depth = 0; depth < 4 && v; depth++) {
    if (LLVMIsABitCastInst(v))
      return kn_is_float_type(LLVMTypeOf(LLVMGetOperand(v, 0)));
    bool through = LLVMIsATruncInst(v) || (LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == LLVMLShr);
    v = through ? LLVMGetOperand(v, 0) : NULL;
  }
  return false;
}

/* Whether `fn`, or a function it calls (depth levels down), shuffles an
 * integer; `seen` keeps each function to one visit. */
static bool reaches_integer_shuffle(LLVMValueRef fn, int depth, ValueSet *seen) {
  if (!vset_add(seen, fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      if (integer_shuffle_mode(inst))
        return true;
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (depth > 0 && rule_inlinable(callee) && reaches_integer_shuffle(callee, depth - 1, seen))
        return true;
    }
  return false;
}

/* cooperative groups nest their shuffle of a struct about seven calls
 * deep, past DEVICE_INLINE_LEVELS; differentiated as calls, the integers'
 * shuffle moved no adjoint between lanes. */
enum { SHUFFLE_INLINE_DEPTH = 12 };

void warp_inline_integer_shuffles(LLVMValueRef fn) {
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  for (int round = 0; round < SHUFFLE_INLINE_DEPTH; round++) {
    bool any = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
        LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
        ValueSet seen = {0};
        bool reaches = rule_inlinable(callee) && callee != fn &&
                       reaches_integer_shuffle(callee, SHUFFLE_INLINE_DEPTH, &seen);
        vset_free(&seen);
        if (reaches) {
          LLVMAddCallSiteAttribute(inst, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
          any = true;
        }
      }
    if (!any)
      return;
    simplify_inline_marked_calls();
  }
}

/* The users of `bits` that take them back as a float take `value`
 * instead: through the integer the adjoint did not flow back to the
 * shuffle, whose transpose then moved zeros. */
static void float_users_take(LLVMValueRef bits, LLVMValueRef value) {
  LLVMValueRef *casts = NULL;
  for (LLVMUseRef use = LLVMGetFirstUse(bits); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsABitCastInst(user) && LLVMTypeOf(user) == LLVMTypeOf(value))
      arrput(casts, user);
  }
  for (ptrdiff_t k = 0; k < arrlen(casts); k++) {
    LLVMReplaceAllUsesWith(casts[k], value);
    LLVMInstructionEraseFromParent(casts[k]);
  }
  arrfree(casts);
}

bool warp_float_bit_shuffles(LLVMValueRef fn, LLVMValueRef subject) {
  LLVMValueRef *calls = NULL;
  bool ok = true;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); ok && bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); ok && inst; inst = LLVMGetNextInstruction(inst)) {
      if (!integer_shuffle_mode(inst))
        continue;
      LLVMValueRef value = LLVMGetOperand(inst, 1);
      if (float_bits(value)) {
        arrput(calls, inst);
      } else if (part_of_float_bits(value)) {
        kn_error(inst, subject,
                 "it shuffles the bits of a double as two 32-bit integers (a cooperative groups shuffle of a "
                 "struct holding doubles), through which its derivative would be lost: shuffle the double "
                 "itself (__shfl_down_sync, or the group's shuffle of each field)");
        ok = false;
      }
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; ok && k < arrlen(calls); k++) {
    LLVMValueRef call = calls[k];
    char name[48];
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.f32", integer_shuffle_mode(call));
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef shuffle = LLVMGetIntrinsicDeclaration(kn_module.mod, id, NULL, 0);
    LLVMValueRef args[4] = {LLVMGetOperand(call, 0), float_bits(LLVMGetOperand(call, 1)), LLVMGetOperand(call, 2),
                            LLVMGetOperand(call, 3)};
    LLVMPositionBuilderBefore(b, call);
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
    LLVMValueRef moved = LLVMBuildCall2(b, LLVMGlobalGetValueType(shuffle), shuffle, args, 4, "");
    float_users_take(call, moved);
    LLVMReplaceAllUsesWith(call, LLVMBuildBitCast(b, moved, LLVMTypeOf(call), ""));
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
  return ok;
}
