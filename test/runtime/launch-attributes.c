// Which launch attributes of a cuLaunchKernelEx its derivative launches
// get (kinase_rt_derivative_attributes, runtime/cuda_attributes.c): those
// that shape or schedule the kernel's threads (cluster dimensions,
// cooperative, priority, ...) go with them, in order and with their values;
// those of the one launch the user made (its events, programmatic stream
// serialisation, graph-only ones) do not. No CUDA call, no GPU: the
// program links the archive without cudart or the driver.
//
// REQUIRES: cuda
// RUN: %clang -std=c11 -Wall -Wextra -Werror %cudainc %runtimeinc %s %kinase-rt -o %t.exe
// RUN: %t.exe

#include <stdio.h>
#include <string.h>

#include "cuda_rt.h"

int main(void) {
  CUlaunchAttribute given[8];
  memset(given, 0, sizeof given);
  given[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  given[0].value.clusterDim.x = 2, given[0].value.clusterDim.y = 1, given[0].value.clusterDim.z = 1;
  given[1].id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
  given[2].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  given[2].value.cooperative = 1;
  given[3].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  given[3].value.programmaticStreamSerializationAllowed = 1;
  given[4].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
  given[4].value.priority = -1;
  given[5].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
  given[6].id = CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
  given[7].id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
  given[7].value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;

  CUlaunchAttribute kept[8];
  unsigned n = kinase_rt_derivative_attributes(given, 8, kept);
  const unsigned want[] = {0, 2, 4, 7};
  int failures = n != sizeof want / sizeof *want;
  for (unsigned i = 0; !failures && i < n; i++)
    failures += memcmp(&kept[i], &given[want[i]], sizeof kept[i]) != 0;
  failures += kinase_rt_derivative_attributes(given, 0, kept) != 0;
  printf("%s: %u of 8 kept\n", failures ? "FAIL" : "PASS", n);
  return failures != 0;
}
