/* examples/hmc-loglik.cu through the CUDA driver API, in plain C: Hamiltonian
 * Monte Carlo for a batch of chains, with per-sample gradients of a CUDA
 * log-likelihood computed by Kinase from the host function that launches
 * the kernel with cuLaunchKernel.
 *
 * The kernel (examples/hmc-loglik-kernel.cu) is compiled by Kinase to PTX,
 * which this program loads with cuModuleLoad. Device memory is CUdeviceptr,
 * an integer: marked enzyme_dup, it carries its shadow as a pointer would.
 * One request,
 *
 *   __enzyme_autodiff(compute_logLs, enzyme_dupnoneed, logLs, dlogLs,
 *                     enzyme_dup, thetas, dthetas, enzyme_const, x, N, B)
 *
 * gives all B gradients at once, on the GPU (the data x are Const: no
 * shadow); the leapfrog integrator and the Metropolis step run on the host.
 *
 *   build/bin/kinase-cc -O2 --cuda-device-only -S examples/hmc-loglik-kernel.cu \
 *       -o hmc-loglik-kernel.ptx
 *   build/bin/kinase-cc -O2 -I/usr/local/cuda/include examples/hmc-loglik-driver.c \
 *       -o hmc-driver -lcuda -lm
 *   ./hmc-driver [hmc-loglik-kernel.ptx]
 */
#include <cuda.h>
#include <kinase.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P = 4, B = 1024, N = 200, STEPS = 200, LEAPFROG = 10 };

static CUfunction loglik;

void compute_logLs(CUdeviceptr logLs, CUdeviceptr thetas, CUdeviceptr x, int n, int b) {
  void *args[] = {&logLs, &thetas, &x, &n, &b};
  cuLaunchKernel(loglik, (b + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
}

static void check(CUresult status, const char *what) {
  if (status != CUDA_SUCCESS) {
    const char *message = "unknown error";
    cuGetErrorString(status, &message);
    fprintf(stderr, "%s: %s\n", what, message);
    exit(1);
  }
}

static CUdeviceptr logL, dlogL, theta, dtheta, data;
static float ones[B];

/* log-likelihoods of all chains at th. */
static void values(const float *th, float *out) {
  check(cuMemcpyHtoD(theta, th, B * P * sizeof(float)), "copy");
  compute_logLs(logL, theta, data, N, B);
  check(cuMemcpyDtoH(out, logL, B * sizeof(float)), "copy");
}

/* Their gradients, one per chain. */
static void gradients(const float *th, float *out) {
  check(cuMemcpyHtoD(theta, th, B * P * sizeof(float)), "copy");
  check(cuMemsetD32(dtheta, 0, B * P), "memset");
  check(cuMemcpyHtoD(dlogL, ones, B * sizeof(float)), "copy");
  __enzyme_autodiff((void *)compute_logLs, enzyme_dupnoneed, logL, dlogL, enzyme_dup, theta,
                    dtheta, enzyme_const, data, N, B);
  check(cuMemcpyDtoH(out, dtheta, B * P * sizeof(float)), "copy");
}

static float normal(void) {
  float u = (rand() + 1.0f) / ((float)RAND_MAX + 2.0f), v = (rand() + 1.0f) / ((float)RAND_MAX + 2.0f);
  return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

int main(int argc, char **argv) {
  CUdevice device;
  CUcontext context;
  CUmodule module;
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  check(cuModuleLoad(&module, argc > 1 ? argv[1] : "hmc-loglik-kernel.ptx"), "cuModuleLoad");
  check(cuModuleGetFunction(&loglik, module, "loglik"), "cuModuleGetFunction");

  static float x[2 * N], th[B * P], q[B * P], p[B * P], mom[B * P], g[B * P], start[B], end[B];
  for (int k = 0; k < N; k++) {
    x[2 * k] = 1.0f + 0.5f * normal();
    x[2 * k + 1] = -0.5f + 2.0f * normal();
  }
  for (int i = 0; i < B; i++) {
    ones[i] = 1.0f;
    th[P * i] = th[P * i + 1] = 0.0f;
    th[P * i + 2] = th[P * i + 3] = 1.0f;
  }
  CUdeviceptr *buffers[] = {&logL, &dlogL, &theta, &dtheta, &data};
  size_t sizes[] = {B, B, B * P, B * P, 2 * N};
  for (int i = 0; i < 5; i++)
    check(cuMemAlloc(buffers[i], sizes[i] * sizeof(float)), "cuMemAlloc");
  check(cuMemcpyHtoD(data, x, sizeof x), "copy");

  const float eps = 0.01f;
  long accepted = 0;
  double mean[P] = {0};
  for (int step = 0; step < STEPS; step++) {
    memcpy(q, th, sizeof q);
    for (int j = 0; j < B * P; j++)
      p[j] = mom[j] = normal();
    values(q, start);
    gradients(q, g);
    for (int l = 0; l < LEAPFROG; l++) {
      for (int j = 0; j < B * P; j++)
        p[j] += 0.5f * eps * g[j];
      for (int j = 0; j < B * P; j++)
        q[j] += eps * p[j];
      for (int i = 0; i < B; i++) /* the scales stay positive: reflect at 0 */
        for (int s = 2; s < 4; s++)
          if (q[P * i + s] < 0) {
            q[P * i + s] = -q[P * i + s];
            p[P * i + s] = -p[P * i + s];
          }
      gradients(q, g);
      for (int j = 0; j < B * P; j++)
        p[j] += 0.5f * eps * g[j];
    }
    values(q, end);
    for (int i = 0; i < B; i++) {
      double h0 = -start[i], h1 = -end[i];
      for (int j = 0; j < P; j++) {
        h0 += 0.5 * mom[P * i + j] * mom[P * i + j];
        h1 += 0.5 * p[P * i + j] * p[P * i + j];
      }
      if (log((rand() + 1.0) / (RAND_MAX + 2.0)) < h0 - h1) {
        accepted++;
        memcpy(&th[P * i], &q[P * i], P * sizeof(float));
      }
      if (step >= STEPS / 2)
        for (int j = 0; j < P; j++)
          mean[j] += th[P * i + j] / ((double)B * (STEPS - STEPS / 2));
    }
  }
  printf("acceptance rate %.2f\n", (double)accepted / ((double)B * STEPS));
  printf("posterior means: mu1 %.3f  mu2 %.3f  s1 %.3f  s2 %.3f\n", mean[0], mean[1], mean[2],
         mean[3]);
  printf("(the data were drawn with mu = (1, -0.5), s = (0.5, 2))\n");
  for (int i = 0; i < 5; i++)
    cuMemFree(*buffers[i]);
  return 0;
}
