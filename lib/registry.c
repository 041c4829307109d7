/* Enzyme's registration globals, read once per module:
 *   void *__enzyme_register_gradient_f[3] = {f, augmented_f, reverse_f};
 *   void *__enzyme_register_derivative_f[2] = {f, tangent_f};
 *   void *__enzyme_inactivefn[] = {f, ...};
 *   void *__enzyme_function_like[2] = {f, "log1p"};
 *   void *__enzyme_inactive_global[] = {&g, ...};
 * (any suffix after these names; arrays or structs of pointers), and
 * Enzyme's attributes __attribute__((enzyme_inactive)) and
 * enzyme_inactive_noblock on functions and globals, which kinase-cc and
 * kinase.h turn into annotations (clang alone does not know them). */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <string.h>

static struct { LLVMValueRef key; Registration value; } *registrations;
static ValueSet inactive_globals;

static LLVMValueRef element(LLVMValueRef init, unsigned i) {
  LLVMValueRef e = LLVMGetAggregateElement(init, i);
  return e ? kn_strip_casts(e) : NULL;
}

static unsigned element_count(LLVMValueRef init) {
  LLVMTypeRef type = LLVMTypeOf(init);
  switch (LLVMGetTypeKind(type)) {
  case LLVMArrayTypeKind:
    return (unsigned)LLVMGetArrayLength2(type);
  case LLVMStructTypeKind:
    return LLVMCountStructElementTypes(type);
  default:
    return 0;
  }
}

static Registration *entry_for(LLVMValueRef fn) {
  ptrdiff_t i = hmgeti(registrations, fn);
  if (i < 0) {
    Registration empty = {0};
    hmput(registrations, fn, empty);
    i = hmgeti(registrations, fn);
  }
  return &registrations[i].value;
}

static bool all_functions(LLVMValueRef init, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (!element(init, i) || !LLVMIsAFunction(element(init, i)))
      return false;
  return n > 0;
}

/* The C string a pointer constant points to, or NULL. */
static const char *string_of(LLVMValueRef v) {
  if (!v || !LLVMIsAGlobalVariable(v) || !LLVMGetInitializer(v))
    return NULL;
  LLVMValueRef init = LLVMGetInitializer(v);
  if (!LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
    return NULL;
  size_t len;
  return LLVMGetAsString(init, &len);
}

static void bad_registration(LLVMValueRef global, const char *what) {
  kn_error(NULL, NULL, "registration '%s' %s", kn_value_name(global), what);
}

static void read_global(LLVMValueRef global) {
  const char *name = kn_value_name(global);
  LLVMValueRef init = LLVMGetInitializer(global);
  if (!strstr(name, "__enzyme_") || !init)
    return;
  unsigned n = element_count(init);
  if (strstr(name, "__enzyme_register_gradient")) {
    if (n != 3 || !all_functions(init, 3))
      return bad_registration(global, "must hold three functions: the function, its augmented "
                                      "forward pass and its reverse pass");
    Registration *r = entry_for(element(init, 0));
    r->augmented = element(init, 1);
    r->reverse = element(init, 2);
  } else if (strstr(name, "__enzyme_register_derivative")) {
    if (n != 2 || !all_functions(init, 2))
      return bad_registration(global, "must hold two functions: the function and its forward "
                                      "derivative");
    entry_for(element(init, 0))->forward = element(init, 1);
  } else if (strstr(name, "__enzyme_inactivefn")) {
    LLVMValueRef single = kn_strip_casts(init);
    if (LLVMIsAFunction(single))
      entry_for(single)->inactive = true;
    for (unsigned i = 0; i < n; i++)
      if (element(init, i) && LLVMIsAFunction(element(init, i)))
        entry_for(element(init, i))->inactive = true;
  } else if (strstr(name, "__enzyme_function_like")) {
    const char *like = n == 2 ? string_of(element(init, 1)) : NULL;
    if (!like || !element(init, 0) || !LLVMIsAFunction(element(init, 0)))
      return bad_registration(global, "must hold a function and the name of a function with a "
                                      "derivative rule");
    entry_for(element(init, 0))->like = like;
  } else if (strstr(name, "__enzyme_inactive_global")) {
    LLVMValueRef single = kn_strip_casts(init);
    if (LLVMIsAGlobalVariable(single))
      vset_add(&inactive_globals, single);
    for (unsigned i = 0; i < n; i++)
      if (element(init, i) && LLVMIsAGlobalVariable(element(init, i)))
        vset_add(&inactive_globals, element(init, i));
  }
}

/* llvm.global.annotations: {annotated value, annotation string, file, line,
 * arguments} for each annotation. */
static void read_annotations(LLVMValueRef annotations) {
  LLVMValueRef init = LLVMGetInitializer(annotations);
  for (unsigned i = 0, n = init ? element_count(init) : 0; i < n; i++) {
    LLVMValueRef entry = LLVMGetAggregateElement(init, i);
    const char *what = entry ? string_of(element(entry, 1)) : NULL;
    if (!what || (strcmp(what, "enzyme_inactive") && strcmp(what, "enzyme_inactive_noblock")))
      continue;
    LLVMValueRef target = element(entry, 0);
    if (LLVMIsAFunction(target))
      entry_for(target)->inactive = true;
    else if (LLVMIsAGlobalVariable(target))
      vset_add(&inactive_globals, target);
  }
}

void registry_read(void) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(kn_module.mod); g; g = LLVMGetNextGlobal(g))
    read_global(g);
  LLVMValueRef annotations = LLVMGetNamedGlobal(kn_module.mod, "llvm.global.annotations");
  if (annotations)
    read_annotations(annotations);
}

void registry_reset(void) {
  hmfree(registrations);
  vset_free(&inactive_globals);
}

const Registration *registry_of(LLVMValueRef fn) {
  ptrdiff_t i = fn ? hmgeti(registrations, fn) : -1;
  return i < 0 ? NULL : &registrations[i].value;
}

bool registry_inactive_global(LLVMValueRef global) { return vset_has(&inactive_globals, global); }

bool registry_check_arity(LLVMValueRef custom, unsigned expected, LLVMValueRef call,
                          LLVMValueRef subject) {
  unsigned n = LLVMCountParams(custom);
  if (n == expected)
    return true;
  kn_error(call, subject, "custom derivative '%s' of '%s' takes %u parameter%s, but this call needs "
                          "%u (each pointer or floating-point argument is followed by its shadow)",
           kn_function_name(custom), kn_function_name(kn_called_function(call)), n, n == 1 ? "" : "s",
           expected);
  return false;
}
