// Kernels Kinase cannot differentiate still compile: their module holds the
// reason instead of reverse kernels, which a differentiated launch of one
// reports at run time (checked on the GPU, in a child process):
//  - block_sum: the last of a block's threads to write wins, through
//    atomicExch;
//  - scale_state: it reads and writes a __device__ variable (g = g * x), so
//    its reverse kernel, running the kernel's work again, would start from
//    what the launch left there. Its forward kernel stays.
// A kernel beside them gets its derivative kernels.
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-DAG: .global .align 4 .b8 __kinase_kinfo__Z9block_sumPfPKf
// CHECK-DAG: .global .align 4 .b8 __kinase_kwhy__Z9block_sumPfPKf
// CHECK-DAG: .global .align 4 .b8 __kinase_kwhy__Z11scale_statePKf
// CHECK-DAG: .entry __kinase_kfwd_d__Z11scale_statePKf(
// CHECK-DAG: .entry __kinase_krev_nd__Z6squarePfPKf(
// CHECK-NOT: __kinase_krev_{{.*}}block_sum
// CHECK-NOT: __kinase_krev_{{.*}}scale_state

#include <kinase.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cuda_check.h"

__global__ void block_sum(float *out, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicExch(out + blockIdx.x, x[i] * x[i]);
}

__device__ float g_state;

__global__ void scale_state(const float *x) { g_state = g_state * x[0]; }

__global__ void square(float *y, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i] * x[i];
}

void sums(float *out, const float *x, int blocks) { block_sum<<<blocks, 256>>>(out, x); }

float scaled_twice(const float *x) {
  float one = 1, result;
  cudaMemcpyToSymbol(g_state, &one, sizeof one);
  scale_state<<<1, 1>>>(x);
  scale_state<<<1, 1>>>(x);
  cudaMemcpyFromSymbol(&result, g_state, sizeof result);
  return result;
}

/* The differentiated launches, each in a process of its own (exec'd: a
 * forked child may not use its parent's CUDA context): the runtime stops
 * them. */
static void differentiate_sums(void) {
  static float x[512], dx[512], out[2], dout[2] = {1, 1};
  float *d_x = to_device(x), *d_dx = to_device(dx), *d_out = device_alloc(out),
        *d_dout = to_device(dout);
  __enzyme_autodiff((void *)sums, enzyme_dup, d_out, d_dout, enzyme_dup, d_x, d_dx, enzyme_const, 2);
  check_kernel("sums");
}

static void differentiate_state(void) {
  static float x[1] = {3}, dx[1];
  float *d_x = to_device(x), *d_dx = to_device(dx);
  __enzyme_autodiff((void *)scaled_twice, enzyme_dup, d_x, d_dx);
}

/* The message the child `which` stopped with, and its exit status. */
static int child_message(char *argv0, const char *which, char *message, size_t size) {
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    dup2(fds[1], 2);
    execl("/proc/self/exe", argv0, "--child", which, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  size_t used = 0;
  ssize_t got;
  while ((got = read(fds[0], message + used, size - 1 - used)) > 0)
    used += (size_t)got;
  message[used] = 0;
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void expect_stop(char *argv0, const char *which, const char *want) {
  char message[1024];
  check_within(child_message(argv0, which, message, sizeof message), 1, 0, "%s: exit status", which);
  check_within(strncmp(message, want, strlen(want)) == 0, 1, 0, "%s: message: %s", which, message);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--child")) {
    if (!strcmp(argv[2], "sums"))
      differentiate_sums();
    else
      differentiate_state();
    return 0; /* the runtime should have stopped the program */
  }
  require_device();
  expect_stop(argv[0], "sums",
              "kinase: kernel 'block_sum(float*, float const*)' cannot be differentiated: it uses an atomic "
              "operation other than atomicAdd on differentiated memory");
  expect_stop(argv[0], "state",
              "kinase: kernel 'scale_state(float const*)' cannot be differentiated: it reads and writes "
              "the __device__ variable 'g_state'");
  return check_exit();
}
