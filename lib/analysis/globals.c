/* Shadows of mutable global variables.
 *
 * File-scope state carries derivatives from one function to another in
 * much C code: one function fills a global array from the inputs, another
 * reads it. A global the program writes (a store, memcpy or memset into it,
 * or its address handed to a call or stored away) and whose type holds
 * floating-point data gets a twin, its shadow: zero-initialised, of the same
 * type, shared by every derivative in the module.
 *
 * Globals only ever read act as constants and get none, so reading
 * parameters from globals costs nothing, unless a pointer may point either
 * to one of them or to memory with a shadow: then the global gets a shadow
 * too, which reads as zero and takes adjoints nobody reads.
 *
 * At a request's boundary globals are inputs held constant: each request
 * clears the shadows of the globals its function reaches before it runs, so
 * tangents and adjoints never leak from one request into the next.
 *
 * A global marked __attribute__((enzyme_shadow(g_shadow))) has the user's
 * g_shadow as its shadow, active even if only read, and never cleared: its
 * value is the user's seed and result, as in Enzyme.
 *
 * Pointer-typed globals get no shadow: their pointees may be set up outside
 * any derivative, where no shadow could be made for them. Nor do the host's
 * handles of CUDA __device__ and __constant__ variables: their memory is
 * the device's. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

static ValueMap shadows;  /* active global -> its shadow */
static ValueSet decided;  /* globals examined */
static ValueSet active;   /* ... of which these have a shadow */
static ValueSet reach_decided; /* functions examined by globals_reached_by */
static ValueSet touching;      /* ... of which these reach an active global */
static ValueSet merged;   /* read-only globals beside shadowed memory */
/* Whether the derivatives being made are the kernels' own (launched from
 * host code), not a device-side request's: see globals_for_launches. */
static bool for_launches;

typedef struct {
  LLVMValueRef before, fn; /* clear fn's globals' shadows before `before` */
  LLVMValueRef after, context, swap; /* with an enzyme::context (globals_use_context) */
} Clear;
static Clear *clears;

void globals_reset(void) {
  arrfree(clears);
  vmap_free(&shadows);
  vset_free(&decided);
  vset_free(&active);
  vset_free(&reach_decided);
  vset_free(&touching);
  vset_free(&merged);
  for_launches = false;
}

static bool is_memory_write_to(LLVMValueRef call, LLVMValueRef address) {
  const Rule *rule = rule_for_call(call);
  if (rule && (rule->kind == RULE_MEMCPY || rule->kind == RULE_MEMSET))
    return LLVMGetOperand(call, 0) == address;
  LLVMValueRef callee = kn_called_function(call);
  if (callee && LLVMGetIntrinsicID(callee) && !rule)
    return false; /* lifetime markers, assumptions, prefetches */
  return true;    /* the address escapes into the callee */
}

static bool written_through(LLVMValueRef address, int depth);

/* Unoptimised code keeps `p = &global` in a local slot: what is loaded back
 * from the slot counts as the global's address. */
static bool slot_leaks(LLVMValueRef slot, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    bool stored_into = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot;
    bool marker = kn_is_call_site(user) && !is_memory_write_to(user, slot);
    if (LLVMIsALoadInst(user) ? written_through(user, depth + 1) : !stored_into && !marker)
      return true;
  }
  return false;
}

/* Whether constant `c` only lists globals for LLVM (llvm.compiler.used,
 * which CUDA's __constant__ and __device__ variables are in). */
static bool only_in_llvm_lists(LLVMValueRef c) {
  for (LLVMUseRef use = LLVMGetFirstUse(c); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsAGlobalVariable(user) || strncmp(kn_value_name(user), "llvm.", 5) != 0)
      return false;
  }
  return true;
}

/* Whether some use of `address` (the global or a pointer derived from it)
 * writes the memory or lets the address escape. */
static bool written_through(LLVMValueRef address, int depth) {
  if (depth > 16)
    return true;
  for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsALoadInst(user) || LLVMIsAICmpInst(user))
      continue;
    if (LLVMIsAConstantArray(user) && only_in_llvm_lists(user))
      continue;
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == address &&
        LLVMIsAAllocaInst(LLVMGetOperand(user, 1))) {
      if (slot_leaks(LLVMGetOperand(user, 1), depth))
        return true;
      continue;
    }
    if (LLVMIsAStoreInst(user) || LLVMIsAAtomicRMWInst(user) || LLVMIsAAtomicCmpXchgInst(user) ||
        LLVMIsAPtrToIntInst(user))
      return true;
    if (kn_is_call_site(user)) {
      if (is_memory_write_to(user, address))
        return true;
      continue;
    }
    bool derived = LLVMIsAGetElementPtrInst(user) || LLVMIsACastInst(user) || LLVMIsAPHINode(user) ||
                   LLVMIsASelectInst(user) || LLVMIsAConstantExpr(user);
    if (!derived || written_through(user, depth + 1))
      return true;
  }
  return false;
}

/* Whether some use of `address` (the global or a pointer derived from it)
 * stores a float into it: raw storage reused for floats, as cub's
 * TempStorage (words of integers, `__shared__ typename
 * BlockReduce<float, 128>::TempStorage`) is. */
static bool stores_floats(LLVMValueRef address, int depth) {
  if (depth > 16)
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == address &&
        kn_type_has_floats(LLVMTypeOf(LLVMGetOperand(user, 0))))
      return true;
    if (LLVMIsAAtomicRMWInst(user) && kn_type_has_floats(LLVMTypeOf(user)))
      return true;
    bool derived = LLVMIsAGetElementPtrInst(user) || LLVMIsACastInst(user) || LLVMIsAPHINode(user) ||
                   LLVMIsASelectInst(user) || LLVMIsAConstantExpr(user);
    if (derived && stores_floats(user, depth + 1))
      return true;
  }
  return false;
}

/* In a CUDA host module, the host's handle of a __device__ or __constant__
 * variable, through which cudaMemcpyToSymbol / FromSymbol reach its memory
 * on the device: clang gives it no value (undef), since the host never
 * holds its values; a C or C++ global without an initializer is zero. (On
 * the device, __shared__ memory is undef too, and has shadows.) */
bool globals_is_device_variable_handle(LLVMValueRef g) {
  LLVMValueRef init = LLVMGetInitializer(g);
  return !kn_module.gpu && init && LLVMIsUndef(init);
}

/* On the device, a CUDA __device__ or __constant__ variable holding floats.
 * The host may copy values with derivatives into it (cudaMemcpyToSymbol),
 * so the derivative kernels of launches add their adjoints into its shadow
 * even where they only read it, and the host's reverse of the copy reads
 * them back; the host clears such shadows at each request
 * (globals_emit_clears). A device-side request treats the variables it only
 * reads as constants, as Enzyme does: a thread's reverse sweep would add
 * into a shadow that its next forward request read as a tangent. */
static bool is_device_variable_with_floats(LLVMValueRef g) {
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
  return kn_module.gpu && LLVMIsExternallyInitialized(g) && !LLVMIsDeclaration(g) &&
         (space == KN_GLOBAL_ADDRESS_SPACE || space == KN_CONSTANT_ADDRESS_SPACE) &&
         kn_type_has_floats(LLVMGlobalGetValueType(g)) && !registry_inactive_global(g);
}

/* A variable of the kind above that no device code writes (every
 * __constant__ one): only the host's copies can put values with
 * derivatives into it, so its shadow takes adjoints only while the runtime
 * says so (cuda/liveflag.c). */
bool globals_only_host_writes(LLVMValueRef g) {
  return for_launches && LLVMIsAGlobalVariable(g) && is_device_variable_with_floats(g) && !written_through(g, 0);
}

void globals_for_launches(void) {
  for_launches = true;
  vset_free(&reach_decided); /* what functions reach may have grown */
  vset_free(&touching);
}

static bool globals_is_active(LLVMValueRef g) {
  if (!LLVMIsAGlobalVariable(g))
    return false;
  if (for_launches && is_device_variable_with_floats(g))
    return true;
  if (vset_add(&decided, g)) {
    bool shadowed = registry_user_shadow(g) ||
                    (!LLVMIsGlobalConstant(g) && !LLVMIsDeclaration(g) &&
                    (kn_type_has_floats(LLVMGlobalGetValueType(g)) || stores_floats(g, 0)) &&
                    !registry_inactive_global(g) &&
                    strncmp(kn_value_name(g), "llvm.", 5) != 0 && written_through(g, 0) &&
                    !globals_is_device_variable_handle(g));
    if (shadowed)
      vset_add(&active, g);
  }
  return vset_has(&active, g);
}

static unsigned globals_alignment(LLVMValueRef g) {
  unsigned align = LLVMGetAlignment(g);
  return align ? align : LLVMABIAlignmentOfType(kn_module.layout, LLVMGlobalGetValueType(g));
}


static LLVMValueRef globals_shadow(LLVMValueRef g) {
  LLVMValueRef shadow = vmap_get(&shadows, g);
  if (shadow)
    return shadow;
  if ((shadow = registry_user_shadow(g))) {
    vmap_put(&shadows, g, shadow);
    return shadow;
  }
  LLVMTypeRef type = LLVMGlobalGetValueType(g);
  /* The kernels write a __constant__ variable's shadow: global memory. */
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
  if (space == KN_CONSTANT_ADDRESS_SPACE)
    space = KN_GLOBAL_ADDRESS_SPACE;
  char *name = kn_strdup_printf("__kinase_shadow_%s", kn_value_name(g));
  shadow = LLVMAddGlobalInAddressSpace(kn_module.mod, type, name, space);
  free(name);
  /* Shared memory on the GPU cannot be initialised; its shadow, shared
   * memory too, is cleared wherever the primal is written (reverse/augment.c). */
  LLVMSetInitializer(shadow, space == KN_SHARED_ADDRESS_SPACE ? LLVMGetUndef(type) : LLVMConstNull(type));
  /* A __device__ variable's shadow is visible in its module: the host
   * runtime finds it there (cuModuleGetGlobal) for the copies from and to
   * the variable (runtime/cuda_symbol.c). */
  bool device_variable = kn_module.gpu && space == KN_GLOBAL_ADDRESS_SPACE &&
                         LLVMGetLinkage(g) == LLVMExternalLinkage;
  LLVMSetLinkage(shadow, device_variable ? LLVMExternalLinkage : LLVMInternalLinkage);
  LLVMSetAlignment(shadow, globals_alignment(g));
  LLVMSetThreadLocalMode(shadow, LLVMGetThreadLocalMode(g));
  vmap_put(&shadows, g, shadow);
  return shadow;
}

/* The shadow of `v`, a global or a constant address computed from one
 * (a GEP or cast constant expression), where `accept` says the global has
 * one; NULL otherwise. */
static LLVMValueRef shadow_expression(LLVMValueRef v, bool (*accept)(LLVMValueRef)) {
  if (LLVMIsAGlobalVariable(v))
    return accept(v) ? globals_shadow(v) : NULL;
  if (!LLVMIsAConstantExpr(v))
    return NULL;
  LLVMOpcode op = LLVMGetConstOpcode(v);
  if (op != LLVMGetElementPtr && op != LLVMBitCast && op != LLVMAddrSpaceCast)
    return NULL;
  LLVMValueRef base = shadow_expression(LLVMGetOperand(v, 0), accept);
  if (!base)
    return NULL;
  if (op == LLVMBitCast)
    return LLVMConstBitCast(base, LLVMTypeOf(v));
  if (op == LLVMAddrSpaceCast)
    return LLVMConstAddrSpaceCast(base, LLVMTypeOf(v));
  unsigned n = (unsigned)LLVMGetNumOperands(v) - 1;
  LLVMValueRef *indices = malloc(sizeof *indices * (n ? n : 1));
  for (unsigned i = 0; i < n; i++)
    indices[i] = LLVMGetOperand(v, i + 1);
  LLVMValueRef gep = LLVMConstGEPWithNoWrapFlags(LLVMGetGEPSourceElementType(v), base, indices, n,
                                                 LLVMGEPGetNoWrapFlags(v));
  free(indices);
  return gep;
}

static bool is_defined(LLVMValueRef g) { return !LLVMIsDeclaration(g); }

LLVMValueRef globals_constant_shadow(LLVMValueRef v) { return shadow_expression(v, is_defined); }

/* The function globals_seed is at, and what is varied there. */
static LLVMValueRef seeding_fn;
static ValueSet *seeding_varied;

static bool in_seeding_fn(LLVMValueRef inst) {
  return LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)) == seeding_fn;
}

/* Whether the function being differentiated may store a derivative into
 * the memory at `address` (a __shared__ array or an address into one):
 * a varied value stored, or the address going anywhere but loads, stores
 * of values that are not varied, and address arithmetic. */
static bool shared_memory_varied(LLVMValueRef address, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(address); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAConstantExpr(user) || LLVMIsAGetElementPtrInst(user) || LLVMIsACastInst(user)) {
      if (LLVMIsAInstruction(user) && !in_seeding_fn(user))
        continue;
      if (depth > 8 || shared_memory_varied(user, depth + 1))
        return true;
      continue;
    }
    if (!LLVMIsAInstruction(user) || !in_seeding_fn(user) || LLVMIsALoadInst(user))
      continue;
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 0) == address ||
        vset_has(seeding_varied, LLVMGetOperand(user, 0)))
      return true;
  }
  return false;
}

/* A __shared__ array lives as long as the kernel that declares it, which
 * the derivative being made covers whole (device code is inlined first):
 * it needs a shadow there only if a derivative is stored into it. So a
 * kernel whose shared tiles only ever hold Const data (a matrix product
 * with both factors Const) keeps no shadow tiles and adds nothing. */
static bool is_shadowed(LLVMValueRef g) {
  bool shadowed = globals_is_active(g) || vset_has(&merged, g);
  if (shadowed && seeding_fn && LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == KN_SHARED_ADDRESS_SPACE)
    return shared_memory_varied(g, 0);
  return shadowed;
}

/* A varied pointer phi or select with an operand into a global that has no
 * shadow yet: the global gets one. */
static bool find_merged(ValueSet *varied, LLVMValueRef inst) {
  if (!vset_has(varied, inst) || !kn_is_pointer_type(LLVMTypeOf(inst)))
    return false;
  bool found = false;
  unsigned first = LLVMIsASelectInst(inst) ? 1 : 0;
  unsigned n = LLVMIsAPHINode(inst) ? LLVMCountIncoming(inst) : LLVMIsASelectInst(inst) ? 3 : 0;
  for (unsigned i = first; i < n; i++) {
    LLVMValueRef operand = LLVMGetOperand(inst, i);
    LLVMValueRef object = kn_underlying_object(operand);
    if (!vset_has(varied, operand) && LLVMIsAGlobalVariable(object) && is_defined(object))
      found |= vset_add(&merged, object);
  }
  return found;
}

bool globals_seed(ValueSet *varied, ValueMap *shadow, LLVMBasicBlockRef *blocks) {
  bool seeded = false;
  seeding_fn = arrlen(blocks) ? LLVMGetBasicBlockParent(blocks[0]) : NULL;
  seeding_varied = varied;
  for (ptrdiff_t k = 0; k < arrlen(blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst))
      find_merged(varied, inst);
  for (ptrdiff_t k = 0; k < arrlen(blocks); k++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(blocks[k]); inst;
         inst = LLVMGetNextInstruction(inst))
      for (int i = 0, n = LLVMGetNumOperands(inst); i < n; i++) {
        LLVMValueRef operand = LLVMGetOperand(inst, i);
        if (!LLVMIsAConstant(operand) || vset_has(varied, operand))
          continue;
        LLVMValueRef s = shadow_expression(operand, is_shadowed);
        if (s) {
          seeded |= vset_add(varied, operand);
          vmap_put(shadow, operand, s);
        }
      }
  seeding_fn = NULL;
  seeding_varied = NULL;
  return seeded;
}

/* The functions `call` may run: its callee, or for an indirect call the
 * functions devirt.c would compare it with (a stb_ds array). */
static LLVMValueRef *possible_callees(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  if (!callee)
    return devirt_candidates(call);
  LLVMValueRef *one = NULL;
  arrput(one, callee);
  return one;
}

/* Adds to `found` the globals `accept` takes that `v` is or names inside a
 * constant expression. */
static void collect_globals(LLVMValueRef v, bool (*accept)(LLVMValueRef), ValueSet *found, int depth) {
  if (LLVMIsAGlobalVariable(v)) {
    if (accept(v))
      vset_add(found, v);
  } else if (LLVMIsAConstantExpr(v) && depth < 8) {
    for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
      collect_globals(LLVMGetOperand(v, i), accept, found, depth + 1);
  }
}

/* The globals `accept` takes that `fn`, or a function it may call, uses. */
static void collect_reached(LLVMValueRef fn, bool (*accept)(LLVMValueRef), ValueSet *seen, ValueSet *found) {
  if (!fn || LLVMIsDeclaration(fn) || !vset_add(seen, fn))
    return;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      for (int i = 0, n = LLVMGetNumOperands(inst); i < n; i++)
        collect_globals(LLVMGetOperand(inst, i), accept, found, 0);
      LLVMValueRef *callees = kn_is_call_site(inst) ? possible_callees(inst) : NULL;
      for (ptrdiff_t i = 0; i < arrlen(callees); i++)
        collect_reached(callees[i], accept, seen, found);
      arrfree(callees);
    }
}

/* Asked for every call activity meets: the answer is kept per function. */
bool globals_reached_by(LLVMValueRef fn) {
  if (!fn || LLVMIsDeclaration(fn))
    return false;
  if (vset_add(&reach_decided, fn)) {
    ValueSet seen = {0}, found = {0};
    collect_reached(fn, globals_is_active, &seen, &found);
    if (vset_size(&found))
      vset_add(&touching, fn);
    vset_free(&seen);
    vset_free(&found);
  }
  return vset_has(&touching, fn);
}

static bool has_shadow(LLVMValueRef g) { return vmap_get(&shadows, g) != NULL; }

/* In device code every thread makes its own requests: one thread's clear
 * would wipe what another is computing, so device requests clear nothing. */
/* An instruction marking where code goes once every derivative is
 * generated: the instruction it precedes may be gone by then (a call that a
 * request's landing pad made an invoke). */
static LLVMValueRef place_before(LLVMValueRef inst) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef place = LLVMBuildFreeze(b, LLVMConstNull(LLVMInt1TypeInContext(kn_module.ctx)), "");
  LLVMDisposeBuilder(b);
  return place;
}

void globals_clear_before(LLVMValueRef before, LLVMValueRef fn) {
  if (!kn_module.gpu)
    arrput(clears, ((Clear){.before = place_before(before), .fn = fn}));
}

void globals_use_context(LLVMValueRef before, LLVMValueRef after, LLVMValueRef fn,
                         LLVMValueRef context, LLVMValueRef swap) {
  arrput(clears, ((Clear){place_before(before), fn, after, context, swap}));
}

/* The size of a global's value, as an i64. */
static LLVMValueRef size_of_global(LLVMValueRef g) {
  return LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx),
                      LLVMABISizeOfType(kn_module.layout, LLVMGlobalGetValueType(g)), 0);
}

/* Calls `swap` for each global with a shadow that `c->fn` reaches: zero
 * their shadows (no context), or move them in or out of the context. */
static void emit_for_shadows(LLVMBuilderRef b, const Clear *c, bool into) {
  ValueSet seen = {0}, found = {0};
  collect_reached(c->fn, has_shadow, &seen, &found);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx), ptr = LLVMPointerTypeInContext(kn_module.ctx, 0);
  LLVMTypeRef params[5] = {ptr, ptr, LLVMInt64TypeInContext(kn_module.ctx), ptr, i32};
  LLVMTypeRef swap_type = LLVMFunctionType(LLVMVoidTypeInContext(kn_module.ctx), params, 5, 0);
  for (LLVMValueRef g = LLVMGetFirstGlobal(kn_module.mod); g; g = LLVMGetNextGlobal(g)) {
    /* a shadow the user named (enzyme_shadow) is the user's to set */
    if (!vset_has(&found, g) || LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == KN_SHARED_ADDRESS_SPACE ||
        registry_user_shadow(g))
      continue;
    if (!c->context) {
      LLVMBuildMemSet(b, globals_shadow(g), LLVMConstInt(LLVMInt8TypeInContext(kn_module.ctx), 0, 0),
                      size_of_global(g), globals_alignment(g));
      continue;
    }
    LLVMValueRef args[5] = {c->context, g, size_of_global(g), globals_shadow(g),
                            LLVMConstInt(i32, into, 0)};
    LLVMBuildCall2(b, swap_type, c->swap, args, 5, "");
  }
  vset_free(&seen);
  vset_free(&found);
}

void globals_emit_clears(void) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t i = 0; i < arrlen(clears); i++) {
    const Clear *c = &clears[i];
    if (!kn_module.gpu && !c->context) {
      LLVMPositionBuilderBefore(b, c->before);
      cuda_clear_symbol_shadows(b, c->fn);
    }
    if (vmap_size(&shadows)) {
      LLVMPositionBuilderBefore(b, c->before);
      emit_for_shadows(b, c, true);
      if (c->after) {
        LLVMPositionBuilderBefore(b, c->after);
        emit_for_shadows(b, c, false);
      }
    }
    LLVMInstructionEraseFromParent(c->before);
    if (c->after)
      LLVMInstructionEraseFromParent(c->after);
  }
  LLVMDisposeBuilder(b);
}
