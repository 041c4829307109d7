/* Reverse mode's internals, shared by the files that generate the pair
 * (reverse.c, whose header comment describes the method, memtypes.c,
 * useful.c, augment.c, primal.c, adjoint.c, tape.c) and included by no
 * other. The state of one generation is the Reverse struct; tiny helpers
 * are static inline here; a function one file defines for another carries
 * the prefix rev_ and is declared here, grouped by file. */
#ifndef KINASE_REVERSE_H
#define KINASE_REVERSE_H

#include "kinase.h"

typedef struct {
  LLVMValueRef load; /* in rev: a load from a placeholder address */
  LLVMValueRef root; /* in aug */
  Reason why;        /* why root is recorded, not recomputed */
} Placeholder;

/* A call of a function of the module, augmented. */
typedef struct {
  LLVMValueRef call;   /* aug: the call of the callee's aug function */
  LLVMValueRef result; /* aug: the primal result, or NULL */
  LLVMValueRef tape;   /* aug: the callee's tape, or NULL */
  LLVMValueRef custom_reverse; /* the user's reverse pass, for a registered gradient */
  Signature sig;
  LLVMValueRef args[KN_MAX_PARAMS]; /* aug: the primal arguments */
} AugCall;

/* An add into shadow memory in device code, held back so that the block's
 * adds of one kind share one run-time check (adjoint.c): of the launch's
 * shape for addresses the thread owns, of the lanes' agreement for
 * addresses the whole warp may share. */
typedef struct {
  LLVMValueRef shadow, value, load; /* rev: where, what; aug: the load it reverses */
} HeldAdd;

/* How what aug owns is released when rev never runs (release.c). */
typedef enum {
  RELEASE_FREE,        /* libc's free */
  RELEASE_CALL,        /* `function`(value): a callee pair's release, a user's tape release */
  RELEASE_CUDA_SHADOW, /* the runtime's shadow free, allocated as `rule`'s call allocates */
  RELEASE_CUDA_LAUNCH, /* a launch's record, discarded by the runtime */
} ReleaseHow;

/* What the augmented sweep allocates and the reverse sweep frees. */
typedef struct {
  LLVMValueRef value; /* aug */
  ReleaseHow how;
  LLVMValueRef function;   /* RELEASE_CALL */
  const struct Rule *rule; /* RELEASE_CUDA_SHADOW */
} Owned;

/* The record of one primal block. */
typedef struct {
  LLVMBasicBlockRef block;
  LLVMValueRef *roots;     /* recorded values, in field order */
  LLVMTypeRef record;      /* struct of the roots' types */
  unsigned tape_field;     /* its field in the tape: the record, or its vector (TapeVectorField) */
  bool once;               /* the block runs at most once a call: the record
                              itself is the tape field */
  unsigned inline_records; /* device code: records its vector holds in the
                              tape itself before it grows (0: none) */
  unsigned inline_field;   /* their array's field in the tape */
  LLVMValueRef counter;    /* rev: i64 slot */
  LLVMValueRef data;       /* rev: ptr slot */
  LLVMValueRef stride;     /* rev: i64 slot */
} BlockRecord;

/* An add into an address the lanes of a warp share, moved to the end of
 * its loop iteration's reverse (loopadds.c). */
typedef struct {
  LLVMValueRef slot;   /* rev: what this lane adds in the iteration (-0.0 when none) */
  LLVMValueRef shadow; /* aug: the address, computed again where the adds are made */
  LLVMValueRef load;   /* aug: the load it reverses */
} LoopAdd;

/* A loop in canonical form with its iteration counter. */
typedef struct {
  Loop *loop;
  LLVMValueRef counter;  /* aug: i64 phi in the header, 0 on entry */
  ValueMap exit_count;   /* aug exit block -> phi of the counter there */
  LLVMValueRef slot;     /* rev: the iteration being reversed */
  LLVMBasicBlockRef rev_entry; /* rev: the one block its reverse is entered from, or NULL */
  ValueMap hoisted;      /* aug value -> rev value computed in rev_entry */
  int reads_shadows;     /* whether its reverse may read shadow memory: -1 not yet known */
  LLVMValueRef *step_leaves; /* aug: values from before it its moved adds' addresses use */
  LoopAdd *adds;         /* rev: adds moved to the end of its iterations */
} CountedLoop;

/* An induction variable of a counted loop: i = phi [init, preheader],
 * [next(i), latch], whose value at iteration k has a closed form. */
typedef enum {
  STEP_ADD,  /* i + c (or - c), c constant or defined before the loop: init + k * c */
  STEP_GEP,  /* a pointer walking an array: init + k elements */
  STEP_SHL,  /* i << m, i * 2^m: init << k*m */
  STEP_LSHR, /* i >> m unsigned, i / 2^m unsigned: init >> k*m */
  STEP_ASHR, /* i >> m signed */
  STEP_SDIV, /* i / 2^m signed, rounding toward zero each time as a whole */
} StepKind;

typedef struct {
  StepKind kind;
  LLVMValueRef init;
  LLVMValueRef next; /* the latch's value */
  long long amount;  /* STEP_ADD: c; shifts: m */
  LLVMValueRef step; /* STEP_ADD: c when it is not a constant */
} Induction;

/* One generation: the pair being filled and what is known about it. */
typedef struct {
  const Signature *sig;
  LLVMValueRef aug, rev;
  LLVMBuilderRef b;        /* positioned in rev */
  LLVMBuilderRef ab;       /* positioned in aug */
  LLVMBasicBlockRef *blocks; /* aug blocks, reverse post-order */
  LLVMBasicBlockRef ret_block; /* the one block that returns */
  ValueSet varied;
  ValueSet useful;         /* values whose adjoint can reach an output */
  ValueSet shadow_code;    /* aug instructions that build shadows, not primal */
  ValueSet stack_on_heap;  /* aug: callocs standing for allocas (see rev_keep_stack_alive) */
  ValueMap object_parent;  /* union-find over underlying objects joined by phis and selects */
  ValueMap copied_as;      /* integer load that copies floats or pointers -> a value of
                              the float type it moves, or the load of its shadow bits */
  ValueMap shadow;         /* aug pointer -> aug shadow pointer */
  ValueMap adjoint;        /* aug value -> rev slot */
  ValueMap reverse_block;  /* aug block -> rev block (as values) */
  ValueMap from;           /* aug block -> aug phi: index of the predecessor */
  ValueMap memo;           /* aug value -> rev value, valid in memo_block */
  LLVMBasicBlockRef memo_block;
  AugCall *calls;
  Cfg *cfg;
  CountedLoop *loops;
  bool memory_frozen;      /* loads of arguments and globals can be repeated */
  LLVMValueRef memory_writer; /* when not: the first write outside, unless !sig->adjacent */
  ValueSet frozen_params;  /* aug parameters whose loads can be repeated (sig->frozen) */
  ValueSet owned_params;   /* aug pointer parameters whose shadow is the thread's (sig->owned) */
  ValueSet byval_params;   /* aug parameters that are structs passed by value: the callee's own */
  HeldAdd *owned_adds;     /* rev: adds to shadows the thread owns, not yet emitted */
  HeldAdd *warp_adds;      /* rev: adds the lanes of a warp may share, not yet emitted */
  LLVMValueRef *held_clears; /* rev: stores of 0 into shadows, not yet placed (clears.c) */
  ptrdiff_t clears_land;   /* the index in blocks whose reverse places them */
  ptrdiff_t reversing;     /* the index in blocks of the block being reversed */
  bool hoisting;           /* values from before a loop may be computed where its reverse starts */
  LLVMValueRef *final_stores; /* aug stores made after the reverse sweep instead (final.c) */
  ValueMap idle_loop_entry; /* aug block of a loop whose reverse does nothing -> its preheader */
  ValueSet unneeded_params; /* aug pointer parameters marked enzyme_dupnoneed */
  ValueSet dropped_writes;  /* those of them whose writes go (core/unneeded.c) */
  /* Integers that are addresses with shadows (CUdeviceptr), decided before
   * the augmented sweep replaces the calls that tell (activity_is_address) */
  ValueSet addresses;
  Placeholder *placeholders;
  BlockRecord *records;
  LLVMValueRef rev_entry, rev_exit; /* blocks (as values) */
  LLVMValueRef aug_tape;   /* aug: the tape pointer */
  UnwindEdge *unwinds;     /* aug: the primal's invokes, calls while generating */
  LLVMValueRef *replaced_launches; /* aug: launch calls the runtime makes instead */
  Owned *owned;            /* what rev frees, released when aug unwinds instead (release.c) */
  bool defers_release;     /* aug: a CUDA free waits for the reverse sweep (cuda_defer_release) */
  bool failed;
} Reverse;

/* What the memory behind p1 and p2 holds, from the loads, stores and GEPs
 * through the same underlying objects: its float element type (NULL if
 * none, or if floats of two types), and whether it holds pointers. */
typedef struct {
  LLVMTypeRef floats;
  bool mixed_floats, pointers, ints;
  bool numbers;  /* integers the code computes with, or declared as integers
                    (a local's type, TBAA), not only moved as raw bits */
  bool declared; /* the types noted before simplification (rev_copy_types):
                    the memory holds no others */
  /* Where the memory holds floats of several types, or floats beside
   * pointers: the one struct it is an array of (qsort moving elements of
   * {float, double, int}), which a copy of whole elements moves field by
   * field; NULL where there is none, or several. */
  LLVMTypeRef record;
} MemoryTypes;

/* Phi adjoints travel along the edge the forward sweep took. */
typedef struct {
  LLVMValueRef phi;
  LLVMValueRef a;
} PhiAdjoint;

static inline void fail(Reverse *r, LLVMValueRef where, const char *fmt, const char *detail) {
  if (!r->failed)
    kn_error(where, r->sig->fn, fmt, detail);
  r->failed = true;
}

static inline LLVMContextRef ctx(void) { return kn_module.ctx; }
static inline LLVMTypeRef i64(void) { return LLVMInt64TypeInContext(ctx()); }
static inline LLVMTypeRef i32(void) { return LLVMInt32TypeInContext(ctx()); }
static inline LLVMTypeRef ptr(void) { return LLVMPointerTypeInContext(ctx(), 0); }
static inline LLVMValueRef const64(unsigned long long v) { return LLVMConstInt(i64(), v, 0); }

static inline bool is_varied(Reverse *r, LLVMValueRef v) { return vset_has(&r->varied, v); }
/* Values with an adjoint: varied and holding floats. */
static inline LLVMValueRef copy_of(Reverse *r, LLVMValueRef v) {
  return vmap_get(&r->copied_as, v);
}

/* The type of v's adjoint: its own, or the float type an integer copy moves. */
static inline LLVMTypeRef adjoint_type(Reverse *r, LLVMValueRef v) {
  LLVMValueRef copy = copy_of(r, v);
  return copy && LLVMIsAConstant(copy) ? LLVMTypeOf(copy) : LLVMTypeOf(v);
}

/* A useful value has an adjoint if it is varied and holds floats, or is an
 * integer copy of floats. A float computed from Const data alone has none,
 * even where it meets a varied one: the partials it would get go nowhere,
 * and reading them would record its operands on the tape. */
static inline bool has_adjoint(Reverse *r, LLVMValueRef v) {
  if (!vset_has(&r->useful, v))
    return false;
  LLVMValueRef copy = copy_of(r, v);
  return copy && LLVMIsAConstant(copy) ? kn_type_has_floats(LLVMTypeOf(copy))
                                       : is_varied(r, v) && kn_type_has_floats(LLVMTypeOf(v));
}

static inline LLVMBasicBlockRef reverse_of(Reverse *r, LLVMBasicBlockRef bb) {
  return LLVMValueAsBasicBlock(vmap_get(&r->reverse_block, LLVMBasicBlockAsValue(bb)));
}

static inline LLVMValueRef zero_byte(void) {
  return LLVMConstInt(LLVMInt8TypeInContext(ctx()), 0, 0);
}

/* The value aug returns, NULL for void. */
static inline LLVMValueRef returned_value(Reverse *r) {
  LLVMValueRef ret = LLVMGetBasicBlockTerminator(r->ret_block);
  return LLVMGetNumOperands(ret) ? LLVMGetOperand(ret, 0) : NULL;
}

/* memtypes.c */
void rev_find_memory_objects(Reverse *r);
void rev_find_integer_copies(Reverse *r);
MemoryTypes rev_memory_types(Reverse *r, LLVMValueRef p1, LLVMValueRef p2);
/* A copy between memory with shadows whose bytes nothing types: moving
 * them as integers would leave their shadows behind, so the function is
 * refused, saying `why`. Not so in the C++ standard library's code, whose
 * copies of this kind sit on paths a program may never take
 * (std::function copies its functor through a char buffer): there the copy
 * (in aug) stops the program if it runs, saying why. */
void rev_refuse_untyped_copy(Reverse *r, LLVMValueRef copy, const char *why);
/* What memcpy `call` moves: its memory's types, or, where simplification
 * left no evidence, the types noted before it (analysis/copytypes.c). */
MemoryTypes rev_copy_types(Reverse *r, LLVMValueRef call);
/* What a realloc moves: what the accesses to its old and new memory show,
 * or else what was noted of the old memory's declaration. */
MemoryTypes rev_realloc_types(Reverse *r, LLVMValueRef call);

/* copyloops.c: functions (src, dst, bytes) over the whole elements of
 * type `element` in bytes. The reverse of a copy: dst's adjoints of the
 * float fields (a float type's, a record's) added into src's and cleared,
 * atomically for memory threads share. */
LLVMValueRef rev_copy_adjoints_function(LLVMTypeRef element, bool atomic);
/* The augmented sweep's part of a copy of records: each pointer field's
 * shadow copied, the float fields' shadows left as they are. */
LLVMValueRef rev_copy_pointer_shadows_function(LLVMTypeRef record);

/* useful.c */
void rev_find_useful(Reverse *r);

/* augment.c */
void rev_keep_stack_alive(Reverse *r);
void rev_augment(Reverse *r);
/* Erases the launch calls the runtime makes in their place (their reverse
 * is built by then). */
void rev_erase_replaced_launches(Reverse *r);
void rev_add_from_index(Reverse *r, LLVMBasicBlockRef bb);
void rev_add_incoming_per_edge(LLVMValueRef phi, LLVMValueRef value, LLVMBasicBlockRef pred);
LLVMValueRef rev_shadow_of(Reverse *r, LLVMValueRef v, LLVMValueRef user);
Signature rev_call_signature(Reverse *r, LLVMValueRef call, LLVMValueRef callee);
unsigned rev_call_args(Reverse *r, LLVMValueRef call, const Signature *sig, LLVMValueRef *primals,
                       LLVMValueRef *args, LLVMValueRef (*value)(Reverse *, LLVMValueRef));
void rev_operands(LLVMValueRef call, LLVMValueRef *out);
AugCall *rev_aug_call_of(Reverse *r, LLVMValueRef call);
LLVMValueRef rev_kept_bytes(LLVMBuilderRef b, LLVMValueRef shadow, LLVMValueRef n);

/* release.c */
/* rev: frees aug's v here, which aug owns until then. */
void rev_free(Reverse *r, LLVMValueRef v);
/* aug's `tape` of a call of `callee`'s pair, handed to its reverse sweep. */
void rev_own_tape(Reverse *r, LLVMValueRef tape, const Signature *callee);
/* aug's `v`, which rev hands on or frees (Owned.how says how else). */
void rev_own(Reverse *r, Owned owned);
/* The body of the pair's release function. */
void rev_build_release(Reverse *r, LLVMTypeRef tape, LLVMValueRef release);
/* Each invoke of aug (an stb array) releases on its way out, and so does
 * each call that throws into aug's caller (to_caller). */
void rev_release_on_unwind(Reverse *r, LLVMValueRef *invokes, LLVMValueRef *to_caller, LLVMValueRef release);

/* primal.c */
void rev_count_loops(Reverse *r);
CountedLoop *rev_counted_loop_with_header(Reverse *r, LLVMBasicBlockRef header);
bool rev_induction_of(CountedLoop *loop, LLVMValueRef phi, Induction *out);
LLVMValueRef rev_iteration_slot(Reverse *r, CountedLoop *loop);
void rev_make_loop_entries(Reverse *r);
/* Puts r->b back where it was in `block`: before its terminator if it has one. */
void rev_resume_in(Reverse *r, LLVMBasicBlockRef block);
bool rev_memory_is_frozen(Reverse *r);
bool rev_recomputable(LLVMValueRef inst);
/* tripcount.c */
LLVMValueRef rev_exit_count(Reverse *r, CountedLoop *loop, LLVMValueRef count);
LLVMValueRef rev_primal(Reverse *r, LLVMValueRef v);

/* loopadds.c: adds a warp shares in a loop, summed once per iteration */
bool rev_move_add_to_iteration_end(Reverse *r, LLVMValueRef shadow, LLVMValueRef a, LLVMValueRef load);
void rev_add_at_iteration_end(Reverse *r, CountedLoop *loop);

/* adjoint.c */
void rev_reverse_instruction(Reverse *r, LLVMValueRef inst, PhiAdjoint **phis);
bool rev_store_has_reverse(Reverse *r, LLVMValueRef store);
void rev_add_adjoint(Reverse *r, LLVMValueRef v, LLVMValueRef delta);
void rev_flush_held_adds(Reverse *r);
/* The adds summed across a whole warp whose lanes agree on their addresses:
 * one shuffle tree per type, one atomic per sum. */
void rev_add_warp_sums(Reverse *r, HeldAdd *adds);
bool rev_may_read_shadows(LLVMValueRef inst);
/* clears.c: device code's clears of shadow memory, placed late */
void rev_hold_clear(Reverse *r, LLVMValueRef clear);
void rev_flush_clears(Reverse *r);
void rev_clears_before(Reverse *r, LLVMValueRef inst);
void rev_clears_at_block_end(Reverse *r, ptrdiff_t k);
void rev_drop_held_clears(Reverse *r);
/* primal.c: the function's own stack or heap allocation */
bool rev_is_local_object(LLVMValueRef base);
/* final.c: stores that end the function, made after the reverse sweep */
bool rev_final_store(Reverse *r, LLVMValueRef inst);
/* A call no other code can see the effects of: pure, a lifetime marker, a
 * thread index, a libm function. */
bool rev_call_is_inert(LLVMValueRef call);
void rev_place_final_stores(Reverse *r);
void rev_drop_final_stores(Reverse *r);
LLVMValueRef rev_add_any(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y);

/* idleloops.c: loops whose reverse does nothing, stepped over */
void rev_find_idle_loops(Reverse *r);
bool rev_block_is_idle(Reverse *r, LLVMBasicBlockRef bb);
/* The reverse block to go to after one whose forward block `pred` preceded. */
LLVMBasicBlockRef rev_reverse_target(Reverse *r, LLVMBasicBlockRef pred);

/* why.c */
typedef enum {
  ACC_PLAIN,  /* no other thread reads it */
  ACC_OWNED,  /* plain in a one-dimensional launch, atomic in others */
  ACC_WARP,   /* summed across the warp where the lanes agree, atomic where not */
  ACC_WARP_LOOP, /* the same once per loop iteration, the lanes' agreement checked once per loop */
  ACC_ATOMIC,
} Accumulation;
void rev_remark_recomputed(Reverse *r, LLVMValueRef load, Reason why);
void rev_remark_recorded(Reverse *r, const Placeholder *p, const char *place);
void rev_remark_accumulation(Reverse *r, LLVMValueRef load, Accumulation how, Reason why);

/* tape.c */
BlockRecord *rev_record_of(Reverse *r, LLVMBasicBlockRef bb);
void rev_erase_dead_code(Reverse *r);
void rev_layout_records(Reverse *r);
LLVMTypeRef rev_tape_type(Reverse *r);
void rev_write_records(Reverse *r, LLVMTypeRef tape);
void rev_read_records(Reverse *r, LLVMTypeRef tape);
void rev_finish_exit(Reverse *r, LLVMTypeRef tape);
void rev_finish_aug_return(Reverse *r);

#endif
