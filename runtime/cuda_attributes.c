/* Which launch attributes of a cuLaunchKernelEx the derivative launches of
 * that kernel get. The reverse and forward kernels run the kernel's threads
 * again, so what shapes or schedules those threads (clusters, cooperative
 * launch, priority, memory sync domains, cache carve-out) goes with them:
 * a kernel that reads its cluster's size, or synchronises its grid, sees
 * the same values in its derivatives. What belongs to the one launch the
 * user made stays with it. No CUDA call here, so that the choice is tested
 * without a GPU (test/runtime/launch-attributes.c). */
#include "cuda_rt.h"

/* Attribute ids not listed are passed on: newer ones are hints about how to
 * schedule the same threads. */
static const CUlaunchAttributeID launch_only[] = {
    /* events the user's launch records or triggers: recording them again
     * in the reverse sweep would move them past what waits for them */
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT,
    CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT,
    /* lets the kernel start before the previous one in its stream ends;
     * a derivative kernel must wait for the reverse operation before it */
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
    /* graph kernel nodes only */
    CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE,
};

static bool launch_only_attribute(CUlaunchAttributeID id) {
  for (size_t i = 0; i < sizeof launch_only / sizeof *launch_only; i++)
    if (launch_only[i] == id)
      return true;
  return false;
}

unsigned kinase_rt_derivative_attributes(const CUlaunchAttribute *attrs, unsigned count,
                                         CUlaunchAttribute *kept) {
  unsigned n = 0;
  for (unsigned i = 0; i < count; i++)
    if (!launch_only_attribute(attrs[i].id))
      kept[n++] = attrs[i];
  return n;
}
