/* Constructs Kinase refuses, with the user's words for them. They are found
 * in the user's function, before it is copied: a copy would lose what makes
 * them work (block addresses, personality functions). */
#include "kinase.h"

#include <stdlib.h>
#include <string.h>

static bool is_nonlocal_jump(LLVMValueRef call) {
  static const char *const names[] = {"setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp",
                                      "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk"};
  LLVMValueRef callee = kn_called_function(call);
  for (size_t i = 0; callee && i < sizeof names / sizeof *names; i++)
    if (!strcmp(kn_function_name(callee), names[i]))
      return true;
  return false;
}

/* Enzyme's enzyme_sparse_accumulate marks the function that stores one
 * entry of a sparse derivative (__enzyme_todense), which Enzyme's sparse
 * Jacobians treat specially; Kinase has none, and would differentiate the
 * call as an ordinary one. */
#define NO_SPARSE "marked enzyme_sparse_accumulate: Kinase does not support sparse derivatives " \
                  "(__enzyme_todense) yet"

static bool is_sparse_accumulate(LLVMValueRef fn) {
  const Registration *marked = registry_of(fn);
  return marked && marked->sparse_accumulate;
}

static const char *refused(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  /* Invokes and landing pads are differentiated on the normal path
   * (core/unwind.c); funclets (Windows' exceptions) have no normal-path
   * form to take apart so. */
  case LLVMCleanupPad:
  case LLVMCatchPad:
  case LLVMCatchSwitch:
    return "it uses Windows-style exception funclets (catchswitch, catchpad or cleanuppad)";
  case LLVMIndirectBr:
    return "it uses a computed goto (an indirect branch)";
  case LLVMCallBr:
    return "it contains asm goto";
  case LLVMCall:
    if (LLVMIsAInlineAsm(LLVMGetCalledValue(inst)) && !asm_does_nothing(inst) && !asm_is_known(inst) &&
        !asm_carries_nothing(inst))
      return "it contains inline assembly";
    if (is_nonlocal_jump(inst))
      return "it uses setjmp or longjmp, which Kinase does not differentiate";
    if (is_sparse_accumulate(kn_called_function(inst)))
      return "it calls a function " NO_SPARSE;
    return NULL;
  default:
    return NULL;
  }
}

bool unsupported_construct(LLVMValueRef fn) {
  if (is_sparse_accumulate(fn)) {
    kn_error(NULL, fn, "it is " NO_SPARSE);
    return true;
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      const char *why = refused(inst);
      char *text = why ? asm_describe(inst) : NULL; /* say which (CUDA's half headers use many) */
      if (why) {
        kn_error(inst, fn, text ? "%s ('%s')" : "%s", why, text);
        free(text);
        return true;
      }
    }
  return false;
}

/* Other atomics on differentiated memory than atomicAdd (exchange,
 * compare-and-swap, min, max, integer operations on the bits of floats)
 * move values in an order no derivative can follow. */
/* A count kept with atomics (std::shared_ptr's reference counts, in the
 * block that also holds the object): an integer add, subtract or
 * compare-and-swap narrower than an address, whose values carry no
 * derivative. An exchange is not one: CUDA's atomicExch of a float swaps its
 * bits as an int. */
static bool atomic_count(ValueSet *varied, LLVMValueRef inst) {
  LLVMTypeRef type = LLVMTypeOf(LLVMGetOperand(inst, 1));
  bool counts = LLVMIsAAtomicCmpXchgInst(inst) || LLVMGetAtomicRMWBinOp(inst) == LLVMAtomicRMWBinOpAdd ||
                LLVMGetAtomicRMWBinOp(inst) == LLVMAtomicRMWBinOpSub;
  unsigned values = (unsigned)LLVMGetNumOperands(inst) - 1;
  return counts && LLVMGetTypeKind(type) == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(type) < 8 * LLVMPointerSize(kn_module.layout) &&
         !activity_any_operand(varied, inst, 1, values);
}

bool unsupported_atomic(ValueSet *varied, LLVMValueRef inst, LLVMValueRef subject) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if ((op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) && !kn_is_atomic_accumulation(inst) &&
      !atomic_count(varied, inst) && activity_any_operand(varied, inst, 0, 3)) {
    kn_error(inst, subject,
             "it uses an atomic operation other than atomicAdd on differentiated memory (exchange, "
             "compare-and-swap, min, max or integer atomics on floats have no derivative rule)");
    return true;
  }
  return false;
}

/* Memory a call returned that has no shadow: the call is neither an
 * allocation Kinase knows nor marked inactive by the user. */
static bool unshadowed_call_memory(LLVMValueRef base) {
  if (!LLVMIsACallInst(base) || rule_for_call(base))
    return false;
  const Registration *custom = registry_of(kn_called_function(base));
  return !custom || !custom->inactive;
}

/* Whether `v` points into the memory at `base`: derived from it, or loaded
 * from a local slot it was stored into (a callee not yet simplified keeps
 * its parameters in such slots), or, for a pointer loaded from a global,
 * loaded from it again. */
static bool points_into(LLVMValueRef v, LLVMValueRef base) {
  LLVMValueRef u = kn_underlying_object(v);
  if (u == base || (LLVMIsALoadInst(u) && LLVMIsALoadInst(base) &&
                    LLVMIsAGlobalVariable(LLVMGetOperand(base, 0)) &&
                    LLVMGetOperand(u, 0) == LLVMGetOperand(base, 0)))
    return true;
  LLVMValueRef slot = LLVMIsALoadInst(u) ? LLVMGetOperand(u, 0) : NULL;
  if (!slot || !LLVMIsAAllocaInst(slot))
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot && LLVMGetOperand(user, 0) == base)
      return true;
  }
  return false;
}

/* Whether fn reads floats from the memory at `base`: loads, copies out,
 * or a callee it hands the memory to that does (a few calls deep). */
static bool reads_floats_within(LLVMValueRef fn, LLVMValueRef base, int depth) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      if (LLVMIsALoadInst(inst) && kn_type_has_floats(LLVMTypeOf(inst)) &&
          points_into(LLVMGetOperand(inst, 0), base))
        return true;
      const Rule *rule = LLVMIsACallInst(inst) ? rule_for_call(inst) : NULL;
      if (rule && rule->kind == RULE_MEMCPY && points_into(LLVMGetOperand(inst, 1), base))
        return true;
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (!callee || LLVMIsDeclaration(callee) || depth >= 4)
        continue;
      for (unsigned i = 0, n = LLVMGetNumArgOperands(inst); i < n && i < LLVMCountParams(callee); i++)
        if (points_into(LLVMGetOperand(inst, i), base) &&
            reads_floats_within(callee, LLVMGetParam(callee, i), depth + 1))
          return true;
    }
  return false;
}

static bool reads_floats_from(LLVMValueRef fn, LLVMValueRef base) {
  return reads_floats_within(fn, base, 0);
}

bool unsupported_unshadowed_write(ValueSet *varied, LLVMValueRef inst, LLVMValueRef dst,
                                  LLVMValueRef data, LLVMValueRef subject) {
  LLVMValueRef base = kn_underlying_object(dst);
  if (vset_has(varied, dst) || !vset_has(varied, data))
    return false;
  if (kn_is_extern_shared(base)) {
    kn_error(inst, subject,
             "it stores a differentiated value into extern __shared__ array '%s' (dynamic shared "
             "memory), which has a shadow only in __enzyme_autodiff and __enzyme_fwddiff (split mode "
             "gives it none): declare it with a static size",
             kn_value_name(base));
    return true;
  }
  if (LLVMIsAGlobalVariable(base) && !registry_inactive_global(base)) {
    kn_error(inst, subject, "it stores a differentiated value into global variable '%s', which has no shadow",
             kn_value_name(base));
    return true;
  }
  /* Written and read back, the memory would carry the derivative from the
   * store to the load; without a shadow it is lost. Written only, it is an
   * output whose derivative nobody asked for. */
  if (LLVMIsAArgument(base) && reads_floats_from(LLVMGetParamParent(base), base)) {
    const char *name = kn_value_name(base);
    kn_error(inst, subject,
             "it stores a differentiated value into memory that an enzyme_const pointer parameter%s%s%s "
             "points to, and reads it back: that memory has no shadow to carry the derivative; pass "
             "the parameter as enzyme_dup with a shadow buffer",
             *name ? " ('" : "", name, *name ? "')" : "");
    return true;
  }
  LLVMValueRef callee = LLVMIsACallInst(base) ? kn_called_function(base) : NULL;
  if (callee && !strncmp(kn_function_name(callee), "llvm.threadlocal.address", 24)) {
    kn_error(inst, subject,
             "it stores a differentiated value into thread-local variable '%s', which has no shadow "
             "(Kinase gives _Thread_local globals none): make it an ordinary global or a local",
             kn_value_name(kn_strip_casts(LLVMGetOperand(base, 0))));
    return true;
  }
  if (unshadowed_call_memory(base)) {
    kn_error(inst, subject,
             "it stores a differentiated value into memory returned by %s%s%s, which has no shadow: "
             "Kinase sees no allocation there",
             callee ? "'" : "an indirect call", callee ? kn_function_name(callee) : "", callee ? "'" : "");
    return true;
  }
  return false;
}

/* A pointer loaded from a global that may change: a cached workspace. */
static bool loaded_from_global(LLVMValueRef base) {
  if (!LLVMIsALoadInst(base))
    return false;
  LLVMValueRef from = kn_underlying_object(LLVMGetOperand(base, 0));
  return LLVMIsAGlobalVariable(from) && !LLVMIsGlobalConstant(from) && !registry_inactive_global(from);
}

bool unsupported_unseen_launch_memory(ValueSet *varied, LLVMValueRef call, LLVMValueRef subject) {
  LLVMValueRef stub = kn_called_function(call);
  unsigned n = LLVMGetNumArgOperands(call);
  bool active = false;
  for (unsigned i = 0; i < n && !active; i++)
    active = vset_has(varied, LLVMGetOperand(call, i));
  if (!stub || !cuda_is_launch_stub(stub) || !active)
    return false;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i), base = kn_underlying_object(arg);
    if (!kn_is_pointer_type(LLVMTypeOf(arg)) || vset_has(varied, arg) ||
        !LLVMIsAInstruction(base) || !(unshadowed_call_memory(base) || loaded_from_global(base)) ||
        !reads_floats_from(LLVMGetBasicBlockParent(LLVMGetInstructionParent(base)), base))
      continue;
    char *kernel = cuda_launched_kernel_name(stub);
    LLVMValueRef global = LLVMIsALoadInst(base) ? kn_underlying_object(LLVMGetOperand(base, 0)) : NULL;
    LLVMValueRef callee = global ? NULL : kn_called_function(base);
    kn_error(call, subject,
             "it launches kernel '%s' with memory %s '%s' as argument %u, which has no shadow, and "
             "reads that memory back: what the kernel writes there from differentiated values "
             "would lose its derivative; allocate the memory in the differentiated function, or "
             "pass it in with enzyme_dup",
             kernel, global ? "held in global" : "returned by",
             global ? kn_value_name(global) : callee ? kn_function_name(callee) : "an indirect call", i + 1);
    free(kernel);
    return true;
  }
  return false;
}

/* Whether `v` is only called or compared (with the candidates an indirect
 * call is resolved to, analysis/devirt.c). */
static bool only_called(LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    bool call = kn_is_call_site(user) && LLVMGetCalledValue(user) == v;
    if (!call && !LLVMIsAICmpInst(user))
      return false;
  }
  return LLVMGetFirstUse(v) != NULL;
}

LLVMValueRef unsupported_missing_shadow(LLVMValueRef v, LLVMValueRef user, LLVMValueRef subject,
                                        bool *failed) {
  LLVMValueRef substitute = globals_constant_shadow(v);
  if (!substitute && devirt_is_fallback(v) && kn_is_pointer_type(LLVMTypeOf(v)))
    substitute = devirt_fallback_shadow(v, subject);
  if (substitute)
    return substitute;
  /* Kinase never reads through the shadow of a function pointer (calls
   * through one are compared with their candidates, analysis/devirt.c): a
   * function, or a pointer merged into one that is only ever called (a
   * member function pointer's call picks a vtable entry or a function), is
   * its own shadow. */
  if (LLVMIsAFunction(v) || only_called(user))
    return v;
  /* An integer made a pointer (the sentinels CU_LAUNCH_PARAM_BUFFER_POINTER
   * and _SIZE in a launch's `extra`) points to no memory: null is its
   * shadow, as it is null's. */
  bool sentinel = LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMIntToPtr &&
                  LLVMIsAConstantInt(LLVMGetOperand(v, 0));
  bool null_like = LLVMIsNull(v) || LLVMIsUndef(v) || LLVMIsPoison(v) || sentinel;
  if (kn_is_pointer_type(LLVMTypeOf(v)) && !null_like) {
    kn_error(user, subject,
             "a pointer here may point either to memory with a shadow (a dup argument or local "
             "memory) or to memory without one (%s); give both the same activity",
             LLVMIsAArgument(v) ? "an enzyme_const argument" : "a global or constant");
    *failed = true;
  }
  return LLVMConstNull(LLVMTypeOf(v));
}
