/* Kinase internals: the one header every file of lib/ includes.
 *
 * lib/ has one folder per stage, each using mostly those listed after it
 * (docs/ARCHITECTURE.md lists the exceptions):
 *   abi/      the pass (pass.c), the Enzyme entry points (abi.c) and the
 *             derivative cache (derive.c), the one place that knows both
 *             generators and is called back by them for callees;
 *   forward/, reverse/   the generators;
 *   cuda/     kernels and the host code that launches them;
 *   rules/    the rule tables and the user's registrations;
 *   analysis/ activity, global shadows, devirtualisation, float bits, the
 *             types copies move;
 *   core/     IR utilities, CFG, cloning, simplification, diagnostics.
 * The pass runs once per module (kn_run_on_module). It finds the derivative
 * requests (__enzyme_* calls), turns each into a Signature, and asks the
 * cache for the derivative function, which is generated from a simplified
 * copy of the user's function by the mode's generator with the help of the
 * rule tables. User errors go through core/diag.c; broken internal
 * invariants through kn_die.
 */
#ifndef KINASE_INTERNAL_H
#define KINASE_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- util.c: maps and small helpers ---- */

/* A map from one LLVM value to another (stb_ds hash map underneath). */
typedef struct ValuePair ValuePair;
typedef struct { ValuePair *pairs; } ValueMap;

LLVMValueRef vmap_get(ValueMap *map, LLVMValueRef key);
void vmap_put(ValueMap *map, LLVMValueRef key, LLVMValueRef value);
void vmap_free(ValueMap *map);
size_t vmap_size(ValueMap *map);

/* A set of LLVM values. */
typedef struct ValueSetEntry ValueSetEntry;
typedef struct { ValueSetEntry *entries; } ValueSet;

bool vset_has(ValueSet *set, LLVMValueRef value);
bool vset_add(ValueSet *set, LLVMValueRef value); /* true when newly added */
void vset_remove(ValueSet *set, LLVMValueRef value);
size_t vset_size(ValueSet *set);
void vset_free(ValueSet *set);

_Noreturn void kn_die(const char *fmt, ...);
char *kn_strdup_printf(const char *fmt, ...);
bool kn_env_set(const char *name); /* set, not empty, not "0" */
const char *kn_value_name(LLVMValueRef value); /* never NULL */
bool kn_is_float_type(LLVMTypeRef type);       /* scalar or vector of floats */
bool kn_is_float_or_double(LLVMTypeRef type);  /* a scalar float or double */
bool kn_type_has_floats(LLVMTypeRef type);     /* anywhere inside aggregates too */
/* The name of the type clang's TBAA gives an access ("double", "p1 float"),
 * or NULL; and the type such a name stands for (integers as i64; NULL for
 * names of no scalar Kinase tells apart). */
const char *kn_tbaa_access_name(LLVMValueRef inst);
LLVMTypeRef kn_tbaa_named_type(const char *name);
/* The type a GEP's address points to, from its source type and constant
 * field indices (NULL where a struct's index is not constant). */
LLVMTypeRef kn_gep_field_type(LLVMValueRef gep);
/* The alignment a memcpy's or memset's operand `i` (0 destination, 1
 * source) promises, 1 if none. */
unsigned kn_copy_alignment(LLVMValueRef call, unsigned i);
/* cuda_fp16.h's __half and cuda_bf16.h's __nv_bfloat16 are structs of one
 * 16-bit integer, which hold a half or a bfloat: that type, or NULL for any
 * other type. */
LLVMTypeRef kn_sixteen_bit_float(LLVMTypeRef type);
bool kn_type_has_pointers(LLVMTypeRef type);   /* likewise */
bool kn_is_pointer_type(LLVMTypeRef type);
/* An atomic fadd or fsub (atomicAdd on floats): an accumulation, which the
 * generators differentiate, unlike other atomics. */
bool kn_is_atomic_accumulation(LLVMValueRef inst);
/* An extern __shared__ array: a declaration in shared memory, which the
 * launch sizes (dynamic shared memory). */
bool kn_is_extern_shared(LLVMValueRef v);
bool kn_call_is_pure(LLVMValueRef call);
/* Whether calling `fn` may recurse: it reaches a function that calls itself
 * through its callees, or an indirect call. The stack such code needs has no
 * static size, so a kernel that runs it gets the driver's stack limit. */
bool kn_reaches_recursion(LLVMValueRef fn);
/* Atomics, fences, invoke, callbr: memory effects beyond a plain load or store. */
bool kn_orders_memory(LLVMValueRef inst);
void kn_set_unroll_count(LLVMValueRef branch, unsigned count);
/* An integer as wide as a pointer: it may hold an address (CUdeviceptr). */
bool kn_is_address_integer(LLVMTypeRef type);
/* A call or an invoke: what a function's callees are found through (the
 * copies being differentiated hold calls only, core/unwind.c). */
bool kn_is_call_site(LLVMValueRef v);
LLVMValueRef kn_called_function(LLVMValueRef call); /* NULL if indirect */
const char *kn_function_name(LLVMValueRef fn);
/* A function Kinase made (__kinase_rev_f, kinase.tape.push), not the user's. */
bool kn_is_generated_function(LLVMValueRef fn);
LLVMValueRef kn_strip_casts(LLVMValueRef value);
LLVMValueRef kn_underlying_object(LLVMValueRef ptr); /* through GEPs and casts */
/* The base `p` is a constant byte offset from, through GEPs with constant
 * indices only; false where an index varies. */
bool kn_constant_offset(LLVMValueRef p, LLVMValueRef *base, int64_t *offset);
/* Drops an instruction's metadata (ranges, nonnull, alias scopes): a copy
 * working on shadows or recomputing a value may not meet it. */
void kn_drop_metadata(LLVMValueRef inst);
LLVMValueRef kn_first_non_phi(LLVMBasicBlockRef bb);
/* A NUL-terminated constant holding `text` for generated code (the
 * runtime's messages), one per text in the module. */
LLVMValueRef kn_constant_string(LLVMBuilderRef b, const char *text);
/* A builder at the start of fn's entry block, for allocas. */
LLVMBuilderRef kn_entry_builder(LLVMValueRef fn);
/* The declaration of C function `name`, made nounwind where it is new. */
LLVMValueRef kn_libc_function(const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n);
/* Calls C library or Kinase runtime function `name` (declared on first
 * use, from the arguments' types) from generated code; calloc(1, size) and
 * free(p) for shadows and tapes. */
LLVMValueRef kn_call_libc(LLVMBuilderRef b, const char *name, LLVMTypeRef ret, LLVMValueRef *args,
                          unsigned n);
/* malloc in device code, stopping the kernel with a message when the
 * device heap is exhausted. */
LLVMValueRef kn_device_malloc(LLVMBuilderRef b, LLVMValueRef size);
/* In device code: printf(format, values...) (values points to them, laid
 * out as vprintf reads them, or is null), then a trap; ends the block. */
void kn_device_stop(LLVMBuilderRef b, const char *format, const char *name, LLVMValueRef values);
LLVMValueRef kn_call_calloc(LLVMBuilderRef b, LLVMValueRef size);
/* kn_call_calloc, aligned to `align` bytes (a local's alignment) on the host. */
LLVMValueRef kn_call_calloc_aligned(LLVMBuilderRef b, LLVMValueRef size, unsigned align);
/* Code may pick its path from a local's address (Eigen: scalars up to the
 * first element at a multiple of 16, 32 or 64 bytes, aligned vectors from
 * there), and the local's shadow is accessed on the same path: on the
 * host, a local with a shadow and the shadow start at a multiple of 64
 * bytes, the widest vector's alignment. */
void kn_align_local(LLVMValueRef alloca);
void kn_call_free(LLVMBuilderRef b, LLVMValueRef p);

/* ---- diag.c: user-facing errors ---- */

/* Reports an error located at `where` (an instruction, or NULL for the
 * function itself) while differentiating `subject`, the user's function. */
void kn_error(LLVMValueRef where, LLVMValueRef subject, const char *fmt, ...);
/* Code that stops the program where `b` is, when it runs: "kinase:
 * MESSAGE at FILE:LINE" (its quoted C++ names demangled; the position of
 * `at`, where known) on stderr, then abort; in device code a trap. The
 * block goes on. */
void kn_stop_here(LLVMBuilderRef b, LLVMValueRef at, const char *message);
int kn_error_count(void);
/* Until called again with NULL, errors are not reported: the first one's
 * message goes to *first (if still NULL; the caller frees it). */
void kn_capture_errors(char **first);

/* The source location of an instruction as diagnostics give it (code
 * inlined from a header at the line that called it; a neighbour's where it
 * has none); NULL without debug locations. */
LLVMMetadataRef kn_source_location(LLVMValueRef inst);
/* Whether `location` is in a header (.h, .hpp, .cuh, ...): a library's
 * code, or the user's shared code, rather than the source file. */
bool kn_location_in_header(LLVMMetadataRef location);
/* An error in a header function differentiated as a callee (cub's and
 * thrust's, clang's texture helpers) is reported at the user's call that
 * reaches it: `finder` (abi/derive.c, which knows what is differentiated)
 * gives that call and sets *user to its function, or returns NULL. */
typedef LLVMValueRef (*UserCallFinder)(LLVMValueRef fn, LLVMValueRef *user);
void kn_set_user_call_finder(UserCallFinder finder);

/* ---- remark.c: remarks that say why (-Rpass=kinase, -Rpass-missed=kinase) ---- */

/* What a remark is about, its name in a remark file. Recomputed, plain
 * adds and a thread's own shadow are passed remarks (-Rpass=kinase), what
 * the user wants; recorded, atomic adds and shared shadows missed ones
 * (-Rpass-missed=kinase), what costs, and so are values the derivative
 * takes as constants (a texture fetch), what it loses. */
typedef enum {
  KN_RECOMPUTED,
  KN_RECORDED,
  KN_PLAIN_ADD,
  KN_ATOMIC_ADD,
  KN_OWN_SHADOW,
  KN_SHARED_SHADOW,
  KN_CONSTANT,
} RemarkKind;

/* Why a decision went as it did: a clause and, when `at` (an instruction)
 * is not NULL, one %s in it where `at` is described ("the store at line
 * 12"). */
typedef struct {
  const char *text;
  LLVMValueRef at;
} Reason;

static inline void kn_because(Reason *why, const char *text, LLVMValueRef at) {
  if (why)
    *why = (Reason){text, at};
}

bool kn_remarks_on(RemarkKind kind);
/* A remark at `where` (an instruction; NULL for the function) about the
 * derivative of `subject` being generated (`derivative`: "gradient"). */
void kn_remark(RemarkKind kind, LLVMValueRef where, LLVMValueRef subject, const char *derivative,
               const char *fmt, ...);
/* The reason as a clause (the caller frees it). */
char *kn_reason_text(Reason why);
/* "the store at line 12", "the call of 'g' at line 3" (the caller frees it). */
char *kn_describe_instruction(LLVMValueRef inst);
/* "parameter 2 ('x')", "the global 'g'", "a local variable": where the
 * memory behind a pointer comes from; `sig`, when the pointer is a
 * parameter of its derivative, numbers the user's parameters (the caller
 * frees it). */
typedef struct Signature Signature;
char *kn_describe_object(LLVMValueRef base, const Signature *sig);

/* ---- options (plugin.cpp and the environment) ---- */
bool kn_want_print(void);
bool kn_want_list(void);
bool kn_want_remarks(void); /* -mllvm -kinase-remarks, KINASE_REMARKS (core/remark.c) */

/* ---- the request ---- */

typedef enum { ACT_CONST, ACT_DUP, ACT_DUPNONEED, ACT_OUT } Activity;
typedef enum { MODE_FORWARD, MODE_REVERSE } Mode;

#define KN_MAX_PARAMS 64
/* Batch mode (enzyme_width): at most this many tangents per value. */
#define KN_MAX_WIDTH 64
/* A request's arguments, and a derivative's: each primal followed by the
 * shadows of every lane. */
#define KN_MAX_ARGS 1024

/* A derivative asked for: the key of the derivative cache. */
struct Signature {
  LLVMValueRef fn;
  Mode mode;
  unsigned nparams;
  Activity params[KN_MAX_PARAMS];
  bool ret_tangent; /* forward: return the tangent of the result */
  bool ret_primal;  /* also return the primal result, as {primal, tangent} */
  bool adjacent;    /* reverse: nothing runs between the two sweeps (a request) */
  /* Bit i: nothing writes the memory parameter i points to while the pair
   * runs, not even through another pointer (a derivative kernel's read-only
   * parameters: the runtime copies what a launch also writes), so loads
   * through it are repeated in the reverse sweep, not recorded. */
  unsigned long long frozen;
  /* Bit i: the shadow pointer parameter i points to is the calling
   * thread's alone in a one-dimensional launch (a device-side request whose
   * argument is base + S * gid + c, the function touching no more than
   * those S bytes; cuda/threads.c): adjoints go there without atomics. */
  unsigned long long owned;
  /* Forward mode: how many tangents each value carries (Enzyme's
   * enzyme_width), every dup parameter taking one shadow per lane; 0 and 1
   * both mean one (kn_width). */
  unsigned width;
};

static inline unsigned kn_width(const Signature *sig) { return sig->width > 1 ? sig->width : 1; }

const char *activity_name(Activity activity);

/* ---- the module being compiled ---- */

typedef struct {
  LLVMModuleRef mod;
  LLVMContextRef ctx;
  LLVMTargetDataRef layout;
  bool gpu; /* nvptx device code */
} Module;

extern Module kn_module; /* the module of the current kn_run_on_module */

/* NVPTX's address spaces of __shared__ memory and of a thread's stack. */
enum {
  KN_GLOBAL_ADDRESS_SPACE = 1,
  KN_SHARED_ADDRESS_SPACE = 3,
  KN_CONSTANT_ADDRESS_SPACE = 4,
  KN_LOCAL_ADDRESS_SPACE = 5
};

/* ---- abi.c: reading __enzyme_* calls ---- */

/* What an __enzyme_* call asks for. */
typedef enum {
  REQ_FORWARD,  /* __enzyme_fwddiff: tangents */
  REQ_GRADIENT, /* __enzyme_autodiff: both sweeps at once */
  REQ_AUGMENT,  /* __enzyme_augmentfwd: the forward sweep, keeping a tape */
  REQ_REVERSE,  /* __enzyme_reverse: the reverse sweep, from that tape */
  REQ_BATCH,    /* __enzyme_batch: the function called for W lanes of arguments */
} RequestKind;

/* Lowers one __enzyme_* call; false on user error. */
bool abi_lower_request(LLVMValueRef call, RequestKind kind);
/* Replaces a call of __enzyme_virtualreverse(p) with p (see abi.c). */
void abi_lower_virtualreverse(LLVMValueRef call);
/* Gives each request's tape slot the size of its tape, where the pair is
 * generated: before a function holding requests is copied to be
 * differentiated (a second-order request), and once all are. */
void abi_size_tape_slots(void);
/* Deletes the marker globals the program declared and no request uses now. */
void abi_drop_unused_markers(void);
void abi_reset(void);
/* The calls of reverse sweeps that requests made (a stb_ds array). */
LLVMValueRef *abi_reverse_sweeps(void);
/* Forgets the tape slots of requests in `fn`, which is about to go. */
void abi_drop_tape_slots_in(LLVMValueRef fn);
/* For generated code (CUDA derivative kernels): the two sweeps of `sig`, a
 * function returning void, called with `b` as a request would call them,
 * one after the other; args holds the primals, each followed by its shadow
 * where dup. abi_call_reverse takes the call abi_call_augmented made and
 * returns the call of the reverse sweep (the adjoints of enzyme_out
 * parameters). */
LLVMValueRef abi_call_augmented(LLVMBuilderRef b, Signature *sig, LLVMValueRef *args, unsigned n);
LLVMValueRef abi_call_reverse(LLVMBuilderRef b, Signature *sig, LLVMValueRef *args, unsigned n,
                              LLVMValueRef aug);

/* Whether a request's argument is the marker `name` (a load of the global
 * of that name, or the global). */
bool abi_is_marker(LLVMValueRef arg, const char *name);

/* ---- batch.c: Enzyme's batch mode (enzyme_width) ---- */

/* Whether `arg` is a marker of batch mode (enzyme_width, enzyme_dupv, ...). */
bool batch_is_marker(LLVMValueRef arg);
/* Takes `enzyme_width, W` out of a request's arguments (ops, *n of them,
 * room for KN_MAX_ARGS) and puts each `enzyme_dupv, stride, x, dx` (and
 * enzyme_dupnoneedv) back as enzyme_dup, x and its W shadows, dx + k *
 * stride bytes for lane k, built with `b`. *width is W, or 1 without the
 * marker. False, with the reason in `why`, where they are misused. */
bool batch_read_markers(LLVMBuilderRef b, LLVMValueRef *ops, unsigned *n, unsigned *width, char *why,
                        size_t size);
/* __enzyme_batch: calls `fn` with `b` once per lane, in lane order, the
 * lanes' arguments read from ops (after batch_read_markers), and makes
 * *results the [W x T] of their results (NULL where fn returns void).
 * False, with the reason in `why`, where the arguments do not fit. */
bool batch_call_lanes(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef *ops, unsigned n, unsigned width,
                      LLVMValueRef *results, char *why, size_t size);

/* ---- pieces.c: structures the C ABI passes as several values ---- */

/* How many of `values` (at least 1) are the pieces, in order, of one local
 * structure or array passed by value (clang's eightbytes). */
unsigned abi_pieces(LLVMValueRef *values, unsigned n);
/* The byte offset of the constant GEP chain from `p` down to its local
 * slot (an alloca), or false if some index is not constant or `p` is not
 * in one. */
bool abi_offset_in_slot(LLVMValueRef p, LLVMValueRef *slot, unsigned long long *offset);
/* The type `call` passes its operand `value` in memory as (byval), or NULL. */
LLVMTypeRef abi_byval_operand_type(LLVMValueRef call, LLVMValueRef value);
/* A structure `call` passes in memory (byval), once the registers for its
 * variadic arguments ran out, where `fn` takes it as pieces from parameter
 * `param` on: puts in `pieces` (room for 2) loads of each from that memory,
 * typed as those parameters, and returns how many; 0 where `value` is no
 * such operand. */
unsigned abi_unpack_byval(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef value, LLVMValueRef fn, unsigned param,
                          LLVMValueRef *pieces);
/* Whether a[0..k) and b[0..k) are the same pieces of two local structures. */
bool abi_same_pieces(LLVMValueRef *a, LLVMValueRef *b, unsigned k);
/* The global of an activity marker, declared if the module lacks it (a
 * declaration no instruction uses is not emitted). */
LLVMValueRef abi_marker(const char *name);

/* ---- cxx.c: requests from <enzyme/enzyme> ---- */

typedef enum { RET_ACTIVE, RET_CONST, RET_DUP } ReturnActivity;

/* What a request from the C++ header wants done with its results; each
 * goes through a pointer. */
typedef struct {
  bool grouped; /* the request comes from the header */
  ReturnActivity ret;
  bool primal;  /* the primal result is wanted */
  LLVMValueRef primal_out, tangent_out;
  LLVMValueRef grad_out[KN_MAX_PARAMS]; /* per enzyme_out argument, in order */
  unsigned grad_offset[KN_MAX_PARAMS];  /* a piece of a split class: its offset */
  unsigned ngrad;
  LLVMValueRef context;      /* an enzyme::context's state, NULL without one */
  LLVMValueRef context_swap; /* the header's function moving a global's shadow in or out */
} CxxRequest;

/* Whether the first operand after the function tags a header request. */
bool cxx_is_grouped(LLVMValueRef first_operand);
/* Reads the header's grouped operands `ops` (after the function `fn`) into
 * `cxx` and the C ABI's order into `actual` (room for 3 * KN_MAX_PARAMS);
 * false with a reason in `why` when they have not the header's shape. */
bool cxx_ungroup(LLVMValueRef fn, LLVMValueRef *ops, unsigned n, CxxRequest *cxx,
                 LLVMValueRef *actual, unsigned *nactual, char *why, size_t size);
void cxx_store(LLVMBuilderRef b, LLVMValueRef value, LLVMValueRef where);
/* Stores the gradients of the enzyme_out arguments where they go. */
void cxx_store_gradients(LLVMBuilderRef b, const CxxRequest *cxx, LLVMValueRef grads);

/* ---- inline.c: requests whose function is a parameter ---- */

/* Inlines into their callers the functions (the always_inline templates of
 * <enzyme/enzyme>, a user's wrapper called with a function) holding requests
 * among `calls` whose function is one of their parameters, and deletes
 * those left unused. True if it inlined any:
 * the caller finds the requests again, which may need another round. */
bool inline_request_holders(LLVMValueRef *calls, size_t n);
/* The constant `value` is, through allocas stored once (a parameter passed
 * into an inlined function), or `value` itself. */
LLVMValueRef inline_known_constant(LLVMValueRef value);
/* Gives an inlined request the location of the call the user wrote (the
 * outermost inlined-at), so that its errors point there, not into the
 * header. */
void inline_locate_in_caller(LLVMValueRef call);

/* ---- derive.c: the derivative cache and work list ---- */

/* The derivative function for `sig`, declared now, its body generated by
 * derive_drain. */
LLVMValueRef derive_get(const Signature *sig);
/* The LLVM type of the derivative function for `sig`. */
LLVMTypeRef derive_type(const Signature *sig);
/* Reverse mode: the augmented forward sweep paired with derive_get's
 * reverse sweep, and its type. */
LLVMValueRef derive_aug(const Signature *sig);
LLVMTypeRef derive_aug_type(const Signature *sig);
/* Reverse mode on the host: void(ptr tape), which frees what the pair's
 * tape holds for the reverse sweep to free, when the reverse sweep will not
 * run (an exception unwound through a caller's augmented sweep). */
LLVMValueRef derive_release(const Signature *sig);
/* Whether `fn` is a derivative the cache declared. */
bool derive_is_derivative(LLVMValueRef fn);
/* The function a derivative (fwd, aug, rev or free) is of, or NULL. */
LLVMValueRef derive_primal_of(LLVMValueRef fn);
/* The layout of the tape of `sig`'s reverse-mode pair, known once generated
 * (a request's caller holds the tape: abi.c sizes its slot from it). */
void derive_set_tape_type(const Signature *sig, LLVMTypeRef tape);
LLVMTypeRef derive_tape_type(const Signature *sig);
void derive_drain(void);
void derive_reset(void);

/* ---- variadic.c ---- */

/* On x86-64, makes fn's calls of the module's variadic functions calls of
 * fixed-arity copies, kinase.fixed.NAME, that take the variable arguments
 * laid out in memory, as va_arg reads them. */
void variadic_fix_calls(LLVMValueRef fn);

/* ---- clone.c, simplify.c ---- */

typedef struct UnwindEdge UnwindEdge; /* unwind.c */

/* Copies `fn` into a new internal function named `name`, with the same
 * type; the copy's instructions keep their debug locations. */
LLVMValueRef clone_function(LLVMValueRef fn, const char *name);
/* Moves the body of `from` into the empty function `to`; `args[i]` replaces
 * the i-th parameter of `from`. Deletes `from`. */
void move_body(LLVMValueRef from, LLVMValueRef to, LLVMValueRef *args);
/* Fills the empty `deriv` with a simplified copy of sig->fn. The derivative's
 * parameters are sig->fn's, each followed by its shadow where the signature
 * says dup (its kn_width(sig) shadows, lane by lane); primals[i] and
 * shadows[i] (lane 0's; NULL if none) receive them. Its
 * invokes are calls until the generator reattaches *unwinds (unwind.c).
 * False, with an error reported, when sig->fn holds a construct Kinase
 * refuses. */
bool adopt_simplified_body(const Signature *sig, LLVMValueRef deriv, LLVMValueRef *primals,
                           LLVMValueRef *shadows, UnwindEdge **unwinds);
/* unneeded.c: enzyme_dupnoneed, the primal of `param` is not needed. Its
 * writes go (the caller may pass NULL) unless a read of that memory may
 * see one of them. */
void drop_unneeded_writes(LLVMValueRef param);
/* Whether drop_unneeded_writes(param) would drop every write through it. */
bool unneeded_writes_drop(LLVMValueRef param);
/* Drops the writes through `param`, which unneeded_writes_drop allowed
 * before reads of it were added that expect the memory unwritten (a
 * reverse sweep's reloads). */
void drop_writes(LLVMValueRef param);
void simplify_before(LLVMValueRef fn);
/* simplify_before's halves: locals to registers (sroa), then the rest,
 * whose instruction simplification folds typed addresses into byte offsets
 * (copytypes.c notes what they said in between). */
void simplify_registers(LLVMValueRef fn);
void simplify_control(LLVMValueRef fn);
/* Loops whose trip count is a constant unrolled whole, and sroa again. */
void simplify_constant_loops(LLVMValueRef fn);
/* Inlines, across the module, the call sites marked alwaysinline (a caller
 * marks the ones it wants). */
void simplify_inline_marked_calls(void);
/* splitloads.c: each load through a select between a Const pointer
 * parameter's memory and other memory (one load on two paths in the
 * source, merged by instcombine) becomes a branch with a load on each
 * side. */
void split_loads_choosing_const_memory(const Signature *sig, LLVMValueRef copy);
/* localselect.c: each load through a select (nested too) of whole locals
 * becomes the select of a load of each, which sroa then promotes: true
 * when one did. */
bool local_select_loads(LLVMValueRef fn);
/* cuda/warpbits.c: each warp shuffle of a float's bits as an integer (how
 * cooperative groups shuffle a struct) becomes the float's own shuffle;
 * a shuffle of part of a float's bits is an error (false). */
bool warp_float_bit_shuffles(LLVMValueRef fn, LLVMValueRef subject);
/* Before instcombine: the shuffles of a double's two halves alike become
 * the double's shuffle; a half shuffled alone is an error (false). */
bool warp_double_bit_shuffles(LLVMValueRef fn, LLVMValueRef subject);
/* Inlines into `fn` the calls that reach an integer warp shuffle. */
void warp_inline_integer_shuffles(LLVMValueRef fn);
/* nullshadow.c: in host code, the shadow pointer that the address
 * `shadow` (in shadow memory) is based on where it was loaded from memory,
 * and so may be null (a Const pointer stored where shadows are: no
 * derivatives wanted); else NULL. */
LLVMValueRef null_shadow_base(LLVMValueRef shadow);
/* The address to access in place of `shadow`: where `base` (its
 * null_shadow_base, as the code being built has it) is null, a block of
 * zeros to read, or a sink to write (`writes`). */
LLVMValueRef null_shadow_guard(LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef shadow, bool writes);

/* ---- iter.c: __enzyme_iter(n, k), n + k per order of differentiation ---- */

/* In `fn`, a copy about to be differentiated: n becomes n + k. */
void iter_bump(LLVMValueRef fn);
/* Every call left becomes its n (after all derivatives are generated). */
void iter_lower(void);

/* ---- floatbits.c ---- */

/* Calls in `fn` that pass a float's bits as an integer to a function of the
 * module call a copy of it taking the float instead. */
void floatbits_specialize_calls(LLVMValueRef fn);

/* ---- copytypes.c: what copies move, noted before simplification ---- */

/* Marks each memcpy of `fn`, a copy of `original`, with the types the
 * accesses to its memory show (run after SROA, before instcombine turns
 * typed addresses into bytes), or else, for memory `original`'s callers
 * pass, the type they declare it with; each realloc with the type its
 * old memory is declared with. A copy of one scalar field becomes
 * a load and store of its type, the load marked with it: true when one
 * did. */
bool copytypes_note(LLVMValueRef fn, LLVMValueRef original);
/* A struct of the types noted for a copy `inst`, the type noted for a
 * load, or NULL. */
LLVMTypeRef copytypes_of(LLVMValueRef inst);

/* ---- fieldtypes.c ---- */

/* The type the module's code accesses through pointers loaded from the
 * struct field `field` (a GEP over a struct type) addresses, where all
 * agree; NULL where they do not, or nothing says. */
LLVMTypeRef field_pointee_type(LLVMValueRef field);

/* ---- barrier.c: Eigen's optimisation barriers ---- */

/* A call of an identity function on `value`, which the simplification of
 * the copy cannot see through; an x86 barrier (rules/asm.def) becomes it. */
LLVMValueRef barrier_keep(LLVMBuilderRef b, LLVMValueRef value);
/* In `fn`, the copy once simplified: each value kept so is used directly,
 * or, where it is a rounding by addition (x + 2^52), through an identity
 * whose derivative is zero. */
void barrier_settle(LLVMValueRef fn);

/* ---- paramtypes.c ---- */

/* The scalar that parameter `index` of `fn` (an IR parameter) points or
 * refers to, as the C++ source declares it and the function's mangled name
 * spells it (`float *`, `const double &`); NULL for anything else, or
 * where the IR's parameters are not the source's. */
LLVMTypeRef param_pointee_type(LLVMValueRef fn, unsigned index);
/* The same for `__half`, `__nv_bfloat16` and their pairs: half or bfloat
 * (the lanes' type, for a pair). */
LLVMTypeRef param_pointee_sixteen_bit(LLVMValueRef fn, unsigned index);
/* The struct type of the class parameter `index` of `fn` refers or
 * points to (`F const&`), as the class's member functions in the module
 * address `this`, of the size the parameter's `dereferenceable` says;
 * NULL where that is not one type. */
LLVMTypeRef param_class_type(LLVMValueRef fn, unsigned index);

/* ---- devirt.c: indirect calls ---- */

/* Turns each indirect call in `fn` into direct calls of the module's
 * functions it may reach (address taken, same type), keeping the indirect
 * call, marked, for any other callee. */
void devirt_indirect_calls(LLVMValueRef fn);
/* The functions indirect `call` may reach (a stb_ds array, NULL when there
 * are none or too many to compare with). */
LLVMValueRef *devirt_candidates(LLVMValueRef call);
/* Whether `call` is that kept indirect call. */
bool devirt_is_fallback(LLVMValueRef call);
/* Why an indirect call was left as it is, to end its error message: too
 * many candidates, or none; malloc'd. */
char *devirt_why_indirect(LLVMValueRef call);
/* A shadow for the result of that call where one is needed: the
 * derivative of `subject` stops right after the call. */
LLVMValueRef devirt_fallback_shadow(LLVMValueRef call, LLVMValueRef subject);
/* Emits with `b`, for a kept indirect call that carries derivatives in the
 * derivative of `subject`, a stop with a message (once per call): the
 * callee is unknown. */
void devirt_guard_fallback(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef subject);

/* ---- vtables.c: virtual calls ---- */

/* Where `call` loads its callee from a slot of a vtable, drops from
 * `candidates` (a stb_ds array) the functions only vtables hold, and none
 * of them at that slot. */
void vtable_narrow_candidates(LLVMValueRef call, LLVMValueRef **candidates);

void simplify_after(LLVMValueRef fn);
/* Loops with preheaders and LCSSA phis, rotated (so that their bodies run
 * at least once where they are entered) and with invariants hoisted out. */
void simplify_loops_for_factoring(LLVMValueRef fn);
void simplify_unroll_loops(LLVMValueRef fn, unsigned count);
void strip_debug_locations(LLVMValueRef fn);

/* ---- registry.c: the user's custom rules ---- */

typedef struct {
  LLVMValueRef forward;             /* tangent function, or NULL */
  LLVMValueRef augmented, reverse;  /* custom reverse-mode pair, or NULL */
  LLVMValueRef release_tape;        /* frees the augmented pass's tape when an exception
                                       skips the reverse pass (Kinase's fourth element), or NULL */
  bool inactive;                    /* never differentiated */
  const char *like;                 /* differentiated as this library function */
  struct Rule *memory;              /* __enzyme_allocation_like: the allocator's or
                                       its free function's rule, or NULL */
  /* Enzyme's attributes with an effect of their own (registry.c lists them
   * all, enzyme_nofree too, which changes nothing in Kinase): */
  bool recompute;         /* enzyme_shouldrecompute: reverse mode calls it again
                             rather than recording its result, where it can */
  bool elementwise_read;  /* enzyme_elementwise_read: in device code, its
                             loads' adjoints are added without atomics */
  bool sparse_accumulate; /* enzyme_sparse_accumulate: refused where a
                             derivative reaches it (no sparse derivatives) */
} Registration;

void registry_read(void);
void registry_reset(void);
const Registration *registry_of(LLVMValueRef fn); /* NULL if not registered */
bool registry_inactive_global(LLVMValueRef global);
/* Registers `fn` as never differentiated, as __enzyme_inactivefn does. */
void registry_set_inactive(LLVMValueRef fn);
/* The shadow the user gave `global` (enzyme_shadow), or NULL. */
LLVMValueRef registry_user_shadow(LLVMValueRef global);
/* Reports and returns false when `custom` does not take `expected`
 * parameters, for `call` inside `subject`. */
bool registry_check_arity(LLVMValueRef custom, unsigned expected, LLVMValueRef call,
                          LLVMValueRef subject);

/* ---- cfg.c ---- */

/* The blocks reachable from the entry, in reverse post-order (a stb_ds
 * array: free with arrfree). */
LLVMBasicBlockRef *cfg_reverse_post_order(LLVMValueRef fn);
/* The blocks reached from `start` but not in `seen`, reverse post-order;
 * they join `seen`. */
LLVMBasicBlockRef *cfg_reverse_post_order_from(LLVMBasicBlockRef start, ValueSet *seen);

/* A natural loop. latch and preheader are NULL where not unique. */
typedef struct Loop Loop;
struct Loop {
  LLVMBasicBlockRef header, latch, preheader;
  ValueSet blocks;
  Loop *parent;
};

/* Dominators and loops of a function, valid until its CFG changes. */
typedef struct Cfg Cfg;
Cfg *cfg_build(LLVMValueRef fn);
void cfg_free(Cfg *cfg);
LLVMBasicBlockRef *cfg_blocks(Cfg *cfg); /* reverse post-order */
LLVMBasicBlockRef *cfg_predecessors(Cfg *cfg, LLVMBasicBlockRef bb); /* distinct */
bool cfg_dominates(Cfg *cfg, LLVMBasicBlockRef a, LLVMBasicBlockRef b);
Loop *cfg_loops(Cfg *cfg); /* a stb_ds array */
Loop *cfg_loop_with_header(Cfg *cfg, LLVMBasicBlockRef header);
bool loop_contains(Loop *loop, LLVMBasicBlockRef bb);
/* Whether `bb` can run more than once per call (it lies on a cycle of the
 * CFG, natural loop or not). */
bool cfg_on_cycle(LLVMBasicBlockRef bb);
/* Moves what follows `inst` in its block into a new block `name` placed
 * after it (successors' phis follow), leaving `inst`'s block without a
 * terminator. Returns the new block. */
LLVMBasicBlockRef cfg_split_after(LLVMValueRef inst, const char *name);
/* Phis of `succ` that name predecessor `from` name `to` instead (NULL:
 * `from` is a predecessor no more). */
void cfg_retarget_phis(LLVMBasicBlockRef succ, LLVMBasicBlockRef from, LLVMBasicBlockRef to);
/* Phis of `succ` get for the new predecessor `pred` what they have from `like`. */
void cfg_copy_incoming(LLVMBasicBlockRef succ, LLVMBasicBlockRef like, LLVMBasicBlockRef pred);

/* ---- unwind.c: exceptions, differentiated on the normal path only ---- */

/* An invoke of the copy being differentiated, made a call for the while. */
struct UnwindEdge {
  LLVMValueRef call;        /* the call standing for it (NULL: none any more) */
  LLVMBasicBlockRef from;   /* the invoke's block */
  LLVMBasicBlockRef unwind; /* its landing pad; NULL: a call that throws into the caller */
};

/* Makes each invoke of `fn` a call and a branch to its normal destination,
 * appending one edge per invoke to the stb array *edges. False, with an
 * error on `subject`, when a catch block carries on into the normal path. */
bool unwind_detach(LLVMValueRef fn, LLVMValueRef subject, UnwindEdge **edges);
/* Whether some edge of the stb array `edges` has a landing pad. */
bool unwind_has_landing_pads(const UnwindEdge *edges);
/* A generator puts call `to` in the place of call `from`: `to` unwinds
 * where `from` would have. */
void unwind_follow(LLVMValueRef from, LLVMValueRef to);
/* Each call of `fn` that stands for an invoke becomes an invoke again,
 * unwinding to its edge's landing pad; appended to the stb array *invokes
 * when given and on the normal path. Calls that stand for a call throwing
 * into the caller stay calls, appended to *to_caller likewise. */
void unwind_reattach(LLVMValueRef fn, UnwindEdge *edges, LLVMValueRef **invokes, LLVMValueRef **to_caller);
/* Puts code where `invoke` unwinds, before its landing pad's code. */
typedef void (*UnwindFill)(void *data, LLVMBuilderRef b, LLVMValueRef invoke);
/* Each invoke of the stb array `invokes` gets a landing pad of its own
 * (the clauses of its old one), holding what `fill` builds, then going on
 * into what the old one did. */
void unwind_separate_pads(LLVMValueRef *invokes, UnwindFill fill, void *data);
/* Each call of the stb array `calls`, which throws into its function's
 * caller, becomes an invoke of a cleanup landing pad of its own holding
 * what `fill` builds, then resuming. Nothing where no function of the
 * module has a personality to give it. */
void unwind_pads_to_caller(LLVMValueRef *calls, UnwindFill fill, void *data);
/* `call` becomes an invoke unwinding to `unwind`; what followed it in its
 * block is its normal destination. Returns the invoke. */
LLVMValueRef unwind_through(LLVMValueRef call, LLVMBasicBlockRef unwind);

/* ---- activity.c ---- */

/* Adds to `varied` (which holds the active parameters) every instruction of
 * `blocks` that can carry a derivative from them; with `int_bits`, integers
 * read from shadowed memory count too (forward mode copies their bits). */
void activity_find_varied(ValueSet *varied, LLVMBasicBlockRef *blocks, bool int_bits);
bool activity_any_operand(ValueSet *varied, LLVMValueRef inst, unsigned first, unsigned count);
bool activity_differentiable_type(LLVMTypeRef type); /* holds floats, or is a pointer */
/* For an address computed as an integer (uintptr_t arithmetic on a varied
 * pointer): the operand holding the address, whose shadow replaces it in
 * the shadow computation; -1 for other instructions. */
int activity_address_operand(ValueSet *varied, LLVMValueRef inst);
/* A varied integer holding a device or host address: such an instruction
 * (a load too, from a local slot an address is stored into or a CUDA
 * allocation returns one through), or an integer parameter with a shadow
 * (a CUdeviceptr marked enzyme_dup). */
bool activity_is_address(ValueSet *varied, LLVMValueRef v);
/* A call that takes no pointer, no address with a shadow (a CUdeviceptr),
 * and returns nothing differentiable (lround, isnan) can pass no derivative
 * on, whatever it is. */
bool activity_can_carry_derivative(ValueSet *varied, LLVMValueRef call);
/* Operands [first, first+count) of a linear, structural instruction (casts,
 * GEPs, loads, aggregate and vector moves, select): the instruction applied
 * to their tangents gives its tangent. count 0 for other instructions. */
void activity_structural_operands(LLVMOpcode op, unsigned *first, unsigned *count);

/* Whether `call` must be differentiated as a call: it passes a derivative
 * in through its arguments, or its callee reaches a global with a shadow. */
bool activity_call_carries(ValueSet *varied, LLVMValueRef call);
/* A null (or undef) pointer argument of a differentiated call: its shadow is
 * null, so the callee gets it as a parameter with a shadow. A default
 * constructor passing 0 for a data pointer that other constructors pass a
 * shadowed one for stores it where a shadow is expected either way. */
bool activity_null_pointer_argument(LLVMValueRef arg);
/* An argument that is its own shadow: such a null pointer, or a function
 * (Kinase never reads through a function pointer's shadow): the callee
 * gets it as a parameter with a shadow, so that storing it into memory
 * with a shadow (`Map(const Vec &a, double (*f)(double)) : a(a), f(f)`)
 * stores one there too. */
bool activity_own_shadow_argument(LLVMValueRef arg);

/* ---- globals.c: shadows of mutable globals ---- */

/* Marks as varied, with their shadows in `shadow`, the globals with shadows
 * (and constant addresses into them) that instructions of `blocks` use: the
 * active ones, and read-only ones that a varied pointer phi or select may
 * pick. True when it marked something new: activity must then be found
 * again, and the globals seeded again. */
bool globals_seed(ValueSet *varied, ValueMap *shadow, LLVMBasicBlockRef *blocks);
/* Whether `fn`, or a function it calls, uses an active global. */
bool globals_reached_by(LLVMValueRef fn);
/* The shadow of a constant address into any defined global: where a
 * pointer may point to a global without a shadow or to memory with one, the
 * global gets a shadow that reads as zero. NULL for other values. */
LLVMValueRef globals_constant_shadow(LLVMValueRef v);
/* A request for `fn` starts at `before`: its globals enter as constants, so
 * globals_emit_clears (once every derivative is generated) zeroes there the
 * shadows of the globals `fn` reaches. */
void globals_clear_before(LLVMValueRef before, LLVMValueRef fn);
/* A request from <enzyme/enzyme> with an enzyme::context: once cleared, the
 * shadows of the globals `fn` reaches are moved in from the context before
 * `before` and back out before `after` (a placeholder: a freeze, erased then), through
 * the header's `swap(context, global, size, shadow, into)`. */
void globals_use_context(LLVMValueRef before, LLVMValueRef after, LLVMValueRef fn,
                         LLVMValueRef context, LLVMValueRef swap);
void globals_emit_clears(void);
void globals_reset(void);
/* From now on, derivative kernels of launches are made (cuda/kernels.c):
 * __device__ and __constant__ variables holding floats have shadows. */
void globals_for_launches(void);
/* In a CUDA host module, whether `g` is the host's handle of a __device__
 * or __constant__ variable. */
bool globals_is_device_variable_handle(LLVMValueRef g);
bool globals_only_host_writes(LLVMValueRef g);

/* ---- reverse.c ---- */

/* Fills the bodies of `aug` and `rev`, the reverse-mode pair for `sig`, and
 * of `release` (derive_release; NULL in device code). */
bool reverse_generate(const Signature *sig, LLVMValueRef aug, LLVMValueRef rev, LLVMValueRef release);

/* ---- factor.c ---- */

/* In the reverse sweep `fn`, sums a loop adds products with loop-invariant
 * factors into accumulate the varying factors alone; the invariant ones
 * multiply the sum after the loop. */
void rev_factor_reductions(LLVMValueRef fn);

/* ---- tape.c ---- */

/* The records of a block that runs many times a call: a vector, record k at
 * data + k * stride (stride is the record's size, except in a reverse
 * kernel's arena, cuda/arena.c), fields in this order. */
typedef enum { TAPE_VECTOR_DATA, TAPE_VECTOR_COUNT, TAPE_VECTOR_CAPACITY, TAPE_VECTOR_STRIDE } TapeVectorField;
LLVMTypeRef rev_tape_vector_type(void);
/* The address of field f of the vector at `vec`. */
LLVMValueRef rev_tape_vector_field(LLVMBuilderRef b, LLVMValueRef vec, TapeVectorField f);

/* ---- unsupported.c ---- */

/* Reports and returns true for exceptions, computed gotos, asm goto and
 * inline assembly in `fn`. */
bool unsupported_construct(LLVMValueRef fn);
/* Reports and returns true for an atomic operation on varied memory. */
bool unsupported_atomic(ValueSet *varied, LLVMValueRef inst, LLVMValueRef subject);
/* The shadow to use for `v`, which has none, where `user` needs one: the
 * zero shadow of a global, or for the result of a call to an unknown callee
 * a null pointer behind a stop. Otherwise, for a pointer (other than null),
 * reports the error and sets *failed. */
LLVMValueRef unsupported_missing_shadow(LLVMValueRef v, LLVMValueRef user, LLVMValueRef subject,
                                        bool *failed);
/* Reports and returns true when `inst` writes varied `data` (a value, or the
 * source of a copy) through `dst` into memory without a shadow where the
 * derivative would be lost unseen: a global, memory a call returned, or
 * memory of an enzyme_const pointer parameter that the function reads back. */
bool unsupported_unshadowed_write(ValueSet *varied, LLVMValueRef inst, LLVMValueRef dst,
                                  LLVMValueRef data, LLVMValueRef subject);
/* Reports and returns true when `call`, a launch through a kernel's stub
 * with varied arguments, passes device memory whose origin has no shadow
 * (memory a call returned, a pointer loaded from a global) that the code
 * here then reads as floats: the host cannot see whether the kernel writes
 * differentiated values there, and their derivatives would be lost. */
bool unsupported_unseen_launch_memory(ValueSet *varied, LLVMValueRef call, LLVMValueRef subject);

/* ---- asm.c: the inline assembly of CUDA's __half and __nv_bfloat16 ---- */

/* Whether `call` runs inline assembly of rules/asm.def. */
bool asm_is_known(LLVMValueRef call);
/* Whether `call` runs inline assembly that touches no value: no operands,
 * no result, and a text that is empty (asm volatile("" ::: "memory"), which
 * only orders the compiler) or only comments (Eigen's
 * asm("#EIGEN PRODUCT PACK LHS"), which marks its kernels in listings). */
bool asm_does_nothing(LLVMValueRef call);
/* Whether `call` runs a conversion between __half or __nv_bfloat16 and an
 * integer (__half2int_rz, __int2half_rn, ...), through which no derivative
 * flows, or a texture or surface instruction (checked by texture_refused). */
bool asm_carries_nothing(LLVMValueRef call);
/* The text of the inline assembly `call` runs, for messages (the caller
 * frees it); NULL for another call. */
char *asm_describe(LLVMValueRef call);
/* In `fn`, a copy of `subject` about to be simplified, that reaches known
 * assembly: inlines its calls (the headers' wrappers), then replaces that
 * assembly with the IR it means. False, with an error reported, when the
 * inlining brought in assembly without a row. */
bool asm_lower_known(LLVMValueRef fn, LLVMValueRef subject);
/* Then, once `fn`'s values are registers, the assembly whose type only the
 * values around it tell (asm.def's any16 rows: a pair of halves packed).
 * False, with an error reported, where they do not tell. */
bool asm_lower_pairs(LLVMValueRef fn, LLVMValueRef subject);

/* The pair {lo, hi} of the <2 x half> or <2 x bfloat> type t, and the
 * index of lane k, for the code that builds pairs (asm.c, pairbits.c). */
LLVMValueRef asm_pair(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef lo, LLVMValueRef hi);
LLVMValueRef asm_lane_index(unsigned k);

/* ---- libraries.c: host libraries refused (rules/libraries.def) ---- */

/* An error at `call` (true) where it calls into a host library Kinase does
 * not differentiate (cub's device-wide algorithms, thrust). */
bool library_call_refused(LLVMValueRef call, LLVMValueRef subject);

/* ---- texture.c: textures and surfaces (rules/texture.def) ---- */

typedef enum { TEXTURE_NONE, TEXTURE_FETCH, SURFACE_READ, SURFACE_WRITE, TEXTURE_QUERY } TextureKind;

/* Which texture or surface instruction the inline assembly `call` runs. */
TextureKind texture_kind(LLVMValueRef call);
/* For such a `call` in a function being differentiated: an error at it
 * (true) where a derivative would flow into the texture or surface, a
 * coordinate or a written value in `varied`; else, with `derivative` (the
 * reverse sweep's "gradient"), a remark that what it reads is a constant. */
bool texture_refused(ValueSet *varied, LLVMValueRef call, LLVMValueRef subject, const char *derivative);

/* ---- pairbits.c: the fields of __half2 and __nv_bfloat162 ---- */

/* In `fn`, after asm_lower_pairs: the integer slicing sroa made of field
 * reads and writes of pairs becomes lane accesses. False, with an error
 * reported, where bits of a pair stay in other integer arithmetic. */
bool pairbits_as_lanes(LLVMValueRef fn, LLVMValueRef subject);

/* ---- halfmath.c: hexp, hlog, hsin, h2exp, ... of cuda_fp16.h, cuda_bf16.h ---- */

/* Whether `fn` is a math function of those headers with a row in nvvm.def
 * (kept a call: not inlined). */
bool half_math_is_header_function(LLVMValueRef fn);
/* Whether `fn` is one of the conversions half_math_wrap_calls replaces
 * (__half2float, __float2half, __low2float, ...). */
bool half_math_is_conversion(LLVMValueRef fn);
/* In `fn`, a copy about to be differentiated: each call of such a function
 * becomes a call of its wrapper, of half or bfloat type, which has the row;
 * each call of __float2half, __half2float, __float2bfloat16, ... (integer
 * code on the host) becomes fptrunc or fpext. */
void half_math_wrap_calls(LLVMValueRef fn);
/* rules/nvvmir.c: NVVM intrinsics that are plain IR become it:
 * atomicAdd_block / atomicAdd_system on floats the atomicrmw fadd atomicAdd
 * is, at their scope; __double2loint, __double2hiint and __hiloint2double
 * the bit operations they are. */
void nvvm_intrinsics_as_ir(LLVMValueRef fn);

/* ---- libdevice.c ---- */

/* Links the __nv_* functions that generated code calls but the module lacks. */
void libdevice_link_missing(void);

/* ---- cuda/kernels.c: derivative kernels for launches (device modules) ---- */

/* Gives every __global__ kernel of the module its derivative kernels and
 * the facts the runtime needs (runtime/kinase_cuda.h), or the reason it has
 * none. */
void cuda_emit_kernel_derivatives(void);

/* ---- cuda/globalwrites.c ---- */

/* Drops from `aug`, the forward sweep of a kernel's reverse kernel, its
 * writes into __device__ globals it never reads: the launch of the kernel
 * in the host's forward sweep made them. */
void cuda_drop_repeated_global_writes(LLVMValueRef aug);
/* Why the reverse kernels whose forward part is `aug` would go wrong, or
 * NULL: an atomic operation on global memory whose old value `aug` uses
 * (slot = atomicAdd(&count, 1)) draws, when run again after the kernel,
 * other values than the kernel drew. Shared memory is the block's own,
 * made afresh in each run. */
const char *cuda_unrepeatable_atomic(LLVMValueRef aug);
/* Why kernel `body` cannot have reverse kernels because it reads and
 * writes a __device__ variable (malloc'd), or NULL. */
char *cuda_unrepeatable_global(LLVMValueRef body);
/* reverseaccess.c: whether `reverse_kernel` reads memory through its
 * parameter `param` (a read whose value reaches an effect) or writes it. */
bool cuda_reverse_touches(LLVMValueRef reverse_kernel, unsigned param);

/* ---- core/structcopy.c: the fields of structs, and copies of whole ones ---- */

/* The most scalar fields a struct is taken apart into. */
#define KN_MAX_LEAVES 256
typedef struct {
  LLVMTypeRef type;
  uint64_t offset;
} TypeLeaf;
/* Appends the scalar fields of `type` (fields of fields, elements of
 * arrays) with their byte offsets from `offset`; a struct type for which
 * `whole` (may be NULL) says true is one field. */
void kn_type_leaves(LLVMTypeRef type, uint64_t offset, bool (*whole)(LLVMTypeRef), TypeLeaf **out);
/* In `fn`, a copy of `original` about to be differentiated: each memcpy
 * of a whole struct holding both pointers and floats into a local of that
 * type (or out of a parameter referring to it) becomes a load and a store
 * per field. */
void kn_split_struct_copies(LLVMValueRef fn, LLVMValueRef original);

/* ---- core/bitshuffle.c: integer shuffles of a float vector's bits ---- */

/* Each bitcast to a float vector of a shuffle of bitcast float vectors
 * that moves whole floats, in order, becomes the shuffle of the floats. */
void kn_float_shuffles(LLVMValueRef fn);

/* ---- cuda/byval.c: kernel parameters that are structs passed by value ---- */

/* The struct type of parameter i of `fn` where it is passed byval, or NULL. */
LLVMTypeRef cuda_byval_type(LLVMValueRef fn, unsigned i);
/* Gives parameter to_index of `to` the byval and align attributes of
 * parameter from_index of `from`. */
void cuda_copy_byval_attributes(LLVMValueRef from, unsigned from_index, LLVMValueRef to,
                                unsigned to_index);
/* Why a kernel taking a struct of this type gets no derivative kernels, or NULL. */
const char *cuda_struct_unsupported(LLVMTypeRef type);
/* Appends the kernel info's pointer words of the struct (runtime/kinase_cuda.h). */
void cuda_struct_pointer_words(LLVMTypeRef type, uint32_t **words);
/* In a derivative kernel: a local copy of the shadow struct parameter,
 * its float fields cleared for a reverse sweep to add into. */
LLVMValueRef cuda_struct_shadow_copy(LLVMBuilderRef b, LLVMValueRef shadow_param, LLVMTypeRef type,
                                     bool clear_floats);
/* After a reverse sweep: the float fields of `shadow` added atomically into
 * the same fields of *accumulator, unless it is NULL. */
void cuda_struct_accumulate(LLVMBuilderRef b, LLVMValueRef shadow, LLVMTypeRef type,
                            LLVMValueRef accumulator);

/* ---- arena.c: tapes of reverse kernels in the launch's arena ---- */

/* Device code's growth of a full tape vector (its records `size` bytes)
 * and release of its data: in the launch's tape arena where there is one,
 * else on the device heap. */
void cuda_tape_grow(LLVMBuilderRef b, LLVMValueRef vec, LLVMValueRef size);
void cuda_tape_release(LLVMBuilderRef b, LLVMValueRef p);
/* Gives a reverse kernel that grows tapes its arena (its last parameter)
 * and lets `gate`, the branch after its forward part (false until now),
 * return when the launch only counts. */
void cuda_arena_connect(LLVMValueRef kernel, LLVMValueRef gate);
/* Once the module's kernels are made: the others start with a NULL arena. */
void cuda_arena_clear_in_kernels(void);

/* ---- cuda/pairatomics.c: atomic adds of __half2 / __nv_bfloat162 ---- */

/* Once the module's derivatives are made: each atomic add of a pair of half
 * or bfloat becomes the native instruction atomicAdd uses, in place of the
 * compare-and-swap loop NVPTX would expand it into. */
void cuda_native_pair_atomics(void);

/* ---- countable.c: whether a reverse kernel's forward part can run twice ---- */

/* Whether the forward part that `aug` (a call in a reverse kernel) runs
 * writes no memory but its own and its tapes', so that it can be run once
 * more to count; sets *grows where it grows a tape. */
bool cuda_arena_countable(LLVMValueRef aug, bool *grows);

/* ---- cuda/launch.c: kernel launches in host code ---- */

/* Whether `fn` is a kernel's host stub (it launches itself). */
bool cuda_is_launch_stub(LLVMValueRef fn);
/* The kernel a launch stub launches, 'loglik' from _Z21__device_stub__loglikPf... or
 * __device_stub__loglik (malloc'd). */
char *cuda_launched_kernel_name(LLVMValueRef stub);
/* Whether `merge`, a phi or select of pointers some of which have no shadow
 * (an enzyme_const input, then a layer's output, in a loop of launches),
 * reaches memory only through kernel launches and copies from it: there a
 * null shadow is what a Const pointer gets (the runtime launches with it
 * Const, a copy's reverse from it only clears the destination's adjoint). */
bool cuda_null_shadow_suffices(LLVMValueRef merge);
/* Fills the derivatives of stub sig->fn: `aug`, `deriv` (the reverse
 * sweep) and `release` (which discards aug's record when an exception skips
 * the reverse sweep) in reverse mode, `deriv` in forward mode. */
bool cuda_generate_launch(const Signature *sig, LLVMValueRef aug, LLVMValueRef deriv, LLVMValueRef release);

/* ---- cuda/stub.c: the stub's parameters that make each kernel parameter ---- */

typedef struct {
  unsigned nkernel;                /* the kernel's parameters */
  int kernel_of[KN_MAX_PARAMS];    /* per stub parameter: the kernel parameter it is part of */
  unsigned offset[KN_MAX_PARAMS];  /* per stub parameter: its offset in that one's bytes */
  LLVMTypeRef slot[KN_MAX_PARAMS]; /* per kernel parameter: the type of the stub's local
                                      holding it; NULL where a byval stub parameter is it */
} StubLayout;
/* Reads it from the stub's array for cudaLaunchKernel; false if the stub
 * is not of the form clang writes. */
bool cuda_stub_layout(LLVMValueRef stub, StubLayout *out);
/* Whether kernel parameter k is a struct or array passed by value. */
bool cuda_stub_aggregate(const StubLayout *layout, unsigned k);

/* ---- cuda/stubref.c: structs a stub takes in pieces, passed whole ---- */

/* In `fn`, a host copy before simplification: each stub call passing a
 * struct whose float shares an integer eightbyte, in pieces loaded from a
 * local, becomes a call of kinase.stubref.STUB taking the local's address. */
void cuda_launch_structs_whole(LLVMValueRef fn);
bool cuda_is_stub_by_reference(LLVMValueRef fn);
/* The stub a kinase.stubref function calls; any other function itself. */
LLVMValueRef cuda_launched_stub(LLVMValueRef fn);
/* The layout of a kinase.stubref function: the stub's, its whole structs
 * taken by address as byval ones are (slot NULL). */
bool cuda_stub_by_reference_layout(LLVMValueRef fn, StubLayout *out);
/* Whether `p` is in a local that nothing reads but the kernel launches it
 * is passed to by value (a struct argument `k<<<g, b>>>(params)` that the
 * host function filled field by field, or whose address goes into an
 * argument array): a Const pointer stored there has a null shadow, as in a
 * launch's argument slot. */
bool cuda_is_launch_struct(LLVMValueRef p);
/* cuda/handles.c: whether `v` is a handle the CUDA API made (a stream, an
 * event), loaded from the local it was returned into: stored into memory
 * with a shadow, it leaves null there. */
bool cuda_is_handle(LLVMValueRef v);

/* ---- cuda/shared.c: extern __shared__ arrays in derivative kernels ---- */

/* `fn` itself when it uses no extern __shared__ array; else a function in
 * its place (fn's body moved there, fn deleted) with one more parameter,
 * the start of dynamic shared memory, in place of the arrays. */
LLVMValueRef cuda_dynamic_shared_as_parameter(LLVMValueRef fn);
/* In a derivative kernel: the arguments for that parameter, the start of
 * dynamic shared memory and its second half as the shadow. */
void cuda_dynamic_shared_args(LLVMBuilderRef b, LLVMValueRef *start, LLVMValueRef *shadow);
/* For a device-side request of `fn`: `fn` itself when neither it nor what
 * it calls uses an extern __shared__ array; else a copy with its callees
 * inlined and the region as a last parameter (as above), each access
 * through which stops the kernel with a message when it lies past the first
 * half of the launch's dynamic shared memory, the shadow's place. */
LLVMValueRef cuda_request_dynamic_shared(LLVMValueRef fn);

/* ---- cuda/driver.c: driver-API launches in host code (RULE_LAUNCH) ---- */

/* Whether `p` is in a local slot that nothing reads but what its address
 * is stored into (an argument slot of a launch, void *args[] = {&x}): a
 * value without a shadow (a Const pointer) stored there leaves a null
 * shadow, which a launch takes as Const. */
bool cuda_is_argument_slot(LLVMValueRef p);
/* Whether `slot` is an argument slot whose address goes only into
 * kernelParams arrays that nothing but launches reads: what is stored there
 * is used for nothing but those launches. */
bool cuda_slot_only_launched(LLVMValueRef slot);
/* The local slots whose addresses the kernelParams array of launch `call`
 * holds, at most `max` of them, into `slots`; how many. */
unsigned cuda_launch_argument_slots(LLVMValueRef call, LLVMValueRef *slots, unsigned max);
/* Reports and returns true for a launch Kinase cannot differentiate (packed
 * arguments, `extra`). */
bool cuda_launch_unsupported(LLVMValueRef call, LLVMValueRef subject);
/* Emits with `b`, just before `call`, the runtime's launch in its place
 * (skipped where all it writes is unneeded) and the record of the launch
 * for its reverse; `shadows` is the shadow of its kernelParams array (NULL:
 * none), `unneeded` the argument slots that hold enzyme_dupnoneed values
 * used for nothing but launches. The caller erases `call` with
 * cuda_launch_replaced once nothing refers to it. */
LLVMValueRef cuda_launch_augment(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef shadows,
                                 const LLVMValueRef *unneeded, unsigned nunneeded,
                                 LLVMValueRef subject);
/* Erases a launch call the runtime makes instead; its result becomes
 * CUDA_SUCCESS. */
void cuda_launch_replaced(LLVMValueRef call);
/* The reverse of that launch, from its record. */
void cuda_launch_reverse(LLVMBuilderRef b, LLVMValueRef record, LLVMValueRef shadows);
/* In place of the reverse, when an exception skips it: frees the record. */
void cuda_launch_discard(LLVMBuilderRef b, LLVMValueRef record);
/* Forward mode: replaces `call` with a launch of the forward kernel;
 * `tangents` is the tangent of its kernelParams array (NULL: none). */
void cuda_launch_tangent(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef tangents,
                         LLVMValueRef subject);

/* ---- cuda/threads.c: thread geometry in device code ---- */

/* A read of the thread's index, its block's, or the launch's sizes. */
bool cuda_is_thread_geometry(LLVMValueRef v);
/* Whether only this thread touches `address` (and every other address its
 * function reaches through the same parameter), in a one-dimensional
 * launch: base + S * (blockIdx.x * blockDim.x + threadIdx.x) + c, 0 <= c < S.
 * *why says why (may be NULL). */
bool cuda_thread_owns(LLVMValueRef address, Reason *why);
/* Whether every access through parameter `param` (of a simplified function)
 * is one cuda_thread_owns: each thread touches only its own part. */
bool cuda_parameter_owned(LLVMValueRef param);
/* Emits: is the launch one-dimensional (blockDim.y = blockDim.z = gridDim.y =
 * gridDim.z = 1)? */
LLVMValueRef cuda_launch_is_linear(LLVMBuilderRef b);
/* Whether `address` may be the same in every lane of a warp: it depends on
 * no thread index within the block, no memory and no call (a scatter
 * dr[j] += ... in a loop over j). Only a hint: the code that aggregates the
 * lanes' adds checks at run time that the lanes agree. */
bool cuda_may_be_warp_uniform(LLVMValueRef address);
/* Whether `shadow`, an argument of the device-side `request` for pointer
 * parameter i of `fn`, is the thread's alone: base + S * gid + c with base
 * a parameter used for nothing else, and fn touching at most S - c bytes
 * through parameter i, at constant offsets. */
bool cuda_request_owns(LLVMValueRef request, LLVMValueRef shadow, LLVMValueRef fn, unsigned i,
                       Reason *why);

/* ---- cuda/warp.c: barriers and warp shuffles in device code ---- */

typedef struct WarpOp WarpOp; /* rules.c */

/* Emits, with `b`, the barrier the reverse sweep waits at for `call`, a
 * RULE_BARRIER call; args: its arguments as the reverse sweep sees them. */
void cuda_mirror_barrier(LLVMBuilderRef b, LLVMValueRef call, const WarpOp *op, LLVMValueRef *args);
/* Emits, with `b`, __syncwarp(__activemask()): the lanes running together
 * wait for each other. */
void cuda_warp_wait(LLVMBuilderRef b);
/* The adjoint of a shuffle's value given the adjoint dy of its result;
 * args: the shuffle's arguments as the reverse sweep sees them. May leave
 * `b` in a new block. */
LLVMValueRef cuda_shuffle_transpose(LLVMBuilderRef b, const WarpOp *op, LLVMValueRef *args, LLVMValueRef dy);
/* Whether all 32 lanes of the warp run this instruction together. */
LLVMValueRef cuda_warp_is_whole(LLVMBuilderRef b);
/* Whether `pred` (i1) holds in any lane of a whole warp: an i1, the same
 * in every lane. */
LLVMValueRef cuda_warp_any(LLVMBuilderRef b, LLVMValueRef pred);
/* Whether every lane of a whole warp holds the same value of each of
 * values[0..n) (pointers, integers up to 64 bits, floats): an i1. */
LLVMValueRef cuda_lanes_agree(LLVMBuilderRef b, LLVMValueRef *values, unsigned n);
/* Whether a and b compute the same value the same way from the same
 * operands (no calls or loads among them). */
bool cuda_same_computation(LLVMValueRef a, LLVMValueRef b);
/* Emits a branch to `agree` when all 32 lanes of the warp are here, each at
 * the same `addresses` (only then may their adds be summed across the warp,
 * cuda_warp_total), else to `disagree`. */
void cuda_branch_on_lanes_agreeing(LLVMBuilderRef b, LLVMValueRef *addresses, unsigned n,
                                   LLVMBasicBlockRef agree, LLVMBasicBlockRef disagree);
/* The sums of n values (n <= 32, one type) over a full warp: this lane's
 * share is the total of values[*index]; cuda_holds_total says whether it
 * holds one (each total is in exactly one lane). */
LLVMValueRef cuda_warp_totals(LLVMBuilderRef b, LLVMValueRef *values, unsigned n, LLVMValueRef *index);
LLVMValueRef cuda_holds_total(LLVMBuilderRef b, unsigned n, LLVMValueRef index);
/* kinase.shfl.sync.MODE.f64(mask, value, offset, packed clamp): the
 * shuffle (SHUFFLE_IDX, ...) of a double as two 32-bit ones (a row of
 * rules/warp.def). */
LLVMValueRef cuda_double_shuffle(unsigned mode);
/* The sum of v over the lanes in `mask` (all 32), in every lane. */
LLVMValueRef cuda_warp_sum(LLVMBuilderRef b, LLVMValueRef mask, LLVMValueRef v);
/* This thread's lane in its warp. */
LLVMValueRef cuda_lane_id(LLVMBuilderRef b);
/* cuda/blocksums.c: *addresses[k] += values[k] where every thread adds into
 * the same addresses and every thread of the block arrives: summed over
 * each warp, then over the block in shared memory (16-bit values in
 * float), one atomic add per block. */
void cuda_add_uniform(LLVMBuilderRef b, LLVMValueRef *addresses, LLVMValueRef *values, unsigned n);
/* cuda/liveflag.c: the live flag of the variable `address` is in, where it
 * has one (a variable only host copies write), else NULL; and a branch to
 * code made only while it is set: the builder is left there, the block
 * after it returned. */
LLVMValueRef cuda_live_flag_of(LLVMValueRef address);
LLVMBasicBlockRef cuda_branch_if_live(LLVMBuilderRef b, LLVMValueRef flag);
/* The shuffle's tangent: the same shuffle of the value's tangent. */
LLVMValueRef cuda_shuffle_tangent(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef tangent);

/* ---- forward.c ---- */

/* Fills the body of `deriv`, the forward derivative for `sig`. */
bool forward_generate(const Signature *sig, LLVMValueRef deriv);

/* ---- rules.c: derivative rule tables ---- */

/* A call to a known function, by name or intrinsic. */
typedef struct Rule Rule;

typedef enum {
  RULE_MATH,           /* result = f(float args): partial derivatives */
  RULE_INACTIVE,       /* no derivative flows through it */
  RULE_ALLOC,          /* returns fresh memory: a zeroed shadow beside it */
  RULE_CALLOC,         /* returns zeroed memory: the shadow likewise */
  RULE_REALLOC,        /* resizes memory: the shadow likewise */
  RULE_POSIX_MEMALIGN, /* stores fresh memory through its first argument */
  RULE_FREE,           /* frees memory: the shadow too */
  RULE_MEMCPY,         /* copies memory (memcpy, memmove): the shadow too */
  RULE_MEMSET,         /* fills memory with a constant: the shadow with 0 */
  RULE_MODEL,          /* differentiated through a model body (models.def) */
  RULE_BARRIER,        /* device code: mirrored in the reverse sweep (warp.def) */
  RULE_SHUFFLE,        /* device code: a warp shuffle, transposed in reverse (warp.def) */
  RULE_LAUNCH,         /* launches a kernel, its arguments in an array of pointers to their
                          values (cuLaunchKernel): the runtime's launches (cuda/driver.c) */
  RULE_MEMCPY_DESCRIBED, /* copies as a descriptor in memory says, its addresses stored there
                            (cuMemcpy2D's CUDA_MEMCPY2D): through the runtime */
} RuleKind;

/* Whether the rule is about memory (allocation, free, copy, set, a
 * kernel launch): the generators mirror such calls on shadows. */
static inline bool rule_is_memory(RuleKind kind) {
  return (kind >= RULE_ALLOC && kind <= RULE_MEMSET) || kind == RULE_LAUNCH ||
         kind == RULE_MEMCPY_DESCRIBED;
}

/* Emits d(result)/d(arg i) with `b`, given the call's arguments and result. */
typedef LLVMValueRef (*PartialFn)(LLVMBuilderRef b, LLVMValueRef *args, LLVMValueRef result,
                                  unsigned i);

/* cxxlib.c: the C++ library's streams, locales and strings, by mangled
 * name: no derivative flows through them. */
bool cxxlib_is_inactive(const char *name);

/* Builds the body of a model (RULE_MODEL) from its parameters. */
typedef LLVMValueRef (*ModelFn)(LLVMBuilderRef b, LLVMValueRef *params, LLVMTypeRef result);
/* models.c: a pair (a complex number's parts, modf's) as a value of `type`,
 * the {re, im} struct or <2 x float> vector of the target's C ABI. */
LLVMValueRef model_pack(LLVMBuilderRef b, LLVMTypeRef type, LLVMValueRef re, LLVMValueRef im);
/* models.c: a call of a function built with loops (`build` gives it, for
 * the call's type), marked to be inlined where the model goes. */
LLVMValueRef model_call_in_place(LLVMBuilderRef b, LLVMValueRef *p, unsigned n, LLVMTypeRef result,
                                 LLVMValueRef (*build)(LLVMTypeRef type));
/* qsort.c: the sort standing for qsort in the copies differentiated, a
 * function of `type` (qsort's, or qsort_r's with a context) built once per
 * module. */
LLVMValueRef qsort_model_function(LLVMTypeRef type);
/* bsearch.c: the search standing for bsearch likewise. */
LLVMValueRef bsearch_model_function(LLVMTypeRef type);

/* A CUDA runtime call whose memory rule the Kinase runtime mirrors
 * (rules/cuda.def, cuda/memory.c). */
typedef struct CudaCall {
  int how;        /* allocations and frees: KINASE_ALLOC_* */
  int kind_arg;   /* copies: the cudaMemcpyKind argument, or -1 */
  int stream_arg; /* the stream argument, or -1 for the default stream */
  /* Sets that count elements (cuMemsetD16: 2): bytes per element of the
   * count; 1 where the count is of bytes. */
  unsigned unit;
  /* cudaMemcpyToSymbol: the destination is a __device__ or __constant__
   * variable, which has no shadow. */
  bool to_symbol;
  /* Pitched (2-D) memory. An allocation (cudaMallocPitch: ptr, &pitch,
   * width, height) returns the pitch through operand 1, `arg` being the
   * height; a copy (cudaMemcpy2D) has the operands dst, dpitch, src, spitch,
   * width, height: its rows are width bytes, pitch bytes apart. */
  bool pitched;
  /* cudaMemcpyFromSymbol: the source is a __device__ variable (dst,
   * symbol, count, offset, kind). Kernels that write such a variable have
   * its shadow in the device module (analysis/globals.c), which the copy's
   * derivatives read and the reverse of a copy to it clears (cuda/memory.c). */
  bool from_symbol;
} CudaCall;

/* A warp shuffle's lane pattern, PTX's shfl modes, and how its last
 * argument reads. */
typedef enum {
  SHUFFLE_IDX,
  SHUFFLE_UP,
  SHUFFLE_DOWN,
  SHUFFLE_BFLY,
  SHUFFLE_MODE = 3,  /* the bits holding the mode */
  SHUFFLE_WIDTH = 4, /* the last argument is CUDA's width, not PTX's packed clamp */
} WarpShuffle;

/* A barrier or shuffle in device code (rules/warp.def, cuda/warp.c). */
struct WarpOp {
  unsigned shuffle;   /* WarpShuffle bits */
  const char *mirror; /* barriers: the barrier the reverse sweep waits at; NULL: the same */
};

struct Rule {
  const char *name; /* C name, or intrinsic base name ("llvm.sin") */
  RuleKind kind;
  PartialFn partial; /* RULE_MATH */
  ModelFn model;     /* RULE_MODEL */
  /* RULE_MODEL with a result: its body goes in place of its calls as void
   * models' do (models.def's MODEL_IN_PLACE). */
  bool in_place;
  /* RULE_MATH: how many leading arguments carry derivatives; memory rules:
   * the argument holding the size (allocations) or the pointer (free). */
  unsigned arg;
  /* RULE_ALLOC, RULE_FREE: the user's allocator or its free function
   * (__enzyme_allocation_like). Shadows come from calloc and go to free:
   * they never depend on the user's arena. */
  bool foreign;
  const CudaCall *cuda; /* a CUDA runtime call, or NULL */
  const WarpOp *warp;   /* RULE_BARRIER, RULE_SHUFFLE */
};

const Rule *rule_for_call(LLVMValueRef call);
/* Whether a call of `callee` may be inlined before differentiation: a
 * function of the module with no rule (libm, libdevice) or registration. */
bool rule_inlinable(LLVMValueRef callee);
/* Inlines fn's calls that rule_inlinable takes, `levels` levels deep. */
void rule_inline_calls(LLVMValueRef fn, int levels);
/* Inlines fn's calls that take a closure by reference (a local holding
 * addresses of locals: a lambda capturing with [&]), and the calls of the
 * closure in their bodies, so that simplification makes the captured locals
 * values again. Through the closure, activity would otherwise see a Const
 * local (a captured Const container) and a differentiated one (a captured
 * double) behind one object, and give the Const one a null shadow. Also
 * the calls of cuda_runtime.h's C++ overloads of CUDA API functions, so
 * that the API call they make sees the caller's arguments. */
#define CLOSURE_INLINE_LEVELS 4
void rule_inline_host_calls(LLVMValueRef fn);
/* Inlines fn's calls of C++ accessors returning addresses (`data()`,
 * `operator[]`, `get()`), so that what the caller reads through them shows
 * what memory a CUDA copy moved. After the struct copies are split and the
 * copies marked with their types, which read what such calls return. True
 * if any was inlined. */
bool rule_inline_accessors(LLVMValueRef fn);
/* How deep device code is inlined before it is differentiated. */
enum { DEVICE_INLINE_LEVELS = 4, DEVICE_REVERSE_UNROLL = 4 };
const Rule *rule_for_function(LLVMValueRef fn); /* NULL for none, or NULL fn */
const Rule *rule_for_name(const char *name);    /* a C name ("log1p"); NULL for none */
PartialFn rule_for_opcode(LLVMOpcode opcode); /* fadd, fmul, ...: NULL for others */
/* The model function standing for the callee of `call` (RULE_MODEL). */
LLVMValueRef rule_model_function(const Rule *rule, LLVMValueRef call);
/* Puts the body of each model without a result (sincos, which stores its
 * results) or marked in place (bsearch) in place of its calls in `fn`, a
 * copy about to be simplified. */
void rule_inline_models(LLVMValueRef fn);
/* In `fn`, a copy about to be simplified, makes each call of a model that
 * takes an argument in memory (byval: long double complex) a call of a
 * wrapper named MODEL_PARTS_PREFIX + the callee's name, which takes the
 * fields as values and has the callee's rule. */
#define MODEL_PARTS_PREFIX "kinase.parts."
void rule_unpack_model_arguments(LLVMValueRef fn);
/* scanf.c: in `fn`, a copy of `subject` about to be simplified, each float
 * the scanf family reads goes through a fresh local, so that it carries no
 * derivative and replaces the one its destination held. False, with an
 * error, where a format is not a constant string. */
bool scanf_isolate_numbers(LLVMValueRef fn, LLVMValueRef subject);

/* Builders for derivative arithmetic, used by the rule tables and the
 * generators; they fold constants and skip zeros where it is exact. */
LLVMValueRef math_const(LLVMTypeRef type, double value);
LLVMValueRef math_call(LLVMBuilderRef b, const char *intrinsic_or_libm, LLVMValueRef *args,
                       unsigned nargs);
LLVMValueRef math_fmul(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef math_fadd(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef math_fsub(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef math_fdiv(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef math_fneg(LLVMBuilderRef b, LLVMValueRef x);
/* digamma(x), the derivative of lgamma: a call of a helper emitted into the
 * module once per float type (rules/digamma.c). */
LLVMValueRef math_digamma(LLVMBuilderRef b, LLVMValueRef x);
/* core/fastmath.c: the algebraic fast-math flags every float operation of
 * fn has (none if it has none), and granting them to a derivative's. */
LLVMFastMathFlags kn_common_fast_math(LLVMValueRef fn);
void kn_grant_fast_math(LLVMValueRef fn, LLVMFastMathFlags flags);

/* ---- cuda/memory.c: CUDA memory calls in host code, through the runtime ---- */

LLVMValueRef cuda_stream_operand(const Rule *rule, LLVMValueRef call); /* NULL: default */
LLVMValueRef cuda_kind_operand(const Rule *rule, LLVMValueRef call);   /* cudaMemcpyKind */
/* The bytes a copy or set of `count` (its size operand) moves or sets. */
LLVMValueRef cuda_bytes(LLVMBuilderRef b, const Rule *rule, LLVMValueRef count);
/* The source operand of a copy (cudaMemcpy2D's is its third). */
LLVMValueRef cuda_copy_source(const Rule *rule, LLVMValueRef call);
/* Whether operand i of a call with CUDA rule `rule` is device memory: a
 * copy's destination or source, a set's destination, what a free frees. */
bool cuda_address_operand(const Rule *rule, unsigned i);
/* Before the forward sweep's copy or set `call` writes its destination. */
void cuda_before_write(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef subject);
/* Before a 1-D copy of memory of no known element type: the runtime keeps
 * the source's shadows, in case the destination is a table of device
 * pointers a kernel reads (runtime/cuda_tables.c). */
void cuda_copy_shadow_record(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef ddst,
                             LLVMValueRef dsrc, LLVMValueRef subject);
/* ---- cuda/hoststores.c ---- */
/* Before `inst`, a host store (or memcpy, memset) of `bytes` at `address`
 * in an augmented sweep: tells the runtime, where host code here may
 * launch kernels and the address may be a CUDA allocation (managed memory
 * a pending launch read). */
void cuda_announce_host_store(LLVMValueRef inst, LLVMValueRef address, LLVMValueRef bytes,
                              LLVMValueRef subject);
/* The bytes allocation `call` asks for (pitch * height where pitched),
 * read after it. */
LLVMValueRef cuda_alloc_bytes(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call);
/* The shadow of what allocation `call` returns, built after it: a zeroed
 * allocation of the same size, or for the address of a __device__ variable
 * its shadow (the module's, or the runtime's), or for the device address of
 * mapped host memory that of `mapped`, the host memory's shadow (NULL:
 * none, and so none). */
LLVMValueRef cuda_shadow_alloc(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef mapped,
                               LLVMValueRef stream, LLVMValueRef subject);
/* For cudaHostGetDevicePointer and its driver form, which give the device
 * address of mapped host memory: that memory's operand; -1 for others. */
int cuda_mapped_operand(const Rule *rule);
void cuda_shadow_free(LLVMBuilderRef b, const Rule *rule, LLVMValueRef shadow, LLVMValueRef stream,
                      LLVMValueRef subject);
/* Whether the shadows of `rule`'s call are those of __device__ variables
 * (cudaGetSymbolAddress), which the primal never frees. */
bool cuda_shadow_is_variables(const Rule *rule);
/* The value a sweep computes for an operand of the primal call (the
 * reverse sweep's own copy, or the operand itself). */
typedef LLVMValueRef (*CudaOperandFn)(void *sweep, LLVMValueRef operand);
/* The reverse of copy or set `call`: dsrc += ddst (elements of type
 * `floats`: float, double, half, bfloat; NULL when the host never reads the
 * memory as numbers, for the runtime to tell), then ddst = 0, row by row
 * where pitched; a NULL dsrc (a set, or a copy of values without
 * derivatives) only zeroes ddst. Operands of `call` are read through
 * `primal`. */
void cuda_reverse_of_write(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, CudaOperandFn primal,
                           void *sweep, LLVMValueRef dsrc, LLVMValueRef ddst, LLVMTypeRef floats,
                           LLVMValueRef subject);
/* A copy described by a CUDA_MEMCPY2D (RULE_MEMCPY_DESCRIBED): before it,
 * the runtime's record of its shadows (`shadow`, the descriptor's, may be
 * NULL), to free after cuda_described_copy_reverse; in forward mode, after
 * it, the copy of the tangents (`tangent`, the descriptor's). */
LLVMValueRef cuda_described_copy_record(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call,
                                        LLVMValueRef shadow, LLVMValueRef subject);
void cuda_described_copy_reverse(LLVMBuilderRef b, LLVMValueRef record, LLVMValueRef stream,
                                 LLVMValueRef subject);
void cuda_described_copy_tangent(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call,
                                 LLVMValueRef tangent, LLVMValueRef subject);
/* Puts a deferred release (runtime/kinase_cuda.h) in place of `call`, a
 * free or destroy of the forward sweep, before it; the caller erases it. */
void cuda_defer_release(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call, LLVMValueRef subject);
/* After each request's reverse sweep (calls of reverse sweeps, or of split
 * mode's), releases what the forward sweeps deferred, if any did. */
void cuda_release_after_requests(LLVMValueRef *reverse_sweeps, size_t n);
/* Releases now what the forward sweeps deferred (on unwinding). */
void cuda_release_deferred(LLVMBuilderRef b);
/* Whether what `call`, a copy into a __device__ variable, copies carries
 * derivatives: a varied source, unless it is a local that only ever holds
 * values without derivatives (an array of coefficients set from constants,
 * though it has a shadow as every local holding floats has). */
bool cuda_symbol_source_varied(ValueSet *varied, LLVMValueRef call);
/* A copy from or to a __device__ variable (to_symbol, from_symbol rows):
 * its reverse (dsrc += ddst, then ddst = 0, with the variable's shadow in
 * the device module on the symbol's side: every variable holding floats
 * has one; elements of the variable's type), or in forward mode (`primal` NULL,
 * operands read as they are) the copy of its tangents. `shadow` is that of
 * the other side (NULL: none). Reports and returns false where the symbol
 * is not a variable of a file with kernels. */
bool cuda_symbol_copy_derivative(LLVMBuilderRef b, const Rule *rule, LLVMValueRef call,
                                 CudaOperandFn primal, void *sweep, LLVMValueRef shadow,
                                 LLVMValueRef subject);
/* Before a copy to a __device__ variable holding floats, in the forward
 * sweep: where the source has a shadow, the derivative kernels of launches
 * are to add adjoints into the variable's shadow (cuda/liveflag.c); and a
 * snapshot of what the copy overwrites (NULL where none is needed), which
 * the copy's reverse puts back, so that the reverse kernels of earlier
 * launches read the variable as they did. */
LLVMValueRef cuda_before_symbol_copy(LLVMBuilderRef b, LLVMValueRef call, bool source_varied,
                                     LLVMValueRef subject);
void cuda_symbol_restore(LLVMBuilderRef b, LLVMValueRef snapshot, LLVMValueRef subject);
/* What frees such a snapshot where no reverse puts it back (an exception
 * unwinding through the forward sweep): a function of one pointer. */
LLVMValueRef cuda_symbol_discard_function(void);
/* Before a request for `subject` in a CUDA host module: zeroes the device
 * shadows of the file's __device__ and __constant__ variables holding
 * floats, so that adjoints the kernels left there in an earlier request
 * never read as tangents or adjoints in this one. */
void cuda_clear_symbol_shadows(LLVMBuilderRef b, LLVMValueRef subject);
/* Reports and returns true for a call of the CUDA API that has no rule. */
bool cuda_unknown_api_call(LLVMValueRef call, LLVMValueRef subject);

/* ---- coerce.c: matching the types the caller used ---- */

/* Converts `value` to `type` the way a C call through a variadic or
 * differently declared prototype means it: promoted floats and integers back
 * to their parameter types, results to the declared return type. */
LLVMValueRef coerce(LLVMBuilderRef b, LLVMValueRef value, LLVMTypeRef type, bool *ok);

#endif
