/* The Kinase host runtime, linked into every program kinase-cc links.
 * Derivative-kernel lookup, launches and shadow memory will live here. */

#ifndef KINASE_VERSION
#define KINASE_VERSION "unknown"
#endif

const char *kinase_runtime_version(void) { return KINASE_VERSION; }
