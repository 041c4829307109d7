/* Stream-ordered allocations of the runtime's own: scratch shadows,
 * snapshots, staging buffers, accumulators, tape arenas. They come from a
 * pool that keeps what is freed into it: the default pool hands memory
 * back to the driver at each synchronization, so every request mapped its
 * buffers anew, which costs as much as a reverse kernel. Up to an eighth of
 * the device's memory stays reserved while the program runs; beyond it, the
 * pool gives back what is free at synchronizations, so a huge snapshot does
 * not hold memory the program's own allocations may need later. */
#include <stdint.h>

#include "cuda_rt.h"

static cudaMemPool_t keeping_pool(const char *where) {
  static cudaMemPool_t pools[64]; /* per device */
  int device;
  CHECK(where, cudaGetDevice, &device);
  if (device >= (int)(sizeof pools / sizeof *pools))
    kinase_rt_fail(where, "device %d: the runtime keeps memory for the first %zu devices only", device,
                   sizeof pools / sizeof *pools);
  if (pools[device])
    return pools[device];
  struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
                                   .location = {.type = cudaMemLocationTypeDevice, .id = device}};
  CHECK(where, cudaMemPoolCreate, &pools[device], &props);
  size_t free_bytes, total_bytes;
  CHECK(where, cudaMemGetInfo, &free_bytes, &total_bytes);
  uint64_t keep = total_bytes / 8;
  CHECK(where, cudaMemPoolSetAttribute, pools[device], cudaMemPoolAttrReleaseThreshold, &keep);
  return pools[device];
}

void *kinase_rt_alloc_async(size_t bytes, cudaStream_t stream, const char *where) {
  void *p = NULL;
  CHECK(where, cudaMallocFromPoolAsync, &p, bytes, keeping_pool(where), stream);
  return p;
}
