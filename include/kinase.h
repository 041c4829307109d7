/* kinase.h: the public interface of Kinase, compatible with Enzyme's C ABI.
 *
 * Usable from C, C++ and CUDA (host and device code). Compile with kinase-cc,
 * which adds this directory to the include path and the Kinase pass to clang.
 *
 *   #include <kinase.h>
 *
 *   double f(double x, const double *p) { return x * x * p[0]; }
 *
 *   // Reverse mode: d f / d x is returned, d f / d p accumulated into dp.
 *   double dp[1] = {0};
 *   double dx = __enzyme_autodiff((void *)f, enzyme_out, x, enzyme_dup, p, dp);
 *
 *   // Forward mode: the tangent of f in the direction (1, dp).
 *   double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0, enzyme_const, p);
 *
 * Markers, one before each argument of the differentiated function:
 *   enzyme_dup, x, dx       x with its shadow or tangent dx
 *   enzyme_dupnoneed, x, dx the same, and the primal result is not needed
 *   enzyme_const, x         x is not differentiated
 *   enzyme_out, x           (reverse mode) an active scalar; its gradient is returned
 * Unmarked arguments: floating-point scalars are out, pointers dup, integers
 * const. The markers are only ever read by name by the pass: they are never
 * defined in a program that runs.
 *
 * Batch (vector) forward mode: enzyme_width, W anywhere in the call gives
 * every value W tangents. Each dup argument is then followed by W shadows,
 * or written enzyme_dupv, stride, x, dx with lane k's shadow at dx + k *
 * stride bytes; a floating-point result's W tangents come back as a struct
 * or array of W (declare the entry point yourself, under another name
 * containing __enzyme_fwddiff if this header is included):
 *   typedef struct { double d0, d1; } T2;
 *   T2 __enzyme_fwddiff_2(void *, ...);
 *   T2 t = __enzyme_fwddiff_2((void *)f, enzyme_width, 2, x, 1.0, 0.0, enzyme_const, p);
 * __enzyme_batch(fn, enzyme_width, W, args...) calls fn once per lane and
 * returns the W results: enzyme_vector, x0, ..., x(W-1) (also unmarked
 * arguments), enzyme_scalar, x (every lane's), enzyme_buffer, stride, x
 * (lane k at x + k * stride bytes).
 *
 * Both entry points are declared here as variadic functions returning double.
 * A program that declares its own prototypes (other return types, C++
 * templates, as Enzyme's own examples do) defines KINASE_NO_ENTRY_DECLS
 * before including this header, or does not include it at all. Programs that
 * include it must not declare the markers themselves in CUDA device code.
 */
#ifndef KINASE_H
#define KINASE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDA__) && defined(__CUDA_ARCH__)
/* CUDA device compilation: device code cannot read a host variable, and an
 * extern __device__ variable would need -rdc. One private copy per
 * translation unit (its mangled name, such as _ZL10enzyme_dup, is
 * recognised too). */
static __device__ int enzyme_dup;
static __device__ int enzyme_dupnoneed;
static __device__ int enzyme_const;
static __device__ int enzyme_out;
static __device__ int enzyme_width;
static __device__ int enzyme_dupv;
static __device__ int enzyme_dupnoneedv;
static __device__ int enzyme_vector;
static __device__ int enzyme_scalar;
static __device__ int enzyme_buffer;
#elif !defined(KINASE_ENZYME_CXX)
/* (<enzyme/enzyme>, included first, declared them as Enzyme's header does.) */
extern int enzyme_dup;
extern int enzyme_dupnoneed;
extern int enzyme_const;
extern int enzyme_out;
#endif
#if !(defined(__CUDA__) && defined(__CUDA_ARCH__))
extern int enzyme_width;
extern int enzyme_dupv;
extern int enzyme_dupnoneedv;
extern int enzyme_vector;
extern int enzyme_scalar;
extern int enzyme_buffer;
#endif

/* Enzyme's attributes, written __attribute__((enzyme_inactive)) or
 * __attribute__((enzyme_function_like("log1p"))). Clang does not know them;
 * as annotations the pass reads them (kinase-cc defines these too, so that
 * programs without this header have them):
 *   enzyme_inactive, enzyme_inactive_noblock   functions and globals through
 *                                 which no derivative flows
 *   enzyme_function_like("log1p") differentiate the function as that math
 *                                 function (its body still runs)
 *   (enzyme_nofree, a hint Kinase needs not, has no macro: it is also the
 *   name of a marker, `int enzyme_nofree;`, which such a macro would break;
 *   annotate("enzyme_nofree") is accepted, with no effect)
 *   enzyme_shouldrecompute        reverse mode calls the function again rather
 *                                 than recording its result (when it writes
 *                                 no memory and is not differentiated itself)
 *   enzyme_elementwise_read       device code: each thread reads only its own
 *                                 elements, so its adjoints need no atomics
 *   enzyme_sparse_accumulate      an error where a derivative reaches it
 *                                 (no sparse derivatives yet)
 *   enzyme_shadow(g_shadow)       on a global variable: g_shadow, a global of
 *                                 the same type, is its shadow (adjoint or
 *                                 tangent), set and read by the program
 */
#ifndef enzyme_inactive
#define enzyme_inactive annotate("enzyme_inactive")
#endif
#ifndef enzyme_inactive_noblock
#define enzyme_inactive_noblock annotate("enzyme_inactive_noblock")
#endif
#ifndef enzyme_shadow
#define enzyme_shadow(g) annotate("enzyme_shadow", &(g))
#endif
#ifndef enzyme_function_like
#define enzyme_function_like(name) annotate("enzyme_function_like", name)
#endif
#ifndef enzyme_shouldrecompute
#define enzyme_shouldrecompute annotate("enzyme_shouldrecompute")
#endif
#ifndef enzyme_elementwise_read
#define enzyme_elementwise_read annotate("enzyme_elementwise_read")
#endif
#ifndef enzyme_sparse_accumulate
#define enzyme_sparse_accumulate annotate("enzyme_sparse_accumulate")
#endif

#ifndef KINASE_NO_ENTRY_DECLS
#ifdef __CUDA__
#define KINASE_ENTRY_ __host__ __device__
#else
#define KINASE_ENTRY_
#endif
KINASE_ENTRY_ double __enzyme_autodiff(void *fn, ...);
KINASE_ENTRY_ double __enzyme_fwddiff(void *fn, ...);
#undef KINASE_ENTRY_
#endif

#ifdef __cplusplus
}
#endif

#endif /* KINASE_H */
