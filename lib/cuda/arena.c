/* Tapes of derivative kernels in a buffer the runtime allocates per launch,
 * not on the device heap.
 *
 * A reverse kernel re-runs its kernel's forward part, then its reverse
 * sweep, in each thread. A loop there whose values cannot be recomputed
 * (a recurrence in registers, memory the loop overwrites) records them in a
 * vector that grows with the loop (reverse/tape.c). On the device heap
 * (8 MB unless raised) that stops launches of a few thousand threads, so a
 * reverse kernel takes a tape arena as its last parameter
 * (runtime/kinase_cuda.h: KinaseTapeArena): the vectors grow by bumping one
 * offset in it, atomically. How much a launch needs is not known before it
 * runs: the runtime first launches the kernel counting (capacity 0), where
 * each thread runs only the forward part, adding what its vectors would
 * take and writing its records into a sink, then allocates that much and
 * launches it again. Outside an arena (device-side requests, a null arena)
 * and when an arena runs out, vectors grow on the device heap. Either way a
 * vector's first records are in the tape, in local memory (reverse/tape.c). 
 *
 * Every function of the module reaches the launch's arena through one
 * __shared__ pointer each kernel sets at its start: each thread stores the
 * same value, so no barrier is needed before a thread reads its own. */
#include "kinase.h"
#include "../../runtime/kinase_cuda.h"

#include <stddef.h>
#include <string.h>

static LLVMContextRef ctx(void) { return kn_module.ctx; }
static LLVMTypeRef ptr(void) { return LLVMPointerTypeInContext(ctx(), 0); }
static LLVMTypeRef i64(void) { return LLVMInt64TypeInContext(ctx()); }
static LLVMTypeRef i8(void) { return LLVMInt8TypeInContext(ctx()); }
static LLVMValueRef const64(uint64_t v) { return LLVMConstInt(i64(), v, 0); }

static const char *const arena_name = "kinase.tape.arena";

static LLVMValueRef arena_global(void) {
  LLVMValueRef g = LLVMGetNamedGlobal(kn_module.mod, arena_name);
  if (g)
    return g;
  g = LLVMAddGlobalInAddressSpace(kn_module.mod, ptr(), arena_name, KN_SHARED_ADDRESS_SPACE);
  LLVMSetInitializer(g, LLVMGetUndef(ptr()));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 8);
  return g;
}

static LLVMValueRef load_arena(LLVMBuilderRef b) {
  return LLVMBuildLoad2(b, ptr(), arena_global(), "arena");
}

static LLVMValueRef field(LLVMBuilderRef b, LLVMValueRef arena, size_t offset) {
  LLVMValueRef at = const64(offset);
  return LLVMBuildGEP2(b, i8(), arena, &at, 1, "");
}

static LLVMValueRef capacity(LLVMBuilderRef b, LLVMValueRef arena) {
  return LLVMBuildLoad2(b, i64(), field(b, arena, offsetof(KinaseTapeArena, capacity)), "capacity");
}

static LLVMValueRef sink(LLVMBuilderRef b, LLVMValueRef arena) {
  return field(b, arena, offsetof(KinaseTapeArena, sink));
}

static LLVMBasicBlockRef block(LLVMValueRef fn, const char *name) {
  return LLVMAppendBasicBlockInContext(ctx(), fn, name);
}

/* kinase.tape.release(p): frees what the heap gave, leaves what the arena
 * gave (the arena is freed whole, after the launch) and a vector's first
 * records, in the tape in the thread's local memory (reverse/tape.c). */
static LLVMValueRef release_function(void) {
  const char *name = "kinase.tape.release";
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(ctx()), (LLVMTypeRef[]){ptr()}, 1, 0);
  fn = LLVMAddFunction(kn_module.mod, name, type);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMValueRef p = LLVMGetParam(fn, 0);
  LLVMBasicBlockRef entry = block(fn, "entry"), in_arena = block(fn, "in_arena"),
                    heap = block(fn, "heap"), done = block(fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMBasicBlockRef not_local = block(fn, "not_local");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef local = kn_call_libc(b, "llvm.nvvm.isspacep.local", LLVMInt1TypeInContext(ctx()), &p, 1);
  LLVMBuildCondBr(b, local, done, not_local);
  LLVMPositionBuilderAtEnd(b, not_local);
  LLVMValueRef arena = load_arena(b);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, arena, ""), heap, in_arena);
  LLVMPositionBuilderAtEnd(b, in_arena);
  LLVMValueRef start = LLVMBuildPtrToInt(b, arena, i64(), "");
  LLVMValueRef end = LLVMBuildAdd(b, start, LLVMBuildAdd(b, capacity(b, arena),
                                                         const64(sizeof(KinaseTapeArena)), ""), "");
  LLVMValueRef at = LLVMBuildPtrToInt(b, p, i64(), "");
  LLVMValueRef inside = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, at, start, ""),
                                     LLVMBuildICmp(b, LLVMIntULT, at, end, ""), "");
  LLVMBuildCondBr(b, inside, done, heap);
  LLVMPositionBuilderAtEnd(b, heap);
  kn_call_free(b, p);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

void cuda_tape_release(LLVMBuilderRef b, LLVMValueRef p) {
  LLVMValueRef fn = release_function();
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &p, 1, "");
}

static LLVMTypeRef i32(void) { return LLVMInt32TypeInContext(ctx()); }
static LLVMValueRef const32(uint32_t v) { return LLVMConstInt(i32(), v, 0); }

/* The lanes growing their vectors together (every lane of a converged
 * warp, in a loop all run the same number of times), by the same amount. */
typedef struct {
  LLVMValueRef peers, leader, lane, rank, members; /* i32 */
} Group;

static Group group_of(LLVMBuilderRef b, LLVMValueRef bytes) {
  Group g;
  LLVMValueRef mask = kn_call_libc(b, "llvm.nvvm.activemask", i32(), NULL, 0);
  g.peers = kn_call_libc(b, "llvm.nvvm.match.any.sync.i64", i32(), (LLVMValueRef[]){mask, bytes}, 2);
  g.leader = kn_call_libc(b, "llvm.cttz.i32", i32(),
                       (LLVMValueRef[]){g.peers, LLVMConstInt(LLVMInt1TypeInContext(ctx()), 0, 0)}, 2);
  g.lane = kn_call_libc(b, "llvm.nvvm.read.ptx.sreg.laneid", i32(), NULL, 0);
  LLVMValueRef below = kn_call_libc(b, "llvm.nvvm.read.ptx.sreg.lanemask.lt", i32(), NULL, 0);
  LLVMValueRef before_me = LLVMBuildAnd(b, g.peers, below, "");
  g.rank = kn_call_libc(b, "llvm.ctpop.i32", i32(), &before_me, 1);
  g.members = kn_call_libc(b, "llvm.ctpop.i32", i32(), &g.peers, 1);
  return g;
}

/* Where the group's `total` bytes start in the arena: one atomic add on the
 * arena's offset per group, not per lane (2^20 threads adding one by one to
 * one address wait on each other for milliseconds). */
static LLVMValueRef bump(LLVMBuilderRef b, LLVMValueRef arena, const Group *g, LLVMValueRef total) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b), lead = block(fn, "lead"), share = block(fn, "share");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, g->lane, g->leader, ""), lead, share);
  LLVMPositionBuilderAtEnd(b, lead);
  LLVMValueRef taken = LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, field(b, arena, offsetof(KinaseTapeArena, used)),
                                          total, LLVMAtomicOrderingMonotonic, 0);
  LLVMBuildBr(b, share);
  LLVMPositionBuilderAtEnd(b, share);
  LLVMValueRef start = LLVMBuildPhi(b, i64(), "group_start");
  LLVMAddIncoming(start, (LLVMValueRef[]){const64(0), taken}, (LLVMBasicBlockRef[]){from, lead}, 2);
  LLVMValueRef halves[2] = {LLVMBuildTrunc(b, start, i32(), ""),
                            LLVMBuildTrunc(b, LLVMBuildLShr(b, start, const64(32), ""), i32(), "")};
  for (int h = 0; h < 2; h++)
    halves[h] = LLVMBuildZExt(b,
                              kn_call_libc(b, "llvm.nvvm.shfl.sync.idx.i32", i32(),
                                        (LLVMValueRef[]){g->peers, halves[h], g->leader, const32(31)}, 4),
                              i64(), "");
  return LLVMBuildOr(b, halves[0], LLVMBuildShl(b, halves[1], const64(32), ""), "start");
}

/* Copies `count` records of `size` bytes, `from_stride` apart, to `to_stride`
 * apart. */
static void copy_records(LLVMBuilderRef b, LLVMValueRef to, LLVMValueRef to_stride, LLVMValueRef from,
                         LLVMValueRef from_stride, LLVMValueRef count, LLVMValueRef size) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef before = LLVMGetInsertBlock(b), loop = block(fn, "copy"), done = block(fn, "copied");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, count, const64(0), ""), done, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef k = LLVMBuildPhi(b, i64(), "record");
  LLVMValueRef to_at = LLVMBuildMul(b, k, to_stride, ""), from_at = LLVMBuildMul(b, k, from_stride, "");
  LLVMBuildMemCpy(b, LLVMBuildGEP2(b, i8(), to, &to_at, 1, ""), 1, LLVMBuildGEP2(b, i8(), from, &from_at, 1, ""), 1,
                  size);
  LLVMValueRef next = LLVMBuildAdd(b, k, const64(1), "");
  LLVMAddIncoming(k, (LLVMValueRef[]){const64(0), next}, (LLVMBasicBlockRef[]){before, loop}, 2);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, next, count, ""), done, loop);
  LLVMPositionBuilderAtEnd(b, done);
}

/* Counting, where a lane writes its records: its place in the sink, among
 * those of its warp, in the multiprocessor's part of the sink where each SM
 * can have one (stores of every thread of the grid to one address would
 * wait on each other). */
static LLVMValueRef sink_place(LLVMBuilderRef b, LLVMValueRef arena, LLVMValueRef lane, LLVMValueRef size) {
  LLVMValueRef warp_bytes = LLVMBuildMul(b, size, const64(32), "");
  LLVMValueRef parts = LLVMBuildUDiv(b, const64(sizeof(((KinaseTapeArena *)0)->sink)), warp_bytes, "");
  LLVMValueRef sm = LLVMBuildZExt(b, kn_call_libc(b, "llvm.nvvm.read.ptx.sreg.smid", i32(), NULL, 0), i64(), "");
  LLVMValueRef none = LLVMBuildICmp(b, LLVMIntEQ, parts, const64(0), "");
  LLVMValueRef part = LLVMBuildURem(b, sm, LLVMBuildSelect(b, none, const64(1), parts, ""), "");
  LLVMValueRef place = LLVMBuildAdd(b, LLVMBuildMul(b, part, warp_bytes, ""),
                                    LLVMBuildMul(b, LLVMBuildZExt(b, lane, i64(), ""), size, ""), "");
  place = LLVMBuildSelect(b, none, const64(0), place, "");
  return LLVMBuildGEP2(b, i8(), sink(b, arena), &place, 1, "sink_place");
}

/* kinase.tape.grow(vec, size): room for twice the records plus 16. In an
 * arena the lanes growing together share one block, their records
 * interleaved (record k of the lane ranked r at block + (k * members + r) *
 * size) so that a warp's appends and reads are coalesced. Counting, every
 * record goes to the lane's place in the sink. */
static LLVMValueRef grow_function(void) {
  const char *name = "kinase.tape.grow";
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(ctx()), (LLVMTypeRef[]){ptr(), i64()}, 2, 0);
  fn = LLVMAddFunction(kn_module.mod, name, type);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMValueRef vec = LLVMGetParam(fn, 0), size = LLVMGetParam(fn, 1);
  LLVMBasicBlockRef entry = block(fn, "entry"), in_arena = block(fn, "in_arena"), counting = block(fn, "counting"),
                    check = block(fn, "check"), fits = block(fn, "fits"), heap = block(fn, "heap"),
                    move = block(fn, "move");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef data = LLVMBuildLoad2(b, ptr(), rev_tape_vector_field(b, vec, TAPE_VECTOR_DATA), "data");
  LLVMValueRef count = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_COUNT), "count");
  LLVMValueRef cap = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_CAPACITY), "cap");
  LLVMValueRef stride = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_STRIDE), "stride");
  LLVMValueRef new_cap = LLVMBuildAdd(b, LLVMBuildMul(b, cap, const64(2), ""), const64(16), "new_cap");
  LLVMValueRef bytes = LLVMBuildMul(b, new_cap, size, "bytes");
  LLVMBuildStore(b, new_cap, rev_tape_vector_field(b, vec, TAPE_VECTOR_CAPACITY));
  LLVMValueRef arena = load_arena(b);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, arena, ""), heap, in_arena);

  LLVMPositionBuilderAtEnd(b, in_arena);
  LLVMValueRef rounded = LLVMBuildAnd(b, LLVMBuildAdd(b, bytes, const64(15), ""), const64(~(uint64_t)15), "");
  Group g = group_of(b, rounded);
  LLVMValueRef total = LLVMBuildMul(b, rounded, LLVMBuildZExt(b, g.members, i64(), ""), "total");
  LLVMValueRef start = bump(b, arena, &g, total);
  LLVMValueRef arena_cap = capacity(b, arena);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, arena_cap, const64(0), ""), counting, check);

  LLVMPositionBuilderAtEnd(b, counting);
  LLVMBuildStore(b, sink_place(b, arena, g.lane, size), rev_tape_vector_field(b, vec, TAPE_VECTOR_DATA));
  LLVMBuildStore(b, const64(0), rev_tape_vector_field(b, vec, TAPE_VECTOR_STRIDE));
  LLVMBuildRetVoid(b);

  LLVMPositionBuilderAtEnd(b, check);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULE, LLVMBuildAdd(b, start, total, ""), arena_cap, ""), fits, heap);

  LLVMPositionBuilderAtEnd(b, fits);
  LLVMValueRef first = LLVMBuildAdd(b, LLVMBuildAdd(b, start, const64(sizeof(KinaseTapeArena)), ""),
                                    LLVMBuildMul(b, LLVMBuildZExt(b, g.rank, i64(), ""), size, ""), "");
  LLVMValueRef placed = LLVMBuildGEP2(b, i8(), arena, &first, 1, "");
  LLVMValueRef interleaved = LLVMBuildMul(b, LLVMBuildZExt(b, g.members, i64(), ""), size, "");
  LLVMBuildBr(b, move);

  LLVMPositionBuilderAtEnd(b, heap);
  LLVMValueRef on_heap = kn_device_malloc(b, bytes);
  LLVMBuildBr(b, move);

  LLVMPositionBuilderAtEnd(b, move);
  LLVMValueRef grown = LLVMBuildPhi(b, ptr(), "grown"), new_stride = LLVMBuildPhi(b, i64(), "new_stride");
  LLVMAddIncoming(grown, (LLVMValueRef[]){placed, on_heap}, (LLVMBasicBlockRef[]){fits, heap}, 2);
  LLVMAddIncoming(new_stride, (LLVMValueRef[]){interleaved, size}, (LLVMBasicBlockRef[]){fits, heap}, 2);
  copy_records(b, grown, new_stride, data, stride, count, size);
  cuda_tape_release(b, data);
  LLVMBuildStore(b, grown, rev_tape_vector_field(b, vec, TAPE_VECTOR_DATA));
  LLVMBuildStore(b, new_stride, rev_tape_vector_field(b, vec, TAPE_VECTOR_STRIDE));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

void cuda_tape_grow(LLVMBuilderRef b, LLVMValueRef vec, LLVMValueRef size) {
  LLVMValueRef fn = grow_function();
  LLVMValueRef args[2] = {vec, size};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

/* Whether the launch only counts: an arena of capacity 0. */
static LLVMValueRef arena_counting(LLVMBuilderRef b, LLVMValueRef arena) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef given = block(fn, "arena_given"), next = block(fn, "arena_next");
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, arena, ""), next, given);
  LLVMPositionBuilderAtEnd(b, given);
  LLVMValueRef zero = LLVMBuildICmp(b, LLVMIntEQ, capacity(b, arena), const64(0), "");
  LLVMBuildBr(b, next);
  LLVMPositionBuilderAtEnd(b, next);
  LLVMValueRef counting = LLVMBuildPhi(b, LLVMInt1TypeInContext(ctx()), "counting");
  LLVMAddIncoming(counting, (LLVMValueRef[]){LLVMConstInt(LLVMInt1TypeInContext(ctx()), 0, 0), zero},
                  (LLVMBasicBlockRef[]){from, given}, 2);
  return counting;
}

/* Reverse kernels given their arena: cuda_arena_clear_in_kernels leaves them. */
static ValueSet connected;

void cuda_arena_connect(LLVMValueRef kernel, LLVMValueRef gate) {
  LLVMValueRef arena = LLVMGetLastParam(kernel);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(kernel)));
  LLVMBuildStore(b, arena, arena_global());
  LLVMBasicBlockRef counted = LLVMGetSuccessor(gate, 0), reverse = LLVMGetSuccessor(gate, 1);
  LLVMPositionBuilderBefore(b, gate);
  LLVMValueRef counting = arena_counting(b, arena);
  LLVMInstructionEraseFromParent(gate);
  LLVMBuildCondBr(b, counting, counted, reverse);
  LLVMDisposeBuilder(b);
  vset_add(&connected, kernel);
}

/* Functions that read the arena pointer, and those that call them. */
static void add_with_callers(ValueSet *reaching, LLVMValueRef fn) {
  if (!vset_add(reaching, fn))
    return;
  for (LLVMUseRef use = LLVMGetFirstUse(fn); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAInstruction(user))
      add_with_callers(reaching, LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
  }
}

/* Kernels other than reverse kernels that reach the arena have none: their
 * tapes (device-side requests) grow on the heap. */
void cuda_arena_clear_in_kernels(void) {
  LLVMValueRef g = LLVMGetNamedGlobal(kn_module.mod, arena_name);
  if (!g) {
    vset_free(&connected);
    return;
  }
  ValueSet reaching = {0};
  for (LLVMUseRef use = LLVMGetFirstUse(g); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsALoadInst(user))
      add_with_callers(&reaching, LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
  }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn)) {
    if (!vset_has(&reaching, fn) || LLVMGetFunctionCallConv(fn) != LLVMPTXKernelCallConv ||
        vset_has(&connected, fn))
      continue;
    LLVMPositionBuilderBefore(b, kn_first_non_phi(LLVMGetEntryBasicBlock(fn)));
    LLVMBuildStore(b, LLVMConstPointerNull(ptr()), g);
  }
  LLVMDisposeBuilder(b);
  vset_free(&reaching);
  vset_free(&connected);
}
