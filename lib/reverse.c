/* Reverse mode: a pair of functions per function and activity pattern.
 *
 *   aug: the primal, plus the shadows of pointers (shadow memory mirrors
 *        primal memory) and a tape of the values the reverse sweep needs;
 *   rev: one reverse block per primal block, run in the reverse order of the
 *        forward execution, propagating adjoints from results to operands.
 *
 * require: aug and rev declared with derive_aug_type / derive_type, empty.
 *
 * The tape. Each execution of a primal block B appends one record holding
 * the values of B that the reverse sweep needs ("roots"), so the k-th
 * execution's values sit at index k of B's record array. The reverse sweep
 * keeps a counter per block, decremented when it leaves B's reverse block:
 * wherever the reverse code needs a value of B, it reads record counter-1,
 * which is the execution of B the forward sweep last saw at that point (SSA
 * dominance guarantees this). This needs no loop analysis and holds for any
 * control flow. A block with several predecessors records which one it came
 * from, so that its reverse block can go back the same way.
 *
 * Loops in canonical form (one preheader, one latch, exits reached only from
 * inside) get an iteration counter: the exits record its final value, the
 * reverse sweep counts it down, and needs no record per iteration to know
 * where to go or what an induction variable (i = init + k * step) was.
 *
 * Values are recomputed in the reverse sweep rather than recorded when they
 * are pure (arithmetic, casts, GEPs, compares) and their operands are
 * available, and so are loads of memory that stays as it was: a request's
 * own sweeps run back to back, so where the function writes no memory but
 * its own, loads from arguments and globals read the same in reverse. Other
 * loads, calls and phis are recorded. Roots are discovered while
 * the reverse sweep is generated: each use reads through a placeholder load,
 * whose address is filled in once every block's record layout is known.
 *
 * Adjoints live in one stack slot per active value (promoted to registers
 * by the cleanup pipeline); an instruction's reverse reads and zeroes its
 * slot, then adds into its operands' slots. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  LLVMValueRef load; /* in rev: a load from a placeholder address */
  LLVMValueRef root; /* in aug */
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

/* The record of one primal block. */
typedef struct {
  LLVMBasicBlockRef block;
  LLVMValueRef *roots;     /* recorded values, in field order */
  LLVMTypeRef record;      /* struct of the roots' types */
  unsigned tape_field;     /* index of its {data, count, capacity} in the tape */
  LLVMValueRef counter;    /* rev: i64 slot */
  LLVMValueRef data;       /* rev: ptr slot */
} BlockRecord;

/* A loop in canonical form with its iteration counter. */
typedef struct {
  Loop *loop;
  LLVMValueRef counter;  /* aug: i64 phi in the header, 0 on entry */
  ValueMap exit_count;   /* aug exit block -> phi of the counter there */
  LLVMValueRef slot;     /* rev: the iteration being reversed */
} CountedLoop;

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
  ValueSet stack_on_heap;  /* aug: callocs standing for allocas (see keep_stack_alive) */
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
  Placeholder *placeholders;
  BlockRecord *records;
  LLVMValueRef rev_entry, rev_exit; /* blocks (as values) */
  LLVMValueRef aug_tape;   /* aug: the tape pointer */
  bool failed;
} Reverse;

static void fail(Reverse *r, LLVMValueRef where, const char *fmt, const char *detail) {
  if (!r->failed)
    kn_error(where, r->sig->fn, fmt, detail);
  r->failed = true;
}

static LLVMContextRef ctx(void) { return kn_module.ctx; }
static LLVMTypeRef i64(void) { return LLVMInt64TypeInContext(ctx()); }
static LLVMTypeRef i32(void) { return LLVMInt32TypeInContext(ctx()); }
static LLVMTypeRef ptr(void) { return LLVMPointerTypeInContext(ctx(), 0); }
static LLVMValueRef const64(unsigned long long v) { return LLVMConstInt(i64(), v, 0); }

static bool is_varied(Reverse *r, LLVMValueRef v) { return vset_has(&r->varied, v); }
/* Values with an adjoint: varied and holding floats. */
static LLVMValueRef copy_of(Reverse *r, LLVMValueRef v) { return vmap_get(&r->copied_as, v); }

/* The type of v's adjoint: its own, or the float type an integer copy moves. */
static LLVMTypeRef adjoint_type(Reverse *r, LLVMValueRef v) {
  LLVMValueRef copy = copy_of(r, v);
  return copy && LLVMIsAConstant(copy) ? LLVMTypeOf(copy) : LLVMTypeOf(v);
}

static bool has_adjoint(Reverse *r, LLVMValueRef v) {
  return vset_has(&r->useful, v) && ((is_varied(r, v) && kn_type_has_floats(LLVMTypeOf(v))) ||
                                     kn_type_has_floats(adjoint_type(r, v)));
}

static LLVMBasicBlockRef reverse_of(Reverse *r, LLVMBasicBlockRef bb) {
  return LLVMValueAsBasicBlock(vmap_get(&r->reverse_block, LLVMBasicBlockAsValue(bb)));
}

/* kinase.tape.push(vec, size): appends a record of `size` bytes to
 * vec = {ptr data, i64 count, i64 capacity}, growing it geometrically, and
 * returns the record's address. */
static LLVMValueRef tape_push_function(void) {
  const char *name = "kinase.tape.push";
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  LLVMTypeRef params[2] = {ptr(), i64()};
  fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(ptr(), params, 2, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMValueRef vec = LLVMGetParam(fn, 0), size = LLVMGetParam(fn, 1);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx(), fn, "entry");
  LLVMBasicBlockRef grow = LLVMAppendBasicBlockInContext(ctx(), fn, "grow");
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(ctx(), fn, "store");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMTypeRef vec_type = LLVMStructTypeInContext(ctx(), (LLVMTypeRef[]){ptr(), i64(), i64()}, 3, 0);
  LLVMValueRef data_at = LLVMBuildStructGEP2(b, vec_type, vec, 0, "");
  LLVMValueRef count_at = LLVMBuildStructGEP2(b, vec_type, vec, 1, "");
  LLVMValueRef cap_at = LLVMBuildStructGEP2(b, vec_type, vec, 2, "");
  LLVMValueRef data = LLVMBuildLoad2(b, ptr(), data_at, "data");
  LLVMValueRef count = LLVMBuildLoad2(b, i64(), count_at, "count");
  LLVMValueRef cap = LLVMBuildLoad2(b, i64(), cap_at, "cap");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, count, cap, ""), store, grow);
  LLVMPositionBuilderAtEnd(b, grow);
  LLVMValueRef new_cap = LLVMBuildAdd(b, LLVMBuildMul(b, cap, const64(2), ""), const64(16), "");
  LLVMValueRef realloc_args[2] = {data, LLVMBuildMul(b, new_cap, size, "")};
  LLVMValueRef grown = kn_call_libc(b, "realloc", ptr(), realloc_args, 2);
  LLVMBuildStore(b, grown, data_at);
  LLVMBuildStore(b, new_cap, cap_at);
  LLVMBuildBr(b, store);
  LLVMPositionBuilderAtEnd(b, store);
  LLVMValueRef base = LLVMBuildPhi(b, ptr(), "base");
  LLVMAddIncoming(base, (LLVMValueRef[]){data, grown}, (LLVMBasicBlockRef[]){entry, grow}, 2);
  LLVMBuildStore(b, LLVMBuildAdd(b, count, const64(1), ""), count_at);
  LLVMValueRef offset = LLVMBuildMul(b, count, size, "");
  LLVMBuildRet(b, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx()), base, &offset, 1, "record"));
  LLVMDisposeBuilder(b);
  return fn;
}

/* What the memory behind p1 and p2 holds, from the loads, stores and GEPs
 * through the same underlying objects: its float element type (NULL if
 * none, or if floats of two types), and whether it holds pointers. */
typedef struct {
  LLVMTypeRef floats;
  bool mixed_floats, pointers, ints;
} MemoryTypes;

static void note_type(MemoryTypes *m, LLVMTypeRef type) {
  while (LLVMGetTypeKind(type) == LLVMArrayTypeKind || LLVMGetTypeKind(type) == LLVMVectorTypeKind)
    type = LLVMGetElementType(type);
  if (LLVMGetTypeKind(type) == LLVMStructTypeKind) {
    for (unsigned i = 0, n = LLVMCountStructElementTypes(type); i < n; i++)
      note_type(m, LLVMStructGetTypeAtIndex(type, i));
  } else if (kn_is_float_type(type)) {
    m->mixed_floats |= m->floats && m->floats != type;
    m->floats = type;
  } else if (kn_is_pointer_type(type)) {
    m->pointers = true;
  } else if (LLVMGetTypeKind(type) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(type) > 8) {
    m->ints = true;
  }
}

/* Memory objects: pointers that phis or selects may make the same pointer
 * (a buffer and its realloc'd successor) are one object. */
static LLVMValueRef object_of(Reverse *r, LLVMValueRef p) {
  LLVMValueRef v = kn_underlying_object(p), up;
  while ((up = vmap_get(&r->object_parent, v)))
    v = up;
  return v;
}

static void join_objects(Reverse *r, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef x = object_of(r, a), y = object_of(r, b);
  if (x != y)
    vmap_put(&r->object_parent, x, y);
}

static void find_memory_objects(Reverse *r) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      if (!kn_is_pointer_type(LLVMTypeOf(inst)))
        continue;
      if (LLVMIsAPHINode(inst))
        for (unsigned i = 0, n = LLVMCountIncoming(inst); i < n; i++)
          join_objects(r, inst, LLVMGetIncomingValue(inst, i));
      else if (LLVMIsASelectInst(inst))
        for (unsigned i = 1; i < 3; i++)
          join_objects(r, inst, LLVMGetOperand(inst, i));
      else if (rule_for_call(inst) && rule_for_call(inst)->kind == RULE_REALLOC)
        join_objects(r, inst, LLVMGetOperand(inst, 0));
    }
}

/* `skip`, an integer copy being decided, and its stores are no evidence. */
static MemoryTypes memory_types_except(Reverse *r, LLVMValueRef p1, LLVMValueRef p2,
                                       LLVMValueRef skip) {
  LLVMValueRef bases[2] = {object_of(r, p1), object_of(r, p2)};
  MemoryTypes m = {0};
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef at = LLVMIsALoadInst(inst)              ? LLVMGetOperand(inst, 0)
                        : LLVMIsAStoreInst(inst)           ? LLVMGetOperand(inst, 1)
                        : LLVMIsAGetElementPtrInst(inst)   ? inst
                                                           : NULL;
      if (!at || vset_has(&r->shadow_code, inst) || inst == skip ||
          (LLVMIsAStoreInst(inst) && LLVMGetOperand(inst, 0) == skip))
        continue;
      LLVMValueRef base = object_of(r, at);
      if (base != bases[0] && base != bases[1])
        continue;
      note_type(&m, LLVMIsALoadInst(inst)    ? LLVMTypeOf(inst)
                    : LLVMIsAStoreInst(inst) ? LLVMTypeOf(LLVMGetOperand(inst, 0))
                                             : LLVMGetGEPSourceElementType(inst));
    }
  for (int i = 0; i < 2; i++) {
    LLVMValueRef base = kn_underlying_object(i ? p2 : p1);
    if (LLVMIsAAllocaInst(base))
      note_type(&m, LLVMGetAllocatedType(base));
  }
  return m;
}

/* ---- integer copies ----
 * Optimisations turn small copies (memcpy of 8 bytes, assignment of a struct
 * holding one double) into integer loads and stores. What they move is
 * decided from TBAA and from the other accesses to the same memory: floats
 * get adjoints of their float type, pointers get their shadows copied, and a
 * copy that cannot be decided is an error rather than a silent zero. */

/* The type TBAA gives an access: a float type, ptr, an integer, or NULL. */
static LLVMTypeRef tbaa_type(LLVMValueRef inst) {
  LLVMValueRef tag = LLVMGetMetadata(inst, LLVMGetMDKindIDInContext(ctx(), "tbaa", 4));
  if (!tag || LLVMGetMDNodeNumOperands(tag) < 2)
    return NULL;
  LLVMValueRef ops[4];
  if (LLVMGetMDNodeNumOperands(tag) > 4)
    return NULL;
  LLVMGetMDNodeOperands(tag, ops);
  LLVMValueRef access = ops[1];
  if (!access || !LLVMIsAMDNode(access) || !LLVMGetMDNodeNumOperands(access))
    return NULL;
  LLVMValueRef names[8];
  if (LLVMGetMDNodeNumOperands(access) > 8)
    return NULL;
  LLVMGetMDNodeOperands(access, names);
  unsigned len;
  const char *name = names[0] ? LLVMGetMDString(names[0], &len) : NULL;
  if (!name)
    return NULL;
  if (!strcmp(name, "double"))
    return LLVMDoubleTypeInContext(ctx());
  if (!strcmp(name, "float"))
    return LLVMFloatTypeInContext(ctx());
  if (!strcmp(name, "any pointer") || !strncmp(name, "p1 ", 3) || !strncmp(name, "p2 ", 3))
    return ptr();
  if (!strcmp(name, "int") || !strcmp(name, "long") || !strcmp(name, "long long") ||
      !strcmp(name, "short"))
    return i64();
  return NULL;
}

/* Stores of the value, or reinterpretations of its bits as a float. */
static bool only_moved(LLVMValueRef load) {
  for (LLVMUseRef use = LLVMGetFirstUse(load); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    bool stored = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == load;
    bool reread = LLVMIsABitCastInst(user) && kn_is_float_type(LLVMTypeOf(user));
    if (!stored && !reread)
      return false;
  }
  return LLVMGetFirstUse(load) != NULL;
}

/* The scalar type at an address computed by a GEP with constant field
 * indices (or an alloca), descending to offset 0 of aggregates; NULL when
 * the address does not say. */
static LLVMTypeRef addressed_type(LLVMValueRef at) {
  LLVMTypeRef type = NULL;
  if (LLVMIsAAllocaInst(at)) {
    type = LLVMGetAllocatedType(at);
  } else if (LLVMIsAGetElementPtrInst(at)) {
    type = LLVMGetGEPSourceElementType(at);
    for (int i = 2, n = LLVMGetNumOperands(at); i < n && type; i++) {
      LLVMTypeKind kind = LLVMGetTypeKind(type);
      LLVMValueRef index = LLVMGetOperand(at, (unsigned)i);
      if (kind == LLVMStructTypeKind && LLVMIsAConstantInt(index))
        type = LLVMStructGetTypeAtIndex(type, (unsigned)LLVMConstIntGetZExtValue(index));
      else if (kind == LLVMArrayTypeKind || kind == LLVMVectorTypeKind)
        type = LLVMGetElementType(type);
      else
        type = NULL;
    }
  }
  while (type && (LLVMGetTypeKind(type) == LLVMStructTypeKind || LLVMGetTypeKind(type) == LLVMArrayTypeKind)) {
    bool is_struct = LLVMGetTypeKind(type) == LLVMStructTypeKind;
    if (is_struct && !LLVMCountStructElementTypes(type))
      return NULL;
    type = is_struct ? LLVMStructGetTypeAtIndex(type, 0) : LLVMGetElementType(type);
  }
  return type;
}

/* What an integer load that is only moved carries: first from what the
 * copy's own addresses, TBAA tags and reinterpretations say, then from the
 * other accesses to the same memory. */
static MemoryTypes copied_types(Reverse *r, LLVMValueRef load) {
  MemoryTypes m = {0};
  LLVMValueRef from = LLVMGetOperand(load, 0);
  LLVMTypeRef direct[3] = {addressed_type(from), tbaa_type(load), NULL};
  for (int i = 0; i < 2; i++)
    if (direct[i])
      note_type(&m, direct[i]);
  for (LLVMUseRef use = LLVMGetFirstUse(load); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    direct[0] = LLVMIsABitCastInst(user) ? LLVMTypeOf(user) : addressed_type(LLVMGetOperand(user, 1));
    direct[1] = LLVMIsAStoreInst(user) ? tbaa_type(user) : NULL;
    for (int i = 0; i < 2; i++)
      if (direct[i])
        note_type(&m, direct[i]);
  }
  if (m.floats || m.pointers || m.ints)
    return m;
  for (LLVMUseRef use = LLVMGetFirstUse(load); use; use = LLVMGetNextUse(use)) {
    MemoryTypes both = memory_types_except(r, from, LLVMGetOperand(LLVMGetUser(use), 1), load);
    if (both.floats)
      note_type(&m, both.floats);
    m.mixed_floats |= both.mixed_floats;
    m.pointers |= both.pointers;
    m.ints |= both.ints;
  }
  return m;
}

static void find_integer_copies(Reverse *r) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks) && !r->failed; k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      LLVMTypeRef type = LLVMTypeOf(inst);
      if (!LLVMIsALoadInst(inst) || LLVMGetTypeKind(type) != LLVMIntegerTypeKind ||
          !is_varied(r, LLVMGetOperand(inst, 0)) || !only_moved(inst))
        continue;
      unsigned bits = LLVMGetIntTypeWidth(type);
      MemoryTypes m = copied_types(r, inst);
      bool floats = m.floats && !m.mixed_floats &&
                    LLVMABISizeOfType(kn_module.layout, m.floats) * 8 == bits;
      bool pointers = m.pointers && bits == 8 * LLVMPointerSize(kn_module.layout);
      if (floats && !pointers) {
        vmap_put(&r->copied_as, inst, LLVMConstNull(m.floats));
        vset_add(&r->varied, inst);
      } else if (pointers && !floats) {
        vmap_put(&r->copied_as, inst, inst);
      } else if ((floats && pointers) || (bits >= 32 && !m.floats && !m.pointers && !m.ints)) {
        fail(r, inst, "it copies %s bytes whose type Kinase cannot decide (floats, pointers or "
                      "integers); copy them as their own type",
             bits == 64 ? "8" : bits == 32 ? "4" : "several");
      }
    }
}

static MemoryTypes memory_types(Reverse *r, LLVMValueRef p1, LLVMValueRef p2) {
  return memory_types_except(r, p1, p2, NULL);
}

/* The value aug returns, NULL for void. */
static LLVMValueRef returned_value(Reverse *r) {
  LLVMValueRef ret = LLVMGetBasicBlockTerminator(r->ret_block);
  return LLVMGetNumOperands(ret) ? LLVMGetOperand(ret, 0) : NULL;
}

/* ---- the augmented forward sweep ---- */

/* Pointers, and addresses held in integers, have shadows. */
static bool has_shadow(Reverse *r, LLVMValueRef v) {
  return is_varied(r, v) && (kn_is_pointer_type(LLVMTypeOf(v)) ||
                             (LLVMIsAInstruction(v) && activity_address_operand(&r->varied, v) >= 0));
}

static LLVMValueRef shadow_of(Reverse *r, LLVMValueRef v, LLVMValueRef user) {
  if (has_shadow(r, v)) {
    LLVMValueRef s = vmap_get(&r->shadow, v);
    if (!s)
      kn_die("varied pointer %s has no shadow yet", kn_value_name(v));
    return s;
  }
  return unsupported_missing_shadow(v, user, r->sig->fn, &r->failed);
}

/* The instruction applied to the shadows of operands [first, first+count). */
static LLVMValueRef shadow_twin(Reverse *r, LLVMValueRef inst, unsigned first, unsigned count) {
  LLVMValueRef copy = LLVMInstructionClone(inst);
  for (unsigned i = first; i < first + count; i++)
    LLVMSetOperand(copy, i, shadow_of(r, LLVMGetOperand(inst, i), inst));
  kn_drop_metadata(copy);
  LLVMInsertIntoBuilderWithName(r->ab, copy, "shadow");
  vset_add(&r->shadow_code, copy);
  return copy;
}

static void set_shadow(Reverse *r, LLVMValueRef v, LLVMValueRef shadow) {
  vmap_put(&r->shadow, v, shadow);
  vset_add(&r->shadow_code, shadow);
}

static LLVMValueRef zero_byte(void) { return LLVMConstInt(LLVMInt8TypeInContext(ctx()), 0, 0); }

static LLVMValueRef alloca_size(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMValueRef size = const64(LLVMABISizeOfType(kn_module.layout, LLVMGetAllocatedType(inst)));
  LLVMValueRef count = LLVMGetOperand(inst, 0);
  if (LLVMIsAConstantInt(count) && LLVMConstIntGetZExtValue(count) == 1)
    return size;
  return LLVMBuildMul(b, size, LLVMBuildZExtOrBitCast(b, count, i64(), ""), "");
}

static Signature call_signature(Reverse *r, LLVMValueRef call, LLVMValueRef callee) {
  Signature sig = {.fn = callee, .mode = MODE_REVERSE};
  sig.nparams = LLVMGetNumArgOperands(call);
  for (unsigned i = 0; i < sig.nparams; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    sig.params[i] = !is_varied(r, arg)                        ? ACT_CONST
                    : kn_is_pointer_type(LLVMTypeOf(arg))     ? ACT_DUP
                    : kn_type_has_floats(LLVMTypeOf(arg))     ? ACT_OUT
                                                              : ACT_CONST;
  }
  sig.ret_tangent = has_adjoint(r, call);
  return sig;
}

static unsigned call_args(Reverse *r, LLVMValueRef call, const Signature *sig, LLVMValueRef *primals,
                          LLVMValueRef *args, LLVMValueRef (*value)(Reverse *, LLVMValueRef)) {
  unsigned n = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    args[n++] = value(r, primals[i]);
    if (sig->params[i] == ACT_DUP)
      args[n++] = value(r, shadow_of(r, primals[i], call));
  }
  return n;
}

static LLVMValueRef identity(Reverse *r, LLVMValueRef v) {
  (void)r;
  return v;
}

static void operands(LLVMValueRef call, LLVMValueRef *out) {
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++)
    out[i] = LLVMGetOperand(call, i);
}

/* A call of a function in the module: the augmented forward sweep calls its
 * aug function and keeps the tape for the reverse sweep. */
static void augment_user_call(Reverse *r, LLVMValueRef call, LLVMValueRef callee) {
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)) ||
      LLVMGetNumArgOperands(call) > KN_MAX_PARAMS) {
    fail(r, call, "it calls variadic or very long function '%s'", kn_function_name(callee));
    return;
  }
  /* The pair's tape is a pointer inside a returned struct, which gets no
   * shadow: its second derivative would read through null. */
  const char *name = kn_function_name(callee);
  if (!strncmp(name, "__kinase_aug_", 13) || !strncmp(name, "__kinase_rev_", 13)) {
    fail(r, call, "it computes a gradient (%s) itself: reverse mode over reverse mode is not "
                  "supported yet; differentiate the gradient in forward mode (__enzyme_fwddiff)",
         "__enzyme_autodiff");
    return;
  }
  AugCall aug = {.sig = call_signature(r, call, callee)};
  operands(call, aug.args);
  LLVMValueRef args[2 * KN_MAX_PARAMS];
  unsigned n = call_args(r, call, &aug.sig, aug.args, args, identity);
  aug.call = LLVMBuildCall2(r->ab, derive_aug_type(&aug.sig), derive_aug(&aug.sig), args, n, "");
  LLVMTypeRef ret = LLVMTypeOf(call);
  unsigned field = 0;
  if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind) {
    aug.result = LLVMBuildExtractValue(r->ab, aug.call, field++, kn_value_name(call));
    LLVMReplaceAllUsesWith(call, aug.result);
    if (is_varied(r, call))
      vset_add(&r->varied, aug.result);
    if (vset_has(&r->useful, call))
      vset_add(&r->useful, aug.result);
    if (LLVMGetTypeKind(ret) == LLVMPointerTypeKind) {
      LLVMValueRef shadow = LLVMBuildExtractValue(r->ab, aug.call, field++, "shadow");
      if (is_varied(r, call))
        vmap_put(&r->shadow, aug.result, shadow);
    }
  }
  aug.tape = LLVMBuildExtractValue(r->ab, aug.call, field, "tape");
  /* Its address may come back as a new instruction's. */
  vset_remove(&r->varied, call);
  LLVMInstructionEraseFromParent(call);
  arrput(r->calls, aug);
}

/* A registered gradient: the user's augmented pass takes every argument,
 * each pointer followed by its shadow, and returns nothing, a tape pointer,
 * or {tape, result[, shadow of a pointer result]}; where it gives no result
 * the function itself still runs for it. */
static void augment_custom_call(Reverse *r, LLVMValueRef call, const Registration *custom) {
  AugCall aug = {.sig = call_signature(r, call, kn_called_function(call)),
                 .custom_reverse = custom->reverse};
  operands(call, aug.args);
  LLVMValueRef args[2 * KN_MAX_PARAMS];
  unsigned n = 0;
  for (unsigned i = 0; i < aug.sig.nparams; i++) {
    args[n++] = aug.args[i];
    if (kn_is_pointer_type(LLVMTypeOf(aug.args[i])))
      args[n++] = shadow_of(r, aug.args[i], call);
  }
  if (!registry_check_arity(custom->augmented, n, call, r->sig->fn)) {
    r->failed = true;
    return;
  }
  LLVMTypeRef type = LLVMGlobalGetValueType(custom->augmented);
  LLVMValueRef result = LLVMBuildCall2(r->ab, type, custom->augmented, args, n, "");
  LLVMTypeRef ret = LLVMGetReturnType(type);
  bool gives_result = LLVMGetTypeKind(ret) == LLVMStructTypeKind && LLVMCountStructElementTypes(ret) > 1;
  if (LLVMGetTypeKind(ret) == LLVMPointerTypeKind)
    aug.tape = result;
  else if (LLVMGetTypeKind(ret) == LLVMStructTypeKind)
    aug.tape = LLVMBuildExtractValue(r->ab, result, 0, "tape");
  aug.call = result;
  if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind) {
    LLVMValueRef primal = call;
    if (gives_result) {
      primal = LLVMBuildExtractValue(r->ab, result, 1, kn_value_name(call));
      LLVMReplaceAllUsesWith(call, primal);
      if (is_varied(r, call))
        vset_add(&r->varied, primal);
      if (vset_has(&r->useful, call))
        vset_add(&r->useful, primal);
      vset_remove(&r->varied, call);
      LLVMInstructionEraseFromParent(call);
    }
    aug.result = primal;
  } else {
    LLVMInstructionEraseFromParent(call);
  }
  arrput(r->calls, aug);
}

static AugCall *aug_call_of(Reverse *r, LLVMValueRef call) {
  for (ptrdiff_t i = 0; i < arrlen(r->calls); i++)
    if (r->calls[i].call == call)
      return &r->calls[i];
  return NULL;
}

/* The bytes of p's shadow that a realloc to n keeps: min(usable size, n). */
static LLVMValueRef kept_bytes(LLVMBuilderRef b, LLVMValueRef shadow, LLVMValueRef n) {
  LLVMValueRef usable = kn_call_libc(b, "malloc_usable_size", i64(), &shadow, 1);
  n = LLVMBuildZExtOrBitCast(b, n, i64(), "");
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, usable, n, ""), usable, n, "");
}

/* q = realloc(p, n): the shadow gets fresh zeroed memory; p's shadow stays
 * alive for the reverse sweep, which moves q's adjoints back into it.
 * Pointers' shadows are copied forward. */
static void augment_realloc(Reverse *r, LLVMValueRef call) {
  LLVMValueRef old = LLVMGetOperand(call, 0), n = LLVMGetOperand(call, 1);
  LLVMValueRef shadow = kn_call_calloc(r->ab, n);
  set_shadow(r, call, shadow);
  if (memory_types(r, call, old).pointers && is_varied(r, old)) {
    LLVMValueRef old_shadow = shadow_of(r, old, call);
    vset_add(&r->shadow_code, LLVMBuildMemCpy(r->ab, shadow, 1, old_shadow, 1,
                                              kept_bytes(r->ab, old_shadow, n)));
  }
}

static void augment_memory_call(Reverse *r, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  switch (rule->kind) {
  case RULE_ALLOC:
  case RULE_CALLOC: {
    LLVMValueRef shadow =
        rule->kind == RULE_CALLOC
            ? kn_call_libc(r->ab, "calloc", ptr(),
                           (LLVMValueRef[]){LLVMGetOperand(call, 0), LLVMGetOperand(call, 1)}, 2)
            : kn_call_calloc(r->ab, LLVMGetOperand(call, rule->arg));
    set_shadow(r, call, shadow);
    return;
  }
  case RULE_REALLOC:
    augment_realloc(r, call);
    return;
  case RULE_POSIX_MEMALIGN: {
    LLVMValueRef slot = shadow_of(r, dst, call);
    LLVMValueRef args[3] = {slot, LLVMGetOperand(call, 1), LLVMGetOperand(call, 2)};
    vset_add(&r->shadow_code, kn_call_libc(r->ab, "posix_memalign", LLVMTypeOf(call), args, 3));
    LLVMValueRef shadow = LLVMBuildLoad2(r->ab, ptr(), slot, "shadow");
    LLVMBuildMemSet(r->ab, shadow, zero_byte(), LLVMGetOperand(call, rule->arg), 1);
    set_shadow(r, call, shadow);
    return;
  }
  case RULE_MEMCPY:
    /* Shadow memory of floats holds adjoints, which the reverse sweep moves;
     * pointers' shadows are copied now, so later loads find them. */
    if (is_varied(r, dst) && is_varied(r, LLVMGetOperand(call, 1))) {
      MemoryTypes m = memory_types(r, dst, LLVMGetOperand(call, 1));
      if (m.pointers && m.floats)
        fail(r, call, "it copies memory (%s) holding both pointers and floats, which Kinase "
                      "cannot yet split", "memcpy");
      else if (m.pointers)
        shadow_twin(r, call, 0, 2);
    }
    r->failed |= unsupported_unshadowed_write(&r->varied, call, dst, LLVMGetOperand(call, 1), r->sig->fn);
    return;
  default:
    return;
  }
}

/* A pointer copied through an integer: its shadow's bits move alongside. */
static bool augment_pointer_copy(Reverse *r, LLVMValueRef inst) {
  if (LLVMIsALoadInst(inst) && copy_of(r, inst) == inst) {
    LLVMValueRef bits = LLVMInstructionClone(inst);
    LLVMSetOperand(bits, 0, shadow_of(r, LLVMGetOperand(inst, 0), inst));
    kn_drop_metadata(bits);
    LLVMInsertIntoBuilderWithName(r->ab, bits, "shadow");
    vset_add(&r->shadow_code, bits);
    vmap_put(&r->shadow, inst, bits);
    return true;
  }
  LLVMValueRef value = LLVMIsAStoreInst(inst) ? LLVMGetOperand(inst, 0) : NULL;
  if (!value || copy_of(r, value) != value || !is_varied(r, LLVMGetOperand(inst, 1)))
    return false;
  LLVMValueRef copy = LLVMInstructionClone(inst);
  LLVMSetOperand(copy, 0, vmap_get(&r->shadow, value));
  LLVMSetOperand(copy, 1, shadow_of(r, LLVMGetOperand(inst, 1), inst));
  kn_drop_metadata(copy);
  LLVMInsertIntoBuilder(r->ab, copy);
  vset_add(&r->shadow_code, copy);
  return true;
}

static void augment_instruction(Reverse *r, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (augment_pointer_copy(r, inst))
    return;
  if (op == LLVMCall) {
    if (LLVMIsAInlineAsm(LLVMGetCalledValue(inst)))
      return;
    const Rule *rule = rule_for_call(inst);
    if (rule && rule->kind != RULE_MATH && rule->kind != RULE_MODEL && rule->kind != RULE_INACTIVE) {
      augment_memory_call(r, inst, rule);
      return;
    }
    if (rule)
      return;
    if (!activity_call_carries(&r->varied, inst) && !is_varied(r, inst))
      return;
    LLVMValueRef callee = kn_called_function(inst);
    if (!callee && devirt_is_fallback(inst))
      devirt_guard_fallback(r->ab, inst, r->sig->fn);
    else if (!callee)
      fail(r, inst, "it makes an indirect call%s with differentiated arguments", "");
    else if (registry_of(callee) && registry_of(callee)->augmented)
      augment_custom_call(r, inst, registry_of(callee));
    else if (LLVMIsDeclaration(callee))
      fail(r, inst,
           LLVMGetIntrinsicID(callee) ? "intrinsic '%s' has no derivative rule"
                                      : "external function '%s' has no derivative rule and no "
                                        "body to differentiate",
           kn_function_name(callee));
    else
      augment_user_call(r, inst, callee);
    return;
  }
  if (op == LLVMStore) {
    LLVMValueRef value = LLVMGetOperand(inst, 0), at = LLVMGetOperand(inst, 1);
    if (is_varied(r, at) && kn_is_pointer_type(LLVMTypeOf(value))) {
      shadow_twin(r, inst, 0, 2);
    } else {
      r->failed |= unsupported_unshadowed_write(&r->varied, inst, at, value, r->sig->fn);
    }
    return;
  }
  if (!has_shadow(r, inst))
    return;
  unsigned first, count;
  activity_structural_operands(op, &first, &count);
  int address = activity_address_operand(&r->varied, inst);
  if (address >= 0 && op != LLVMPtrToInt) {
    set_shadow(r, inst, shadow_twin(r, inst, (unsigned)address, 1));
  } else if (count) {
    set_shadow(r, inst, shadow_twin(r, inst, first, count));
  } else if (op == LLVMPHI) {
    set_shadow(r, inst, LLVMBuildPhi(r->ab, LLVMTypeOf(inst), "shadow"));
  } else if (op == LLVMAlloca) {
    /* The reverse sweep outlives this frame: the shadow goes on the heap. */
    set_shadow(r, inst, kn_call_calloc(r->ab, alloca_size(r->ab, inst)));
  }
}

static bool unsupported_instruction(Reverse *r, LLVMValueRef inst) {
  if (!unsupported_atomic(&r->varied, inst, r->sig->fn))
    return false;
  r->failed = true;
  return true;
}

/* Adds `value` for every CFG edge from `pred` to `phi`'s block: a switch
 * with two cases going to the same block makes two edges, and a phi needs an
 * entry for each. */
static void add_incoming_per_edge(LLVMValueRef phi, LLVMValueRef value, LLVMBasicBlockRef pred) {
  LLVMBasicBlockRef here = LLVMGetInstructionParent(phi);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(pred);
  for (unsigned i = 0, n = LLVMGetNumSuccessors(term); i < n; i++)
    if (LLVMGetSuccessor(term, i) == here)
      LLVMAddIncoming(phi, &value, &pred, 1);
}

/* A block with several distinct predecessors records which one ran: the
 * index of the predecessor in cfg_predecessors. */
static void add_from_index(Reverse *r, LLVMBasicBlockRef bb) {
  LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, bb);
  if (arrlen(preds) < 2)
    return;
  LLVMPositionBuilderBefore(r->ab, LLVMGetFirstInstruction(bb));
  LLVMValueRef phi = LLVMBuildPhi(r->ab, i32(), "from");
  for (ptrdiff_t i = 0; i < arrlen(preds); i++)
    add_incoming_per_edge(phi, LLVMConstInt(i32(), (unsigned long long)i, 0), preds[i]);
  vmap_put(&r->from, LLVMBasicBlockAsValue(bb), phi);
}

static void augment(Reverse *r) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks) && !r->failed; k++) {
    LLVMBasicBlockRef bb = r->blocks[k];
    LLVMValueRef *insts = NULL;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      arrput(insts, inst);
    for (ptrdiff_t i = 0; i < arrlen(insts) && !r->failed; i++) {
      LLVMValueRef inst = insts[i];
      if (LLVMIsATerminatorInst(inst) || unsupported_instruction(r, inst))
        continue;
      LLVMValueRef next = LLVMIsAPHINode(inst) ? kn_first_non_phi(bb) : LLVMGetNextInstruction(inst);
      LLVMPositionBuilderBefore(r->ab, next);
      augment_instruction(r, inst);
    }
    arrfree(insts);
  }
  /* Shadow phis get their incoming shadows once every shadow exists. */
  for (ptrdiff_t k = 0; k < arrlen(r->blocks) && !r->failed; k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst && LLVMIsAPHINode(inst);
         inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef s = vmap_get(&r->shadow, inst);
      if (!s || !LLVMIsAPHINode(s) || LLVMCountIncoming(s))
        continue;
      for (unsigned i = 0, n = LLVMCountIncoming(inst); i < n; i++) {
        LLVMValueRef v = shadow_of(r, LLVMGetIncomingValue(inst, i), inst);
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(inst, i);
        LLVMAddIncoming(s, &v, &from, 1);
      }
    }
}

/* A user's reverse pass reads the memory its arguments point to, after aug
 * has returned: locals passed to a registered gradient live on the heap
 * until the reverse sweep frees them. */
static void keep_stack_alive(Reverse *r) {
  LLVMValueRef *allocas = NULL;
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      const Registration *custom = LLVMIsACallInst(inst) ? registry_of(kn_called_function(inst)) : NULL;
      if (!custom || !custom->augmented)
        continue;
      for (unsigned i = 0, n = LLVMGetNumArgOperands(inst); i < n; i++) {
        LLVMValueRef base = kn_underlying_object(LLVMGetOperand(inst, i));
        if (LLVMIsAAllocaInst(base) && !vset_has(&r->stack_on_heap, base)) {
          vset_add(&r->stack_on_heap, base);
          arrput(allocas, base);
        }
      }
    }
  vset_free(&r->stack_on_heap);
  for (ptrdiff_t i = 0; i < arrlen(allocas); i++) {
    /* Lifetime markers apply to stack slots only. */
    LLVMValueRef *markers = NULL;
    for (LLVMUseRef use = LLVMGetFirstUse(allocas[i]); use; use = LLVMGetNextUse(use)) {
      LLVMValueRef user = LLVMGetUser(use);
      LLVMValueRef callee = LLVMIsACallInst(user) ? kn_called_function(user) : NULL;
      if (callee && !strncmp(kn_function_name(callee), "llvm.lifetime.", 14))
        arrput(markers, user);
    }
    for (ptrdiff_t m = 0; m < arrlen(markers); m++)
      LLVMInstructionEraseFromParent(markers[m]);
    arrfree(markers);
    LLVMPositionBuilderBefore(r->ab, allocas[i]);
    LLVMValueRef heap = kn_call_calloc(r->ab, alloca_size(r->ab, allocas[i]));
    LLVMReplaceAllUsesWith(allocas[i], heap);
    LLVMInstructionEraseFromParent(allocas[i]);
    vset_add(&r->stack_on_heap, heap);
  }
  arrfree(allocas);
}

/* ---- usefulness ----
 * The other half of activity: a varied value needs an adjoint only if it
 * can influence an output, i.e. reach the returned value, memory with a
 * shadow, or a call that is differentiated as a whole. Others get no
 * reverse code at all. */

static void mark_useful(Reverse *r, LLVMValueRef v, bool *changed) {
  if ((LLVMIsAInstruction(v) || LLVMIsAArgument(v)) && vset_add(&r->useful, v))
    *changed = true;
}

static void mark_operands(Reverse *r, LLVMValueRef inst, unsigned first, unsigned count,
                          bool *changed) {
  for (unsigned i = first; i < first + count && i < (unsigned)LLVMGetNumOperands(inst); i++)
    mark_useful(r, LLVMGetOperand(inst, i), changed);
}

/* Sinks: stores into shadowed memory and calls differentiated as a whole. */
static void mark_sinks(Reverse *r, LLVMValueRef inst, bool *changed) {
  if (LLVMIsAStoreInst(inst) && is_varied(r, LLVMGetOperand(inst, 1)))
    mark_useful(r, LLVMGetOperand(inst, 0), changed);
  if (!LLVMIsACallInst(inst))
    return;
  const Rule *rule = rule_for_call(inst);
  if (!rule)
    mark_operands(r, inst, 0, LLVMGetNumArgOperands(inst), changed);
}

static void mark_sources(Reverse *r, LLVMValueRef inst, bool *changed) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned first, count;
  activity_structural_operands(op, &first, &count);
  if (count) {
    mark_operands(r, inst, first, count, changed);
  } else if (rule_for_opcode(op)) {
    mark_operands(r, inst, 0, 2, changed);
  } else if (op == LLVMPHI) {
    for (unsigned i = 0, n = LLVMCountIncoming(inst); i < n; i++)
      mark_useful(r, LLVMGetIncomingValue(inst, i), changed);
  } else if (op == LLVMCall) {
    const Rule *rule = rule_for_call(inst);
    if (rule && rule->kind == RULE_MATH)
      mark_operands(r, inst, 0, rule->arg, changed);
    else if (rule && rule->kind == RULE_MODEL)
      mark_operands(r, inst, 0, LLVMGetNumArgOperands(inst), changed);
  }
}

static void find_useful(Reverse *r) {
  bool changed = true;
  LLVMValueRef ret = r->ret_block ? LLVMGetBasicBlockTerminator(r->ret_block) : NULL;
  if (r->sig->ret_tangent && ret && LLVMGetNumOperands(ret))
    mark_useful(r, LLVMGetOperand(ret, 0), &changed);
  while (changed) {
    changed = false;
    for (ptrdiff_t k = arrlen(r->blocks) - 1; k >= 0; k--)
      for (LLVMValueRef inst = LLVMGetLastInstruction(r->blocks[k]); inst;
           inst = LLVMGetPreviousInstruction(inst)) {
        mark_sinks(r, inst, &changed);
        if (vset_has(&r->useful, inst))
          mark_sources(r, inst, &changed);
      }
  }
}

/* ---- loops ---- */

static CountedLoop *counted_loop_with_header(Reverse *r, LLVMBasicBlockRef header) {
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++)
    if (r->loops[i].loop->header == header)
      return &r->loops[i];
  return NULL;
}

static bool exits_are_dedicated(Reverse *r, Loop *loop) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    if (loop_contains(loop, r->blocks[k]))
      continue;
    LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, r->blocks[k]);
    bool inside = false, outside = false;
    for (ptrdiff_t i = 0; i < arrlen(preds); i++) {
      inside |= loop_contains(loop, preds[i]);
      outside |= !loop_contains(loop, preds[i]);
    }
    if (inside && outside)
      return false;
  }
  return true;
}

/* Gives the loop a counter k (0, 1, ... per iteration) and, in each exit
 * block, a phi of its final value. */
static void count_loop(Reverse *r, Loop *loop) {
  CountedLoop counted = {.loop = loop};
  LLVMPositionBuilderBefore(r->ab, LLVMGetFirstInstruction(loop->header));
  counted.counter = LLVMBuildPhi(r->ab, i64(), "iteration");
  LLVMPositionBuilderBefore(r->ab, LLVMGetBasicBlockTerminator(loop->latch));
  LLVMValueRef next = LLVMBuildAdd(r->ab, counted.counter, const64(1), "iteration.next");
  LLVMValueRef zero = const64(0);
  add_incoming_per_edge(counted.counter, zero, loop->preheader);
  add_incoming_per_edge(counted.counter, next, loop->latch);
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    LLVMBasicBlockRef exit = r->blocks[k];
    LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, exit);
    if (loop_contains(loop, exit) || !arrlen(preds) || !loop_contains(loop, preds[0]))
      continue;
    LLVMPositionBuilderBefore(r->ab, LLVMGetFirstInstruction(exit));
    LLVMValueRef count = LLVMBuildPhi(r->ab, i64(), "iterations");
    for (ptrdiff_t i = 0; i < arrlen(preds); i++)
      add_incoming_per_edge(count, counted.counter, preds[i]);
    vmap_put(&counted.exit_count, LLVMBasicBlockAsValue(exit), count);
  }
  arrput(r->loops, counted);
}

static void count_loops(Reverse *r) {
  Loop *loops = cfg_loops(r->cfg);
  for (ptrdiff_t i = 0; i < arrlen(loops); i++) {
    Loop *loop = &loops[i];
    if (loop->latch && loop->preheader && arrlen(cfg_predecessors(r->cfg, loop->header)) == 2 &&
        exits_are_dedicated(r, loop))
      count_loop(r, loop);
  }
}

/* i = phi [init, preheader], [i + step, latch] with a constant step, as
 * an integer or a pointer walking an array: i = init + k * step. */
static bool affine_step(CountedLoop *loop, LLVMValueRef phi, LLVMValueRef *init, LLVMValueRef *step) {
  if (!LLVMIsAPHINode(phi) || LLVMCountIncoming(phi) != 2 || phi == loop->counter)
    return false;
  LLVMValueRef next = NULL;
  *init = NULL;
  for (unsigned i = 0; i < 2; i++)
    if (LLVMGetIncomingBlock(phi, i) == loop->loop->preheader)
      *init = LLVMGetIncomingValue(phi, i);
    else
      next = LLVMGetIncomingValue(phi, i);
  if (!*init || !next || !LLVMIsAInstruction(next))
    return false;
  LLVMOpcode op = LLVMGetInstructionOpcode(next);
  if (op == LLVMAdd && LLVMGetOperand(next, 0) == phi && LLVMIsAConstantInt(LLVMGetOperand(next, 1))) {
    *step = LLVMGetOperand(next, 1);
    return true;
  }
  if (op == LLVMGetElementPtr && LLVMGetNumOperands(next) == 2 && LLVMGetOperand(next, 0) == phi &&
      LLVMIsAConstantInt(LLVMGetOperand(next, 1))) {
    *step = next;
    return true;
  }
  return false;
}

/* ---- primal values in the reverse sweep ---- */

static bool recomputable(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
  case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMUDiv: case LLVMSDiv: case LLVMURem:
  case LLVMSRem: case LLVMFAdd: case LLVMFSub: case LLVMFMul: case LLVMFDiv: case LLVMFRem:
  case LLVMFNeg: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI: case LLVMFPToSI:
  case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt: case LLVMPtrToInt:
  case LLVMIntToPtr: case LLVMBitCast: case LLVMAddrSpaceCast: case LLVMGetElementPtr:
  case LLVMICmp: case LLVMFCmp: case LLVMSelect: case LLVMExtractValue: case LLVMInsertValue:
  case LLVMExtractElement: case LLVMInsertElement: case LLVMShuffleVector: case LLVMFreeze:
    return true;
  default:
    return false;
  }
}

/* Whether the primal writes memory other than its own stack and heap
 * allocations: then loads of arguments and globals cannot be repeated. */
static bool is_local_object(LLVMValueRef base) {
  if (LLVMIsAAllocaInst(base))
    return true;
  const Rule *rule = LLVMIsACallInst(base) ? rule_for_call(base) : NULL;
  return rule && (rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC);
}

static bool writes_outside(Reverse *r, LLVMValueRef inst) {
  if (vset_has(&r->shadow_code, inst))
    return false;
  if (LLVMIsAStoreInst(inst))
    return !is_local_object(kn_underlying_object(LLVMGetOperand(inst, 1)));
  if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst))
    return true;
  if (!LLVMIsACallInst(inst))
    return false;
  const Rule *rule = rule_for_call(inst);
  /* The user's allocator keeps its bookkeeping in memory its arguments reach. */
  bool allocates = rule && (rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC) && !rule->foreign;
  if (rule && (rule->kind == RULE_MATH || rule->kind == RULE_MODEL || allocates))
    return false;
  if (rule && (rule->kind == RULE_MEMCPY || rule->kind == RULE_MEMSET))
    return !is_local_object(kn_underlying_object(LLVMGetOperand(inst, 0)));
  LLVMValueRef callee = kn_called_function(inst);
  if (callee && LLVMGetIntrinsicID(callee) && (!rule || rule->kind == RULE_INACTIVE))
    return false;
  for (unsigned i = 0, n = LLVMGetNumArgOperands(inst); i < n; i++)
    if (kn_is_pointer_type(LLVMTypeOf(LLVMGetOperand(inst, i))) &&
        !is_local_object(kn_underlying_object(LLVMGetOperand(inst, i))))
      return true;
  return callee == NULL || !LLVMIsDeclaration(callee) || aug_call_of(r, inst);
}

static bool memory_is_frozen(Reverse *r) {
  if (!r->sig->adjacent)
    return false;
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst))
      if (writes_outside(r, inst))
        return false;
  return true;
}

static bool repeatable_load(Reverse *r, LLVMValueRef inst) {
  if (!r->memory_frozen || !LLVMIsALoadInst(inst) || vset_has(&r->shadow_code, inst) ||
      LLVMGetVolatile(inst))
    return false;
  LLVMValueRef base = kn_underlying_object(LLVMGetOperand(inst, 0));
  return LLVMIsAArgument(base) || LLVMIsAGlobalVariable(base);
}

static LLVMValueRef primal(Reverse *r, LLVMValueRef v);

/* A field of a call's result is recorded alone, not the whole result. */
static bool recompute(Reverse *r, LLVMValueRef v) {
  if (LLVMIsAExtractValueInst(v) && LLVMIsACallInst(LLVMGetOperand(v, 0)))
    return false;
  return recomputable(v) || repeatable_load(r, v);
}

static LLVMValueRef iteration_slot(Reverse *r, CountedLoop *loop) {
  if (!loop->slot) {
    LLVMBuilderRef entry = LLVMCreateBuilderInContext(ctx());
    LLVMPositionBuilderBefore(entry, LLVMGetFirstInstruction(LLVMValueAsBasicBlock(r->rev_entry)));
    loop->slot = LLVMBuildAlloca(entry, i64(), "iteration");
    LLVMDisposeBuilder(entry);
  }
  return loop->slot;
}

/* Loop counters and the induction variables that follow them, from the
 * iteration being reversed; NULL for other values. */
static LLVMValueRef counted_value(Reverse *r, LLVMValueRef v) {
  if (!LLVMIsAPHINode(v))
    return NULL;
  CountedLoop *loop = counted_loop_with_header(r, LLVMGetInstructionParent(v));
  if (!loop)
    return NULL;
  LLVMValueRef k = LLVMBuildLoad2(r->b, i64(), iteration_slot(r, loop), "k");
  if (v == loop->counter)
    return k;
  LLVMValueRef init, step;
  if (!affine_step(loop, v, &init, &step))
    return NULL;
  if (LLVMIsAConstantInt(step)) {
    LLVMValueRef scaled = LLVMBuildMul(r->b, LLVMBuildTrunc(r->b, k, LLVMTypeOf(v), ""), step, "");
    return LLVMBuildAdd(r->b, primal(r, init), scaled, "");
  }
  LLVMValueRef index = LLVMBuildMul(r->b, k, LLVMBuildSExt(r->b, LLVMGetOperand(step, 1), i64(), ""), "");
  return LLVMBuildGEP2(r->b, LLVMGetGEPSourceElementType(step), primal(r, init), &index, 1, "");
}

static void use_memo(Reverse *r) {
  LLVMBasicBlockRef here = LLVMGetInsertBlock(r->b);
  if (r->memo_block != here) {
    vmap_free(&r->memo);
    r->memo_block = here;
  }
}

/* The value `v` of aug had at the point of the forward sweep that the
 * reverse sweep's insertion point mirrors. */
static LLVMValueRef primal(Reverse *r, LLVMValueRef v) {
  if (LLVMIsAArgument(v)) {
    for (unsigned i = 0, n = LLVMCountParams(r->aug); i < n; i++)
      if (LLVMGetParam(r->aug, i) == v)
        return LLVMGetParam(r->rev, i);
    kn_die("argument of another function");
  }
  if (!LLVMIsAInstruction(v))
    return v;
  use_memo(r);
  LLVMValueRef known = vmap_get(&r->memo, v);
  if (known)
    return known;
  LLVMValueRef value = counted_value(r, v);
  if (!value && recompute(r, v)) {
    value = LLVMInstructionClone(v);
    for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
      LLVMSetOperand(value, (unsigned)i, primal(r, LLVMGetOperand(v, (unsigned)i)));
    kn_drop_metadata(value);
    LLVMInsertIntoBuilder(r->b, value);
  } else if (!value) {
    value = LLVMBuildLoad2(r->b, LLVMTypeOf(v), LLVMGetPoison(ptr()), "");
    arrput(r->placeholders, ((Placeholder){value, v}));
  }
  use_memo(r);
  vmap_put(&r->memo, v, value);
  return value;
}

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
static LLVMValueRef add_any(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
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
      LLVMValueRef sum = add_any(b, xi, LLVMBuildExtractValue(b, y, i, ""));
      x = LLVMBuildInsertValue(b, x, sum, i, "");
    }
    return x;
  }
  return kn_is_float_type(type) ? LLVMBuildFAdd(b, x, y, "") : x;
}

static void add_adjoint(Reverse *r, LLVMValueRef v, LLVMValueRef delta) {
  if (!has_adjoint(r, v))
    return;
  LLVMValueRef slot = adjoint_slot(r, v);
  LLVMValueRef old = LLVMBuildLoad2(r->b, adjoint_type(r, v), slot, "");
  LLVMBuildStore(r->b, add_any(r->b, old, delta), slot);
}

/* Reads the adjoint of `v` and zeroes its slot: `v`'s definition is passed. */
static LLVMValueRef take_adjoint(Reverse *r, LLVMValueRef v) {
  LLVMValueRef slot = adjoint_slot(r, v);
  LLVMValueRef a = LLVMBuildLoad2(r->b, adjoint_type(r, v), slot, "adj");
  LLVMBuildStore(r->b, adjoint_zero(adjoint_type(r, v)), slot);
  return a;
}

/* ---- the reverse sweep, instruction by instruction ---- */

static void reverse_partials(Reverse *r, LLVMValueRef inst, PartialFn partial, unsigned nactive,
                             LLVMValueRef a) {
  LLVMValueRef args[4];
  unsigned n = LLVMIsACallInst(inst) ? LLVMGetNumArgOperands(inst) : 2;
  n = n < 4 ? n : 4;
  for (unsigned i = 0; i < n; i++)
    args[i] = primal(r, LLVMGetOperand(inst, i));
  LLVMValueRef y = primal(r, inst);
  for (unsigned i = 0; i < nactive; i++)
    if (has_adjoint(r, LLVMGetOperand(inst, i)))
      add_adjoint(r, LLVMGetOperand(inst, i), math_fmul(r->b, partial(r->b, args, y, i), a));
}

/* *shadow += a, for float-holding values loaded from it. */
static void accumulate_into(Reverse *r, LLVMValueRef shadow, LLVMValueRef a, LLVMValueRef load) {
  LLVMTypeRef type = LLVMTypeOf(a);
  LLVMValueRef old = LLVMBuildLoad2(r->b, type, shadow, "");
  LLVMValueRef store = LLVMBuildStore(r->b, add_any(r->b, old, a), shadow);
  LLVMSetAlignment(old, LLVMGetAlignment(load));
  LLVMSetAlignment(store, LLVMGetAlignment(load));
}

/* A store overwrites what its location held: the adjoint there goes to the
 * stored value, and the location's shadow is cleared. An integer 0 into
 * memory of floats (a memset turned into a store) clears it too. */
static void reverse_store(Reverse *r, LLVMValueRef store) {
  LLVMValueRef value = LLVMGetOperand(store, 0), at = LLVMGetOperand(store, 1);
  LLVMTypeRef type = adjoint_type(r, value);
  bool clears_floats = kn_type_has_floats(type) ||
                       (LLVMIsNull(value) && !kn_is_pointer_type(type) &&
                        memory_types(r, at, at).floats);
  if (!is_varied(r, at) || !clears_floats)
    return;
  LLVMValueRef shadow = primal(r, shadow_of(r, at, store));
  LLVMValueRef old = kn_type_has_floats(type) ? LLVMBuildLoad2(r->b, type, shadow, "") : NULL;
  LLVMValueRef zero = LLVMBuildStore(r->b, LLVMConstNull(type), shadow);
  LLVMSetAlignment(zero, LLVMGetAlignment(store));
  if (old) {
    LLVMSetAlignment(old, LLVMGetAlignment(store));
    add_adjoint(r, value, old);
  }
}

static void add_out_adjoints(Reverse *r, const Signature *sig, LLVMValueRef *primals,
                             LLVMValueRef grads) {
  unsigned k = 0;
  for (unsigned i = 0; i < sig->nparams; i++)
    if (sig->params[i] == ACT_OUT)
      add_adjoint(r, primals[i], LLVMBuildExtractValue(r->b, grads, k++, ""));
}

/* The user's reverse pass takes every argument, each pointer followed by
 * its shadow, then the result's adjoint (for a float result) and the tape
 * (if the augmented pass made one); it returns the adjoints of the float
 * arguments: one value, or a struct of them in order. */
static void reverse_custom_call(Reverse *r, AugCall *aug, LLVMValueRef a) {
  LLVMValueRef fn = aug->custom_reverse, args[2 * KN_MAX_PARAMS + 2];
  unsigned n = 0;
  for (unsigned i = 0; i < aug->sig.nparams; i++) {
    args[n++] = primal(r, aug->args[i]);
    if (kn_is_pointer_type(LLVMTypeOf(aug->args[i])))
      args[n++] = primal(r, shadow_of(r, aug->args[i], aug->call));
  }
  if (aug->result && kn_is_float_type(LLVMTypeOf(aug->result)))
    args[n++] = a ? a : LLVMConstNull(LLVMTypeOf(aug->result));
  if (aug->tape)
    args[n++] = primal(r, aug->tape);
  if (!registry_check_arity(fn, n, aug->call, r->sig->fn)) {
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
      add_adjoint(r, aug->args[i], g);
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
  unsigned n = call_args(r, aug->call, &sig, aug->args, args, primal);
  if (sig.ret_tangent)
    args[n++] = a;
  args[n++] = primal(r, aug->tape);
  LLVMValueRef grads = LLVMBuildCall2(r->b, derive_type(&sig), derive_get(&sig), args, n, "");
  add_out_adjoints(r, &sig, aug->args, grads);
}

/* A model has no side effects: its aug function runs again here for the
 * tape its reverse function needs. */
static void reverse_model_call(Reverse *r, LLVMValueRef call, LLVMValueRef model, LLVMValueRef a) {
  Signature sig = call_signature(r, call, model);
  sig.ret_tangent = a != NULL;
  LLVMValueRef primals[KN_MAX_PARAMS], args[2 * KN_MAX_PARAMS + 2];
  operands(call, primals);
  unsigned n = call_args(r, call, &sig, primals, args, primal);
  LLVMValueRef aug = LLVMBuildCall2(r->b, derive_aug_type(&sig), derive_aug(&sig), args, n, "");
  if (a)
    args[n++] = a;
  args[n++] = LLVMBuildExtractValue(r->b, aug, LLVMCountStructElementTypes(LLVMTypeOf(aug)) - 1, "");
  LLVMValueRef grads = LLVMBuildCall2(r->b, derive_type(&sig), derive_get(&sig), args, n, "");
  add_out_adjoints(r, &sig, primals, grads);
}

/* kinase.memcpy.reverse.<T>(dsrc, ddst, bytes): dsrc[i] += ddst[i];
 * ddst[i] = 0 for the elements of type T. For an overlapping memmove the
 * order matters: each ddst[i] is read before it is written as a dsrc[j],
 * downwards when ddst lies below dsrc. */
static LLVMValueRef memcpy_reverse_function(LLVMTypeRef element) {
  char *name = kn_strdup_printf("kinase.memcpy.reverse.%s",
                                LLVMGetTypeKind(element) == LLVMFloatTypeKind ? "f32" : "f64");
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn) {
    free(name);
    return fn;
  }
  LLVMTypeRef params[3] = {ptr(), ptr(), i64()};
  fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx()), params, 3, 0));
  free(name);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx(), fn, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx(), fn, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx(), fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef n = LLVMBuildUDiv(b, LLVMGetParam(fn, 2),
                                 const64(LLVMABISizeOfType(kn_module.layout, element)), "n");
  LLVMValueRef downwards = LLVMBuildICmp(b, LLVMIntULT, LLVMGetParam(fn, 1), LLVMGetParam(fn, 0), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, n, const64(0), ""), done, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef j = LLVMBuildPhi(b, i64(), "j");
  LLVMValueRef last = LLVMBuildSub(b, LLVMBuildSub(b, n, const64(1), ""), j, "");
  LLVMValueRef i = LLVMBuildSelect(b, downwards, last, j, "i");
  LLVMValueRef src = LLVMBuildGEP2(b, element, LLVMGetParam(fn, 0), &i, 1, "");
  LLVMValueRef dst = LLVMBuildGEP2(b, element, LLVMGetParam(fn, 1), &i, 1, "");
  LLVMValueRef sum = LLVMBuildFAdd(b, LLVMBuildLoad2(b, element, src, ""),
                                   LLVMBuildLoad2(b, element, dst, ""), "");
  LLVMBuildStore(b, sum, src);
  LLVMBuildStore(b, LLVMConstNull(element), dst);
  LLVMValueRef next = LLVMBuildAdd(b, j, const64(1), "");
  LLVMAddIncoming(j, (LLVMValueRef[]){const64(0), next}, (LLVMBasicBlockRef[]){entry, loop}, 2);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, next, n, ""), done, loop);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static void reverse_memory_call(Reverse *r, LLVMValueRef call, const Rule *rule) {
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  switch (rule->kind) {
  case RULE_ALLOC:
  case RULE_CALLOC:
  case RULE_POSIX_MEMALIGN:
    kn_call_free(r->b, primal(r, vmap_get(&r->shadow, call)));
    if (vset_has(&r->stack_on_heap, call))
      kn_call_free(r->b, primal(r, call));
    return;
  case RULE_REALLOC: {
    LLVMValueRef shadow = primal(r, vmap_get(&r->shadow, call)), old = LLVMGetOperand(call, 0);
    MemoryTypes m = memory_types(r, call, old);
    if (is_varied(r, old) && m.floats && !m.mixed_floats) {
      LLVMValueRef old_shadow = primal(r, shadow_of(r, old, call));
      LLVMValueRef fn = memcpy_reverse_function(m.floats);
      LLVMValueRef args[3] = {old_shadow, shadow,
                              kept_bytes(r->b, old_shadow, primal(r, LLVMGetOperand(call, 1)))};
      LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
    }
    kn_call_free(r->b, shadow);
    return;
  }
  case RULE_MEMSET:
    if (is_varied(r, dst))
      LLVMBuildMemSet(r->b, primal(r, shadow_of(r, dst, call)), zero_byte(),
                      primal(r, LLVMGetOperand(call, 2)), 1);
    return;
  case RULE_MEMCPY: {
    LLVMValueRef src = LLVMGetOperand(call, 1), len = primal(r, LLVMGetOperand(call, 2));
    if (!is_varied(r, dst))
      return;
    LLVMValueRef ddst = primal(r, shadow_of(r, dst, call));
    if (!is_varied(r, src)) {
      LLVMBuildMemSet(r->b, ddst, zero_byte(), len, 1);
      return;
    }
    MemoryTypes m = memory_types(r, dst, src);
    if (m.pointers && !m.floats)
      return;
    LLVMTypeRef element = m.mixed_floats ? NULL : m.floats;
    if (!element) {
      fail(r, call, "it copies memory (%s) whose element type Kinase cannot decide: it must hold "
                    "floats of one type",
           "memcpy");
      return;
    }
    LLVMValueRef fn = memcpy_reverse_function(element);
    LLVMValueRef args[3] = {primal(r, shadow_of(r, src, call)), ddst,
                            LLVMBuildZExtOrBitCast(r->b, len, i64(), "")};
    LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
    return;
  }
  default:
    return;
  }
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
  if (rule) {
    reverse_memory_call(r, call, rule);
    return;
  }
  AugCall *aug = aug_call_of(r, call);
  if (aug)
    reverse_user_call(r, aug);
}

/* The transposes of the linear, structural instructions. */
static void reverse_structural(Reverse *r, LLVMValueRef inst, LLVMValueRef a) {
  LLVMValueRef x = LLVMGetOperand(inst, 0);
  LLVMTypeRef xt = LLVMTypeOf(x);
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMFNeg:
    add_adjoint(r, x, LLVMBuildFNeg(r->b, a, ""));
    return;
  case LLVMFPExt:
  case LLVMFPTrunc:
    add_adjoint(r, x, LLVMBuildFPCast(r->b, a, xt, ""));
    return;
  case LLVMBitCast: {
    /* Back to the operand's type, or to the float type an integer copy moves. */
    LLVMTypeRef to = adjoint_type(r, x);
    if (kn_type_has_floats(to))
      add_adjoint(r, x, to == LLVMTypeOf(a) ? a : LLVMBuildBitCast(r->b, a, to, ""));
    return;
  }
  case LLVMFreeze:
    add_adjoint(r, x, a);
    return;
  case LLVMSelect: {
    LLVMValueRef c = primal(r, x), zero = LLVMConstNull(LLVMTypeOf(a));
    add_adjoint(r, LLVMGetOperand(inst, 1), LLVMBuildSelect(r->b, c, a, zero, ""));
    add_adjoint(r, LLVMGetOperand(inst, 2), LLVMBuildSelect(r->b, c, zero, a, ""));
    return;
  }
  case LLVMExtractValue: {
    unsigned n = LLVMGetNumIndices(inst);
    const unsigned *idx = LLVMGetIndices(inst);
    if (n != 1) {
      fail(r, inst, "it extracts a nested aggregate field%s", "");
      return;
    }
    add_adjoint(r, x, LLVMBuildInsertValue(r->b, LLVMConstNull(xt), a, idx[0], ""));
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
    add_adjoint(r, x, LLVMBuildInsertValue(r->b, a, LLVMConstNull(LLVMTypeOf(field)), idx[0], ""));
    add_adjoint(r, field, LLVMBuildExtractValue(r->b, a, idx[0], ""));
    return;
  }
  case LLVMExtractElement: {
    LLVMValueRef index = primal(r, LLVMGetOperand(inst, 1));
    add_adjoint(r, x, LLVMBuildInsertElement(r->b, LLVMConstNull(xt), a, index, ""));
    return;
  }
  case LLVMInsertElement: {
    LLVMValueRef field = LLVMGetOperand(inst, 1), index = primal(r, LLVMGetOperand(inst, 2));
    add_adjoint(r, x, LLVMBuildInsertElement(r->b, a, LLVMConstNull(LLVMTypeOf(field)), index, ""));
    add_adjoint(r, field, LLVMBuildExtractElement(r->b, a, index, ""));
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
    add_adjoint(r, x, dx);
    add_adjoint(r, y, dy);
    return;
  }
  case LLVMLoad:
    if (is_varied(r, x))
      accumulate_into(r, primal(r, shadow_of(r, x, inst)), a, inst);
    return;
  default:
    return;
  }
}

/* Phi adjoints travel along the edge the forward sweep took. */
typedef struct {
  LLVMValueRef phi;
  LLVMValueRef a;
} PhiAdjoint;

static void reverse_instruction(Reverse *r, LLVMValueRef inst, PhiAdjoint **phis) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  /* An augmented call's result is taken by the call's own reverse. */
  if (op == LLVMExtractValue && aug_call_of(r, LLVMGetOperand(inst, 0)))
    return;
  LLVMValueRef a = has_adjoint(r, inst) ? take_adjoint(r, inst) : NULL;
  if (op == LLVMStore) {
    reverse_store(r, inst);
    return;
  }
  if (op == LLVMCall) {
    reverse_call(r, inst, a);
    return;
  }
  if (op == LLVMAlloca) {
    LLVMValueRef s = vmap_get(&r->shadow, inst);
    if (s)
      kn_call_free(r->b, primal(r, s));
    return;
  }
  if (!a)
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

/* A counter to set on the way back into a loop: its iterations at exit. */
typedef struct {
  LLVMValueRef slot, value;
} Restart;

static LLVMBasicBlockRef edge_block(Reverse *r, LLVMBasicBlockRef pred, PhiAdjoint *phis,
                                    Restart *restarts) {
  LLVMBasicBlockRef edge = LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev.edge");
  LLVMPositionBuilderAtEnd(r->b, edge);
  for (ptrdiff_t i = 0; i < arrlen(phis); i++) {
    LLVMValueRef incoming = NULL;
    for (unsigned k = 0, n = LLVMCountIncoming(phis[i].phi); k < n; k++)
      if (LLVMGetIncomingBlock(phis[i].phi, k) == pred)
        incoming = LLVMGetIncomingValue(phis[i].phi, k);
    if (incoming)
      add_adjoint(r, incoming, phis[i].a);
  }
  for (ptrdiff_t i = 0; i < arrlen(restarts); i++)
    LLVMBuildStore(r->b, restarts[i].value, restarts[i].slot);
  LLVMBuildBr(r->b, reverse_of(r, pred));
  return edge;
}

/* Leaving the header's reverse: back to the preheader after iteration 0,
 * else to the latch for the iteration before. */
static void leave_counted_header(Reverse *r, CountedLoop *loop, PhiAdjoint *phis) {
  LLVMBasicBlockRef here = LLVMGetInsertBlock(r->b);
  LLVMValueRef slot = iteration_slot(r, loop);
  LLVMValueRef k = LLVMBuildLoad2(r->b, i64(), slot, "k");
  LLVMValueRef first = LLVMBuildICmp(r->b, LLVMIntEQ, k, const64(0), "");
  Restart previous = {slot, LLVMBuildSub(r->b, k, const64(1), "")};
  Restart *restarts = NULL;
  arrput(restarts, previous);
  LLVMBasicBlockRef to_preheader = edge_block(r, loop->loop->preheader, phis, NULL);
  LLVMBasicBlockRef to_latch = edge_block(r, loop->loop->latch, phis, restarts);
  arrfree(restarts);
  LLVMPositionBuilderAtEnd(r->b, here);
  LLVMBuildCondBr(r->b, first, to_preheader, to_latch);
}

static BlockRecord *record_of(Reverse *r, LLVMBasicBlockRef bb) {
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    if (r->records[i].block == bb)
      return &r->records[i];
  BlockRecord record = {.block = bb};
  arrput(r->records, record);
  return &arrlast(r->records);
}

static void reverse_block(Reverse *r, LLVMBasicBlockRef bb) {
  LLVMPositionBuilderAtEnd(r->b, reverse_of(r, bb));
  PhiAdjoint *phis = NULL;
  for (LLVMValueRef inst = LLVMGetLastInstruction(bb); inst && !r->failed;
       inst = LLVMGetPreviousInstruction(inst))
    if (!LLVMIsATerminatorInst(inst) && !vset_has(&r->shadow_code, inst))
      reverse_instruction(r, inst, &phis);

  /* What this block recorded is read before its counter steps back: which
   * predecessor ran, and the iterations of the loops it exits. */
  LLVMValueRef from_phi = vmap_get(&r->from, LLVMBasicBlockAsValue(bb));
  LLVMValueRef from = from_phi ? primal(r, from_phi) : NULL;
  Restart *restarts = NULL;
  for (ptrdiff_t i = 0; i < arrlen(r->loops); i++) {
    LLVMValueRef count = vmap_get(&r->loops[i].exit_count, LLVMBasicBlockAsValue(bb));
    if (count) {
      Restart restart = {iteration_slot(r, &r->loops[i]), primal(r, count)};
      arrput(restarts, restart);
    }
  }
  BlockRecord *record = record_of(r, bb);
  if (!record->counter) {
    LLVMBuilderRef entry = LLVMCreateBuilderInContext(ctx());
    LLVMPositionBuilderBefore(entry, LLVMGetFirstInstruction(LLVMValueAsBasicBlock(r->rev_entry)));
    record->counter = LLVMBuildAlloca(entry, i64(), "count");
    record->data = LLVMBuildAlloca(entry, ptr(), "records");
    LLVMDisposeBuilder(entry);
  }
  LLVMValueRef count = LLVMBuildLoad2(r->b, i64(), record->counter, "");
  LLVMBuildStore(r->b, LLVMBuildSub(r->b, count, const64(1), ""), record->counter);

  LLVMBasicBlockRef here = LLVMGetInsertBlock(r->b);
  LLVMBasicBlockRef *preds = cfg_predecessors(r->cfg, bb);
  CountedLoop *loop = counted_loop_with_header(r, bb);
  if (bb == LLVMGetEntryBasicBlock(r->aug)) {
    LLVMBuildBr(r->b, LLVMValueAsBasicBlock(r->rev_exit));
  } else if (loop) {
    leave_counted_header(r, loop, phis);
  } else if (!from_phi) {
    LLVMBasicBlockRef edge = edge_block(r, preds[0], phis, restarts);
    LLVMPositionBuilderAtEnd(r->b, here);
    LLVMBuildBr(r->b, edge);
  } else {
    unsigned n = (unsigned)arrlen(preds);
    LLVMBasicBlockRef *edges = malloc(n * sizeof *edges);
    for (unsigned i = 0; i < n; i++)
      edges[i] = edge_block(r, preds[i], phis, restarts);
    LLVMPositionBuilderAtEnd(r->b, here);
    LLVMValueRef sw = LLVMBuildSwitch(r->b, from, edges[0], n - 1);
    for (unsigned i = 1; i < n; i++)
      LLVMAddCase(sw, LLVMConstInt(i32(), i, 0), edges[i]);
    free(edges);
  }
  arrfree(restarts);
  arrfree(phis);
}

/* ---- tape layout, once every root is known ---- */

static LLVMTypeRef vec_type(void) {
  return LLVMStructTypeInContext(ctx(), (LLVMTypeRef[]){ptr(), i64(), i64()}, 3, 0);
}

static unsigned field_of(BlockRecord *record, LLVMValueRef root) {
  for (ptrdiff_t i = 0; i < arrlen(record->roots); i++)
    if (record->roots[i] == root)
      return (unsigned)i;
  arrput(record->roots, root);
  return (unsigned)arrlen(record->roots) - 1;
}

/* Partials that did not need a value leave its reads unused: they go before
 * they cost a record. Placeholders are left to layout_records. */
static void erase_dead_code(Reverse *r) {
  ValueSet placeholders = {0};
  for (ptrdiff_t i = 0; i < arrlen(r->placeholders); i++)
    vset_add(&placeholders, r->placeholders[i].load);
  bool changed = true;
  while (changed) {
    changed = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->rev); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef inst = LLVMGetFirstInstruction(bb);
      while (inst) {
        LLVMValueRef next = LLVMGetNextInstruction(inst);
        bool pure = recomputable(inst) || (LLVMIsALoadInst(inst) && !LLVMGetVolatile(inst));
        if (pure && !LLVMGetFirstUse(inst) && !vset_has(&placeholders, inst)) {
          LLVMInstructionEraseFromParent(inst);
          changed = true;
        }
        inst = next;
      }
    }
  }
  vset_free(&placeholders);
}

static void layout_records(Reverse *r) {
  /* Placeholders nobody reads are dropped before they cost a field. */
  for (ptrdiff_t i = 0; i < arrlen(r->placeholders); i++) {
    Placeholder *p = &r->placeholders[i];
    if (!LLVMGetFirstUse(p->load)) {
      LLVMInstructionEraseFromParent(p->load);
      p->load = NULL;
      continue;
    }
    field_of(record_of(r, LLVMGetInstructionParent(p->root)), p->root);
  }
  unsigned tape_field = 0;
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!arrlen(record->roots))
      continue;
    LLVMTypeRef types[256];
    if (arrlen(record->roots) > 256)
      kn_die("too many values recorded in one block");
    for (ptrdiff_t k = 0; k < arrlen(record->roots); k++)
      types[k] = LLVMTypeOf(record->roots[k]);
    record->record = LLVMStructTypeInContext(ctx(), types, (unsigned)arrlen(record->roots), 0);
    record->tape_field = tape_field++;
  }
}

static LLVMTypeRef tape_type(Reverse *r) {
  LLVMTypeRef fields[512];
  unsigned n = 0;
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    if (r->records[i].record && n < 512)
      fields[n++] = vec_type();
  return LLVMStructTypeInContext(ctx(), fields, n, 0);
}

/* aug: allocate the tape at entry; append each block's record at its end. */
static void write_records(Reverse *r, LLVMTypeRef tape) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(r->aug);
  LLVMPositionBuilderBefore(r->ab, kn_first_non_phi(entry));
  r->aug_tape = kn_call_calloc(r->ab, const64(LLVMABISizeOfType(kn_module.layout, tape) + 1));
  LLVMValueRef push = tape_push_function();
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!record->record)
      continue;
    LLVMPositionBuilderBefore(r->ab, LLVMGetBasicBlockTerminator(record->block));
    LLVMValueRef vec = LLVMBuildStructGEP2(r->ab, tape, r->aug_tape, record->tape_field, "");
    LLVMValueRef args[2] = {vec, const64(LLVMABISizeOfType(kn_module.layout, record->record))};
    LLVMValueRef at = LLVMBuildCall2(r->ab, LLVMGlobalGetValueType(push), push, args, 2, "");
    for (ptrdiff_t k = 0; k < arrlen(record->roots); k++)
      LLVMBuildStore(r->ab, record->roots[k],
                     LLVMBuildStructGEP2(r->ab, record->record, at, (unsigned)k, ""));
  }
}

/* rev: placeholders read record counter-1 of their root's block. */
static void read_records(Reverse *r, LLVMTypeRef tape) {
  LLVMValueRef tape_arg = LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 1);
  LLVMBasicBlockRef entry = LLVMValueAsBasicBlock(r->rev_entry);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(entry);
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!record->record || !record->counter)
      continue;
    LLVMPositionBuilderBefore(r->b, term);
    LLVMValueRef vec = LLVMBuildStructGEP2(r->b, tape, tape_arg, record->tape_field, "");
    LLVMBuildStore(r->b, LLVMBuildLoad2(r->b, ptr(), LLVMBuildStructGEP2(r->b, vec_type(), vec, 0, ""), ""),
                   record->data);
    LLVMBuildStore(r->b, LLVMBuildLoad2(r->b, i64(), LLVMBuildStructGEP2(r->b, vec_type(), vec, 1, ""), ""),
                   record->counter);
  }
  for (ptrdiff_t i = 0; i < arrlen(r->placeholders); i++) {
    Placeholder *p = &r->placeholders[i];
    if (!p->load)
      continue;
    BlockRecord *record = record_of(r, LLVMGetInstructionParent(p->root));
    if (!record->counter)
      kn_die("value recorded by a block without a reverse counter");
    LLVMPositionBuilderBefore(r->b, p->load);
    LLVMValueRef count = LLVMBuildLoad2(r->b, i64(), record->counter, "");
    LLVMValueRef index = LLVMBuildSub(r->b, count, const64(1), "");
    LLVMValueRef data = LLVMBuildLoad2(r->b, ptr(), record->data, "");
    LLVMValueRef at = LLVMBuildGEP2(r->b, record->record, data, &index, 1, "");
    LLVMValueRef field = LLVMBuildStructGEP2(r->b, record->record, at, field_of(record, p->root), "");
    LLVMSetOperand(p->load, 0, field);
  }
}

/* rev: free the records and the tape, return the adjoints of the
 * enzyme_out parameters. */
static void finish_exit(Reverse *r, LLVMTypeRef tape) {
  LLVMPositionBuilderAtEnd(r->b, LLVMValueAsBasicBlock(r->rev_exit));
  LLVMValueRef tape_arg = LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 1);
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    if (r->records[i].record) {
      LLVMValueRef vec = LLVMBuildStructGEP2(r->b, tape, tape_arg, r->records[i].tape_field, "");
      kn_call_free(r->b, LLVMBuildLoad2(r->b, ptr(), LLVMBuildStructGEP2(r->b, vec_type(), vec, 0, ""), ""));
    }
  kn_call_free(r->b, tape_arg);
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(r->rev));
  LLVMValueRef result = LLVMGetPoison(ret);
  unsigned k = 0, param = 0;
  for (unsigned i = 0; i < r->sig->nparams; i++) {
    LLVMValueRef p = LLVMGetParam(r->aug, param);
    param += (r->sig->params[i] == ACT_DUP || r->sig->params[i] == ACT_DUPNONEED) ? 2 : 1;
    if (r->sig->params[i] != ACT_OUT)
      continue;
    LLVMValueRef slot = vmap_get(&r->adjoint, p), zero = LLVMConstNull(LLVMTypeOf(p));
    /* + 0.0 makes an untouched -0.0 the 0.0 users expect. */
    LLVMValueRef adj = slot ? add_any(r->b, LLVMBuildLoad2(r->b, LLVMTypeOf(p), slot, ""), zero) : zero;
    result = LLVMBuildInsertValue(r->b, result, adj, k++, "");
  }
  LLVMBuildRet(r->b, result);
}

/* aug returns {result, [shadow], tape}. */
static void finish_aug_return(Reverse *r) {
  LLVMValueRef ret = LLVMGetBasicBlockTerminator(r->ret_block);
  LLVMPositionBuilderBefore(r->ab, ret);
  LLVMTypeRef type = LLVMGetReturnType(LLVMGlobalGetValueType(r->aug));
  LLVMValueRef result = LLVMGetPoison(type), value = returned_value(r);
  unsigned k = 0;
  if (value) {
    result = LLVMBuildInsertValue(r->ab, result, value, k++, "");
    if (kn_is_pointer_type(LLVMTypeOf(value)))
      result = LLVMBuildInsertValue(r->ab, result, shadow_of(r, value, ret), k++, "");
  }
  result = LLVMBuildInsertValue(r->ab, result, r->aug_tape, k, "");
  LLVMBuildRet(r->ab, result);
  LLVMInstructionEraseFromParent(ret);
}

/* ---- entry ---- */

/* One return block, so that the reverse sweep has one place to start. */
static void unify_returns(Reverse *r) {
  LLVMBasicBlockRef *rets = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->aug); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (term && LLVMGetInstructionOpcode(term) == LLVMRet)
      arrput(rets, bb);
  }
  if (!arrlen(rets)) {
    arrfree(rets);
    return;
  }
  LLVMTypeRef type = LLVMGetReturnType(LLVMGlobalGetValueType(r->sig->fn));
  bool is_void = LLVMGetTypeKind(type) == LLVMVoidTypeKind;
  if (arrlen(rets) == 1) {
    r->ret_block = rets[0];
    arrfree(rets);
    return;
  }
  LLVMBasicBlockRef joined = LLVMAppendBasicBlockInContext(ctx(), r->aug, "return");
  LLVMPositionBuilderAtEnd(r->ab, joined);
  LLVMValueRef phi = is_void ? NULL : LLVMBuildPhi(r->ab, type, "result");
  for (ptrdiff_t i = 0; i < arrlen(rets); i++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(rets[i]);
    if (phi) {
      LLVMValueRef v = LLVMGetOperand(term, 0);
      LLVMAddIncoming(phi, &v, &rets[i], 1);
    }
    LLVMPositionBuilderBefore(r->ab, term);
    LLVMBuildBr(r->ab, joined);
    LLVMInstructionEraseFromParent(term);
  }
  LLVMPositionBuilderAtEnd(r->ab, joined);
  if (phi)
    LLVMBuildRet(r->ab, phi);
  else
    LLVMBuildRetVoid(r->ab);
  r->ret_block = joined;
  arrfree(rets);
}

static void seed_parameters(Reverse *r, LLVMValueRef *primals, LLVMValueRef *shadows) {
  for (unsigned i = 0; i < r->sig->nparams; i++) {
    if (shadows[i]) {
      vset_add(&r->varied, primals[i]);
      vmap_put(&r->shadow, primals[i], shadows[i]);
    } else if (r->sig->params[i] == ACT_OUT) {
      vset_add(&r->varied, primals[i]);
    }
  }
}

static void name_rev_params(Reverse *r) {
  for (unsigned i = 0, n = LLVMCountParams(r->aug); i < n; i++) {
    const char *name = kn_value_name(LLVMGetParam(r->aug, i));
    LLVMSetValueName2(LLVMGetParam(r->rev, i), name, strlen(name));
  }
  LLVMSetValueName2(LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 1), "tape", 4);
}

static void build_reverse(Reverse *r) {
  r->rev_entry = LLVMBasicBlockAsValue(LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev.entry"));
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++) {
    LLVMBasicBlockRef rb = LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev");
    vmap_put(&r->reverse_block, LLVMBasicBlockAsValue(r->blocks[k]), LLVMBasicBlockAsValue(rb));
  }
  r->rev_exit = LLVMBasicBlockAsValue(LLVMAppendBasicBlockInContext(ctx(), r->rev, "rev.exit"));
  /* The entry block jumps to the return block's reverse; the result's
   * adjoint is the caller's seed. */
  LLVMPositionBuilderAtEnd(r->b, LLVMValueAsBasicBlock(r->rev_entry));
  if (r->sig->ret_tangent && returned_value(r)) {
    LLVMValueRef seed = LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 2);
    add_adjoint(r, returned_value(r), seed);
  }
  LLVMBuildBr(r->b, reverse_of(r, r->ret_block));
  for (ptrdiff_t k = arrlen(r->blocks) - 1; k >= 0 && !r->failed; k--)
    reverse_block(r, r->blocks[k]);
}

bool reverse_generate(const Signature *sig, LLVMValueRef aug, LLVMValueRef rev) {
  Reverse r = {.sig = sig, .aug = aug, .rev = rev};
  if (kn_module.gpu) {
    kn_error(NULL, sig->fn, "reverse mode in device code is not implemented yet");
    return false;
  }
  LLVMValueRef primals[KN_MAX_PARAMS], shadows[KN_MAX_PARAMS];
  if (!adopt_simplified_body(sig, aug, primals, shadows))
    return false;
  r.b = LLVMCreateBuilderInContext(ctx());
  r.ab = LLVMCreateBuilderInContext(ctx());
  name_rev_params(&r);
  unify_returns(&r);
  r.blocks = cfg_reverse_post_order(aug);
  keep_stack_alive(&r);
  seed_parameters(&r, primals, shadows);
  do
    activity_find_varied(&r.varied, r.blocks, false);
  while (globals_seed(&r.varied, &r.shadow, r.blocks));
  find_memory_objects(&r);
  find_integer_copies(&r);
  activity_find_varied(&r.varied, r.blocks, false);
  find_useful(&r);
  augment(&r);
  r.cfg = cfg_build(aug);
  count_loops(&r);
  for (ptrdiff_t k = 0; k < arrlen(r.blocks); k++)
    if (!counted_loop_with_header(&r, r.blocks[k]))
      add_from_index(&r, r.blocks[k]);
  r.memory_frozen = memory_is_frozen(&r);
  if (!r.failed && r.ret_block)
    build_reverse(&r);
  if (!r.failed && !r.ret_block)
    fail(&r, NULL, "it never returns%s", "");
  if (!r.failed) {
    erase_dead_code(&r);
    layout_records(&r);
    LLVMTypeRef tape = tape_type(&r);
    write_records(&r, tape);
    read_records(&r, tape);
    finish_exit(&r, tape);
    finish_aug_return(&r);
    for (unsigned i = 0; i < sig->nparams; i++)
      if (sig->params[i] == ACT_DUPNONEED && kn_is_pointer_type(LLVMTypeOf(primals[i])))
        drop_unneeded_writes(primals[i]);
  }
  for (ptrdiff_t i = 0; i < arrlen(r.records); i++)
    arrfree(r.records[i].roots);
  arrfree(r.records);
  arrfree(r.placeholders);
  arrfree(r.blocks);
  vset_free(&r.varied);
  vset_free(&r.useful);
  vset_free(&r.shadow_code);
  vset_free(&r.stack_on_heap);
  vmap_free(&r.shadow);
  vmap_free(&r.adjoint);
  vmap_free(&r.reverse_block);
  vmap_free(&r.from);
  vmap_free(&r.memo);
  arrfree(r.calls);
  vmap_free(&r.copied_as);
  vmap_free(&r.object_parent);
  for (ptrdiff_t i = 0; i < arrlen(r.loops); i++)
    vmap_free(&r.loops[i].exit_count);
  arrfree(r.loops);
  cfg_free(r.cfg);
  LLVMDisposeBuilder(r.b);
  LLVMDisposeBuilder(r.ab);
  return !r.failed;
}
