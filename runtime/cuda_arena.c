/* The tape arena of a reverse launch (KinaseTapeArena, lib/cuda/arena.c):
 * how much the launch's tapes take is known only once it has run, so the
 * reverse kernel is launched first counting (an arena of capacity 0, in
 * which each thread runs only its forward part), then with an arena of the
 * size counted, freed after it on the launch's stream. */
#include <stdint.h>

#include "cuda_rt.h"

void *kinase_rt_arena_counting(cudaStream_t stream, const char *where) {
  void *arena = kinase_rt_alloc_async(sizeof(KinaseTapeArena), stream, where);
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
  void *arena = kinase_rt_alloc_async(sizeof(KinaseTapeArena) + header[1], stream, where);
  /* From pageable memory: staged before the call returns. */
  CHECK(where, cudaMemcpyAsync, arena, header, sizeof header, cudaMemcpyHostToDevice, stream);
  return arena;
}

void kinase_rt_arena_free(void *arena, cudaStream_t stream, const char *where) {
  if (arena)
    CHECK(where, cudaFreeAsync, arena, stream);
}
