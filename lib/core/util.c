/* Value maps, value sets and small helpers on LLVM values and types. */
#include "kinase.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STB_DS_IMPLEMENTATION
#include <stb/stb_ds.h>

struct ValuePair {
  LLVMValueRef key;
  LLVMValueRef value;
};

struct ValueSetEntry {
  LLVMValueRef key;
  char value;
};

LLVMValueRef vmap_get(ValueMap *map, LLVMValueRef key) {
  ptrdiff_t i = hmgeti(map->pairs, key);
  return i < 0 ? NULL : map->pairs[i].value;
}

void vmap_put(ValueMap *map, LLVMValueRef key, LLVMValueRef value) {
  hmput(map->pairs, key, value);
}

void vmap_free(ValueMap *map) { hmfree(map->pairs); }

size_t vmap_size(ValueMap *map) { return (size_t)hmlen(map->pairs); }

bool vset_has(ValueSet *set, LLVMValueRef value) { return hmgeti(set->entries, value) >= 0; }

bool vset_add(ValueSet *set, LLVMValueRef value) {
  if (vset_has(set, value))
    return false;
  hmput(set->entries, value, 1);
  return true;
}

void vset_remove(ValueSet *set, LLVMValueRef value) { (void)hmdel(set->entries, value); }

size_t vset_size(ValueSet *set) { return (size_t)hmlen(set->entries); }

void vset_free(ValueSet *set) { hmfree(set->entries); }

_Noreturn void kn_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("kinase: internal error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

char *kn_strdup_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  if (!s)
    kn_die("out of memory");
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

bool kn_env_set(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

const char *kn_value_name(LLVMValueRef value) {
  size_t len;
  const char *name = LLVMGetValueName2(value, &len);
  return name ? name : "";
}

const char *kn_function_name(LLVMValueRef fn) { return kn_value_name(fn); }

bool kn_is_generated_function(LLVMValueRef fn) {
  return !strncmp(kn_function_name(fn), "__kinase_", 9) || !strncmp(kn_function_name(fn), "kinase.", 7);
}

static bool is_float_kind(LLVMTypeKind kind) {
  switch (kind) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind:
    return true;
  default:
    return false;
  }
}

bool kn_is_float_type(LLVMTypeRef type) {
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  if (kind == LLVMVectorTypeKind || kind == LLVMScalableVectorTypeKind)
    return is_float_kind(LLVMGetTypeKind(LLVMGetElementType(type)));
  return is_float_kind(kind);
}

bool kn_is_float_or_double(LLVMTypeRef type) {
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  return kind == LLVMFloatTypeKind || kind == LLVMDoubleTypeKind;
}

/* Whether `leaf` holds for a scalar (or vector) anywhere inside `type`. */
static bool type_contains(LLVMTypeRef type, bool (*leaf)(LLVMTypeRef)) {
  switch (LLVMGetTypeKind(type)) {
  case LLVMArrayTypeKind:
    return type_contains(LLVMGetElementType(type), leaf);
  case LLVMStructTypeKind:
    for (unsigned i = 0, n = LLVMCountStructElementTypes(type); i < n; i++)
      if (type_contains(LLVMStructGetTypeAtIndex(type, i), leaf))
        return true;
    return false;
  default:
    return leaf(type);
  }
}

bool kn_type_has_pointers(LLVMTypeRef type) { return type_contains(type, kn_is_pointer_type); }

bool kn_type_has_floats(LLVMTypeRef type) { return type_contains(type, kn_is_float_type); }

bool kn_is_address_integer(LLVMTypeRef type) {
  return LLVMGetTypeKind(type) == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(type) == 8 * LLVMPointerSize(kn_module.layout);
}

bool kn_is_pointer_type(LLVMTypeRef type) {
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  if (kind == LLVMVectorTypeKind)
    kind = LLVMGetTypeKind(LLVMGetElementType(type));
  return kind == LLVMPointerTypeKind;
}

LLVMValueRef kn_strip_casts(LLVMValueRef value) {
  for (;;) {
    if (LLVMIsAConstantExpr(value) || LLVMIsACastInst(value)) {
      LLVMOpcode op = LLVMIsAConstantExpr(value) ? LLVMGetConstOpcode(value)
                                                 : LLVMGetInstructionOpcode(value);
      if (op == LLVMBitCast || op == LLVMAddrSpaceCast) {
        value = LLVMGetOperand(value, 0);
        continue;
      }
    }
    return value;
  }
}

bool kn_is_call_site(LLVMValueRef v) { return LLVMIsACallInst(v) || LLVMIsAInvokeInst(v); }

LLVMValueRef kn_called_function(LLVMValueRef call) {
  LLVMValueRef callee = kn_strip_casts(LLVMGetCalledValue(call));
  return LLVMIsAFunction(callee) ? callee : NULL;
}

LLVMValueRef kn_underlying_object(LLVMValueRef ptr) {
  for (;;) {
    ptr = kn_strip_casts(ptr);
    bool gep = LLVMIsAGetElementPtrInst(ptr) ||
               (LLVMIsAConstantExpr(ptr) && LLVMGetConstOpcode(ptr) == LLVMGetElementPtr);
    if (!gep)
      return ptr;
    ptr = LLVMGetOperand(ptr, 0);
  }
}

bool kn_constant_offset(LLVMValueRef p, LLVMValueRef *base, int64_t *offset) {
  *offset = 0;
  while (LLVMIsAGetElementPtrInst(p)) {
    LLVMTypeRef type = LLVMGetGEPSourceElementType(p);
    for (unsigned i = 1, n = (unsigned)LLVMGetNumOperands(p); i < n; i++) {
      LLVMValueRef index = LLVMGetOperand(p, i);
      if (!LLVMIsAConstantInt(index))
        return false;
      long long k = LLVMConstIntGetSExtValue(index);
      if (i == 1) {
        *offset += k * (int64_t)LLVMABISizeOfType(kn_module.layout, type);
      } else if (LLVMGetTypeKind(type) == LLVMStructTypeKind) {
        *offset += (int64_t)LLVMOffsetOfElement(kn_module.layout, type, (unsigned)k);
        type = LLVMStructGetTypeAtIndex(type, (unsigned)k);
      } else if (LLVMGetTypeKind(type) == LLVMArrayTypeKind) {
        type = LLVMGetElementType(type);
        *offset += k * (int64_t)LLVMABISizeOfType(kn_module.layout, type);
      } else {
        return false;
      }
    }
    p = LLVMGetOperand(p, 0);
  }
  *base = p;
  return true;
}

void kn_drop_metadata(LLVMValueRef inst) {
  size_t n;
  LLVMValueMetadataEntry *entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(inst, &n);
  for (size_t i = 0; i < n; i++)
    LLVMSetMetadata(inst, LLVMValueMetadataEntriesGetKind(entries, (unsigned)i), NULL);
  LLVMDisposeValueMetadataEntries(entries);
}

LLVMValueRef kn_first_non_phi(LLVMBasicBlockRef bb) {
  LLVMValueRef inst = LLVMGetFirstInstruction(bb);
  while (inst && LLVMIsAPHINode(inst))
    inst = LLVMGetNextInstruction(inst);
  return inst;
}

LLVMBuilderRef kn_entry_builder(LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMValueRef first = kn_first_non_phi(entry);
  if (first)
    LLVMPositionBuilderBefore(b, first);
  else
    LLVMPositionBuilderAtEnd(b, entry);
  return b;
}

LLVMValueRef kn_constant_string(LLVMBuilderRef b, const char *text) {
  char *name = kn_strdup_printf("kinase.text.%s", text);
  LLVMValueRef global = LLVMGetNamedGlobal(kn_module.mod, name);
  if (!global)
    global = LLVMBuildGlobalString(b, text, name);
  free(name);
  return global;
}

LLVMValueRef kn_libc_function(const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n) {
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (!fn) {
    fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(ret, params, n, 0));
    /* C throws no exceptions: calls of it stay calls where a derivative
     * is inlined into an invoke (core/unwind.c). */
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(kn_module.ctx, nounwind, 0));
  }
  return fn;
}

LLVMValueRef kn_call_libc(LLVMBuilderRef b, const char *name, LLVMTypeRef ret, LLVMValueRef *args,
                          unsigned n) {
  LLVMTypeRef params[16];
  for (unsigned i = 0; i < n && i < 16; i++)
    params[i] = LLVMTypeOf(args[i]);
  LLVMValueRef fn = kn_libc_function(name, ret, params, n);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

void kn_device_stop(LLVMBuilderRef b, const char *format, const char *name, LLVMValueRef values) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMValueRef args[2] = {LLVMBuildGlobalString(b, format, name), values};
  kn_call_libc(b, "vprintf", LLVMInt32TypeInContext(ctx), args, 2);
  kn_call_libc(b, "llvm.trap", LLVMVoidTypeInContext(ctx), NULL, 0);
  LLVMBuildUnreachable(b);
}

/* kinase.device.malloc(n): malloc on the device heap, which is small (8 MB
 * unless the program raises it): running out stops the kernel with a
 * message rather than an illegal address later. */
static LLVMValueRef device_malloc_function(void) {
  const char *name = "kinase.device.malloc";
  LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, name);
  if (fn)
    return fn;
  LLVMContextRef ctx = kn_module.ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
  fn = LLVMAddFunction(kn_module.mod, name, LLVMFunctionType(ptr, &i64, 1, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(ctx, fn, "exhausted");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(ctx, fn, "ok");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef size = LLVMGetParam(fn, 0);
  LLVMValueRef memory = kn_call_libc(b, "malloc", ptr, &size, 1);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, memory, ""), fail, ok);
  LLVMPositionBuilderAtEnd(b, fail);
  kn_device_stop(b, "kinase: the device heap is exhausted by a derivative's tape (raise cudaLimitMallocHeapSize)\n",
                 "kinase.heap.msg", LLVMConstPointerNull(ptr));
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildRet(b, memory);
  LLVMDisposeBuilder(b);
  return fn;
}

LLVMValueRef kn_device_malloc(LLVMBuilderRef b, LLVMValueRef size) {
  LLVMValueRef fn = device_malloc_function();
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &size, 1, "");
}

/* Device code has malloc and free but no calloc. */
LLVMValueRef kn_call_calloc(LLVMBuilderRef b, LLVMValueRef size) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(kn_module.ctx), ptr = LLVMPointerTypeInContext(kn_module.ctx, 0);
  size = LLVMBuildZExtOrBitCast(b, size, i64, "");
  if (!kn_module.gpu) {
    LLVMValueRef args[2] = {LLVMConstInt(i64, 1, 0), size};
    return kn_call_libc(b, "calloc", ptr, args, 2);
  }
  LLVMValueRef memory = kn_device_malloc(b, size);
  LLVMBuildMemSet(b, memory, LLVMConstInt(LLVMInt8TypeInContext(kn_module.ctx), 0, 0), size, 8);
  return memory;
}

void kn_align_local(LLVMValueRef alloca) {
  if (!kn_module.gpu && LLVMGetAlignment(alloca) < 64)
    LLVMSetAlignment(alloca, 64);
}

/* calloc's blocks are aligned for any scalar (16 bytes), not for a local
 * of AVX vectors (`alloca <4 x double>, align 32`, Eigen's packets) whose
 * accesses, kept by its shadow or by it moved to the heap, say align 32. */
LLVMValueRef kn_call_calloc_aligned(LLVMBuilderRef b, LLVMValueRef size, unsigned align) {
  if (kn_module.gpu || align <= 16)
    return kn_call_calloc(b, size);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(kn_module.ctx), ptr = LLVMPointerTypeInContext(kn_module.ctx, 0);
  size = LLVMBuildZExtOrBitCast(b, size, i64, "");
  LLVMValueRef args[2] = {LLVMConstInt(i64, align, 0), size};
  LLVMValueRef memory = kn_call_libc(b, "aligned_alloc", ptr, args, 2);
  LLVMBuildMemSet(b, memory, LLVMConstInt(LLVMInt8TypeInContext(kn_module.ctx), 0, 0), size, align);
  return memory;
}

void kn_call_free(LLVMBuilderRef b, LLVMValueRef p) {
  kn_call_libc(b, "free", LLVMVoidTypeInContext(kn_module.ctx), &p, 1);
}

/* atomicAdd on floats: an atomic fadd or fsub, which accumulates. */
bool kn_is_atomic_accumulation(LLVMValueRef inst) {
  if (!LLVMIsAAtomicRMWInst(inst))
    return false;
  LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(inst);
  return (op == LLVMAtomicRMWBinOpFAdd || op == LLVMAtomicRMWBinOpFSub) &&
         kn_is_float_type(LLVMTypeOf(LLVMGetOperand(inst, 1)));
}

bool kn_is_extern_shared(LLVMValueRef v) {
  return LLVMIsAGlobalVariable(v) && LLVMIsDeclaration(v) &&
         LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == KN_SHARED_ADDRESS_SPACE;
}

/* A call that neither reads nor writes memory: memory(none) on the call or
 * on its callee. */
/* Atomics, fences and calls that unwind: they may read or write memory
 * the way no plain load or store does. */
bool kn_orders_memory(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMFence:
  case LLVMInvoke:
  case LLVMCallBr:
    return true;
  default:
    return false;
  }
}

/* Depth-first over the calls: a callee still on the path is a cycle. */
static bool recursion_from(LLVMValueRef fn, ValueSet *on_path, ValueSet *done) {
  if (vset_has(on_path, fn))
    return true;
  if (vset_has(done, fn) || LLVMIsDeclaration(fn))
    return false;
  vset_add(on_path, fn);
  bool found = false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !found; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst && !found; inst = LLVMGetNextInstruction(inst)) {
      if (!kn_is_call_site(inst) || LLVMIsAInlineAsm(LLVMGetCalledValue(inst)))
        continue;
      LLVMValueRef callee = kn_called_function(inst);
      found = callee ? recursion_from(callee, on_path, done) : true;
    }
  vset_remove(on_path, fn);
  vset_add(done, fn);
  return found;
}

bool kn_reaches_recursion(LLVMValueRef fn) {
  ValueSet on_path = {0}, done = {0};
  bool found = recursion_from(fn, &on_path, &done);
  vset_free(&on_path);
  vset_free(&done);
  return found;
}

bool kn_call_is_pure(LLVMValueRef call) {
  unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef at = LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, memory);
  LLVMValueRef callee = kn_called_function(call);
  if (!at && callee)
    at = LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, memory);
  return at && LLVMGetEnumAttributeValue(at) == 0;
}

/* Asks LLVM's unroller for `count` copies of the loop whose latch ends in
 * `branch` (llvm.loop.unroll.count; the remainder runs in a loop of its
 * own). The loop's ID refers to itself: made with a temporary node. */
void kn_set_unroll_count(LLVMValueRef branch, unsigned count) {
  LLVMContextRef c = kn_module.ctx;
  static const char key[] = "llvm.loop.unroll.count";
  LLVMMetadataRef hint[2] = {LLVMMDStringInContext2(c, key, sizeof key - 1),
                             LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), count, 0))};
  LLVMMetadataRef self = LLVMTemporaryMDNode(c, NULL, 0);
  LLVMMetadataRef id[2] = {self, LLVMMDNodeInContext2(c, hint, 2)};
  LLVMMetadataRef loop = LLVMMDNodeInContext2(c, id, 2);
  LLVMMetadataReplaceAllUsesWith(self, loop);
  LLVMSetMetadata(branch, LLVMGetMDKindIDInContext(c, "llvm.loop", 9), LLVMMetadataAsValue(c, loop));
}

const char *kn_tbaa_access_name(LLVMValueRef inst) {
  LLVMValueRef tag = LLVMGetMetadata(inst, LLVMGetMDKindIDInContext(kn_module.ctx, "tbaa", 4));
  if (!tag || LLVMGetMDNodeNumOperands(tag) < 2 || LLVMGetMDNodeNumOperands(tag) > 4)
    return NULL;
  LLVMValueRef ops[4];
  LLVMGetMDNodeOperands(tag, ops);
  LLVMValueRef access = ops[1];
  if (!access || !LLVMIsAMDNode(access) || !LLVMGetMDNodeNumOperands(access) ||
      LLVMGetMDNodeNumOperands(access) > 8)
    return NULL;
  LLVMValueRef names[8];
  LLVMGetMDNodeOperands(access, names);
  unsigned len;
  return names[0] ? LLVMGetMDString(names[0], &len) : NULL;
}

LLVMTypeRef kn_tbaa_named_type(const char *name) {
  LLVMContextRef c = kn_module.ctx;
  if (!strcmp(name, "double"))
    return LLVMDoubleTypeInContext(c);
  if (!strcmp(name, "float"))
    return LLVMFloatTypeInContext(c);
  if (!strcmp(name, "any pointer") || !strncmp(name, "p1 ", 3) || !strncmp(name, "p2 ", 3))
    return LLVMPointerTypeInContext(c, 0);
  if (!strcmp(name, "int") || !strcmp(name, "long") || !strcmp(name, "long long") || !strcmp(name, "short"))
    return LLVMInt64TypeInContext(c);
  return NULL;
}

/* The structs of cuda_fp16.h and cuda_bf16.h by name; clang may suffix a
 * struct's name (`struct.__half.0`). */
static const struct {
  const char *name;
  LLVMTypeRef (*type)(LLVMContextRef);
} sixteen_bit[] = {
    {"struct.__half", LLVMHalfTypeInContext},
    {"struct.__nv_bfloat16", LLVMBFloatTypeInContext},
};

LLVMTypeRef kn_sixteen_bit_float(LLVMTypeRef type) {
  const char *name = LLVMGetTypeKind(type) == LLVMStructTypeKind ? LLVMGetStructName(type) : NULL;
  for (size_t k = 0; name && k < sizeof sixteen_bit / sizeof *sixteen_bit; k++) {
    size_t n = strlen(sixteen_bit[k].name);
    if (!strncmp(name, sixteen_bit[k].name, n) && (name[n] == 0 || name[n] == '.'))
      return sixteen_bit[k].type(kn_module.ctx);
  }
  return NULL;
}

unsigned kn_copy_alignment(LLVMValueRef call, unsigned i) {
  unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
  LLVMAttributeRef attr = LLVMGetCallSiteEnumAttribute(call, i + 1, kind);
  return attr ? (unsigned)LLVMGetEnumAttributeValue(attr) : 1;
}

LLVMTypeRef kn_gep_field_type(LLVMValueRef gep) {
  LLVMTypeRef type = LLVMGetGEPSourceElementType(gep);
  for (int i = 2, n = LLVMGetNumOperands(gep); i < n && type; i++) {
    LLVMValueRef index = LLVMGetOperand(gep, (unsigned)i);
    LLVMTypeKind kind = LLVMGetTypeKind(type);
    if (kind == LLVMStructTypeKind && LLVMIsAConstantInt(index))
      type = LLVMStructGetTypeAtIndex(type, (unsigned)LLVMConstIntGetZExtValue(index));
    else if (kind == LLVMArrayTypeKind || kind == LLVMVectorTypeKind)
      type = LLVMGetElementType(type);
    else
      type = NULL;
  }
  return type;
}
