/* Reverse mode: the remarks on its decisions (core/remark.c reports them):
 * a value recorded on the tape or recomputed, an adjoint added atomically or
 * plainly. Separate so that the files that decide keep only a Reason each,
 * and the wording is in one place. */
#include "reverse.h"

#include <stdlib.h>

static const char derivative[] = "gradient";

/* What a value is, to a user: a load by the memory it reads, a part of a
 * call's result by the call. */
static char *describe_value(Reverse *r, LLVMValueRef v) {
  if (LLVMIsAExtractValueInst(v) && LLVMIsACallInst(LLVMGetOperand(v, 0))) {
    /* An augmented call stands for the user's. */
    AugCall *aug = rev_aug_call_of(r, LLVMGetOperand(v, 0));
    if (aug)
      return kn_strdup_printf("what the call of '%s' returns", kn_function_name(aug->sig.fn));
    char *call = kn_describe_instruction(LLVMGetOperand(v, 0));
    char *text = kn_strdup_printf("what %s returns", call);
    free(call);
    return text;
  }
  if (LLVMIsALoadInst(v)) {
    char *object = kn_describe_object(kn_underlying_object(LLVMGetOperand(v, 0)), r->sig);
    char *text = kn_strdup_printf("the load from %s", object);
    free(object);
    return text;
  }
  if (LLVMIsAPHINode(v))
    return kn_strdup_printf(cfg_loop_with_header(r->cfg, LLVMGetInstructionParent(v))
                                ? "a value carried from one iteration of the loop to the next"
                                : "the value where branches join");
  return kn_describe_instruction(v);
}

void rev_remark_recomputed(Reverse *r, LLVMValueRef load, Reason why) {
  if (!kn_remarks_on(KN_RECOMPUTED))
    return;
  char *what = describe_value(r, load), *because = kn_reason_text(why);
  kn_remark(KN_RECOMPUTED, load, r->sig->fn, derivative,
            "%s is recomputed in the reverse sweep, not recorded: %s", what, because);
  free(what);
  free(because);
}

void rev_remark_recorded(Reverse *r, const Placeholder *p, const char *place) {
  if (!kn_remarks_on(KN_RECORDED))
    return;
  char *what = describe_value(r, p->root), *because = kn_reason_text(p->why);
  kn_remark(KN_RECORDED, p->root, r->sig->fn, derivative,
            "%s is recorded on the tape (%s), not recomputed: %s", what, place, because);
  free(what);
  free(because);
}

static const struct {
  RemarkKind kind;
  const char *how;
} accumulations[] = {
    [ACC_PLAIN] = {KN_PLAIN_ADD, "plain add"},
    [ACC_OWNED] = {KN_PLAIN_ADD, "plain add (owned by thread) in a one-dimensional launch, "
                                 "atomic in others (threads may share an x index)"},
    [ACC_WARP] = {KN_ATOMIC_ADD, "summed across the warp and added atomically by one lane when all "
                                 "32 lanes are there at the same address, else atomic per lane"},
    [ACC_WARP_LOOP] = {KN_ATOMIC_ADD, "summed across the warp at the end of each loop iteration and "
                                      "added atomically by one lane when all 32 lanes enter the loop "
                                      "together and agree on its count and on what the address is "
                                      "computed from, else atomic per lane"},
    [ACC_ATOMIC] = {KN_ATOMIC_ADD, "atomic add"},
};

void rev_remark_accumulation(Reverse *r, LLVMValueRef load, Accumulation how, Reason why) {
  RemarkKind kind = accumulations[how].kind;
  if (!kn_remarks_on(kind))
    return;
  char *what = describe_value(r, load), *because = kn_reason_text(why);
  kn_remark(kind, load, r->sig->fn, derivative, "the adjoint of %s: %s, because %s", what,
            accumulations[how].how, because);
  free(what);
  free(because);
}
