/* Pass pipelines run on the copies Kinase differentiates and on what it
 * generates. Before: fewer allocas, loads and blocks mean fewer shadows.
 * After: tidy the derivative so even -O0 builds get reasonable code; the
 * user's -O level optimises it further. */
#include "kinase.h"

#include <llvm-c/Transforms/PassBuilder.h>
#include <stb/stb_ds.h>
#include <stdio.h>

static void check(LLVMErrorRef err, const char *pipeline) {
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    kn_die("pipeline '%s' failed: %s", pipeline, msg);
  }
}

static void run(LLVMValueRef fn, const char *pipeline) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPassesOnFunction(fn, pipeline, NULL, options);
  LLVMDisposePassBuilderOptions(options);
  check(err, pipeline);
}

/* Functions marked alwaysinline (libdevice's, CUDA's builtin wrappers) keep
 * their calls meanwhile: a math call must stay a call to meet its rule. */
void simplify_inline_marked_calls(void) {
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMValueRef *marked = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    if (LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, always)) {
      LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, always);
      arrput(marked, fn);
    }
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(kn_module.mod, "always-inline", NULL, options);
  LLVMDisposePassBuilderOptions(options);
  for (ptrdiff_t i = 0; i < arrlen(marked); i++)
    LLVMAddAttributeAtIndex(marked[i], LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
  arrfree(marked);
  check(err, "always-inline");
}

/* The copy carries none of the user's attributes, so -O0's optnone does not
 * stop these pipelines. simplify_before is the two halves in turn. */
void simplify_registers(LLVMValueRef fn) { run(fn, "sroa"); }

void simplify_control(LLVMValueRef fn) {
  run(fn, "early-cse,simplifycfg,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa,loop(indvars)");
}

/* Loops of a constant trip count (none, too) unrolled whole, then locals to
 * registers again: a local indexed by such a loop's counter is memory to
 * sroa while the loop is there. */
void simplify_constant_loops(LLVMValueRef fn) {
  run(fn, "sccp,simplifycfg,loop-simplify,lcssa,loop(loop-unroll-full),instsimplify,simplifycfg,sroa");
}

void simplify_before(LLVMValueRef fn) {
  simplify_registers(fn);
  simplify_control(fn);
}

void simplify_after(LLVMValueRef fn) {
  run(fn, "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,adce");
}

void simplify_loops_for_factoring(LLVMValueRef fn) { run(fn, "loop-simplify,lcssa,loop(loop-rotate),loop-mssa(licm)"); }

/* The instructions of the loop, or -1 if it calls a convergent function (a
 * shuffle, a barrier): LLVM cannot unroll that with a remainder. */
static int loop_size(LLVMValueRef fn, Loop *loop) {
  unsigned convergent = LLVMGetEnumAttributeKindForName("convergent", 10);
  int size = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    if (!loop_contains(loop, bb))
      continue;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst), size++) {
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (callee && LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, convergent))
        return -1;
    }
  }
  return size;
}

/* The reverse sweep of a device loop over data issues one iteration's loads
 * at a time unless it is unrolled. LLVM unrolls the primal's loop by its
 * own heuristics but often not the reverse one, ptxas only sometimes: the
 * seed's gradient at N = 1000 took 0.91 ms with its reverse loop as is,
 * 0.81 ms where ptxas happened to unroll it. So the small loops of a
 * device reverse sweep ask for `count` copies (llvm.loop.unroll.count):
 * not those LLVM could not unroll (it would warn the user), nor large ones,
 * which have work enough to overlap and would only grow the PTX (compile
 * time: derivative kernels are made for every kernel). */
void simplify_unroll_loops(LLVMValueRef fn, unsigned count) {
  enum { SMALL_LOOP = 40 };
  Cfg *cfg = cfg_build(fn);
  Loop *loops = cfg_loops(cfg);
  for (ptrdiff_t i = 0; i < arrlen(loops); i++) {
    int size = loops[i].latch ? loop_size(fn, &loops[i]) : -1;
    if (size >= 0 && size <= SMALL_LOOP)
      kn_set_unroll_count(LLVMGetBasicBlockTerminator(loops[i].latch), count);
  }
  cfg_free(cfg);
}
