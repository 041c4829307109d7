/* Reverse mode: adjoints, and the reverse of each instruction: the
 * transposes of arithmetic and structural instructions, stores and loads
 * on shadow memory, and calls (math rules, models, the module's functions,
 * registered gradients, memory functions). Separate from reverse.c, which
 * walks the blocks and their control flow and calls
 * rev_reverse_instruction for each instruction, last to first. */
#include "reverse.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

/* ---- adjoints ---- */

/* Slots start at -0.0, the exact identity of fadd (x + -0.0 == x for every
 * x, while x + 0.0 turns -0.0 into 0.0), so the first addition folds away. */
static LLVMValueRef adjoint_zero(LLVMTypeRef type) {
  switch (LLVMGetTypeKind(type)) {
  case LLVMStructTypeKind:
  case LLVMArrayTypeKind: {
    bool is_struct = LLVMGetTypeKind(type) == LLVMStructTypeKind;
    unsigned n = is_struct ? LLVMCountStructElementTypes(type) : (unsigned)LLVMGetArrayLength2(type);
    LLVMValueRef *fields = malloc((n ? n : 1) * sizeof *fields);
    for (unsigned i = 0; i < n; i++)
      fields[i] = adjoint_zero(is_struct ? LLVMStructGetTypeAtIndex(type, i) : LLVMGetElementType(type));
    LLVMValueRef zero = is_struct ? LLVMConstNamedStruct(type, fields, n)
                                  : LLVMConstArray2(LLVMGetElementType(type), fields, n);
    free(fields);
    return zero;
  }
  default:
    return kn_is_float_type(type) ? math_const(type, -0.0) : LLVMConstNull(type);
  }
}

static LLVMValueRef adjoint_slot(Reverse *r, LLVMValueRef v) {
  LLVMValueRef slot = vmap_get(&r->adjoint, v);
  if (slot)
    return slot;
  LLVMBuilderRef entry = LLVMCreateBuilderInContext(ctx());
  LLVMBasicBlockRef bb = LLVMValueAsBasicBlock(r->rev_entry);
  LLVMValueRef first = LLVMGetFirstInstruction(bb);
  if (first)
    LLVMPositionBuilderBefore(entry, first);
  else
    LLVMPositionBuilderAtEnd(entry, bb);
  slot = LLVMBuildAlloca(entry, adjoint_type(r, v), "adj");
  LLVMBuildStore(entry, adjoint_zero(adjoint_type(r, v)), slot);
  LLVMDisposeBuilder(entry);
  vmap_put(&r->adjoint, v, slot);
  return slot;
}

/* x + y for floats, vectors of floats, and aggregates of them (other
 * fields are left as in x). */
LLVMValueRef rev_add_any(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef type = LLVMTypeOf(x);
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  if (kind == LLVMStructTypeKind || kind == LLVMArrayTypeKind) {
    unsigned n = kind == LLVMStructTypeKind ? LLVMCountStructElementTypes(type)
                                             : LLVMGetArrayLength2(type) > 0
                                                   ? (unsigned)LLVMGetArrayLength2(type)
                                                   : 0;
    for (unsigned i = 0; i < n; i++) {
      LLVMValueRef xi = LLVMBuildExtractValue(b, x, i, "");
      if (!kn_type_has_floats(LLVMTypeOf(xi)))
        continue;
      LLVMValueRef sum = rev_add_any(b, xi, LLVMBuildExtractValue(b, y, i, ""));
      x = LLVMBuildInsertValue(b, x, sum, i, "");
    }
    return x;
  }
  return kn_is_float_type(type) ? LLVMBuildFAdd(b, x, y, "") : x;
}

void rev_add_adjoint(Reverse *r, LLVMValueRef v, LLVMValueRef delta) {
  if (!has_adjoint(r, v))
    return;
  LLVMValueRef slot = adjoint_slot(r, v);
  LLVMValueRef old = LLVMBuildLoad2(r->b, adjoint_type(r, v), slot, "");
  LLVMBuildStore(r->b, rev_add_any(r->b, old, delta), slot);
}

/* Reads the adjoint of `v` and zeroes its slot: `v`'s definition is passed. */
static LLVMValueRef take_adjoint(Reverse *r, LLVMValueRef v) {
  LLVMValueRef slot = adjoint_slot(r, v);
  LLVMValueRef a = LLVMBuildLoad2(r->b, adjoint_type(r, v), slot, "adj");
  LLVMBuildStore(r->b, adjoint_zero(adjoint_type(r, v)), slot);
  return a;
}

/* ---- the reverse sweep, instruction by instruction ---- */

/* x * x gives x the adjoint x * (a + a): one multiplication where the two
 * partials took two, and a + a leaves the loop when a does (the seed of a
 * sum of squares). Doubling is exact, so the value is that of the two adds. */
static bool reverse_square(Reverse *r, LLVMValueRef inst, LLVMValueRef a) {
  LLVMValueRef x = LLVMGetOperand(inst, 0);
  if (LLVMGetInstructionOpcode(inst) != LLVMFMul || LLVMGetOperand(inst, 1) != x)
    return false;
  rev_add_adjoint(r, x, math_fmul(r->b, rev_primal(r, x), LLVMBuildFAdd(r->b, a, a, "")));
  return true;
}

static void reverse_partials(Reverse *r, LLVMValueRef inst, PartialFn partial, unsigned nactive,
                             LLVMValueRef a) {
  LLVMValueRef args[4];
  unsigned n = LLVMIsACallInst(inst) ? LLVMGetNumArgOperands(inst) : 2;
  n = n < 4 ? n : 4;
  for (unsigned i = 0; i < n; i++)
    args[i] = rev_primal(r, LLVMGetOperand(inst, i));
  LLVMValueRef y = rev_primal(r, inst);
  for (unsigned i = 0; i < nactive; i++) {
    if (!has_adjoint(r, LLVMGetOperand(inst, i)))
      continue;
    /* A conversion's partials are in the type of what it converts. */
    LLVMTypeRef t = LLVMTypeOf(args[i]);
    LLVMValueRef a_i = LLVMTypeOf(a) == t ? a : LLVMBuildFPCast(r->b, a, t, "");
    rev_add_adjoint(r, LLVMGetOperand(inst, i), math_fmul(r->b, partial(r->b, args, y, i), a_i));
  }
}

/* *shadow += a, for float-holding values loaded from it. In device code
 * other threads may read the same memory, so its adjoint is added
 * atomically (a thread's own stack memory excepted), unless the user marked
 * the function enzyme_elementwise_read: each thread reads only elements no
 * other thread reads. */
static void add_plainly(Reverse *r, LLVMValueRef shadow, LLVMValueRef a, LLVMValueRef load) {
  LLVMValueRef old = LLVMBuildLoad2(r->b, LLVMTypeOf(a), shadow, "");
  LLVMValueRef store = LLVMBuildStore(r->b, rev_add_any(r->b, old, a), shadow);
  LLVMSetAlignment(old, LLVMGetAlignment(load));
  LLVMSetAlignment(store, LLVMGetAlignment(load));
}

/* A pair of halves or bfloat16s (a __half2 read) takes one atomic add,
 * which cuda/pairatomics.c makes the native one; other vectors of floats
 * one per lane, as NVPTX has no atomic add of them. */
static void add_atomically(Reverse *r, LLVMValueRef shadow, LLVMValueRef a, LLVMValueRef load) {
  LLVMTypeRef type = LLVMTypeOf(a);
  unsigned align = LLVMGetAlignment(load);
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind &&
      !(LLVMGetVectorSize(type) == 2 && LLVMABISizeOfType(kn_module.layout, LLVMGetElementType(type)) == 2)) {
    LLVMTypeRef lane = LLVMGetElementType(type);
    unsigned size = (unsigned)LLVMABISizeOfType(kn_module.layout, lane);
    for (unsigned k = 0; k < LLVMGetVectorSize(type); k++) {
      LLVMValueRef index = LLVMConstInt(i32(), k, 0);
      LLVMValueRef at = LLVMBuildGEP2(r->b, lane, shadow, &index, 1, "");
      LLVMValueRef add = LLVMBuildAtomicRMW(r->b, LLVMAtomicRMWBinOpFAdd, at,
                                            LLVMBuildExtractElement(r->b, a, index, ""),
                                            LLVMAtomicOrderingMonotonic, 0);
      LLVMSetAlignment(add, align < size ? align : size);
    }
    return;
  }
  LLVMValueRef add = LLVMBuildAtomicRMW(r->b, LLVMAtomicRMWBinOpFAdd, shadow, a, LLVMAtomicOrderingMonotonic, 0);
  LLVMSetAlignment(add, align);
}

/* Adds into device memory wait until the reverse of the block ends, or of
 * an instruction that may read shadow memory, so that one run-time check
 * guards a block's adds of one kind, and their loads issue together (a
 * branch around each add made every thread wait out one memory round trip
 * per add):
 * - an address the thread owns (cuda/threads.c) takes a plain add in a
 *   one-dimensional launch, the atomic one in others;
 * - an address that may be the same in every lane (a scatter dr[j] += ...
 *   in a loop over j) is summed across the warp with shuffles, and one lane
 *   adds the sum, when all 32 lanes are there and agree on it; else each
 *   lane adds atomically. */
typedef void (*AddFn)(Reverse *, LLVMValueRef, LLVMValueRef, LLVMValueRef);

enum { WARP_GROUP = 32 }; /* sums one shuffle tree can carry: a lane each */

static void add_each(Reverse *r, HeldAdd *adds, AddFn add) {
  for (ptrdiff_t i = 0; i < arrlen(adds); i++)
    add(r, adds[i].shadow, adds[i].value, adds[i].load);
}

static LLVMBasicBlockRef new_block(Reverse *r, const char *name) {
  return LLVMAppendBasicBlockInContext(ctx(), LLVMGetBasicBlockParent(LLVMGetInsertBlock(r->b)), name);
}

/* Whether `inst`, between a clear and the adds, leaves shadow memory
 * alone: arithmetic, the thread's indices, the function's own adjoint
 * slots. */
static bool leaves_memory(LLVMValueRef inst) {
  if (LLVMIsALoadInst(inst) || LLVMIsAStoreInst(inst))
    return LLVMIsAAllocaInst(LLVMGetOperand(inst, LLVMIsAStoreInst(inst) ? 1 : 0)) != NULL;
  if (LLVMIsAAtomicRMWInst(inst) ||
      LLVMIsAAtomicCmpXchgInst(inst) || LLVMIsAFenceInst(inst))
    return false;
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  return !LLVMIsACallInst(inst) ||
         (callee && !strncmp(kn_function_name(callee), "llvm.nvvm.read.ptx.sreg.", 24));
}

/* The clear of `add`'s address (a store of zero of its type) that ends the
 * block being built but for instructions that leave memory alone: the
 * reverse of `y[i] = f(y[i])` zeroes dy[i], then adds into it. */
static LLVMValueRef trailing_clear(Reverse *r, const HeldAdd *add) {
  for (LLVMValueRef inst = LLVMGetLastInstruction(LLVMGetInsertBlock(r->b)); inst;
       inst = LLVMGetPreviousInstruction(inst)) {
    bool clear = LLVMIsAStoreInst(inst) && LLVMIsNull(LLVMGetOperand(inst, 0));
    if (clear && LLVMGetOperand(inst, 1) == add->shadow)
      return LLVMTypeOf(LLVMGetOperand(inst, 0)) == LLVMTypeOf(add->value) ? inst : NULL;
    if (!clear && !leaves_memory(inst))
      return NULL;
  }
  return NULL;
}

/* An address just cleared takes the add as a plain store in a
 * one-dimensional launch (clear, load and add made one store); the atomic
 * path clears it first, as before. */
static void flush_owned_adds(Reverse *r) {
  ptrdiff_t n = arrlen(r->owned_adds);
  LLVMValueRef *clears = calloc((size_t)n + 1, sizeof *clears);
  for (ptrdiff_t i = 0; i < n; i++) {
    clears[i] = trailing_clear(r, &r->owned_adds[i]);
    for (ptrdiff_t j = 0; j < i && clears[i]; j++)
      if (clears[j] == clears[i])
        clears[i] = NULL; /* the first add into it stores, the next ones add */
  }
  LLVMBasicBlockRef owned = new_block(r, "owned"), shared = new_block(r, "shared");
  LLVMBasicBlockRef done = new_block(r, "accumulated");
  LLVMBuildCondBr(r->b, cuda_launch_is_linear(r->b), owned, shared);
  LLVMPositionBuilderAtEnd(r->b, owned);
  for (ptrdiff_t i = 0; i < n; i++) {
    HeldAdd *add = &r->owned_adds[i];
    if (clears[i])
      LLVMSetAlignment(LLVMBuildStore(r->b, add->value, add->shadow), LLVMGetAlignment(clears[i]));
    else
      add_plainly(r, add->shadow, add->value, add->load);
  }
  LLVMBuildBr(r->b, done);
  LLVMPositionBuilderAtEnd(r->b, shared);
  for (ptrdiff_t i = 0; i < n; i++)
    if (clears[i]) {
      LLVMInstructionRemoveFromParent(clears[i]);
      LLVMInsertIntoBuilder(r->b, clears[i]);
    }
  add_each(r, r->owned_adds, add_atomically);
  LLVMBuildBr(r->b, done);
  LLVMPositionBuilderAtEnd(r->b, done);
  free(clears);
}

/* The group's adds summed across the warp: one shuffle tree for all of
 * them, then one atomic instruction in which the lane holding each sum adds
 * it (cuda/warp.c). */
static void add_warp_totals(Reverse *r, HeldAdd *group, unsigned n) {
  LLVMValueRef values[WARP_GROUP], index;
  unsigned align = LLVMGetAlignment(group[0].load);
  for (unsigned k = 0; k < n; k++) {
    values[k] = group[k].value;
    align = LLVMGetAlignment(group[k].load) < align ? LLVMGetAlignment(group[k].load) : align;
  }
  LLVMValueRef total = cuda_warp_totals(r->b, values, n, &index);
  LLVMValueRef address = group[0].shadow;
  for (unsigned k = 1; k < n; k++)
    address = LLVMBuildSelect(r->b, LLVMBuildICmp(r->b, LLVMIntEQ, index, LLVMConstInt(i32(), k, 0), ""),
                              group[k].shadow, address, "");
  LLVMBasicBlockRef leader = new_block(r, "warp.leader"), after = new_block(r, "warp.added");
  LLVMBuildCondBr(r->b, cuda_holds_total(r->b, n, index), leader, after);
  LLVMPositionBuilderAtEnd(r->b, leader);
  LLVMValueRef add = LLVMBuildAtomicRMW(r->b, LLVMAtomicRMWBinOpFAdd, address, total, LLVMAtomicOrderingMonotonic, 0);
  LLVMSetAlignment(add, align);
  LLVMBuildBr(r->b, after);
  LLVMPositionBuilderAtEnd(r->b, after);
}

/* Groups of one type, at most WARP_GROUP adds each. */
void rev_add_warp_sums(Reverse *r, HeldAdd *adds) {
  HeldAdd *rest = NULL;
  arraddnptr(rest, arrlen(adds));
  memcpy(rest, adds, (size_t)arrlen(adds) * sizeof *rest);
  while (arrlen(rest)) {
    HeldAdd group[WARP_GROUP];
    unsigned m = 0;
    LLVMTypeRef type = LLVMTypeOf(rest[0].value);
    for (ptrdiff_t i = 0; i < arrlen(rest) && m < WARP_GROUP;)
      if (LLVMTypeOf(rest[i].value) == type) {
        group[m++] = rest[i];
        arrdel(rest, i);
      } else {
        i++;
      }
    add_warp_totals(r, group, m);
  }
  arrfree(rest);
}

static void flush_warp_adds(Reverse *r) {
  unsigned n = (unsigned)arrlen(r->warp_adds);
  LLVMBasicBlockRef agree = new_block(r, "warp.agrees"), each = new_block(r, "lane.each");
  LLVMBasicBlockRef done = new_block(r, "accumulated");
  LLVMValueRef *addresses = malloc(n * sizeof *addresses);
  for (unsigned i = 0; i < n; i++)
    addresses[i] = r->warp_adds[i].shadow;
  cuda_branch_on_lanes_agreeing(r->b, addresses, n, agree, each);
  free(addresses);
  LLVMPositionBuilderAtEnd(r->b, agree);
  rev_add_warp_sums(r, r->warp_adds);
  LLVMBuildBr(r->b, done);
  LLVMPositionBuilderAtEnd(r->b, each);
  add_each(r, r->warp_adds, add_atomically);
  LLVMBuildBr(r->b, done);
  LLVMPositionBuilderAtEnd(r->b, done);
}

void rev_flush_held_adds(Reverse *r) {
  if (arrlen(r->owned_adds))
    flush_owned_adds(r);
  if (arrlen(r->warp_adds))
    flush_warp_adds(r);
  arrsetlen(r->owned_adds, 0);
  arrsetlen(r->warp_adds, 0);
}

/* Whether reversing `inst` may read shadow memory (a store's reverse reads
 * its location's adjoint, a call's may read anything): held-back adds must
 * be in memory first. */
bool rev_may_read_shadows(LLVMValueRef inst) {
  if (kn_orders_memory(inst))
    return true;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMStore:
    return true;
  case LLVMCall: {
    /* A math function's reverse is arithmetic; an inactive call has none. */
    const Rule *rule = rule_for_call(inst);
    return !kn_call_is_pure(inst) && !(rule && (rule->kind == RULE_MATH || rule->kind == RULE_INACTIVE));
  }
  default:
    return false;
  }
}

/* `shadow`, the rev value of the aug address `aug_shadow`, or where its
 * shadow pointer may be null (core/nullshadow.c) what to access instead. */
static LLVMValueRef guarded(Reverse *r, LLVMValueRef aug_shadow, LLVMValueRef shadow, bool writes) {
  LLVMValueRef base = null_shadow_base(aug_shadow);
  return base ? null_shadow_guard(r->b, rev_primal(r, base), shadow, writes) : shadow;
}

/* Whether other threads of a kernel may read what `address` points to, so
 * that adjoints added into its shadow must be atomic. A struct passed by
 * value is the callee's own copy, and so is its shadow (cuda/byval.c, a
 * request's gathered fields): private memory, where atomics are not even
 * defined. A function marked enzyme_elementwise_read has the user's word. */
static bool threads_may_share(Reverse *r, LLVMValueRef address) {
  const Registration *marked = registry_of(r->sig->fn);
  LLVMValueRef base = kn_underlying_object(address);
  bool own_copy = LLVMIsAAllocaInst(base) || vset_has(&r->byval_params, base);
  return !own_copy && !(marked && marked->elementwise_read);
}

/* `shadow` is the address in aug; an add moved to the end of its loop
 * iteration (not under a live flag's branch) computes it again there. */
static void accumulate_unguarded(Reverse *r, LLVMValueRef aug_shadow, LLVMValueRef a, LLVMValueRef load,
                                 bool may_move) {
  LLVMValueRef shadow = rev_primal(r, aug_shadow);
  LLVMTypeRef type = LLVMTypeOf(a);
  const Registration *marked = registry_of(r->sig->fn);
  LLVMValueRef base = kn_underlying_object(LLVMGetOperand(load, 0));
  bool elementwise = marked && marked->elementwise_read;
  if (!kn_module.gpu || !threads_may_share(r, LLVMGetOperand(load, 0)) || !kn_is_float_type(type)) {
    if (kn_module.gpu && elementwise)
      rev_remark_accumulation(r, load, ACC_PLAIN,
                              (Reason){"the function is marked enzyme_elementwise_read", NULL});
    add_plainly(r, guarded(r, aug_shadow, shadow, true), a, load);
    return;
  }
  Reason why;
  bool owned = cuda_thread_owns(LLVMGetOperand(load, 0), &why);
  if (!owned && vset_has(&r->owned_params, base)) {
    owned = true;
    why = (Reason){"the request gives the thread a part of the shadow of its own", NULL};
  }
  bool warp = !owned && kn_is_float_or_double(type) &&
              cfg_on_cycle(LLVMGetInstructionParent(load)) && cuda_may_be_warp_uniform(LLVMGetOperand(load, 0));
  if (warp && may_move && rev_move_add_to_iteration_end(r, aug_shadow, a, load)) {
    rev_remark_accumulation(r, load, ACC_WARP_LOOP, why);
    return;
  }
  rev_remark_accumulation(r, load, owned ? ACC_OWNED : warp ? ACC_WARP : ACC_ATOMIC, why);
  if (owned)
    arrput(r->owned_adds, ((HeldAdd){shadow, a, load}));
  else if (warp)
    arrput(r->warp_adds, ((HeldAdd){shadow, a, load}));
  else
    add_atomically(r, shadow, a, load);
}

/* Into the shadow of a variable only the host writes: only while the
 * runtime's flag says a request moves derivatives through it
 * (cuda/liveflag.c), the adds made and flushed behind the branch. */
static void accumulate_if_live(Reverse *r, LLVMValueRef flag, LLVMValueRef aug_shadow, LLVMValueRef a,
                               LLVMValueRef load) {
  LLVMBasicBlockRef after = cuda_branch_if_live(r->b, flag);
  HeldAdd *owned = r->owned_adds, *warp = r->warp_adds;
  r->owned_adds = r->warp_adds = NULL;
  accumulate_unguarded(r, aug_shadow, a, load, false);
  rev_flush_held_adds(r);
  arrfree(r->owned_adds);
  arrfree(r->warp_adds);
  r->owned_adds = owned;
  r->warp_adds = warp;
  LLVMBuildBr(r->b, after);
  LLVMPositionBuilderAtEnd(r->b, after);
}

static void accumulate_into(Reverse *r, LLVMValueRef aug_shadow, LLVMValueRef a, LLVMValueRef load) {
  LLVMValueRef flag = kn_module.gpu ? cuda_live_flag_of(LLVMGetOperand(load, 0)) : NULL;
  if (flag)
    accumulate_if_live(r, flag, aug_shadow, a, load);
  else
    accumulate_unguarded(r, aug_shadow, a, load, true);
}

/* A store overwrites what its location held: the adjoint there goes to the
 * stored value, and the location's shadow is cleared. An integer 0 into
 * memory of floats (a memset turned into a store) clears it too. */
/* A store over shadowed memory that held floats, or may have: its reverse
 * clears the shadow there, and passes what it held to the stored value. */
bool rev_store_has_reverse(Reverse *r, LLVMValueRef store) {
  LLVMValueRef value = LLVMGetOperand(store, 0), at = LLVMGetOperand(store, 1);
  LLVMTypeRef type = adjoint_type(r, value);
  bool clears_floats = kn_type_has_floats(type) ||
                       (LLVMIsNull(value) && !kn_is_pointer_type(type) &&
                        rev_memory_types(r, at, at).floats);
  return is_varied(r, at) && clears_floats;
}

static void reverse_store(Reverse *r, LLVMValueRef store) {
  if (!rev_store_has_reverse(r, store))
    return;
  LLVMValueRef value = LLVMGetOperand(store, 0), at = LLVMGetOperand(store, 1);
  LLVMTypeRef type = adjoint_type(r, value);
  LLVMValueRef aug_shadow = rev_shadow_of(r, at, store), shadow = rev_primal(r, aug_shadow);
  /* A volatile store to memory other threads read is warp-synchronous code
   * (a reduction's last steps through a volatile __shared__ array, the
   * CUDA samples' warpReduce without __syncwarp): the lanes read each
   * other's stores in step. Their adjoints come back through the shadow
   * the same way, so the lanes wait for each other before one reads what
   * the others added there; without it the read was even folded into the
   * clear before it, losing those adjoints. */
  if (kn_module.gpu && LLVMGetVolatile(store) && !rev_is_local_object(kn_underlying_object(at)))
    cuda_warp_wait(r->b);
  LLVMValueRef old = kn_type_has_floats(type)
                         ? LLVMBuildLoad2(r->b, type, guarded(r, aug_shadow, shadow, false), "")
                         : NULL;
  LLVMValueRef zero = LLVMBuildStore(r->b, LLVMConstNull(type), guarded(r, aug_shadow, shadow, true));
  LLVMSetAlignment(zero, LLVMGetAlignment(store));
  rev_hold_clear(r, zero);
  if (old) {
    LLVMSetAlignment(old, LLVMGetAlignment(store));
    rev_add_adjoint(r, value, old);
  }
}

/* *p += v (atomicAdd) leaves *p's adjoint as it was and gives it to v. The
 * old value it returns would need the order the threads added in. */
static void reverse_accumulation(Reverse *r, LLVMValueRef atomic, LLVMValueRef a) {
  LLVMValueRef at = LLVMGetOperand(atomic, 0), value = LLVMGetOperand(atomic, 1);
  if (a) {
    fail(r, atomic, "it uses the value an atomicAdd returns (the old value) in what is "
                    "differentiated%s: only its accumulation has a derivative", "");
    return;
  }
  if (!is_varied(r, at) || !has_adjoint(r, value))
    return;
  LLVMValueRef shadow = rev_primal(r, rev_shadow_of(r, at, atomic));
  LLVMValueRef da = LLVMBuildLoad2(r->b, LLVMTypeOf(value), shadow, "");
  LLVMSetAlignment(da, LLVMGetAlignment(atomic));
  bool subtracts = LLVMGetAtomicRMWBinOp(atomic) == LLVMAtomicRMWBinOpFSub;
  rev_add_adjoint(r, value, subtracts ? LLVMBuildFNeg(r->b, da, "") : da);
}

static void add_out_adjoints(Reverse *r, const Signature *sig, LLVMValueRef *primals,
                             LLVMValueRef grads) {
  unsigned k = 0;
  for (unsigned i = 0; i < sig->nparams; i++)
    if (sig->params[i] == ACT_OUT)
      rev_add_adjoint(r, primals[i], LLVMBuildExtractValue(r->b, grads, k++, ""));
}

/* The user's reverse pass takes every argument, each pointer followed by
 * its shadow, then the result's adjoint (for a float result) and the tape
 * (if the augmented pass made one); it returns the adjoints of the float
 * arguments: one value, or a struct of them in order. */
static void reverse_custom_call(Reverse *r, AugCall *aug, LLVMValueRef a) {
  LLVMValueRef fn = aug->custom_reverse, args[2 * KN_MAX_PARAMS + 2];
  unsigned n = 0;
  for (unsigned i = 0; i < aug->sig.nparams; i++) {
    args[n++] = rev_primal(r, aug->args[i]);
    if (kn_is_pointer_type(LLVMTypeOf(aug->args[i])))
      args[n++] = rev_primal(r, rev_shadow_of(r, aug->args[i], aug->call));
  }
  if (aug->result && kn_is_float_type(LLVMTypeOf(aug->result)))
    args[n++] = a ? a : LLVMConstNull(LLVMTypeOf(aug->result));
  if (aug->tape)
    args[n++] = rev_primal(r, aug->tape);
  LLVMValueRef release_tape = aug->tape ? registry_of(aug->sig.fn)->release_tape : NULL;
  if (release_tape)
    rev_own(r, (Owned){.value = aug->tape, .how = RELEASE_CALL, .function = release_tape});
  if (!registry_check_arity(fn, n, aug->call, r->sig->fn) ||
      (release_tape && !registry_check_arity(release_tape, 1, aug->call, r->sig->fn))) {
    r->failed = true;
    return;
  }
  LLVMValueRef grads = LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
  LLVMTypeRef ret = LLVMTypeOf(grads);
  unsigned k = 0;
  for (unsigned i = 0; i < aug->sig.nparams; i++) {
    if (aug->sig.params[i] != ACT_OUT)
      continue;
    LLVMValueRef g = LLVMGetTypeKind(ret) == LLVMStructTypeKind ? LLVMBuildExtractValue(r->b, grads, k, "")
                     : k == 0 && kn_is_float_type(ret)           ? grads
                                                                 : NULL;
    k++;
    bool ok = g != NULL;
    g = ok ? coerce(r->b, g, LLVMTypeOf(aug->args[i]), &ok) : NULL;
    if (ok)
      rev_add_adjoint(r, aug->args[i], g);
  }
}

static void reverse_user_call(Reverse *r, AugCall *aug) {
  Signature sig = aug->sig;
  LLVMValueRef a = aug->result && has_adjoint(r, aug->result) ? take_adjoint(r, aug->result) : NULL;
  if (aug->custom_reverse) {
    reverse_custom_call(r, aug, a);
    return;
  }
  /* The pair was chosen when the call was augmented. */
  if (sig.ret_tangent && !a)
    a = LLVMConstNull(LLVMTypeOf(aug->result));
  LLVMValueRef args[2 * KN_MAX_PARAMS + 2];
  unsigned n = rev_call_args(r, aug->call, &sig, aug->args, args, rev_primal);
  if (sig.ret_tangent)
    args[n++] = a;
  args[n++] = rev_primal(r, aug->tape);
  rev_own_tape(r, aug->tape, &sig);
  LLVMValueRef grads = LLVMBuildCall2(r->b, derive_type(&sig), derive_get(&sig), args, n, "");
  add_out_adjoints(r, &sig, aug->args, grads);
}

/* A model has no side effects: its aug function runs again here for the
 * tape its reverse function needs. */
static void reverse_model_call(Reverse *r, LLVMValueRef call, LLVMValueRef model, LLVMValueRef a) {
  Signature sig = rev_call_signature(r, call, model);
  sig.ret_tangent = a != NULL;
  LLVMValueRef primals[KN_MAX_PARAMS], args[2 * KN_MAX_PARAMS + 2];
  rev_operands(call, primals);
  unsigned n = rev_call_args(r, call, &sig, primals, args, rev_primal);
  LLVMValueRef aug = LLVMBuildCall2(r->b, derive_aug_type(&sig), derive_aug(&sig), args, n, "");
  if (a)
    args[n++] = a;
  args[n++] = LLVMBuildExtractValue(r->b, aug, LLVMCountStructElementTypes(LLVMTypeOf(aug)) - 1, "");
  LLVMValueRef grads = LLVMBuildCall2(r->b, derive_type(&sig), derive_get(&sig), args, n, "");
  add_out_adjoints(r, &sig, primals, grads);
}

static LLVMValueRef primal_in_sweep(void *r, LLVMValueRef operand) { return rev_primal(r, operand); }

/* CUDA memory calls, through the runtime: it knows where each shadow
 * lives (host or device) and moves adjoints across. */
static void reverse_cuda_memory_call(Reverse *r, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  LLVMValueRef src = rule->kind == RULE_MEMCPY ? cuda_copy_source(rule, call) : NULL;
  LLVMValueRef stream = rev_primal(r, cuda_stream_operand(rule, call));
  switch (rule->kind) {
  case RULE_LAUNCH: {
    LLVMValueRef params = LLVMGetOperand(call, rule->arg), record = vmap_get(&r->shadow, call);
    cuda_launch_reverse(r->b, rev_primal(r, record),
                        is_varied(r, params) ? rev_primal(r, rev_shadow_of(r, params, call)) : NULL);
    rev_own(r, (Owned){.value = record, .how = RELEASE_CUDA_LAUNCH});
    return;
  }
  case RULE_MEMCPY_DESCRIBED: {
    LLVMValueRef record = vmap_get(&r->shadow, call);
    cuda_described_copy_reverse(r->b, rev_primal(r, record), stream, r->sig->fn);
    rev_free(r, record);
    return;
  }
  case RULE_POSIX_MEMALIGN: {
    LLVMValueRef shadow = vmap_get(&r->shadow, call);
    cuda_shadow_free(r->b, rule, rev_primal(r, shadow), stream, r->sig->fn);
    rev_own(r, (Owned){.value = shadow, .how = RELEASE_CUDA_SHADOW, .rule = rule});
    return;
  }
  case RULE_MEMSET:
  case RULE_MEMCPY: {
    /* A __device__ variable's side is its shadow in the device module. */
    if (rule->kind == RULE_MEMCPY && (rule->cuda->to_symbol || rule->cuda->from_symbol)) {
      bool from = rule->cuda->from_symbol;
      LLVMValueRef other = from ? dst : src;
      bool varied = from ? is_varied(r, dst) : cuda_symbol_source_varied(&r->varied, call);
      LLVMValueRef dother = varied ? rev_shadow_of(r, other, call) : NULL;
      if (rule->cuda->to_symbol || dother)
        r->failed |= !cuda_symbol_copy_derivative(r->b, rule, call, primal_in_sweep, r,
                                                  dother ? rev_primal(r, dother) : NULL, r->sig->fn);
      LLVMValueRef snapshot = rule->cuda->to_symbol ? vmap_get(&r->shadow, call) : NULL;
      if (snapshot) {
        cuda_symbol_restore(r->b, rev_primal(r, snapshot), r->sig->fn);
        rev_own(r, (Owned){.value = snapshot, .how = RELEASE_CALL, .function = cuda_symbol_discard_function()});
      }
      return;
    }
    if (!is_varied(r, dst))
      return;
    bool moves = rule->kind == RULE_MEMCPY && is_varied(r, src);
    MemoryTypes m = moves ? rev_memory_types(r, dst, src) : (MemoryTypes){0};
    if (moves && (m.mixed_floats || (m.floats && LLVMGetTypeKind(m.floats) == LLVMVectorTypeKind))) {
      fail(r, call, "it copies memory (%s) that holds floats of several types",
           kn_function_name(kn_called_function(call)));
      return;
    }
    /* A count or an index copied into an integer variable: no adjoint moves. */
    if (moves && m.numbers && !m.floats && !m.mixed_floats && !m.pointers && !m.record)
      return;
    /* none: the host never reads it as numbers; the runtime knows the type
     * from the kernels launched with it. */
    cuda_reverse_of_write(r->b, rule, call, primal_in_sweep, r,
                          moves ? rev_primal(r, rev_shadow_of(r, src, call)) : NULL,
                          rev_primal(r, rev_shadow_of(r, dst, call)), m.floats, r->sig->fn);
    return;
  }
  default:
    return;
  }
}

static void reverse_memory_call(Reverse *r, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  if (rule->cuda) {
    reverse_cuda_memory_call(r, call, rule);
    return;
  }
  switch (rule->kind) {
  case RULE_ALLOC:
  case RULE_CALLOC:
  case RULE_POSIX_MEMALIGN:
    rev_free(r, vmap_get(&r->shadow, call));
    if (vset_has(&r->stack_on_heap, call))
      rev_free(r, call);
    return;
  case RULE_REALLOC: {
    LLVMValueRef shadow = rev_primal(r, vmap_get(&r->shadow, call)), old = LLVMGetOperand(call, 0);
    MemoryTypes m = rev_realloc_types(r, call);
    LLVMTypeRef element = m.record ? m.record : m.mixed_floats ? NULL : m.floats;
    /* Memory of no known type may hold floats whose adjoints would stay
     * behind in the old shadow. Not so Kinase's own tape vectors (grown
     * in kinase.tape.push, differentiated again for higher orders), whose
     * records are of many types, and which move nothing here, as before. */
    if (is_varied(r, old) && (m.floats ? !element : !m.pointers && !m.ints) &&
        !kn_is_generated_function(r->sig->fn))
      rev_refuse_untyped_copy(r, call, "it reallocates memory whose element type Kinase cannot decide: "
                                       "access it as its own type (not only as void *) where it is "
                                       "reallocated or in the caller");
    else if (is_varied(r, old) && element) {
      LLVMValueRef old_shadow = rev_primal(r, rev_shadow_of(r, old, call));
      LLVMValueRef fn = rev_copy_adjoints_function(element, false);
      LLVMValueRef args[3] = {old_shadow, shadow,
                              rev_kept_bytes(r->b, old_shadow, rev_primal(r, LLVMGetOperand(call, 1)))};
      LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
    }
    rev_free(r, vmap_get(&r->shadow, call));
    return;
  }
  case RULE_MEMSET:
    if (is_varied(r, dst))
      LLVMBuildMemSet(r->b, rev_primal(r, rev_shadow_of(r, dst, call)), zero_byte(),
                      rev_primal(r, LLVMGetOperand(call, 2)), 1);
    return;
  case RULE_MEMCPY: {
    LLVMValueRef src = LLVMGetOperand(call, 1), len = rev_primal(r, LLVMGetOperand(call, 2));
    if (!is_varied(r, dst))
      return;
    LLVMValueRef ddst = rev_primal(r, rev_shadow_of(r, dst, call));
    if (!is_varied(r, src)) {
      LLVMBuildMemSet(r->b, ddst, zero_byte(), len, 1);
      return;
    }
    MemoryTypes m = rev_copy_types(r, call);
    /* No adjoints to move: pointers, integers, or what was noted. */
    if (!m.floats && (m.pointers || m.declared || m.numbers))
      return;
    LLVMTypeRef element = m.record ? m.record : m.mixed_floats ? NULL : m.floats;
    if (!element) {
      rev_refuse_untyped_copy(r, call, "it copies memory (memcpy) whose element type Kinase cannot "
                                       "decide: it must hold floats of one type");
      return;
    }
    LLVMValueRef fn = rev_copy_adjoints_function(element, kn_module.gpu && threads_may_share(r, src));
    LLVMValueRef args[3] = {rev_primal(r, rev_shadow_of(r, src, call)), ddst,
                            LLVMBuildZExtOrBitCast(r->b, len, i64(), "")};
    LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
    return;
  }
  default:
    return;
  }
}

/* Barriers are waited at again; a shuffle's adjoint goes back to the lanes
 * its value came from (cuda/warp.c). */
static void reverse_warp_call(Reverse *r, LLVMValueRef call, const Rule *rule, LLVMValueRef a) {
  LLVMValueRef args[4];
  unsigned n = LLVMGetNumArgOperands(call);
  if (rule->kind == RULE_SHUFFLE && !a)
    return;
  for (unsigned i = 0; i < n && i < 4; i++)
    args[i] = i == rule->arg ? NULL : rev_primal(r, LLVMGetOperand(call, i));
  if (rule->kind == RULE_BARRIER)
    cuda_mirror_barrier(r->b, call, rule->warp, args);
  else
    rev_add_adjoint(r, LLVMGetOperand(call, rule->arg), cuda_shuffle_transpose(r->b, rule->warp, args, a));
}

static void reverse_call(Reverse *r, LLVMValueRef call, LLVMValueRef a) {
  const Rule *rule = rule_for_call(call);
  if (rule && rule->kind == RULE_MATH) {
    if (a)
      reverse_partials(r, call, rule->partial, rule->arg, a);
    return;
  }
  if (rule && rule->kind == RULE_MODEL) {
    if (a)
      reverse_model_call(r, call, rule_model_function(rule, call), a);
    return;
  }
  if (rule && (rule->kind == RULE_BARRIER || rule->kind == RULE_SHUFFLE)) {
    reverse_warp_call(r, call, rule, a);
    return;
  }
  if (rule) {
    reverse_memory_call(r, call, rule);
    return;
  }
  AugCall *aug = rev_aug_call_of(r, call);
  if (aug)
    reverse_user_call(r, aug);
}

/* The transposes of the linear, structural instructions. */
static void reverse_structural(Reverse *r, LLVMValueRef inst, LLVMValueRef a) {
  LLVMValueRef x = LLVMGetOperand(inst, 0);
  LLVMTypeRef xt = LLVMTypeOf(x);
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMFNeg:
    rev_add_adjoint(r, x, LLVMBuildFNeg(r->b, a, ""));
    return;
  case LLVMFPExt:
  case LLVMFPTrunc:
    rev_add_adjoint(r, x, LLVMBuildFPCast(r->b, a, xt, ""));
    return;
  case LLVMBitCast: {
    /* Back to the operand's type, or to the float type an integer copy moves. */
    LLVMTypeRef to = adjoint_type(r, x);
    if (kn_type_has_floats(to))
      rev_add_adjoint(r, x, to == LLVMTypeOf(a) ? a : LLVMBuildBitCast(r->b, a, to, ""));
    return;
  }
  case LLVMFreeze:
    rev_add_adjoint(r, x, a);
    return;
  case LLVMSelect: {
    LLVMValueRef c = rev_primal(r, x), zero = LLVMConstNull(LLVMTypeOf(a));
    rev_add_adjoint(r, LLVMGetOperand(inst, 1), LLVMBuildSelect(r->b, c, a, zero, ""));
    rev_add_adjoint(r, LLVMGetOperand(inst, 2), LLVMBuildSelect(r->b, c, zero, a, ""));
    return;
  }
  case LLVMExtractValue: {
    unsigned n = LLVMGetNumIndices(inst);
    const unsigned *idx = LLVMGetIndices(inst);
    if (n != 1) {
      fail(r, inst, "it extracts a nested aggregate field%s", "");
      return;
    }
    rev_add_adjoint(r, x, LLVMBuildInsertValue(r->b, LLVMConstNull(xt), a, idx[0], ""));
    return;
  }
  case LLVMInsertValue: {
    unsigned n = LLVMGetNumIndices(inst);
    const unsigned *idx = LLVMGetIndices(inst);
    if (n != 1) {
      fail(r, inst, "it inserts a nested aggregate field%s", "");
      return;
    }
    LLVMValueRef field = LLVMGetOperand(inst, 1);
    rev_add_adjoint(r, x, LLVMBuildInsertValue(r->b, a, LLVMConstNull(LLVMTypeOf(field)), idx[0], ""));
    rev_add_adjoint(r, field, LLVMBuildExtractValue(r->b, a, idx[0], ""));
    return;
  }
  case LLVMExtractElement: {
    LLVMValueRef index = rev_primal(r, LLVMGetOperand(inst, 1));
    rev_add_adjoint(r, x, LLVMBuildInsertElement(r->b, LLVMConstNull(xt), a, index, ""));
    return;
  }
  case LLVMInsertElement: {
    LLVMValueRef field = LLVMGetOperand(inst, 1), index = rev_primal(r, LLVMGetOperand(inst, 2));
    rev_add_adjoint(r, x, LLVMBuildInsertElement(r->b, a, LLVMConstNull(LLVMTypeOf(field)), index, ""));
    rev_add_adjoint(r, field, LLVMBuildExtractElement(r->b, a, index, ""));
    return;
  }
  case LLVMShuffleVector: {
    LLVMValueRef y = LLVMGetOperand(inst, 1);
    unsigned n0 = LLVMGetVectorSize(xt), lanes = LLVMGetNumMaskElements(inst);
    LLVMValueRef dx = LLVMConstNull(xt), dy = LLVMConstNull(LLVMTypeOf(y));
    for (unsigned j = 0; j < lanes; j++) {
      int m = LLVMGetMaskValue(inst, j);
      if (m < 0)
        continue;
      LLVMValueRef lane = LLVMBuildExtractElement(r->b, a, LLVMConstInt(i32(), j, 0), "");
      bool first = (unsigned)m < n0;
      LLVMValueRef *acc = first ? &dx : &dy;
      LLVMValueRef at = LLVMConstInt(i32(), first ? (unsigned)m : (unsigned)m - n0, 0);
      LLVMValueRef sum = LLVMBuildFAdd(r->b, LLVMBuildExtractElement(r->b, *acc, at, ""), lane, "");
      *acc = LLVMBuildInsertElement(r->b, *acc, sum, at, "");
    }
    rev_add_adjoint(r, x, dx);
    rev_add_adjoint(r, y, dy);
    return;
  }
  case LLVMLoad:
    if (is_varied(r, x))
      accumulate_into(r, rev_shadow_of(r, x, inst), a, inst);
    return;
  default:
    return;
  }
}

void rev_reverse_instruction(Reverse *r, LLVMValueRef inst, PhiAdjoint **phis) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  /* An augmented call's result is taken by the call's own reverse. */
  if (op == LLVMExtractValue && rev_aug_call_of(r, LLVMGetOperand(inst, 0)))
    return;
  if (rev_may_read_shadows(inst))
    rev_flush_held_adds(r);
  rev_clears_before(r, inst);
  LLVMValueRef a = has_adjoint(r, inst) ? take_adjoint(r, inst) : NULL;
  if (op == LLVMStore) {
    reverse_store(r, inst);
    return;
  }
  if (op == LLVMAtomicRMW) {
    reverse_accumulation(r, inst, a);
    return;
  }
  if (op == LLVMCall) {
    reverse_call(r, inst, a);
    return;
  }
  if (op == LLVMAlloca) {
    LLVMValueRef s = vmap_get(&r->shadow, inst);
    if (s)
      rev_free(r, s);
    return;
  }
  if (!a)
    return;
  if (reverse_square(r, inst, a))
    return;
  PartialFn partial = rule_for_opcode(op);
  if (partial) {
    reverse_partials(r, inst, partial, 2, a);
  } else if (op == LLVMPHI) {
    arrput(*phis, ((PhiAdjoint){inst, a}));
  } else {
    reverse_structural(r, inst, a);
  }
}
