/* Reverse mode: the tape. One record per execution of a primal block,
 * holding the values the reverse sweep reads; the records' layout, once
 * every value recorded is known; the appends in aug (kinase.tape.push), the
 * reads in rev; and the two ends of the pair that hand the tape over, aug's
 * return and rev's exit. Separate because it is the only part that knows
 * the tape's layout. */
#include "reverse.h"

#include <stb/stb_ds.h>

LLVMTypeRef rev_tape_vector_type(void) {
  return LLVMStructTypeInContext(ctx(), (LLVMTypeRef[]){ptr(), i64(), i64(), i64()}, 4, 0);
}

LLVMValueRef rev_tape_vector_field(LLVMBuilderRef b, LLVMValueRef vec, TapeVectorField f) {
  return LLVMBuildStructGEP2(b, rev_tape_vector_type(), vec, f, "");
}

/* The tape's memory comes from calloc and realloc, aligned to 16 bytes,
 * or from a caller, and a record's stride is its size: a recorded value
 * may be less aligned there than its type wants (an AVX vector, 32), so
 * the tape is written and read at most 16-byte aligned. */
static void tape_access(LLVMValueRef inst) {
  if (LLVMGetAlignment(inst) > 16)
    LLVMSetAlignment(inst, 16);
}

/* Room for twice the records plus 16: realloc on the CPU; device code has
 * none, and grows in the launch's tape arena (cuda/arena.c). */
static void grow_vector(LLVMBuilderRef b, LLVMValueRef vec, LLVMValueRef size) {
  if (kn_module.gpu) {
    cuda_tape_grow(b, vec, size);
    return;
  }
  LLVMValueRef cap = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_CAPACITY), "cap");
  LLVMValueRef new_cap = LLVMBuildAdd(b, LLVMBuildMul(b, cap, const64(2), ""), const64(16), "");
  LLVMValueRef args[2] = {LLVMBuildLoad2(b, ptr(), rev_tape_vector_field(b, vec, TAPE_VECTOR_DATA), "data"),
                          LLVMBuildMul(b, new_cap, size, "")};
  LLVMBuildStore(b, kn_call_libc(b, "realloc", ptr(), args, 2), rev_tape_vector_field(b, vec, TAPE_VECTOR_DATA));
  LLVMBuildStore(b, new_cap, rev_tape_vector_field(b, vec, TAPE_VECTOR_CAPACITY));
  LLVMBuildStore(b, size, rev_tape_vector_field(b, vec, TAPE_VECTOR_STRIDE));
}

static void release_vector(LLVMBuilderRef b, LLVMValueRef data) {
  if (kn_module.gpu)
    cuda_tape_release(b, data);
  else
    kn_call_free(b, data);
}

/* kinase.tape.push(vec, size): appends a record of `size` bytes to the
 * vector, growing it, and returns the record's address. */
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
  LLVMValueRef count_at = rev_tape_vector_field(b, vec, TAPE_VECTOR_COUNT);
  LLVMValueRef count = LLVMBuildLoad2(b, i64(), count_at, "count");
  LLVMValueRef cap = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_CAPACITY), "cap");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, count, cap, ""), store, grow);
  LLVMPositionBuilderAtEnd(b, grow);
  grow_vector(b, vec, size);
  LLVMBuildBr(b, store);
  LLVMPositionBuilderAtEnd(b, store);
  LLVMValueRef data = LLVMBuildLoad2(b, ptr(), rev_tape_vector_field(b, vec, TAPE_VECTOR_DATA), "data");
  LLVMValueRef stride = LLVMBuildLoad2(b, i64(), rev_tape_vector_field(b, vec, TAPE_VECTOR_STRIDE), "stride");
  LLVMBuildStore(b, LLVMBuildAdd(b, count, const64(1), ""), count_at);
  LLVMValueRef offset = LLVMBuildMul(b, count, stride, "");
  LLVMBuildRet(b, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx()), data, &offset, 1, "record"));
  LLVMDisposeBuilder(b);
  return fn;
}

BlockRecord *rev_record_of(Reverse *r, LLVMBasicBlockRef bb) {
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    if (r->records[i].block == bb)
      return &r->records[i];
  BlockRecord record = {.block = bb};
  arrput(r->records, record);
  return &arrlast(r->records);
}

/* ---- tape layout, once every root is known ---- */

static unsigned field_of(BlockRecord *record, LLVMValueRef root) {
  for (ptrdiff_t i = 0; i < arrlen(record->roots); i++)
    if (record->roots[i] == root)
      return (unsigned)i;
  arrput(record->roots, root);
  return (unsigned)arrlen(record->roots) - 1;
}

/* Partials that did not need a value leave its reads unused: they go before
 * they cost a record. Placeholders are left to rev_layout_records. */
void rev_erase_dead_code(Reverse *r) {
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
        bool pure = rev_recomputable(inst) || (LLVMIsALoadInst(inst) && !LLVMGetVolatile(inst));
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

/* Where a block's record lives (rev_write_records), in words for a remark. */
static char *tape_place(Reverse *r, const BlockRecord *record) {
  static const char *const places[2][3] = {
      {"on the caller's stack", "in memory allocated on the heap",
       "in a heap buffer that grows with the loop"},
      {"on the caller's stack: local memory, unless registers hold it", "on the device heap",
       "in a device heap buffer that grows with the loop"},
  };
  if (record->inline_records)
    return kn_strdup_printf("the first %u records in the caller's local memory, then in the "
                            "launch's tape arena or on the device heap",
                            record->inline_records);
  return kn_strdup_printf("%s", places[kn_module.gpu][!record->once ? 2 : r->sig->adjacent ? 0 : 1]);
}

/* Device code has no realloc, and its heap is small and slow: the vectors
 * of a tape the caller holds (a request's, a derivative kernel's) start in
 * the tape itself, in the thread's local memory, so loops of a few hundred
 * records never grow (cuda/arena.c grows the rest). This many bytes for
 * all of them; far fewer where the code may recurse: the kernel's stack
 * then has no static size, and the driver gives it 1 KB a thread unless the
 * program raises cudaLimitStackSize, which a kilobyte of records alone
 * overflowed (an illegal address in the reverse kernel). */
enum { INLINE_RECORD_BYTES = 1024, INLINE_RECORD_BYTES_RECURSIVE = 128 };

static void place_inline_records(Reverse *r, unsigned *next_field) {
  if (!kn_module.gpu || !r->sig->adjacent)
    return;
  unsigned vectors = 0;
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    vectors += r->records[i].record && !r->records[i].once;
  if (!vectors)
    return;
  unsigned budget = kn_reaches_recursion(r->sig->fn) ? INLINE_RECORD_BYTES_RECURSIVE : INLINE_RECORD_BYTES;
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!record->record || record->once)
      continue;
    unsigned long long size = LLVMABISizeOfType(kn_module.layout, record->record);
    record->inline_records = (unsigned)(budget / vectors / (size ? size : 1));
    if (record->inline_records)
      record->inline_field = (*next_field)++;
  }
}

void rev_layout_records(Reverse *r) {
  /* Placeholders nobody reads are dropped before they cost a field. */
  for (ptrdiff_t i = 0; i < arrlen(r->placeholders); i++) {
    Placeholder *p = &r->placeholders[i];
    if (!LLVMGetFirstUse(p->load)) {
      LLVMInstructionEraseFromParent(p->load);
      p->load = NULL;
      continue;
    }
    field_of(rev_record_of(r, LLVMGetInstructionParent(p->root)), p->root);
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
    record->once = !cfg_on_cycle(record->block);
  }
  place_inline_records(r, &tape_field);
  for (ptrdiff_t i = 0; i < arrlen(r->placeholders) && kn_remarks_on(KN_RECORDED); i++)
    if (r->placeholders[i].load) {
      char *place = tape_place(r, rev_record_of(r, LLVMGetInstructionParent(r->placeholders[i].root)));
      rev_remark_recorded(r, &r->placeholders[i], place);
      free(place);
    }
}

/* The tape: per block with a record, the record itself for a block that
 * runs at most once a call, a growing vector of them for the others, then
 * the vectors' inline records. */
LLVMTypeRef rev_tape_type(Reverse *r) {
  LLVMTypeRef fields[512];
  unsigned n = 0;
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!record->record)
      continue;
    if (record->tape_field >= 512 || record->inline_field >= 512)
      kn_die("too many blocks recorded in one function");
    fields[record->tape_field] = record->once ? record->record : rev_tape_vector_type();
    if (record->inline_records)
      fields[record->inline_field] = LLVMArrayType2(record->record, record->inline_records);
    n = n > record->tape_field + 1 ? n : record->tape_field + 1;
    n = n > record->inline_field + 1 ? n : record->inline_field + 1;
  }
  return LLVMStructTypeInContext(ctx(), fields, n, 0);
}

/* aug, after the tape is zeroed: a vector with inline records starts with
 * them as its room. */
static void start_inline_vector(Reverse *r, LLVMTypeRef tape, BlockRecord *record) {
  LLVMValueRef vec = LLVMBuildStructGEP2(r->ab, tape, r->aug_tape, record->tape_field, "");
  LLVMBuildStore(r->ab, LLVMBuildStructGEP2(r->ab, tape, r->aug_tape, record->inline_field, "inline_records"),
                 rev_tape_vector_field(r->ab, vec, TAPE_VECTOR_DATA));
  LLVMBuildStore(r->ab, const64(record->inline_records), rev_tape_vector_field(r->ab, vec, TAPE_VECTOR_CAPACITY));
  LLVMBuildStore(r->ab, const64(LLVMABISizeOfType(kn_module.layout, record->record)),
                 rev_tape_vector_field(r->ab, vec, TAPE_VECTOR_STRIDE));
}

/* A function that records nothing passes a null tape: no allocation. */
static bool tape_is_empty(LLVMTypeRef tape) { return LLVMCountStructElementTypes(tape) == 0; }

/* What must start zeroed: all but the inline records, which come last and
 * are written before they are read. */
static unsigned long long zeroed_size(Reverse *r, LLVMTypeRef tape) {
  unsigned long long size = LLVMABISizeOfType(kn_module.layout, tape);
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    if (r->records[i].record && r->records[i].inline_records) {
      unsigned long long at = LLVMOffsetOfElement(kn_module.layout, tape, r->records[i].inline_field);
      size = at < size ? at : size;
    }
  return size;
}

/* aug: allocate the tape at entry (a request's caller holds it instead);
 * write each block's record at its end. */
void rev_write_records(Reverse *r, LLVMTypeRef tape) {
  if (tape_is_empty(tape)) {
    r->aug_tape = LLVMConstPointerNull(ptr());
    return;
  }
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(r->aug);
  LLVMPositionBuilderBefore(r->ab, kn_first_non_phi(entry));
  LLVMValueRef size = const64(zeroed_size(r, tape));
  if (r->sig->adjacent) {
    r->aug_tape = LLVMGetParam(r->aug, LLVMCountParams(r->aug) - 1);
    LLVMBuildMemSet(r->ab, r->aug_tape, LLVMConstInt(LLVMInt8TypeInContext(ctx()), 0, 0), size,
                    LLVMABIAlignmentOfType(kn_module.layout, tape));
  } else {
    r->aug_tape = kn_call_calloc(r->ab, size);
  }
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    if (r->records[i].record && r->records[i].inline_records)
      start_inline_vector(r, tape, &r->records[i]);
  LLVMValueRef push = tape_push_function();
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!record->record)
      continue;
    LLVMPositionBuilderBefore(r->ab, LLVMGetBasicBlockTerminator(record->block));
    LLVMValueRef field = LLVMBuildStructGEP2(r->ab, tape, r->aug_tape, record->tape_field, "");
    LLVMValueRef args[2] = {field, const64(LLVMABISizeOfType(kn_module.layout, record->record))};
    LLVMValueRef at =
        record->once ? field : LLVMBuildCall2(r->ab, LLVMGlobalGetValueType(push), push, args, 2, "");
    for (ptrdiff_t k = 0; k < arrlen(record->roots); k++)
      tape_access(LLVMBuildStore(r->ab, record->roots[k],
                                 LLVMBuildStructGEP2(r->ab, record->record, at, (unsigned)k, "")));
  }
}

/* rev: placeholders read their root block's record: the only one, or
 * record counter-1. */
void rev_read_records(Reverse *r, LLVMTypeRef tape) {
  LLVMValueRef tape_arg = LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 1);
  LLVMBasicBlockRef entry = LLVMValueAsBasicBlock(r->rev_entry);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(entry);
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++) {
    BlockRecord *record = &r->records[i];
    if (!record->record || !record->counter || record->once)
      continue;
    LLVMPositionBuilderBefore(r->b, term);
    LLVMValueRef vec = LLVMBuildStructGEP2(r->b, tape, tape_arg, record->tape_field, "");
    LLVMBuildStore(r->b, LLVMBuildLoad2(r->b, ptr(), rev_tape_vector_field(r->b, vec, TAPE_VECTOR_DATA), ""), record->data);
    LLVMBuildStore(r->b, LLVMBuildLoad2(r->b, i64(), rev_tape_vector_field(r->b, vec, TAPE_VECTOR_COUNT), ""),
                   record->counter);
    LLVMBuildStore(r->b, LLVMBuildLoad2(r->b, i64(), rev_tape_vector_field(r->b, vec, TAPE_VECTOR_STRIDE), ""),
                   record->stride);
  }
  for (ptrdiff_t i = 0; i < arrlen(r->placeholders); i++) {
    Placeholder *p = &r->placeholders[i];
    if (!p->load)
      continue;
    BlockRecord *record = rev_record_of(r, LLVMGetInstructionParent(p->root));
    LLVMPositionBuilderBefore(r->b, p->load);
    if (record->once) {
      LLVMValueRef at = LLVMBuildStructGEP2(r->b, tape, tape_arg, record->tape_field, "");
      LLVMSetOperand(p->load, 0, LLVMBuildStructGEP2(r->b, record->record, at, field_of(record, p->root), ""));
      tape_access(p->load);
      continue;
    }
    if (!record->counter)
      kn_die("value recorded by a block without a reverse counter");
    LLVMValueRef count = LLVMBuildLoad2(r->b, i64(), record->counter, "");
    LLVMValueRef index = LLVMBuildSub(r->b, count, const64(1), "");
    LLVMValueRef data = LLVMBuildLoad2(r->b, ptr(), record->data, "");
    LLVMValueRef offset = LLVMBuildMul(r->b, index, LLVMBuildLoad2(r->b, i64(), record->stride, ""), "");
    LLVMValueRef at = LLVMBuildGEP2(r->b, LLVMInt8TypeInContext(ctx()), data, &offset, 1, "");
    LLVMValueRef field = LLVMBuildStructGEP2(r->b, record->record, at, field_of(record, p->root), "");
    LLVMSetOperand(p->load, 0, field);
    tape_access(p->load);
  }
}

/* rev: free the records and the tape, return the adjoints of the
 * enzyme_out parameters. */
void rev_finish_exit(Reverse *r, LLVMTypeRef tape) {
  LLVMPositionBuilderAtEnd(r->b, LLVMValueAsBasicBlock(r->rev_exit));
  LLVMValueRef tape_arg = LLVMGetParam(r->rev, LLVMCountParams(r->rev) - 1);
  for (ptrdiff_t i = 0; i < arrlen(r->records); i++)
    if (r->records[i].record && !r->records[i].once) {
      LLVMValueRef vec = LLVMBuildStructGEP2(r->b, tape, tape_arg, r->records[i].tape_field, "");
      release_vector(r->b, LLVMBuildLoad2(r->b, ptr(), rev_tape_vector_field(r->b, vec, TAPE_VECTOR_DATA), ""));
    }
  if (!tape_is_empty(tape) && !r->sig->adjacent)
    kn_call_free(r->b, tape_arg);
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(r->rev));
  if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind) {
    LLVMBuildRetVoid(r->b);
    return;
  }
  LLVMValueRef result = LLVMGetPoison(ret);
  unsigned k = 0, param = 0;
  for (unsigned i = 0; i < r->sig->nparams; i++) {
    LLVMValueRef p = LLVMGetParam(r->aug, param);
    param += (r->sig->params[i] == ACT_DUP || r->sig->params[i] == ACT_DUPNONEED) ? 2 : 1;
    if (r->sig->params[i] != ACT_OUT)
      continue;
    LLVMValueRef slot = vmap_get(&r->adjoint, p), zero = LLVMConstNull(LLVMTypeOf(p));
    /* + 0.0 makes an untouched -0.0 the 0.0 users expect. */
    LLVMValueRef adj = slot ? rev_add_any(r->b, LLVMBuildLoad2(r->b, LLVMTypeOf(p), slot, ""), zero) : zero;
    result = LLVMBuildInsertValue(r->b, result, adj, k++, "");
  }
  LLVMBuildRet(r->b, result);
}

/* aug returns {result, [shadow], tape}. */
void rev_finish_aug_return(Reverse *r) {
  LLVMValueRef ret = LLVMGetBasicBlockTerminator(r->ret_block);
  LLVMPositionBuilderBefore(r->ab, ret);
  LLVMTypeRef type = LLVMGetReturnType(LLVMGlobalGetValueType(r->aug));
  LLVMValueRef result = LLVMGetPoison(type), value = returned_value(r);
  unsigned k = 0;
  if (value) {
    result = LLVMBuildInsertValue(r->ab, result, value, k++, "");
    if (kn_type_has_pointers(LLVMTypeOf(value)))
      result = LLVMBuildInsertValue(r->ab, result, rev_shadow_of(r, value, ret), k++, "");
  }
  result = LLVMBuildInsertValue(r->ab, result, r->aug_tape, k, "");
  LLVMBuildRet(r->ab, result);
  LLVMInstructionEraseFromParent(ret);
}
