/* Enzyme's registration globals, read once per module:
 *   void *__enzyme_register_gradient_f[3] = {f, augmented_f, reverse_f};
 *     (Kinase also takes a fourth, free_tape_f(tape), called in place of
 *     reverse_f when an exception unwinds past the augmented pass)
 *   void *__enzyme_register_derivative_f[2] = {f, tangent_f};
 *   void *__enzyme_inactivefn[] = {f, ...};
 *   void *__enzyme_function_like[2] = {f, "log1p"};
 *   void *__enzyme_inactive_global[] = {&g, ...};
 *   void *__enzyme_allocation_like[4] = {alloc, (void *)SIZE_ARG, "FREE_ARGS", free_fn};
 * (any suffix after these names; arrays or structs of pointers), and
 * Enzyme's attributes (the table `attributes` below), which clang does not
 * know: kinase-cc and kinase.h define each as a macro making it an
 * annotation, which clang puts in llvm.global.annotations. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

static struct { LLVMValueRef key; Registration value; } *registrations;
static ValueSet inactive_globals;
static ValueMap user_shadows; /* global -> the global enzyme_shadow names */

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

/* An index written as a pointer: (void *)1 is inttoptr (i64 1), (void *)0 null. */
static bool index_of(LLVMValueRef v, long long *index) {
  if (LLVMIsNull(v)) {
    *index = 0;
    return true;
  }
  if (!LLVMIsAConstantExpr(v) || LLVMGetConstOpcode(v) != LLVMIntToPtr ||
      !LLVMIsAConstantInt(LLVMGetOperand(v, 0)))
    return false;
  *index = LLVMConstIntGetSExtValue(LLVMGetOperand(v, 0));
  return true;
}

static bool is_size_param(LLVMValueRef alloc, long long index) {
  return index >= 0 && index < LLVMCountParams(alloc) &&
         LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(alloc, (unsigned)index))) == LLVMIntegerTypeKind &&
         LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(alloc))) == LLVMPointerTypeKind;
}

/* FREE_ARGS names, for each parameter of the free function, the allocator's
 * argument passed there, or -1 for the allocated pointer: "2,-1" is
 * free_fn(arg2, p). The parameter taking the pointer, or -1 when the list
 * does not fit the two functions. */
static int freed_pointer_param(const char *list, LLVMValueRef alloc, LLVMValueRef dealloc) {
  long nalloc = LLVMCountParams(alloc);
  int pointer = -1;
  unsigned count = 0;
  for (const char *s = list;; s++, count++) {
    char *end;
    long k = strtol(s, &end, 10);
    if (end == s || k < -1 || k >= nalloc || (k == -1 && pointer >= 0))
      return -1;
    if (k == -1)
      pointer = (int)count;
    s = end;
    if (*s != ',')
      return *s || count + 1 != LLVMCountParams(dealloc) || pointer < 0 ||
                     !kn_is_pointer_type(LLVMTypeOf(LLVMGetParam(dealloc, (unsigned)pointer)))
                 ? -1
                 : pointer;
  }
}

static void set_memory_rule(LLVMValueRef fn, RuleKind kind, unsigned arg) {
  Registration *r = entry_for(fn);
  free(r->memory);
  r->memory = malloc(sizeof *r->memory);
  *r->memory = (Rule){.name = kn_function_name(fn), .kind = kind, .arg = arg, .foreign = true};
}

/* The allocator returns fresh memory of the size its argument SIZE_ARG says;
 * the free function frees it. */
static void read_allocation_like(LLVMValueRef global, LLVMValueRef init, unsigned n) {
  const char *free_args = n == 4 ? string_of(element(init, 2)) : NULL;
  if (!free_args || !LLVMIsAFunction(element(init, 0)) || !LLVMIsAFunction(element(init, 3)))
    return bad_registration(global, "must hold four elements: the allocator, the index of its size "
                                    "argument, the free function's arguments as a string (\"2,-1\") "
                                    "and the free function");
  LLVMValueRef alloc = element(init, 0), dealloc = element(init, 3);
  long long size_arg;
  if (!index_of(element(init, 1), &size_arg) || !is_size_param(alloc, size_arg))
    return bad_registration(global, "must give as its second element the index of the allocator's "
                                    "integer size argument (and the allocator must return a pointer)");
  int pointer = freed_pointer_param(free_args, alloc, dealloc);
  if (pointer < 0)
    return bad_registration(global, "must list, for each parameter of the free function, the index "
                                    "of the allocator's argument passed there, or -1 (once) for the "
                                    "allocated pointer");
  set_memory_rule(alloc, RULE_ALLOC, (unsigned)size_arg);
  set_memory_rule(dealloc, RULE_FREE, (unsigned)pointer);
}

/* `fn` is to be differentiated as the library function `like` (a math
 * function, or one no derivative flows through): NULL, or why not. */
static char *set_like(LLVMValueRef fn, const char *like) {
  const Rule *rule = rule_for_name(like);
  if (!rule)
    return kn_strdup_printf("names '%s', which has no derivative rule", like);
  if (rule->kind != RULE_MATH && rule->kind != RULE_INACTIVE)
    return kn_strdup_printf("names '%s', which is not a math function: a function is "
                            "differentiated like a math function, or like one through which no "
                            "derivative flows (printf)", like);
  LLVMTypeRef type = LLVMGlobalGetValueType(fn);
  bool fits = rule->kind == RULE_INACTIVE ||
              (kn_is_float_type(LLVMGetReturnType(type)) && LLVMCountParamTypes(type) == rule->arg);
  for (unsigned i = 0; fits && rule->kind == RULE_MATH && i < rule->arg; i++)
    fits = kn_is_float_type(LLVMTypeOf(LLVMGetParam(fn, i)));
  if (!fits)
    return kn_strdup_printf("names '%s', but '%s' does not take %u floating-point parameter%s and "
                            "return a floating-point value, which the derivative of '%s' needs",
                            like, kn_function_name(fn), rule->arg, rule->arg == 1 ? "" : "s", like);
  entry_for(fn)->like = like;
  return NULL;
}

static void read_global(LLVMValueRef global) {
  const char *name = kn_value_name(global);
  LLVMValueRef init = LLVMGetInitializer(global);
  if (!strstr(name, "__enzyme_") || !init)
    return;
  unsigned n = element_count(init);
  if (strstr(name, "__enzyme_register_gradient")) {
    if ((n != 3 && n != 4) || !all_functions(init, n))
      return bad_registration(global, "must hold three functions: the function, its augmented "
                                      "forward pass and its reverse pass (and, for Kinase, a "
                                      "fourth that frees the tape when an exception skips the "
                                      "reverse pass)");
    Registration *r = entry_for(element(init, 0));
    r->augmented = element(init, 1);
    r->reverse = element(init, 2);
    r->release_tape = n == 4 ? element(init, 3) : NULL;
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
    char *why = set_like(element(init, 0), like);
    if (why)
      bad_registration(global, why);
    free(why);
  } else if (strstr(name, "__enzyme_allocation_like")) {
    read_allocation_like(global, init, n);
  } else if (strstr(name, "__enzyme_inactive_global")) {
    LLVMValueRef single = kn_strip_casts(init);
    if (LLVMIsAGlobalVariable(single))
      vset_add(&inactive_globals, single);
    for (unsigned i = 0; i < n; i++)
      if (element(init, i) && LLVMIsAGlobalVariable(element(init, i)))
        vset_add(&inactive_globals, element(init, i));
  }
}

/* Enzyme's attributes. On a global only enzyme_inactive and its noblock
 * form do something; the hints enzyme_nofree (Kinase never asks whether a
 * function frees memory) and enzyme_shouldrecompute are accepted there too. */
typedef enum { SETS_INACTIVE, SETS_LIKE, SETS_NOTHING, SETS_RECOMPUTE, SETS_ELEMENTWISE_READ,
               SETS_SPARSE_ACCUMULATE, SETS_SHADOW } Effect;
typedef enum { TAKES_NOTHING, TAKES_NAME, TAKES_GLOBAL } Argument;

static const struct {
  const char *name;
  bool on_globals; /* also on global variables, not only on functions */
  Argument takes;  /* a string: enzyme_function_like("log1p"); a global: enzyme_shadow(g) */
  Effect effect;
} attributes[] = {
    {"enzyme_inactive", true, TAKES_NOTHING, SETS_INACTIVE},
    {"enzyme_inactive_noblock", true, TAKES_NOTHING, SETS_INACTIVE},
    {"enzyme_function_like", false, TAKES_NAME, SETS_LIKE},
    {"enzyme_nofree", true, TAKES_NOTHING, SETS_NOTHING},
    {"enzyme_shouldrecompute", true, TAKES_NOTHING, SETS_RECOMPUTE},
    {"enzyme_elementwise_read", false, TAKES_NOTHING, SETS_ELEMENTWISE_READ},
    {"enzyme_sparse_accumulate", false, TAKES_NOTHING, SETS_SPARSE_ACCUMULATE},
    {"enzyme_shadow", true, TAKES_GLOBAL, SETS_SHADOW},
};

/* A global variable's shadow, named by the user: the same type, another
 * variable. NULL, or why it cannot be. */
static char *set_user_shadow(LLVMValueRef global, LLVMValueRef shadow) {
  if (!LLVMIsAGlobalVariable(global))
    return kn_strdup_printf("applies to global variables only");
  if (!shadow || !LLVMIsAGlobalVariable(shadow) || shadow == global ||
      LLVMGlobalGetValueType(shadow) != LLVMGlobalGetValueType(global))
    return kn_strdup_printf("needs another global variable of the same type: enzyme_shadow(g_shadow)");
  vmap_put(&user_shadows, global, shadow);
  return NULL;
}

/* Applies attribute `a` with its argument (a string `arg`, or a constant
 * `value`, or neither) to `target`: NULL, or why it does not apply. */
static char *apply_attribute(size_t a, LLVMValueRef target, const char *arg, LLVMValueRef value) {
  bool function = LLVMIsAFunction(target), global = LLVMIsAGlobalVariable(target);
  if (attributes[a].effect == SETS_SHADOW)
    return set_user_shadow(target, value);
  if (!function && !(global && attributes[a].on_globals))
    return kn_strdup_printf("applies to functions%s only", attributes[a].on_globals ? " and globals" : "");
  if (!function) {
    if (attributes[a].effect == SETS_INACTIVE)
      vset_add(&inactive_globals, target);
    return NULL;
  }
  Registration *r = entry_for(target);
  switch (attributes[a].effect) {
  case SETS_INACTIVE: r->inactive = true; break;
  case SETS_LIKE: return set_like(target, arg);
  case SETS_NOTHING: break;
  case SETS_RECOMPUTE: r->recompute = true; break;
  case SETS_ELEMENTWISE_READ: r->elementwise_read = true; break;
  case SETS_SPARSE_ACCUMULATE: r->sparse_accumulate = true; break;
  case SETS_SHADOW: break;
  }
  return NULL;
}

/* llvm.global.annotations: {annotated value, annotation string, file, line,
 * arguments} for each annotation; the arguments (annotate("name", "log1p"))
 * are a constant struct in a global of their own, or null. */
static void read_annotations(LLVMValueRef annotations) {
  LLVMValueRef init = LLVMGetInitializer(annotations);
  for (unsigned i = 0, n = init ? element_count(init) : 0; i < n; i++) {
    LLVMValueRef entry = LLVMGetAggregateElement(init, i);
    const char *what = entry ? string_of(element(entry, 1)) : NULL;
    size_t a = 0, count = sizeof attributes / sizeof *attributes;
    while (what && a < count && strcmp(what, attributes[a].name))
      a++;
    if (!what || a == count)
      continue;
    LLVMValueRef target = element(entry, 0), args = element(entry, 4);
    args = args && LLVMIsAGlobalVariable(args) ? LLVMGetInitializer(args) : NULL;
    unsigned nargs = args ? element_count(args) : 0;
    LLVMValueRef value = nargs == 1 ? element(args, 0) : NULL;
    const char *arg = string_of(value);
    Argument takes = attributes[a].takes;
    char *why = takes == TAKES_NAME && !arg
                    ? kn_strdup_printf("needs the name of a library function: %s(\"log1p\")", what)
                : takes == TAKES_NOTHING && nargs ? kn_strdup_printf("takes no arguments")
                                                   : apply_attribute(a, target, arg, value);
    if (why) {
      LLVMValueRef line = element(entry, 3);
      const char *file = string_of(element(entry, 2));
      kn_error(NULL, NULL, "%s:%llu: %s on '%s' %s", file ? file : "?",
               line && LLVMIsAConstantInt(line) ? LLVMConstIntGetZExtValue(line) : 0ULL, what,
               kn_value_name(target), why);
      free(why);
    }
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
  for (ptrdiff_t i = 0; i < hmlen(registrations); i++)
    free(registrations[i].value.memory);
  hmfree(registrations);
  vset_free(&inactive_globals);
  vmap_free(&user_shadows);
}

const Registration *registry_of(LLVMValueRef fn) {
  ptrdiff_t i = fn ? hmgeti(registrations, fn) : -1;
  return i < 0 ? NULL : &registrations[i].value;
}

bool registry_inactive_global(LLVMValueRef global) { return vset_has(&inactive_globals, global); }

void registry_set_inactive(LLVMValueRef fn) { entry_for(fn)->inactive = true; }

LLVMValueRef registry_user_shadow(LLVMValueRef global) { return vmap_get(&user_shadows, global); }

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
