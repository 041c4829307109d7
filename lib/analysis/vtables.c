/* Virtual calls: which functions a call through a vtable slot may reach.
 *
 * devirt.c compares an indirect call with every address-taken function of
 * its type. In C++ the functions of a common type are many: every class
 * with a virtual destructor adds two `void (ptr)` ones to its vtable, and
 * so do std::shared_ptr's control blocks, the streams and the destructors
 * handed to __cxa_throw, so a `delete p` through a base pointer soon had
 * more candidates than devirt.c compares with and stayed indirect (an
 * error). A virtual call loads its callee from a constant offset into the
 * vtable its object points to: a function whose address only vtables take
 * is reached there only if some vtable holds it at that offset from an
 * address point (Itanium ABI: the entry after the offset-to-top and the
 * typeinfo). Functions whose address is taken elsewhere stay candidates. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

static bool is_vtable(LLVMValueRef v) {
  return LLVMIsAGlobalVariable(v) && !strncmp(kn_value_name(v), "_ZTV", 4) && LLVMGetInitializer(v);
}

/* Whether every use of the constant `c` ends in a vtable's initializer. */
static bool constant_in_vtables_only(LLVMValueRef c, int depth) {
  if (is_vtable(c))
    return true;
  if (depth > 4 || !LLVMIsAConstant(c) || LLVMIsAGlobalValue(c) || !LLVMGetFirstUse(c))
    return false;
  for (LLVMUseRef use = LLVMGetFirstUse(c); use; use = LLVMGetNextUse(use))
    if (!constant_in_vtables_only(LLVMGetUser(use), depth + 1))
      return false;
  return true;
}

/* Whether `fn` is called directly or held by vtables, and nothing else.
 * A comparison with its address (devirt.c's, in the derivatives of other
 * requests) hands the address nowhere. */
static bool only_in_vtables(LLVMValueRef fn) {
  bool held = false;
  for (LLVMUseRef use = LLVMGetFirstUse(fn); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if ((kn_is_call_site(user) && LLVMGetCalledValue(user) == fn) || LLVMIsAICmpInst(user))
      continue;
    if (!constant_in_vtables_only(user, 0))
      return false;
    held = true;
  }
  return held;
}

/* The slot a virtual call reads its callee from: the entries past the
 * address point, from a pointer loaded out of the object; -1 otherwise. */
static long long slot_of(LLVMValueRef call) {
  LLVMValueRef callee = kn_strip_casts(LLVMGetCalledValue(call)), vtable;
  int64_t offset;
  if (!LLVMIsALoadInst(callee) || !kn_constant_offset(LLVMGetOperand(callee, 0), &vtable, &offset) ||
      !LLVMIsALoadInst(vtable))
    return -1;
  int64_t size = (int64_t)LLVMPointerSize(kn_module.layout);
  return offset >= 0 && offset % size == 0 ? offset / size : -1;
}

/* Whether entry `j` of a vtable's array is an address point: after the
 * typeinfo (or null, without RTTI) and the offset-to-top. Counting some
 * other entries as address points only keeps more candidates. */
static bool address_point(LLVMValueRef array, unsigned j) {
  if (j < 2)
    return false;
  LLVMValueRef before = kn_strip_casts(LLVMGetOperand(array, j - 1));
  return LLVMIsNull(before) || (LLVMIsAGlobalVariable(before) && !strncmp(kn_value_name(before), "_ZTI", 4));
}

/* Whether some vtable holds `fn` `slot` entries past an address point. */
static bool in_slot(LLVMValueRef fn, long long slot) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(kn_module.mod); g; g = LLVMGetNextGlobal(g)) {
    LLVMValueRef init = is_vtable(g) ? LLVMGetInitializer(g) : NULL;
    if (!init || !LLVMIsAConstantStruct(init))
      continue;
    for (unsigned a = 0, n = (unsigned)LLVMGetNumOperands(init); a < n; a++) {
      LLVMValueRef array = LLVMGetOperand(init, a);
      if (!LLVMIsAConstantArray(array))
        continue;
      unsigned len = (unsigned)LLVMGetNumOperands(array);
      for (unsigned j = 2; j + slot < len; j++)
        if (address_point(array, j) && kn_strip_casts(LLVMGetOperand(array, j + (unsigned)slot)) == fn)
          return true;
    }
  }
  return false;
}

void vtable_narrow_candidates(LLVMValueRef call, LLVMValueRef **candidates) {
  long long slot = slot_of(call);
  if (slot < 0)
    return;
  LLVMValueRef *kept = NULL;
  for (ptrdiff_t i = 0; i < arrlen(*candidates); i++) {
    LLVMValueRef fn = (*candidates)[i];
    if (!only_in_vtables(fn) || in_slot(fn, slot))
      arrput(kept, fn);

  }
  arrfree(*candidates);
  *candidates = kept;
}
