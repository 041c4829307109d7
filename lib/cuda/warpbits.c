/* Warp shuffles of floats' bits as integers.
 *
 * Cooperative groups shuffle a value that is no arithmetic type (a float2,
 * a user's struct {mean, m2}) by copying it into ints and shuffling those
 * (thread_block_tile::shfl_down, shfl_xor, ...): once simplified, each
 * float goes `bitcast float to i32`, `shfl.sync.MODE.i32`, `bitcast` back.
 * Through the integers its derivative was lost without a word (and the
 * kernel info saw no floats reach the output). The same bits move as the
 * float's own shuffle, which cuda/warp.c transposes: so it becomes that.
 * A double's bits move as two such shuffles of its halves, alike but for
 * the half (cooperative groups; cub's ShuffleUp, ShuffleDown and
 * ShuffleIndex, once asm.c has read their assembly): the pair becomes the
 * double's own shuffle, whose halves the integers then are; instcombine
 * folds their putting back together into the shuffled double. A half
 * shuffled without its partner is an error at the shuffle. Both need the
 * shuffle in the function differentiated: the calls that reach one are
 * inlined.
 *
 * require: for floats, simplified (sroa, instcombine), so that the
 * bitcasts are next to the shuffles; for doubles, sroa only: instcombine
 * loads a double whose only use is its bits as an integer, and the
 * double is then nowhere. */

#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdio.h>
#include <string.h>

static const char *const modes[] = {"idx", "up", "down", "bfly"};

/* The mode (SHUFFLE_IDX, ...) of a call of llvm.nvvm.shfl.sync.MODE.i32,
 * or -1. */
static int integer_shuffle_mode(LLVMValueRef inst) {
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  const char *name = callee ? kn_function_name(callee) : "";
  static const char prefix[] = "llvm.nvvm.shfl.sync.";
  if (strncmp(name, prefix, sizeof prefix - 1))
    return -1;
  for (int k = 0; k < (int)(sizeof modes / sizeof *modes); k++) {
    size_t n = strlen(modes[k]);
    const char *rest = name + sizeof prefix - 1;
    if (!strncmp(rest, modes[k], n) && !strcmp(rest + n, ".i32"))
      return k;
  }
  return -1;
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

static bool is_constant(LLVMValueRef v, unsigned long long c) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == c;
}

static bool is_op(LLVMValueRef v, LLVMOpcode op) { return LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == op; }

/* Whether `put` sets only the low (high) 32 bits of an i64. */
static bool puts_half(LLVMValueRef put, bool high) {
  if (high)
    return is_op(put, LLVMShl) && is_constant(LLVMGetOperand(put, 1), 32);
  return LLVMIsAZExtInst(put) && LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(put, 0))) <= 32;
}

/* The double whose low (high) half those of the i64 `bits` are, seen
 * through the other half's replacement (sroa writes a double's words back
 * one at a time, `or (and (bits of y), keep), put`, so that the second half
 * shuffled is read from the bits with the first already moved), or NULL. */
static LLVMValueRef half_source(LLVMValueRef bits, bool high) {
  const unsigned long long keep = high ? 0xffffffff00000000ull : 0xffffffffull;
  for (;;) {
    LLVMValueRef from = LLVMIsABitCastInst(bits) ? LLVMGetOperand(bits, 0) : NULL;
    if (from && LLVMGetTypeKind(LLVMTypeOf(from)) == LLVMDoubleTypeKind)
      return LLVMIsABitCastInst(from) && LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(from, 0))) == LLVMIntegerTypeKind
                 ? half_source(LLVMGetOperand(from, 0), high)
                 : from;
    if (!is_op(bits, LLVMOr))
      return NULL;
    LLVMValueRef kept = LLVMGetOperand(bits, 0), put = LLVMGetOperand(bits, 1);
    if (!is_op(kept, LLVMAnd)) {
      LLVMValueRef other = kept;
      kept = put;
      put = other;
    }
    if (!is_op(kept, LLVMAnd) || !is_constant(LLVMGetOperand(kept, 1), keep) || !puts_half(put, !high))
      return NULL;
    bits = LLVMGetOperand(kept, 0);
  }
}

/* The double whose bits' low half `v` is (*high false: `trunc (bitcast d
 * to i64)`, lane 0 of `bitcast d to <2 x i32>`) or high half (*high true:
 * the trunc of the bits shifted right by 32, lane 1); NULL otherwise. */
static LLVMValueRef double_half(LLVMValueRef v, bool *high) {
  *high = false;
  if (LLVMIsAExtractElementInst(v) && LLVMIsAConstantInt(LLVMGetOperand(v, 1))) {
    LLVMValueRef pair = LLVMGetOperand(v, 0), from = LLVMIsABitCastInst(pair) ? LLVMGetOperand(pair, 0) : NULL;
    *high = is_constant(LLVMGetOperand(v, 1), 1);
    return from && LLVMGetTypeKind(LLVMTypeOf(from)) == LLVMDoubleTypeKind ? from : NULL;
  }
  if (!LLVMIsATruncInst(v))
    return NULL;
  LLVMValueRef bits = LLVMGetOperand(v, 0);
  /* The high half by either shift: a signed long long shifted too. */
  if ((is_op(bits, LLVMLShr) || is_op(bits, LLVMAShr)) && is_constant(LLVMGetOperand(bits, 1), 32)) {
    *high = true;
    bits = LLVMGetOperand(bits, 0);
  }
  LLVMTypeRef type = LLVMTypeOf(bits);
  return LLVMGetTypeKind(type) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(type) == 64 ? half_source(bits, *high)
                                                                                          : NULL;
}

/* The shuffle among `halves` (stb_ds array; NULL for those taken) that moves
 * the other half of the double `low` shuffles the low half of, the same
 * way in its block, or -1. */
static ptrdiff_t partner(LLVMValueRef low, LLVMValueRef *halves) {
  bool high;
  LLVMValueRef value = double_half(LLVMGetOperand(low, 1), &high);
  for (ptrdiff_t k = 0; k < arrlen(halves); k++) {
    LLVMValueRef h = halves[k];
    bool other_high;
    if (h && double_half(LLVMGetOperand(h, 1), &other_high) == value && other_high &&
        integer_shuffle_mode(h) == integer_shuffle_mode(low) && LLVMGetInstructionParent(h) == LLVMGetInstructionParent(low) &&
        cuda_same_computation(LLVMGetOperand(h, 0), LLVMGetOperand(low, 0)) &&
        cuda_same_computation(LLVMGetOperand(h, 2), LLVMGetOperand(low, 2)) &&
        cuda_same_computation(LLVMGetOperand(h, 3), LLVMGetOperand(low, 3)))
      return k;
  }
  return -1;
}

/* Whether `a` comes before `b` in their block. */
static bool comes_before(LLVMValueRef a, LLVMValueRef b) {
  for (LLVMValueRef inst = a; inst; inst = LLVMGetNextInstruction(inst))
    if (inst == b)
      return true;
  return false;
}

/* The shuffles of a double's low half `low` and high half `high` become
 * the double's shuffle, from which each takes its half. */
static void shuffle_double_whole(LLVMBuilderRef b, LLVMValueRef low, LLVMValueRef high) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx), i64 = LLVMInt64TypeInContext(kn_module.ctx);
  bool is_high;
  LLVMValueRef first = comes_before(low, high) ? low : high;
  LLVMValueRef shuffle = cuda_double_shuffle((unsigned)integer_shuffle_mode(low));
  LLVMValueRef args[4] = {LLVMGetOperand(low, 0), double_half(LLVMGetOperand(low, 1), &is_high),
                          LLVMGetOperand(low, 2), LLVMGetOperand(low, 3)};
  LLVMPositionBuilderBefore(b, first);
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(first));
  LLVMValueRef moved = LLVMBuildCall2(b, LLVMGlobalGetValueType(shuffle), shuffle, args, 4, "");
  LLVMValueRef bits = LLVMBuildBitCast(b, moved, i64, "");
  LLVMReplaceAllUsesWith(low, LLVMBuildTrunc(b, bits, i32, ""));
  LLVMReplaceAllUsesWith(high, LLVMBuildTrunc(b, LLVMBuildLShr(b, bits, LLVMConstInt(i64, 32, 0), ""), i32, ""));
  LLVMInstructionEraseFromParent(low);
  LLVMInstructionEraseFromParent(high);
}

bool warp_double_bit_shuffles(LLVMValueRef fn, LLVMValueRef subject) {
  LLVMValueRef *halves = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      bool high;
      if (integer_shuffle_mode(inst) >= 0 && double_half(LLVMGetOperand(inst, 1), &high))
        arrput(halves, inst);
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; k < arrlen(halves); k++) {
    bool high;
    if (!halves[k] || (double_half(LLVMGetOperand(halves[k], 1), &high), high))
      continue;
    ptrdiff_t other = partner(halves[k], halves);
    if (other >= 0) {
      shuffle_double_whole(b, halves[k], halves[other]);
      halves[k] = halves[other] = NULL;
    }
  }
  bool ok = true;
  for (ptrdiff_t k = 0; ok && k < arrlen(halves); k++)
    if (halves[k]) {
      kn_error(halves[k], subject,
               "it shuffles one 32-bit half of a double's bits without the other half alike, through which "
               "its derivative would be lost: shuffle the double itself (__shfl_down_sync, or the group's "
               "shuffle of it)");
      ok = false;
    }
  LLVMDisposeBuilder(b);
  arrfree(halves);
  return ok;
}

/* Whether `fn`, or a function it calls (depth levels down), shuffles an
 * integer; `seen` keeps each function to one visit. */
static bool reaches_integer_shuffle(LLVMValueRef fn, int depth, ValueSet *seen) {
  if (!vset_add(seen, fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      if (integer_shuffle_mode(inst) >= 0)
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

/* Whether `inst` is a double's shuffle (warp_double_bit_shuffles') whose
 * value is still read as integer bits: halves put back together in a way
 * instcombine did not fold, through which the derivative would be lost. */
static bool double_shuffle_read_as_bits(LLVMValueRef inst) {
  static const char prefix[] = "kinase.shfl.sync.";
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  if (!callee || strncmp(kn_function_name(callee), prefix, sizeof prefix - 1))
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(inst); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsABitCastInst(user) && !kn_is_float_type(LLVMTypeOf(user)))
      return true;
  }
  return false;
}

bool warp_float_bit_shuffles(LLVMValueRef fn, LLVMValueRef subject) {
  LLVMValueRef *calls = NULL;
  bool ok = true;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); ok && bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); ok && inst; inst = LLVMGetNextInstruction(inst)) {
      if (double_shuffle_read_as_bits(inst)) {
        kn_error(inst, subject,
                 "it shuffles a double as its two 32-bit halves and puts them back together in a way Kinase "
                 "cannot follow, through which its derivative would be lost: shuffle the double itself");
        ok = false;
      }
      if (!ok || integer_shuffle_mode(inst) < 0)
        continue;
      LLVMValueRef value = LLVMGetOperand(inst, 1);
      if (float_bits(value)) {
        arrput(calls, inst);
      } else if (part_of_float_bits(value)) {
        kn_error(inst, subject,
                 "it shuffles part of the bits of a float as an integer, through which its derivative would "
                 "be lost: shuffle the value itself (__shfl_down_sync, or the group's shuffle of each field)");
        ok = false;
      }
    }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; ok && k < arrlen(calls); k++) {
    LLVMValueRef call = calls[k];
    char name[48];
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.f32", modes[integer_shuffle_mode(call)]);
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
