// A device function defined in one file and called from a kernel in another:
// relocatable device code (-fgpu-rdc), linked at link time.
__device__ double twice(double x) { return 2 * x; }
