/* Which derivative kernel fits a launch: the letters of its PAT and its
 * name (kinase_cuda.h says which patterns the device module holds). No
 * CUDA call here, so that the choice is tested without a GPU
 * (test/runtime/derivative-names.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

bool kinase_rt_shadow_used(const char *modes, void **shadows, uint32_t i) {
  return (modes[i] == 'd' || modes[i] == 'n') && shadows && shadows[i] &&
         *(void *const *)shadows[i];
}

/* A read-only float pointer that threads share: 'd' or 'c' as launched. */
static bool shared_read_only(const KinaseKernel *k, uint32_t i) {
  uint32_t p = k->params[i];
  return (p & KINASE_PARAM_POINTER) &&
         !(p & (KINASE_PARAM_NO_FLOATS | KINASE_PARAM_WRITTEN | KINASE_PARAM_OWNED));
}

/* A kernel with more such pointers than KINASE_ALL_PATTERNS_UP_TO has
 * them all 'd' or all 'c'. */
static bool all_shared_used(const KinaseKernel *k, const char *modes, void **shadows) {
  uint32_t count = 0;
  bool any = false;
  for (uint32_t i = 0; i < k->nparams; i++)
    if (shared_read_only(k, i)) {
      count++;
      any |= kinase_rt_shadow_used(modes, shadows, i);
    }
  return count > KINASE_ALL_PATTERNS_UP_TO && any;
}

char kinase_rt_pattern_letter(const KinaseKernel *k, const char *kind, const char *modes, void **shadows,
                              uint32_t i) {
  uint32_t p = k->params[i];
  if (p & KINASE_PARAM_NO_FLOATS)
    return 'c';
  if (!strcmp(kind, "kfwd"))
    return 'd';
  if (p & KINASE_PARAM_WRITTEN)
    return k->flags & KINASE_KERNEL_WRITES_OTHER ? 'd' : 'n';
  if (p & KINASE_PARAM_OWNED)
    return 'd';
  return kinase_rt_shadow_used(modes, shadows, i) || all_shared_used(k, modes, shadows) ? 'd' : 'c';
}

char *kinase_rt_derivative_name(const KinaseKernel *k, const char *kind, const char *modes,
                                void **shadows) {
  size_t bytes = strlen("__kinase__") + strlen(kind) + k->nparams + 1 + strlen(k->name) + 1;
  char *name = malloc(bytes);
  if (!name)
    return NULL;
  size_t at = (size_t)snprintf(name, bytes, "__kinase_%s_", kind);
  for (uint32_t i = 0; i < k->nparams; i++)
    if (k->params[i] & KINASE_PARAM_POINTER)
      name[at++] = kinase_rt_pattern_letter(k, kind, modes, shadows, i);
  snprintf(name + at, bytes - at, "_%s", k->name);
  return name;
}
