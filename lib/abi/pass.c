/* The module pass: find the derivative requests and lower them. */
#include "kinase.h"

#include <llvm-c/Analysis.h>

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

Module kn_module;

int kn_option_print(void); /* plugin.cpp */
int kn_option_list(void);

bool kn_want_print(void) { return kn_option_print() || kn_env_set("KINASE_PRINT"); }
bool kn_want_list(void) { return kn_option_list() || kn_env_set("KINASE_LIST"); }

static const struct {
  const char *name;
  RequestKind kind;
} entry_points[] = {
    {"__enzyme_fwddiff", REQ_FORWARD},
    {"__enzyme_autodiff", REQ_GRADIENT},
    {"__enzyme_augmentfwd", REQ_AUGMENT},
    {"__enzyme_reverse", REQ_REVERSE},
    {"__enzyme_batch", REQ_BATCH},
};

/* Enzyme entry points Kinase does not implement yet: an error at the call
 * rather than an undefined symbol at link time. */
static const char *const unsupported_entry_points[] = {"__enzyme_augmentsize", "__enzyme_fwdsplit"};

static void refuse_unsupported(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  for (size_t e = 0; callee && e < sizeof unsupported_entry_points / sizeof *unsupported_entry_points; e++)
    if (strstr(kn_function_name(callee), unsupported_entry_points[e])) {
      kn_error(call, NULL, "%s is not supported yet (Kinase has __enzyme_autodiff, __enzyme_fwddiff, "
                           "__enzyme_augmentfwd, __enzyme_reverse and __enzyme_batch)",
               unsupported_entry_points[e]);
      return;
    }
}

typedef struct {
  LLVMValueRef call;
  RequestKind kind;
} Request;

/* Functions a program defines for Enzyme to call on its own, and the
 * feature each serves. Kinase calls none: a program counting on one stops
 * at its first request rather than running without the calls. */
static const struct {
  const char *name;
  const char *feature;
} unsupported_hooks[] = {
    {"enzymeLogGrad", "gradient logging"}, /* called with each adjoint */
};

static void refuse_unsupported_hooks(const Request *requests) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn && arrlen(requests);
       fn = LLVMGetNextFunction(fn))
    for (size_t h = 0; h < sizeof unsupported_hooks / sizeof *unsupported_hooks; h++)
      if (!LLVMIsDeclaration(fn) && strstr(kn_function_name(fn), unsupported_hooks[h].name))
        kn_error(requests[0].call, NULL, "Enzyme's %s is not supported: Kinase never calls '%s', "
                                         "which this program defines",
                 unsupported_hooks[h].feature, kn_function_name(fn));
}

static bool is_virtualreverse(LLVMValueRef inst) {
  LLVMValueRef callee = kn_is_call_site(inst) ? kn_called_function(inst) : NULL;
  return callee && strstr(kn_function_name(callee), "__enzyme_virtualreverse");
}

/* Before the requests: their functions may run with these shadows. */
static void lower_virtualreverse(void) {
  LLVMValueRef *calls = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
        if (is_virtualreverse(inst))
          arrput(calls, inst);
  for (ptrdiff_t i = 0; i < arrlen(calls); i++)
    abi_lower_virtualreverse(calls[i]);
  arrfree(calls);
}

static int entry_point_of(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  for (size_t e = 0; callee && e < sizeof entry_points / sizeof *entry_points; e++)
    if (strstr(kn_function_name(callee), entry_points[e].name))
      return (int)e;
  return -1;
}

/* An entry point whose address is kept (`grad_t g = (grad_t)__enzyme_autodiff;
 * g(...)`) is called through a pointer, where no request is seen: the
 * program would fail to link on the entry point and the markers. Said at
 * the use instead. A cast called at once is a direct call. */
static void refuse_address_taken(void) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn)) {
    size_t e = 0;
    while (e < sizeof entry_points / sizeof *entry_points && !strstr(kn_function_name(fn), entry_points[e].name))
      e++;
    if (e == sizeof entry_points / sizeof *entry_points || !LLVMIsDeclaration(fn))
      continue;
    for (LLVMUseRef use = LLVMGetFirstUse(fn); use; use = LLVMGetNextUse(use)) {
      LLVMValueRef user = LLVMGetUser(use);
      if (kn_is_call_site(user) && LLVMGetCalledValue(user) == fn)
        continue;
      kn_error(LLVMIsAInstruction(user) ? user : NULL, NULL,
               "the address of %s is taken: Kinase finds requests by their calls, so call it "
               "directly (a cast called at once, ((T (*)(void *, ...))%s)(...), is a direct call)",
               entry_points[e].name, entry_points[e].name);
      break;
    }
  }
}

/* Calls of every function whose name contains an entry point's name (C++
 * mangles it: _Z16__enzyme_fwddiffPvz), in the order of the source; invokes
 * too, where C++ locals may need destroying. */
static Request *find_requests(void) {
  Request *requests = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
        bool call = kn_is_call_site(inst);
        int e = call ? entry_point_of(inst) : -1;
        if (call && e < 0)
          refuse_unsupported(inst);
        if (e >= 0)
          arrput(requests, ((Request){inst, entry_points[e].kind}));
      }
  return requests;
}

/* Requests in always_inline templates (<enzyme/enzyme>) learn their
 * function once inlined into their callers (inline.c). */
static bool inline_holders(Request *requests) {
  LLVMValueRef *calls = NULL;
  for (ptrdiff_t i = 0; i < arrlen(requests); i++)
    arrput(calls, requests[i].call);
  bool inlined = inline_request_holders(calls, (size_t)arrlen(calls));
  arrfree(calls);
  return inlined;
}

/* Models are only templates for derivatives. */
static void delete_models(void) {
  LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod);
  while (fn) {
    LLVMValueRef next = LLVMGetNextFunction(fn);
    if (!strncmp(kn_function_name(fn), "kinase.model.", 13) && !LLVMGetFirstUse(fn))
      LLVMDeleteFunction(fn);
    fn = next;
  }
}

/* The helpers generated code calls (kinase.tape.push, ...) are built once a
 * module, outside any derivative the cache verifies: a mistake there would
 * reach codegen as invalid IR. */
static void verify_helpers(void) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn) && !strncmp(kn_function_name(fn), "kinase.", 7) &&
        LLVMVerifyFunction(fn, LLVMPrintMessageAction))
      kn_die("generated helper '%s' is not valid IR", kn_function_name(fn));
}

static void set_module(LLVMModuleRef mod) {
  kn_module.mod = mod;
  kn_module.ctx = LLVMGetModuleContext(mod);
  kn_module.layout = LLVMGetModuleDataLayout(mod);
  kn_module.gpu = !strncmp(LLVMGetTarget(mod), "nvptx", 5);
}

int kn_run_on_module(LLVMModuleRef mod) {
  set_module(mod);
  registry_read();
  lower_virtualreverse();
  Request *requests = find_requests();
  /* Each round inlines one level of templates (enzyme::autodiff calls
   * detail::request); a few suffice, more would be a cycle. */
  for (int round = 0; round < 8 && inline_holders(requests); round++) {
    arrfree(requests);
    requests = find_requests();
  }
  refuse_unsupported_hooks(requests);
  refuse_address_taken();
  for (ptrdiff_t i = 0; i < arrlen(requests); i++)
    abi_lower_request(requests[i].call, requests[i].kind);
  abi_drop_unused_markers();
  derive_drain();
  abi_size_tape_slots();
  if (kn_module.gpu) {
    globals_for_launches();
    cuda_emit_kernel_derivatives();
    cuda_arena_clear_in_kernels();
    cuda_native_pair_atomics();
  } else {
    cuda_release_after_requests(abi_reverse_sweeps(), (size_t)arrlen(abi_reverse_sweeps()));
  }
  globals_emit_clears();
  iter_lower();
  derive_reset();
  registry_reset();
  globals_reset();
  abi_reset();
  delete_models();
  verify_helpers();
  if (kn_module.gpu)
    libdevice_link_missing();
  bool changed = arrlen(requests) > 0 || kn_module.gpu;
  arrfree(requests);
  return changed;
}
