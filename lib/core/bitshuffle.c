/* Shuffles of a float vector's bits as integers, made shuffles of the
 * floats. SSE2 code moves doubles with integer shuffles: Eigen's
 * vec2d_swizzle1, which its GEMM kernel broadcasts the right-hand side with,
 * is _mm_shuffle_epi32 on a __m128d cast to __m128i, a bitcast to
 * <4 x i32>, a shufflevector and a bitcast back, or a store of the integers
 * into memory that holds the doubles (pbroadcast4 writes through
 * references). Through the integers the floats' adjoints were lost. When
 * every float's lanes move together, in order, the shuffle is one of the
 * floats, and becomes it. */
#include "kinase.h"

#include <stb/stb_ds.h>

/* The vector of `float_type` whose bits `lanes` are: the float vector it
 * was cast from, or the same memory loaded as floats (instcombine folds
 * the cast of a loaded __m128d into the load), made beside the integers'
 * load when `build`; poison stays poison. NULL when `lanes` is none of
 * these, or its k-lane groups are no whole floats. */
static LLVMValueRef float_source(LLVMValueRef lanes, LLVMTypeRef float_type, unsigned k, bool build) {
  if (LLVMIsAPoisonValue(lanes) || LLVMIsAUndefValue(lanes))
    return lanes;
  unsigned count = LLVMGetVectorSize(LLVMTypeOf(lanes));
  if (count % k)
    return NULL;
  if (LLVMIsABitCastInst(lanes)) {
    LLVMTypeRef type = LLVMTypeOf(LLVMGetOperand(lanes, 0));
    bool floats = LLVMGetTypeKind(type) == LLVMVectorTypeKind && LLVMGetElementType(type) == float_type;
    return floats ? LLVMGetOperand(lanes, 0) : NULL;
  }
  if (!LLVMIsALoadInst(lanes) || LLVMGetVolatile(lanes))
    return NULL;
  if (!build)
    return lanes;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(lanes));
  LLVMValueRef load = LLVMBuildLoad2(b, LLVMVectorType(float_type, count / k), LLVMGetOperand(lanes, 0), "");
  LLVMSetAlignment(load, LLVMGetAlignment(lanes));
  LLVMDisposeBuilder(b);
  return load;
}

/* The mask of `shuffle` over groups of `k` lanes, written into `wide`:
 * each group's lanes undefined, or consecutive from a multiple of k. */
static bool widened_mask(LLVMValueRef shuffle, unsigned k, LLVMValueRef *wide) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
  unsigned n = LLVMGetNumMaskElements(shuffle);
  for (unsigned group = 0; group < n / k; group++) {
    int first = LLVMGetMaskValue(shuffle, group * k);
    bool undefined = first == LLVMGetUndefMaskElem();
    for (unsigned t = 1; t < k; t++) {
      int lane = LLVMGetMaskValue(shuffle, group * k + t);
      if (undefined ? lane != LLVMGetUndefMaskElem() : lane != first + (int)t)
        return false;
    }
    if (!undefined && first % (int)k)
      return false;
    wide[group] = undefined ? LLVMGetPoison(i32) : LLVMConstInt(i32, (unsigned)first / k, 0);
  }
  return true;
}

/* The shuffle of `float_type` vectors that `shuffle`, a shuffle of their
 * bits as integer lanes, is, built at `b`; NULL when its lanes do not move
 * whole floats in order or its operands are not floats' bits. */
static LLVMValueRef float_shuffle(LLVMBuilderRef b, LLVMValueRef shuffle, LLVMTypeRef float_type) {
  LLVMTypeRef lane_type = LLVMGetElementType(LLVMTypeOf(shuffle));
  unsigned float_bits = (unsigned)LLVMSizeOfTypeInBits(kn_module.layout, float_type);
  unsigned lane_bits = (unsigned)LLVMSizeOfTypeInBits(kn_module.layout, lane_type);
  unsigned k = lane_bits && float_bits % lane_bits == 0 ? float_bits / lane_bits : 0;
  unsigned n = LLVMGetNumMaskElements(shuffle);
  if (k < 2 || n % k || LLVMGetTypeKind(lane_type) != LLVMIntegerTypeKind)
    return NULL;
  LLVMValueRef *wide = NULL;
  arrsetlen(wide, n / k);
  bool whole = widened_mask(shuffle, k, wide);
  /* Both operands checked before either is loaded as floats. */
  for (unsigned i = 0; whole && i < 2; i++)
    whole = float_source(LLVMGetOperand(shuffle, i), float_type, k, false) != NULL;
  LLVMValueRef sources[2] = {NULL, NULL};
  for (unsigned i = 0; whole && i < 2; i++)
    sources[i] = float_source(LLVMGetOperand(shuffle, i), float_type, k, true);
  LLVMValueRef floats = NULL;
  if (whole && !LLVMIsAPoisonValue(sources[0]) && !LLVMIsAUndefValue(sources[0])) {
    if (LLVMIsAPoisonValue(sources[1]) || LLVMIsAUndefValue(sources[1]))
      sources[1] = LLVMGetPoison(LLVMTypeOf(sources[0]));
    if (LLVMTypeOf(sources[1]) == LLVMTypeOf(sources[0]))
      floats = LLVMBuildShuffleVector(b, sources[0], sources[1], LLVMConstVector(wide, n / k), "");
  }
  arrfree(wide);
  return floats;
}

/* The float element type of a vector `value` is cast from (its bits then
 * being floats'), or NULL. */
static LLVMTypeRef cast_from_floats(LLVMValueRef value) {
  LLVMTypeRef type = LLVMIsABitCastInst(value) ? LLVMTypeOf(LLVMGetOperand(value, 0)) : NULL;
  return type && LLVMGetTypeKind(type) == LLVMVectorTypeKind && kn_is_float_type(LLVMGetElementType(type))
             ? LLVMGetElementType(type)
             : NULL;
}

/* The float element type of the vectors of `bits` bits that the memory at
 * `at` is stored or loaded as in its function, or NULL. */
static LLVMTypeRef memory_floats(LLVMValueRef at, unsigned long long bits) {
  for (LLVMUseRef use = LLVMGetFirstUse(at); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    LLVMTypeRef type = LLVMIsALoadInst(user)                                     ? LLVMTypeOf(user)
                       : LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == at ? LLVMTypeOf(LLVMGetOperand(user, 0))
                                                                                 : NULL;
    if (type && LLVMGetTypeKind(type) == LLVMVectorTypeKind && kn_is_float_type(LLVMGetElementType(type)) &&
        LLVMSizeOfTypeInBits(kn_module.layout, type) == bits)
      return LLVMGetElementType(type);
  }
  return NULL;
}

/* The floats `inst` gives the shuffle its operand 0 is: a bitcast of it to
 * a float vector, or a store of it where the shuffle's operand or the
 * memory says floats. Replaces `inst` and returns true; false otherwise. */
static bool shuffle_floats(LLVMBuilderRef b, LLVMValueRef inst) {
  bool store = LLVMIsAStoreInst(inst);
  if (!store && !LLVMIsABitCastInst(inst))
    return false;
  LLVMValueRef shuffle = LLVMGetOperand(inst, 0);
  if (!LLVMIsAShuffleVectorInst(shuffle))
    return false;
  LLVMTypeRef float_type = NULL;
  if (store) {
    float_type = cast_from_floats(LLVMGetOperand(shuffle, 0));
    if (!float_type)
      float_type = memory_floats(LLVMGetOperand(inst, 1), LLVMSizeOfTypeInBits(kn_module.layout, LLVMTypeOf(shuffle)));
  } else if (LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMVectorTypeKind) {
    float_type = LLVMGetElementType(LLVMTypeOf(inst));
  }
  if (!float_type || !kn_is_float_type(float_type))
    return false;
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef floats = float_shuffle(b, shuffle, float_type);
  if (!floats)
    return false;
  if (store)
    LLVMSetAlignment(LLVMBuildStore(b, floats, LLVMGetOperand(inst, 1)), LLVMGetAlignment(inst));
  else
    LLVMReplaceAllUsesWith(inst, floats);
  LLVMInstructionEraseFromParent(inst);
  if (!LLVMGetFirstUse(shuffle))
    LLVMInstructionEraseFromParent(shuffle);
  return true;
}

void kn_float_shuffles(LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb), next; inst; inst = next) {
      next = LLVMGetNextInstruction(inst);
      shuffle_floats(b, inst);
    }
  LLVMDisposeBuilder(b);
}
