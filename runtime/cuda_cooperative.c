/* Cooperative launches (cudaLaunchCooperativeKernel, cuLaunchCooperativeKernel,
 * the cooperative attribute of cuLaunchKernelEx): every block of the grid
 * must be resident at once, so that grid.sync() returns. A derivative
 * kernel runs the same grid but may need more registers or shared memory
 * per block than the kernel (its shadows of __shared__ arrays, twice the
 * dynamic shared memory), and then fewer blocks fit on a multiprocessor:
 * the launch would fail, or a grid barrier wait forever. So the fit is
 * checked before the kernel's first launch, and a derivative that cannot
 * fit stops the program with a message naming the kernel. */
#include "cuda_rt.h"

bool kinase_rt_is_cooperative(const CUlaunchConfig *config) {
  for (unsigned i = 0; i < config->numAttrs; i++)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && config->attrs[i].value.cooperative)
      return true;
  return false;
}

void kinase_rt_cooperative_fit(const char *kernel, const char *derivative,
                               const CUlaunchConfig *config, size_t shmem, int per_sm, int sms,
                               const char *where) {
  unsigned long long blocks =
      (unsigned long long)config->gridDimX * config->gridDimY * config->gridDimZ;
  unsigned long long resident = (unsigned long long)(per_sm > 0 ? per_sm : 0) * (unsigned)sms;
  if (blocks <= resident)
    return;
  kinase_rt_fail(where,
                 "the %s kernel of cooperative kernel '%s' does not fit on the device: the "
                 "launch's %llu blocks of %u threads (%zu bytes of dynamic shared memory) must "
                 "all be resident at once, and with the registers and shared memory the %s "
                 "kernel needs, %d per multiprocessor x %d multiprocessors = %llu fit; launch "
                 "at most %llu blocks (a grid-stride loop covers the rest)",
                 derivative, kernel, blocks,
                 config->blockDimX * config->blockDimY * config->blockDimZ, shmem, derivative,
                 per_sm, sms, resident, resident);
}

void kinase_rt_check_cooperative(const KinaseKernel *k, CUfunction f, const char *derivative,
                                 const CUlaunchConfig *config, size_t shmem, const char *where) {
  if (!kinase_rt_is_cooperative(config))
    return;
  int per_sm = 0, sms = 0;
  CUdevice device;
  int threads = (int)(config->blockDimX * config->blockDimY * config->blockDimZ);
  CHECK(where, cuOccupancyMaxActiveBlocksPerMultiprocessor, &per_sm, f, threads, shmem);
  CHECK(where, cuCtxGetDevice, &device);
  CHECK(where, cuDeviceGetAttribute, &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  kinase_rt_cooperative_fit(k->display, derivative, config, shmem, per_sm, sms, where);
}
