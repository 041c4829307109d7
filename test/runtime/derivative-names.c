// Which derivative kernel the runtime takes for a launch
// (kinase_rt_derivative_name, runtime/cuda_pattern.c), for the kinds of
// kernel parameters runtime/kinase_cuda.h tells apart: each name must be one
// that the device module holds (test/cuda/derivative-kernel-set.cu checks
// which kernels Kinase emits for the same parameters). The choice makes no
// CUDA call: this program links the archive without cudart or the driver,
// and needs no GPU.
//
// REQUIRES: cuda
// RUN: %clang -std=c11 -Wall -Wextra -Werror %cudainc %runtimeinc %s %kinase-rt -o %t.exe
// RUN: %t.exe

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

enum {
  P = KINASE_PARAM_POINTER | 8,
  F32 = KINASE_PARAM_F32,
  READ = KINASE_PARAM_READ,
  WRITTEN = KINASE_PARAM_WRITTEN,
  OWNED = KINASE_PARAM_OWNED,
  INT = 4,
};

/* loglik(float *logL, const float *th, const float *x, int n, int b): th
 * each thread's own, x shared (the seed's kernel). */
static uint32_t loglik[] = {P | WRITTEN | F32, P | READ | F32 | OWNED, P | READ | F32, INT, INT};
/* matmul(float *c, const float *a, const float *b, int n): two shared. */
static uint32_t matmul[] = {P | WRITTEN | F32, P | READ | F32, P | READ | F32, INT};
/* saxpy(float *y, const float *x, float a, int n): in place, x owned. */
static uint32_t saxpy[] = {P | READ | WRITTEN | F32, P | READ | F32 | OWNED,
                           KINASE_PARAM_FLOAT | 4, INT};
/* gather(float *y, const int *idx, const float *x): idx moves no floats. */
static uint32_t gather[] = {P | WRITTEN | F32, P | READ | KINASE_PARAM_NO_FLOATS, P | READ | F32};
/* stencil(float *out, const float *in), which also writes a __device__
 * global (KINASE_KERNEL_WRITES_OTHER). */
static uint32_t stencil[] = {P | WRITTEN | F32, P | READ | F32};
/* scaled(float a): no pointers. */
static uint32_t scaled[] = {KINASE_PARAM_FLOAT | 4};

typedef struct {
  uint32_t *params;
  uint32_t nparams;
  uint32_t flags;
  const char *name;
} Kernel;

#define KERNEL(k, flags) {k, sizeof k / sizeof *k, flags, #k}
static const Kernel kernels[] = {
    KERNEL(loglik, 0), KERNEL(matmul, 0), KERNEL(saxpy, 0),
    KERNEL(gather, 0), KERNEL(stencil, KINASE_KERNEL_WRITES_OTHER), KERNEL(scaled, 0),
};

/* A launch: the compiler's modes, and which shadows hold a pointer ('1'),
 * NULL ('0') or are absent ('-'), per parameter. */
typedef struct {
  const char *kernel, *modes, *shadows, *reverse, *forward;
} Case;

static const Case cases[] = {
    /* The seed: logLs dupnoneed, thetas dup, x Const. */
    {"loglik", "ndccc", "11---", "__kinase_krev_ndc_loglik", "__kinase_kfwd_ddd_loglik"},
    {"loglik", "dddcc", "111--", "__kinase_krev_ndd_loglik", "__kinase_kfwd_ddd_loglik"},
    {"loglik", "ddccc", "11---", "__kinase_krev_ndc_loglik", "__kinase_kfwd_ddd_loglik"},
    /* A shadow slot holding NULL is Const too. */
    {"loglik", "dddcc", "110--", "__kinase_krev_ndc_loglik", "__kinase_kfwd_ddd_loglik"},
    /* th, its thread's own, Const: a scratch shadow, not a kernel of its own. */
    {"loglik", "ncccc", "1----", "__kinase_krev_ndc_loglik", "__kinase_kfwd_ddd_loglik"},
    {"loglik", "ncdcc", "1-1--", "__kinase_krev_ndd_loglik", "__kinase_kfwd_ddd_loglik"},
    /* logL Const: a scratch shadow; still 'n'. */
    {"loglik", "cdccc", "-1---", "__kinase_krev_ndc_loglik", "__kinase_kfwd_ddd_loglik"},
    /* Two shared read-only pointers: all 'd' or all 'c'. */
    {"matmul", "dddc", "111-", "__kinase_krev_ndd_matmul", "__kinase_kfwd_ddd_matmul"},
    {"matmul", "ddcc", "11--", "__kinase_krev_ndd_matmul", "__kinase_kfwd_ddd_matmul"},
    {"matmul", "dcdc", "1-1-", "__kinase_krev_ndd_matmul", "__kinase_kfwd_ddd_matmul"},
    {"matmul", "nccc", "1---", "__kinase_krev_ncc_matmul", "__kinase_kfwd_ddd_matmul"},
    {"saxpy", "ddoc", "11--", "__kinase_krev_nd_saxpy", "__kinase_kfwd_dd_saxpy"},
    {"saxpy", "dcoc", "1---", "__kinase_krev_nd_saxpy", "__kinase_kfwd_dd_saxpy"},
    {"gather", "ddd", "111", "__kinase_krev_ncd_gather", "__kinase_kfwd_dcd_gather"},
    {"gather", "ncc", "1--", "__kinase_krev_ncc_gather", "__kinase_kfwd_dcd_gather"},
    /* Writing other memory, written pointers keep their results: 'd'. */
    {"stencil", "dd", "11", "__kinase_krev_dd_stencil", "__kinase_kfwd_dd_stencil"},
    {"stencil", "nc", "1-", "__kinase_krev_dc_stencil", "__kinase_kfwd_dd_stencil"},
    {"scaled", "o", "-", "__kinase_krev__scaled", "__kinase_kfwd__scaled"},
};

static const Kernel *kernel_named(const char *name) {
  for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
    if (!strcmp(kernels[i].name, name))
      return &kernels[i];
  abort();
}

static int check(const KinaseKernel *k, const char *kind, const Case *c, void **shadows,
                 const char *want) {
  char *got = kinase_rt_derivative_name(k, kind, c->modes, shadows);
  int failed = !got || strcmp(got, want);
  if (failed)
    printf("FAIL %s \"%s\" shadows %s: %s, want %s\n", kind, c->modes, c->shadows,
           got ? got : "(null)", want);
  free(got);
  return failed;
}

int main(void) {
  static int memory;
  void *some = &memory, *none = NULL;
  int failures = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const Case *c = &cases[i];
    const Kernel *kernel = kernel_named(c->kernel);
    KinaseKernel k = {.name = (char *)kernel->name, .nparams = kernel->nparams,
                      .flags = kernel->flags, .params = kernel->params};
    void *shadows[8];
    for (uint32_t p = 0; p < k.nparams; p++)
      shadows[p] = c->shadows[p] == '1' ? (void *)&some : c->shadows[p] == '0' ? (void *)&none : NULL;
    failures += check(&k, "krev", c, shadows, c->reverse);
    failures += check(&k, "kfwd", c, shadows, c->forward);
  }
  printf("%s\n", failures ? "FAILED" : "PASS");
  return failures != 0;
}
