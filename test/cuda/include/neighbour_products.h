/* neighbour_products.h: the analytic derivatives of the tests whose threads
 * stage s_i = x_i^2 in shared memory and multiply it with the next thread's
 * of the block, p_i = s_i s_next (s_k = 0 past n, blocks of b threads).
 * x_i is in p_i and in p_previous. (Header only, CUDA C++.) */
#ifndef KINASE_TEST_NEIGHBOUR_PRODUCTS_H
#define KINASE_TEST_NEIGHBOUR_PRODUCTS_H

/* p_i, staged in the block's dynamic shared memory (b floats). Every thread
 * of the block calls it: the barrier needs them all. */
__device__ float neighbour_product(const float *x, int i, int n) {
  extern __shared__ float stage[];
  int t = threadIdx.x;
  stage[t] = i < n ? x[i] * x[i] : 0.f;
  __syncthreads();
  return stage[t] * stage[(t + 1) % blockDim.x];
}

static double neighbour_staged(const float *x, int n, int i) { return i < n ? (double)x[i] * x[i] : 0.0; }
static int neighbour_next(int b, int i) { return i / b * b + (i % b + 1) % b; }
static int neighbour_previous(int b, int i) { return i / b * b + (i % b + b - 1) % b; }

/* d/dx_i of the sum of all p. */
static double neighbour_gradient(const float *x, int n, int b, int i) {
  int next = neighbour_next(b, i), previous = neighbour_previous(b, i);
  return 2.0 * x[i] * neighbour_staged(x, n, next) +
         (previous < n ? neighbour_staged(x, n, previous) * 2.0 * x[i] : 0.0);
}

/* The tangent of p_i along all ones. */
static double neighbour_tangent(const float *x, int n, int b, int i) {
  int next = neighbour_next(b, i);
  return 2.0 * x[i] * neighbour_staged(x, n, next) + (next < n ? neighbour_staged(x, n, i) * 2.0 * x[next] : 0.0);
}

#endif
