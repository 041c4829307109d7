// A time-stepping loop: each step launches a diffusion kernel into a
// temporary, copies it back over the field (device to device) and copies
// the field to the host, which adds the step's energy. The kernel of step
// s reads what step s-1 wrote and the copy then overwrites: the reverse
// sweep needs each step's field as it was (snapshots). Gradient of the
// weighted energy with respect to the initial field (the adjoint recursion
// computed on the host) and to the diffusion constant k (central
// differences); the field after the steps is checked too.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The launch inside the loop is recorded once per step, and the loop's
// reverse launches the reverse kernel as many times.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}diffuse
// CHECK-DAG: call void @__kinase_launch_reverse(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

// One explicit step of 1-D diffusion with fixed ends: v = u + k (u[i-1] - 2u[i] + u[i+1]).
__global__ void diffuse(float *v, const float *u, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float left = i > 0 ? u[i - 1] : 0.0f, right = i + 1 < n ? u[i + 1] : 0.0f;
  v[i] = u[i] + k * (left - 2.0f * u[i] + right);
}

// Energy observed at every step: the field is copied back each step and
// the host sums u^2 weighted by the step.
float simulate(float *d_u, float k, int n, int steps) {
  std::vector<float> host(n);
  float *d_v;
  cudaMalloc(&d_v, n * sizeof(float));
  float energy = 0;
  for (int s = 0; s < steps; s++) {
    diffuse<<<(n + 127) / 128, 128>>>(d_v, d_u, k, n);
    cudaMemcpy(d_u, d_v, n * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpy(host.data(), d_u, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
      energy += (float)(s + 1) * host[i] * host[i];
  }
  cudaFree(d_v);
  return energy;
}

static double reference(std::vector<double> u, double k, int steps, std::vector<double> *grad) {
  int n = (int)u.size();
  std::vector<std::vector<double>> states{u};
  double energy = 0;
  for (int s = 0; s < steps; s++) {
    std::vector<double> v(n);
    for (int i = 0; i < n; i++)
      v[i] = u[i] + k * ((i > 0 ? u[i - 1] : 0) - 2 * u[i] + (i + 1 < n ? u[i + 1] : 0));
    u = v;
    states.push_back(u);
    for (int i = 0; i < n; i++)
      energy += (s + 1) * u[i] * u[i];
  }
  if (grad) { // adjoint of the initial field
    std::vector<double> a(n, 0.0);
    for (int s = steps - 1; s >= 0; s--) {
      for (int i = 0; i < n; i++)
        a[i] += 2.0 * (s + 1) * states[s + 1][i];
      std::vector<double> b(n, 0.0);
      for (int i = 0; i < n; i++) {
        b[i] += a[i] * (1 - 2 * k);
        if (i > 0) b[i - 1] += a[i] * k;
        if (i + 1 < n) b[i + 1] += a[i] * k;
      }
      a = b;
    }
    *grad = a;
  }
  return energy;
}

int main() {
  require_device();
  const int n = 300, steps = 12;
  const float k = 0.2f;
  std::vector<float> u0(n);
  std::vector<double> u0d(n);
  for (int i = 0; i < n; i++)
    u0d[i] = u0[i] = expf(-0.001f * (i - 150) * (i - 150));
  float *d_u = to_device(u0), *d_du = device_alloc<float>(n);
  check_cuda(cudaMemset(d_du, 0, n * sizeof(float)), "memset");
  double dk = __enzyme_autodiff((void *)simulate, enzyme_dup, d_u, d_du, enzyme_out, k,
                                enzyme_const, n, enzyme_const, steps);
  check_kernel("gradient of simulate");
  std::vector<float> du(n), u(n);
  from_device(du, d_du);
  from_device(u, d_u);
  std::vector<double> want;
  reference(u0d, k, steps, &want);
  for (int i = 0; i < n; i++)
    check_close(du[i], want[i], 1e-3, "du0[%d]", i);
  double h = 1e-4;
  double fd = (reference(u0d, k + h, steps, nullptr) - reference(u0d, k - h, steps, nullptr)) / (2 * h);
  check_close(dk, fd, 2e-3, "d k (central difference)");
  // the primal ran: d_u holds the field after the steps
  std::vector<double> last = u0d;
  for (int s = 0; s < steps; s++) {
    std::vector<double> v(n);
    for (int i = 0; i < n; i++)
      v[i] = last[i] + k * ((i > 0 ? last[i - 1] : 0) - 2 * last[i] + (i + 1 < n ? last[i + 1] : 0));
    last = v;
  }
  for (int i = 0; i < n; i++)
    check_close(u[i], last[i], 1e-4, "u after the steps[%d]", i);
  return check_exit();
}
