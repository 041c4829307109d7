/* Structs passed by value to kernels (KINASE_PARAM_STRUCT): the shadow
 * struct a derivative kernel takes beside one, and the device accumulator
 * of its float fields' adjoints (kinase_cuda.h). */
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

struct KinaseStructShadow {
  void *bytes;    /* the shadow struct as the derivative kernel takes it */
  void **scratch; /* zeroed scratch shadows of Const pointer fields, to free */
  uint32_t nscratch;
};

static uint32_t struct_bytes(const KinaseKernel *k, uint32_t i) {
  return k->params[i] & KINASE_PARAM_SIZE;
}

/* The pointer words of struct parameter i: they follow the parameter
 * words, one group per struct parameter in order, each followed by as many
 * words of the fields written through. */
static const uint32_t *pointer_words(const KinaseKernel *k, uint32_t i) {
  const uint32_t *words = k->params + k->nparams;
  for (uint32_t j = 0; j < i; j++)
    if (k->params[j] & KINASE_PARAM_STRUCT)
      words += 2 * KINASE_STRUCT_POINTER_WORDS(struct_bytes(k, j));
  return words;
}

static bool bit(const uint32_t *words, uint32_t f) { return words[f / 32] >> (f % 32) & 1; }

uint32_t kinase_rt_struct_fields(const KinaseKernel *k, uint32_t i, bool written_only,
                                 uint32_t *offsets) {
  const uint32_t *pointers = pointer_words(k, i);
  const uint32_t *written = pointers + KINASE_STRUCT_POINTER_WORDS(struct_bytes(k, i));
  uint32_t n = 0;
  for (uint32_t f = 0; f < struct_bytes(k, i) / 8; f++)
    if (bit(pointers, f) && (!written_only || bit(written, f)))
      offsets[n++] = 8 * f;
  return n;
}

KinaseStructShadow *kinase_rt_struct_shadow(const KinaseKernel *k, uint32_t i, const void *value,
                                            const void *shadow, cudaStream_t stream,
                                            const char *where) {
  uint32_t size = struct_bytes(k, i), fields = size / 8;
  KinaseStructShadow *s = kinase_rt_alloc(sizeof *s, where);
  s->bytes = kinase_rt_alloc(size + 1, where);
  s->scratch = kinase_rt_alloc((fields ? fields : 1) * sizeof *s->scratch, where);
  s->nscratch = 0;
  if (shadow)
    memcpy(s->bytes, shadow, size);
  else
    memset(s->bytes, 0, size);
  const uint32_t *words = pointer_words(k, i);
  for (uint32_t f = 0; f < fields; f++) {
    void *primal, *field_shadow;
    memcpy(&primal, (const char *)value + 8 * f, sizeof primal);
    memcpy(&field_shadow, (char *)s->bytes + 8 * f, sizeof field_shadow);
    if (!bit(words, f) || !primal || field_shadow)
      continue;
    field_shadow = kinase_rt_scratch_shadow(k, i, primal, true, stream, &s->scratch[s->nscratch++], where);
    memcpy((char *)s->bytes + 8 * f, &field_shadow, sizeof field_shadow);
  }
  return s;
}

void *kinase_rt_struct_shadow_bytes(KinaseStructShadow *s) { return s->bytes; }

void kinase_rt_struct_shadow_free(KinaseStructShadow *s, cudaStream_t stream, const char *where) {
  for (uint32_t k = 0; k < s->nscratch; k++)
    CHECK(where, cudaFreeAsync, s->scratch[k], stream);
  free(s->scratch);
  free(s->bytes);
  free(s);
}

void *kinase_rt_struct_accumulator(const KinaseKernel *k, uint32_t i, const void *adjoints,
                                   cudaStream_t stream, const char *where) {
  void *accumulator = kinase_rt_alloc_async(struct_bytes(k, i), stream, where);
  CHECK(where, cudaMemcpyAsync, accumulator, adjoints, struct_bytes(k, i), cudaMemcpyHostToDevice,
        stream);
  return accumulator;
}

void kinase_rt_struct_accumulated(const KinaseKernel *k, uint32_t i, void *accumulator,
                                  void *adjoints, cudaStream_t stream, const char *where) {
  CHECK(where, cudaMemcpyAsync, adjoints, accumulator, struct_bytes(k, i), cudaMemcpyDeviceToHost,
        stream);
  CHECK(where, cudaStreamSynchronize, stream);
  CHECK(where, cudaFreeAsync, accumulator, stream);
}
