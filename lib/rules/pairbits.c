/* The fields of __half2 and __nv_bfloat162 (p.x, p.y, make_half2(a, b), a
 * pair built field by field). The pair is a struct of two 16-bit halves
 * that the headers' assembly reads and writes as one 32-bit integer, so
 * sroa makes the struct that integer and the field accesses integer
 * slicing: trunc and lshr 16 to read a half, zext, shl 16, and, or to write
 * one. No derivative flows through integers. Once the assembly is
 * <2 x half> IR (rules/asm.c), these become lane accesses of the pair
 * (extractelement, insertelement); bits of a pair left in other integer
 * arithmetic are an error, never a derivative dropped. */
#include "kinase.h"

#include <stb/stb_ds.h>

static bool is_lane_type(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind;
}

/* The pair whose bits `v` is (a bitcast of <2 x half> or <2 x bfloat> to
 * i32), or NULL. */
static LLVMValueRef pair_behind(LLVMValueRef v) {
  if (!LLVMIsABitCastInst(v))
    return NULL;
  LLVMTypeRef from = LLVMTypeOf(LLVMGetOperand(v, 0));
  return LLVMGetTypeKind(from) == LLVMVectorTypeKind && LLVMGetVectorSize(from) == 2 &&
                 is_lane_type(LLVMGetElementType(from))
             ? LLVMGetOperand(v, 0)
             : NULL;
}

static bool is_int(LLVMValueRef v, long long value) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetSExtValue(v) == value;
}

/* The two 16-bit lanes of the integer `v` (lane 0 the low half), as i16
 * values, NULL for a lane known to be 0 or undefined; false where `v` is
 * not made of lanes this way. New values are built with `b`. */
static bool lanes_of(LLVMBuilderRef b, LLVMValueRef v, LLVMValueRef lane[2], int depth) {
  lane[0] = lane[1] = NULL;
  if (LLVMIsUndef(v) || is_int(v, 0))
    return true;
  LLVMValueRef pair = pair_behind(v);
  if (pair) {
    LLVMTypeRef i16 = LLVMInt16TypeInContext(kn_module.ctx);
    for (unsigned k = 0; k < 2; k++)
      lane[k] = LLVMBuildBitCast(b, LLVMBuildExtractElement(b, pair, asm_lane_index(k), ""), i16, "");
    return true;
  }
  if (!LLVMIsAInstruction(v) || depth > 8)
    return false;
  LLVMValueRef x = LLVMGetOperand(v, 0), inner[2], other[2];
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMZExt:
    lane[0] = x;
    return LLVMGetIntTypeWidth(LLVMTypeOf(x)) == 16;
  case LLVMShl:
    if (!is_int(LLVMGetOperand(v, 1), 16) || !lanes_of(b, x, inner, depth + 1))
      return false;
    lane[1] = inner[0];
    return true;
  case LLVMAnd: {
    LLVMValueRef mask = LLVMGetOperand(v, 1);
    unsigned keep = is_int(mask, 0xffff) ? 0 : is_int(mask, -65536) ? 1 : 2;
    if (keep == 2 || !lanes_of(b, x, inner, depth + 1))
      return false;
    lane[keep] = inner[keep];
    return true;
  }
  case LLVMOr:
    if (!lanes_of(b, x, inner, depth + 1) || !lanes_of(b, LLVMGetOperand(v, 1), other, depth + 1))
      return false;
    for (unsigned k = 0; k < 2; k++) {
      if (inner[k] && other[k])
        return false;
      lane[k] = inner[k] ? inner[k] : other[k];
    }
    return true;
  default:
    return false;
  }
}

static bool is_slicing(LLVMValueRef inst) {
  switch (LLVMIsAInstruction(inst) ? LLVMGetInstructionOpcode(inst) : LLVMRet) {
  case LLVMTrunc: case LLVMLShr: case LLVMShl: case LLVMAnd: case LLVMOr: case LLVMZExt: return true;
  default: return false;
  }
}

/* A half read out of a pair: trunc of its bits (lane 0), of its bits
 * shifted right by 16 (lane 1). */
static LLVMValueRef read_lane(LLVMBuilderRef b, LLVMValueRef trunc) {
  LLVMValueRef x = LLVMGetOperand(trunc, 0), lanes[2];
  unsigned k = 0;
  if (LLVMIsAInstruction(x) && LLVMGetInstructionOpcode(x) == LLVMLShr && is_int(LLVMGetOperand(x, 1), 16)) {
    x = LLVMGetOperand(x, 0);
    k = 1;
  }
  if (LLVMGetIntTypeWidth(LLVMTypeOf(trunc)) != 16 || LLVMGetIntTypeWidth(LLVMTypeOf(x)) != 32 ||
      !lanes_of(b, x, lanes, 0))
    return NULL;
  return lanes[k] ? lanes[k] : LLVMConstNull(LLVMTypeOf(trunc));
}

/* A pair written field by field and read as a pair (a bitcast to it). */
static LLVMValueRef built_pair(LLVMBuilderRef b, LLVMValueRef cast) {
  LLVMTypeRef t = LLVMTypeOf(cast);
  LLVMValueRef x = LLVMGetOperand(cast, 0), lanes[2];
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetVectorSize(t) != 2 ||
      !is_lane_type(LLVMGetElementType(t)) || !is_slicing(x) || !lanes_of(b, x, lanes, 0))
    return NULL;
  for (unsigned k = 0; k < 2; k++)
    lanes[k] = lanes[k] ? LLVMBuildBitCast(b, lanes[k], LLVMGetElementType(t), "")
                        : LLVMConstNull(LLVMGetElementType(t));
  return asm_pair(b, t, lanes[0], lanes[1]);
}

/* Arithmetic on integers: what the bits of a pair must not meet. */
static bool is_integer_arithmetic(LLVMValueRef inst) {
  return LLVMIsABinaryOperator(inst) || (LLVMIsACastInst(inst) && !LLVMIsABitCastInst(inst));
}

/* Slicing instructions left without users, until none is. */
static void erase_dead_slicing(LLVMValueRef fn) {
  for (bool erased = true; erased;) {
    erased = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb), next; inst; inst = next) {
        next = LLVMGetNextInstruction(inst);
        if (is_slicing(inst) && !LLVMGetFirstUse(inst)) {
          LLVMInstructionEraseFromParent(inst);
          erased = true;
        }
      }
  }
}

/* Rewrites, with `rewrite`, the instructions of `fn` of opcode `op`. */
static void rewrite_all(LLVMValueRef fn, LLVMOpcode op, LLVMValueRef (*rewrite)(LLVMBuilderRef, LLVMValueRef)) {
  LLVMValueRef *found = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (LLVMGetInstructionOpcode(inst) == op)
        arrput(found, inst);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; k < arrlen(found); k++) {
    LLVMPositionBuilderBefore(b, found[k]);
    LLVMValueRef v = rewrite(b, found[k]);
    if (!v)
      continue;
    LLVMReplaceAllUsesWith(found[k], v);
    LLVMInstructionEraseFromParent(found[k]);
  }
  LLVMDisposeBuilder(b);
  arrfree(found);
}

bool pairbits_as_lanes(LLVMValueRef fn, LLVMValueRef subject) {
  rewrite_all(fn, LLVMTrunc, read_lane);
  rewrite_all(fn, LLVMBitCast, built_pair);
  erase_dead_slicing(fn);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (is_integer_arithmetic(inst) && (pair_behind(LLVMGetOperand(inst, 0)) ||
                                          (LLVMGetNumOperands(inst) > 1 && pair_behind(LLVMGetOperand(inst, 1))))) {
        kn_error(inst, subject,
                 "it computes with the bits of a __half2 or __nv_bfloat162 as an integer (other than "
                 "reading or writing .x and .y), through which no derivative flows");
        return false;
      }
  return true;
}
