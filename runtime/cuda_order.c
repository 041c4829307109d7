/* The order of the reverse sweep across streams. The forward sweep's order
 * between streams is the program's (its events, waits and synchronisations);
 * the reverse sweep runs the reverses in the opposite order, and an adjoint
 * one operation leaves on its stream is read by the next on another stream.
 * So each reverse operation's stream waits for the one before it, through
 * one event: a total order without stopping the host. */
#include <pthread.h>

#include "cuda_rt.h"

static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaEvent_t last; /* recorded after the last reverse operation */
static bool recorded;

void kinase_rt_reverse_begin(cudaStream_t stream, const char *where) {
  pthread_mutex_lock(&order_lock);
  if (recorded)
    CHECK(where, cudaStreamWaitEvent, stream, last, 0);
  pthread_mutex_unlock(&order_lock);
}

void kinase_rt_reverse_end(cudaStream_t stream, const char *where) {
  pthread_mutex_lock(&order_lock);
  if (!last)
    CHECK(where, cudaEventCreateWithFlags, &last, cudaEventDisableTiming);
  CHECK(where, cudaEventRecord, last, stream);
  recorded = true;
  pthread_mutex_unlock(&order_lock);
}
