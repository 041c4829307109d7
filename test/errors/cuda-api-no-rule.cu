// A CUDA API call with no row in lib/rules/cuda.def, in a differentiated host
// function: a located error naming it, never a silently dropped derivative;
// a refused one (a CUDA_REFUSED row) says why.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

float peer_sum(const float *dev, int n) {
  float host[64];
  // CHECK: {{.*}}cuda-api-no-rule.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}peer_sum{{.*}}': it copies between two devices' memory{{.*}} (cudaMemcpyPeer)
  cudaMemcpyPeer(host, 0, dev, 1, n * sizeof(float));
  float s = 0;
  for (int i = 0; i < n; i++)
    s += host[i];
  return s;
}

float captured_sum(const float *dev, int n, cudaStream_t stream) {
  float host[64];
  // CHECK: {{.*}}cuda-api-no-rule.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}captured_sum{{.*}}': it records or runs a CUDA graph{{.*}} (cudaStreamBeginCapture)
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += host[i];
  return s;
}

static void CUDART_CB report(void *) {}

float host_fn_sum(const float *dev, int n, cudaStream_t stream) {
  float host[64];
  cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  // CHECK: {{.*}}cuda-api-no-rule.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}host_fn_sum{{.*}}': it runs a host function in stream order{{.*}} (cudaLaunchHostFunc)
  cudaLaunchHostFunc(stream, report, nullptr);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += host[i];
  return s;
}

float reset_sum(const float *dev, int n) {
  float host[64];
  cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK: {{.*}}cuda-api-no-rule.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}reset_sum{{.*}}': it destroys the device's memory{{.*}} (cudaDeviceReset)
  cudaDeviceReset();
  float s = 0;
  for (int i = 0; i < n; i++)
    s += host[i];
  return s;
}

float shared_sum(const float *dev, int n) {
  float host[64];
  cudaIpcMemHandle_t handle;
  // CHECK: {{.*}}cuda-api-no-rule.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}shared_sum{{.*}}': CUDA API function 'cudaIpcGetMemHandle' has no derivative rule in Kinase
  cudaIpcGetMemHandle(&handle, (void *)dev);
  cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += host[i];
  return s;
}

void gradient(const float *dev, float *ddev, cudaStream_t stream) {
  __enzyme_autodiff((void *)peer_sum, enzyme_dup, dev, ddev, enzyme_const, 64);
  __enzyme_autodiff((void *)captured_sum, enzyme_dup, dev, ddev, enzyme_const, 64, enzyme_const, stream);
  __enzyme_autodiff((void *)host_fn_sum, enzyme_dup, dev, ddev, enzyme_const, 64, enzyme_const, stream);
  __enzyme_autodiff((void *)reset_sum, enzyme_dup, dev, ddev, enzyme_const, 64);
  __enzyme_autodiff((void *)shared_sum, enzyme_dup, dev, ddev, enzyme_const, 64);
}
