/* Adds every thread of a block makes into the same addresses, at the end of
 * a reverse kernel: the adjoints of a launch's by-value floats (the alpha
 * of y = alpha * x + y), of a struct parameter's float fields.
 *
 * One atomic per warp still sends every warp of the grid to one address,
 * where the adds are served one after another (2^24 threads: half a million
 * of them). Summed per block first, through shared memory, the grid sends
 * one per block. Every thread of the block arrives where these adds are
 * made (the end of the kernel, reached by all of them, or by none where the
 * launch only counts its tape), so the block may wait at a barrier there;
 * the values are summed in float for 16-bit types (a half sum grown one
 * share at a time loses the shares smaller than its last bit) and in their
 * own type otherwise. */
#include "kinase.h"

#include <stdio.h>
#include <stdlib.h>

static LLVMContextRef ctx(void) { return kn_module.ctx; }
static LLVMTypeRef i32(void) { return LLVMInt32TypeInContext(ctx()); }
static LLVMValueRef const32(unsigned v) { return LLVMConstInt(i32(), v, 0); }

static LLVMValueRef sreg(LLVMBuilderRef b, const char *name) {
  char full[48];
  snprintf(full, sizeof full, "llvm.nvvm.read.ptx.sreg.%s", name);
  return kn_call_libc(b, full, i32(), NULL, 0);
}

/* barrier.sync without .aligned: threads may come to it from different
 * paths (the first thread clearing, whole warps and partial ones). */
static void block_barrier(LLVMBuilderRef b) {
  LLVMValueRef id = const32(0);
  kn_call_libc(b, "llvm.nvvm.barrier.cta.sync.all", LLVMVoidTypeInContext(ctx()), &id, 1);
}

static bool is_narrow(LLVMTypeRef type) {
  return LLVMGetTypeKind(type) == LLVMHalfTypeKind || LLVMGetTypeKind(type) == LLVMBFloatTypeKind;
}

static LLVMTypeRef sum_type(LLVMTypeRef type) { return is_narrow(type) ? LLVMFloatTypeInContext(ctx()) : type; }

/* The block's partial sums: n slots of shared memory, one per address. */
static LLVMValueRef block_slots(LLVMValueRef *values, unsigned n) {
  LLVMTypeRef widest = sum_type(LLVMTypeOf(values[0]));
  for (unsigned k = 1; k < n; k++)
    if (LLVMGetTypeKind(sum_type(LLVMTypeOf(values[k]))) == LLVMDoubleTypeKind)
      widest = LLVMDoubleTypeInContext(ctx());
  LLVMValueRef slots = LLVMAddGlobalInAddressSpace(kn_module.mod, LLVMArrayType2(widest, n), "__kinase_block_sums",
                                                   KN_SHARED_ADDRESS_SPACE);
  LLVMSetLinkage(slots, LLVMInternalLinkage);
  LLVMSetInitializer(slots, LLVMGetUndef(LLVMArrayType2(widest, n)));
  LLVMSetAlignment(slots, 8);
  return slots;
}

static LLVMValueRef slot(LLVMBuilderRef b, LLVMValueRef slots, unsigned k) {
  LLVMValueRef index[2] = {const32(0), const32(k)};
  return LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(slots), slots, index, 2, "");
}

/* Adds v into the slot, in the slot's type. */
static void add_to_slot(LLVMBuilderRef b, LLVMValueRef slots, unsigned k, LLVMValueRef v) {
  LLVMTypeRef type = LLVMGetElementType(LLVMGlobalGetValueType(slots));
  LLVMValueRef wide = LLVMTypeOf(v) == type ? v : LLVMBuildFPExt(b, v, type, "");
  LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd, slot(b, slots, k), wide, LLVMAtomicOrderingMonotonic, 0);
}

static LLVMValueRef linear_thread(LLVMBuilderRef b) {
  LLVMValueRef plane = LLVMBuildAdd(b, sreg(b, "tid.y"), LLVMBuildMul(b, sreg(b, "ntid.y"), sreg(b, "tid.z"), ""), "");
  return LLVMBuildAdd(b, sreg(b, "tid.x"), LLVMBuildMul(b, sreg(b, "ntid.x"), plane, ""), "thread");
}

/* Whether this warp has 32 threads: the block's threads from the warp's
 * first one on (warps are runs of 32 of the linear thread index, x fastest)
 * number 32 or more. */
static LLVMValueRef warp_has_all_lanes(LLVMBuilderRef b, LLVMValueRef thread) {
  LLVMValueRef threads = LLVMBuildMul(b, LLVMBuildMul(b, sreg(b, "ntid.x"), sreg(b, "ntid.y"), ""), sreg(b, "ntid.z"), "");
  LLVMValueRef first = LLVMBuildSub(b, thread, cuda_lane_id(b), "");
  return LLVMBuildICmp(b, LLVMIntUGE, LLVMBuildSub(b, threads, first, ""), const32(32), "warp.full");
}

void cuda_add_uniform(LLVMBuilderRef b, LLVMValueRef *addresses, LLVMValueRef *values, unsigned n) {
  if (!n)
    return;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef clear = LLVMAppendBasicBlockInContext(ctx(), fn, "block.clear");
  LLVMBasicBlockRef cleared = LLVMAppendBasicBlockInContext(ctx(), fn, "block.cleared");
  LLVMBasicBlockRef full = LLVMAppendBasicBlockInContext(ctx(), fn, "warp.full");
  LLVMBasicBlockRef leader = LLVMAppendBasicBlockInContext(ctx(), fn, "warp.leader");
  LLVMBasicBlockRef lanes = LLVMAppendBasicBlockInContext(ctx(), fn, "warp.lanes");
  LLVMBasicBlockRef summed = LLVMAppendBasicBlockInContext(ctx(), fn, "block.summed");
  LLVMBasicBlockRef first = LLVMAppendBasicBlockInContext(ctx(), fn, "block.first");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx(), fn, "block.added");
  LLVMValueRef slots = block_slots(values, n);
  LLVMValueRef thread = linear_thread(b);
  LLVMValueRef is_first = LLVMBuildICmp(b, LLVMIntEQ, thread, const32(0), "");
  LLVMTypeRef slot_type = LLVMGetElementType(LLVMGlobalGetValueType(slots));

  /* Shared memory starts undefined: the first thread clears the slots. */
  LLVMBuildCondBr(b, is_first, clear, cleared);
  LLVMPositionBuilderAtEnd(b, clear);
  for (unsigned k = 0; k < n; k++)
    LLVMBuildStore(b, LLVMConstNull(slot_type), slot(b, slots, k));
  LLVMBuildBr(b, cleared);
  LLVMPositionBuilderAtEnd(b, cleared);
  block_barrier(b);
  LLVMBuildCondBr(b, warp_has_all_lanes(b, thread), full, lanes);

  /* A whole warp sums each value across its lanes, and its first lane adds
   * the totals into the slots; code built without optimisation need not
   * have converged. */
  LLVMPositionBuilderAtEnd(b, full);
  LLVMValueRef all = const32(0xffffffffu);
  kn_call_libc(b, "llvm.nvvm.bar.warp.sync", LLVMVoidTypeInContext(ctx()), &all, 1);
  LLVMValueRef *totals = malloc(n * sizeof *totals);
  for (unsigned k = 0; k < n; k++) {
    LLVMTypeRef type = sum_type(LLVMTypeOf(values[k]));
    LLVMValueRef wide = type == LLVMTypeOf(values[k]) ? values[k] : LLVMBuildFPExt(b, values[k], type, "");
    totals[k] = cuda_warp_sum(b, all, wide);
  }
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, cuda_lane_id(b), const32(0), ""), leader, summed);
  LLVMPositionBuilderAtEnd(b, leader);
  for (unsigned k = 0; k < n; k++)
    add_to_slot(b, slots, k, totals[k]);
  LLVMBuildBr(b, summed);
  free(totals);

  LLVMPositionBuilderAtEnd(b, lanes);
  for (unsigned k = 0; k < n; k++)
    add_to_slot(b, slots, k, values[k]);
  LLVMBuildBr(b, summed);

  /* The block's totals, one atomic add each into global memory. */
  LLVMPositionBuilderAtEnd(b, summed);
  block_barrier(b);
  LLVMBuildCondBr(b, is_first, first, done);
  LLVMPositionBuilderAtEnd(b, first);
  for (unsigned k = 0; k < n; k++) {
    LLVMTypeRef type = LLVMTypeOf(values[k]);
    LLVMValueRef total = LLVMBuildLoad2(b, slot_type, slot(b, slots, k), "block.total");
    if (LLVMTypeOf(total) != type)
      total = LLVMBuildFPTrunc(b, total, type, "");
    LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd, addresses[k], total, LLVMAtomicOrderingMonotonic, 0);
  }
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
}
