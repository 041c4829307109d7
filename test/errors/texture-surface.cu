// Textures and surfaces in differentiated device code. What they hold has
// no shadow, so a value read from one is a constant of the derivative
// (said by a remark, -Rpass-missed=kinase), and a derivative that would
// flow into one is a located error rather than lost: a coordinate that
// carries a derivative (tex1D at u * 2 with u active), or a value that
// carries one written to a surface (surf2Dwrite). clang's headers write
// them as assembly, which Kinase refused as a whole before ("it contains
// inline assembly ('tex.1d.v4.f32.s32 ...')"); the errors point at the
// user's line, not the header's. A kernel launched from host code gets the
// same message as its reason (it has no derivative kernels, and a
// differentiated launch of it stops with the reason).
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %kinase-cc -O2 --cuda-device-only -S -DKERNELS_ONLY -Rpass-missed=kinase %s -o %t.ptx 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
#include <kinase.h>

#ifndef KERNELS_ONLY
__device__ float fetch_at(cudaTextureObject_t tex, float u) {
  // The fetch is in a helper of clang's header, differentiated as a callee:
  // CHECK-DAG: {{.*}}texture-surface.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'fetch_at(unsigned long long, float)': in '{{.*}}__tex_fetch{{.*}}' (__clang_cuda_texture_intrinsics.h:{{[0-9]+}}), which it reaches here: it reads a texture (tex1Dfetch, tex2D, ...) at a coordinate that carries a derivative
  return tex1D<float>(tex, u * 2.f);
}

__device__ void blend(cudaSurfaceObject_t surf, const float *x) {
  // CHECK-DAG: {{.*}}texture-surface.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}blend{{.*}}': it writes a value that carries a derivative to a surface (surf2Dwrite, ...)
  surf2Dwrite(x[threadIdx.x] * 3.f, surf, threadIdx.x * 4, 0);
}

__global__ void requests(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float u, const float *x, float *dx) {
  __enzyme_autodiff((void *)fetch_at, enzyme_const, tex, enzyme_out, u);
  __enzyme_autodiff((void *)blend, enzyme_const, surf, enzyme_dup, x, dx);
}
// CHECK: 2 errors generated
#endif

// Fetched values are constants: w's adjoint is the texel, nothing flows
// into the texture, and the fetch is made again in the reverse sweep
// rather than recorded.
__global__ void weighted(float *y, const float *w, cudaTextureObject_t tex, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    // REMARK: texture-surface.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}weighted{{.*}}': the value read from a texture is a constant: textures have no shadow, so no derivative flows through what they hold
    y[i] = w[i] * tex1Dfetch<float>(tex, i);
}

// A kernel writing a value with a derivative to a surface has no derivative
// kernels: its reason says why.
__global__ void store_scaled(cudaSurfaceObject_t surf, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    surf2Dwrite(2.f * x[i], surf, i * 4, 0);
}
// REMARK-NOT: recorded on the tape
// PTX-DAG: .entry __kinase_krev_{{[a-z]+}}__Z8weightedPfPKfyi(
// PTX-DAG: .global .align {{[0-9]+}} .b8 __kinase_kwhy__Z12store_scaledyPKfi
