/* Derivative kernels for launches from host code (device modules).
 *
 * Clang compiles the device module before the host module, so this side
 * cannot know which launches the host will differentiate. Every __global__
 * kernel therefore gets reverse kernels for the few activity patterns of
 * its pointer parameters that runtime/kinase_cuda.h names (each one costs
 * compile time), one forward kernel, and a table of facts the runtime
 * reads (parameter sizes, which pointers the kernel reads and writes, which
 * it reads only its thread's part of). A kernel
 * that cannot be differentiated gets its reason instead of kernels: the
 * launch that needs them fails with that reason at run time, and the
 * compilation goes on.
 *
 * require: the module's own requests are lowered and their derivatives
 * generated (derive_drain), so that errors there are the user's.
 */
#include "kinase.h"
#include "../../runtime/kinase_cuda.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

/* While analysing: floats of a type not known move through the pointer
 * (KINASE_PARAM_NO_FLOATS is the absence of this, F32, F64, F16, BF16). */
#define MOVES_FLOATS (1u << 31)
/* While analysing: floats move through pointers loaded from the memory
 * (KINASE_PARAM_TABLE where no float moves through it directly). */
#define TABLE_FLOATS (1u << 30)

static LLVMTypeRef ptr_type(void) { return LLVMPointerTypeInContext(kn_module.ctx, 0); }
static LLVMTypeRef i32_type(void) { return LLVMInt32TypeInContext(kn_module.ctx); }

static bool is_kernel(LLVMValueRef fn) {
  return !LLVMIsDeclaration(fn) && LLVMGetFunctionCallConv(fn) == LLVMPTXKernelCallConv;
}

/* ---- what a kernel does to memory ---- */

/* Simplified copies of the kernel and its callees: clang's allocas (at every
 * -O level, before the pipeline runs) would hide where pointers go. The
 * half headers' math and assembly are read as half IR first, as in the
 * copies differentiated (core/clone.c), so that __half memory is seen to
 * hold halves, not 16-bit integers. Assembly without a row stays as it is:
 * the derivative refuses it later, with the reason, so errors here are
 * dropped. */
typedef struct {
  ValueMap copy_of;     /* function -> its simplified copy */
  LLVMValueRef *copies; /* the copies (a stb_ds array), deleted after */
  uint32_t flags;       /* KINASE_KERNEL_* */
} Effects;

static LLVMValueRef simplified(Effects *e, LLVMValueRef fn) {
  LLVMValueRef copy = vmap_get(&e->copy_of, fn);
  if (!copy) {
    copy = clone_function(fn, "kinase.effects");
    warp_inline_integer_shuffles(copy);
    char *dropped = NULL;
    kn_capture_errors(&dropped);
    half_math_wrap_calls(copy);
    nvvm_intrinsics_as_ir(copy);
    if (asm_lower_known(copy, fn)) {
      simplify_registers(copy);
      asm_lower_pairs(copy, fn);
    }
    /* A struct of two floats copied whole (`b[i] = a[i]` on float2) is a
     * memcpy that instcombine makes an i64 load and store: the floats it
     * moves are noted before, as in the copies differentiated; so are the
     * floats cooperative groups shuffle as integers (a double's halves
     * before instcombine, which would load the double as an integer). */
    simplify_registers(copy);
    warp_double_bit_shuffles(copy, fn);
    copytypes_note(copy, fn);
    simplify_control(copy);
    warp_float_bit_shuffles(copy, fn);
    kn_capture_errors(NULL);
    free(dropped);
    vmap_put(&e->copy_of, fn, copy);
    arrput(e->copies, copy);
  }
  return copy;
}

static uint32_t pointer_uses(Effects *e, LLVMValueRef ptr, ValueSet *seen);

/* Pointer `arg` passed as argument `index` of `call`. */
static uint32_t passed_to_call(Effects *e, LLVMValueRef call, unsigned index, ValueSet *seen) {
  const uint32_t both = KINASE_PARAM_READ | KINASE_PARAM_WRITTEN | MOVES_FLOATS;
  LLVMValueRef callee = kn_called_function(call);
  if (!callee)
    return both;
  const Rule *rule = rule_for_function(callee);
  if (rule && (rule->kind == RULE_MEMCPY || rule->kind == RULE_MEMSET))
    return MOVES_FLOATS | (index == 0 ? KINASE_PARAM_WRITTEN : KINASE_PARAM_READ);
  if (rule && (rule->kind == RULE_INACTIVE || rule->kind == RULE_MATH || rule->kind == RULE_MODEL))
    return 0;
  if (!strncmp(kn_function_name(callee), "llvm.nvvm.ldg", 13))
    return KINASE_PARAM_READ | (kn_type_has_floats(LLVMTypeOf(call)) ? MOVES_FLOATS : 0);
  if (LLVMIsDeclaration(callee) || index >= LLVMCountParams(callee))
    return both;
  return pointer_uses(e, LLVMGetParam(simplified(e, callee), index), seen);
}

/* The element type moving as `type`: a vector's lanes are its elements
 * (a __half2 is <2 x half>, a float4 may be <4 x float>). */
static uint32_t floats_if(LLVMTypeRef type) {
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind)
    type = LLVMGetElementType(type);
  switch (LLVMGetTypeKind(type)) {
  case LLVMFloatTypeKind:
    return KINASE_PARAM_F32;
  case LLVMDoubleTypeKind:
    return KINASE_PARAM_F64;
  case LLVMHalfTypeKind:
    return KINASE_PARAM_F16;
  case LLVMBFloatTypeKind:
    return KINASE_PARAM_BF16;
  default:
    return kn_type_has_floats(type) ? MOVES_FLOATS : 0;
  }
}

static uint32_t floats_moving(void) {
  return KINASE_PARAM_F32 | KINASE_PARAM_F64 | KINASE_PARAM_F16 | KINASE_PARAM_BF16 | MOVES_FLOATS;
}

/* `uses` of memory that holds 16-bit floats of type `half` (NULL: not
 * known to): __half memory that a kernel only copies (`y[i] = x[perm[i]]`)
 * moves its halves as 16-bit integers, and they carry derivatives all the
 * same, which the generators move as halves. */
static uint32_t sixteen_bit_moved(uint32_t uses, LLVMTypeRef half) {
  bool accessed = uses & (KINASE_PARAM_READ | KINASE_PARAM_WRITTEN);
  return half && accessed && !(uses & floats_moving()) ? uses | floats_if(half) : uses;
}

/* Whether the integer `v` (an address's) only reaches comparisons, through
 * the arithmetic of an alignment test (`(uintptr_t)x % 16 == 0`): no
 * memory is reached through it. */
static bool only_compared(LLVMValueRef v, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    switch (LLVMGetInstructionOpcode(user)) {
    case LLVMICmp:
      continue;
    case LLVMAnd: case LLVMOr: case LLVMURem: case LLVMSRem: case LLVMTrunc: case LLVMZExt:
    case LLVMLShr:
      if (depth < 4 && only_compared(user, depth + 1))
        continue;
      return false;
    default:
      return false;
    }
  }
  return true;
}

/* KINASE_PARAM_READ / WRITTEN, and MOVES_FLOATS, for memory reached
 * through `ptr`. */
static uint32_t pointer_uses(Effects *e, LLVMValueRef ptr, ValueSet *seen) {
  const uint32_t both = KINASE_PARAM_READ | KINASE_PARAM_WRITTEN | MOVES_FLOATS;
  if (!vset_add(seen, ptr))
    return 0;
  uint32_t flags = 0;
  for (LLVMUseRef use = LLVMGetFirstUse(ptr); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    switch (LLVMGetInstructionOpcode(user)) {
    case LLVMLoad:
      flags |= KINASE_PARAM_READ | floats_if(LLVMTypeOf(user));
      /* A table of pointers (`float *const *xs`, one buffer a block):
       * floats reach the kernel through it, so it has a shadow, a table of
       * the buffers' shadows (KINASE_PARAM_TABLE). */
      if (kn_is_pointer_type(LLVMTypeOf(user)) && (pointer_uses(e, user, seen) & (floats_moving() | TABLE_FLOATS)))
        flags |= TABLE_FLOATS;
      break;
    case LLVMStore:
      flags |= LLVMGetOperand(user, 1) == ptr
                   ? KINASE_PARAM_WRITTEN | floats_if(LLVMTypeOf(LLVMGetOperand(user, 0)))
                   : both;
      break;
    case LLVMGetElementPtr:
      flags |= sixteen_bit_moved(pointer_uses(e, user, seen), kn_sixteen_bit_float(LLVMGetGEPSourceElementType(user)));
      break;
    case LLVMBitCast:
    case LLVMAddrSpaceCast:
    case LLVMPHI:
    case LLVMSelect:
    case LLVMFreeze:
      flags |= pointer_uses(e, user, seen);
      break;
    case LLVMICmp:
      break;
    case LLVMPtrToInt: /* an alignment test picking a vector path reads nothing */
      flags |= only_compared(user, 0) ? 0 : both;
      break;
    case LLVMAtomicRMW: /* atomicAdd on floats: they tell the element type */
      flags |= LLVMGetOperand(user, 0) == ptr && kn_is_float_type(LLVMTypeOf(user))
                   ? KINASE_PARAM_READ | KINASE_PARAM_WRITTEN | floats_if(LLVMTypeOf(user))
                   : both;
      break;
    case LLVMCall:
      for (unsigned i = 0, n = LLVMGetNumArgOperands(user); i < n; i++)
        if (LLVMGetOperand(user, i) == ptr)
          flags |= passed_to_call(e, user, i, seen);
      break;
    default: /* atomics, integers made of it, ... */
      flags |= both;
    }
  }
  return flags;
}

/* The byte offset of the struct field `address` points to, a constant
 * offset from `param` (a byval parameter), or -1. */
static long long field_offset(LLVMValueRef address, LLVMValueRef param) {
  LLVMValueRef base = NULL;
  unsigned long long offset;
  abi_offset_in_slot(address, &base, &offset);
  return base == param ? (long long)offset : -1;
}

/* KINASE_PARAM_READ / WRITTEN for the memory reached through the pointer
 * fields of the struct `param` (a byval parameter) points to; sets in
 * `written` (KINASE_STRUCT_POINTER_WORDS words) the bit of each pointer
 * field written through, all of them where a field is not at a constant
 * offset. */
static uint32_t struct_field_uses(Effects *e, LLVMValueRef param, LLVMValueRef at,
                                  uint32_t *written, unsigned nwords) {
  uint32_t flags = 0;
  for (LLVMUseRef use = LLVMGetFirstUse(at); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == at) {
      flags |= struct_field_uses(e, param, user, written, nwords);
      continue;
    }
    if (!LLVMIsALoadInst(user) || !kn_is_pointer_type(LLVMTypeOf(user)))
      continue;
    ValueSet seen = {0};
    uint32_t field = pointer_uses(e, user, &seen) & (KINASE_PARAM_READ | KINASE_PARAM_WRITTEN);
    vset_free(&seen);
    flags |= field;
    long long offset = field_offset(LLVMGetOperand(user, 0), param);
    if (!(field & KINASE_PARAM_WRITTEN))
      continue;
    if (offset < 0 || offset % 8)
      for (unsigned w = 0; w < nwords; w++)
        written[w] = ~0u;
    else
      written[offset / 256] |= 1u << (offset / 8 % 32);
  }
  return flags;
}

/* Whether `base` is a pointer read from a field of a struct parameter of
 * `kernel` (its simplified copy `copy`): memory the runtime reaches, as it
 * does a pointer parameter's (runtime/cuda_snapshot.c). */
static bool struct_field_pointer(LLVMValueRef kernel, LLVMValueRef copy, LLVMValueRef base) {
  if (!LLVMIsALoadInst(base))
    return false;
  LLVMValueRef from = kn_underlying_object(LLVMGetOperand(base, 0));
  for (unsigned i = 0, n = LLVMCountParams(kernel); i < n; i++)
    if (from == LLVMGetParam(copy, i) && cuda_byval_type(kernel, i))
      return true;
  return false;
}

/* Whether `address` is memory the kernel reaches other than through its
 * pointer parameters: a global of the device (not __shared__, not
 * constant), or memory behind a pointer read from memory. An argument of a
 * callee is what its call sites pass, which they answer for. */
static bool other_address(LLVMValueRef kernel, LLVMValueRef copy, LLVMValueRef address) {
  LLVMValueRef base = kn_underlying_object(address);
  bool own = LLVMIsAArgument(base) || LLVMIsAAllocaInst(base) ||
             struct_field_pointer(kernel, copy, base);
  bool shared = LLVMGetPointerAddressSpace(LLVMTypeOf(address)) == KN_SHARED_ADDRESS_SPACE ||
                (LLVMIsAGlobalVariable(base) &&
                 LLVMGetPointerAddressSpace(LLVMTypeOf(base)) == KN_SHARED_ADDRESS_SPACE);
  bool constant = LLVMIsAGlobalVariable(base) && LLVMIsGlobalConstant(base);
  return !own && !shared && !constant;
}

static uint32_t other_flags(uint32_t uses) {
  return uses & KINASE_PARAM_WRITTEN   ? KINASE_KERNEL_WRITES_OTHER | KINASE_KERNEL_READS_OTHER
         : uses & KINASE_PARAM_READ ? KINASE_KERNEL_READS_OTHER
                                    : 0;
}

/* Textures and surfaces that `fn` and the functions it calls read or
 * write (the headers' tex1Dfetch and surf2Dwrite are calls, whose
 * assembly takes no pointer): the memory behind them is the kernel's
 * other memory, so that a launch writing a surface is never skipped. */
static uint32_t texture_uses(LLVMValueRef fn, ValueSet *seen) {
  uint32_t uses = 0;
  if (!vset_add(seen, fn))
    return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      if (!LLVMIsACallInst(inst))
        continue;
      LLVMValueRef callee = kn_called_function(inst);
      if (callee && !LLVMIsDeclaration(callee)) {
        uses |= texture_uses(callee, seen);
        continue;
      }
      TextureKind kind = LLVMIsAInlineAsm(LLVMGetCalledValue(inst)) ? texture_kind(inst) : TEXTURE_NONE;
      uses |= kind == SURFACE_WRITE                              ? KINASE_PARAM_WRITTEN
              : kind == TEXTURE_FETCH || kind == SURFACE_READ ? KINASE_PARAM_READ
                                                              : 0;
    }
  return uses;
}

/* Memory the kernel and its callees reach other than through pointer
 * parameters, accessed there or passed to a call (atomicAdd(&g, v) at -O0
 * is a call), and textures and surfaces. */
static void other_memory(Effects *e, LLVMValueRef kernel, LLVMValueRef copy) {
  ValueSet seen = {0};
  e->flags |= other_flags(texture_uses(kernel, &seen));
  vset_free(&seen);
  for (ptrdiff_t f = 0; f < arrlen(e->copies); f++)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(e->copies[f]); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(inst);
        if (op == LLVMCall) {
          for (unsigned i = 0, n = LLVMGetNumArgOperands(inst); i < n; i++) {
            LLVMValueRef arg = LLVMGetOperand(inst, i);
            if (kn_is_pointer_type(LLVMTypeOf(arg)) && other_address(kernel, copy, arg)) {
              ValueSet seen = {0};
              e->flags |= other_flags(passed_to_call(e, inst, i, &seen));
              vset_free(&seen);
            }
          }
          continue;
        }
        bool load = op == LLVMLoad, store = op == LLVMStore || op == LLVMAtomicRMW ||
                                            op == LLVMAtomicCmpXchg;
        if ((load || store) && other_address(kernel, copy, LLVMGetOperand(inst, op == LLVMStore ? 1 : 0)))
          e->flags |= other_flags(store ? KINASE_PARAM_WRITTEN : KINASE_PARAM_READ);
      }
}

/* The parameter words of the kernel info (runtime/kinase_cuda.h); in
 * *field_words, per struct parameter, which of its pointer fields the
 * kernel writes through. */
static uint32_t *describe_parameters(LLVMValueRef kernel, uint32_t *kernel_flags,
                                     uint32_t **field_words) {
  Effects e = {0};
  LLVMValueRef copy = simplified(&e, kernel);
  uint32_t *words = NULL;
  for (unsigned i = 0, n = LLVMCountParams(kernel); i < n; i++) {
    LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(kernel, i));
    uint32_t word = (uint32_t)LLVMABISizeOfType(kn_module.layout, type) & KINASE_PARAM_SIZE;
    LLVMTypeRef byval = cuda_byval_type(kernel, i);
    if (byval) {
      uint32_t size = (uint32_t)LLVMABISizeOfType(kn_module.layout, byval) & KINASE_PARAM_SIZE;
      unsigned nwords = KINASE_STRUCT_POINTER_WORDS(size);
      uint32_t *written = arraddnptr(*field_words, nwords);
      memset(written, 0, nwords * sizeof *written);
      LLVMValueRef param = LLVMGetParam(copy, i);
      word = KINASE_PARAM_STRUCT | size | struct_field_uses(&e, param, param, written, nwords);
    } else if (kn_is_pointer_type(type)) {
      ValueSet seen = {0};
      uint32_t uses = pointer_uses(&e, LLVMGetParam(copy, i), &seen);
      vset_free(&seen);
      uses = sixteen_bit_moved(uses, param_pointee_sixteen_bit(kernel, i));
      const uint32_t typed = KINASE_PARAM_F32 | KINASE_PARAM_F64 | KINASE_PARAM_F16 | KINASE_PARAM_BF16;
      const uint32_t floats = typed | MOVES_FLOATS | TABLE_FLOATS;
      uint32_t types = uses & typed;
      bool one_type = !(uses & (MOVES_FLOATS | TABLE_FLOATS)) && !(types & (types - 1)); /* at most one bit */
      bool table = (uses & floats) == TABLE_FLOATS;
      word |= KINASE_PARAM_POINTER | (uses & ~floats) | (one_type ? uses & typed : 0) |
              (uses & floats ? 0 : KINASE_PARAM_NO_FLOATS) | (table ? KINASE_PARAM_TABLE : 0);
    } else if (kn_is_float_or_double(type)) {
      word |= KINASE_PARAM_FLOAT;
    }
    arrput(words, word);
  }
  other_memory(&e, kernel, copy);
  *kernel_flags = e.flags;
  /* The copies are analysis only. */
  for (ptrdiff_t f = 0; f < arrlen(e.copies); f++)
    LLVMDeleteFunction(e.copies[f]);
  arrfree(e.copies);
  vmap_free(&e.copy_of);
  return words;
}

/* ---- what is differentiated: the kernel with its calls inlined ---- */

/* A copy of `kernel` with its calls inlined, a few levels deep, as every
 * copy differentiated in device code is (core/clone.c): inlined here
 * already, so that the extern __shared__ arrays its callees use are seen
 * and become the copy's parameter (cuda/shared.c). */
static LLVMValueRef inlined_copy(LLVMValueRef kernel) {
  char *name = kn_strdup_printf("kinase.inlined.%s", kn_function_name(kernel));
  LLVMValueRef copy = clone_function(kernel, name);
  free(name);
  /* A struct parameter stays the copy's own, as the kernel's is. */
  for (unsigned i = 0, n = LLVMCountParams(kernel); i < n; i++)
    cuda_copy_byval_attributes(kernel, i, copy, i);
  rule_inline_calls(copy, DEVICE_INLINE_LEVELS);
  return copy;
}

/* ---- emitting ---- */

static void add_device_global(const char *prefix, const char *kernel, LLVMValueRef init) {
  char *name = kn_strdup_printf("__kinase_%s_%s", prefix, kernel);
  LLVMValueRef global = LLVMAddGlobalInAddressSpace(kn_module.mod, LLVMTypeOf(init), name, 1);
  LLVMSetInitializer(global, init);
  LLVMSetGlobalConstant(global, true);
  LLVMSetAlignment(global, 4);
  free(name);
}

/* The kernel info: the header, the parameter words, then per struct
 * parameter its pointer words and the words of the pointer fields written
 * through (`field_words`, in order). */
static void emit_info(LLVMValueRef kernel, const uint32_t *words, const uint32_t *field_words,
                      uint32_t flags) {
  uint32_t *all = NULL;
  arrput(all, KINASE_KERNEL_INFO_MAGIC);
  arrput(all, (uint32_t)arrlen(words));
  arrput(all, flags);
  for (ptrdiff_t i = 0; i < arrlen(words); i++)
    arrput(all, words[i]);
  const uint32_t *written = field_words;
  for (unsigned i = 0, n = LLVMCountParams(kernel); i < n; i++) {
    LLVMTypeRef byval = cuda_byval_type(kernel, i);
    if (!byval)
      continue;
    cuda_struct_pointer_words(byval, &all);
    for (uint64_t w = KINASE_STRUCT_POINTER_WORDS(LLVMABISizeOfType(kn_module.layout, byval)); w; w--)
      arrput(all, *written++);
  }
  LLVMValueRef *values = NULL;
  for (ptrdiff_t i = 0; i < arrlen(all); i++)
    arrput(values, LLVMConstInt(i32_type(), all[i], 0));
  add_device_global("kinfo", kn_function_name(kernel),
                    LLVMConstArray2(i32_type(), values, (uint64_t)arrlen(values)));
  arrfree(values);
  arrfree(all);
}

static void emit_reason(const char *kernel, const char *why) {
  add_device_global("kwhy", kernel, LLVMConstStringInContext2(kn_module.ctx, why, strlen(why), 0));
}

/* A reverse kernel's forward part, and the branch after it that a counting
 * launch will take to return (false until cuda_arena_connect). */
typedef struct {
  LLVMValueRef aug, gate;
} ForwardPart;

/* A derivative kernel is launched with the block the user chose for the
 * kernel, which may be as large as the kernel allows: 1024 threads unless
 * it declares fewer (__launch_bounds__). A reverse kernel needs more
 * registers than its kernel, and without a bound ptxas may give it more
 * than a block of 1024 can have ("too many resources requested for
 * launch", at -O0 or with a block size from cudaOccupancyMaxPotentialBlockSize).
 * So it gets the kernel's bound, or 1024. */
static void keep_launchable(LLVMValueRef kernel, LLVMValueRef derivative) {
  static const char key[] = "nvvm.maxntid";
  LLVMAttributeRef bound = LLVMGetStringAttributeAtIndex(kernel, LLVMAttributeFunctionIndex, key, sizeof key - 1);
  if (!bound)
    bound = LLVMCreateStringAttribute(kn_module.ctx, key, sizeof key - 1, "1024", 4);
  LLVMAddAttributeAtIndex(derivative, LLVMAttributeFunctionIndex, bound);
}

/* A derivative kernel of `kernel` (its inlined copy `body`): every
 * parameter of `kernel`, each pointer followed by its shadow, each float by
 * its accumulator (reverse) or tangent (forward), each struct passed by
 * value by its shadow struct and, in reverse, the accumulator of its float
 * fields (cuda/byval.c). pattern[k] is the k-th pointer parameter's letter:
 * 'd', 'c', or 'n' (dup, its results not needed). For a reverse kernel,
 * *part says where its forward part ends. */
static LLVMValueRef derivative_kernel(LLVMValueRef kernel, LLVMValueRef body, const uint32_t *words,
                                      uint32_t kernel_flags, Mode mode, const char *pattern,
                                      ForwardPart *part) {
  unsigned n = LLVMCountParams(kernel), nparams = 0, nargs = 0, pointer = 0;
  LLVMTypeRef params[3 * KN_MAX_PARAMS + 1];
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(kernel, i));
    params[nparams++] = type;
    if (words[i] & (KINASE_PARAM_POINTER | KINASE_PARAM_STRUCT))
      params[nparams++] = type;
    if ((words[i] & KINASE_PARAM_STRUCT) && mode == MODE_REVERSE)
      params[nparams++] = ptr_type();
    else if (words[i] & KINASE_PARAM_FLOAT)
      params[nparams++] = mode == MODE_REVERSE ? ptr_type() : type;
  }
  if (mode == MODE_REVERSE)
    params[nparams++] = ptr_type(); /* the tape arena */
  char *name = kn_strdup_printf("__kinase_%s_%s_%s", mode == MODE_REVERSE ? "krev" : "kfwd",
                                pattern, kn_function_name(kernel));
  LLVMValueRef fn = LLVMAddFunction(
      kn_module.mod, name, LLVMFunctionType(LLVMVoidTypeInContext(kn_module.ctx), params, nparams, 0));
  free(name);
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  keep_launchable(kernel, fn);
  for (unsigned i = 0, p = 0; i < n; i++, p++) {
    if (words[i] & KINASE_PARAM_STRUCT) {
      cuda_copy_byval_attributes(kernel, i, fn, p);
      cuda_copy_byval_attributes(kernel, i, fn, ++p);
      p += mode == MODE_REVERSE;
    } else if (words[i] & (KINASE_PARAM_POINTER | KINASE_PARAM_FLOAT)) {
      p++;
    }
  }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "entry"));

  Signature sig = {.fn = body, .mode = mode, .nparams = n};
  /* What the kernel only reads stays as it was: the runtime gives a launch
   * copies of what it reads and also writes. Not so where the kernel writes
   * memory the runtime cannot see (globals, pointers read from memory), nor
   * through a struct's pointer fields: the reverse kernel stores into the
   * copies again, which a pointer parameter may share. */
  bool writes_fields = false;
  for (unsigned i = 0; i < n; i++)
    writes_fields |= (words[i] & KINASE_PARAM_STRUCT) && (words[i] & KINASE_PARAM_WRITTEN);
  for (unsigned i = 0; i < n && !writes_fields && !(kernel_flags & KINASE_KERNEL_WRITES_OTHER); i++)
    if ((words[i] & KINASE_PARAM_POINTER) && !(words[i] & KINASE_PARAM_WRITTEN))
      sig.frozen |= 1ull << i;
  LLVMValueRef args[2 * KN_MAX_PARAMS + 2], accumulators[KN_MAX_PARAMS];
  unsigned naccumulators = 0;
  /* Per struct parameter: its type, the shadow struct the sweep adds
   * into, and where the float fields' adjoints go. */
  struct {
    LLVMTypeRef type;
    LLVMValueRef shadow, accumulator;
  } structs[KN_MAX_PARAMS];
  unsigned nstructs = 0;
  for (unsigned i = 0, p = 0; i < n; i++) {
    LLVMValueRef primal = LLVMGetParam(fn, p++);
    args[nargs++] = primal;
    sig.params[i] = ACT_CONST;
    if (words[i] & KINASE_PARAM_POINTER) {
      LLVMValueRef shadow = LLVMGetParam(fn, p++);
      char letter = pattern[pointer++];
      if (letter != 'c') {
        sig.params[i] = letter == 'n' ? ACT_DUPNONEED : ACT_DUP;
        args[nargs++] = shadow;
      }
    } else if (words[i] & KINASE_PARAM_STRUCT) {
      LLVMTypeRef type = cuda_byval_type(kernel, i);
      LLVMValueRef shadow = cuda_struct_shadow_copy(b, LLVMGetParam(fn, p++), type, mode == MODE_REVERSE);
      LLVMValueRef accumulator = mode == MODE_REVERSE ? LLVMGetParam(fn, p++) : NULL;
      sig.params[i] = ACT_DUP;
      args[nargs++] = shadow;
      structs[nstructs].type = type;
      structs[nstructs].shadow = shadow;
      structs[nstructs++].accumulator = accumulator;
    } else if (words[i] & KINASE_PARAM_FLOAT) {
      LLVMValueRef extra = LLVMGetParam(fn, p++);
      sig.params[i] = mode == MODE_REVERSE ? ACT_OUT : ACT_DUP;
      if (mode == MODE_REVERSE)
        accumulators[naccumulators++] = extra;
      else
        args[nargs++] = extra;
    }
  }
  if (LLVMCountParams(body) > n) {
    cuda_dynamic_shared_args(b, &args[nargs], &args[nargs + 1]);
    nargs += 2;
    sig.params[sig.nparams++] = ACT_DUP;
  }
  if (mode == MODE_FORWARD) {
    LLVMBuildCall2(b, derive_type(&sig), derive_get(&sig), args, nargs, "");
  } else {
    part->aug = abi_call_augmented(b, &sig, args, nargs);
    LLVMBasicBlockRef reverse = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "reverse");
    LLVMBasicBlockRef counted = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "counted");
    part->gate = LLVMBuildCondBr(b, LLVMConstInt(LLVMInt1TypeInContext(kn_module.ctx), 0, 0), counted, reverse);
    LLVMPositionBuilderAtEnd(b, counted);
    LLVMBuildRetVoid(b);
    LLVMPositionBuilderAtEnd(b, reverse);
    LLVMValueRef grads = abi_call_reverse(b, &sig, args, nargs, part->aug);
    /* Each thread adds its share of a by-value float's adjoint; a null
     * accumulator is one the caller does not want, in every lane. */
    for (unsigned k = 0; k < naccumulators; k++) {
      LLVMValueRef grad = LLVMBuildExtractValue(b, grads, k, "");
      LLVMValueRef wanted = LLVMBuildIsNotNull(b, accumulators[k], "");
      LLVMBasicBlockRef add = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "accumulate");
      LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(kn_module.ctx, fn, "next");
      LLVMBuildCondBr(b, wanted, add, next);
      LLVMPositionBuilderAtEnd(b, add);
      cuda_add_uniform(b, &accumulators[k], &grad, 1);
      LLVMBuildBr(b, next);
      LLVMPositionBuilderAtEnd(b, next);
    }
    for (unsigned k = 0; k < nstructs; k++)
      cuda_struct_accumulate(b, structs[k].shadow, structs[k].type, structs[k].accumulator);
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static bool read_only_floats(uint32_t word) {
  return (word & KINASE_PARAM_POINTER) && !(word & (KINASE_PARAM_NO_FLOATS | KINASE_PARAM_WRITTEN));
}

/* The letter a pointer parameter has in every reverse kernel of its
 * kernel, or 0 where it varies (runtime/kinase_cuda.h). Written ones are
 * 'n': the primal launch stored their results already (or they are not
 * needed), so no reverse kernel stores them again. */
static char fixed_reverse_letter(uint32_t word, uint32_t kernel_flags) {
  if (word & KINASE_PARAM_NO_FLOATS)
    return 'c';
  if (word & KINASE_PARAM_WRITTEN)
    return kernel_flags & KINASE_KERNEL_WRITES_OTHER ? 'd' : 'n';
  return word & KINASE_PARAM_OWNED ? 'd' : 0;
}

/* The reverse patterns to emit, one string each (a stb_ds array): the
 * read-only float pointers that threads share may be Const or not; the
 * others have a fixed letter. */
static char **reverse_patterns(const uint32_t *words, uint32_t kernel_flags) {
  char letters[KN_MAX_PARAMS + 1], **patterns = NULL;
  unsigned free_at[KN_MAX_PARAMS], nfree = 0, k = 0;
  for (ptrdiff_t i = 0; i < arrlen(words); i++) {
    if (!(words[i] & KINASE_PARAM_POINTER))
      continue;
    letters[k] = fixed_reverse_letter(words[i], kernel_flags);
    if (!letters[k])
      free_at[nfree++] = k;
    k++;
  }
  letters[k] = 0;
  bool every = nfree <= KINASE_ALL_PATTERNS_UP_TO;
  for (unsigned mask = 0; mask < (every ? 1u << nfree : 2u); mask++) {
    for (unsigned j = 0; j < nfree; j++)
      letters[free_at[j]] = (every ? (mask >> j) & 1 : mask) ? 'c' : 'd';
    arrput(patterns, kn_strdup_printf("%s", letters));
  }
  return patterns;
}

/* The one forward pattern: every pointer moving floats 'd' (a Const one
 * gets a zeroed scratch tangent). */
static char *forward_pattern(const uint32_t *words) {
  char letters[KN_MAX_PARAMS + 1];
  unsigned k = 0;
  for (ptrdiff_t i = 0; i < arrlen(words); i++)
    if (words[i] & KINASE_PARAM_POINTER)
      letters[k++] = words[i] & KINASE_PARAM_NO_FLOATS ? 'c' : 'd';
  letters[k] = 0;
  return kn_strdup_printf("%s", letters);
}

/* Marks KINASE_PARAM_OWNED the read-only float pointers of which each
 * thread reads only its own part (cuda/threads.c), seen in a simplified
 * copy of `body`, what is differentiated. A Const one of these costs little
 * as 'd' with a scratch shadow (its adjoints are the thread's own,
 * added without atomics in one-dimensional launches), so it gets no
 * reverse kernels of its own; one that threads share would cost atomics
 * that contend, so it keeps them. */
static void mark_owned(LLVMValueRef body, uint32_t *words) {
  LLVMValueRef copy = clone_function(body, "kinase.owned");
  simplify_before(copy);
  for (ptrdiff_t i = 0; i < arrlen(words); i++)
    if (read_only_floats(words[i]) && cuda_parameter_owned(LLVMGetParam(copy, (unsigned)i)))
      words[i] |= KINASE_PARAM_OWNED;
  LLVMDeleteFunction(copy);
}

/* Whether `fn` or a function it calls computes derivatives itself (a
 * device-side request): derivatives of derivatives are left to requests. */
static bool computes_derivatives(LLVMValueRef fn, ValueSet *seen) {
  if (!vset_add(seen, fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef callee = LLVMIsACallInst(inst) ? kn_called_function(inst) : NULL;
      if (callee && (!strncmp(kn_function_name(callee), "__kinase_", 9) ||
                     computes_derivatives(callee, seen)))
        return true;
    }
  return false;
}

/* Why `kernel` gets no derivative kernels, or NULL. */
static const char *not_emitted(LLVMValueRef kernel, const uint32_t *words) {
  if (LLVMCountParams(kernel) > KN_MAX_PARAMS)
    return "it has too many parameters";
  for (unsigned i = 0, n = LLVMCountParams(kernel); i < n; i++) {
    const char *why = cuda_byval_type(kernel, i) ? cuda_struct_unsupported(cuda_byval_type(kernel, i)) : NULL;
    if (why)
      return why;
  }
  ValueSet seen = {0};
  bool nested = computes_derivatives(kernel, &seen);
  vset_free(&seen);
  if (nested)
    return "it computes derivatives itself (__enzyme_* in device code): differentiate the "
           "function it differentiates instead";
  for (ptrdiff_t i = 0; i < arrlen(words); i++) {
    LLVMTypeRef byval = cuda_byval_type(kernel, (unsigned)i);
    bool struct_reaches = byval && (kn_type_has_floats(byval) || kn_type_has_pointers(byval));
    if ((words[i] & KINASE_PARAM_FLOAT) || struct_reaches ||
        ((words[i] & KINASE_PARAM_POINTER) && !(words[i] & KINASE_PARAM_NO_FLOATS)))
      return NULL;
  }
  return "no floating-point value reaches it through its parameters";
}

/* Deletes the first n of the derivative kernels `made`, with the tape
 * slots their requests took. */
static void drop_derivative_kernels(LLVMValueRef *made, ptrdiff_t n) {
  for (ptrdiff_t i = 0; i < n; i++) {
    abi_drop_tape_slots_in(made[i]);
    LLVMDeleteFunction(made[i]);
  }
}

/* The index, among the parameters of a reverse kernel, of kernel
 * parameter i's own (derivative_kernel's order). */
static unsigned reverse_param_index(const uint32_t *words, unsigned i) {
  unsigned p = 0;
  for (unsigned k = 0; k < i; k++)
    p += 1 + ((words[k] & (KINASE_PARAM_POINTER | KINASE_PARAM_FLOAT)) != 0) +
         2 * ((words[k] & KINASE_PARAM_STRUCT) != 0);
  return p;
}

/* A pointer parameter that no reverse kernel (the first `n` of `made`)
 * reads or writes through is no longer READ: the runtime keeps no copy of
 * what it points to for them (reverseaccess.c). */
static void drop_reads_no_reverse_repeats(uint32_t *words, LLVMValueRef *made, ptrdiff_t n) {
  for (ptrdiff_t i = 0; i < arrlen(words); i++) {
    if (!(words[i] & KINASE_PARAM_POINTER) || !(words[i] & KINASE_PARAM_READ))
      continue;
    bool touched = false;
    for (ptrdiff_t k = 0; k < n && !touched; k++)
      touched = cuda_reverse_touches(made[k], reverse_param_index(words, (unsigned)i));
    if (!touched)
      words[i] &= ~KINASE_PARAM_READ;
  }
}

static void emit_for_kernel(LLVMValueRef kernel) {
  const char *name = kn_function_name(kernel);
  uint32_t flags = 0, *field_words = NULL, *words = describe_parameters(kernel, &flags, &field_words);
  const char *reason = not_emitted(kernel, words);
  LLVMValueRef body = reason ? NULL : cuda_dynamic_shared_as_parameter(inlined_copy(kernel));
  if (body && LLVMCountParams(body) > LLVMCountParams(kernel))
    flags |= KINASE_KERNEL_DYNAMIC_SHARED;
  if (body && LLVMCountParams(body) > KN_MAX_PARAMS) {
    LLVMDeleteFunction(body);
    body = NULL;
    reason = "it has too many parameters";
  }
  if (body)
    mark_owned(body, words);
  if (reason) {
    emit_info(kernel, words, field_words, flags);
    emit_reason(name, reason);
    arrfree(words);
    arrfree(field_words);
    return;
  }
  char *why = NULL, **patterns = reverse_patterns(words, flags), *forward = forward_pattern(words);
  LLVMValueRef *made = NULL;
  ForwardPart *parts = NULL, part;
  kn_capture_errors(&why);
  for (ptrdiff_t p = 0; p < arrlen(patterns); p++) {
    arrput(made, derivative_kernel(kernel, body, words, flags, MODE_REVERSE, patterns[p], &part));
    arrput(parts, part);
  }
  arrput(made, derivative_kernel(kernel, body, words, flags, MODE_FORWARD, forward, NULL));
  free(forward);
  derive_drain();
  kn_capture_errors(NULL);
  char *unrepeatable = NULL;
  for (ptrdiff_t i = 0; i < arrlen(parts) && !why && !unrepeatable; i++) {
    const char *atomic = cuda_unrepeatable_atomic(kn_called_function(parts[i].aug));
    unrepeatable = atomic ? kn_strdup_printf("%s", atomic) : NULL;
  }
  if (arrlen(parts) && !why && !unrepeatable)
    unrepeatable = cuda_unrepeatable_global(body);
  if (unrepeatable) { /* forward mode, which runs in the kernel's place, stays */
    drop_derivative_kernels(made, arrlen(parts));
    arrdeln(made, 0, arrlen(parts));
    arrsetlen(parts, 0);
    emit_reason(name, unrepeatable);
    free(unrepeatable);
  }
  if (!why && (flags & KINASE_KERNEL_WRITES_OTHER))
    for (ptrdiff_t i = 0; i < arrlen(parts); i++)
      cuda_drop_repeated_global_writes(kn_called_function(parts[i].aug));
  /* One arena decision for all reverse kernels: any that grows a tape
   * must count, and so all must be able to. */
  bool countable = !why, grows = false;
  for (ptrdiff_t i = 0; i < arrlen(parts) && countable; i++)
    countable = cuda_arena_countable(parts[i].aug, &grows);
  if (countable && grows) {
    flags |= KINASE_KERNEL_TAPE_ARENA;
    for (ptrdiff_t i = 0; i < arrlen(parts); i++)
      cuda_arena_connect(made[i], parts[i].gate);
  }
  if (!why && arrlen(parts))
    drop_reads_no_reverse_repeats(words, made, arrlen(parts));
  arrfree(parts);
  emit_info(kernel, words, field_words, flags);
  arrfree(field_words);
  abi_size_tape_slots();
  LLVMDeleteFunction(body); /* the derivatives are made from copies of it */
  if (why) {
    drop_derivative_kernels(made, arrlen(made));
    emit_reason(name, why);
    free(why);
  }
  for (ptrdiff_t p = 0; p < arrlen(patterns); p++)
    free(patterns[p]);
  arrfree(patterns);
  arrfree(made);
  arrfree(words);
}

void cuda_emit_kernel_derivatives(void) {
  LLVMValueRef *kernels = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    if (is_kernel(fn) && strncmp(kn_function_name(fn), "__kinase_", 9))
      arrput(kernels, fn);
  for (ptrdiff_t i = 0; i < arrlen(kernels); i++)
    emit_for_kernel(kernels[i]);
  arrfree(kernels);
}
