/* Tables of device pointers (`float *const *xs`: a kernel reading one
 * buffer a block through a table the host built and copied to the device).
 * The table's shadow is the table of the buffers' shadows, which the
 * reverse kernel reads to add each buffer's adjoints. The host code rarely
 * reads such a table, so the compiler cannot tell its copy from a copy of
 * floats: before each copy of memory of no known element type, it hands
 * the runtime both shadows (__kinase_copy_shadow_record), and the runtime
 * keeps the source's (up to 64 KB, a copy of the shadow table the host
 * code built). A launch that passes the destination's shadow for a
 * KINASE_PARAM_TABLE parameter copies them there first; the copy's
 * reverse, given the same destination shadow, then moves nothing (its
 * elements are pointers), and otherwise proceeds as for floats. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

enum { TABLE_BYTES_MAX = 1 << 16 };

typedef struct {
  CUdeviceptr ddst;
  size_t bytes;
  void *shadows; /* host copy of the source's shadow */
  bool applied;  /* copied into ddst for a table parameter */
} Kept;

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static Kept *kept;
static size_t nkept, kept_capacity;

void __kinase_copy_shadow_record(void *ddst, const void *dsrc, size_t bytes, void *stream,
                                 const char *where) {
  if (!ddst || !dsrc || bytes == 0 || bytes > TABLE_BYTES_MAX || bytes % sizeof(void *))
    return;
  void *shadows = kinase_rt_alloc(bytes, where);
  CHECK(where, cudaMemcpyAsync, shadows, dsrc, bytes, cudaMemcpyDefault, (cudaStream_t)stream);
  CHECK(where, cudaStreamSynchronize, (cudaStream_t)stream);
  pthread_mutex_lock(&kept_lock);
  kinase_rt_reserve((void **)&kept, nkept, &kept_capacity, sizeof *kept, where);
  kept[nkept++] = (Kept){(CUdeviceptr)ddst, bytes, shadows, false};
  pthread_mutex_unlock(&kept_lock);
}

void kinase_rt_fill_tables(const KinaseKernel *k, void *const *shadows, cudaStream_t stream,
                           const char *where) {
  bool copied = false;
  pthread_mutex_lock(&kept_lock);
  for (uint32_t i = 0; nkept && i < k->nparams; i++) {
    CUdeviceptr s = (CUdeviceptr)shadows[i];
    if (!(k->params[i] & KINASE_PARAM_TABLE) || !s)
      continue;
    for (size_t j = nkept; j-- > 0;) /* the newest copy into it */
      if (kept[j].ddst <= s && s < kept[j].ddst + kept[j].bytes) {
        if (!kept[j].applied)
          CHECK(where, cudaMemcpyAsync, (void *)kept[j].ddst, kept[j].shadows, kept[j].bytes,
                cudaMemcpyHostToDevice, stream);
        copied |= !kept[j].applied;
        kept[j].applied = true;
        break;
      }
  }
  pthread_mutex_unlock(&kept_lock);
  if (copied) /* from pageable host memory, which may go at the copy's reverse */
    CHECK(where, cudaStreamSynchronize, stream);
}

bool kinase_rt_table_copy_reversed(const void *ddst) {
  pthread_mutex_lock(&kept_lock);
  bool applied = false;
  for (size_t j = nkept; j-- > 0;)
    if (kept[j].ddst == (CUdeviceptr)ddst) {
      applied = kept[j].applied;
      free(kept[j].shadows);
      kept[j] = kept[--nkept];
      break;
    }
  pthread_mutex_unlock(&kept_lock);
  return applied;
}
