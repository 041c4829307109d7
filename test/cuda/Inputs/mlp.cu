// The kernels of test/cuda/host-driver-mlp-stream.c.
#include "../include/mlp_kernels.cuh"
