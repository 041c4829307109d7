/* Barriers and warp shuffles in device code (rules/warp.def), for the
 * generators.
 *
 * A barrier orders the threads of a block; adjoints they exchange through
 * shared memory travel the other way, so the reverse sweep waits at the
 * mirror image of each barrier.
 *
 * A shuffle y = shfl(v) is linear in v: lane L reads v from lane src(L)
 * when that lane is in its segment ("valid"), else keeps its own v. Its
 * transpose: lane j's adjoint collects dy from every lane that read from
 * j, plus its own dy where its read was not valid:
 *   dv_j = sum { dy_L : valid_L, src(L) = j } + (valid_j ? 0 : dy_j).
 * Up, down and xor move each value to at most one lane, so the transpose
 * is one shuffle the other way (xor: the same way); an indexed shuffle may
 * send one value to many lanes, and its transpose sums over the warp. The
 * validity bits come from PTX's predicated shuffles (shfl.sync ... |p). */
#include "kinase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LLVMContextRef ctx(void) { return kn_module.ctx; }
static LLVMTypeRef i32(void) { return LLVMInt32TypeInContext(ctx()); }
static LLVMValueRef const32(unsigned v) { return LLVMConstInt(i32(), v, 0); }

enum {
  LANE_BITS = 0x1f,    /* PTX's clamp: the lane bound, bits 0-4 */
  WARP_LANES = 32,
};

void cuda_mirror_barrier(LLVMBuilderRef b, LLVMValueRef call, const WarpOp *op, LLVMValueRef *args) {
  LLVMValueRef callee = kn_called_function(call);
  const char *name = op->mirror ? op->mirror : kn_function_name(callee);
  LLVMValueRef mirror = LLVMGetNamedFunction(kn_module.mod, name);
  if (!mirror) {
    /* The mirror takes the leading arguments of the barrier it mirrors. */
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    mirror = LLVMGetIntrinsicDeclaration(kn_module.mod, id, NULL, 0);
  }
  LLVMTypeRef type = LLVMGlobalGetValueType(mirror);
  LLVMBuildCall2(b, type, mirror, args, LLVMCountParamTypes(type), "");
}

void cuda_warp_wait(LLVMBuilderRef b) {
  LLVMValueRef active = kn_call_libc(b, "llvm.nvvm.activemask", i32(), NULL, 0);
  kn_call_libc(b, "llvm.nvvm.bar.warp.sync", LLVMVoidTypeInContext(ctx()), &active, 1);
}

/* ---- shuffles of one value, with their validity ---- */

static const char *const mode_names[] = {"idx", "up", "down", "bfly"};

/* shfl.sync.MODE of a 32-bit value: {value, valid}. */
static LLVMValueRef shuffle32(LLVMBuilderRef b, unsigned mode, LLVMValueRef mask, LLVMValueRef value,
                              LLVMValueRef lane, LLVMValueRef clamp) {
  bool is_float = LLVMGetTypeKind(LLVMTypeOf(value)) == LLVMFloatTypeKind;
  char name[48];
  snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%sp", mode_names[mode], is_float ? "f32" : "i32");
  LLVMTypeRef fields[2] = {LLVMTypeOf(value), LLVMInt1TypeInContext(ctx())};
  LLVMValueRef args[4] = {mask, value, lane, clamp};
  return kn_call_libc(b, name, LLVMStructTypeInContext(ctx(), fields, 2, 0), args, 4);
}

/* The shuffle of an i32, float or double (two 32-bit halves, as CUDA
 * moves it); *valid receives whether this lane's read was in its segment. */
static LLVMValueRef shuffle(LLVMBuilderRef b, unsigned mode, LLVMValueRef mask, LLVMValueRef value,
                            LLVMValueRef lane, LLVMValueRef clamp, LLVMValueRef *valid) {
  LLVMTypeRef type = LLVMTypeOf(value);
  if (LLVMGetTypeKind(type) != LLVMDoubleTypeKind) {
    LLVMValueRef pair = shuffle32(b, mode, mask, value, lane, clamp);
    if (valid)
      *valid = LLVMBuildExtractValue(b, pair, 1, "shfl.valid");
    return LLVMBuildExtractValue(b, pair, 0, "shfl");
  }
  LLVMTypeRef halves_type = LLVMVectorType(i32(), 2);
  LLVMValueRef halves = LLVMBuildBitCast(b, value, halves_type, ""), moved = LLVMGetPoison(halves_type);
  for (unsigned k = 0; k < 2; k++) {
    LLVMValueRef half = LLVMBuildExtractElement(b, halves, const32(k), "");
    LLVMValueRef pair = shuffle32(b, mode, mask, half, lane, clamp);
    if (k == 0 && valid)
      *valid = LLVMBuildExtractValue(b, pair, 1, "shfl.valid");
    moved = LLVMBuildInsertElement(b, moved, LLVMBuildExtractValue(b, pair, 0, ""), const32(k), "");
  }
  return LLVMBuildBitCast(b, moved, type, "shfl");
}

LLVMValueRef cuda_double_shuffle(unsigned mode) {
  char name[32];
  snprintf(name, sizeof name, "kinase.shfl.sync.%s.f64", mode_names[mode]);
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  LLVMTypeRef f64 = LLVMDoubleTypeInContext(ctx()), params[4] = {i32(), f64, i32(), i32()};
  fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(f64, params, 4, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  /* Its shuffles need the lanes together: no call of it may be moved under
   * a branch. */
  unsigned convergent = LLVMGetEnumAttributeKindForName("convergent", 10);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx(), convergent, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx(), fn, "entry"));
  LLVMBuildRet(b, shuffle(b, mode, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), LLVMGetParam(fn, 2),
                          LLVMGetParam(fn, 3), NULL));
  LLVMDisposeBuilder(b);
  return fn;
}

/* PTX's packed clamp of a shuffle: (32 - width) << 8 puts the segment mask
 * in bits 8-12; the lane bound is the segment's first lane for up, its last
 * for the others. */
static LLVMValueRef packed_clamp(LLVMBuilderRef b, const WarpOp *op, LLVMValueRef last) {
  if (!(op->shuffle & SHUFFLE_WIDTH))
    return last;
  LLVMValueRef segment = LLVMBuildShl(b, LLVMBuildSub(b, const32(WARP_LANES), last, ""), const32(8), "");
  unsigned bound = (op->shuffle & SHUFFLE_MODE) == SHUFFLE_UP ? 0 : LANE_BITS;
  return LLVMBuildOr(b, segment, const32(bound), "clamp");
}

/* The same segments, with the lane bound of `mode`. */
static LLVMValueRef clamp_for(LLVMBuilderRef b, LLVMValueRef clamp, unsigned mode) {
  LLVMValueRef segment = LLVMBuildAnd(b, clamp, const32(~(unsigned)LANE_BITS), "");
  return mode == SHUFFLE_UP ? segment : LLVMBuildOr(b, segment, const32(LANE_BITS), "");
}

static LLVMValueRef zero_unless(LLVMBuilderRef b, LLVMValueRef keep, LLVMValueRef v) {
  return LLVMBuildSelect(b, keep, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

LLVMValueRef cuda_lane_id(LLVMBuilderRef b) {
  return kn_call_libc(b, "llvm.nvvm.read.ptx.sreg.laneid", i32(), NULL, 0);
}

static LLVMValueRef is_all_lanes(LLVMValueRef mask) {
  return LLVMIsAConstantInt(mask) && LLVMConstIntGetZExtValue(mask) == 0xffffffffu ? mask : NULL;
}

LLVMValueRef cuda_warp_sum(LLVMBuilderRef b, LLVMValueRef mask, LLVMValueRef v) {
  for (unsigned offset = WARP_LANES / 2; offset; offset /= 2)
    v = LLVMBuildFAdd(b, v, shuffle(b, SHUFFLE_BFLY, mask, v, const32(offset), const32(LANE_BITS), NULL), "");
  return v;
}

/* Sums of n values over a full warp at once: a butterfly step over lane
 * bit `o` halves the lanes holding a partial sum of each value and, while a
 * lane still holds several, also halves those: the lanes with bit o set
 * keep the upper half of the values and send the lower, the others the
 * reverse, so one shuffle advances two values. n values (rounded up to 2^p)
 * take 2^p - 1 + 5 - p shuffles where one sum each took 5n, and value k
 * ends up in the lane whose bits 4, 3, ... spell k's index, most
 * significant first. */
/* p with 2^p >= n: the lane bits that spell a value's index among n. */
static unsigned index_bits(unsigned n) {
  unsigned p = 0;
  while (1u << p < n)
    p++;
  return p;
}

LLVMValueRef cuda_warp_totals(LLVMBuilderRef b, LLVMValueRef *values, unsigned n, LLVMValueRef *index) {
  LLVMValueRef all = const32(0xffffffffu), lane = cuda_lane_id(b);
  unsigned held = 1u << index_bits(n);
  LLVMValueRef partial[WARP_LANES];
  for (unsigned k = 0; k < held; k++)
    partial[k] = k < n ? values[k] : LLVMConstNull(LLVMTypeOf(values[0]));
  *index = const32(0);
  for (unsigned bit = WARP_LANES / 2; bit; bit /= 2) {
    LLVMValueRef upper = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, lane, const32(bit), ""), const32(0), "");
    if (held == 1) {
      partial[0] = LLVMBuildFAdd(b, partial[0], shuffle(b, SHUFFLE_BFLY, all, partial[0], const32(bit), const32(LANE_BITS), NULL), "");
      continue;
    }
    held /= 2;
    for (unsigned k = 0; k < held; k++) {
      LLVMValueRef low = partial[k], high = partial[k + held];
      LLVMValueRef keep = LLVMBuildSelect(b, upper, high, low, ""), send = LLVMBuildSelect(b, upper, low, high, "");
      partial[k] = LLVMBuildFAdd(b, keep, shuffle(b, SHUFFLE_BFLY, all, send, const32(bit), const32(LANE_BITS), NULL), "");
    }
    *index = LLVMBuildOr(b, *index, LLVMBuildSelect(b, upper, const32(held), const32(0), ""), "");
  }
  return partial[0];
}

/* Whether this lane holds a value's total: its bits below the ones that
 * spell the index are 0, and the index names one of the n values. */
LLVMValueRef cuda_holds_total(LLVMBuilderRef b, unsigned n, LLVMValueRef index) {
  unsigned low_bits = LANE_BITS >> index_bits(n);
  LLVMValueRef aligned = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, cuda_lane_id(b), const32(low_bits), ""), const32(0), "");
  return LLVMBuildAnd(b, aligned, LLVMBuildICmp(b, LLVMIntULT, index, const32(n), ""), "holds.total");
}

/* The pointer `p` is a constant offset from: lanes that agree on it agree
 * on p. */
static LLVMValueRef offset_base(LLVMValueRef p) {
  while (LLVMIsAGetElementPtrInst(p)) {
    for (int i = 1; i < LLVMGetNumOperands(p); i++)
      if (!LLVMIsAConstantInt(LLVMGetOperand(p, i)))
        return p;
    p = LLVMGetOperand(p, 0);
  }
  return p;
}

/* Whether a and b compute the same value the same way from the same
 * operands (the reverse sweep computes an address again for each add). */
static bool same_computation(LLVMValueRef a, LLVMValueRef b, int depth) {
  if (a == b)
    return true;
  if (depth > 6 || !LLVMIsAInstruction(a) || !LLVMIsAInstruction(b) ||
      LLVMGetInstructionOpcode(a) != LLVMGetInstructionOpcode(b) || LLVMTypeOf(a) != LLVMTypeOf(b) ||
      LLVMGetNumOperands(a) != LLVMGetNumOperands(b) || LLVMIsACallInst(a) || LLVMIsALoadInst(a) ||
      LLVMIsAPHINode(a) || (LLVMIsAGetElementPtrInst(a) && LLVMGetGEPSourceElementType(a) != LLVMGetGEPSourceElementType(b)))
    return false;
  if (LLVMIsAICmpInst(a) && LLVMGetICmpPredicate(a) != LLVMGetICmpPredicate(b))
    return false;
  for (int i = 0; i < LLVMGetNumOperands(a); i++)
    if (!same_computation(LLVMGetOperand(a, i), LLVMGetOperand(b, i), depth + 1))
      return false;
  return true;
}

/* v as the i64 match.all compares: pointers by address, narrower
 * integers and floats by their bits. */
bool cuda_same_computation(LLVMValueRef a, LLVMValueRef b) { return same_computation(a, b, 0); }

static LLVMValueRef as_i64(LLVMBuilderRef b, LLVMValueRef v) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx()), type = LLVMTypeOf(v);
  if (LLVMGetTypeKind(type) == LLVMPointerTypeKind)
    return LLVMBuildPtrToInt(b, v, i64, "");
  if (LLVMGetTypeKind(type) != LLVMIntegerTypeKind)
    v = LLVMBuildBitCast(b, v, LLVMIntTypeInContext(ctx(), LLVMSizeOfTypeInBits(kn_module.layout, type)), "");
  return LLVMGetIntTypeWidth(LLVMTypeOf(v)) < 64 ? LLVMBuildZExt(b, v, i64, "") : v;
}

LLVMValueRef cuda_lanes_agree(LLVMBuilderRef b, LLVMValueRef *values, unsigned n) {
  LLVMTypeRef fields[2] = {i32(), LLVMInt1TypeInContext(ctx())}; /* {lanes, all equal} */
  LLVMTypeRef result = LLVMStructTypeInContext(ctx(), fields, 2, 0);
  LLVMValueRef same = LLVMConstInt(LLVMInt1TypeInContext(ctx()), 1, 0);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef args[2] = {const32(0xffffffffu), as_i64(b, values[i])};
    LLVMValueRef match = kn_call_libc(b, "llvm.nvvm.match.all.sync.i64p", result, args, 2);
    same = LLVMBuildAnd(b, same, LLVMBuildExtractValue(b, match, 1, ""), "lanes.agree");
  }
  return same;
}

LLVMValueRef cuda_warp_is_whole(LLVMBuilderRef b) {
  LLVMValueRef active = kn_call_libc(b, "llvm.nvvm.activemask", i32(), NULL, 0);
  return LLVMBuildICmp(b, LLVMIntEQ, active, const32(0xffffffffu), "warp.full");
}

LLVMValueRef cuda_warp_any(LLVMBuilderRef b, LLVMValueRef pred) {
  LLVMValueRef args[2] = {const32(0xffffffffu), pred};
  return kn_call_libc(b, "llvm.nvvm.vote.any.sync", LLVMInt1TypeInContext(ctx()), args, 2);
}

void cuda_branch_on_lanes_agreeing(LLVMBuilderRef b, LLVMValueRef *addresses, unsigned n,
                                   LLVMBasicBlockRef agree, LLVMBasicBlockRef disagree) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef converged = LLVMAppendBasicBlockInContext(ctx(), fn, "warp.converged");
  LLVMBuildCondBr(b, cuda_warp_is_whole(b), converged, disagree);
  LLVMPositionBuilderAtEnd(b, converged);
  LLVMValueRef *bases = malloc((n ? n : 1) * sizeof *bases);
  unsigned distinct = 0;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef base = offset_base(addresses[i]);
    bool seen = false;
    for (unsigned k = 0; k < distinct; k++)
      seen |= cuda_same_computation(bases[k], base);
    if (!seen)
      bases[distinct++] = base;
  }
  LLVMBuildCondBr(b, cuda_lanes_agree(b, bases, distinct), agree, disagree);
  free(bases);
}

/* sum { sent_L : source(L) = this lane } over the lanes L in `mask`, one
 * lane at a time: a loop of 32 steps, each broadcasting one lane's source
 * and value. Leaves `b` after the loop. */
static LLVMValueRef gather_sent(LLVMBuilderRef b, LLVMValueRef mask, LLVMValueRef source,
                                LLVMValueRef sent) {
  LLVMBasicBlockRef before = LLVMGetInsertBlock(b);
  LLVMValueRef fn = LLVMGetBasicBlockParent(before);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx(), fn, "shfl.transpose");
  LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(ctx(), fn, "shfl.transposed");
  LLVMValueRef me = cuda_lane_id(b), zero = LLVMConstNull(LLVMTypeOf(sent));
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef k = LLVMBuildPhi(b, i32(), "lane"), sum = LLVMBuildPhi(b, LLVMTypeOf(sent), "sum");
  LLVMValueRef whole_warp = const32(LANE_BITS);
  LLVMValueRef their_source = shuffle(b, SHUFFLE_IDX, mask, source, k, whole_warp, NULL);
  LLVMValueRef their_value = shuffle(b, SHUFFLE_IDX, mask, sent, k, whole_warp, NULL);
  LLVMValueRef in_mask = LLVMBuildTrunc(b, LLVMBuildLShr(b, mask, k, ""), LLVMInt1TypeInContext(ctx()), "");
  LLVMValueRef mine = LLVMBuildAnd(b, in_mask, LLVMBuildICmp(b, LLVMIntEQ, their_source, me, ""), "");
  LLVMValueRef next_sum = LLVMBuildFAdd(b, sum, zero_unless(b, mine, their_value), "");
  LLVMValueRef next_k = LLVMBuildAdd(b, k, const32(1), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, next_k, const32(WARP_LANES), ""), after, loop);
  LLVMAddIncoming(k, (LLVMValueRef[]){const32(0), next_k}, (LLVMBasicBlockRef[]){before, loop}, 2);
  LLVMAddIncoming(sum, (LLVMValueRef[]){zero, next_sum}, (LLVMBasicBlockRef[]){before, loop}, 2);
  LLVMPositionBuilderAtEnd(b, after);
  return next_sum;
}

/* An indexed shuffle's transpose: each lane learns whose value it read
 * (the shuffle of lane ids), then collects what was read from it. */
static LLVMValueRef transpose_indexed(LLVMBuilderRef b, LLVMValueRef mask, LLVMValueRef lane,
                                      LLVMValueRef clamp, LLVMValueRef dy) {
  LLVMValueRef valid;
  LLVMValueRef source = shuffle32(b, SHUFFLE_IDX, mask, cuda_lane_id(b), lane, clamp);
  valid = LLVMBuildExtractValue(b, source, 1, "shfl.valid");
  source = LLVMBuildExtractValue(b, source, 0, "shfl.source");
  LLVMValueRef sent = zero_unless(b, valid, dy), kept = zero_unless(b, LLVMBuildNot(b, valid, ""), dy);
  LLVMValueRef received;
  if (is_all_lanes(mask) && LLVMIsAConstantInt(lane) && LLVMIsAConstantInt(clamp) &&
      (LLVMConstIntGetZExtValue(clamp) & 0x1fff) == LANE_BITS) {
    /* A broadcast from one lane: it receives the sum of the warp. */
    LLVMValueRef owner = const32((unsigned)LLVMConstIntGetZExtValue(lane) & LANE_BITS);
    received = zero_unless(b, LLVMBuildICmp(b, LLVMIntEQ, cuda_lane_id(b), owner, ""), cuda_warp_sum(b, mask, sent));
  } else {
    received = gather_sent(b, mask, source, sent);
  }
  return LLVMBuildFAdd(b, received, kept, "");
}

LLVMValueRef cuda_shuffle_transpose(LLVMBuilderRef b, const WarpOp *op, LLVMValueRef *args, LLVMValueRef dy) {
  LLVMValueRef mask = args[0], lane = args[2], clamp = packed_clamp(b, op, args[3]);
  unsigned mode = op->shuffle & SHUFFLE_MODE;
  if (mode == SHUFFLE_IDX)
    return transpose_indexed(b, mask, lane, clamp, dy);
  LLVMValueRef valid, came_back;
  shuffle(b, mode, mask, dy, lane, clamp, &valid);
  unsigned back = mode == SHUFFLE_DOWN ? SHUFFLE_UP : mode == SHUFFLE_UP ? SHUFFLE_DOWN : SHUFFLE_BFLY;
  LLVMValueRef received = shuffle(b, back, mask, zero_unless(b, valid, dy), lane, clamp_for(b, clamp, back),
                                  &came_back);
  LLVMValueRef kept = zero_unless(b, LLVMBuildNot(b, valid, ""), dy);
  return LLVMBuildFAdd(b, zero_unless(b, came_back, received), kept, "");
}

LLVMValueRef cuda_shuffle_tangent(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef tangent) {
  LLVMValueRef copy = LLVMInstructionClone(call);
  LLVMSetOperand(copy, 1, tangent);
  kn_drop_metadata(copy);
  LLVMInsertIntoBuilderWithName(b, copy, "shfl.tangent");
  return copy;
}
