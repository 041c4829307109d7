/* Exceptions in the functions Kinase differentiates (C++ compiled with
 * exceptions: invokes, landing pads, cleanups, resume).
 *
 * Derivatives follow the normal path only. Before a generator starts, each
 * invoke of the copy becomes a call followed by a branch to its normal
 * destination (unwind_detach). The landing pads, and the blocks only they
 * reach, then fall out of the reverse post-order every generator walks:
 * activity, the tape and the reverse sweep's CFG never see an unwind edge,
 * so no landing pad is reversed. They stay in the function as the primal
 * had them (forward mode alone appends them to its walk, so that the
 * cleanups release shadows too: forward/forward.c). Each such call carries
 * the index of its edge as metadata, which a generator moves to the call
 * that takes its place (unwind_follow): the call of a derivative. Once the
 * derivative is generated, each call so marked becomes an invoke again
 * with its old landing pad (unwind_reattach): a throw unwinds through the
 * augmented sweep, or the forward derivative, as it would have through the
 * primal, running the primal's cleanups. A call a generator erased (a CUDA
 * launch replaced by the runtime's) takes its mark, and its edge, along.
 *
 * A call of the normal path that may throw but was no invoke (nothing of
 * the primal's to clean up there) throws straight into the caller; it is
 * marked too, with an edge that has no landing pad, so that the augmented
 * sweep can give it one of its own, which releases what the sweep
 * allocated and resumes (unwind_pads_to_caller).
 *
 * A catch block that goes on into the normal path cannot be left out so:
 * the code after it would be differentiated from a point the derivative
 * never reached. That is an error at the catch. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>

static void copy_attributes(LLVMValueRef from, LLVMValueRef to) {
  long long nargs = LLVMGetNumArgOperands(from);
  for (long long i = -1; i <= nargs; i++) { /* the function, the result, each argument */
    LLVMAttributeIndex at = i < 0 ? LLVMAttributeFunctionIndex : (LLVMAttributeIndex)i;
    unsigned n = LLVMGetCallSiteAttributeCount(from, at);
    LLVMAttributeRef *attrs = malloc((n ? n : 1) * sizeof *attrs);
    LLVMGetCallSiteAttributes(from, at, attrs);
    for (unsigned k = 0; k < n; k++)
      LLVMAddCallSiteAttribute(to, at, attrs[k]);
    free(attrs);
  }
}

static void copy_metadata(LLVMValueRef from, LLVMValueRef to) {
  size_t n = 0;
  LLVMValueMetadataEntry *entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(from, &n);
  for (unsigned i = 0; i < n; i++)
    LLVMSetMetadata(to, LLVMValueMetadataEntriesGetKind(entries, i),
                    LLVMMetadataAsValue(kn_module.ctx, LLVMValueMetadataEntriesGetMetadata(entries, i)));
  if (entries)
    LLVMDisposeValueMetadataEntries(entries);
  LLVMInstructionSetDebugLoc(to, LLVMInstructionGetDebugLoc(from));
}

/* `site` again at b, as an invoke when `unwind` is given, else as a call:
 * the same callee, arguments, bundles, attributes, calling convention and
 * metadata. Its uses move to the new one; `site` is erased. */
static LLVMValueRef rebuild_site(LLVMBuilderRef b, LLVMValueRef site, LLVMBasicBlockRef normal,
                                 LLVMBasicBlockRef unwind) {
  unsigned nargs = LLVMGetNumArgOperands(site), nbundles = LLVMGetNumOperandBundles(site);
  LLVMValueRef *args = malloc((nargs ? nargs : 1) * sizeof *args);
  LLVMOperandBundleRef *bundles = malloc((nbundles ? nbundles : 1) * sizeof *bundles);
  for (unsigned i = 0; i < nargs; i++)
    args[i] = LLVMGetOperand(site, i);
  for (unsigned i = 0; i < nbundles; i++)
    bundles[i] = LLVMGetOperandBundleAtIndex(site, i);
  LLVMTypeRef type = LLVMGetCalledFunctionType(site);
  bool is_void = LLVMGetTypeKind(LLVMGetReturnType(type)) == LLVMVoidTypeKind;
  const char *name = is_void ? "" : kn_value_name(site);
  LLVMValueRef callee = LLVMGetCalledValue(site);
  LLVMValueRef copy =
      unwind ? LLVMBuildInvokeWithOperandBundles(b, type, callee, args, nargs, normal, unwind, bundles,
                                                 nbundles, name)
             : LLVMBuildCallWithOperandBundles(b, type, callee, args, nargs, bundles, nbundles, name);
  for (unsigned i = 0; i < nbundles; i++)
    LLVMDisposeOperandBundle(bundles[i]);
  free(bundles);
  free(args);
  LLVMSetInstructionCallConv(copy, LLVMGetInstructionCallConv(site));
  copy_attributes(site, copy);
  copy_metadata(site, copy);
  if (!is_void)
    LLVMReplaceAllUsesWith(site, copy);
  LLVMInstructionEraseFromParent(site);
  return copy;
}

LLVMValueRef unwind_through(LLVMValueRef call, LLVMBasicBlockRef unwind) {
  LLVMBasicBlockRef normal = cfg_split_after(call, "invoke.cont");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMGetInstructionParent(call));
  LLVMValueRef invoke = rebuild_site(b, call, normal, unwind);
  LLVMDisposeBuilder(b);
  return invoke;
}

static unsigned mark_kind(void) {
  return LLVMGetMDKindIDInContext(kn_module.ctx, "kinase.unwind", 13);
}

static void mark(LLVMValueRef call, size_t edge) {
  LLVMContextRef ctx = kn_module.ctx;
  LLVMMetadataRef index = LLVMValueAsMetadata(LLVMConstInt(LLVMInt64TypeInContext(ctx), edge, 0));
  LLVMSetMetadata(call, mark_kind(), LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &index, 1)));
}

/* The edge index `call` is marked with, -1 if none. */
static long long marked_edge(LLVMValueRef call) {
  LLVMValueRef node = LLVMIsACallInst(call) ? LLVMGetMetadata(call, mark_kind()) : NULL;
  if (!node)
    return -1;
  LLVMValueRef index;
  LLVMGetMDNodeOperands(node, &index);
  return LLVMConstIntGetSExtValue(index);
}

/* Blocks reached from the entry once unwind edges are gone. */
static void normal_path(LLVMValueRef fn, ValueSet *reached) {
  LLVMBasicBlockRef *rpo = cfg_reverse_post_order(fn);
  for (ptrdiff_t i = 0; i < arrlen(rpo); i++)
    vset_add(reached, LLVMBasicBlockAsValue(rpo[i]));
  arrfree(rpo);
}

/* Whether `bb` calls a function that never returns (`throw;` in a catch
 * block: __cxa_rethrow, whose invoke's normal destination, now a branch,
 * clang shares with the other throws' unreachable block). */
static bool calls_noreturn(LLVMBasicBlockRef bb) {
  unsigned kind = LLVMGetEnumAttributeKindForName("noreturn", 8);
  for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
    if (!LLVMIsACallInst(inst))
      continue;
    LLVMValueRef callee = kn_called_function(inst);
    if (LLVMGetCallSiteEnumAttribute(inst, LLVMAttributeFunctionIndex, kind) ||
        (callee && LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind)))
      return true;
  }
  return false;
}

/* The terminator of a block only unwinding reaches that branches into the
 * normal path: a catch that carries on. */
static LLVMValueRef rejoining_branch(LLVMValueRef fn) {
  ValueSet reached = {0};
  normal_path(fn, &reached);
  LLVMValueRef found = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !found; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (vset_has(&reached, LLVMBasicBlockAsValue(bb)) || !term || calls_noreturn(bb))
      continue;
    for (unsigned i = 0, n = LLVMGetNumSuccessors(term); i < n && !found; i++)
      if (vset_has(&reached, LLVMBasicBlockAsValue(LLVMGetSuccessor(term, i))))
        found = term;
  }
  vset_free(&reached);
  return found;
}

static bool has_nounwind(LLVMValueRef fn_or_call) {
  unsigned kind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  return LLVMIsAFunction(fn_or_call)
             ? LLVMGetEnumAttributeAtIndex(fn_or_call, LLVMAttributeFunctionIndex, kind) != NULL
             : LLVMGetCallSiteEnumAttribute(fn_or_call, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* Whether a call may throw into its caller: neither it nor its callee is
 * nounwind, and it is neither an intrinsic nor inline assembly. */
static bool may_unwind(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (LLVMIsAInlineAsm(callee) || has_nounwind(call))
    return false;
  return !LLVMIsAFunction(callee) || (!LLVMGetIntrinsicID(callee) && !has_nounwind(callee));
}

/* Calls of the normal path that may throw straight into the caller get an
 * edge with no landing pad: a generator may want to give them one. */
static void mark_calls_to_caller(LLVMValueRef fn, UnwindEdge **edges) {
  if (has_nounwind(fn))
    return; /* a throw stops the program there */
  LLVMBasicBlockRef *rpo = cfg_reverse_post_order(fn);
  for (ptrdiff_t i = 0; i < arrlen(rpo); i++)
    for (LLVMValueRef inst = LLVMGetFirstInstruction(rpo[i]); inst; inst = LLVMGetNextInstruction(inst))
      if (LLVMIsACallInst(inst) && marked_edge(inst) < 0 && may_unwind(inst)) {
        mark(inst, (size_t)arrlen(*edges));
        arrput(*edges, ((UnwindEdge){.from = rpo[i], .unwind = NULL}));
      }
  arrfree(rpo);
}

bool unwind_detach(LLVMValueRef fn, LLVMValueRef subject, UnwindEdge **edges) {
  LLVMValueRef *invokes = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    if (LLVMIsAInvokeInst(LLVMGetBasicBlockTerminator(bb)))
      arrput(invokes, LLVMGetBasicBlockTerminator(bb));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t i = 0; i < arrlen(invokes); i++) {
    LLVMValueRef invoke = invokes[i];
    UnwindEdge edge = {.from = LLVMGetInstructionParent(invoke), .unwind = LLVMGetUnwindDest(invoke)};
    LLVMPositionBuilderBefore(b, invoke);
    LLVMValueRef br = LLVMBuildBr(b, LLVMGetNormalDest(invoke));
    LLVMPositionBuilderBefore(b, br);
    mark(rebuild_site(b, invoke, NULL, NULL), (size_t)arrlen(*edges));
    arrput(*edges, edge);
  }
  LLVMDisposeBuilder(b);
  arrfree(invokes);
  LLVMValueRef rejoin = rejoining_branch(fn);
  if (rejoin)
    kn_error(rejoin, subject,
             "it catches an exception and carries on (a catch block that does not rethrow); Kinase "
             "differentiates the normal path only, where cleanups that rethrow are fine");
  else
    mark_calls_to_caller(fn, edges);
  return !rejoin;
}

bool unwind_has_landing_pads(const UnwindEdge *edges) {
  for (ptrdiff_t k = 0; k < arrlen(edges); k++)
    if (edges[k].unwind)
      return true;
  return false;
}

void unwind_follow(LLVMValueRef from, LLVMValueRef to) {
  LLVMValueRef node = LLVMGetMetadata(from, mark_kind());
  if (node)
    LLVMSetMetadata(to, mark_kind(), node);
}

/* The landing pad's phis name `edge->from`, the invoke's block when it was
 * detached; each call marked for the edge brings its own block. */
static void add_predecessor(UnwindEdge *edge, LLVMBasicBlockRef now, bool *named) {
  if (now == edge->from) {
    *named = true;
  } else if (!*named) {
    cfg_retarget_phis(edge->unwind, edge->from, now);
    edge->from = now;
    *named = true;
  } else {
    cfg_copy_incoming(edge->unwind, edge->from, now);
  }
}

void unwind_reattach(LLVMValueRef fn, UnwindEdge *edges, LLVMValueRef **invokes, LLVMValueRef **to_caller) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (marked_edge(inst) >= 0)
        arrput(calls, inst);
  /* Only calls of the normal path are handed back: one in code that only
   * unwinding reaches (the `throw;` of a catch block) runs after the landing
   * pad that brought the exception there, where the caller's release
   * already ran. */
  ValueSet normal = {0};
  normal_path(fn, &normal);
  bool *named = calloc((size_t)arrlen(edges) + 1, sizeof *named);
  for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
    long long k = marked_edge(calls[i]);
    LLVMSetMetadata(calls[i], mark_kind(), NULL);
    bool on_normal_path = vset_has(&normal, LLVMBasicBlockAsValue(LLVMGetInstructionParent(calls[i])));
    if (!edges[k].unwind) {
      if (to_caller && on_normal_path)
        arrput(*to_caller, calls[i]);
      continue;
    }
    add_predecessor(&edges[k], LLVMGetInstructionParent(calls[i]), &named[k]);
    LLVMValueRef invoke = unwind_through(calls[i], edges[k].unwind);
    if (invokes && on_normal_path)
      arrput(*invokes, invoke);
  }
  vset_free(&normal);
  /* An edge whose call is gone leaves its landing pad one predecessor less. */
  for (ptrdiff_t k = 0; k < arrlen(edges); k++)
    if (!named[k] && edges[k].unwind)
      cfg_retarget_phis(edges[k].unwind, edges[k].from, NULL);
  free(named);
  arrfree(calls);
}

/* A phi at the start of `body` for `v` of the landing pad `pad` (a phi of
 * the pad, or its landingpad), which `body` used to be part of. */
static LLVMValueRef carry_into_body(LLVMBuilderRef b, LLVMBasicBlockRef body, LLVMValueRef v,
                                    LLVMBasicBlockRef pad) {
  LLVMPositionBuilderBeforeInstrAndDbgRecords(b, LLVMGetFirstInstruction(body));
  LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(v), "");
  LLVMReplaceAllUsesWith(v, phi);
  LLVMAddIncoming(phi, &v, &pad, 1);
  return phi;
}

/* The invokes of `invokes` unwinding to `pad` get one landing pad each
 * (same clauses), where `fill` puts code of their own, going on into what
 * `pad` did after its landingpad. */
static void separate_pad(LLVMBasicBlockRef pad, LLVMValueRef *invokes, UnwindFill fill, void *data) {
  LLVMValueRef lp = kn_first_non_phi(pad);
  if (!LLVMIsALandingPadInst(lp))
    return;
  LLVMValueRef *phis = NULL, *mine = NULL;
  for (LLVMValueRef phi = LLVMGetFirstInstruction(pad); phi != lp; phi = LLVMGetNextInstruction(phi))
    arrput(phis, phi);
  for (ptrdiff_t i = 0; i < arrlen(invokes); i++)
    if (LLVMGetUnwindDest(invokes[i]) == pad)
      arrput(mine, invokes[i]);
  LLVMBasicBlockRef body = cfg_split_after(lp, "lpad.body");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, pad);
  LLVMBuildBr(b, body);
  LLVMValueRef *carried = NULL;
  for (ptrdiff_t i = 0; i < arrlen(phis); i++)
    arrput(carried, carry_into_body(b, body, phis[i], pad));
  LLVMValueRef lp_carried = carry_into_body(b, body, lp, pad);
  for (ptrdiff_t k = 0; k < arrlen(mine); k++) {
    LLVMBasicBlockRef from = LLVMGetInstructionParent(mine[k]);
    LLVMBasicBlockRef own = LLVMAppendBasicBlockInContext(kn_module.ctx, LLVMGetBasicBlockParent(pad), "lpad.own");
    LLVMPositionBuilderAtEnd(b, own);
    LLVMValueRef clone = LLVMInstructionClone(lp);
    LLVMInsertIntoBuilderWithName(b, clone, kn_value_name(lp));
    LLVMAddIncoming(lp_carried, &clone, &own, 1);
    for (ptrdiff_t i = 0; i < arrlen(phis); i++) {
      LLVMValueRef incoming = NULL;
      for (unsigned e = 0, n = LLVMCountIncoming(phis[i]); e < n && !incoming; e++)
        if (LLVMGetIncomingBlock(phis[i], e) == from)
          incoming = LLVMGetIncomingValue(phis[i], e);
      LLVMAddIncoming(carried[i], &incoming, &own, 1);
    }
    fill(data, b, mine[k]);
    LLVMBuildBr(b, body);
    LLVMSetUnwindDest(mine[k], own);
  }
  /* Last: this recreates the pad's phis, which `phis` holds. */
  for (ptrdiff_t k = 0; k < arrlen(mine); k++)
    cfg_retarget_phis(pad, LLVMGetInstructionParent(mine[k]), NULL);
  LLVMDisposeBuilder(b);
  arrfree(carried);
  arrfree(phis);
  arrfree(mine);
}

void unwind_separate_pads(LLVMValueRef *invokes, UnwindFill fill, void *data) {
  /* the pads first: separating one changes its invokes' destinations */
  ValueSet seen = {0};
  LLVMBasicBlockRef *pads = NULL;
  for (ptrdiff_t i = 0; i < arrlen(invokes); i++)
    if (vset_add(&seen, LLVMBasicBlockAsValue(LLVMGetUnwindDest(invokes[i]))))
      arrput(pads, LLVMGetUnwindDest(invokes[i]));
  for (ptrdiff_t i = 0; i < arrlen(pads); i++)
    separate_pad(pads[i], invokes, fill, data);
  vset_free(&seen);
  arrfree(pads);
}

/* fn's personality, or else one of the module's: a cleanup runs under any
 * (NULL: no function of the module handles exceptions). */
static LLVMValueRef personality_for(LLVMValueRef fn) {
  if (LLVMHasPersonalityFn(fn))
    return LLVMGetPersonalityFn(fn);
  for (LLVMValueRef f = LLVMGetFirstFunction(kn_module.mod); f; f = LLVMGetNextFunction(f))
    if (LLVMHasPersonalityFn(f))
      return LLVMGetPersonalityFn(f);
  return NULL;
}

void unwind_pads_to_caller(LLVMValueRef *calls, UnwindFill fill, void *data) {
  LLVMContextRef c = kn_module.ctx;
  LLVMTypeRef pad_type =
      LLVMStructTypeInContext(c, (LLVMTypeRef[]){LLVMPointerTypeInContext(c, 0), LLVMInt32TypeInContext(c)}, 2, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  for (ptrdiff_t i = 0; i < arrlen(calls); i++) {
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(calls[i]));
    LLVMValueRef personality = personality_for(fn);
    if (!personality)
      break;
    LLVMSetPersonalityFn(fn, personality);
    LLVMBasicBlockRef pad = LLVMAppendBasicBlockInContext(c, fn, "lpad.caller");
    LLVMValueRef invoke = unwind_through(calls[i], pad);
    LLVMPositionBuilderAtEnd(b, pad);
    LLVMValueRef lp = LLVMBuildLandingPad(b, pad_type, personality, 0, "");
    LLVMSetCleanup(lp, 1);
    fill(data, b, invoke);
    LLVMBuildResume(b, lp);
  }
  LLVMDisposeBuilder(b);
}
