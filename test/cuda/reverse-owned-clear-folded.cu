// The reverse of `y[i] = f(y[i])` zeroes dy[i], then adds the adjoint of the
// old value back into it. In a one-dimensional launch, where the thread
// owns dy[i], the zero and the read-modify-write fold into one store (none
// at all where the old value has slope 1, as in axpy: dy[i] stays as it
// was); the atomic path of other launches zeroes first, as before. The
// double store cost axpy's reverse kernel 3.4x (docs/PERFORMANCE.md).
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S -emit-llvm %s -o - | FileCheck %s
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

extern "C" __global__ void square_in_place(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] * y[i];
}

// CHECK-LABEL: define ptx_kernel void @__kinase_krev_n_square_in_place(
// CHECK: [[DY:%[0-9]+]] = getelementptr inbounds float, ptr %1
// CHECK-NOT: store
// CHECK: br i1 {{%[0-9]+}}, label %[[LINEAR:[0-9]+]], label %[[ANY:[0-9]+]]
// CHECK: [[LINEAR]]:
// CHECK-NEXT: store float [[GRAD:%[0-9]+]], ptr [[DY]]
// CHECK-NEXT: br label
// CHECK: [[ANY]]:
// CHECK-NEXT: store float 0.000000e+00, ptr [[DY]]
// CHECK-NEXT: atomicrmw fadd ptr [[DY]], float [[GRAD]]

extern "C" __global__ void axpy(float *y, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

// CHECK-LABEL: define ptx_kernel void @__kinase_krev_nd_axpy(
// CHECK: [[DY:%[0-9]+]] = getelementptr inbounds float, ptr %1
// CHECK-NOT: store {{.*}} ptr [[DY]]
// CHECK: br i1 {{%[0-9]+}}, label %[[LINEAR:[0-9]+]], label %[[ANY:[0-9]+]]
// CHECK: [[LINEAR]]:
// CHECK-NOT: ptr [[DY]]
// CHECK: [[ANY]]:
// CHECK-NEXT: store float 0.000000e+00, ptr [[DY]]
// CHECK-NEXT: atomicrmw fadd ptr [[DY]]
