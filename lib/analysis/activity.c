/* Activity: which values can carry a derivative from the active inputs
 * ("varied"), found by iterating to a fixed point over the blocks. Both
 * modes share it; forward mode also lets integers loaded from shadowed
 * memory carry the shadow's bits. */
#include "kinase.h"

#include <stb/stb_ds.h>

bool activity_any_operand(ValueSet *varied, LLVMValueRef inst, unsigned first, unsigned count) {
  for (unsigned i = first; i < first + count && i < (unsigned)LLVMGetNumOperands(inst); i++)
    if (vset_has(varied, LLVMGetOperand(inst, i)))
      return true;
  return false;
}

bool activity_differentiable_type(LLVMTypeRef type) {
  return kn_type_has_floats(type) || kn_type_has_pointers(type);
}

static bool returns_fresh_memory(LLVMValueRef fn, int depth);

/* An indirect call whose every possible callee allocates (malloc reached
 * through a pointer in a structure). */
static bool indirect_returns_fresh(LLVMValueRef call, int depth) {
  LLVMValueRef *callees = devirt_candidates(call);
  bool fresh = callees != NULL;
  for (ptrdiff_t i = 0; i < arrlen(callees) && fresh; i++) {
    const Rule *rule = rule_for_function(callees[i]);
    fresh = rule ? rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC || rule->kind == RULE_REALLOC
                 : returns_fresh_memory(callees[i], depth);
  }
  arrfree(callees);
  return fresh;
}

static bool is_fresh(LLVMValueRef v, int depth);
static bool fresh_aggregate(LLVMValueRef v, int depth);

/* Whether every store into the local at `address` (and through GEPs from
 * it) of a value holding pointers stores fresh memory, and nothing else
 * writes it: clang's slot for a struct returned by value at -O0. */
static bool slot_holds_fresh(LLVMValueRef address, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsALoadInst(user))
      continue;
    if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == address) {
      if (!slot_holds_fresh(user, depth))
        return false;
      continue;
    }
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != address)
      return false;
    LLVMValueRef stored = LLVMGetOperand(user, 0);
    if (!kn_type_has_pointers(LLVMTypeOf(stored)))
      continue;
    if (kn_is_pointer_type(LLVMTypeOf(stored)) ? !is_fresh(stored, depth + 1) : !fresh_aggregate(stored, depth + 1))
      return false;
  }
  return true;
}

/* Whether the pointers in the struct value `v` are all fresh memory (or
 * null): a struct {double *p; long n;} a helper fills with malloc's result
 * and returns by value. */
static bool fresh_aggregate(LLVMValueRef v, int depth) {
  if (depth > 6)
    return false;
  if (LLVMIsNull(v) || LLVMIsUndef(v) || LLVMIsPoison(v))
    return true;
  if (LLVMIsAInsertValueInst(v)) {
    LLVMValueRef part = LLVMGetOperand(v, 1);
    bool ok = !kn_type_has_pointers(LLVMTypeOf(part)) ||
              (kn_is_pointer_type(LLVMTypeOf(part)) ? is_fresh(part, depth + 1) : fresh_aggregate(part, depth + 1));
    return ok && fresh_aggregate(LLVMGetOperand(v, 0), depth + 1);
  }
  if (LLVMIsAPHINode(v)) {
    for (unsigned i = 0, n = LLVMCountIncoming(v); i < n; i++)
      if (!fresh_aggregate(LLVMGetIncomingValue(v, i), depth + 1))
        return false;
    return true;
  }
  if (LLVMIsALoadInst(v) && LLVMIsAAllocaInst(LLVMGetOperand(v, 0)))
    return slot_holds_fresh(LLVMGetOperand(v, 0), depth);
  if (kn_is_call_site(v))
    return kn_called_function(v) && returns_fresh_memory(kn_called_function(v), depth + 1);
  return false;
}

/* `v` as the value it was spilled from at -O0: a load of a local that one
 * store fills (a parameter kept in its slot), else `v`. */
static LLVMValueRef unspilled(LLVMValueRef v) {
  LLVMValueRef slot = LLVMIsALoadInst(v) ? LLVMGetOperand(v, 0) : NULL;
  if (!slot || !LLVMIsAAllocaInst(slot))
    return v;
  LLVMValueRef stored = NULL;
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot) {
      if (stored)
        return v;
      stored = LLVMGetOperand(user, 0);
    } else if (!LLVMIsALoadInst(user) && !kn_is_call_site(user)) {
      return v;
    }
  }
  return stored ? stored : v;
}

/* Whether `call` allocates into the memory at `slot`: posix_memalign(&p,
 * ...), cudaMalloc(&p, n), cuMemAlloc(&dptr, n), or a function that passes
 * its parameter on to one (the C++ overload cudaMalloc<T>(T **, size_t) of
 * cuda_runtime.h): what a helper like `float *zeroed(void) { float *d;
 * cudaMalloc(&d, 4); ...; return d; }` returns. */
static bool fills_slot_with_fresh_memory(LLVMValueRef call, LLVMValueRef slot, int depth) {
  if (depth > 4 || !kn_is_call_site(call))
    return false;
  const Rule *rule = rule_for_call(call);
  if (rule)
    return rule->kind == RULE_POSIX_MEMALIGN && unspilled(LLVMGetOperand(call, 0)) == slot;
  LLVMValueRef callee = kn_called_function(call);
  if (!callee || LLVMIsDeclaration(callee))
    return false;
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n && i < LLVMCountParams(callee); i++) {
    if (LLVMGetOperand(call, i) != slot)
      continue;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(callee); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
        if (fills_slot_with_fresh_memory(inst, LLVMGetParam(callee, i), depth + 1))
          return true;
  }
  return false;
}

/* Whether `v` is memory just allocated: an allocation call, a call of a
 * function returning such memory, a phi of such pointers, or a load of a
 * local slot every store to which is such memory, or which an allocator
 * fills. A null
 * pointer counts too (its shadow is null): allocators return one for a
 * size of zero. `depth` bounds the search. */
static bool is_fresh(LLVMValueRef v, int depth) {
  if (depth > 6)
    return false;
  LLVMValueRef object = kn_underlying_object(v);
  if (LLVMIsNull(object))
    return true;
  if (LLVMIsAPHINode(object)) {
    for (unsigned i = 0, n = LLVMCountIncoming(object); i < n; i++)
      if (!is_fresh(LLVMGetIncomingValue(object, i), depth + 1))
        return false;
    return true;
  }
  if (LLVMIsAExtractValueInst(object))
    return fresh_aggregate(LLVMGetOperand(object, 0), depth + 1);
  if (kn_is_call_site(object)) {
    const Rule *rule = rule_for_call(object);
    if (rule)
      return rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC || rule->kind == RULE_REALLOC;
    if (kn_called_function(object))
      return returns_fresh_memory(kn_called_function(object), depth + 1);
    return indirect_returns_fresh(object, depth + 1);
  }
  if (!LLVMIsALoadInst(object) || !LLVMIsAAllocaInst(LLVMGetOperand(object, 0)))
    return false;
  bool any = false;
  LLVMValueRef slot = LLVMGetOperand(object, 0);
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot) {
      if (!is_fresh(LLVMGetOperand(user, 0), depth + 1))
        return false;
      any = true;
    } else if (fills_slot_with_fresh_memory(user, slot, 0)) {
      any = true;
    } else if (!LLVMIsALoadInst(user) && !kn_is_call_site(user)) {
      return false; /* the slot's address escapes */
    }
  }
  return any;
}

/* A function that returns memory it allocated, itself or in a struct
 * returned by value: what it returns has a shadow even when its arguments
 * are inactive. */
static bool returns_fresh_memory(LLVMValueRef fn, int depth) {
  LLVMTypeRef type = fn ? LLVMGetReturnType(LLVMGlobalGetValueType(fn)) : NULL;
  if (!fn || LLVMIsDeclaration(fn) || !kn_type_has_pointers(type))
    return false;
  bool pointer = LLVMGetTypeKind(type) == LLVMPointerTypeKind, any = false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef ret = LLVMGetBasicBlockTerminator(bb);
    if (!ret || LLVMGetInstructionOpcode(ret) != LLVMRet)
      continue;
    LLVMValueRef value = LLVMGetOperand(ret, 0);
    if (pointer ? !is_fresh(value, depth) : !fresh_aggregate(value, depth))
      return false;
    any |= !LLVMIsNull(value) && !LLVMIsUndef(value);
  }
  return any;
}

/* A function given no pointers that allocates and returns pointers (in a
 * struct it fills through a constructor: std::get_temporary_buffer(n),
 * which std::stable_sort calls, returns {operator new(n, nothrow), n} as a
 * std::pair built by pair's constructor, where returns_fresh_memory cannot
 * follow). What it returns can only be memory it allocated, a global or
 * null: differentiated, its call hands back the shadow of each. */
static bool allocates_and_returns_pointers(LLVMValueRef fn) {
  if (!fn || LLVMIsDeclaration(fn) || !kn_type_has_pointers(LLVMGetReturnType(LLVMGlobalGetValueType(fn))))
    return false;
  for (LLVMValueRef param = LLVMGetFirstParam(fn); param; param = LLVMGetNextParam(param))
    if (kn_type_has_pointers(LLVMTypeOf(param)))
      return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      const Rule *rule = kn_is_call_site(inst) ? rule_for_call(inst) : NULL;
      if (rule && (rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC))
        return true;
    }
  return false;
}

/* The function pointer `call` was made through: its callee, or for a
 * direct call that analysis/devirt.c made, the pointer it compared with the
 * call's function; NULL for a call written direct. */
static LLVMValueRef called_through(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee))
    return callee;
  LLVMUseRef use = LLVMGetFirstUse(LLVMBasicBlockAsValue(LLVMGetInstructionParent(call)));
  LLVMValueRef branch = use && !LLVMGetNextUse(use) ? LLVMGetUser(use) : NULL;
  LLVMValueRef test = branch && LLVMIsABranchInst(branch) && LLVMIsConditional(branch)
                          ? LLVMGetCondition(branch) : NULL;
  return test && LLVMIsAICmpInst(test) && LLVMGetOperand(test, 1) == callee ? LLVMGetOperand(test, 0) : NULL;
}

/* Whether `fp` is a virtual function of the object at `p`: loaded from the
 * vtable whose address is loaded from p. */
static bool from_vtable_of(LLVMValueRef fp, LLVMValueRef p) {
  if (!fp || !LLVMIsALoadInst(fp))
    return false;
  LLVMValueRef vtable = kn_strip_casts(LLVMGetOperand(fp, 0));
  while (LLVMIsAGetElementPtrInst(vtable))
    vtable = LLVMGetOperand(vtable, 0);
  return LLVMIsALoadInst(vtable) && kn_underlying_object(LLVMGetOperand(vtable, 0)) == kn_underlying_object(p);
}

/* Whether the memory at `p` is used only by code no derivative flows
 * through: calls of inactive functions (a library class's members, as
 * `new std::filebuf` gets), its free, its virtual functions (which only
 * such members can have set: the library's), loads and comparisons. Such
 * memory never holds a derivative or a pointer with a shadow, so it needs
 * no shadow, and a call of its virtual destructor carries none (the
 * library's destructor is no function Kinase could differentiate). `depth`
 * bounds the search. */
static bool only_inactive_uses(LLVMValueRef p, int depth) {
  if (depth > 8)
    return false;
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user) || LLVMIsAICmpInst(user))
      continue;
    if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user)) {
      if (!only_inactive_uses(user, depth + 1))
        return false;
      continue;
    }
    if (!kn_is_call_site(user) || LLVMGetCalledValue(user) == p)
      return false;
    if (from_vtable_of(called_through(user), p))
      continue;
    LLVMValueRef callee = kn_called_function(user);
    const Rule *rule = callee ? rule_for_function(callee) : NULL;
    if (!rule || (rule->kind != RULE_INACTIVE && rule->kind != RULE_FREE))
      return false;
  }
  return true;
}

static bool call_is_varied(ValueSet *varied, LLVMValueRef call) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  const Rule *rule = rule_for_call(call);
  if (rule) {
    switch (rule->kind) {
    case RULE_MATH:
      return activity_any_operand(varied, call, 0, rule->arg);
    case RULE_MODEL:
      return activity_any_operand(varied, call, 0, nargs);
    case RULE_SHUFFLE:
      return activity_any_operand(varied, call, rule->arg, 1);
    case RULE_ALLOC:
    case RULE_CALLOC:
      return !only_inactive_uses(call, 0);
    case RULE_REALLOC:
      return true;
    default:
      return false;
    }
  }
  LLVMValueRef callee = kn_called_function(call);
  const Registration *custom = registry_of(callee);
  bool differentiable = callee && (!LLVMIsDeclaration(callee) ||
                                   (custom && (custom->forward || custom->augmented)));
  return differentiable && activity_differentiable_type(LLVMTypeOf(call)) &&
         (activity_any_operand(varied, call, 0, nargs) || returns_fresh_memory(callee, 0) ||
          allocates_and_returns_pointers(callee) || globals_reached_by(callee));
}

void activity_structural_operands(LLVMOpcode op, unsigned *first, unsigned *count) {
  *first = 0;
  switch (op) {
  case LLVMFNeg:
  case LLVMFPExt:
  case LLVMFPTrunc:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMFreeze:
  case LLVMExtractValue:
  case LLVMExtractElement:
  case LLVMGetElementPtr:
  case LLVMLoad:
    *count = 1;
    return;
  case LLVMInsertValue:
  case LLVMInsertElement:
  case LLVMShuffleVector:
    *count = 2;
    return;
  case LLVMSelect:
    *first = 1;
    *count = 2;
    return;
  default:
    *count = 0;
  }
}

static bool is_address(ValueSet *varied, LLVMValueRef v, int depth);

/* Whether the slot memory at `p` (a local slot, or a GEP into one: an
 * element of CUdeviceptr bufs[3]) is given an address with a shadow: one is
 * stored there, or a CUDA allocation (cuMemAlloc) returns one there. */
static bool given_address(ValueSet *varied, LLVMValueRef p, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(p); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    const Rule *rule = LLVMIsACallInst(user) ? rule_for_call(user) : NULL;
    if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == p &&
        given_address(varied, user, depth))
      return true;
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p &&
        is_address(varied, LLVMGetOperand(user, 0), depth + 1))
      return true;
    if (rule && rule->cuda && rule->kind == RULE_POSIX_MEMALIGN && LLVMGetOperand(user, 0) == p)
      return true;
  }
  return false;
}

/* Whether the local slot behind `p` holds an address with a shadow. Its
 * loads are addresses too: a CUdeviceptr whose address is taken
 * (cuMemAlloc(&d, ...), args[] = {&d}) lives in such a slot, and so do the
 * elements of a local array or structure of them. */
static bool holds_address(ValueSet *varied, LLVMValueRef p, int depth) {
  LLVMValueRef slot = kn_underlying_object(p);
  return LLVMIsAAllocaInst(slot) && depth <= 4 && given_address(varied, slot, depth);
}

static bool used_as_address(LLVMValueRef v, int depth);

/* Whether some load of local slot `slot`, into which an integer is stored
 * (unoptimised code keeps a parameter there), is used as a device address. */
static bool reloaded_as_address(LLVMValueRef slot, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use))
    if (LLVMIsALoadInst(LLVMGetUser(use)) && used_as_address(LLVMGetUser(use), depth + 1))
      return true;
  return false;
}

/* Whether operand i of `call`, a call of a function the module defines, is
 * used there as a device address: the helper that launches or copies
 * (launch_scale(buf->out, buf->in, ...)) takes it as a CUdeviceptr with a
 * shadow, as it would a pointer. */
static bool passed_as_address(LLVMValueRef call, unsigned i, int depth) {
  LLVMValueRef callee = kn_called_function(call);
  return callee && !LLVMIsDeclaration(callee) && !rule_for_call(call) &&
         i < LLVMCountParams(callee) && used_as_address(LLVMGetParam(callee, i), depth + 1);
}

/* Whether the integer v, read from memory other than a local slot (a field
 * of a structure, an element of an array, passed enzyme_dup), is used as a
 * device address: stored into a launch's argument slot, given to a CUDA
 * copy, set or free as its memory, made a pointer, passed to a function of
 * the module that so uses it, kept in a local slot whose loads are so used,
 * or offset and then so used. Such a CUdeviceptr has its shadow at the same
 * place in the shadow memory, as a pointer there would; any other integer
 * there stays a number (a count, a size). */
static bool used_as_address(LLVMValueRef v, int depth) {
  if (depth > 4)
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    bool call = kn_is_call_site(user);
    const Rule *rule = call ? rule_for_call(user) : NULL;
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == v) {
      LLVMValueRef slot = LLVMGetOperand(user, 1);
      if (cuda_is_argument_slot(slot) ||
          (LLVMIsAAllocaInst(slot) && reloaded_as_address(slot, depth)))
        return true;
    }
    for (unsigned i = 0; call && i < LLVMGetNumArgOperands(user); i++)
      if (LLVMGetOperand(user, i) == v &&
          (rule ? rule->cuda && cuda_address_operand(rule, i) : passed_as_address(user, i, depth)))
        return true;
    if (LLVMIsAIntToPtrInst(user))
      return true;
    LLVMOpcode op = LLVMIsAInstruction(user) ? LLVMGetInstructionOpcode(user) : LLVMRet;
    bool offset = op == LLVMAdd || op == LLVMSub || op == LLVMAnd || op == LLVMOr || op == LLVMXor;
    if (offset && used_as_address(user, depth + 1))
      return true;
  }
  return false;
}

static bool is_address(ValueSet *varied, LLVMValueRef v, int depth) {
  if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind)
    return false;
  if (LLVMIsALoadInst(v)) {
    LLVMValueRef p = LLVMGetOperand(v, 0);
    if (!kn_is_address_integer(LLVMTypeOf(v)) || !vset_has(varied, p))
      return false;
    return LLVMIsAAllocaInst(kn_underlying_object(p)) ? holds_address(varied, p, depth)
                                                      : used_as_address(v, 0);
  }
  /* Only a CUdeviceptr marked enzyme_dup makes an integer parameter varied. */
  return vset_has(varied, v) &&
         (LLVMIsAArgument(v) || (LLVMIsAInstruction(v) && activity_address_operand(varied, v) >= 0));
}

bool activity_is_address(ValueSet *varied, LLVMValueRef v) {
  return vset_has(varied, v) && is_address(varied, v, 0);
}

/* An address computed as an integer (uintptr_t arithmetic): a ptrtoint, a
 * load from a slot that holds an address, or add, sub, and, or, xor of one
 * such address with an inactive integer. Its shadow is the same computation
 * on the shadow's address. Returns the index of the address operand, or -1. */
int activity_address_operand(ValueSet *varied, LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMPtrToInt:
    return vset_has(varied, LLVMGetOperand(inst, 0)) ? 0 : -1;
  case LLVMLoad:
    return is_address(varied, inst, 0) ? 0 : -1;
  case LLVMAdd:
  case LLVMSub:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
    for (unsigned i = 0; i < 2; i++) {
      LLVMValueRef address = LLVMGetOperand(inst, i), other = LLVMGetOperand(inst, 1 - i);
      bool subtrahend = LLVMGetInstructionOpcode(inst) == LLVMSub && i == 1;
      if (activity_is_address(varied, address) && !subtrahend && !vset_has(varied, other))
        return (int)i;
    }
    return -1;
  default:
    return -1;
  }
}

/* Whether calling `fn` may store memory it allocates through a pointer it
 * was given (a C++ constructor of a local std::vector): unknown external
 * functions may. A function that never returns hands nothing back: the
 * throwing helpers (std::__throw_out_of_range) and clang's
 * __clang_call_terminate, which std::map::at reaches with the key its caller
 * made (a local std::string, which would otherwise get a shadow). Each
 * function is looked into once (`seen`): the containers' calls nest deeper
 * than a fixed bound would follow. */
static bool allocates_within(LLVMValueRef fn, ValueSet *seen) {
  const Rule *rule = rule_for_function(fn);
  if (rule)
    return rule->kind == RULE_ALLOC || rule->kind == RULE_CALLOC || rule->kind == RULE_REALLOC ||
           rule->kind == RULE_POSIX_MEMALIGN;
  unsigned noreturn = LLVMGetEnumAttributeKindForName("noreturn", 8);
  if (LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, noreturn))
    return false;
  if (LLVMIsDeclaration(fn))
    return !LLVMGetIntrinsicID(fn);
  if (!vset_add(seen, fn))
    return false; /* looked into already, or on the way there */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (kn_is_call_site(inst)) {
        LLVMValueRef callee = kn_called_function(inst);
        if (!callee || allocates_within(callee, seen))
          return true;
      }
  return false;
}

static bool may_allocate(LLVMValueRef fn) {
  ValueSet seen = {0};
  bool allocates = allocates_within(fn, &seen);
  vset_free(&seen);
  return allocates;
}

/* A call of a function in the module with a null pointer argument, which
 * has a shadow (null) when the call is differentiated: the function may
 * store it into the local memory it also gets (a C++ iterator's constructor
 * called with nullptr by end()). */
static bool passes_null_pointer(LLVMValueRef call, LLVMValueRef callee) {
  if (LLVMIsDeclaration(callee))
    return false;
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++)
    if (activity_null_pointer_argument(LLVMGetOperand(call, i)))
      return true;
  return false;
}

/* Whether the local memory at `address` may come to hold a derivative or a
 * pointer with a shadow: a varied value is stored there, or the address
 * escapes, or goes to a call that also gets a varied argument or may store
 * fresh memory there. Loads do not count, nor do calls through which no
 * derivative flows (cudaCreateTextureObject given a resource description
 * beside a texture description that holds floats). */
static bool local_memory_reached(ValueSet *varied, LLVMValueRef address, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(address); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user) || LLVMIsAICmpInst(user))
      continue;
    if (LLVMIsAStoreInst(user)) {
      if (LLVMGetOperand(user, 0) == address || vset_has(varied, LLVMGetOperand(user, 0)))
        return true;
      continue;
    }
    if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user)) {
      if (depth > 8 || local_memory_reached(varied, user, depth + 1))
        return true;
      continue;
    }
    if (!kn_is_call_site(user))
      return true;
    LLVMValueRef callee = kn_called_function(user);
    const Rule *rule = callee ? rule_for_function(callee) : NULL;
    if (rule && rule->kind == RULE_INACTIVE)
      continue;
    if (!callee || activity_any_operand(varied, user, 0, LLVMGetNumArgOperands(user)) ||
        passes_null_pointer(user, callee) || may_allocate(callee))
      return true;
  }
  return false;
}

/* An object of one byte (an empty class: std::ranges::less, std::identity)
 * holds neither a derivative nor a pointer, but a call given its address may
 * hand the address back in a result that holds pointers (std::ranges::sort
 * wraps its comparator and projection, taken by reference, in a closure),
 * and from there the address may be stored into memory with a shadow (the
 * comparator the sort passes beside differentiated iterators). Such an
 * object gets a shadow, one byte never read, so that its address has one. */
static bool byte_object_handed_back(LLVMValueRef slot) {
  if (LLVMStoreSizeOfType(kn_module.layout, LLVMGetAllocatedType(slot)) > 1)
    return false;
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (kn_is_call_site(user) && kn_type_has_pointers(LLVMTypeOf(user)))
      return true;
  }
  return false;
}

/* Local memory has a shadow when a derivative can reach it. One that never
 * holds anything varied has none, so what is loaded from it is not varied
 * either: a C++ iterator over a Const container, whose operator++ and
 * operator* are calls at the start of the pipeline, holds pointers into
 * that container as a C pointer variable would. */
static bool alloca_is_varied(ValueSet *varied, LLVMValueRef slot) {
  return kn_type_has_floats(LLVMGetAllocatedType(slot)) || local_memory_reached(varied, slot, 0) ||
         byte_object_handed_back(slot);
}

static bool inst_is_varied(ValueSet *varied, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned first, count;
  activity_structural_operands(op, &first, &count);
  if (count)
    return activity_any_operand(varied, inst, first, count);
  if (rule_for_opcode(op))
    return activity_any_operand(varied, inst, 0, 2);
  switch (op) {
  case LLVMPHI:
    for (unsigned i = 0, n = LLVMCountIncoming(inst); i < n; i++)
      if (vset_has(varied, LLVMGetIncomingValue(inst, i)))
        return true;
    return false;
  case LLVMAlloca:
    return alloca_is_varied(varied, inst);
  case LLVMAtomicRMW: /* the old value comes from the memory */
    return kn_is_atomic_accumulation(inst) && activity_any_operand(varied, inst, 0, 2);
  case LLVMCall:
    return call_is_varied(varied, inst);
  default:
    return false;
  }
}

void activity_find_varied(ValueSet *varied, LLVMBasicBlockRef *blocks, bool int_bits) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (ptrdiff_t k = 0; k < arrlen(blocks); k++)
      for (LLVMValueRef inst = LLVMGetFirstInstruction(blocks[k]); inst;
           inst = LLVMGetNextInstruction(inst))
        if (!vset_has(varied, inst) &&
            ((inst_is_varied(varied, inst) &&
              (int_bits || activity_differentiable_type(LLVMTypeOf(inst)))) ||
             activity_address_operand(varied, inst) >= 0))
          changed |= vset_add(varied, inst);
  }
}

bool activity_can_carry_derivative(ValueSet *varied, LLVMValueRef call) {
  if (activity_differentiable_type(LLVMTypeOf(call)))
    return true;
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i);
    if (kn_is_pointer_type(LLVMTypeOf(arg)) || activity_is_address(varied, arg))
      return true;
  }
  return false;
}

bool activity_call_carries(ValueSet *varied, LLVMValueRef call) {
  if (activity_any_operand(varied, call, 0, LLVMGetNumArgOperands(call)) &&
      activity_can_carry_derivative(varied, call))
    return true;
  LLVMValueRef callee = kn_called_function(call);
  return callee && !LLVMIsDeclaration(callee) && globals_reached_by(callee);
}

bool activity_null_pointer_argument(LLVMValueRef arg) {
  return kn_is_pointer_type(LLVMTypeOf(arg)) && (LLVMIsNull(arg) || LLVMIsUndef(arg) || LLVMIsPoison(arg));
}

bool activity_own_shadow_argument(LLVMValueRef arg) {
  return activity_null_pointer_argument(arg) || LLVMIsAFunction(kn_strip_casts(arg));
}
