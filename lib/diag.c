/* User-facing errors: what the user wrote that Kinase cannot differentiate.
 * They go through LLVMContext::diagnose (plugin.cpp), so clang prints them
 * with the source location and fails the compilation. */
#include "kinase.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void kn_report_error(LLVMValueRef function, LLVMMetadataRef location, const char *message);

static int error_count;

int kn_error_count(void) { return error_count; }

void kn_error(LLVMValueRef where, LLVMValueRef subject, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);

  LLVMMetadataRef location = NULL;
  LLVMValueRef function = subject;
  if (where && LLVMIsAInstruction(where)) {
    location = LLVMInstructionGetDebugLoc(where);
    if (!function)
      function = LLVMGetBasicBlockParent(LLVMGetInstructionParent(where));
  }
  char *message =
      subject ? kn_strdup_printf("kinase: cannot differentiate '%s': %s%s", kn_function_name(subject),
                                 what, location ? "" : " (compile with -g for the source line)")
              : kn_strdup_printf("kinase: in function '%s': %s", kn_function_name(function), what);
  error_count++;
  kn_report_error(function, location, message);
  free(message);
}
