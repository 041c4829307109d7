/* Differentiated launches through an array of argument pointers: the CUDA
 * driver API's cuLaunchKernel(f, grid, block, shmem, stream, kernelParams,
 * NULL) and cuLaunchKernelEx(config, f, kernelParams, NULL), and the runtime
 * API's cudaLaunchKernel(kernel, grid, block, args, shmem, stream) called
 * directly, in a differentiated host function. The compiler knows neither f nor its parameters, so the modes
 * letters that a launch through <<<>>> gets from the compiler are read here
 * from the kernel info of f's module and from the shadow of kernelParams
 * (see kinase_cuda.h): then the launch is one of the runtime API's.
 *
 * The generated code replaces the user's cuLaunchKernel: in the forward
 * sweep this file launches the kernel as the user's call would have (with
 * the same attributes, for cuLaunchKernelEx) and records the launch, or
 * skips it as a launch through <<<>>> is skipped; in forward mode it
 * launches the forward kernel. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

/* One letter per parameter of k: a pointer whose shadow slot holds a
 * non-NULL shadow is 'd', or 'n' where its argument slot is one of
 * `unneeded` (NULL-terminated: slots holding an enzyme_dupnoneed value
 * that the host function uses for nothing but launches); a float with a
 * shadow slot is 'o' (its adjoint is added into the slot, or its tangent
 * read from it); a struct with a shadow slot 'd' (the slot holds the
 * shadow struct); the rest 'c'. Empty for a kernel without kernel info,
 * which kinase_rt_derivative reports. */
static char *modes_of(const KinaseKernel *k, void **params, void **shadows, void **unneeded,
                      const char *where) {
  char *modes = kinase_rt_alloc(k->nparams + 1, where);
  for (uint32_t i = 0; k->params && i < k->nparams; i++) {
    uint32_t p = k->params[i];
    bool slot = shadows && shadows[i];
    modes[i] = 'c';
    if ((p & KINASE_PARAM_POINTER) && slot && *(void *const *)shadows[i]) {
      modes[i] = 'd';
      for (void **u = unneeded; u && *u; u++)
        if (*u == params[i])
          modes[i] = 'n';
    } else if ((p & KINASE_PARAM_FLOAT) && slot) {
      modes[i] = 'o';
    } else if ((p & KINASE_PARAM_STRUCT) && slot) {
      modes[i] = 'd'; /* its slot's shadow is the shadow struct */
    }
  }
  modes[k->nparams] = 0;
  return modes;
}

static CUlaunchConfig configuration(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                    unsigned by, unsigned bz, size_t shmem, void *stream) {
  uint32_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  return kinase_rt_config(grid, block, shmem, stream);
}

/* cuLaunchCooperativeKernel and cudaLaunchCooperativeKernel are launches
 * with this one attribute. */
static CUlaunchAttribute cooperative_attribute = {.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
                                                  .value.cooperative = 1};

static CUlaunchConfig cooperative(CUlaunchConfig config) {
  config.attrs = &cooperative_attribute;
  config.numAttrs = 1;
  return config;
}

/* Launches K (unless skipped: kinase_rt_launch_augment) in place of the
 * user's call, and records the launch. */
static KinaseLaunch *augment(const KinaseKernel *k, const CUlaunchConfig *config, void **params,
                             void **shadows, void **unneeded, const char *where) {
  char *modes = modes_of(k, params, shadows, unneeded, where);
  KinaseLaunch *l = kinase_rt_launch_augment(k, config, params, shadows, modes, where);
  free(modes);
  return l;
}

static void tangent(const KinaseKernel *k, const CUlaunchConfig *config, void **params,
                    void **tangents, const char *where) {
  char *modes = modes_of(k, params, tangents, NULL, where);
  kinase_rt_launch_tangent(k, config, params, tangents, modes, where);
  free(modes);
}

KinaseLaunch *__kinase_driver_launch_augment(void *f, unsigned gx, unsigned gy, unsigned gz,
                                             unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                             void *stream, void **params, void **shadows,
                                             void **unneeded, const char *where) {
  CUlaunchConfig config = configuration(gx, gy, gz, bx, by, bz, shmem, stream);
  return augment(kinase_rt_kernel_of((CUfunction)f, where), &config, params, shadows, unneeded,
                 where);
}

void __kinase_driver_launch_reverse(KinaseLaunch *l, void **shadows) {
  const KinaseKernel *k = l->kernel;
  const char *where = l->where;
  uint32_t n = k->nparams;
  /* The adjoints of 'o' parameters come back into sums, then are added into
   * their shadow slots: the reverse of the user's store of the value into
   * its argument slot takes them from there. */
  double *sums = kinase_rt_alloc((n ? n : 1) * sizeof *sums, where);
  void **adjoints = kinase_rt_alloc((n ? n : 1) * sizeof *adjoints, where);
  bool *active = kinase_rt_alloc(n ? n : 1, where);
  for (uint32_t i = 0; i < n; i++) {
    active[i] = l->modes[i] == 'o';
    adjoints[i] = active[i] ? &sums[i] : NULL;
    /* A struct's float fields take theirs in its shadow slot. */
    if ((k->params[i] & KINASE_PARAM_STRUCT) && l->modes[i] == 'd')
      adjoints[i] = shadows[i];
  }
  __kinase_launch_reverse(l, adjoints);
  for (uint32_t i = 0; i < n; i++) {
    if (!active[i])
      continue;
    if ((k->params[i] & KINASE_PARAM_SIZE) == sizeof(float)) {
      float sum;
      memcpy(&sum, &sums[i], sizeof sum);
      *(float *)shadows[i] += sum;
    } else {
      *(double *)shadows[i] += sums[i];
    }
  }
  free(active);
  free(adjoints);
  free(sums);
}

void __kinase_driver_launch_tangent(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                    unsigned by, unsigned bz, unsigned shmem, void *stream,
                                    void **params, void **tangents, const char *where) {
  CUlaunchConfig config = configuration(gx, gy, gz, bx, by, bz, shmem, stream);
  tangent(kinase_rt_kernel_of((CUfunction)f, where), &config, params, tangents, where);
}

/* cuLaunchKernelEx: its configuration, attributes included, is the
 * launch's (cuda_attributes.c says which of them derivative kernels get). */
KinaseLaunch *__kinase_driver_launch_ex_augment(const void *config, void *f, void **params,
                                                void **shadows, void **unneeded,
                                                const char *where) {
  return augment(kinase_rt_kernel_of((CUfunction)f, where), config, params, shadows, unneeded,
                 where);
}

void __kinase_driver_launch_ex_tangent(const void *config, void *f, void **params, void **tangents,
                                       const char *where) {
  tangent(kinase_rt_kernel_of((CUfunction)f, where), config, params, tangents, where);
}

/* cudaLaunchKernel's dim3, as the C ABI passes it: {x | y << 32, z}. */
static CUlaunchConfig dim3_configuration(uint64_t grid_xy, uint32_t grid_z, uint64_t block_xy,
                                         uint32_t block_z, size_t shmem, void *stream) {
  return configuration((uint32_t)grid_xy, (uint32_t)(grid_xy >> 32), grid_z, (uint32_t)block_xy,
                       (uint32_t)(block_xy >> 32), block_z, shmem, stream);
}

KinaseLaunch *__kinase_direct_launch_augment(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                             uint64_t block_xy, uint32_t block_z, void **args,
                                             size_t shmem, void *stream, void **shadows,
                                             void **unneeded, const char *where) {
  CUlaunchConfig config = dim3_configuration(grid_xy, grid_z, block_xy, block_z, shmem, stream);
  return augment(kinase_rt_kernel(kernel, where), &config, args, shadows, unneeded, where);
}

void __kinase_direct_launch_tangent(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                    uint64_t block_xy, uint32_t block_z, void **args, size_t shmem,
                                    void *stream, void **tangents, const char *where) {
  CUlaunchConfig config = dim3_configuration(grid_xy, grid_z, block_xy, block_z, shmem, stream);
  tangent(kinase_rt_kernel(kernel, where), &config, args, tangents, where);
}

/* cudaLaunchKernelExC: the runtime API's configuration is the driver's
 * with dim3s, and its attributes are the driver's (same identifiers, same
 * layout), so the launch is cuLaunchKernelEx's. */
_Static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute) &&
                   offsetof(cudaLaunchAttribute, val) == offsetof(CUlaunchAttribute, value) &&
                   (int)cudaLaunchAttributeCooperative == (int)CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
                   (int)cudaLaunchAttributeClusterDimension ==
                       (int)CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
               "cudaLaunchAttribute is CUlaunchAttribute");

static CUlaunchConfig runtime_configuration(const cudaLaunchConfig_t *c) {
  uint32_t grid[3] = {c->gridDim.x, c->gridDim.y, c->gridDim.z};
  uint32_t block[3] = {c->blockDim.x, c->blockDim.y, c->blockDim.z};
  CUlaunchConfig config = kinase_rt_config(grid, block, c->dynamicSmemBytes, c->stream);
  config.attrs = (CUlaunchAttribute *)c->attrs;
  config.numAttrs = c->numAttrs;
  return config;
}

KinaseLaunch *__kinase_direct_launch_ex_augment(const void *config, const void *kernel,
                                                void **args, void **shadows, void **unneeded,
                                                const char *where) {
  CUlaunchConfig driver = runtime_configuration(config);
  return augment(kinase_rt_kernel(kernel, where), &driver, args, shadows, unneeded, where);
}

void __kinase_direct_launch_ex_tangent(const void *config, const void *kernel, void **args,
                                       void **tangents, const char *where) {
  CUlaunchConfig driver = runtime_configuration(config);
  tangent(kinase_rt_kernel(kernel, where), &driver, args, tangents, where);
}

KinaseLaunch *__kinase_driver_cooperative_augment(void *f, unsigned gx, unsigned gy, unsigned gz,
                                                  unsigned bx, unsigned by, unsigned bz,
                                                  unsigned shmem, void *stream, void **params,
                                                  void **shadows, void **unneeded,
                                                  const char *where) {
  CUlaunchConfig config = cooperative(configuration(gx, gy, gz, bx, by, bz, shmem, stream));
  return augment(kinase_rt_kernel_of((CUfunction)f, where), &config, params, shadows, unneeded,
                 where);
}

void __kinase_driver_cooperative_tangent(void *f, unsigned gx, unsigned gy, unsigned gz,
                                         unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                         void *stream, void **params, void **tangents,
                                         const char *where) {
  CUlaunchConfig config = cooperative(configuration(gx, gy, gz, bx, by, bz, shmem, stream));
  tangent(kinase_rt_kernel_of((CUfunction)f, where), &config, params, tangents, where);
}

KinaseLaunch *__kinase_direct_cooperative_augment(const void *kernel, uint64_t grid_xy,
                                                  uint32_t grid_z, uint64_t block_xy,
                                                  uint32_t block_z, void **args, size_t shmem,
                                                  void *stream, void **shadows, void **unneeded,
                                                  const char *where) {
  CUlaunchConfig config =
      cooperative(dim3_configuration(grid_xy, grid_z, block_xy, block_z, shmem, stream));
  return augment(kinase_rt_kernel(kernel, where), &config, args, shadows, unneeded, where);
}

void __kinase_direct_cooperative_tangent(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                         uint64_t block_xy, uint32_t block_z, void **args,
                                         size_t shmem, void *stream, void **tangents,
                                         const char *where) {
  CUlaunchConfig config =
      cooperative(dim3_configuration(grid_xy, grid_z, block_xy, block_z, shmem, stream));
  tangent(kinase_rt_kernel(kernel, where), &config, args, tangents, where);
}
