// Kernels taking a struct by value and writing through its pointer fields,
// as many CUDA programs write them, launched from differentiated host code:
//   saxpy, in place:     y_i += a x_i
//     dx_i = a w_i, dy_i = w_i (kept), da = sum x_i w_i
//   decay, in place, launched `steps` times with one struct:
//     u_i <- u_i - dt u_i^2, adjoint w_i <- w_i (1 - 2 dt u_i) per step,
//     ddt = sum over steps of -u_i^2 w_i (u and w of that step)
// The runtime copies what a written field points to before the launch, so
// the reverse kernel, which runs the kernel's stores again, stores into the
// copy: after the requests the primal results are those of the forward
// sweep (y = y0 + a x once, u after `steps` steps, not twice as many).
//   relax, in place, a loop in one launch reading a Const field:
//     u_i <- u_i + dt sin(k_i u_i), `steps` times; its reverse kernel
//     records u per step (on the device heap: the kernel writes through the
//     struct, so its forward part cannot run twice to count)
// Forward mode: the tangent of y and of u along every input.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.dev.ll
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.dev.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// PTX-NOT: __kinase_kwhy_
// The kernel info: the struct's word (24 bytes, STRUCT, READ and WRITTEN
// through its fields), its pointer word (x at 0, y at 8: bits 0 and 1) and
// its written word (y: bit 1).
// PTX-DAG: __kinase_kinfo__Z4axpy4Args[24] = {75, 73, 78, 49, 1, 0, 0, 0, 0, 0, 0, 0, 24, 0, 6, 4, 3, 0, 0, 0, 2};
// PTX-DAG: __kinase_kinfo__Z5decay4Step[24] = {75, 73, 78, 49, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 6, 4, 1, 0, 0, 0, 1};
// PTX-DAG: .entry __kinase_krev___Z4axpy4Args(
// PTX-DAG: .entry __kinase_kfwd___Z4axpy4Args(
// PTX-DAG: .entry __kinase_krev___Z5decay4Step(
// PTX-DAG: .entry __kinase_kfwd___Z5decay4Step(
// PTX-DAG: .entry __kinase_krev___Z5relax5Relax(
//
// The reverse kernel: the struct, its shadow struct, the accumulator of
// `a`, the arena. It stores y again (into the runtime's copy), then reads
// y's adjoint through the shadow field, clears it and adds back what
// flows to y's old value; x's adjoint and a's are added atomically.
// IR-LABEL: define ptx_kernel void @__kinase_krev___Z4axpy4Args(ptr {{.*}}byval(%struct.Args) {{.*}}%0, ptr {{.*}}byval(%struct.Args) {{.*}}%1, ptr {{.*}}%2, ptr {{.*}}%3)
// IR-DAG: %[[DYF:[0-9]+]] = getelementptr inbounds nuw i8, ptr %1, i64 8
// IR-DAG: %[[DY:[0-9]+]] = load ptr, ptr %[[DYF]]
// IR-DAG: %[[DX:[0-9]+]] = load ptr, ptr %1,
// IR-DAG: %[[YF:[0-9]+]] = getelementptr inbounds nuw i8, ptr %0, i64 8
// IR-DAG: %[[Y:[0-9]+]] = load ptr, ptr %[[YF]]
// IR: %[[YI:[0-9]+]] = getelementptr inbounds float, ptr %[[Y]]
// IR: store float {{.*}}, ptr %[[YI]]
// IR: %[[DYI:[0-9]+]] = getelementptr inbounds float, ptr %[[DY]]
// IR: %[[ADJ:[0-9]+]] = load float, ptr %[[DYI]]
// IR: store float 0.000000e+00, ptr %[[DYI]]
// IR: atomicrmw fadd ptr %[[DYI]], float %[[ADJ]]
// IR: %[[DXI:[0-9]+]] = getelementptr inbounds float, ptr %[[DX]]
// IR: atomicrmw fadd ptr %[[DXI]]
// IR: getelementptr i8, ptr %2, i64 16
// IR: atomicrmw fadd
// IR: ret void
//
// CHECK-DAG: call ptr @__kinase_launch_augment(ptr {{.*}}axpy
// CHECK-DAG: call ptr @__kinase_launch_augment(ptr {{.*}}decay
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}axpy
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}decay

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 1000, THREADS = 128, STEPS = 3 };

struct Args {
  const float *x;
  float *y;
  float a;
  int n;
};

__global__ void axpy(Args p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    p.y[i] += p.a * p.x[i];
}

void saxpy(const float *x, float *y, float a, int n) {
  Args p = {x, y, a, n};
  axpy<<<(n + THREADS - 1) / THREADS, THREADS>>>(p);
}

struct Step {
  float *u;
  float dt;
  int n;
};

__global__ void decay(Step s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n)
    s.u[i] = s.u[i] - s.dt * s.u[i] * s.u[i];
}

void integrate(float *u, float dt, int n, int steps) {
  Step s = {u, dt, n};
  for (int k = 0; k < steps; k++)
    decay<<<(n + THREADS - 1) / THREADS, THREADS>>>(s);
}

struct Relax {
  float *u;
  const float *k;
  float dt;
  int n, steps;
};

__global__ void relax(Relax r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= r.n)
    return;
  for (int t = 0; t < r.steps; t++)
    r.u[i] = r.u[i] + r.dt * sinf(r.k[i] * r.u[i]);
}

void run_relax(float *u, const float *k, float dt, int n, int steps) {
  Relax r = {u, k, dt, n, steps};
  relax<<<(n + THREADS - 1) / THREADS, THREADS>>>(r);
}

static void check_relax(const float *u0, const float *w) {
  enum { RELAX_STEPS = 20 };
  static float k[N], got[N], du[N];
  for (int i = 0; i < N; i++)
    k[i] = (float)(1.0 + 0.5 * cos(0.05 * i));
  const float dt = 0.05f;
  float *d_u = device_alloc<float>(N), *d_k = to_device(k), *d_du = device_alloc<float>(N);
  check_cuda(cudaMemcpy(d_u, u0, sizeof(float) * N, cudaMemcpyHostToDevice), "copy u");
  check_cuda(cudaMemcpy(d_du, w, sizeof(float) * N, cudaMemcpyHostToDevice), "copy w");
  float ddt = __enzyme_autodiff((void *)run_relax, enzyme_dup, d_u, d_du, enzyme_const, d_k,
                                enzyme_out, dt, enzyme_const, N, enzyme_const, (int)RELAX_STEPS);
  check_kernel("relax reverse");
  from_device(got, d_u);
  from_device(du, d_du);
  double want_ddt = 0;
  for (int i = 0; i < N; i++) {
    double us[RELAX_STEPS + 1];
    us[0] = u0[i];
    for (int t = 0; t < RELAX_STEPS; t++)
      us[t + 1] = us[t] + dt * sin(k[i] * us[t]);
    double adj = w[i];
    for (int t = RELAX_STEPS - 1; t >= 0; t--) {
      want_ddt += sin(k[i] * us[t]) * adj;
      adj *= 1 + dt * k[i] * cos(k[i] * us[t]);
    }
    check_close(got[i], us[RELAX_STEPS], 1e-5, "relax u[%d] after the request", i);
    check_close(du[i], adj, 1e-4, "relax du0[%d]", i);
  }
  check_close(ddt, want_ddt, 1e-3, "relax ddt");
}

int main(void) {
  require_device();
  static float x[N], y0[N], u0[N], w[N], zeros[N], ones[N], got[N], dx[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)sin(0.01 * i);
    y0[i] = (float)(0.5 + 0.25 * cos(0.03 * i));
    u0[i] = (float)(0.5 + 0.4 * sin(0.07 * i));
    w[i] = (float)(1.0 + 0.001 * i);
    ones[i] = 1;
  }
  const float a = 1.5f, dt = 0.1f;

  // saxpy, reverse: x dup, y dup seeded with w, a active.
  float *d_x = to_device(x), *d_y = to_device(y0), *d_dx = to_device(zeros), *d_dy = to_device(w);
  float da = __enzyme_autodiff((void *)saxpy, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy,
                               enzyme_out, a, enzyme_const, N);
  check_kernel("saxpy reverse");
  from_device(got, d_y);
  from_device(dx, d_dx);
  from_device(dy, d_dy);
  double want_da = 0;
  for (int i = 0; i < N; i++) {
    check_close(got[i], y0[i] + a * x[i], 1e-6, "saxpy y[%d] after the request", i);
    check_close(dx[i], a * w[i], 1e-6, "saxpy dx[%d]", i);
    check_close(dy[i], w[i], 1e-6, "saxpy dy[%d]", i);
    want_da += (double)x[i] * w[i];
  }
  check_close(da, want_da, 1e-4, "saxpy da");

  // saxpy, forward: tangent 1 along every x_i, y_i and along a.
  float *d_y2 = to_device(y0), *d_tx = to_device(ones), *d_ty = to_device(ones);
  __enzyme_fwddiff((void *)saxpy, enzyme_dup, d_x, d_tx, enzyme_dup, d_y2, d_ty, enzyme_dup, a,
                   1.0f, enzyme_const, N);
  check_kernel("saxpy forward");
  from_device(dy, d_ty);
  for (int i = 0; i < N; i++)
    check_close(dy[i], 1 + a + x[i], 1e-6, "saxpy tangent[%d]", i);

  // decay, reverse: u dup seeded with w, dt active.
  float *d_u = to_device(u0), *d_du = to_device(w);
  float ddt = __enzyme_autodiff((void *)integrate, enzyme_dup, d_u, d_du, enzyme_out, dt,
                                enzyme_const, N, enzyme_const, (int)STEPS);
  check_kernel("integrate reverse");
  from_device(got, d_u);
  from_device(dy, d_du);
  double want_ddt = 0;
  for (int i = 0; i < N; i++) {
    double us[STEPS + 1];
    us[0] = u0[i];
    for (int k = 0; k < STEPS; k++)
      us[k + 1] = us[k] - dt * us[k] * us[k];
    double adj = w[i];
    for (int k = STEPS - 1; k >= 0; k--) {
      want_ddt += -us[k] * us[k] * adj;
      adj *= 1 - 2 * dt * us[k];
    }
    check_close(got[i], us[STEPS], 1e-5, "integrate u[%d] after the request", i);
    check_close(dy[i], adj, 1e-5, "integrate du0[%d]", i);
  }
  check_close(ddt, want_ddt, 1e-3, "integrate ddt");

  // decay, forward: tangent 1 along every u0_i and along dt.
  float *d_u2 = to_device(u0), *d_tu = to_device(ones);
  __enzyme_fwddiff((void *)integrate, enzyme_dup, d_u2, d_tu, enzyme_dup, dt, 1.0f, enzyme_const,
                   N, enzyme_const, (int)STEPS);
  check_kernel("integrate forward");
  from_device(dy, d_tu);
  for (int i = 0; i < N; i++) {
    double u = u0[i], t = 1;
    for (int k = 0; k < STEPS; k++) {
      t = t - u * u - 2 * dt * u * t;
      u = u - dt * u * u;
    }
    check_close(dy[i], t, 1e-5, "integrate tangent[%d]", i);
  }
  check_relax(u0, w);
  device_free_all();
  return check_exit();
}
