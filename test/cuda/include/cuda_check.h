/* cuda_check.h: the host side of the self-checking CUDA tests (header only,
 * CUDA C++). The counterpart of test/c/include/check.h, plus the device
 * round trip.
 *
 *   require_device();                         exit 2, "NO CUDA DEVICE: ...", without a GPU
 *   double *d_x = to_device(x);               cudaMalloc + copy of the host array (or vector) x
 *   double *d_out = device_alloc(out);        cudaMalloc of the size of the host array out
 *   double *d_s = device_alloc<double>(n);    cudaMalloc of n doubles
 *   kernel<<<blocks_for(n, 128), 128>>>(...);
 *   check_kernel("kernel");                   exit 1 on a launch or run error:
 *                                             "FAIL: kernel run (kernel): <error>"
 *   from_device(out, d_out);                  copy back into the host array (or vector) out
 *   device_free_all();                        cudaFree of all the above
 *   check_cuda(err, "copy to %s", what);      exit 1, "FAIL: copy to ...: <error>", on an error
 *
 *   require_exact(exact, fd, 1e-6, "f' at x = %g", x);
 *       the test checks itself: its exact derivative must agree with finite
 *       differences, or the test (not Kinase) is wrong: "FAIL: test bug: ...", exit 1
 *   check_close(got, want, 1e-12, "f' at x = %g", x);
 *       counts a check; prints "FAIL f' at x = 0.5: got .. want .." for the
 *       first CHECK_PRINT_MAX failures
 *   check_within(got, want, tol, "...", ...);  the same with an absolute tolerance
 *   check_jacobian(dx, tangent, w, dir, jacobian, 1e-4, "scan");
 *       reverse and forward mode of out = f(x) against its Jacobian,
 *       jacobian(i, j) = d out_i / d x_j: dx the gradient of sum_i w_i out_i,
 *       tangent the tangent of out along dir
 *   return check_exit();                       prints PASS, or how many checks failed;
 *                                              returns the exit status (0 or 1)
 *
 * The labels are printf formats, formatted only when a check fails. The
 * tolerance of check_close and require_exact is rtol * max(|want|, 1), as in
 * check.h; NaN never passes.
 */
#ifndef KINASE_TEST_CUDA_CHECK_H
#define KINASE_TEST_CUDA_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define CHECK_PRINT_MAX 10
#define CHECK_PRINTF(fmt_index) __attribute__((format(printf, fmt_index, fmt_index + 1)))

static int check_count_;
static int check_failures_;

static inline CHECK_PRINTF(2) void check_cuda(cudaError_t err, const char *what, ...) {
  if (err == cudaSuccess)
    return;
  va_list ap;
  va_start(ap, what);
  printf("FAIL: ");
  vprintf(what, ap);
  va_end(ap);
  printf(": %s\n", cudaGetErrorString(err));
  exit(1);
}

/* Exit 2, with a message of its own, when there is no GPU to run on. */
static inline void require_device(void) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count < 1) {
    printf("NO CUDA DEVICE: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    exit(2);
  }
}

/* Device memory, remembered for device_free_all. */
static void *device_ptrs_[256];
static int device_nptrs_;

template <class T> static T *device_alloc(size_t n) {
  if (device_nptrs_ == (int)(sizeof device_ptrs_ / sizeof *device_ptrs_)) {
    printf("FAIL: test bug: more device arrays than cuda_check.h keeps\n");
    exit(1);
  }
  T *p;
  check_cuda(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  device_ptrs_[device_nptrs_++] = p;
  return p;
}

template <class T, size_t N> static T *device_alloc(const T (&)[N]) { return device_alloc<T>(N); }

template <class T, size_t N> static T *to_device(const T (&host)[N]) {
  T *p = device_alloc<T>(N);
  check_cuda(cudaMemcpy(p, host, sizeof host, cudaMemcpyHostToDevice), "copy to device");
  return p;
}

template <class T, size_t N> static void from_device(T (&host)[N], const T *dev) {
  check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost), "copy to host");
}

template <class T> static T *to_device(const std::vector<T> &host) {
  T *p = device_alloc<T>(host.size());
  check_cuda(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
             "copy to device");
  return p;
}

template <class T> static void from_device(std::vector<T> &host, const T *dev) {
  check_cuda(cudaMemcpy(host.data(), dev, host.size() * sizeof(T), cudaMemcpyDeviceToHost),
             "copy to host");
}

static inline void device_free_all(void) {
  while (device_nptrs_ > 0)
    cudaFree(device_ptrs_[--device_nptrs_]);
}

/* Blocks of `threads` threads enough for n. */
static inline unsigned blocks_for(int n, int threads) {
  return (unsigned)((n + threads - 1) / threads);
}

/* After a launch: its error, then the error of the run (waits for it). */
static inline void check_kernel(const char *name) {
  check_cuda(cudaGetLastError(), "kernel launch (%s)", name);
  check_cuda(cudaDeviceSynchronize(), "kernel run (%s)", name);
}

static inline double check_tolerance_(double want, double rtol) {
  return rtol * fmax(fabs(want), 1.0);
}

static inline CHECK_PRINTF(4) void require_exact(double exact, double fd, double rtol,
                                                 const char *what, ...) {
  double tol = check_tolerance_(fd, rtol);
  if (fabs(exact - fd) <= tol)
    return;
  va_list ap;
  va_start(ap, what);
  printf("FAIL: test bug: ");
  vprintf(what, ap);
  va_end(ap);
  printf(": exact %.10g, finite differences %.10g (tolerance %.3g)\n", exact, fd, tol);
  exit(1);
}

static inline int check_within_v_(double got, double want, double tol, const char *what,
                                  va_list ap) {
  check_count_++;
  if (fabs(got - want) <= tol)
    return 1;
  if (check_failures_++ < CHECK_PRINT_MAX) {
    printf("FAIL ");
    vprintf(what, ap);
    printf(": got %.17g want %.17g (error %.3g, tolerance %.3g)\n", got, want, fabs(got - want),
           tol);
  }
  return 0;
}

/* |got - want| <= tol. */
static inline CHECK_PRINTF(4) int check_within(double got, double want, double tol,
                                               const char *what, ...) {
  va_list ap;
  va_start(ap, what);
  int ok = check_within_v_(got, want, tol, what, ap);
  va_end(ap);
  return ok;
}

/* |got - want| <= rtol * max(|want|, 1): relative for |want| >= 1, absolute below. */
static inline CHECK_PRINTF(4) int check_close(double got, double want, double rtol,
                                              const char *what, ...) {
  va_list ap;
  va_start(ap, what);
  int ok = check_within_v_(got, want, check_tolerance_(want, rtol), what, ap);
  va_end(ap);
  return ok;
}

template <class F, class Jacobian>
static void check_jacobian(const std::vector<F> &dx, const std::vector<F> &tangent, const std::vector<F> &w,
                           const std::vector<F> &dir, Jacobian jacobian, double rtol, const char *what) {
  for (size_t j = 0; j < dx.size(); j++) {
    double want = 0;
    for (size_t i = 0; i < w.size(); i++)
      want += w[i] * jacobian((int)i, (int)j);
    check_close(dx[j], want, rtol, "%s (%zu-byte) d/dx[%zu]", what, sizeof(F), j);
  }
  for (size_t i = 0; i < tangent.size(); i++) {
    double want = 0;
    for (size_t j = 0; j < dir.size(); j++)
      want += jacobian((int)i, (int)j) * dir[j];
    check_close(tangent[i], want, rtol, "%s (%zu-byte) tangent of out[%zu]", what, sizeof(F), i);
  }
}

static inline int check_exit(void) {
  if (check_failures_ == 0) {
    printf("PASS (%d checks)\n", check_count_);
    return 0;
  }
  printf("FAILED %d of %d checks", check_failures_, check_count_);
  if (check_failures_ > CHECK_PRINT_MAX)
    printf(" (the first %d shown)", CHECK_PRINT_MAX);
  printf("\n");
  return 1;
}

#endif
