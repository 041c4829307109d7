/* A C function for the driver tests that link C with C++ or CUDA: its symbol
 * is `triple` only if this file is compiled as C (as C++ it is mangled). */
double triple(double x) { return 3 * x; }
