/* Messages of the CUDA runtime: a failed CUDA call, or a launch Kinase cannot
 * differentiate. Each is one line on stderr, then the program exits with
 * status 1:
 *   kinase: <call> failed: <CUDA error string> (derivative of <where>)
 *   kinase: <message> (derivative of <where>)
 * C++ names (kernels, the differentiated function) are demangled. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

/* The C++ runtime's, where the program links it (a CUDA C++ program does;
 * a C program of the driver API may not, and keeps the mangled names). */
extern char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status)
    __attribute__((weak));

char *kinase_rt_demangle(const char *name) {
  int status = -1;
  char *readable = name && !strncmp(name, "_Z", 2) && __cxa_demangle
                       ? __cxa_demangle(name, NULL, NULL, &status)
                       : NULL;
  if (readable && status == 0)
    return readable;
  free(readable);
  size_t n = name ? strlen(name) + 1 : 2;
  char *copy = malloc(n);
  if (copy)
    memcpy(copy, name ? name : "?", n);
  return copy;
}

_Noreturn void kinase_rt_fail(const char *where, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fflush(stdout);
  fputs("kinase: ", stderr);
  vfprintf(stderr, format, ap);
  char *readable = kinase_rt_demangle(where);
  fprintf(stderr, " (derivative of %s)\n", readable ? readable : where);
  va_end(ap);
  exit(1);
}

void __kinase_cuda_check(int status, const char *call, const char *where) {
  if (status != cudaSuccess)
    kinase_rt_fail(where, "%s failed: %s", call, cudaGetErrorString((cudaError_t)status));
}

void kinase_rt_check_cu(CUresult status, const char *call, const char *where) {
  if (status == CUDA_SUCCESS)
    return;
  const char *text = NULL;
  if (cuGetErrorString(status, &text) != CUDA_SUCCESS || !text)
    text = "unknown CUDA driver error";
  kinase_rt_fail(where, "%s failed: %s", call, text);
}

void *kinase_rt_alloc(size_t bytes, const char *where) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p)
    kinase_rt_fail(where, "out of host memory (%zu bytes)", bytes);
  return p;
}

void kinase_rt_reserve(void **array, size_t count, size_t *capacity, size_t size, const char *where) {
  if (count < *capacity)
    return;
  size_t grown = *capacity ? 2 * *capacity : 16;
  void *p = realloc(*array, grown * size);
  if (!p)
    kinase_rt_fail(where, "out of memory");
  *array = p;
  *capacity = grown;
}
