/* Differentiated launches through an array of argument pointers: the CUDA
 * driver API's cuLaunchKernel(f, grid, block, shmem, stream, kernelParams,
 * NULL) and cuLaunchKernelEx(config, f, kernelParams, NULL), and the runtime
 * API's cudaLaunchKernel(kernel, grid, block, args, shmem, stream) called
 * directly, in a differentiated host function. The compiler knows neither f nor its parameters, so the modes
 * letters that a launch through <<<>>> gets from the compiler are read here
 * from the kernel info of f's module and from the shadow of kernelParams
 * (see kinase_cuda.h): then the launch is one of the runtime API's.
 *
 * The generated code keeps the user's cuLaunchKernel in the forward sweep
 * (this file records the launch just before it) and replaces it in forward
 * mode. */
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

/* One letter per parameter of k: a pointer whose shadow slot holds a
 * non-NULL shadow is 'd'; a float with a shadow slot is 'o' (its adjoint is
 * added into the slot, or its tangent read from it); the rest 'c'. Empty
 * for a kernel without kernel info, which kinase_rt_derivative reports. */
static char *modes_of(const KinaseKernel *k, void **shadows, const char *where) {
  char *modes = kinase_rt_alloc(k->nparams + 1, where);
  for (uint32_t i = 0; k->params && i < k->nparams; i++) {
    uint32_t p = k->params[i];
    bool slot = shadows && shadows[i];
    modes[i] = 'c';
    if ((p & KINASE_PARAM_POINTER) && slot && *(void *const *)shadows[i])
      modes[i] = 'd';
    else if ((p & KINASE_PARAM_FLOAT) && slot)
      modes[i] = 'o';
  }
  modes[k->nparams] = 0;
  return modes;
}

static void configuration(uint32_t grid[3], uint32_t block[3], unsigned gx, unsigned gy,
                          unsigned gz, unsigned bx, unsigned by, unsigned bz) {
  grid[0] = gx, grid[1] = gy, grid[2] = gz;
  block[0] = bx, block[1] = by, block[2] = bz;
}

static KinaseLaunch *augment(const KinaseKernel *k, const uint32_t grid[3],
                             const uint32_t block[3], size_t shmem, void *stream, void **params,
                             void **shadows, const char *where) {
  char *modes = modes_of(k, shadows, where);
  KinaseLaunch *l =
      kinase_rt_launch_augment(k, false, grid, block, shmem, stream, params, shadows, modes, where);
  free(modes);
  return l;
}

static void tangent(const KinaseKernel *k, const uint32_t grid[3], const uint32_t block[3],
                    size_t shmem, void *stream, void **params, void **tangents, const char *where) {
  char *modes = modes_of(k, tangents, where);
  kinase_rt_launch_tangent(k, grid, block, shmem, stream, params, tangents, modes, where);
  free(modes);
}

KinaseLaunch *__kinase_driver_launch_augment(void *f, unsigned gx, unsigned gy, unsigned gz,
                                             unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                             void *stream, void **params, void **shadows,
                                             const char *where) {
  uint32_t grid[3], block[3];
  configuration(grid, block, gx, gy, gz, bx, by, bz);
  return augment(kinase_rt_kernel_of((CUfunction)f, where), grid, block, shmem, stream, params,
                 shadows, where);
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
  uint32_t grid[3], block[3];
  configuration(grid, block, gx, gy, gz, bx, by, bz);
  tangent(kinase_rt_kernel_of((CUfunction)f, where), grid, block, shmem, stream, params, tangents,
          where);
}

/* cuLaunchKernelEx's configuration. Its attributes (clusters, priorities,
 * ...) would have to go to the reverse and forward kernels as well. */
static const CUlaunchConfig *config_of(const void *config, const char *where) {
  const CUlaunchConfig *c = config;
  if (c->numAttrs)
    kinase_rt_fail(where, "a differentiated cuLaunchKernelEx with launch attributes (%u): Kinase "
                          "launches derivative kernels without them",
                   c->numAttrs);
  return c;
}

KinaseLaunch *__kinase_driver_launch_ex_augment(const void *config, void *f, void **params,
                                                void **shadows, const char *where) {
  const CUlaunchConfig *c = config_of(config, where);
  return __kinase_driver_launch_augment(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX,
                                        c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream,
                                        params, shadows, where);
}

void __kinase_driver_launch_ex_tangent(const void *config, void *f, void **params, void **tangents,
                                       const char *where) {
  const CUlaunchConfig *c = config_of(config, where);
  __kinase_driver_launch_tangent(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX,
                                 c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream, params,
                                 tangents, where);
}

/* cudaLaunchKernel's dim3, as the C ABI passes it: {x | y << 32, z}. */
static void dim3_of(uint32_t dim[3], uint64_t xy, uint32_t z) {
  dim[0] = (uint32_t)xy, dim[1] = (uint32_t)(xy >> 32), dim[2] = z;
}

KinaseLaunch *__kinase_direct_launch_augment(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                             uint64_t block_xy, uint32_t block_z, void **args,
                                             size_t shmem, void *stream, void **shadows,
                                             const char *where) {
  uint32_t grid[3], block[3];
  dim3_of(grid, grid_xy, grid_z);
  dim3_of(block, block_xy, block_z);
  return augment(kinase_rt_kernel(kernel, where), grid, block, shmem, stream, args, shadows, where);
}

void __kinase_direct_launch_tangent(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                    uint64_t block_xy, uint32_t block_z, void **args, size_t shmem,
                                    void *stream, void **tangents, const char *where) {
  uint32_t grid[3], block[3];
  dim3_of(grid, grid_xy, grid_z);
  dim3_of(block, block_xy, block_z);
  tangent(kinase_rt_kernel(kernel, where), grid, block, shmem, stream, args, tangents, where);
}
