/* Pitched copies the driver describes in a CUDA_MEMCPY2D (cuMemcpy2D,
 * cuMemcpy2DAsync, cuMemcpy2DUnaligned). The descriptor lives in the
 * user's memory and may change after the copy, so the forward sweep records
 * what the reverse needs: the shadows of both sides' rows, read from the
 * descriptor's shadow, whose address fields hold the shadows of the
 * addresses the host code stored (NULL or 0 for those without one). */
#include <stdlib.h>

#include "cuda_rt.h"

struct KinaseCopy2d {
  void *dsrc, *ddst; /* the first row's shadow on each side; NULL: none */
  size_t spitch, dpitch, width, height;
};

/* The address of the first row of one side of the copy, given that side's
 * memory type and fields (of the descriptor or of its shadow). */
static void *first_row(CUmemorytype type, const void *host, CUdeviceptr device, size_t x, size_t y,
                       size_t pitch, const char *side, const char *where) {
  const char *base;
  switch (type) {
  case CU_MEMORYTYPE_HOST:
    base = host;
    break;
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    base = (const char *)(uintptr_t)device;
    break;
  default:
    kinase_rt_fail(where, "a 2-D copy whose %s is a CUDA array (memory type %d): arrays have no "
                          "shadows; copy through linear memory",
                   side, (int)type);
  }
  return base ? (void *)(base + x + y * pitch) : NULL;
}

void *__kinase_copy2d_record(const void *descriptor, const void *shadow, void *stream,
                             const char *where) {
  const CUDA_MEMCPY2D *c = descriptor, *s = shadow;
  void *dst = first_row(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes, c->dstY,
                        c->dstPitch, "destination", where);
  __kinase_before_write(dst, c->dstPitch * c->Height, stream, where);
  struct KinaseCopy2d *r = kinase_rt_alloc(sizeof *r, where);
  *r = (struct KinaseCopy2d){NULL, NULL, c->srcPitch, c->dstPitch, c->WidthInBytes, c->Height};
  if (s) {
    r->dsrc = first_row(c->srcMemoryType, s->srcHost, s->srcDevice, c->srcXInBytes, c->srcY,
                        c->srcPitch, "source", where);
    r->ddst = first_row(c->dstMemoryType, s->dstHost, s->dstDevice, c->dstXInBytes, c->dstY,
                        c->dstPitch, "destination", where);
  }
  if (r->dsrc && !r->ddst)
    kinase_rt_fail(where, "a 2-D copy of values with derivatives into memory without a shadow "
                          "(a Const destination): their derivatives would be lost");
  return r;
}

void __kinase_copy2d_record_reverse(const void *record, void *stream, const char *where) {
  const struct KinaseCopy2d *r = record;
  __kinase_copy2d_reverse(r->dsrc, r->spitch, r->ddst, r->dpitch, r->width, r->height,
                          cudaMemcpyDefault, stream, 0, where);
}

void __kinase_copy2d_tangent(const void *descriptor, const void *tangent, void *stream,
                             const char *where) {
  const CUDA_MEMCPY2D *c = descriptor;
  struct KinaseCopy2d *r = __kinase_copy2d_record(descriptor, tangent, stream, where);
  if (r->dsrc) { /* the same copy of the tangents */
    CUDA_MEMCPY2D t = *c;
    const CUDA_MEMCPY2D *d = tangent;
    t.srcHost = d->srcHost;
    t.srcDevice = d->srcDevice;
    t.dstHost = d->dstHost;
    t.dstDevice = d->dstDevice;
    CHECK(where, cuMemcpy2DAsync, &t, (CUstream)stream);
    CHECK(where, cuStreamSynchronize, (CUstream)stream);
  } else { /* values without tangents: the destination's are 0 */
    __kinase_copy2d_reverse(NULL, 0, r->ddst, r->dpitch, r->width, r->height, cudaMemcpyDefault,
                            stream, 0, where);
  }
  free(r);
}
