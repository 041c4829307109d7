/* Requests whose function is a parameter of the function holding them: the
 * always_inline templates of <enzyme/enzyme> (enzyme::autodiff(f, args...)
 * passes f down to the call of __enzyme_autodiff), or a user's own wrapper
 * (`template <class F> double grad(F f, double x)` calling
 * __enzyme_autodiff((void *)f, ...), or a static function taking a function
 * pointer), which Enzyme, running after the optimiser's inlining at -O2,
 * resolves. Kinase runs at the start of the pipeline, before anything is
 * inlined, so such a request does not know its function. Inlining the
 * wrapper into its callers, as the pipeline would do later anyway, makes the
 * function a constant there: one stored into the alloca clang made for the
 * parameter and loaded back. A wrapper other translation units may call
 * keeps its body, and the request there stays an error. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

/* How many allocas a value may pass through on its way down the inlined
 * templates (two or three a level, a few levels). */
#define MAX_FORWARDS 32

static bool operand_is(LLVMValueRef user, unsigned operand, LLVMValueRef value) {
  return LLVMGetNumOperands(user) > (int)operand && LLVMGetOperand(user, operand) == value;
}

static bool is_lifetime_marker(LLVMValueRef user) {
  LLVMValueRef callee = LLVMIsACallInst(user) ? kn_called_function(user) : NULL;
  return callee && !strncmp(kn_function_name(callee), "llvm.lifetime.", 14);
}

/* `alias`, an alloca, holds `slot`'s address (a reference parameter's
 * alloca, at -O0) and is only read, and what is read is only read through
 * or handed on to another such alias (the next template's parameter): no
 * write to `slot` goes through it. */
static bool read_only_alias(LLVMValueRef alias, LLVMValueRef slot, int depth) {
  if (!LLVMIsAAllocaInst(alias) || depth > MAX_FORWARDS)
    return false;
  for (LLVMUseRef u = LLVMGetFirstUse(alias); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAStoreInst(user) && operand_is(user, 1, alias) && operand_is(user, 0, slot))
      continue;
    if (is_lifetime_marker(user))
      continue;
    if (!LLVMIsALoadInst(user))
      return false;
    for (LLVMUseRef v = LLVMGetFirstUse(user); v; v = LLVMGetNextUse(v)) {
      LLVMValueRef reader = LLVMGetUser(v);
      bool handed_on = LLVMIsAStoreInst(reader) && operand_is(reader, 0, user) &&
                       read_only_alias(LLVMGetOperand(reader, 1), user, depth + 1);
      if (!LLVMIsALoadInst(reader) && !handed_on)
        return false;
    }
  }
  return true;
}

/* The one value stored into `slot`, an alloca nothing else writes (its
 * other uses read it, or hold its address only to read it), or NULL. */
static LLVMValueRef only_store(LLVMValueRef slot) {
  LLVMValueRef stored = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    bool into = LLVMIsAStoreInst(user) && operand_is(user, 1, slot) && !operand_is(user, 0, slot);
    if (into && stored)
      return NULL;
    if (into)
      stored = LLVMGetOperand(user, 0);
    else if (LLVMIsAStoreInst(user) && !read_only_alias(LLVMGetOperand(user, 1), slot, 0))
      return NULL;
    else if (!LLVMIsALoadInst(user) && !LLVMIsAStoreInst(user) && !is_lifetime_marker(user))
      return NULL;
  }
  return stored;
}

/* The constant every return of a function of the module returns, or NULL:
 * a lambda's conversion to a function pointer (`+[](double x) {...}`)
 * returns its static invoker so, whatever the closure holds. */
static LLVMValueRef only_returned_constant(LLVMValueRef callee) {
  if (!callee || LLVMIsDeclaration(callee))
    return NULL;
  LLVMValueRef returned = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(callee); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term || LLVMGetInstructionOpcode(term) != LLVMRet)
      continue;
    LLVMValueRef v = LLVMGetNumOperands(term) ? kn_strip_casts(LLVMGetOperand(term, 0)) : NULL;
    if (!v || !LLVMIsAConstant(v) || (returned && returned != v))
      return NULL;
    returned = v;
  }
  return returned;
}

/* What `v` holds, through loads of allocas stored once. Any such load
 * reads the one value stored or nothing stored yet (undefined), so that
 * value may stand for it. */
static LLVMValueRef forwarded(LLVMValueRef v, int depth) {
  v = kn_strip_casts(v);
  LLVMValueRef constant = kn_is_call_site(v) ? only_returned_constant(kn_called_function(v)) : NULL;
  if (constant)
    return constant;
  if (depth > MAX_FORWARDS || !LLVMIsALoadInst(v))
    return v;
  LLVMValueRef slot = forwarded(LLVMGetOperand(v, 0), depth + 1);
  LLVMValueRef stored = LLVMIsAAllocaInst(slot) ? only_store(slot) : NULL;
  return stored ? forwarded(stored, depth + 1) : v;
}

LLVMValueRef inline_known_constant(LLVMValueRef value) {
  LLVMValueRef v = forwarded(value, 0);
  return LLVMIsAConstant(v) ? v : value;
}

static bool has_fn_attribute(LLVMValueRef fn, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* Marks the calls of `fn` to be inlined; false if it has none. */
static bool mark_callers(LLVMValueRef fn) {
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  bool any = false;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (kn_is_call_site(user) && kn_called_function(user) == fn) {
      LLVMAddCallSiteAttribute(user, LLVMAttributeFunctionIndex,
                               LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
      any = true;
    }
  }
  return any;
}

/* A template instance inlined everywhere is no longer used: it goes, with
 * the request in it that could never know its function. */
static bool discardable(LLVMValueRef fn) {
  LLVMLinkage l = LLVMGetLinkage(fn);
  return l == LLVMLinkOnceODRLinkage || l == LLVMLinkOnceAnyLinkage ||
         l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* The function to differentiate: the first argument, after the pointer to
 * a large result (sret). */
static LLVMValueRef function_operand(LLVMValueRef call) {
  unsigned sret = LLVMGetEnumAttributeKindForName("sret", 4);
  unsigned first = LLVMGetNumArgOperands(call) && LLVMGetCallSiteEnumAttribute(call, 1, sret);
  return LLVMGetNumArgOperands(call) > first ? LLVMGetOperand(call, first) : NULL;
}

/* Whether some call of `param`'s function passes a function for it. */
static bool passed_a_function(LLVMValueRef param) {
  LLVMValueRef fn = LLVMGetParamParent(param);
  unsigned index = 0;
  while (LLVMGetParam(fn, index) != param)
    index++;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (kn_is_call_site(user) && kn_called_function(user) == fn &&
        LLVMIsAFunction(inline_known_constant(LLVMGetOperand(user, index))))
      return true;
  }
  return false;
}

/* Whether `target` is a parameter of the function holding it, through the
 * allocas clang stores parameters in, for which some call passes a function. */
static bool from_parameter(LLVMValueRef target) {
  LLVMValueRef v = forwarded(target, 0);
  return LLVMIsAArgument(v) && passed_a_function(v);
}

bool inline_request_holders(LLVMValueRef *calls, size_t n) {
  LLVMValueRef *holders = NULL;
  for (size_t i = 0; i < n; i++) {
    LLVMValueRef holder = LLVMGetBasicBlockParent(LLVMGetInstructionParent(calls[i]));
    LLVMValueRef target = function_operand(calls[i]);
    if (target && !LLVMIsAFunction(inline_known_constant(target)) &&
        (has_fn_attribute(holder, "alwaysinline") || from_parameter(target)) &&
        mark_callers(holder))
      arrput(holders, holder);
  }
  bool inlined = arrlen(holders) > 0;
  if (inlined)
    simplify_inline_marked_calls();
  for (ptrdiff_t i = 0; i < arrlen(holders); i++) {
    bool seen = false;
    for (ptrdiff_t j = 0; j < i; j++)
      seen |= holders[j] == holders[i];
    if (!seen && !LLVMGetFirstUse(holders[i]) && discardable(holders[i]))
      LLVMDeleteFunction(holders[i]);
  }
  arrfree(holders);
  return inlined;
}

void inline_locate_in_caller(LLVMValueRef call) {
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(call), outer;
  if (!loc)
    return;
  while ((outer = LLVMDILocationGetInlinedAt(loc)))
    loc = outer;
  LLVMInstructionSetDebugLoc(call, loc);
}
