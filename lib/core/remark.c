/* Remarks that say why: which values the reverse sweep records on the tape
 * and why it could not compute them again, which adjoints device code adds
 * atomically and why, so that a user can change the code. The decisions are
 * made elsewhere (reverse/primal.c, reverse/tape.c, reverse/adjoint.c,
 * cuda/threads.c, abi/abi.c), each with its Reason; this file only words
 * and reports (reverse/why.c words the reverse sweep's).
 *
 * Passed remarks (-Rpass=kinase) are the cheap outcomes: a load recomputed,
 * a plain add. Missed ones (-Rpass-missed=kinase) are the costly: a value
 * recorded, an atomic add. They are LLVM optimization remarks of the pass
 * "kinase" (plugin.cpp), so clang filters, locates and prints them as its
 * own, and -fsave-optimization-record writes them too. -mllvm
 * -kinase-remarks (or KINASE_REMARKS=1) shows both kinds without clang's
 * -Rpass: printed here, in clang's format. */
#include "kinase.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stb/stb_ds.h>

/* plugin.cpp (kinase-opt has its own): the option, whether the context's
 * diagnostic handler shows the kind (clang's -Rpass=, opt's
 * -pass-remarks=), whether a remark file records every kind, and the report
 * through the context. */
int kn_option_remarks(void); /* -mllvm -kinase-remarks; kinase-opt --remarks */
int kn_remark_enabled(LLVMContextRef context, int missed);
int kn_remark_recorded(LLVMContextRef context);
void kn_report_remark(LLVMContextRef context, LLVMValueRef function, LLVMMetadataRef location,
                      int missed, const char *name, const char *message);

/* One function differentiated twice says the same thing once. */
static struct { char *key; int value; } *said;

static const struct {
  bool missed;
  const char *name;
} kinds[] = {
    [KN_RECOMPUTED] = {false, "Recomputed"}, [KN_RECORDED] = {true, "Recorded"},
    [KN_PLAIN_ADD] = {false, "PlainAdd"},    [KN_ATOMIC_ADD] = {true, "AtomicAdd"},
    [KN_OWN_SHADOW] = {false, "OwnShadow"},  [KN_SHARED_SHADOW] = {true, "SharedShadow"},
    [KN_CONSTANT] = {true, "Constant"},
};

bool kn_want_remarks(void) { return kn_option_remarks() || kn_env_set("KINASE_REMARKS"); }

bool kn_remarks_on(RemarkKind kind) {
  return kn_remark_enabled(kn_module.ctx, kinds[kind].missed) || kn_remark_recorded(kn_module.ctx) ||
         kn_want_remarks();
}

static unsigned line_of(LLVMValueRef inst) {
  LLVMMetadataRef loc = inst && LLVMIsAInstruction(inst) ? kn_source_location(inst) : NULL;
  return loc ? LLVMDILocationGetLine(loc) : 0;
}

/* What an instruction is, to a user: by opcode, a call by its callee. */
static const struct {
  LLVMOpcode opcode;
  const char *noun;
} nouns[] = {
    {LLVMStore, "the store"},         {LLVMLoad, "the load"},
    {LLVMAtomicRMW, "the atomic update"}, {LLVMAtomicCmpXchg, "the compare-and-swap"},
    {LLVMPHI, "the value joined"},    {LLVMAlloca, "the local variable"},
};

char *kn_describe_instruction(LLVMValueRef inst) {
  unsigned line = line_of(inst);
  char *where = line ? kn_strdup_printf(" at line %u", line) : kn_strdup_printf("%s", "");
  char *text = NULL;
  LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
  if (LLVMIsACallInst(inst)) {
    const char *name = callee ? kn_function_name(callee) : "";
    /* llvm.memcpy.p0.p0.i64 is the user's memcpy. */
    size_t len = strncmp(name, "llvm.", 5) ? strlen(name) : strcspn(name += 5, ".");
    text = callee ? kn_strdup_printf("the call of '%.*s'%s", (int)len, name, where)
                  : kn_strdup_printf("the indirect call%s", where);
  }
  for (size_t i = 0; !text && i < sizeof nouns / sizeof *nouns; i++)
    if (LLVMGetInstructionOpcode(inst) == nouns[i].opcode)
      text = kn_strdup_printf("%s%s", nouns[i].noun, where);
  if (!text)
    text = kn_strdup_printf("the instruction%s", where);
  free(where);
  return text;
}

char *kn_describe_object(LLVMValueRef base, const Signature *sig) {
  if (LLVMIsAArgument(base)) {
    LLVMValueRef fn = LLVMGetParamParent(base);
    unsigned index = 0, n = LLVMCountParams(fn);
    while (index < n && LLVMGetParam(fn, index) != base)
      index++;
    /* A derivative's parameters interleave primals and shadows. */
    for (unsigned i = 0, at = 0; sig && i < sig->nparams; i++) {
      unsigned width = sig->params[i] == ACT_DUP || sig->params[i] == ACT_DUPNONEED ? 2 : 1;
      if (index < at + width) {
        index = i;
        break;
      }
      at += width;
    }
    const char *name = kn_value_name(base);
    return *name ? kn_strdup_printf("parameter %u ('%s')", index + 1, name)
                 : kn_strdup_printf("parameter %u", index + 1);
  }
  if (LLVMIsAGlobalVariable(base))
    return kn_strdup_printf(LLVMGetPointerAddressSpace(LLVMTypeOf(base)) == KN_SHARED_ADDRESS_SPACE
                                ? "the __shared__ variable '%s'"
                                : "the global '%s'",
                            kn_value_name(base));
  if (LLVMIsAAllocaInst(base))
    return kn_strdup_printf("a local variable");
  if (LLVMIsALoadInst(base))
    return kn_strdup_printf("a pointer loaded from memory");
  if (LLVMIsACallInst(base)) {
    char *call = kn_describe_instruction(base);
    char *text = kn_strdup_printf("what %s returns", call);
    free(call);
    return text;
  }
  return kn_strdup_printf("a computed pointer");
}

char *kn_reason_text(Reason why) {
  if (!why.at)
    return kn_strdup_printf("%s", why.text ? why.text : "");
  char *at = kn_describe_instruction(why.at);
  char *text = kn_strdup_printf(why.text, at);
  free(at);
  return text;
}

/* Where clang's handler does not take it: stderr, as clang prints one. */
static void print_remark(RemarkKind kind, LLVMMetadataRef location, const char *message) {
  if (location) {
    unsigned length = 0;
    LLVMMetadataRef file = LLVMDIScopeGetFile(LLVMDILocationGetScope(location));
    const char *name = file ? LLVMDIFileGetFilename(file, &length) : "";
    fprintf(stderr, "%.*s:%u:%u: ", (int)length, name, LLVMDILocationGetLine(location),
            LLVMDILocationGetColumn(location));
  }
  fprintf(stderr, "remark: %s [%s]\n", message,
          kinds[kind].missed ? "-Rpass-missed=kinase" : "-Rpass=kinase");
}

/* The user's name for a function Kinase copied before differentiating. */
static const char *user_name(LLVMValueRef fn) {
  static const char prefix[] = "kinase.inlined.";
  const char *name = kn_function_name(fn);
  return strncmp(name, prefix, sizeof prefix - 1) ? name : name + sizeof prefix - 1;
}

void kn_remark(RemarkKind kind, LLVMValueRef where, LLVMValueRef subject, const char *derivative,
               const char *fmt, ...) {
  if (!kn_remarks_on(kind))
    return;
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  LLVMMetadataRef location = where && LLVMIsAInstruction(where) ? kn_source_location(where) : NULL;
  char *message = kn_strdup_printf("%s of '%s': %s", derivative, user_name(subject), what);
  char *key = kn_strdup_printf("%d|%p|%s", kind, (void *)location, message);
  if (!said)
    sh_new_strdup(said);
  if (shgeti(said, key) < 0) {
    shput(said, key, 1);
    bool shown = kn_remark_enabled(kn_module.ctx, kinds[kind].missed);
    if (shown || kn_remark_recorded(kn_module.ctx))
      kn_report_remark(kn_module.ctx, subject, location, kinds[kind].missed, kinds[kind].name, message);
    if (!shown && kn_want_remarks())
      print_remark(kind, location, message);
  }
  free(key);
  free(message);
}
