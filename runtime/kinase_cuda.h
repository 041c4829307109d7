/* The contract between the code Kinase generates for CUDA host functions and
 * the host runtime (libkinase_rt.a). Generated code calls these functions;
 * users never do. docs/cuda.md describes the conventions for users.
 *
 * Derivative kernels. For a __global__ kernel K whose PTX name is NAME, the
 * device module Kinase compiled holds:
 *   __kinase_kinfo_NAME  a KinaseKernelInfo, then one uint32_t per parameter;
 *   __kinase_kwhy_NAME   instead of the kernels below, when K cannot be
 *                        differentiated: a NUL-terminated reason;
 *   __kinase_krev_PAT_NAME  reverse kernels: each thread re-runs its part of
 *                        K, then its reverse sweep;
 *   __kinase_kfwd_PAT_NAME  forward (tangent) kernels: primal and tangents.
 * PAT has one letter per pointer parameter, in order: 'd' (the shadow is
 * used), 'c' (Const: the shadow is ignored, no adjoint is written) or, in
 * reverse kernels, 'n' (the shadow is used; the primal results are not
 * stored); it is empty for a kernel without pointer parameters
 * (__kinase_krev__NAME). Each derivative kernel costs compile time, so
 * only these exist, and the runtime takes the one that fits a launch
 * (kinase_rt_pattern_letter):
 *   - a pointer through which no float moves (KINASE_PARAM_NO_FLOATS): 'c';
 *   - a pointer K writes (KINASE_PARAM_WRITTEN): 'n' in reverse kernels:
 *     the primal launch in the forward sweep stored its results (or, every
 *     such pointer being enzyme_dupnoneed, they are not needed), so the
 *     reverse kernel does not store them again, and the work that only fed
 *     them goes; 'd' where K writes other memory too
 *     (KINASE_KERNEL_WRITES_OTHER). Passed Const, it gets a zeroed scratch
 *     shadow of the allocation's size;
 *   - a read-only float pointer each thread reads only its own part of
 *     (KINASE_PARAM_OWNED): 'd', with a scratch shadow where Const: its
 *     adjoints are the thread's own, added without atomics in
 *     one-dimensional launches, and nothing reads their sums, so that
 *     costs an allocation from the runtime's pool, not zeroed;
 *   - the other read-only float pointers, which threads share (data read by
 *     all, where a scratch shadow would cost contended atomics): 'd' where
 *     the shadow is used, 'c' where Const, when K has at most
 *     KINASE_ALL_PATTERNS_UP_TO of them; beyond that all 'd' (zeroed
 *     scratch shadows for the Const ones) when any one's shadow is used,
 *     else all 'c'.
 * Forward kernels exist for one pattern: every pointer moving floats 'd'
 * (a Const pointer's tangent is a zeroed scratch shadow).
 * Parameters of both kinds of derivative kernel: every parameter of K, in
 * order, each followed by
 *   - a pointer parameter: its shadow (may be NULL where PAT says 'c');
 *   - a by-value float parameter (KINASE_PARAM_FLOAT), active in the launch
 *     or not: in reverse kernels a pointer to a device accumulator of its
 *     type, to which every thread adds its adjoint (NULL: not wanted); in
 *     forward kernels its tangent, by value (zero where not active);
 *   - a struct passed by value (KINASE_PARAM_STRUCT): its shadow struct, by
 *     value, of the same layout: each pointer field holds that field's
 *     shadow (never NULL where the field is not: the runtime gives a Const
 *     field a zeroed scratch shadow), and in forward kernels each float or
 *     double field its tangent; in reverse kernels one more, a pointer to a
 *     struct of that layout in device memory (NULL: not wanted) to whose
 *     float and double fields every thread adds their adjoints, leaving
 *     its other bytes as they are;
 *   - any other parameter: nothing;
 * and, for reverse kernels, one more: the tape arena (KinaseTapeArena).
 */
#ifndef KINASE_CUDA_H
#define KINASE_CUDA_H

#include <stddef.h>
#include <stdint.h>

/* Up to this many read-only float pointers that threads share, a kernel
 * has reverse kernels for every pattern of them. */
#define KINASE_ALL_PATTERNS_UP_TO 1

#ifdef __cplusplus
extern "C" {
#endif

#define KINASE_KERNEL_INFO_MAGIC 0x314e494bu /* "KIN1" */

/* Per parameter: the low 16 bits are its size in bytes. */
enum {
  KINASE_PARAM_SIZE = 0xffffu,
  KINASE_PARAM_POINTER = 1u << 16, /* a pointer: shadows follow it */
  KINASE_PARAM_READ = 1u << 17,    /* K may read memory through it, and a reverse kernel does */
  KINASE_PARAM_WRITTEN = 1u << 18, /* K may write memory through it */
  KINASE_PARAM_FLOAT = 1u << 19,   /* a float or double passed by value */
  KINASE_PARAM_NO_FLOATS = 1u << 20, /* a pointer through which no float moves */
  KINASE_PARAM_F32 = 1u << 21,     /* a pointer through which only floats move */
  KINASE_PARAM_F64 = 1u << 22,     /* a pointer through which only doubles move */
  KINASE_PARAM_OWNED = 1u << 23,   /* read only, each thread its own part: always 'd' */
  KINASE_PARAM_F16 = 1u << 24,     /* a pointer through which only __half values move */
  KINASE_PARAM_BF16 = 1u << 25,    /* a pointer through which only __nv_bfloat16 values move */
  KINASE_PARAM_STRUCT = 1u << 26,  /* a struct passed by value (its size in the low bits);
                                      READ, WRITTEN: through its pointer fields */
  KINASE_PARAM_TABLE = 1u << 27,   /* a pointer to pointers through which floats move (one
                                      buffer a block): its shadow is the table of their shadows */
};

/* After the parameter words, the kernel info holds, for each STRUCT
 * parameter in order, twice this many words: in the first group, bit b of
 * word w is set where the eight bytes at offset 8 * (32 w + b) of the
 * struct hold a pointer; in the second, where K may write memory through
 * that pointer. The runtime snapshots what the fields point to as it does
 * pointer parameters' memory, and the reverse kernel gets the struct with
 * its pointer fields into the snapshots: it re-runs K's stores through
 * them there (a written field's allocation is always copied before K
 * runs). */
#define KINASE_STRUCT_POINTER_WORDS(size) (((size) + 255) / 256)

/* Kernel-wide facts. */
enum {
  /* K may write memory not reached through its pointer parameters (a
   * __device__ global, a pointer loaded from memory): its launch is never
   * skipped, and snapshots cannot cover what it reads there. */
  KINASE_KERNEL_WRITES_OTHER = 1u << 0,
  /* Likewise for reads. */
  KINASE_KERNEL_READS_OTHER = 1u << 1,
  /* K uses extern __shared__ (dynamic shared memory): its derivative
   * kernels are launched with twice the launch's dynamic shared memory,
   * rounded up to 16 bytes, and keep the shadow in the second half. */
  KINASE_KERNEL_DYNAMIC_SHARED = 1u << 2,
  /* K's reverse kernels record values in tapes that grow with loops, and
   * can count what they need: the runtime launches the reverse kernel
   * first with a counting arena, then with one that size (KinaseTapeArena).
   * Without this flag a reverse kernel gets a NULL arena. */
  KINASE_KERNEL_TAPE_ARENA = 1u << 3,
};

/* The last parameter of every reverse kernel: a device pointer to this,
 * followed by `capacity` bytes, or NULL (tapes grow on the device heap).
 * Growing a tape takes `used` forward, atomically, by a multiple of 16
 * bytes; what does not fit goes to the device heap. With capacity 0 the
 * launch counts: each thread runs only K's forward part, adds to `used` what
 * its tapes would take and writes its records into `sink` (a place per lane
 * of the warp, for records of up to sizeof sink / 32 bytes). */
typedef struct {
  uint64_t used;
  uint64_t capacity;
  unsigned char sink[65536 - 16];
} KinaseTapeArena;

typedef struct {
  uint32_t magic;   /* KINASE_KERNEL_INFO_MAGIC */
  uint32_t nparams; /* followed by nparams uint32_t */
  uint32_t flags;   /* KINASE_KERNEL_* */
} KinaseKernelInfo;

/* What the compiler knows of each argument of a differentiated launch, one
 * letter per kernel parameter in the `modes` strings below:
 *   'c'  Const, or not a pointer or float: no shadow;
 *   'd'  a pointer with a shadow;
 *   'n'  a pointer with a shadow whose primal result is not needed
 *        (enzyme_dupnoneed): a launch that writes nothing else is skipped;
 *   'o'  an active float passed by value. */

typedef struct KinaseLaunch KinaseLaunch;

/* The forward sweep of a launch of `kernel` (the host stub, as
 * cudaLaunchKernel takes it) with grid, block, dynamic shared memory and
 * stream. args[i] points to the value of parameter i (as cudaLaunchKernel
 * takes them); shadows[i] points to the shadow of pointer parameter i (to a
 * pointer, as args[i] points to the primal pointer) where modes[i] is 'd' or
 * 'n', and is NULL otherwise; a NULL shadow pointer makes the parameter
 * Const ('c' in PAT). A struct parameter (KINASE_PARAM_STRUCT) is 'd'
 * where shadows[i] points to its shadow struct (pointer fields: shadows,
 * NULL for Const; float fields: tangents in __kinase_launch_tangent), 'c'
 * otherwise (all its fields Const). Launches K (unless skipped), remembers what the
 * reverse sweep needs, and returns it. `where` names the differentiated host
 * function, for messages. */
KinaseLaunch *__kinase_launch_augment(const void *kernel, const uint32_t grid[3],
                                      const uint32_t block[3], size_t shmem, void *stream,
                                      void **args, void **shadows, const char *modes,
                                      const char *where);

/* The reverse sweep of that launch: launches the reverse kernel with the
 * same configuration, on the same stream. For each parameter with modes[i]
 * == 'o', stores the sum over threads of its adjoint into *adjoints[i] (a
 * host float or double, the parameter's type); for a struct parameter,
 * adds the sums of its float fields' adjoints into those fields of the
 * struct adjoints[i] points to (NULL: not wanted). Frees `launch`. */
void __kinase_launch_reverse(KinaseLaunch *launch, void **adjoints);

/* In place of the reverse sweep when an exception unwinds through the
 * forward sweep (docs/cpp.md): frees `launch` and what it holds (scratch
 * shadows, snapshots) without launching anything. */
void __kinase_launch_discard(KinaseLaunch *launch);

/* Forward mode: launches the forward kernel in place of K. tangents[i]
 * points to the shadow of a pointer parameter ('d' or 'n': to a pointer, as
 * in __kinase_launch_augment), or to the tangent of a float parameter ('o');
 * NULL otherwise. */
void __kinase_launch_tangent(const void *kernel, const uint32_t grid[3], const uint32_t block[3],
                             size_t shmem, void *stream, void **args, void **tangents,
                             const char *modes, const char *where);

/* The driver API's cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream,
 * params, NULL), where the compiler knows neither the kernel nor its
 * parameters: `shadows` is the shadow of `params`, the user's array of
 * pointers to argument values (NULL: none), so shadows[i] points to the
 * shadow of argument i's slot or is NULL. `unneeded` (NULL, or
 * NULL-terminated) lists argument slots that hold an enzyme_dupnoneed
 * value the host function uses for nothing but launches. From the kernel
 * info of f's module, a pointer parameter whose shadow slot holds a
 * non-NULL shadow (a CUdeviceptr or a pointer) is 'd' ('n' where params[i]
 * is one of `unneeded`), a float parameter with a shadow slot 'o', every
 * other 'c'; then these are __kinase_launch_augment (which launches f in
 * place of the user's call, or skips it), __kinase_launch_reverse (which
 * adds the adjoint of an 'o' parameter into its shadow slot, a float or
 * double) and __kinase_launch_tangent (f's forward kernel in place of the
 * user's call; an 'o' parameter's tangent is in its shadow slot). `f` is a
 * CUfunction. */
KinaseLaunch *__kinase_driver_launch_augment(void *f, unsigned gx, unsigned gy, unsigned gz,
                                             unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                             void *stream, void **params, void **shadows,
                                             void **unneeded, const char *where);
void __kinase_driver_launch_reverse(KinaseLaunch *launch, void **shadows);
void __kinase_driver_launch_tangent(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                    unsigned by, unsigned bz, unsigned shmem, void *stream,
                                    void **params, void **tangents, const char *where);
/* The same for cuLaunchKernelEx(config, f, params, NULL): `config` is its
 * CUlaunchConfig. f runs with the whole config; its derivative kernels with
 * the same grid, block, stream and the attributes that shape or schedule
 * the threads (clusters, cooperative, priority, ...), not those of the one
 * launch (events, programmatic stream serialisation). */
KinaseLaunch *__kinase_driver_launch_ex_augment(const void *config, void *f, void **params,
                                                void **shadows, void **unneeded,
                                                const char *where);
void __kinase_driver_launch_ex_tangent(const void *config, void *f, void **params, void **tangents,
                                       const char *where);
/* The same for cudaLaunchKernel(kernel, grid, block, args, shmem, stream)
 * called directly with a kernel handle (its host stub), each dim3 as the C
 * ABI passes it, {x | y << 32, z}. */
KinaseLaunch *__kinase_direct_launch_augment(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                             uint64_t block_xy, uint32_t block_z, void **args,
                                             size_t shmem, void *stream, void **shadows,
                                             void **unneeded, const char *where);
void __kinase_direct_launch_tangent(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                    uint64_t block_xy, uint32_t block_z, void **args, size_t shmem,
                                    void *stream, void **tangents, const char *where);

/* The same for cudaLaunchKernelExC(config, kernel, args) (what the
 * cudaLaunchKernelEx template calls): `config` is its cudaLaunchConfig_t,
 * attributes included, as for cuLaunchKernelEx. */
KinaseLaunch *__kinase_direct_launch_ex_augment(const void *config, const void *kernel,
                                                void **args, void **shadows, void **unneeded,
                                                const char *where);
void __kinase_direct_launch_ex_tangent(const void *config, const void *kernel, void **args,
                                       void **tangents, const char *where);

/* The same for cuLaunchCooperativeKernel(f, grid, block, shmem, stream,
 * params) and cudaLaunchCooperativeKernel(kernel, grid, block, args, shmem,
 * stream): launches with the cooperative attribute. Before f first runs,
 * the runtime checks that all blocks of its derivative kernel fit on the
 * device at once (they may need more registers or shared memory than f),
 * and stops with a message naming the kernel when they do not. */
KinaseLaunch *__kinase_driver_cooperative_augment(void *f, unsigned gx, unsigned gy, unsigned gz,
                                                  unsigned bx, unsigned by, unsigned bz,
                                                  unsigned shmem, void *stream, void **params,
                                                  void **shadows, void **unneeded,
                                                  const char *where);
void __kinase_driver_cooperative_tangent(void *f, unsigned gx, unsigned gy, unsigned gz,
                                         unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                         void *stream, void **params, void **tangents,
                                         const char *where);
KinaseLaunch *__kinase_direct_cooperative_augment(const void *kernel, uint64_t grid_xy,
                                                  uint32_t grid_z, uint64_t block_xy,
                                                  uint32_t block_z, void **args, size_t shmem,
                                                  void *stream, void **shadows, void **unneeded,
                                                  const char *where);
void __kinase_direct_cooperative_tangent(const void *kernel, uint64_t grid_xy, uint32_t grid_z,
                                         uint64_t block_xy, uint32_t block_z, void **args,
                                         size_t shmem, void *stream, void **tangents,
                                         const char *where);

/* Before the forward sweep writes [dst, dst + bytes) (a copy, a memset):
 * launches still waiting for their reverse sweep that read this memory keep
 * a copy of it first. */
void __kinase_before_write(const void *dst, size_t bytes, void *stream, const char *where);

/* Before a store of the forward sweep's host code to [dst, dst + bytes)
 * (managed memory a time loop updates between launches): as
 * __kinase_before_write, the copy complete when it returns. Returns at once
 * when no pending launch read that range. */
void __kinase_before_host_write(const void *dst, size_t bytes, const char *where);

/* Before a copy of the forward sweep whose element type the host code does
 * not tell (it never reads the memory): a table of device pointers copied
 * to the device (`float **`, one buffer a block) has a table of their
 * shadows as its shadow, which the reverse kernel reads. So the shadows of
 * a small copy's source (up to 64 KB) are kept; a launch that passes
 * ddst as the shadow of a KINASE_PARAM_TABLE parameter copies them there
 * first, and the copy's reverse (__kinase_copy_reverse with the same ddst)
 * then moves no adjoints. */
void __kinase_copy_shadow_record(void *ddst, const void *dsrc, size_t bytes, void *stream,
                                 const char *where);

/* The reverse of a copy of `bytes` from src to dst (cudaMemcpyKind `kind`,
 * cudaMemcpyDefault decided from the pointers): dsrc += ddst element by
 * element, then ddst = 0. The element is a KINASE_ELEMENT_*, or 0: the host
 * code never reads the memory as numbers; the element type is then what the
 * kernels launched with it (or its shadow) use, KINASE_PARAM_F32 / F64 /
 * F16 / BF16, which the runtime remembers per allocation, and a copy whose
 * type no launch told is an error at run time. On
 * `stream` (NULL: the default stream); returns once host memory involved
 * is updated. A NULL dsrc only zeroes ddst. */
void __kinase_copy_reverse(void *dsrc, void *ddst, size_t bytes, int kind, void *stream,
                           int element, const char *where);

/* The same for a pitched copy (cudaMemcpy2D*, and a pitched set with a
 * NULL dsrc): `height` rows of `width` bytes, `spitch` bytes apart in dsrc
 * and `dpitch` in ddst. Only the rows are added and zeroed. */
void __kinase_copy2d_reverse(void *dsrc, size_t spitch, void *ddst, size_t dpitch, size_t width,
                             size_t height, int kind, void *stream, int element, const char *where);

/* Copies a CUDA_MEMCPY2D describes (cuMemcpy2D*), whose shadow `shadow`
 * (NULL: none) holds in its address fields the shadows of the addresses
 * stored in the descriptor (NULL or 0 for those without one). In the
 * forward sweep, before the copy, a record of both sides' shadows
 * (malloc'd: the generated code frees it after the reverse, or on
 * unwinding); in reverse, the record's rows as __kinase_copy2d_reverse,
 * elements as the kernels tell. Forward mode: the same copy of the
 * tangents, after the copy. */
void *__kinase_copy2d_record(const void *descriptor, const void *shadow, void *stream,
                             const char *where);
void __kinase_copy2d_record_reverse(const void *record, void *stream, const char *where);
void __kinase_copy2d_tangent(const void *descriptor, const void *tangent, void *stream,
                             const char *where);

/* The device address, `offset` bytes in, of the shadow of __device__
 * variable `name` (__kinase_shadow_NAME in the device module of the kernel
 * whose host stub is `stub`, one of the variable's file); NULL where the
 * module has none (the variable holds no floats). */
void *__kinase_symbol_shadow(const void *stub, const char *name, size_t offset, const char *where);
/* Before a copy into variable `name` from memory with a shadow (forward
 * sweep): the derivative kernels are to add into the variable's shadow,
 * where it has a live flag (__kinase_live_NAME: a variable no device code
 * writes); __kinase_symbol_shadow and __kinase_module_shadow set it too. */
void __kinase_symbol_live(const void *stub, const char *name, const char *where);
/* Zeroes the shadow of variable `name`, if it has one, the device idle
 * before and after: at the start of a request, what earlier requests' kernels
 * added there is no tangent or adjoint of this one. A shadow behind a live
 * flag that was not set since is still zero: nothing is done. */
void __kinase_symbol_shadow_clear(const void *stub, const char *name, const char *where);
/* Before a copy of `bytes` into variable `name` at `offset`, in a
 * request's forward sweep: a copy of what it overwrites. After the copy's
 * reverse: that put back, so that the reverse kernels of earlier launches
 * read the variable as their launch did (the end of the request puts back
 * what the forward sweep left, __kinase_release_deferred). */
void *__kinase_symbol_snapshot(const void *stub, const char *name, size_t offset, size_t bytes,
                               const char *where);
void __kinase_symbol_restore(void *snapshot, const char *where);
/* Frees a snapshot no reverse put back: an exception unwound through the
 * forward sweep, and the variable keeps what the function left. */
void __kinase_symbol_discard(void *snapshot);
/* Forward mode: tdst = tsrc, bytes of tangents, host or device; a NULL tsrc
 * zeroes tdst. Returns once done. */
void __kinase_copy_tangent(void *tdst, const void *tsrc, size_t bytes, void *stream,
                           const char *where);

/* The elements of copied memory: the low byte is the size in bytes. */
enum {
  KINASE_ELEMENT_F32 = 4,
  KINASE_ELEMENT_F64 = 8,
  KINASE_ELEMENT_F16 = 2,
  KINASE_ELEMENT_BF16 = 0x100 | 2,
};
#define KINASE_ELEMENT_SIZE(element) ((element) & 0xff)

/* Shadows of allocations: `how` says which allocator the primal used; and
 * what __kinase_defer_release releases. */
enum {
  KINASE_ALLOC_DEVICE,  /* cudaMalloc, cudaMallocAsync, cuMemAlloc, cuMemAllocAsync */
  KINASE_ALLOC_MANAGED, /* cudaMallocManaged, cuMemAllocManaged */
  KINASE_ALLOC_HOST,    /* cudaMallocHost, cudaHostAlloc, cuMemAllocHost, cuMemHostAlloc */
  KINASE_HANDLE_STREAM, /* cudaStreamCreate, cuStreamCreate */
  KINASE_HANDLE_EVENT,  /* cudaEventCreate, cuEventCreate */
  KINASE_ALLOC_VARIABLE, /* the address of a __device__ variable: cudaGetSymbolAddress,
                            cuModuleGetGlobal */
  KINASE_RESTORE_VARIABLE, /* what a request left in a variable, put back at its end */
  KINASE_ALLOC_MAPPED,  /* the device address of mapped host memory: cudaHostGetDevicePointer,
                           cuMemHostGetDevicePointer (its shadow is the host shadow's) */
  KINASE_HANDLE_TEXTURE, /* cudaCreateTextureObject, cuTexObjectCreate */
  KINASE_HANDLE_SURFACE, /* cudaCreateSurfaceObject, cuSurfObjectCreate */
};

/* In the forward sweep, in place of a free or a destroy (`how` names
 * which): the reverse sweep still needs what it releases (reverse kernels
 * re-read freed inputs, reverse copies run on the stream of their copy), so
 * it is released by __kinase_release_deferred, which generated code calls
 * once a request's reverse sweep is done. */
void __kinase_defer_release(int how, void *handle, const char *where);
void __kinase_release_deferred(void);
/* A zeroed shadow of `bytes` bytes, allocated as the primal was. */
void *__kinase_shadow_alloc(size_t bytes, int how, void *stream, const char *where);
void __kinase_shadow_free(void *shadow, int how, void *stream, const char *where);
/* The shadow of the __device__ variable at `primal` (its address from
 * cudaGetSymbolAddress or cuModuleGetGlobal): `module_shadow`, the device
 * module's __kinase_shadow_NAME where kernels that write the variable have
 * one, else one of the runtime's, zeroed when first taken, the same for
 * every address taken of the variable until each is released. */
void *__kinase_variable_shadow(const void *primal, void *module_shadow, const char *where);
void __kinase_variable_shadow_release(void *shadow, const char *where);
/* The device address of `host_shadow`, the shadow of mapped host memory
 * (pinned, as the runtime allocates host shadows). */
void *__kinase_mapped_shadow(void *host_shadow, const char *where);
/* The module's __kinase_shadow_NAME (driver API), NULL where it has none. */
void *__kinase_module_shadow(void *module, const char *name, const char *where);

/* Reports a failed CUDA call of generated code and exits:
 * "kinase: <call> failed: <CUDA error string> (derivative of <where>)". */
void __kinase_cuda_check(int status, const char *call, const char *where);

#ifdef __cplusplus
}
#endif

#endif
