/* cuda_rt.h: what the CUDA files of the runtime share. Internal: generated
 * code sees only kinase_cuda.h. Every name here starts with kinase_rt_. */
#ifndef KINASE_CUDA_RT_H
#define KINASE_CUDA_RT_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kinase_cuda.h"

/* ---- cuda_errors.c ---- */

/* Reports a failed driver call and exits, like __kinase_cuda_check. */
void kinase_rt_check_cu(CUresult status, const char *call, const char *where);
/* A C++ name demangled, or a copy of `name` as it is (malloc'd; NULL if
 * out of memory). */
char *kinase_rt_demangle(const char *name);
/* "kinase: <message> (derivative of <where>)" on stderr, then exit(1). */
_Noreturn void kinase_rt_fail(const char *where, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* malloc/calloc that report running out of memory. */
void *kinase_rt_alloc(size_t bytes, const char *where);
/* Makes room for one more element in *array, of *count used out of
 * *capacity (each `size` bytes), growing it geometrically. */
void kinase_rt_reserve(void **array, size_t count, size_t *capacity, size_t size, const char *where);

/* CHECK(where, fn, args...): calls fn(args...), a runtime (cudaXxx) or a
 * driver (cuXxx) function, and exits with the message on failure. */
#define CHECK(where, fn, ...)                                                                 \
  _Generic((fn)(__VA_ARGS__), CUresult: kinase_rt_check_cu, default: __kinase_cuda_check)(    \
      (fn)(__VA_ARGS__), #fn, (where))

/* ---- cuda_kernels.c: a launched kernel and its derivative kernels ---- */

typedef struct {
  CUfunction function; /* K in the current context */
  CUmodule module;     /* the module that holds K */
  char *name;          /* K's PTX name, NAME */
  char *display;       /* NAME demangled, for messages */
  uint32_t nparams;
  uint32_t flags;      /* KINASE_KERNEL_* */
  uint32_t *params;    /* KINASE_PARAM_* per parameter, then the pointer words of
                          struct parameters; NULL: no __kinase_kinfo_NAME */
  char *why;           /* __kinase_kwhy_NAME, or NULL */
} KinaseKernel;

/* The kernel whose host stub is `stub` (cached per function handle). */
const KinaseKernel *kinase_rt_kernel(const void *stub, const char *where);
/* The kernel behind function handle f (the driver API's, from
 * cuModuleGetFunction). */
const KinaseKernel *kinase_rt_kernel_of(CUfunction f, const char *where);
/* The derivative kernel __kinase_<kind>_<PAT>_NAME ("krev" or "kfwd") for
 * these modes and shadows; exits with a message when there is none or the
 * modes do not fit the kernel. */
CUfunction kinase_rt_derivative(const KinaseKernel *k, const char *kind, const char *modes,
                                void **shadows, const char *where);

/* ---- cuda_pattern.c: which derivative kernel fits a launch (no CUDA calls) ---- */

/* Whether pointer parameter i has a shadow in use: modes[i] is 'd' or 'n'
 * and shadows[i] points to a non-NULL pointer. */
bool kinase_rt_shadow_used(const char *modes, void **shadows, uint32_t i);
/* Pointer parameter i's letter in PAT of a `kind` ("krev" or "kfwd")
 * kernel (kinase_cuda.h): 'c' for pointers moving no floats; in forward
 * kernels 'd'; in reverse kernels 'n' for written ones ('d' where K writes
 * other memory) and 'd' for owned read-only ones, a scratch shadow given
 * where Const; for the read-only ones threads share, whether the shadow is
 * used, or one among many such pointers' is. */
char kinase_rt_pattern_letter(const KinaseKernel *k, const char *kind, const char *modes, void **shadows,
                              uint32_t i);
/* "__kinase_<kind>_<PAT>_NAME", the derivative kernel for these modes and
 * shadows, in memory from malloc; NULL when out of memory. */
char *kinase_rt_derivative_name(const KinaseKernel *k, const char *kind, const char *modes,
                                void **shadows);

/* ---- cuda_attributes.c: launch attributes of derivative launches (no CUDA calls) ---- */

/* Copies into `kept` those of a launch's `count` attributes that its
 * derivative launches get too (the ones that shape or schedule its
 * threads); returns how many. */
unsigned kinase_rt_derivative_attributes(const CUlaunchAttribute *attrs, unsigned count,
                                         CUlaunchAttribute *kept);

/* ---- cuda_cooperative.c: derivative kernels of cooperative launches ---- */

/* Whether `config` asks for a cooperative launch. */
bool kinase_rt_is_cooperative(const CUlaunchConfig *config);
/* Exits with a message naming `kernel` when the grid of `config` does not
 * fit at once at per_sm blocks on each of sms multiprocessors (no CUDA
 * call); `derivative` says which ("reverse", "forward"). */
void kinase_rt_cooperative_fit(const char *kernel, const char *derivative,
                               const CUlaunchConfig *config, size_t shmem, int per_sm, int sms,
                               const char *where);
/* For a cooperative `config`: whether f, a derivative kernel of k, fits
 * with `shmem` bytes of dynamic shared memory (kinase_rt_cooperative_fit). */
void kinase_rt_check_cooperative(const KinaseKernel *k, CUfunction f, const char *derivative,
                                 const CUlaunchConfig *config, size_t shmem, const char *where);

/* ---- cuda_launch.c: what the launch entry points of both APIs share ---- */

/* A launch's grid, block, dynamic shared memory and stream, without
 * attributes, as cuLaunchKernelEx takes them. */
CUlaunchConfig kinase_rt_config(const uint32_t grid[3], const uint32_t block[3], size_t shmem,
                                void *stream);
/* __kinase_launch_augment for kernel k launched with `config` (its
 * attributes too): K runs with the whole config unless skipped, derivative
 * kernels with the attributes kinase_rt_derivative_attributes keeps. */
KinaseLaunch *kinase_rt_launch_augment(const KinaseKernel *k, const CUlaunchConfig *config,
                                       void **args, void **shadows, const char *modes,
                                       const char *where);
/* __kinase_launch_tangent for kernel k. */
void kinase_rt_launch_tangent(const KinaseKernel *k, const CUlaunchConfig *config, void **args,
                              void **tangents, const char *modes, const char *where);

/* ---- cuda_struct.c: structs passed by value (KINASE_PARAM_STRUCT) ---- */

typedef struct KinaseStructShadow KinaseStructShadow;
/* The shadow struct of struct parameter i of k, whose bytes are `value`:
 * a copy of `shadow` (NULL: zeros), with a zeroed scratch shadow in each
 * pointer field that is NULL where the value's is not. */
KinaseStructShadow *kinase_rt_struct_shadow(const KinaseKernel *k, uint32_t i, const void *value,
                                            const void *shadow, cudaStream_t stream,
                                            const char *where);
void *kinase_rt_struct_shadow_bytes(KinaseStructShadow *s);
/* The byte offsets of struct parameter i's pointer fields (only those K
 * writes through, where `written_only`), into `offsets` (room for its size
 * / 8); returns how many. */
uint32_t kinase_rt_struct_fields(const KinaseKernel *k, uint32_t i, bool written_only,
                                 uint32_t *offsets);
void kinase_rt_struct_shadow_free(KinaseStructShadow *s, cudaStream_t stream, const char *where);
/* A device copy of `adjoints` (host memory of the struct's layout) for a
 * reverse kernel to add the float fields' adjoints into; then copied back
 * over `adjoints` (its other bytes unchanged) and freed. */
void *kinase_rt_struct_accumulator(const KinaseKernel *k, uint32_t i, const void *adjoints,
                                   cudaStream_t stream, const char *where);
void kinase_rt_struct_accumulated(const KinaseKernel *k, uint32_t i, void *accumulator,
                                  void *adjoints, cudaStream_t stream, const char *where);

/* ---- cuda_snapshot.c: copies of memory that pending launches read ---- */

typedef struct {
  CUdeviceptr base; /* an allocation some READ parameter or struct field points into */
  size_t size;
  CUdeviceptr copy; /* its contents when the launch ran; 0: not copied yet */
  cudaEvent_t copied; /* the copy was made on another stream than the launch's */
} KinaseSnapshot;

struct KinaseLaunch {
  struct KinaseLaunch *prev, *next; /* the pending list */
  const KinaseKernel *kernel;
  CUfunction reverse;
  /* the reverse kernel's: the launch's, with the attributes it keeps (in
   * this record) */
  CUlaunchConfig config;
  cudaStream_t stream;
  const char *where;
  char *modes;
  void **values;  /* per parameter: a copy of its bytes */
  void **shadows; /* per parameter: its shadow pointer where used, else NULL */
  void **scratch; /* per parameter: a scratch shadow to free (a KinaseStructShadow
                     for a struct parameter), else NULL */
  KinaseSnapshot *snapshots;
  uint32_t nsnapshots;
};

/* Starts protecting what `launch` reads (its READ pointer arguments, `args`
 * as the launch takes them). */
void kinase_rt_pending_add(KinaseLaunch *launch, void **args);
/* Before a launch of k with args on `stream`: protects pending launches from
 * what its WRITTEN pointer arguments may write. */
void kinase_rt_protect_writes(const KinaseKernel *k, void **args, cudaStream_t stream,
                              const char *where);
/* Ends the protection; `launch->stream` waits for its snapshots. */
void kinase_rt_pending_remove(KinaseLaunch *launch);
/* The pointer the reverse kernel gets in place of p. */
void *kinase_rt_snapshot_pointer(const KinaseLaunch *launch, void *p);
/* `bytes`, a copy of struct parameter i's value, with its pointer fields
 * made kinase_rt_snapshot_pointer's. */
void kinase_rt_snapshot_struct(const KinaseLaunch *launch, uint32_t i, void *bytes);
/* Frees the snapshots, after the work queued on `launch->stream`. */
void kinase_rt_snapshots_free(KinaseLaunch *launch);

/* ---- cuda_memory.c: scratch shadows, element types of allocations ---- */

/* The allocation holding p, if p is device (or managed) memory. */
bool kinase_rt_allocation_of(const void *p, CUdeviceptr *base, size_t *size);
/* Whether the host may read or write p in place: managed memory, pinned or
 * other host memory (not device memory, not NULL). */
bool kinase_rt_host_visible(const void *p);

/* A shadow for pointer parameter i of k, which points to `primal` and was
 * passed Const: the size of primal's allocation, at the same offset,
 * zeroed where asked (a derivative kernel reads it: not so for what a
 * reverse kernel only adds into); *allocated receives what to free
 * (stream-ordered) afterwards. */
void *kinase_rt_scratch_shadow(const KinaseKernel *k, uint32_t i, const void *primal, bool zeroed,
                               cudaStream_t stream, void **allocated, const char *where);
/* Remembers the element type of the allocations k's pointer arguments (and
 * their shadows, shadows[i] the shadow pointer or NULL) point into. */
void kinase_rt_learn_types(const KinaseKernel *k, void **args, void **shadows, const char *where);

/* ---- cuda_tables.c: tables of device pointers ---- */

/* Before a launch of K with the shadows of its pointer parameters: the
 * shadow of a KINASE_PARAM_TABLE parameter that a kept copy's shadow
 * covers gets the kept shadows. */
void kinase_rt_fill_tables(const KinaseKernel *k, void *const *shadows, cudaStream_t stream,
                           const char *where);
/* At the reverse of a copy into ddst: forgets what was kept for it; whether
 * a launch took it as a table of pointers (the reverse moves nothing). */
bool kinase_rt_table_copy_reversed(const void *ddst);
/* Remembers that p's allocation, if p is device memory, holds elements of
 * type `element` (KINASE_ELEMENT_*). */
void kinase_rt_learn_type(const void *p, int element, const char *where);
/* The element type remembered for p's allocation, 0 if none. */
int kinase_rt_element_of(const void *p);

/* ---- cuda_order.c: the reverse sweep's order across streams ---- */

/* Around each reverse operation on `stream`: it waits for the one before. */
void kinase_rt_reverse_begin(cudaStream_t stream, const char *where);
void kinase_rt_reverse_end(cudaStream_t stream, const char *where);

/* ---- cuda_pool.c: the runtime's own device memory ---- */

/* `bytes` of device memory, ordered on `stream` (free with cudaFreeAsync),
 * from a pool that keeps what is freed into it. */
void *kinase_rt_alloc_async(size_t bytes, cudaStream_t stream, const char *where);

/* ---- cuda_arena.c: the tape arena of a reverse launch ---- */

/* An arena of capacity 0: the reverse kernel launched with it counts. */
void *kinase_rt_arena_counting(cudaStream_t stream, const char *where);
/* Frees `counted` once the counting launch is done, and returns an arena
 * of the size it counted (NULL if none). */
void *kinase_rt_arena_sized(void *counted, cudaStream_t stream, const char *where);
void kinase_rt_arena_free(void *arena, cudaStream_t stream, const char *where);

/* ---- cuda_release.c, cuda_symbol_snapshot.c ---- */

/* Whether a release of kind `how` waits whose handle `same` finds the same
 * as `key`. */
bool kinase_rt_deferred_holds(int how, bool (*same)(const void *handle, const void *key), const void *key);
/* Puts back in a variable what the request's forward sweep left there
 * (KINASE_RESTORE_VARIABLE), where the reverse sweep put back an earlier
 * value (__kinase_symbol_restore), and frees the copy. */
void kinase_rt_restore_variable(void *final, const char *where);

/* ---- the PTX of accumulate.cu, embedded by CMake (accumulate_ptx.c) ---- */
extern const char kinase_rt_accumulate_ptx[];

#endif
