// The shape of the derivative kernels of the seed's log-likelihood kernel
// (the form users write: a __device__ helper called per thread with an
// output pointer), as the host's request uses them (logL unneeded, theta dup,
// x Const: pattern ndc):
//  - no device malloc, no local-memory tape: the data loop's loads are
//    repeated in the reverse sweep (x is only read: frozen);
//  - no atomics on dtheta: thread i owns theta[4i..4i+3], so its adjoints are
//    plain read-modify-writes in a one-dimensional launch (the atomic path
//    stays for other launch shapes), all four behind one check of the
//    launch's shape, so that their loads issue together;
//  - no store of logL: its results are not needed, and the forward loop that
//    only fed them is gone (one loop over the data, not two).
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
//
// Two reverse kernels, x Const or not: no reverse kernel stores logL (the
// primal launch did, where it is needed), and theta, each thread's own four
// floats, always has a shadow (runtime/kinase_cuda.h):
// RUN: grep -c "\.entry __kinase_krev_" %t.ptx | grep -x 2
// RUN: not grep -E "krev_(d|.c)" %t.ptx
//
// CHECK-LABEL: .entry __kinase_krev_ndc__Z6loglikPfPKfS1_ii(
// dlogL is read; nothing is stored before the loops are done (its zeroing
// waits for them: lib/reverse/clears.c):
// CHECK-NOT: {{st\.global|atom|malloc|\.local}}
// The data loop's reverse sums what varies with the data point alone, x - mu
// and its square, per dimension: a subtraction, an add and an fma, no
// multiplication (lib/reverse/factor.c); 1/s and the seed multiply the sums
// after the loop, as in a hand-written gradient.
// The loop is unrolled four times (llvm.loop.unroll.count), its remainder
// first: one iteration there, four in the main loop.
// CHECK: Inner Loop
// CHECK-NOT: mul.f32
// CHECK-COUNT-2: fma.rn.f32
// CHECK-NOT: {{fma.rn.f32|mul.f32}}
// CHECK: bra
// CHECK: Inner Loop
// CHECK-NOT: mul.f32
// CHECK-COUNT-8: fma.rn.f32
// CHECK-NOT: {{fma.rn.f32|mul.f32}}
// CHECK: bra.uni
// dlogL[i] zeroed, then the owned path, taken in a one-dimensional launch,
// one block of four read-modify-writes, then the atomic path:
// CHECK: st.global.b32 [%rd{{[0-9]+}}], 0;
// CHECK-NOT: {{st\.global|atom}}
// CHECK: %ntid.y
// CHECK: bra
// CHECK: ld.global.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+12];
// CHECK-NOT: {{bra|atom}}
// CHECK: st.global.b32 [%rd{{[0-9]+}}+8], %r
// CHECK-NOT: {{bra|atom}}
// CHECK: st.global.b32 [%rd{{[0-9]+}}+4], %r
// CHECK-NOT: {{bra|atom}}
// CHECK: st.global.b32 [%rd{{[0-9]+}}], %r
// CHECK: atom.global.add.f32
// CHECK-NOT: {{bra|malloc|\.local}}
// CHECK: atom.global.add.f32
// CHECK-NOT: {{bra|malloc|\.local}}
// CHECK: atom.global.add.f32
// CHECK-NOT: {{bra|malloc|\.local}}
// CHECK: atom.global.add.f32
// CHECK-NOT: {{malloc|\.local}}
// CHECK: ret;


__device__ void loglik_one(float *logL, const float *th, const float *x, int n) {
  float mu1 = th[0], mu2 = th[1], s1 = th[2], s2 = th[3];
  float is1 = 1.f / s1, is2 = 1.f / s2, q = 0.f;
  for (int k = 0; k < n; k++) {
    float d1 = (x[2 * k] - mu1) * is1, d2 = (x[2 * k + 1] - mu2) * is2;
    q += d1 * d1 + d2 * d2;
  }
  *logL = -0.5f * q - n * (logf(s1) + logf(s2));
}

__global__ void loglik(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    loglik_one(logL + i, th + 4 * i, x, n);
}
