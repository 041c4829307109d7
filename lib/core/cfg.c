/* Control-flow graph: reverse post-order, predecessors, dominators (the
 * iterative algorithm of Cooper, Harvey and Kennedy) and natural loops. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

struct Cfg {
  LLVMBasicBlockRef *rpo;                                  /* reachable blocks */
  struct { LLVMBasicBlockRef key; int value; } *index;     /* block -> rpo index */
  int *idom;                                               /* rpo index -> rpo index */
  LLVMBasicBlockRef **preds;                               /* rpo index -> stb array */
  Loop *loops;
};

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
  LLVMBasicBlockRef *rpo = cfg_reverse_post_order_from(LLVMGetEntryBasicBlock(fn), &seen);
  vset_free(&seen);
  return rpo;
}

LLVMBasicBlockRef *cfg_reverse_post_order_from(LLVMBasicBlockRef start, ValueSet *seen) {
  LLVMBasicBlockRef *post = NULL;
  visit(start, seen, &post);
  LLVMBasicBlockRef *rpo = NULL;
  for (ptrdiff_t i = arrlen(post) - 1; i >= 0; i--)
    arrput(rpo, post[i]);
  arrfree(post);
  return rpo;
}

static int index_of(Cfg *cfg, LLVMBasicBlockRef bb) {
  ptrdiff_t i = hmgeti(cfg->index, bb);
  return i < 0 ? -1 : cfg->index[i].value;
}

static int intersect(Cfg *cfg, int a, int b) {
  while (a != b) {
    while (a > b)
      a = cfg->idom[a];
    while (b > a)
      b = cfg->idom[b];
  }
  return a;
}

static void find_dominators(Cfg *cfg) {
  int n = (int)arrlen(cfg->rpo);
  cfg->idom = malloc((size_t)(n ? n : 1) * sizeof *cfg->idom);
  for (int i = 0; i < n; i++)
    cfg->idom[i] = -1;
  cfg->idom[0] = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (int b = 1; b < n; b++) {
      int idom = -1;
      for (ptrdiff_t k = 0; k < arrlen(cfg->preds[b]); k++) {
        int p = index_of(cfg, cfg->preds[b][k]);
        if (p < 0 || cfg->idom[p] < 0)
          continue;
        idom = idom < 0 ? p : intersect(cfg, p, idom);
      }
      if (idom != cfg->idom[b]) {
        cfg->idom[b] = idom;
        changed = true;
      }
    }
  }
}

bool cfg_dominates(Cfg *cfg, LLVMBasicBlockRef a, LLVMBasicBlockRef b) {
  int ia = index_of(cfg, a), ib = index_of(cfg, b);
  if (ia < 0 || ib < 0)
    return false;
  while (ib != ia && ib != 0)
    ib = cfg->idom[ib];
  return ib == ia;
}

LLVMBasicBlockRef *cfg_predecessors(Cfg *cfg, LLVMBasicBlockRef bb) {
  int i = index_of(cfg, bb);
  return i < 0 ? NULL : cfg->preds[i];
}

/* The blocks that reach `latch` without passing `header`, and the header. */
static void collect_body(Cfg *cfg, Loop *loop, LLVMBasicBlockRef latch) {
  LLVMBasicBlockRef *work = NULL;
  vset_add(&loop->blocks, LLVMBasicBlockAsValue(loop->header));
  if (vset_add(&loop->blocks, LLVMBasicBlockAsValue(latch)))
    arrput(work, latch);
  while (arrlen(work)) {
    LLVMBasicBlockRef bb = arrpop(work);
    LLVMBasicBlockRef *preds = cfg_predecessors(cfg, bb);
    for (ptrdiff_t k = 0; k < arrlen(preds); k++)
      if (index_of(cfg, preds[k]) >= 0 && vset_add(&loop->blocks, LLVMBasicBlockAsValue(preds[k])))
        arrput(work, preds[k]);
  }
  arrfree(work);
}

static void find_loops(Cfg *cfg) {
  for (ptrdiff_t h = 0; h < arrlen(cfg->rpo); h++) {
    LLVMBasicBlockRef header = cfg->rpo[h];
    Loop loop = {.header = header};
    int latches = 0;
    LLVMBasicBlockRef *preds = cfg->preds[h];
    for (ptrdiff_t k = 0; k < arrlen(preds); k++)
      if (cfg_dominates(cfg, header, preds[k])) {
        collect_body(cfg, &loop, preds[k]);
        loop.latch = preds[k];
        latches++;
      }
    if (!latches)
      continue;
    if (latches > 1)
      loop.latch = NULL;
    int outside = 0;
    for (ptrdiff_t k = 0; k < arrlen(preds); k++)
      if (!loop_contains(&loop, preds[k])) {
        loop.preheader = preds[k];
        outside++;
      }
    if (outside != 1)
      loop.preheader = NULL;
    arrput(cfg->loops, loop);
  }
  /* The parent is the smallest other loop holding the header. */
  for (ptrdiff_t i = 0; i < arrlen(cfg->loops); i++)
    for (ptrdiff_t j = 0; j < arrlen(cfg->loops); j++) {
      Loop *inner = &cfg->loops[i], *outer = &cfg->loops[j];
      if (i == j || !loop_contains(outer, inner->header))
        continue;
      if (!inner->parent || vset_size(&outer->blocks) < vset_size(&inner->parent->blocks))
        inner->parent = outer;
    }
}

Cfg *cfg_build(LLVMValueRef fn) {
  Cfg *cfg = calloc(1, sizeof *cfg);
  if (!cfg)
    kn_die("out of memory");
  cfg->rpo = cfg_reverse_post_order(fn);
  for (ptrdiff_t i = 0; i < arrlen(cfg->rpo); i++) {
    hmput(cfg->index, cfg->rpo[i], (int)i);
    arrput(cfg->preds, NULL);
  }
  for (ptrdiff_t i = 0; i < arrlen(cfg->rpo); i++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(cfg->rpo[i]);
    for (unsigned s = 0, n = term ? LLVMGetNumSuccessors(term) : 0; s < n; s++) {
      int succ = index_of(cfg, LLVMGetSuccessor(term, s));
      LLVMBasicBlockRef **list = &cfg->preds[succ];
      bool seen = false;
      for (ptrdiff_t k = 0; k < arrlen(*list); k++)
        seen |= (*list)[k] == cfg->rpo[i];
      if (!seen)
        arrput(*list, cfg->rpo[i]);
    }
  }
  find_dominators(cfg);
  find_loops(cfg);
  return cfg;
}

LLVMBasicBlockRef *cfg_blocks(Cfg *cfg) { return cfg->rpo; }
Loop *cfg_loops(Cfg *cfg) { return cfg->loops; }

bool cfg_on_cycle(LLVMBasicBlockRef bb) {
  ValueSet seen = {0};
  LLVMBasicBlockRef *work = NULL;
  arrput(work, bb);
  bool cycle = false;
  while (arrlen(work) && !cycle) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(arrpop(work));
    for (unsigned i = 0, n = term ? LLVMGetNumSuccessors(term) : 0; i < n && !cycle; i++) {
      LLVMBasicBlockRef succ = LLVMGetSuccessor(term, i);
      cycle = succ == bb;
      if (vset_add(&seen, LLVMBasicBlockAsValue(succ)))
        arrput(work, succ);
    }
  }
  arrfree(work);
  vset_free(&seen);
  return cycle;
}

bool loop_contains(Loop *loop, LLVMBasicBlockRef bb) {
  return vset_has(&loop->blocks, LLVMBasicBlockAsValue(bb));
}

Loop *cfg_loop_with_header(Cfg *cfg, LLVMBasicBlockRef header) {
  for (ptrdiff_t i = 0; i < arrlen(cfg->loops); i++)
    if (cfg->loops[i].header == header)
      return &cfg->loops[i];
  return NULL;
}

void cfg_free(Cfg *cfg) {
  for (ptrdiff_t i = 0; i < arrlen(cfg->rpo); i++)
    arrfree(cfg->preds[i]);
  for (ptrdiff_t i = 0; i < arrlen(cfg->loops); i++)
    vset_free(&cfg->loops[i].blocks);
  arrfree(cfg->preds);
  arrfree(cfg->loops);
  arrfree(cfg->rpo);
  hmfree(cfg->index);
  free(cfg->idom);
  free(cfg);
}

void cfg_retarget_phis(LLVMBasicBlockRef succ, LLVMBasicBlockRef from, LLVMBasicBlockRef to) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMValueRef phi = LLVMGetFirstInstruction(succ);
  while (phi && LLVMIsAPHINode(phi)) {
    LLVMValueRef next = LLVMGetNextInstruction(phi);
    LLVMPositionBuilderBefore(b, phi);
    LLVMValueRef copy = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
    for (unsigned i = 0, n = LLVMCountIncoming(phi); i < n; i++) {
      LLVMValueRef value = LLVMGetIncomingValue(phi, i);
      LLVMBasicBlockRef block = LLVMGetIncomingBlock(phi, i);
      if (block != from || to)
        LLVMAddIncoming(copy, &value, block == from ? &to : &block, 1);
    }
    char *name = kn_strdup_printf("%s", kn_value_name(phi)); /* dies with the phi */
    LLVMReplaceAllUsesWith(phi, copy);
    LLVMInstructionEraseFromParent(phi);
    LLVMSetValueName2(copy, name, strlen(name));
    free(name);
    phi = next;
  }
  LLVMDisposeBuilder(b);
}

void cfg_copy_incoming(LLVMBasicBlockRef succ, LLVMBasicBlockRef like, LLVMBasicBlockRef pred) {
  for (LLVMValueRef phi = LLVMGetFirstInstruction(succ); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi))
    for (unsigned i = 0, n = LLVMCountIncoming(phi); i < n; i++)
      if (LLVMGetIncomingBlock(phi, i) == like) {
        LLVMValueRef value = LLVMGetIncomingValue(phi, i);
        LLVMAddIncoming(phi, &value, &pred, 1);
        break;
      }
}

LLVMBasicBlockRef cfg_split_after(LLVMValueRef inst, const char *name) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(inst);
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(inst));
  LLVMBasicBlockRef tail = LLVMInsertBasicBlockInContext(ctx, bb, name);
  LLVMMoveBasicBlockAfter(tail, bb);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, tail);
  for (LLVMValueRef next = LLVMGetNextInstruction(inst); next;) {
    LLVMValueRef after = LLVMGetNextInstruction(next);
    char *moved = kn_strdup_printf("%s", kn_value_name(next));
    LLVMInstructionRemoveFromParent(next);
    LLVMInsertIntoBuilderWithName(b, next, moved);
    free(moved);
    next = after;
  }
  LLVMValueRef term = LLVMGetBasicBlockTerminator(tail);
  ValueSet done = {0};
  for (unsigned i = 0, n = term ? LLVMGetNumSuccessors(term) : 0; i < n; i++) {
    LLVMBasicBlockRef succ = LLVMGetSuccessor(term, i);
    if (vset_add(&done, LLVMBasicBlockAsValue(succ)))
      cfg_retarget_phis(succ, bb, tail);
  }
  vset_free(&done);
  LLVMDisposeBuilder(b);
  return tail;
}
