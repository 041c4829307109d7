/* Differentiated kernel launches: the forward sweep (__kinase_launch_augment
 * launches K and records the launch), the reverse sweep
 * (__kinase_launch_reverse launches __kinase_krev_PAT_NAME) and forward mode
 * (__kinase_launch_tangent launches __kinase_kfwd_PAT_NAME), each with the
 * launch's grid, block, shared memory and stream. A derivative kernel takes
 * every parameter of K followed, for a pointer, by its shadow and, for a
 * float, by its adjoint's accumulator (reverse) or its tangent (forward). */
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

static size_t aligned16(size_t bytes) { return (bytes + 15) & ~(size_t)15; }

static uint32_t param_bytes(const KinaseKernel *k, uint32_t i) {
  return k->params[i] & KINASE_PARAM_SIZE;
}

/* Launches f with config, whose dynamic shared memory may be `shmem`
 * instead (a derivative kernel's, derivative_shmem). */
static void launch(CUfunction f, const CUlaunchConfig *config, size_t shmem, void **params,
                   const char *where) {
  CUlaunchConfig c = *config;
  c.sharedMemBytes = (unsigned)shmem;
  CHECK(where, cuLaunchKernelEx, &c, f, params, NULL);
}

CUlaunchConfig kinase_rt_config(const uint32_t grid[3], const uint32_t block[3], size_t shmem,
                                void *stream) {
  return (CUlaunchConfig){.gridDimX = grid[0], .gridDimY = grid[1], .gridDimZ = grid[2],
                          .blockDimX = block[0], .blockDimY = block[1], .blockDimZ = block[2],
                          .sharedMemBytes = (unsigned)shmem, .hStream = (CUstream)stream};
}

/* The dynamic shared memory of a derivative kernel of k: twice the launch's
 * when k uses extern __shared__, whose shadow is the second half
 * (kinase_cuda.h). Beyond 48 KB a kernel must ask for it. */
static size_t derivative_shmem(const KinaseKernel *k, CUfunction f, size_t shmem, const char *where) {
  if (!(k->flags & KINASE_KERNEL_DYNAMIC_SHARED))
    return shmem;
  size_t doubled = 2 * aligned16(shmem);
  if (doubled > 48 * 1024)
    CHECK(where, cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)doubled);
  return doubled;
}

/* The parameters of a derivative kernel of k: values[i] for each parameter,
 * followed by extra[i] for a pointer, float or struct parameter, and for a
 * struct in a reverse kernel by accumulators[i]; then, for a reverse
 * kernel, `arena` (it points to the arena's pointer). */
static void **derivative_params(const KinaseKernel *k, void **values, void **extra,
                                void **accumulators, void **arena, const char *where) {
  void **params = kinase_rt_alloc((3 * k->nparams + 1) * sizeof *params, where);
  size_t n = 0;
  for (uint32_t i = 0; i < k->nparams; i++) {
    params[n++] = values[i];
    if (k->params[i] & (KINASE_PARAM_POINTER | KINASE_PARAM_FLOAT | KINASE_PARAM_STRUCT))
      params[n++] = extra[i];
    if ((k->params[i] & KINASE_PARAM_STRUCT) && accumulators)
      params[n++] = accumulators[i];
  }
  if (arena)
    params[n++] = arena;
  return params;
}

/* The forward sweep may skip K when nothing it writes is needed: every
 * WRITTEN parameter is dupnoneed ('n'), and it writes no other memory. */
static bool skippable(const KinaseKernel *k, const char *modes) {
  if (k->flags & KINASE_KERNEL_WRITES_OTHER)
    return false;
  for (uint32_t i = 0; i < k->nparams; i++)
    if ((k->params[i] & KINASE_PARAM_WRITTEN) && modes[i] != 'n')
      return false;
  return true;
}

/* Whether a reverse kernel of k only adds into the shadow of pointer
 * parameter i: one read-only and private to each thread (its 'd', given a
 * scratch shadow where Const, whose sums nobody reads). */
static bool only_added_into(const KinaseKernel *k, uint32_t i) {
  return (k->params[i] & KINASE_PARAM_OWNED) && !(k->params[i] & KINASE_PARAM_WRITTEN);
}

/* What the reverse sweep needs, copied: the caller's argument slots may be
 * gone by then. One block holds the values, the shadows, the argument bytes
 * (each 16-byte aligned), the attributes the reverse launch keeps and the
 * modes. */
static KinaseLaunch *record(const KinaseKernel *k, CUfunction reverse, const CUlaunchConfig *config,
                            void **args, void **shadows, const char *modes, const char *where) {
  uint32_t n = k->nparams;
  size_t head = aligned16(3 * n * sizeof(void *)), bytes = 0;
  for (uint32_t i = 0; i < n; i++)
    bytes += aligned16(param_bytes(k, i));
  size_t attributes = aligned16(config->numAttrs * sizeof(CUlaunchAttribute));
  KinaseLaunch *l = kinase_rt_alloc(sizeof *l, where);
  char *data = kinase_rt_alloc(head + bytes + attributes + n + 1, where);
  cudaStream_t stream = (cudaStream_t)config->hStream;
  *l = (KinaseLaunch){.kernel = k, .reverse = reverse, .config = *config, .stream = stream,
                      .where = where, .values = (void **)data};
  l->config.attrs = (CUlaunchAttribute *)(data + head + bytes);
  l->config.numAttrs =
      kinase_rt_derivative_attributes(config->attrs, config->numAttrs, l->config.attrs);
  l->shadows = l->values + n;
  l->scratch = l->values + 2 * n;
  l->modes = memcpy(data + head + bytes + attributes, modes, n + 1);
  char *value = data + head;
  for (uint32_t i = 0; i < n; i++) {
    l->values[i] = memcpy(value, args[i], param_bytes(k, i));
    value += aligned16(param_bytes(k, i));
    l->shadows[i] = l->scratch[i] = NULL;
    if (k->params[i] & KINASE_PARAM_STRUCT)
      l->scratch[i] = kinase_rt_struct_shadow(k, i, args[i], modes[i] == 'd' && shadows ? shadows[i] : NULL,
                                              stream, where);
    if (!(k->params[i] & KINASE_PARAM_POINTER))
      continue;
    if (kinase_rt_shadow_used(modes, shadows, i))
      l->shadows[i] = *(void *const *)shadows[i];
    else if (kinase_rt_pattern_letter(k, "krev", modes, shadows, i) != 'c')
      l->shadows[i] = kinase_rt_scratch_shadow(k, i, *(void *const *)args[i], !only_added_into(k, i),
                                               stream, &l->scratch[i], where);
  }
  return l;
}

KinaseLaunch *__kinase_launch_augment(const void *kernel, const uint32_t grid[3],
                                      const uint32_t block[3], size_t shmem, void *stream,
                                      void **args, void **shadows, const char *modes,
                                      const char *where) {
  CUlaunchConfig config = kinase_rt_config(grid, block, shmem, stream);
  return kinase_rt_launch_augment(kinase_rt_kernel(kernel, where), &config, args, shadows, modes,
                                  where);
}

KinaseLaunch *kinase_rt_launch_augment(const KinaseKernel *k, const CUlaunchConfig *config,
                                       void **args, void **shadows, const char *modes,
                                       const char *where) {
  CUfunction reverse = kinase_rt_derivative(k, "krev", modes, shadows, where);
  KinaseLaunch *l = record(k, reverse, config, args, shadows, modes, where);
  /* Before K runs: a reverse kernel that cannot fit stops the program here. */
  if (kinase_rt_is_cooperative(&l->config))
    kinase_rt_check_cooperative(k, reverse, "reverse", &l->config,
                                derivative_shmem(k, reverse, config->sharedMemBytes, where), where);
  kinase_rt_learn_types(k, args, l->shadows, where);
  kinase_rt_fill_tables(k, l->shadows, l->stream, where);
  kinase_rt_pending_add(l, args);
  /* Even when K is skipped: its reverse kernel re-runs K's writes. */
  kinase_rt_protect_writes(k, args, l->stream, where);
  if (!skippable(k, modes))
    launch(k->function, config, config->sharedMemBytes, args, where);
  return l;
}

/* A scratch shadow of parameter i, or the shadow struct of a struct
 * parameter, freed (NULL: none). */
static void free_scratch(const KinaseKernel *k, uint32_t i, void *scratch, cudaStream_t stream,
                         const char *where) {
  if (scratch && (k->params[i] & KINASE_PARAM_STRUCT))
    kinase_rt_struct_shadow_free(scratch, stream, where);
  else if (scratch)
    CHECK(where, cudaFreeAsync, scratch, stream);
}

/* An active float parameter whose adjoint the caller wants. */
static bool adjoint_wanted(const KinaseLaunch *l, void **adjoints, uint32_t i) {
  return (l->kernel->params[i] & KINASE_PARAM_FLOAT) && l->modes[i] == 'o' && adjoints &&
         adjoints[i];
}

/* What record() and the forward sweep allocated for the reverse sweep: the
 * scratch shadows, the snapshots, the record. */
static void free_record(KinaseLaunch *l) {
  for (uint32_t i = 0; i < l->kernel->nparams; i++)
    free_scratch(l->kernel, i, l->scratch[i], l->stream, l->where);
  kinase_rt_snapshots_free(l);
  free(l->values);
  free(l);
}

void __kinase_launch_reverse(KinaseLaunch *l, void **adjoints) {
  const KinaseKernel *k = l->kernel;
  const char *where = l->where;
  uint32_t n = k->nparams, wanted = 0;
  kinase_rt_pending_remove(l);

  /* One device accumulator of 8 bytes per adjoint wanted, zeroed. */
  for (uint32_t i = 0; i < n; i++)
    wanted += adjoint_wanted(l, adjoints, i);
  void *accumulators = NULL;
  if (wanted) {
    accumulators = kinase_rt_alloc_async(8 * wanted, l->stream, where);
    CHECK(where, cudaMemsetAsync, accumulators, 0, 8 * wanted, l->stream);
  }

  /* slots[i]: the primal pointer (into a snapshot where there is one), or
   * the accumulator of a float parameter or of a struct's float fields. */
  void **slots = kinase_rt_alloc(4 * n * sizeof *slots, where);
  void **values = slots + n, **extra = slots + 2 * n, **fields = slots + 3 * n;
  uint32_t next = 0;
  for (uint32_t i = 0; i < n; i++) {
    values[i] = l->values[i];
    if (k->params[i] & KINASE_PARAM_POINTER) {
      slots[i] = kinase_rt_snapshot_pointer(l, *(void **)l->values[i]);
      values[i] = &slots[i];
      extra[i] = &l->shadows[i];
    } else if (k->params[i] & KINASE_PARAM_FLOAT) {
      slots[i] = adjoint_wanted(l, adjoints, i) ? (char *)accumulators + 8 * next++ : NULL;
      extra[i] = &slots[i];
    } else if (k->params[i] & KINASE_PARAM_STRUCT) {
      kinase_rt_snapshot_struct(l, i, l->values[i]);
      extra[i] = kinase_rt_struct_shadow_bytes(l->scratch[i]);
      slots[i] = adjoints && adjoints[i]
                     ? kinase_rt_struct_accumulator(k, i, adjoints[i], l->stream, where)
                     : NULL;
      fields[i] = &slots[i];
    }
  }
  void *arena = NULL;
  void **params = derivative_params(k, values, extra, fields, &arena, where);
  size_t shmem = derivative_shmem(k, l->reverse, l->config.sharedMemBytes, where);
  kinase_rt_reverse_begin(l->stream, where);
  if (k->flags & KINASE_KERNEL_TAPE_ARENA) {
    arena = kinase_rt_arena_counting(l->stream, where);
    launch(l->reverse, &l->config, shmem, params, where);
    arena = kinase_rt_arena_sized(arena, l->stream, where);
  }
  launch(l->reverse, &l->config, shmem, params, where);
  kinase_rt_arena_free(arena, l->stream, where);
  kinase_rt_reverse_end(l->stream, where);
  free(params);
  /* The reverse sweep of host code may read adjoints the kernel wrote into
   * managed or host memory in place, with no copy to wait on (the forward
   * sweep's cudaDeviceSynchronize came after the launch, and so comes
   * before it here): it waits for them now. */
  bool host_visible = false;
  for (uint32_t i = 0; i < n && !host_visible; i++)
    host_visible = l->shadows[i] && kinase_rt_host_visible(l->shadows[i]);
  if (host_visible)
    CHECK(where, cudaStreamSynchronize, l->stream);

  if (wanted) {
    char *sums = kinase_rt_alloc(8 * wanted, where);
    CHECK(where, cudaMemcpyAsync, sums, accumulators, 8 * wanted, cudaMemcpyDeviceToHost,
          l->stream);
    CHECK(where, cudaStreamSynchronize, l->stream);
    for (uint32_t i = 0, j = 0; i < n; i++)
      if (adjoint_wanted(l, adjoints, i))
        memcpy(adjoints[i], sums + 8 * j++, param_bytes(k, i));
    free(sums);
    CHECK(where, cudaFreeAsync, accumulators, l->stream);
  }
  for (uint32_t i = 0; i < n; i++)
    if ((k->params[i] & KINASE_PARAM_STRUCT) && slots[i])
      kinase_rt_struct_accumulated(k, i, slots[i], adjoints[i], l->stream, where);
  free(slots);
  free_record(l);
}

void __kinase_launch_discard(KinaseLaunch *l) {
  kinase_rt_pending_remove(l);
  free_record(l);
}

void __kinase_launch_tangent(const void *kernel, const uint32_t grid[3], const uint32_t block[3],
                             size_t shmem, void *stream, void **args, void **tangents,
                             const char *modes, const char *where) {
  CUlaunchConfig config = kinase_rt_config(grid, block, shmem, stream);
  kinase_rt_launch_tangent(kinase_rt_kernel(kernel, where), &config, args, tangents, modes, where);
}

void kinase_rt_launch_tangent(const KinaseKernel *k, const CUlaunchConfig *config, void **args,
                              void **tangents, const char *modes, const char *where) {
  /* The slot of a shadow not used (NULL) or of a float not active (zero). */
  static const uint64_t zero[2];
  CUfunction forward = kinase_rt_derivative(k, "kfwd", modes, tangents, where);
  cudaStream_t stream = (cudaStream_t)config->hStream;
  CUlaunchConfig derivative = *config;
  derivative.attrs = kinase_rt_alloc((config->numAttrs + 1) * sizeof *derivative.attrs, where);
  derivative.numAttrs =
      kinase_rt_derivative_attributes(config->attrs, config->numAttrs, derivative.attrs);
  uint32_t n = k->nparams;
  void **extra = kinase_rt_alloc(3 * n * sizeof *extra, where);
  void **scratch = extra + n, **shadow_values = extra + 2 * n;
  for (uint32_t i = 0; i < n; i++) {
    if (k->params[i] & KINASE_PARAM_STRUCT) {
      shadow_values[i] = NULL;
      scratch[i] = kinase_rt_struct_shadow(k, i, args[i], modes[i] == 'd' && tangents ? tangents[i] : NULL,
                                           stream, where);
      extra[i] = kinase_rt_struct_shadow_bytes(scratch[i]);
      continue;
    }
    bool pointer = k->params[i] & KINASE_PARAM_POINTER;
    bool given = pointer ? kinase_rt_shadow_used(modes, tangents, i)
                         : modes[i] == 'o' && tangents && tangents[i];
    extra[i] = given ? tangents[i] : (void *)zero;
    scratch[i] = shadow_values[i] = NULL;
    if (pointer && given)
      shadow_values[i] = *(void *const *)tangents[i];
    if (pointer && !given && kinase_rt_pattern_letter(k, "kfwd", modes, tangents, i) == 'd') {
      shadow_values[i] = kinase_rt_scratch_shadow(k, i, *(void *const *)args[i], true, stream,
                                                  &scratch[i], where);
      extra[i] = &shadow_values[i];
    }
  }
  kinase_rt_learn_types(k, args, shadow_values, where);
  void **params = derivative_params(k, args, extra, NULL, NULL, where);
  kinase_rt_protect_writes(k, args, stream, where);
  size_t shmem = derivative_shmem(k, forward, config->sharedMemBytes, where);
  kinase_rt_check_cooperative(k, forward, "forward", &derivative, shmem, where);
  launch(forward, &derivative, shmem, params, where);
  for (uint32_t i = 0; i < n; i++)
    free_scratch(k, i, scratch[i], stream, where);
  free(derivative.attrs);
  free(params);
  free(extra);
}
