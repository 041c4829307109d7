// A kernel Kinase cannot differentiate (the last of a block's threads to
// write wins, through atomicExch) still compiles: its module holds the
// reason instead of derivative kernels, which a differentiated launch of it
// reports at run time (checked on the GPU, in a child process). A kernel
// beside it gets its derivative kernels.
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-DAG: .global .align 4 .b8 __kinase_kinfo__Z9block_sumPfPKf
// CHECK-DAG: .global .align 4 .b8 __kinase_kwhy__Z9block_sumPfPKf
// CHECK-DAG: .entry __kinase_krev_nd__Z6squarePfPKf(
// CHECK-NOT: __kinase_krev_{{.*}}block_sum

#include <kinase.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cuda_check.h"

__global__ void block_sum(float *out, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicExch(out + blockIdx.x, x[i] * x[i]);
}

__global__ void square(float *y, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i] * x[i];
}

void sums(float *out, const float *x, int blocks) { block_sum<<<blocks, 256>>>(out, x); }

/* The differentiated launch, in a process of its own (exec'd: a forked child
 * may not use its parent's CUDA context): the runtime stops it. */
static void differentiate(void) {
  static float x[512], dx[512], out[2], dout[2] = {1, 1};
  float *d_x = to_device(x), *d_dx = to_device(dx), *d_out = device_alloc(out),
        *d_dout = to_device(dout);
  __enzyme_autodiff((void *)sums, enzyme_dup, d_out, d_dout, enzyme_dup, d_x, d_dx, enzyme_const, 2);
  check_kernel("sums");
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--child")) {
    differentiate();
    return 0; /* the runtime should have stopped the program */
  }
  require_device();
  int fds[2];
  if (pipe(fds) != 0)
    return 1;
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    dup2(fds[1], 2);
    execl("/proc/self/exe", argv[0], "--child", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char message[1024] = {0};
  size_t used = 0;
  ssize_t got;
  while ((got = read(fds[0], message + used, sizeof message - 1 - used)) > 0)
    used += (size_t)got;
  int status = 0;
  waitpid(child, &status, 0);
  check_within(WIFEXITED(status) ? WEXITSTATUS(status) : 128, 1, 0, "exit status");
  const char *want = "kinase: kernel 'block_sum(float*, float const*)' cannot be differentiated: it uses an "
                     "atomic operation other than atomicAdd on differentiated memory";
  check_within(strncmp(message, want, strlen(want)) == 0, 1, 0, "message: %s", message);
  return check_exit();
}
