/* Reverse mode: what an exception leaves behind. The augmented sweep
 * allocates memory that only the reverse sweep frees: shadows of
 * allocations and of locals (the CUDA runtime's shadows of cudaMalloc's
 * too), locals moved to the heap, the tape's record vectors, the tape
 * itself, the tapes of the callees' augmented sweeps (a kernel launch's
 * record among them), a registered gradient's tape where the registration
 * names a function to free it; and CUDA frees wait for the reverse sweep.
 * When an exception unwinds through the augmented sweep, the reverse sweep
 * never runs, so each invoke of the augmented sweep gets a landing pad of its
 * own that frees them before the primal's cleanups run, and each call that
 * throws straight into the caller one that frees them and resumes:
 *
 *   - what the blocks that ran to their end allocated is on the tape (the
 *     reverse sweep reads it from there to free it): the pair's release
 *     function, __kinase_free_<f>(tape), walks the records and frees it,
 *     then the record vectors and a heap tape. Records of blocks that never
 *     ran are zero (the tape starts zeroed), and a vector counts only the
 *     executions that ended;
 *   - what the block of the invoke allocated before it is not on the tape
 *     yet: the landing pad frees it directly (it dominates the invoke).
 *
 * A callee's tape is released by the callee's release function, a callee
 * that threw having released its own. Each owned value is noted where the
 * reverse sweep frees it (rev_free, rev_own_tape), so the two cannot
 * disagree about what the augmented sweep owns. */
#include "reverse.h"

#include <stb/stb_ds.h>

void rev_own(Reverse *r, Owned owned) { arrput(r->owned, owned); }

void rev_free(Reverse *r, LLVMValueRef v) {
  kn_call_free(r->b, rev_primal(r, v));
  rev_own(r, (Owned){.value = v, .how = RELEASE_FREE});
}

void rev_own_tape(Reverse *r, LLVMValueRef tape, const Signature *callee) {
  LLVMValueRef release = derive_release(callee);
  if (release)
    rev_own(r, (Owned){.value = tape, .how = RELEASE_CALL, .function = release});
}

static void release_value(Reverse *r, LLVMBuilderRef b, const Owned *owned, LLVMValueRef v) {
  switch (owned->how) {
  case RELEASE_FREE:
    kn_call_free(b, v);
    return;
  case RELEASE_CALL:
    LLVMBuildCall2(b, LLVMGlobalGetValueType(owned->function), owned->function, &v, 1, "");
    return;
  case RELEASE_CUDA_SHADOW:
    /* freeing is synchronous: no stream to order it on */
    cuda_shadow_free(b, owned->rule, v, LLVMConstNull(ptr()), r->sig->fn);
    return;
  case RELEASE_CUDA_LAUNCH:
    cuda_launch_discard(b, v);
    return;
  }
}

/* v as one execution of its block had it, rebuilt from that execution's
 * record at `at`: a value recorded, or pure instructions of the block over
 * recorded values. NULL when it is neither (it is then not released). */
static LLVMValueRef from_record(LLVMBuilderRef b, BlockRecord *record, LLVMValueRef at, LLVMValueRef v,
                                int depth) {
  if (LLVMIsAConstant(v))
    return v;
  for (ptrdiff_t k = 0; k < arrlen(record->roots); k++)
    if (record->roots[k] == v)
      return LLVMBuildLoad2(b, LLVMTypeOf(v), LLVMBuildStructGEP2(b, record->record, at, (unsigned)k, ""), "");
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != record->block || LLVMIsAPHINode(v) ||
      !rev_recomputable(v) || depth > 8)
    return NULL;
  LLVMValueRef operands[8];
  int n = LLVMGetNumOperands(v);
  for (int i = 0; i < n; i++)
    if (i >= 8 || !(operands[i] = from_record(b, record, at, LLVMGetOperand(v, i), depth + 1)))
      return NULL;
  LLVMValueRef clone = LLVMInstructionClone(v);
  for (int i = 0; i < n; i++)
    LLVMSetOperand(clone, (unsigned)i, operands[i]);
  kn_drop_metadata(clone);
  LLVMInsertIntoBuilder(b, clone);
  return clone;
}

static void release_record(Reverse *r, LLVMBuilderRef b, BlockRecord *record, LLVMValueRef at) {
  for (ptrdiff_t i = 0; i < arrlen(r->owned); i++) {
    LLVMValueRef v = r->owned[i].value;
    if (LLVMIsAInstruction(v) && LLVMGetInstructionParent(v) == record->block) {
      LLVMValueRef recorded = from_record(b, record, at, v, 0);
      if (recorded)
        release_value(r, b, &r->owned[i], recorded);
    }
  }
}

/* Each record of a vector (TapeVectorField), then its data. */
static void release_vector(Reverse *r, LLVMBuilderRef b, LLVMValueRef fn, BlockRecord *record,
                           LLVMValueRef vec) {
  LLVMValueRef data = LLVMBuildLoad2(b, ptr(), rev_tape_vector_field(b, vec, TAPE_VECTOR_DATA), "data");
  LLVMValueRef count = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_COUNT), "count");
  LLVMValueRef stride = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_STRIDE), "stride");
  LLVMBasicBlockRef before = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(ctx(), fn, "record");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(ctx(), fn, "release");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx(), fn, "released");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef index = LLVMBuildPhi(b, i64(), "i");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, index, count, ""), body, done);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef offset = LLVMBuildMul(b, index, stride, "");
  release_record(r, b, record, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx()), data, &offset, 1, ""));
  LLVMValueRef next = LLVMBuildAdd(b, index, const64(1), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, head);
  LLVMAddIncoming(index, (LLVMValueRef[]){const64(0), next}, (LLVMBasicBlockRef[]){before, latch}, 2);
  LLVMPositionBuilderAtEnd(b, done);
  kn_call_free(b, data);
}

void rev_build_release(Reverse *r, LLVMTypeRef tape, LLVMValueRef release) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx(), release, "entry");
  LLVMBasicBlockRef walk = LLVMAppendBasicBlockInContext(ctx(), release, "walk");
  LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(ctx(), release, "none");
  LLVMValueRef tape_arg = LLVMGetParam(release, 0);
  LLVMPositionBuilderAtEnd(b, none);
  LLVMBuildRetVoid(b);
  LLVMPositionBuilderAtEnd(b, entry);
  /* a null tape: the pair recorded nothing, or its caller never got that far */
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, tape_arg, ""), none, walk);
  LLVMPositionBuilderAtEnd(b, walk);
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!record->record)
      continue;
    LLVMValueRef field = LLVMBuildStructGEP2(b, tape, tape_arg, record->tape_field, "");
    if (record->once)
      release_record(r, b, record, field);
    else
      release_vector(r, b, release, record, field);
  }
  if (!r->sig->adjacent)
    kn_call_free(b, tape_arg);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

static const Owned *owned_entry(Reverse *r, LLVMValueRef v) {
  for (ptrdiff_t i = 0; i < arrlen(r->owned); i++)
    if (r->owned[i].value == v)
      return &r->owned[i];
  return NULL;
}

/* The block the reattached invokes split `bb` from (its first piece): each
 * piece but the first is the normal destination of the invoke ending the
 * piece before, its only predecessor. */
static LLVMBasicBlockRef previous_piece(LLVMBasicBlockRef bb) {
  LLVMUseRef use = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb));
  if (!use || LLVMGetNextUse(use))
    return NULL;
  LLVMValueRef user = LLVMGetUser(use);
  return LLVMIsAInvokeInst(user) && LLVMGetNormalDest(user) == bb ? LLVMGetInstructionParent(user) : NULL;
}

typedef struct {
  Reverse *r;
  LLVMValueRef release;
} Unwinding;

/* At an invoke's own landing pad: the tape, then what the invoke's block
 * allocated before it, then the CUDA frees the sweep deferred. */
static void release_at_pad(void *data, LLVMBuilderRef b, LLVMValueRef invoke) {
  Unwinding *u = data;
  Reverse *r = u->r;
  if (!LLVMIsNull(r->aug_tape))
    LLVMBuildCall2(b, LLVMGlobalGetValueType(u->release), u->release, &r->aug_tape, 1, "");
  LLVMValueRef from = LLVMGetPreviousInstruction(invoke);
  for (LLVMBasicBlockRef bb = LLVMGetInstructionParent(invoke); bb;) {
    for (LLVMValueRef inst = from; inst; inst = LLVMGetPreviousInstruction(inst)) {
      const Owned *owned = owned_entry(r, inst);
      if (owned)
        release_value(r, b, owned, inst);
    }
    bb = previous_piece(bb);
    from = bb ? LLVMGetBasicBlockTerminator(bb) : NULL; /* its result dominates the invoke */
  }
  /* last: the launches discarded above no longer read what the frees kept */
  if (r->defers_release)
    cuda_release_deferred(b);
}

void rev_release_on_unwind(Reverse *r, LLVMValueRef *invokes, LLVMValueRef *to_caller, LLVMValueRef release) {
  if (LLVMIsNull(r->aug_tape) && !arrlen(r->owned) && !r->defers_release)
    return; /* nothing to release */
  Unwinding u = {r, release};
  unwind_separate_pads(invokes, release_at_pad, &u);
  unwind_pads_to_caller(to_caller, release_at_pad, &u);
}
