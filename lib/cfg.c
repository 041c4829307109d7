/* Control-flow graph orders. */
#include "kinase.h"

#include <stb/stb_ds.h>

static void visit(LLVMBasicBlockRef bb, ValueSet *seen, LLVMBasicBlockRef **post) {
  if (!vset_add(seen, LLVMBasicBlockAsValue(bb)))
    return;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  unsigned n = term ? LLVMGetNumSuccessors(term) : 0;
  for (unsigned i = 0; i < n; i++)
    visit(LLVMGetSuccessor(term, i), seen, post);
  arrput(*post, bb);
}

LLVMBasicBlockRef *cfg_reverse_post_order(LLVMValueRef fn) {
  ValueSet seen = {0};
  LLVMBasicBlockRef *post = NULL;
  visit(LLVMGetEntryBasicBlock(fn), &seen, &post);
  vset_free(&seen);
  LLVMBasicBlockRef *rpo = NULL;
  for (ptrdiff_t i = arrlen(post) - 1; i >= 0; i--)
    arrput(rpo, post[i]);
  arrfree(post);
  return rpo;
}
