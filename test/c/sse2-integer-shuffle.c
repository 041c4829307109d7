// RUN: %check-c %s %t
// SSE2 code moves doubles with integer shuffles: _mm_shuffle_epi32 on a
// __m128d cast to __m128i (Eigen's vec2d_swizzle1, which its GEMM kernel
// broadcasts the right-hand side with), the result cast back, or stored
// through a __m128i into memory of doubles. Through the integers the
// adjoints were lost (zero, and then a wrong gradient, silently). Such a
// shuffle of whole doubles is now differentiated as the shuffle of the
// doubles. Checked against the analytic gradients.
#include <emmintrin.h>
#include "check.h"

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

/* Each lane of b broadcast, the result cast back: out = a * b0 + a * b1. */
static void broadcast_cast(const double *a, const double *b, double *out) {
  __m128d va = _mm_loadu_pd(a), vb = _mm_loadu_pd(b);
  __m128d b0 = _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(vb), 0x44));
  __m128d b1 = _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(vb), 0xEE));
  _mm_storeu_pd(out, _mm_add_pd(_mm_mul_pd(va, b0), _mm_mul_pd(va, b1)));
}

/* Eigen's pbroadcast4 for SSE2, which writes its results through
 * references: the packet loaded into *b1, then each lane broadcast from it.
 * instcombine makes the casts integer loads and stores of the packets. */
__attribute__((noinline)) static void broadcast2(const double *b, __m128d *b0, __m128d *b1) {
  *b1 = _mm_loadu_pd(b);
  *b0 = _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(*b1), 0x44));
  *b1 = _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(*b1), 0xEE));
}

/* out = a * b1 + swap(a) * b0, the swap (0x4E) moving both lanes. */
static void broadcast_stored(const double *a, const double *b, double *out) {
  __m128d va = _mm_loadu_pd(a), b0, b1;
  broadcast2(b, &b0, &b1);
  __m128d swapped = _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(va), 0x4E));
  _mm_storeu_pd(out, _mm_add_pd(_mm_mul_pd(va, b1), _mm_mul_pd(swapped, b0)));
}

/* A request's function must be a constant: each test is a macro. For an
 * output seed of ones both functions' gradients are da = (b0 + b1) twice
 * and db = (a0 + a1) twice. */
#define CHECK_GRADIENTS(what, f, want_out0)                                                      \
  do {                                                                                          \
    double a[2] = {2, 3}, da[2] = {0}, b[2] = {5, 7}, db[2] = {0}, out[2], dout[2] = {1, 1};    \
    __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_dup, out, dout); \
    check_close(what, out[0], want_out0, 0);                                                    \
    for (int i = 0; i < 2; i++) {                                                               \
      check_close(what, da[i], b[0] + b[1], 0);                                                 \
      check_close(what, db[i], a[0] + a[1], 0);                                                 \
    }                                                                                           \
  } while (0)

int main(void) {
  CHECK_GRADIENTS("cast back", broadcast_cast, 2 * 5 + 2 * 7);
  CHECK_GRADIENTS("stored", broadcast_stored, 2 * 7 + 3 * 5);
  return check_exit();
}
