/* Reverse mode: what the primal's memory holds. Pointers that phis,
 * selects and realloc make the same are one memory object; the types its
 * accesses show (floats, pointers, integers) decide how copies move
 * adjoints and shadows, and what integer copies carry. Separate because it
 * is a question about the primal alone: the sweeps ask rev_memory_types and
 * read r->copied_as. */
#include "reverse.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

/* A __half (a struct of an unsigned short) holds a half: its accesses as
 * 16-bit integers are copies of one. */
static void note_type(MemoryTypes *m, LLVMTypeRef type) {
  while (LLVMGetTypeKind(type) == LLVMArrayTypeKind || LLVMGetTypeKind(type) == LLVMVectorTypeKind)
    type = LLVMGetElementType(type);
  if (kn_sixteen_bit_float(type))
    type = kn_sixteen_bit_float(type);
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

/* ---- records ----
 * Memory of floats of several types, or of floats beside pointers, is
 * often an array of one struct: a copy of whole elements moves each field
 * its own way. The struct is the one the accesses (GEPs over it, a local
 * array of it) and the types noted before simplification name. */

static bool is_sixteen_bit(LLVMTypeRef type) { return kn_sixteen_bit_float(type) != NULL; }

/* `type`, or the element of the arrays it is, where that is a struct
 * whose fields must move apart; else NULL. */
static LLVMTypeRef record_candidate(LLVMTypeRef type) {
  while (LLVMGetTypeKind(type) == LLVMArrayTypeKind)
    type = LLVMGetElementType(type);
  if (LLVMGetTypeKind(type) != LLVMStructTypeKind || is_sixteen_bit(type))
    return NULL;
  MemoryTypes m = {0};
  note_type(&m, type);
  return m.mixed_floats || (m.floats && m.pointers) ? type : NULL;
}

/* Notes the struct `type` names as the record; a second one makes none. */
static void note_record(MemoryTypes *m, LLVMTypeRef type, bool *several) {
  LLVMTypeRef record = record_candidate(type);
  if (record && m->record && m->record != record)
    *several = true;
  else if (record)
    m->record = record;
}

/* The record of the memory a copy of `length` bytes moves (a constant,
 * or NULL), from the types `m` was gathered from and those noted in
 * `noted`, where it moves whole elements. */
static void settle_record(MemoryTypes *m, LLVMTypeRef noted, LLVMValueRef length, bool several) {
  for (unsigned i = 0, n = noted && LLVMGetTypeKind(noted) == LLVMStructTypeKind ? LLVMCountStructElementTypes(noted) : 0;
       i < n; i++)
    note_record(m, LLVMStructGetTypeAtIndex(noted, i), &several);
  uint64_t size = m->record ? LLVMABISizeOfType(kn_module.layout, m->record) : 0;
  bool whole = length && LLVMIsAConstantInt(length) ? size && LLVMConstIntGetZExtValue(length) % size == 0 : true;
  if (several || !whole || !(m->mixed_floats || (m->floats && m->pointers)))
    m->record = NULL;
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

/* Whether the function stores nothing at `address` itself (calls may:
 * a constructor fills the slot it is given). */
static bool never_stored_at(LLVMValueRef address) {
  for (LLVMUseRef u = LLVMGetFirstUse(address); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == address)
      return false;
  }
  return true;
}

/* Pointers loaded from one slot the function never stores to are one
 * object: `w.data()` given to a copy and `w[i]` reading it after are two
 * loads of the vector's start (a call between them keeps them apart). */
static void join_loads_of_slot(Reverse *r, ValueMap *first_load, LLVMValueRef load) {
  LLVMValueRef address = LLVMGetOperand(load, 0);
  LLVMValueRef first = vmap_get(first_load, address);
  if (!first && never_stored_at(address))
    vmap_put(first_load, address, load);
  else if (first)
    join_objects(r, load, first);
}

/* A pointer slot at a constant offset from its base (a struct's field). */
typedef struct {
  LLVMValueRef base;
  int64_t offset;
} Slot;

typedef struct {
  Slot key;
  LLVMValueRef value;
} SlotEntry;

/* Pointers stored into one slot and loaded from it are one object: a
 * buffer kept in a struct's field (`b->data = realloc(b->data, n)`, then
 * `b->data[i] = v`) is reached by reloading the field, and what the
 * accesses after the realloc show is what the realloc moved. */
static void join_through_slot(Reverse *r, SlotEntry **slots, LLVMValueRef inst) {
  bool load = LLVMIsALoadInst(inst);
  LLVMValueRef pointer = load ? inst : LLVMGetOperand(inst, 0);
  Slot key = {0};
  if (!kn_is_pointer_type(LLVMTypeOf(pointer)) ||
      !kn_constant_offset(LLVMGetOperand(inst, load ? 0 : 1), &key.base, &key.offset))
    return;
  ptrdiff_t i = hmgeti(*slots, key);
  if (i < 0)
    hmput(*slots, key, pointer);
  else
    join_objects(r, pointer, (*slots)[i].value);
}

void rev_find_memory_objects(Reverse *r) {
  SlotEntry *slots = NULL;
  ValueMap first_load = {0};
  for (ptrdiff_t k = 0; k < arrlen(r->blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      if (LLVMIsALoadInst(inst) || LLVMIsAStoreInst(inst))
        join_through_slot(r, &slots, inst);
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
      else if (LLVMIsALoadInst(inst))
        join_loads_of_slot(r, &first_load, inst);
    }
  hmfree(slots);
  vmap_free(&first_load);
}

static LLVMTypeRef tbaa_type(LLVMValueRef inst);
static bool only_moved(LLVMValueRef load);

/* An integer access that shows the memory holds integers: its TBAA type is
 * an integer, or it is a load whose value is computed with (not only stored
 * elsewhere, as a copy of a float's bits would be), or a store of a value
 * that no load copied. */
static bool integer_as_number(LLVMValueRef inst) {
  bool load = LLVMIsALoadInst(inst);
  if (!load && !LLVMIsAStoreInst(inst))
    return false;
  LLVMValueRef value = load ? inst : LLVMGetOperand(inst, 0);
  if (LLVMGetTypeKind(LLVMTypeOf(value)) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(LLVMTypeOf(value)) <= 8)
    return false;
  LLVMTypeRef tbaa = tbaa_type(inst);
  if (tbaa)
    return LLVMGetTypeKind(tbaa) == LLVMIntegerTypeKind;
  return load ? !only_moved(inst) : !LLVMIsALoadInst(value);
}

/* The bytes a copy reads or writes: `length` from `offset` past `base`
 * (through constant GEPs); base NULL where the address says no offset. */
typedef struct {
  LLVMValueRef base;
  int64_t offset;
  uint64_t length;
} Window;

static Window window_of(LLVMValueRef p, uint64_t length) {
  Window w = {0};
  if (length && kn_constant_offset(p, &w.base, &w.offset) && w.base == kn_underlying_object(p))
    w.length = length;
  else
    w.base = NULL;
  return w;
}

/* Whether an access of `bytes` at `at` may touch the window: it does
 * unless both are at known offsets from the same base and lie apart (a
 * class's vtable pointer beside the Vec3 member its constructor copies). */
static bool may_touch(const Window *w, LLVMValueRef at, uint64_t bytes) {
  LLVMValueRef base;
  int64_t offset;
  if (!w || !w->base || !bytes || !kn_constant_offset(at, &base, &offset) || base != w->base)
    return true;
  return offset < w->offset + (int64_t)w->length && w->offset < offset + (int64_t)bytes;
}

/* The bytes a load or store accesses; 0 for anything else. */
static uint64_t access_bytes(LLVMValueRef inst) {
  LLVMTypeRef type = LLVMIsALoadInst(inst)    ? LLVMTypeOf(inst)
                     : LLVMIsAStoreInst(inst) ? LLVMTypeOf(LLVMGetOperand(inst, 0))
                                              : NULL;
  return type ? LLVMStoreSizeOfType(kn_module.layout, type) : 0;
}

static void note_local(MemoryTypes *m, LLVMValueRef local, const Window *w) {
  LLVMTypeRef type = LLVMGetAllocatedType(local);
  MemoryTypes own = {0};
  if (!w || w->base != local) {
    note_type(&own, type);
  } else {
    /* Only the fields the window covers. */
    TypeLeaf *leaves = NULL;
    kn_type_leaves(type, 0, is_sixteen_bit, &leaves);
    for (ptrdiff_t i = 0; i < arrlen(leaves); i++) {
      uint64_t size = LLVMABISizeOfType(kn_module.layout, leaves[i].type);
      if ((int64_t)leaves[i].offset < w->offset + (int64_t)w->length &&
          w->offset < (int64_t)(leaves[i].offset + size))
        note_type(&own, leaves[i].type);
    }
    arrfree(leaves);
  }
  if (own.floats)
    note_type(m, own.floats);
  m->mixed_floats |= own.mixed_floats;
  m->pointers |= own.pointers;
  m->ints |= own.ints;
  m->numbers |= own.ints;
}

/* `skip`, an integer copy being decided, and its stores are no evidence.
 * With windows (a copy of known length), accesses to the same objects at
 * other known offsets are none either. */
static MemoryTypes memory_types_in(Reverse *r, LLVMValueRef p1, LLVMValueRef p2, LLVMValueRef skip,
                                   const Window windows[2], bool *several) {
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
      uint64_t bytes = access_bytes(inst);
      if (windows && !(may_touch(&windows[0], at, bytes) && may_touch(&windows[1], at, bytes)))
        continue;
      note_type(&m, LLVMIsALoadInst(inst)    ? LLVMTypeOf(inst)
                    : LLVMIsAStoreInst(inst) ? LLVMTypeOf(LLVMGetOperand(inst, 0))
                                             : LLVMGetGEPSourceElementType(inst));
      if (LLVMIsAGetElementPtrInst(inst))
        note_record(&m, LLVMGetGEPSourceElementType(inst), several);
      m.numbers |= integer_as_number(inst);
    }
  for (int i = 0; i < 2; i++) {
    LLVMValueRef base = kn_underlying_object(i ? p2 : p1);
    if (LLVMIsAAllocaInst(base)) {
      note_local(&m, base, windows ? &windows[i] : NULL);
      note_record(&m, LLVMGetAllocatedType(base), several);
    }
  }
  return m;
}

static MemoryTypes memory_types_except(Reverse *r, LLVMValueRef p1, LLVMValueRef p2, LLVMValueRef skip) {
  bool several = false;
  return memory_types_in(r, p1, p2, skip, NULL, &several);
}

/* ---- integer copies ----
 * Optimisations turn small copies (memcpy of 8 bytes, assignment of a struct
 * holding one double) into integer loads and stores. What they move is
 * decided from TBAA and from the other accesses to the same memory: floats
 * get adjoints of their float type, pointers get their shadows copied, and a
 * copy that cannot be decided is an error rather than a silent zero. */

/* The type TBAA gives an access: a float type, ptr, an integer, or NULL. */
static LLVMTypeRef tbaa_type(LLVMValueRef inst) {
  const char *name = kn_tbaa_access_name(inst);
  return name ? kn_tbaa_named_type(name) : NULL;
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
    type = kn_gep_field_type(at);
  }
  while (type && (LLVMGetTypeKind(type) == LLVMStructTypeKind || LLVMGetTypeKind(type) == LLVMArrayTypeKind)) {
    if (kn_sixteen_bit_float(type))
      return kn_sixteen_bit_float(type);
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
  LLVMTypeRef direct[3] = {addressed_type(from), tbaa_type(load), copytypes_of(load)};
  for (int i = 0; i < 3; i++)
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

/* A function of the C++ standard library (namespace std, its members and
 * their template instantiations): `_ZSt...`, `_ZNSt...`, `_ZNKSt...`. */
static bool in_namespace_std(LLVMValueRef fn) {
  const char *name = kn_function_name(fn);
  return !strncmp(name, "_ZSt", 4) || !strncmp(name, "_ZNSt", 5) || !strncmp(name, "_ZNKSt", 6);
}

void rev_refuse_untyped_copy(Reverse *r, LLVMValueRef copy, const char *why) {
  if (!in_namespace_std(r->sig->fn)) {
    fail(r, copy, "%s", why);
    return;
  }
  char *message = kn_strdup_printf("the derivative of '%s' reached what it could not differentiate: %s",
                                   kn_function_name(r->sig->fn), why);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx());
  LLVMPositionBuilderBefore(b, copy);
  kn_stop_here(b, copy, message);
  LLVMDisposeBuilder(b);
  free(message);
}

/* The float type an integer of `bits` bits copies out of memory of `m`:
 * the memory's, or a vector of them where it moves several at once (a
 * __half2 copied as 32 bits, two floats as 64); NULL where it is neither. */
static LLVMTypeRef floats_of_width(const MemoryTypes *m, unsigned bits) {
  if (!m->floats || m->mixed_floats)
    return NULL;
  unsigned size = 8 * (unsigned)LLVMABISizeOfType(kn_module.layout, m->floats);
  if (bits == size)
    return m->floats;
  return bits % size ? NULL : LLVMVectorType(m->floats, bits / size);
}

void rev_find_integer_copies(Reverse *r) {
  for (ptrdiff_t k = 0; k < arrlen(r->blocks) && !r->failed; k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst)) {
      LLVMTypeRef type = LLVMTypeOf(inst);
      if (!LLVMIsALoadInst(inst) || LLVMGetTypeKind(type) != LLVMIntegerTypeKind ||
          !is_varied(r, LLVMGetOperand(inst, 0)) || copy_of(r, inst) || !only_moved(inst))
        continue;
      unsigned bits = LLVMGetIntTypeWidth(type);
      MemoryTypes m = copied_types(r, inst);
      LLVMTypeRef as = floats_of_width(&m, bits);
      bool floats = as != NULL;
      bool pointers = m.pointers && bits == 8 * LLVMPointerSize(kn_module.layout);
      if (floats && !pointers) {
        vmap_put(&r->copied_as, inst, LLVMConstNull(as));
        vset_add(&r->varied, inst);
      } else if (pointers && !floats) {
        /* varied: local memory it is stored into (a C++ iterator copied,
         * `__last = __next`) gets a shadow to hold the pointer's */
        vmap_put(&r->copied_as, inst, inst);
        vset_add(&r->varied, inst);
      } else if ((floats && pointers) || (bits >= 32 && !m.floats && !m.pointers && !m.ints)) {
        char *why = kn_strdup_printf("it copies %s bytes whose type Kinase cannot decide (floats, "
                                     "pointers or integers); copy them as their own type",
                                     bits == 64 ? "8" : bits == 32 ? "4" : "several");
        rev_refuse_untyped_copy(r, inst, why);
        free(why);
      }
    }
}

MemoryTypes rev_memory_types(Reverse *r, LLVMValueRef p1, LLVMValueRef p2) {
  return memory_types_except(r, p1, p2, NULL);
}

MemoryTypes rev_realloc_types(Reverse *r, LLVMValueRef call) {
  bool several = false;
  MemoryTypes m = memory_types_in(r, call, LLVMGetOperand(call, 0), NULL, NULL, &several);
  LLVMTypeRef noted = copytypes_of(call);
  if (!m.floats && !m.pointers && !m.ints && noted)
    note_type(&m, noted);
  settle_record(&m, noted, NULL, several);
  return m;
}

MemoryTypes rev_copy_types(Reverse *r, LLVMValueRef call) {
  LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1), length = LLVMGetOperand(call, 2);
  uint64_t bytes = LLVMIsAConstantInt(length) ? LLVMConstIntGetZExtValue(length) : 0;
  bool several = false;
  MemoryTypes m = memory_types_in(r, dst, src, NULL, NULL, &several);
  if (m.pointers && m.floats) {
    /* Both may be beside the copied bytes (a constructor copying a
     * member of doubles into an object that starts with its vtable
     * pointer): what accesses the bytes themselves says, if anything. */
    Window windows[2] = {window_of(dst, bytes), window_of(src, bytes)};
    bool own_several = false;
    MemoryTypes own = memory_types_in(r, dst, src, NULL, windows, &own_several);
    if (own.floats || own.pointers || own.ints) {
      m = own;
      several = own_several;
    }
  }
  LLVMTypeRef noted = copytypes_of(call);
  if (!m.floats && !m.pointers && !m.ints && noted) {
    /* Bytes (a node's `unsigned char _M_storage[16]`, std::function's
     * _Any_data) are raw storage, which may hold anything: no evidence
     * that the copy moves no floats. */
    note_type(&m, noted);
    m.declared = m.floats || m.pointers || m.ints;
  }
  settle_record(&m, noted, length, several);
  return m;
}
