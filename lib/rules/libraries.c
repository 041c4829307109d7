/* Calls into host libraries that Kinase refuses (rules/libraries.def), by
 * the callee's demangled name. */
#include "kinase.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

static const struct {
  const char *ns, *first, *why;
} libraries[] = {
#define LIBRARY(ns, first, why) {ns, first, why},
#include "libraries.def"
#undef LIBRARY
};

/* A library's versioned inline namespace: capitals, digits and
 * underscores, a digit among them (CUB_300001_SM_900). */
static size_t versioned_namespace(const char *s) {
  size_t n = 0;
  bool digit = false;
  while (isupper((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '_')
    digit |= isdigit((unsigned char)s[n++]) != 0;
  return digit && !strncmp(s + n, "::", 2) ? n + 2 : 0;
}

/* Whether `name` (demangled; a template's starts with its return type) is
 * in namespace `ns`, its next component starting with `first`. */
static bool in_library(const char *name, const char *ns, const char *first) {
  size_t len = strlen(ns), before = strcspn(name, "(<");
  for (const char *at = strstr(name, ns); at && (size_t)(at - name) < before; at = strstr(at + 1, ns)) {
    if ((at != name && at[-1] != ' ') || strncmp(at + len, "::", 2))
      continue;
    const char *rest = at + len + 2;
    rest += versioned_namespace(rest);
    return !strncmp(rest, first, strlen(first));
  }
  return false;
}

bool library_call_refused(LLVMValueRef call, LLVMValueRef subject) {
  LLVMValueRef callee = kn_called_function(call);
  const char *mangled = callee ? kn_function_name(callee) : "";
  if (kn_module.gpu || strncmp(mangled, "_Z", 2))
    return false;
  int status = -1;
  char *name = __cxa_demangle(mangled, NULL, NULL, &status);
  bool refused = false;
  for (size_t k = 0; status == 0 && name && !refused && k < sizeof libraries / sizeof *libraries; k++)
    if (in_library(name, libraries[k].ns, libraries[k].first)) {
      kn_error(call, subject, "it calls '%s': %s", mangled, libraries[k].why);
      refused = true;
    }
  free(name);
  return refused;
}
