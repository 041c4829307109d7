/* Writes to results nobody needs: the memory of an enzyme_dupnoneed
 * pointer parameter.
 *
 * A derivative need not store what such a pointer receives, and a reverse
 * kernel that re-runs its kernel's writes into an 'n' pointer (cuda/)
 * should not. The memory may be read as well, as an in-place update
 * `y[i] = alpha * x[i] + y[i]` reads it, so long as no read can see a
 * write: none can run after one in the same call (no path leads from a
 * write to a read; a loop around both, or a barrier between them, would
 * give one). Then every read sees the memory as it was, as it did in the
 * primal, and the writes go. */
#include "kinase.h"

#include <stb/stb_ds.h>

typedef struct {
  LLVMValueRef *writes, *reads;
} Accesses;

/* Collects the writes and reads through `ptr` (and pointers derived by
 * GEPs and casts); false when it escapes or is read and written at once.
 * An atomic add whose old value goes unused (atomicAdd(out, v)) only
 * writes: a reverse kernel running it again would add the sum twice. */
static bool collect(LLVMValueRef ptr, Accesses *a) {
  for (LLVMUseRef use = LLVMGetFirstUse(ptr); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    bool stores = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == ptr;
    bool accumulates = LLVMIsAAtomicRMWInst(user) && LLVMGetOperand(user, 0) == ptr &&
                       !LLVMGetFirstUse(user);
    if ((stores || accumulates) && LLVMGetOperand(user, stores ? 0 : 1) != ptr) {
      arrput(a->writes, user);
      continue;
    }
    if (LLVMIsALoadInst(user)) {
      arrput(a->reads, user);
      continue;
    }
    if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) || LLVMIsAAddrSpaceCastInst(user)) {
      if (LLVMGetOperand(user, 0) != ptr || !collect(user, a))
        return false;
      continue;
    }
    const Rule *rule = LLVMIsACallInst(user) ? rule_for_call(user) : NULL;
    bool fills = rule && (rule->kind == RULE_MEMSET || rule->kind == RULE_MEMCPY) &&
                 LLVMGetOperand(user, 0) == ptr &&
                 (rule->kind == RULE_MEMSET || LLVMGetOperand(user, 1) != ptr);
    bool copied_from = rule && rule->kind == RULE_MEMCPY && LLVMGetOperand(user, 1) == ptr &&
                       LLVMGetOperand(user, 0) != ptr;
    if (!fills && !copied_from)
      return false;
    if (fills)
      arrput(a->writes, user);
    else
      arrput(a->reads, user);
  }
  return true;
}

static void accesses_free(Accesses *a) {
  arrfree(a->writes);
  arrfree(a->reads);
}

/* Whether `read` may run after `write` in the same call: later in its
 * block, or in a block reached from the write's block's successors (the
 * write's own block too, around a loop). */
static bool may_see(LLVMValueRef write, LLVMValueRef read) {
  LLVMBasicBlockRef from = LLVMGetInstructionParent(write), at = LLVMGetInstructionParent(read);
  if (from == at)
    for (LLVMValueRef inst = LLVMGetNextInstruction(write); inst; inst = LLVMGetNextInstruction(inst))
      if (inst == read)
        return true;
  ValueSet reached = {0};
  LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
  for (unsigned s = 0, n = term ? LLVMGetNumSuccessors(term) : 0; s < n; s++) {
    LLVMBasicBlockRef *blocks = cfg_reverse_post_order_from(LLVMGetSuccessor(term, s), &reached);
    arrfree(blocks);
  }
  bool sees = vset_has(&reached, LLVMBasicBlockAsValue(at));
  vset_free(&reached);
  return sees;
}

static bool droppable(const Accesses *a) {
  for (ptrdiff_t w = 0; w < arrlen(a->writes); w++)
    for (ptrdiff_t r = 0; r < arrlen(a->reads); r++)
      if (may_see(a->writes[w], a->reads[r]))
        return false;
  return true;
}

bool unneeded_writes_drop(LLVMValueRef param) {
  Accesses a = {0};
  bool drop = collect(param, &a) && droppable(&a);
  accesses_free(&a);
  return drop;
}

void drop_writes(LLVMValueRef param) {
  Accesses a = {0};
  if (collect(param, &a))
    for (ptrdiff_t i = 0; i < arrlen(a.writes); i++)
      LLVMInstructionEraseFromParent(a.writes[i]);
  accesses_free(&a);
}

void drop_unneeded_writes(LLVMValueRef param) {
  if (unneeded_writes_drop(param))
    drop_writes(param);
}
