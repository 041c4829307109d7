/* Thread geometry in device code: which values name the thread (its
 * indices, its block's, the launch's sizes), and which addresses only this
 * thread touches, so that adjoints can go there without atomics.
 *
 * An address a thread owns: base + S * gid + c, where base is a parameter
 * of the derivative, gid the thread's global index in x (blockIdx.x *
 * blockDim.x + threadIdx.x), and every access through base in the function
 * lies within [S * gid, S * gid + S). Distinct threads then touch disjoint
 * bytes, as long as the launch is one-dimensional: with threads that share
 * an x index (blockDim.y > 1), gid is not theirs alone, so the generated code
 * checks the launch's shape once and keeps the atomic path for the others.
 */
#include "kinase.h"

#include <stdint.h>
#include <string.h>

static const char *const geometry_prefixes[] = {
    "llvm.nvvm.read.ptx.sreg.tid.",   "llvm.nvvm.read.ptx.sreg.ntid.",
    "llvm.nvvm.read.ptx.sreg.ctaid.", "llvm.nvvm.read.ptx.sreg.nctaid.",
    "llvm.nvvm.read.ptx.sreg.warpsize", "llvm.nvvm.read.ptx.sreg.laneid",
};

/* The special register `v` reads: a call of its intrinsic, or (before
 * clang's pipeline inlines them) of CUDA's wrappers such as
 * __cuda_builtin_threadIdx_t::__fetch_builtin_x(), whose body returns it. */
static const char *register_read(LLVMValueRef v) {
  LLVMValueRef callee = LLVMIsACallInst(v) ? kn_called_function(v) : NULL;
  if (!callee || LLVMGetNumArgOperands(v) != 0)
    return NULL;
  if (LLVMIsDeclaration(callee))
    return kn_function_name(callee);
  LLVMBasicBlockRef only = LLVMGetFirstBasicBlock(callee);
  LLVMValueRef ret = only && !LLVMGetNextBasicBlock(only) ? LLVMGetBasicBlockTerminator(only) : NULL;
  if (!ret || LLVMGetInstructionOpcode(ret) != LLVMRet || LLVMGetNumOperands(ret) != 1)
    return NULL;
  LLVMValueRef inner = LLVMGetOperand(ret, 0);
  LLVMValueRef intrinsic = LLVMIsACallInst(inner) ? kn_called_function(inner) : NULL;
  return intrinsic && LLVMIsDeclaration(intrinsic) ? kn_function_name(intrinsic) : NULL;
}

static bool reads_register(LLVMValueRef v, const char *prefix) {
  const char *name = register_read(v);
  return name && !strncmp(name, prefix, strlen(prefix));
}

bool cuda_is_thread_geometry(LLVMValueRef v) {
  for (size_t i = 0; i < sizeof geometry_prefixes / sizeof *geometry_prefixes; i++)
    if (reads_register(v, geometry_prefixes[i]))
      return true;
  return false;
}

static bool is_lifetime_marker(LLVMValueRef v) {
  LLVMValueRef callee = LLVMIsACallInst(v) ? kn_called_function(v) : NULL;
  return callee && !strncmp(kn_function_name(callee), "llvm.lifetime.", 14);
}

/* The one value stored into `slot`, a local variable whose address goes
 * nowhere else (unoptimised code keeps every variable in one: a device-side
 * request's arguments are seen before the pipeline promotes them); NULL if
 * it is not one. */
static LLVMValueRef stored_once(LLVMValueRef slot) {
  LLVMValueRef stored = NULL;
  if (!LLVMIsAAllocaInst(slot))
    return NULL;
  for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsALoadInst(user) || is_lifetime_marker(user))
      continue;
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot || stored)
      return NULL;
    stored = LLVMGetOperand(user, 0);
  }
  return stored;
}

/* What a load of such a slot reads, or `v` itself. */
static LLVMValueRef slot_value(LLVMValueRef v) {
  for (int depth = 0; depth < 8 && LLVMIsALoadInst(v) && stored_once(LLVMGetOperand(v, 0)); depth++)
    v = stored_once(LLVMGetOperand(v, 0));
  return v;
}

/* Whether every use of v, seen through the slots it is stored in, is `only`. */
static bool used_only_by(LLVMValueRef v, LLVMValueRef only, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (user == only)
      continue;
    LLVMValueRef slot = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == v ? LLVMGetOperand(user, 1) : NULL;
    if (!slot || stored_once(slot) != v || depth > 4)
      return false;
    for (LLVMUseRef read = LLVMGetFirstUse(slot); read; read = LLVMGetNextUse(read))
      if (LLVMIsALoadInst(LLVMGetUser(read)) && !used_only_by(LLVMGetUser(read), only, depth + 1))
        return false;
  }
  return true;
}

static LLVMValueRef strip_int_casts(LLVMValueRef v) {
  v = slot_value(v);
  while (LLVMIsAZExtInst(v) || LLVMIsASExtInst(v))
    v = slot_value(LLVMGetOperand(v, 0));
  return v;
}

static bool is_register(LLVMValueRef v, const char *name) {
  const char *read = register_read(v);
  return read && !strcmp(read, name);
}

/* blockIdx.x * blockDim.x + threadIdx.x, in either order. */
static bool is_global_index(LLVMValueRef v) {
  v = strip_int_casts(v);
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd)
    return false;
  for (int k = 0; k < 2; k++) {
    LLVMValueRef mul = strip_int_casts(LLVMGetOperand(v, k)), tid = strip_int_casts(LLVMGetOperand(v, 1 - k));
    if (!is_register(tid, "llvm.nvvm.read.ptx.sreg.tid.x") || !LLVMIsAInstruction(mul) ||
        LLVMGetInstructionOpcode(mul) != LLVMMul)
      continue;
    LLVMValueRef a = strip_int_casts(LLVMGetOperand(mul, 0)), b = strip_int_casts(LLVMGetOperand(mul, 1));
    if ((is_register(a, "llvm.nvvm.read.ptx.sreg.ctaid.x") && is_register(b, "llvm.nvvm.read.ptx.sreg.ntid.x")) ||
        (is_register(b, "llvm.nvvm.read.ptx.sreg.ctaid.x") && is_register(a, "llvm.nvvm.read.ptx.sreg.ntid.x")))
      return true;
  }
  return false;
}

/* An offset in bytes as scale * gid + constant; false if it is not one. */
typedef struct {
  int64_t scale, constant;
} Affine;

static bool constant_of(LLVMValueRef v, int64_t *out) {
  if (!LLVMIsAConstantInt(v))
    return false;
  *out = LLVMConstIntGetSExtValue(v);
  return true;
}

static bool affine(LLVMValueRef v, Affine *out, int depth) {
  int64_t c;
  if (constant_of(v, &c)) {
    *out = (Affine){0, c};
    return true;
  }
  if (depth > 8)
    return false;
  if (is_global_index(v)) {
    *out = (Affine){1, 0};
    return true;
  }
  v = strip_int_casts(v);
  if (!LLVMIsAInstruction(v))
    return false;
  Affine a, b;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAdd:
  case LLVMOr: /* an or of disjoint bits, as instcombine writes an add */
    if (!affine(LLVMGetOperand(v, 0), &a, depth + 1) || !affine(LLVMGetOperand(v, 1), &b, depth + 1))
      return false;
    if (LLVMGetInstructionOpcode(v) == LLVMOr && (a.scale || b.scale))
      return false;
    *out = (Affine){a.scale + b.scale, a.constant + b.constant};
    return true;
  case LLVMMul:
    for (int k = 0; k < 2; k++)
      if (constant_of(LLVMGetOperand(v, k), &c) && affine(LLVMGetOperand(v, 1 - k), &a, depth + 1)) {
        *out = (Affine){a.scale * c, a.constant * c};
        return true;
      }
    return false;
  case LLVMShl:
    if (!constant_of(LLVMGetOperand(v, 1), &c) || c < 0 || c > 32 ||
        !affine(LLVMGetOperand(v, 0), &a, depth + 1))
      return false;
    *out = (Affine){a.scale << c, a.constant << c};
    return true;
  default:
    return false;
  }
}

/* The address as base + offset: the base (through GEPs) and the offset in
 * bytes, affine in gid. */
static bool decompose(LLVMValueRef address, LLVMValueRef *base, Affine *offset) {
  Affine sum = {0, 0};
  LLVMValueRef p = slot_value(kn_strip_casts(address));
  while (LLVMIsAGetElementPtrInst(p)) {
    LLVMTypeRef type = LLVMGetGEPSourceElementType(p);
    unsigned n = LLVMGetNumOperands(p);
    for (unsigned i = 1; i < n; i++) {
      Affine index;
      if (!affine(LLVMGetOperand(p, i), &index, 0))
        return false;
      int64_t size;
      if (i == 1) {
        size = (int64_t)LLVMABISizeOfType(kn_module.layout, type);
      } else if (LLVMGetTypeKind(type) == LLVMStructTypeKind) {
        size = 0;
        index.constant = (int64_t)LLVMOffsetOfElement(kn_module.layout, type, (unsigned)index.constant);
        index.scale = 0;
        type = LLVMStructGetTypeAtIndex(type, (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(p, i)));
        sum.constant += index.constant;
        continue;
      } else {
        type = LLVMGetElementType(type);
        size = (int64_t)LLVMABISizeOfType(kn_module.layout, type);
      }
      sum.scale += index.scale * size;
      sum.constant += index.constant * size;
    }
    p = slot_value(kn_strip_casts(LLVMGetOperand(p, 0)));
  }
  *base = p;
  *offset = sum;
  return true;
}

static LLVMValueRef access_address(LLVMValueRef inst, uint64_t *bytes) {
  if (LLVMIsALoadInst(inst)) {
    *bytes = LLVMABISizeOfType(kn_module.layout, LLVMTypeOf(inst));
    return LLVMGetOperand(inst, 0);
  }
  if (LLVMIsAStoreInst(inst)) {
    *bytes = LLVMABISizeOfType(kn_module.layout, LLVMTypeOf(LLVMGetOperand(inst, 0)));
    return LLVMGetOperand(inst, 1);
  }
  return NULL;
}

/* Whether every use of `base` in its function is a load or store at
 * base + scale * gid + c with 0 <= c and c + size <= scale; *stray is the
 * first use that is not. */
static bool owned_everywhere(LLVMValueRef base, int64_t scale, ValueSet *seen, LLVMValueRef v,
                             LLVMValueRef *stray) {
  if (!vset_add(seen, v))
    return true;
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    uint64_t bytes;
    LLVMValueRef address = access_address(user, &bytes);
    if (address == v && !(LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == v)) {
      LLVMValueRef b;
      Affine offset;
      if (!decompose(address, &b, &offset) || b != base || offset.scale != scale ||
          offset.constant < 0 || offset.constant + (int64_t)bytes > scale)
        return *stray = user, false;
      continue;
    }
    if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) || LLVMIsAAddrSpaceCastInst(user)) {
      if (!owned_everywhere(base, scale, seen, user, stray))
        return false;
      continue;
    }
    return *stray = user, false; /* stored, passed to a call, compared, turned into an integer */
  }
  return true;
}

bool cuda_thread_owns(LLVMValueRef address, Reason *why) {
  LLVMValueRef base;
  Affine offset;
  if (LLVMIsAGlobalVariable(kn_underlying_object(address)))
    return kn_because(why, "the address is in a variable every thread reaches (global or "
                           "__shared__): shared", NULL), false;
  if (!decompose(address, &base, &offset) || offset.scale < 0)
    return kn_because(why, "the address is not base + S * gid + c in the thread's global index gid "
                           "(blockIdx.x * blockDim.x + threadIdx.x): other threads may add to the "
                           "same element (shared)", NULL), false;
  if (!LLVMIsAArgument(base))
    return kn_because(why, "the address is not reached from a parameter: other threads may add "
                           "to it (shared)", NULL), false;
  if (!offset.scale)
    return kn_because(why, "the address is the same for every thread: shared", NULL), false;
  ValueSet seen = {0};
  LLVMValueRef stray = NULL;
  bool owned = owned_everywhere(base, offset.scale, &seen, base, &stray);
  vset_free(&seen);
  if (owned)
    kn_because(why, "the address is base + S * gid + c and the function reaches only the "
                    "thread's S bytes of base", NULL);
  else
    kn_because(why, "the address depends on the thread index, but the function also reaches "
                    "that parameter outside the thread's S bytes [S * gid, S * gid + S) (%s): "
                    "shared", stray);
  return owned;
}

/* The address of a load or store through `v` (or a GEP or cast of it), or
 * NULL when nothing reads or writes through it. */
static LLVMValueRef first_access(LLVMValueRef v, int depth) {
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use), found = NULL;
    uint64_t bytes;
    LLVMValueRef address = access_address(user, &bytes);
    if (address == v && !(LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == v))
      return address;
    if ((LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) || LLVMIsAAddrSpaceCastInst(user)) &&
        depth < 8)
      found = first_access(user, depth + 1);
    if (found)
      return found;
  }
  return NULL;
}

bool cuda_parameter_owned(LLVMValueRef param) {
  /* cuda_thread_owns checks every access through the parameter against
   * the stride of the first. */
  LLVMValueRef address = first_access(param, 0);
  return address && cuda_thread_owns(address, NULL);
}

/* The bytes past `p` that the function reads or writes through it, at
 * constant offsets (GEPs and casts); -1 when an offset varies or the
 * pointer goes elsewhere. */
static int64_t constant_extent(LLVMValueRef p, int64_t offset, int depth) {
  int64_t extent = 0;
  for (LLVMUseRef use = LLVMGetFirstUse(p); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    uint64_t bytes;
    LLVMValueRef address = access_address(user, &bytes);
    int64_t reach;
    if (address == p && !(LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == p)) {
      reach = offset + (int64_t)bytes;
    } else if ((LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) || LLVMIsAAddrSpaceCastInst(user)) &&
               depth < 8) {
      LLVMValueRef base;
      Affine step;
      if (!decompose(user, &base, &step) || step.scale || kn_strip_casts(base) != kn_strip_casts(p))
        return -1;
      reach = constant_extent(user, offset + step.constant, depth + 1);
    } else {
      return -1;
    }
    if (reach < 0 || offset < 0)
      return -1;
    extent = reach > extent ? reach : extent;
  }
  return extent;
}

/* What `fn` reaches through parameter i, seen in a simplified copy (its
 * locals promoted, as the derivative will see it). */
static int64_t parameter_extent(LLVMValueRef fn, unsigned i) {
  LLVMValueRef copy = clone_function(fn, "kinase.extent");
  simplify_before(copy);
  int64_t extent = constant_extent(LLVMGetParam(copy, i), 0, 0);
  LLVMDeleteFunction(copy);
  return extent;
}

bool cuda_request_owns(LLVMValueRef request, LLVMValueRef shadow, LLVMValueRef fn, unsigned i,
                       Reason *why) {
  LLVMValueRef base;
  Affine offset;
  if (!decompose(shadow, &base, &offset) || !LLVMIsAArgument(base) || offset.scale <= 0 ||
      offset.constant < 0 || kn_strip_casts(shadow) == base)
    return kn_because(why, "the request does not pass it as base + S * gid + c, with base a "
                           "parameter of the caller and gid the thread's global index "
                           "(blockIdx.x * blockDim.x + threadIdx.x)", NULL), false;
  int64_t extent = parameter_extent(fn, i);
  if (extent < 0)
    return kn_because(why, "the function reaches it at offsets that vary, or passes it on", NULL), false;
  if (offset.constant + extent > offset.scale)
    return kn_because(why, "the function reaches more of it than the S bytes between one "
                           "thread's part and the next", NULL), false;
  /* The request's argument is base's only use: no other access to check. */
  LLVMValueRef only = kn_strip_casts(shadow);
  if (!used_only_by(base, only, 0) || !used_only_by(only, request, 0))
    return kn_because(why, "the caller also uses the shadow's memory for something else", NULL), false;
  return kn_because(why, "the request passes base + S * gid + c and the function reaches only "
                         "the thread's S bytes of it", NULL), true;
}

static LLVMValueRef read_register(LLVMBuilderRef b, const char *name) {
  return kn_call_libc(b, name, LLVMInt32TypeInContext(kn_module.ctx), NULL, 0);
}

LLVMValueRef cuda_launch_is_linear(LLVMBuilderRef b) {
  static const char *const others[] = {
      "llvm.nvvm.read.ptx.sreg.ntid.y", "llvm.nvvm.read.ptx.sreg.ntid.z",
      "llvm.nvvm.read.ptx.sreg.nctaid.y", "llvm.nvvm.read.ptx.sreg.nctaid.z"};
  LLVMValueRef product = read_register(b, others[0]);
  for (size_t i = 1; i < sizeof others / sizeof *others; i++)
    product = LLVMBuildMul(b, product, read_register(b, others[i]), "");
  return LLVMBuildICmp(b, LLVMIntEQ, product, LLVMConstInt(LLVMInt32TypeInContext(kn_module.ctx), 1, 0),
                       "linear.launch");
}

/* Whether `v` may differ between the lanes of a warp: it depends on the
 * thread's index in its block or lane, on memory, or on a call. */
static bool varies_by_lane(LLVMValueRef v, ValueSet *seen, int depth) {
  if (!LLVMIsAInstruction(v) || !vset_add(seen, v))
    return false;
  if (register_read(v))
    return reads_register(v, "llvm.nvvm.read.ptx.sreg.tid.") ||
           reads_register(v, "llvm.nvvm.read.ptx.sreg.laneid");
  if (depth > 32 || LLVMIsALoadInst(v) || kn_is_call_site(v))
    return true;
  for (int i = 0; i < LLVMGetNumOperands(v); i++)
    if (varies_by_lane(LLVMGetOperand(v, i), seen, depth + 1))
      return true;
  return false;
}

bool cuda_may_be_warp_uniform(LLVMValueRef address) {
  ValueSet seen = {0};
  bool varies = varies_by_lane(address, &seen, 0);
  vset_free(&seen);
  return !varies;
}
