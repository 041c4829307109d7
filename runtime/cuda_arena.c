/* The tape arena of a reverse launch (KinaseTapeArena, lib/cuda/arena.c):
 * how much the launch's tapes take is known only once it has run, so the
 * reverse kernel is launched first counting (an arena of capacity 0, in
 * which each thread runs only its forward part), then with an arena of the
 * size counted, freed after it on the launch's stream. */
#include <stdint.h>

#include "cuda_rt.h"

/* Arenas come from a pool of the runtime's own that keeps what is freed
 * into it: a pool that hands memory back to the driver at each
 * synchronization (the default's way) maps a launch's arena anew every
 * time, which costs as much as the reverse kernel. So the largest arena a
 * program used stays reserved while it runs. */
static cudaMemPool_t arena_pool(const char *where) {
  static cudaMemPool_t pools[64]; /* per device */
  int device;
  CHECK(where, cudaGetDevice, &device);
  if (device >= (int)(sizeof pools / sizeof *pools))
    kinase_rt_fail(where, "device %d: the runtime keeps tape arenas for the first %zu devices only", device,
                   sizeof pools / sizeof *pools);
  if (pools[device])
    return pools[device];
  struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
                                   .location = {.type = cudaMemLocationTypeDevice, .id = device}};
  CHECK(where, cudaMemPoolCreate, &pools[device], &props);
  uint64_t keep = UINT64_MAX;
  CHECK(where, cudaMemPoolSetAttribute, pools[device], cudaMemPoolAttrReleaseThreshold, &keep);
  return pools[device];
}

void *kinase_rt_arena_counting(cudaStream_t stream, const char *where) {
  void *arena = NULL;
  CHECK(where, cudaMallocAsync, &arena, sizeof(KinaseTapeArena), stream);
  CHECK(where, cudaMemsetAsync, arena, 0, sizeof(KinaseTapeArena), stream);
  return arena;
}

void *kinase_rt_arena_sized(void *counted, cudaStream_t stream, const char *where) {
  uint64_t header[2] = {0, 0};
  CHECK(where, cudaMemcpyAsync, &header[1], counted, sizeof header[1], cudaMemcpyDeviceToHost, stream);
  CHECK(where, cudaStreamSynchronize, stream);
  CHECK(where, cudaFreeAsync, counted, stream);
  if (!header[1])
    return NULL;
  void *arena = NULL;
  CHECK(where, cudaMallocFromPoolAsync, &arena, sizeof(KinaseTapeArena) + header[1], arena_pool(where),
        stream);
  /* From pageable memory: staged before the call returns. */
  CHECK(where, cudaMemcpyAsync, arena, header, sizeof header, cudaMemcpyHostToDevice, stream);
  return arena;
}

void kinase_rt_arena_free(void *arena, cudaStream_t stream, const char *where) {
  if (arena)
    CHECK(where, cudaFreeAsync, arena, stream);
}
