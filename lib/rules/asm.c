/* The inline assembly of CUDA's __half and __nv_bfloat16, of the loads
 * and stores with cache hints and of Eigen's x86 packet max and min
 * (rules/asm.def), replaced by the IR it means
 * in a copy about to be differentiated. The
 * headers wrap each instruction in a small function taking and returning
 * the 16-bit struct; those are inlined into the copy first, so that after
 * the replacement and simplification the half values are plain SSA values
 * of type half, no longer integers in memory and across calls. */
#include "kinase.h"

#include <ctype.h>
#include <stb/stb_ds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  ASM_TRUNC, ASM_EXTEND,                                   /* conversions */
  ASM_ROUND_TRUNC, ASM_ROUND_CEIL, ASM_ROUND_FLOOR, ASM_ROUND_EVEN, /* to integral values */
  ASM_FADD, ASM_FSUB, ASM_FMUL, ASM_FMA, ASM_FNEG, ASM_FABS, ASM_FMIN, ASM_FMAX,
  ASM_FMIN_NAN, ASM_FMAX_NAN,                              /* NaN if either is */
  ASM_X86_MAX, ASM_X86_MIN,                                /* SSE's: the second where unordered */
  ASM_X86_BARRIER,                                         /* the value stored back */
  ASM_RCP_APPROX_FTZ, ASM_DIV_APPROX,                      /* as NVVM intrinsics */
  ASM_PACK_TRUNC, ASM_SPLAT_TRUNC, ASM_PACK,               /* into pairs */
  ASM_LANE0, ASM_LANE1,                                    /* out of pairs */
  ASM_LANES_00, ASM_LANES_10, ASM_LANES_11, ASM_LANES_02, ASM_LANES_13, /* lane moves */
  ASM_LT, ASM_LE, ASM_GT, ASM_GE, ASM_EQ, ASM_NE,          /* comparisons */
  ASM_LTU, ASM_LEU, ASM_GTU, ASM_GEU, ASM_EQU, ASM_NEU,    /* true where unordered */
  ASM_ISNAN,                                               /* 1.0 or 0 */
  ASM_WARP_SIZE,                                           /* 32 */
  ASM_SHFL_IDX, ASM_SHFL_UP, ASM_SHFL_DOWN, ASM_SHFL_BFLY, /* a pair's lanes shuffled */
  ASM_SHFL_DOWN_ADD, ASM_SHFL_DOWN_ADD_F64,                /* a warp reduction's step */
  ASM_SHFL_UP_ADD, ASM_SHFL_UP_ADD_F64,                    /* a warp scan's step */
  ASM_LOAD, ASM_STORE, ASM_ATOMIC_FADD, ASM_ATOMIC_FADD_BLOCK, /* memory */
} AsmOp;

/* What .sat and .relu do to the result of the operation. */
typedef enum { CLAMP_NONE, CLAMP_SAT, CLAMP_RELU } AsmClamp;

typedef struct {
  const char *text, *constraints;
  AsmOp op;
  const char *type;
  AsmClamp clamp;
} AsmRow;

static const AsmRow asm_table[] = {
#define ASM(text, constraints, op, type) {text, constraints, op, type, CLAMP_NONE},
#define ASM_CLAMPED(text, constraints, op, type, clamp) {text, constraints, op, type, clamp},
#include "asm.def"
#undef ASM_CLAMPED
#undef ASM
};

/* Braces dropped (a vector operand {lo,hi} reads lo,hi), semicolons and
 * line breaks too, blanks squeezed to one, none at the ends or after a
 * comma. */
static char *normalise(const char *text, size_t len) {
  char *out = malloc(len + 1), *o = out;
  bool blank = false;
  for (size_t k = 0; k < len; k++) {
    char c = text[k];
    if (c == '{' || c == '}')
      continue;
    if (c == ';' || isspace((unsigned char)c)) {
      blank = true;
      continue;
    }
    if (blank && o > out && o[-1] != ',')
      *o++ = ' ';
    blank = false;
    *o++ = c;
  }
  *o = '\0';
  return out;
}

/* The normalised text of inline assembly `call` calls (the caller frees it),
 * or NULL for another call. */
static char *asm_text(LLVMValueRef call) {
  LLVMValueRef callee = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  if (!callee || !LLVMIsAInlineAsm(callee))
    return NULL;
  size_t len;
  const char *text = LLVMGetInlineAsmAsmString(callee, &len);
  return normalise(text ? text : "", text ? len : 0);
}

static const AsmRow *row_of(LLVMValueRef call) {
  char *text = asm_text(call);
  if (!text)
    return NULL;
  size_t len;
  const char *constraints = LLVMGetInlineAsmConstraintString(LLVMGetCalledValue(call), &len);
  const AsmRow *found = NULL;
  for (size_t k = 0; !found && k < sizeof asm_table / sizeof *asm_table; k++)
    if (!strcmp(asm_table[k].text, text) && strlen(asm_table[k].constraints) == len &&
        !memcmp(asm_table[k].constraints, constraints, len))
      found = &asm_table[k];
  free(text);
  return found;
}

bool asm_is_known(LLVMValueRef call) { return row_of(call) != NULL; }

/* Each line blank or a comment: '#' starts one in x86 assembly (host code
 * only), '//' in PTX and x86 alike. */
static bool only_comments(const char *text, size_t len) {
  bool line_start = true, comment = false;
  for (size_t k = 0; k < len; k++) {
    char c = text[k];
    if (c == '\n') {
      line_start = true;
      comment = false;
    } else if (comment || isspace((unsigned char)c)) {
      continue;
    } else if (line_start && ((c == '#' && !kn_module.gpu) ||
                              (c == '/' && k + 1 < len && text[k + 1] == '/'))) {
      comment = true;
    } else {
      return false;
    }
  }
  return true;
}

bool asm_does_nothing(LLVMValueRef call) {
  LLVMValueRef callee = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  if (!callee || !LLVMIsAInlineAsm(callee) || LLVMGetNumArgOperands(call) ||
      LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind)
    return false;
  size_t len;
  const char *text = LLVMGetInlineAsmAsmString(callee, &len);
  return !text || only_comments(text, len);
}

char *asm_describe(LLVMValueRef call) { return asm_text(call); }

/* ---- conversions between integers and halves ---- */

static bool is_integer_type_name(const char *name) {
  static const char *const names[] = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (!strcmp(name, names[k]))
      return true;
  return false;
}

/* Whether the instruction `opcode` (cvt.rzi.s32.f16, say) converts from or
 * to an integer: its last two suffixes are its destination's and its
 * source's types. */
static bool converts_integer(const char *opcode) {
  const char *last = strrchr(opcode, '.'), *before = last;
  while (before > opcode && before[-1] != '.')
    before--;
  if (before <= opcode)
    return false;
  char destination[8] = {0};
  size_t n = (size_t)(last - before);
  if (n >= sizeof destination)
    return false;
  memcpy(destination, before, n);
  return is_integer_type_name(destination) || is_integer_type_name(last + 1);
}

/* Integer bit operations, which CUDA's headers and libdevice write as
 * assembly (__ffs is bfind.shiftamt.u32; __vadd4, __vabsdiff2, __vset4 and
 * their kin are SIMD on the bytes or halves of a 32-bit integer), and
 * __nanosleep: on 32- and 64-bit integers they carry no derivative. The
 * half headers use none of them. */
static bool is_integer_opcode(const char *opcode) {
  static const char *const families[] = {
      "bfind", "popc", "brev", "clz", "bfe", "bfi", "prmt", "shf", "lop3", "cvta", "vset2", "vset4",
      "vabsdiff2", "vabsdiff4", "vadd2", "vadd4", "vsub2", "vsub4", "vmin2", "vmin4",
      "vmax2", "vmax4", "vavrg2", "vavrg4", "nanosleep"};
  size_t n = strcspn(opcode, ".");
  for (size_t k = 0; k < sizeof families / sizeof *families; k++)
    if (strlen(families[k]) == n && !strncmp(opcode, families[k], n))
      return true;
  return false;
}

static bool is_word(LLVMTypeRef type) {
  return LLVMGetTypeKind(type) == LLVMIntegerTypeKind &&
         (LLVMGetIntTypeWidth(type) == 32 || LLVMGetIntTypeWidth(type) == 64);
}

/* Every operand and the result (if any: __nanosleep has none) 32- or
 * 64-bit integers. */
static bool words_only(LLVMValueRef call) {
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++)
    if (!is_word(LLVMTypeOf(LLVMGetOperand(call, i))))
      return false;
  return is_word(LLVMTypeOf(call)) || LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMVoidTypeKind;
}

/* The headers' conversions between __half or __nv_bfloat16 and integers
 * (__half2int_rz, __bfloat162char_rz, __int2half_rn, ...): cvt with an
 * integer on one side, with at most .reg declarations and mov packing
 * around it. An integer result carries no derivative, and a half made from
 * an integer has derivative 0: no rule is needed. So too reads of special
 * registers into an integer (`mov.u32 $0, %laneid;`, as cub's LaneId() and
 * lane masks are written): no operand goes in, only an index comes out;
 * and cooperative groups' address of their reserved shared memory
 * (%reserved_smem_offset_1 through cvt and cvta, an integer, which every
 * tiled_partition of a block reads and __half code then met as unknown
 * assembly). So too integer bit operations on words (is_integer_opcode). */
bool asm_carries_nothing(LLVMValueRef call) {
  char *text = asm_text(call);
  if (!text)
    return false;
  if (texture_kind(call) != TEXTURE_NONE) {
    free(text);
    return true;
  }
  bool converts = false, reads_special = false, integer = false, other = false;
  for (char *token = text; *token;) {
    size_t n = strcspn(token, " ");
    bool last = token[n] == '\0';
    token[n] = '\0';
    /* .reg and the type after it declare registers: no opcode. */
    bool opcode = strchr(token, '.') && !strchr(token, ',') && token[0] != '$' && token[0] != '.';
    if (opcode && !strncmp(token, "cvt.", 4) && converts_integer(token))
      converts = true;
    else if (opcode && is_integer_opcode(token))
      integer = true;
    else if (opcode && strncmp(token, ".reg", 4) && strncmp(token, "mov.", 4))
      other = true;
    else if (!opcode && strstr(token, ",%"))
      reads_special = true;
    token += n + !last;
  }
  free(text);
  bool index = kn_module.gpu && LLVMGetNumArgOperands(call) == 0 &&
               LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMIntegerTypeKind;
  return (converts || (reads_special && index) || (integer && words_only(call))) && !other;
}

/* ---- inlining the headers' wrappers ---- */


/* The headers nest their wrappers about six deep (operator/ of
 * __nv_bfloat16 reaches cvt.f32.bf16 through six calls). */
#define INLINE_DEPTH 12

/* Whether `fn` holds known assembly, itself or in the functions it calls
 * (depth levels down); `seen` keeps each function to one visit, so that the
 * walk stays linear in the call graph. */
static bool reaches_known_asm(LLVMValueRef fn, int depth, ValueSet *seen) {
  if (!vset_add(seen, fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      if (!LLVMIsACallInst(inst))
        continue;
      if (asm_is_known(inst))
        return true;
      LLVMValueRef callee = kn_called_function(inst);
      if (depth > 0 && rule_inlinable(callee) && reaches_known_asm(callee, depth - 1, seen))
        return true;
    }
  return false;
}

/* ---- the replacement ---- */

static LLVMTypeRef type_named(const char *name) {
  LLVMContextRef ctx = kn_module.ctx;
  if (!strcmp(name, "f16"))
    return LLVMHalfTypeInContext(ctx);
  if (!strcmp(name, "bf16"))
    return LLVMBFloatTypeInContext(ctx);
  if (!strcmp(name, "f64"))
    return LLVMDoubleTypeInContext(ctx);
  if (!strcmp(name, "b16"))
    return LLVMInt16TypeInContext(ctx);
  if (!strcmp(name, "b32"))
    return LLVMInt32TypeInContext(ctx);
  if (!strcmp(name, "v2f16"))
    return LLVMVectorType(LLVMHalfTypeInContext(ctx), 2);
  if (!strcmp(name, "v2bf16"))
    return LLVMVectorType(LLVMBFloatTypeInContext(ctx), 2);
  return LLVMFloatTypeInContext(ctx);
}

static bool is_any16(const AsmRow *row) { return !strcmp(row->type, "any16"); }

/* The type `call` of `row` computes in: its own where the row says
 * "vector" (x86 registers, whose text does not say the width). */
static LLVMTypeRef type_of_row(const AsmRow *row, LLVMValueRef call) {
  return strcmp(row->type, "vector") ? type_named(row->type) : LLVMTypeOf(call);
}

/* `v` read as `type` (the same bits). */
static LLVMValueRef as(LLVMBuilderRef b, LLVMValueRef v, LLVMTypeRef type) {
  return LLVMTypeOf(v) == type ? v : LLVMBuildBitCast(b, v, type, "");
}

static LLVMValueRef intrinsic(LLVMBuilderRef b, const char *name, LLVMTypeRef overload, LLVMValueRef *args,
                              unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(kn_module.mod, id, &overload, overload ? 1 : 0);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

LLVMValueRef asm_lane_index(unsigned k) { return LLVMConstInt(LLVMInt32TypeInContext(kn_module.ctx), k, 0); }

LLVMValueRef asm_pair(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef lo, LLVMValueRef hi) {
  LLVMValueRef v = LLVMBuildInsertElement(b, LLVMGetPoison(t), lo, asm_lane_index(0), "");
  return LLVMBuildInsertElement(b, v, hi, asm_lane_index(1), "");
}

/* Lanes a and b of x and y together (0, 1 from x; 2, 3 from y). */
static LLVMValueRef lanes(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, unsigned a, unsigned c) {
  LLVMValueRef mask[2] = {asm_lane_index(a), asm_lane_index(c)};
  return LLVMBuildShuffleVector(b, x, y ? y : LLVMGetPoison(LLVMTypeOf(x)), LLVMConstVector(mask, 2), "");
}

/* Lane k of the pair x, widened where the result is a float. */
static LLVMValueRef lane(LLVMBuilderRef b, LLVMValueRef x, unsigned k, LLVMTypeRef result) {
  LLVMValueRef v = LLVMBuildExtractElement(b, x, asm_lane_index(k), "");
  return LLVMGetTypeKind(result) == LLVMFloatTypeKind ? LLVMBuildFPExt(b, v, result, "") : v;
}

static LLVMValueRef compare(LLVMBuilderRef b, LLVMRealPredicate p, LLVMValueRef *x, LLVMTypeRef result) {
  return LLVMBuildZExt(b, LLVMBuildFCmp(b, p, x[0], x[1], ""), result, "");
}

/* Whether a shuffle by `offset` with PTX's packed `clamp` reads a lane in
 * range. The clamp's low bits bound the segment (its mask in bits 8-12):
 * the bound lane is the lane's segment's last for down, its first for up;
 * down reads lane + offset <= it, up lane - offset >= it. */
static LLVMValueRef source_in_range(LLVMBuilderRef b, LLVMValueRef offset, LLVMValueRef clamp, bool up) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(kn_module.ctx);
  LLVMValueRef lane = intrinsic(b, "llvm.nvvm.read.ptx.sreg.laneid", NULL, NULL, 0);
  LLVMValueRef segment = LLVMBuildAnd(b, LLVMBuildLShr(b, clamp, LLVMConstInt(i32, 8, 0), ""),
                                      LLVMConstInt(i32, 31, 0), "");
  LLVMValueRef bound = LLVMBuildAnd(b, clamp, LLVMConstInt(i32, 31, 0), "");
  LLVMValueRef edge = LLVMBuildOr(b, LLVMBuildAnd(b, lane, segment, ""),
                                  LLVMBuildAnd(b, bound, LLVMBuildNot(b, segment, ""), ""), "");
  return up ? LLVMBuildICmp(b, LLVMIntSGE, LLVMBuildSub(b, lane, offset, ""), edge, "")
            : LLVMBuildICmp(b, LLVMIntULE, LLVMBuildAdd(b, lane, offset, ""), edge, "");
}

/* cub's step of a warp sum (down) or prefix sum (up), `shfl.sync.MODE.b32
 * r0|p, x, offset, clamp, mask; @p add.f32 r0, r0, addend`: the shuffle
 * (which reads x's own value where the source lane is out of range), plus
 * the addend where it is in range, as PTX decides it (source_in_range).
 * The shuffle is the intrinsic that cuda/warp.c transposes. */
static LLVMValueRef shuffle_add(LLVMBuilderRef b, LLVMValueRef *x, bool up) {
  LLVMValueRef value = x[0], offset = x[1], clamp = x[2], addend = x[3], mask = x[4];
  LLVMValueRef args[4] = {mask, value, offset, clamp};
  LLVMValueRef moved = intrinsic(b, up ? "llvm.nvvm.shfl.sync.up.f32" : "llvm.nvvm.shfl.sync.down.f32", NULL, args, 4);
  LLVMValueRef valid = source_in_range(b, offset, clamp, up);
  return LLVMBuildSelect(b, valid, LLVMBuildFAdd(b, moved, addend, ""), moved, "");
}

/* The same step of doubles, `mov.b64 $0, x; (the two halves of x
 * shuffled) -> r0; @p add.f64 $0, $0, r0`: x, plus the moved value where
 * the source lane is in range. The double's shuffle is the function
 * cuda/warp.c builds, whose row transposes it. */
static LLVMValueRef shuffle_add_double(LLVMBuilderRef b, LLVMValueRef *x, bool up) {
  LLVMValueRef value = x[0], offset = x[1], clamp = x[2], mask = x[3];
  LLVMValueRef shuffle = cuda_double_shuffle(up ? SHUFFLE_UP : SHUFFLE_DOWN), args[4] = {mask, value, offset, clamp};
  LLVMValueRef moved = LLVMBuildCall2(b, LLVMGlobalGetValueType(shuffle), shuffle, args, 4, "");
  LLVMValueRef valid = source_in_range(b, offset, clamp, up);
  return LLVMBuildSelect(b, valid, LLVMBuildFAdd(b, value, moved, ""), value, "");
}

/* 1.0 where x[0] or x[1] is NaN, else 0, in their type t (a pair's lanes
 * each); the bfloat16 text names its operand once. */
static LLVMValueRef is_nan(LLVMBuilderRef b, LLVMValueRef *x, unsigned n, LLVMTypeRef t) {
  LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x[0], x[n - 1], "");
  return LLVMBuildSelect(b, nan, math_const(t, 1.0), math_const(t, 0.0), "");
}

/* A shuffle of 32 bits, `shfl.sync.MODE.b32 $0, bits, lane, clamp, mask`,
 * of a float or an integer: the intrinsic (cuda/warp.c transposes the
 * float's). A pair's: each lane widened to float (exactly), so shuffled,
 * and narrowed back. */
static LLVMValueRef shuffle_pair(LLVMBuilderRef b, const char *mode, LLVMValueRef *x, LLVMTypeRef t) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(kn_module.ctx);
  char name[40];
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) {
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", mode, t == f32 ? "f32" : "i32");
    LLVMValueRef args[4] = {x[3], x[0], x[1], x[2]};
    return intrinsic(b, name, NULL, args, 4);
  }
  LLVMTypeRef lane_type = LLVMGetElementType(t);
  snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.f32", mode);
  LLVMValueRef pair = LLVMGetPoison(t);
  for (unsigned k = 0; k < 2; k++) {
    LLVMValueRef value = LLVMBuildFPExt(b, LLVMBuildExtractElement(b, x[0], asm_lane_index(k), ""), f32, "");
    LLVMValueRef args[4] = {x[3], value, x[1], x[2]};
    LLVMValueRef moved = LLVMBuildFPTrunc(b, intrinsic(b, name, NULL, args, 4), lane_type, "");
    pair = LLVMBuildInsertElement(b, pair, moved, asm_lane_index(k), "");
  }
  return pair;
}

/* Element k of the elements of type t from `base` on. */
static LLVMValueRef element_at(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef base, unsigned k) {
  LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx), k, 0);
  return k ? LLVMBuildGEP2(b, t, base, &index, 1, "") : base;
}

/* The load of a `result`: one element of type t, or a struct of several
 * (a vector load's registers, {x, y} or {x, y, z, w}). */
static LLVMValueRef load_elements(LLVMBuilderRef b, LLVMValueRef base, LLVMTypeRef t, LLVMTypeRef result) {
  if (LLVMGetTypeKind(result) != LLVMStructTypeKind)
    return LLVMBuildLoad2(b, t, base, "");
  LLVMValueRef value = LLVMGetPoison(result);
  for (unsigned k = 0, n = LLVMCountStructElementTypes(result); k < n; k++)
    value = LLVMBuildInsertValue(b, value, LLVMBuildLoad2(b, t, element_at(b, t, base, k), ""), k, "");
  return value;
}

/* The stores of values[0..n) to consecutive elements from `base` on. */
static void store_elements(LLVMBuilderRef b, LLVMValueRef base, LLVMTypeRef t, LLVMValueRef *values, unsigned n) {
  for (unsigned k = 0; k < n; k++)
    LLVMBuildStore(b, values[k], element_at(b, t, base, k));
}

/* The atomic adds of values[0..n) to consecutive elements from `base` on,
 * at synchronisation scope `scope` ("": the system's, as atomicAdd's
 * atomicrmw has it): the old value, or a struct of the old values (a
 * vector add's registers, float2's and float4's atomicAdd). */
static LLVMValueRef atomic_add_elements(LLVMBuilderRef b, LLVMValueRef base, LLVMTypeRef t, LLVMValueRef *values,
                                        unsigned n, LLVMTypeRef result, const char *scope) {
  unsigned id = LLVMGetSyncScopeID(kn_module.ctx, scope, strlen(scope));
  LLVMValueRef old = LLVMGetPoison(result);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef add = LLVMBuildAtomicRMWSyncScope(b, LLVMAtomicRMWBinOpFAdd, element_at(b, t, base, k), values[k],
                                                   LLVMAtomicOrderingMonotonic, id);
    if (n == 1)
      return add;
    old = LLVMBuildInsertValue(b, old, add, k, "");
  }
  return old;
}

/* What `row` computes from the operands x, read as its type t; NULL for a
 * store, which computes nothing (nor does a barrier, which is one). */
static LLVMValueRef compute(LLVMBuilderRef b, const AsmRow *row, LLVMValueRef *x, unsigned n,
                            LLVMTypeRef t, LLVMTypeRef result) {
  switch (row->op) {
  case ASM_LOAD: return load_elements(b, x[0], t, result);
  case ASM_STORE: store_elements(b, x[0], t, x + 1, n - 1); return NULL;
  case ASM_ATOMIC_FADD: return atomic_add_elements(b, x[0], t, x + 1, n - 1, result, "");
  case ASM_ATOMIC_FADD_BLOCK: return atomic_add_elements(b, x[0], t, x + 1, n - 1, result, "block");
  case ASM_TRUNC: return LLVMBuildFPTrunc(b, x[0], t, "");
  case ASM_EXTEND: return LLVMBuildFPExt(b, x[0], result, "");
  case ASM_FADD: return LLVMBuildFAdd(b, x[0], x[1], "");
  case ASM_FSUB: return LLVMBuildFSub(b, x[0], x[1], "");
  case ASM_FMUL: return LLVMBuildFMul(b, x[0], x[1], "");
  case ASM_FNEG: return LLVMBuildFNeg(b, x[0], "");
  case ASM_FMA: return intrinsic(b, "llvm.fma", t, x, 3);
  case ASM_FABS: return intrinsic(b, "llvm.fabs", t, x, 1);
  case ASM_FMIN: return intrinsic(b, "llvm.minnum", t, x, 2);
  case ASM_FMAX: return intrinsic(b, "llvm.maxnum", t, x, 2);
  case ASM_FMIN_NAN: return intrinsic(b, "llvm.minimum", t, x, 2);
  case ASM_FMAX_NAN: return intrinsic(b, "llvm.maximum", t, x, 2);
  case ASM_X86_MAX: return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, x[1], x[0], ""), x[1], x[0], "");
  case ASM_X86_MIN: return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x[1], x[0], ""), x[1], x[0], "");
  case ASM_X86_BARRIER: LLVMBuildStore(b, barrier_keep(b, x[1]), x[0]); return NULL;
  case ASM_ROUND_TRUNC: return intrinsic(b, "llvm.trunc", t, x, 1);
  case ASM_ROUND_CEIL: return intrinsic(b, "llvm.ceil", t, x, 1);
  case ASM_ROUND_FLOOR: return intrinsic(b, "llvm.floor", t, x, 1);
  case ASM_ROUND_EVEN: return intrinsic(b, "llvm.roundeven", t, x, 1);
  case ASM_RCP_APPROX_FTZ: return intrinsic(b, "llvm.nvvm.rcp.approx.ftz.f", NULL, x, 1);
  case ASM_DIV_APPROX: return intrinsic(b, "llvm.nvvm.div.approx.f", NULL, x, 2);
  case ASM_PACK_TRUNC:
    return asm_pair(b, t, LLVMBuildFPTrunc(b, x[0], LLVMGetElementType(t), ""),
                LLVMBuildFPTrunc(b, x[1], LLVMGetElementType(t), ""));
  case ASM_SPLAT_TRUNC: {
    LLVMValueRef v = LLVMBuildFPTrunc(b, x[0], LLVMGetElementType(t), "");
    return asm_pair(b, t, v, v);
  }
  case ASM_PACK: return asm_pair(b, t, x[0], x[1]);
  case ASM_LANE0: return lane(b, x[0], 0, result);
  case ASM_LANE1: return lane(b, x[0], 1, result);
  case ASM_LANES_00: return lanes(b, x[0], NULL, 0, 0);
  case ASM_LANES_10: return lanes(b, x[0], NULL, 1, 0);
  case ASM_LANES_11: return lanes(b, x[0], NULL, 1, 1);
  case ASM_LANES_02: return lanes(b, x[0], x[1], 0, 2);
  case ASM_LANES_13: return lanes(b, x[0], x[1], 1, 3);
  case ASM_LT: return compare(b, LLVMRealOLT, x, result);
  case ASM_LE: return compare(b, LLVMRealOLE, x, result);
  case ASM_GT: return compare(b, LLVMRealOGT, x, result);
  case ASM_GE: return compare(b, LLVMRealOGE, x, result);
  case ASM_EQ: return compare(b, LLVMRealOEQ, x, result);
  case ASM_NE: return compare(b, LLVMRealONE, x, result);
  case ASM_LTU: return compare(b, LLVMRealULT, x, result);
  case ASM_LEU: return compare(b, LLVMRealULE, x, result);
  case ASM_GTU: return compare(b, LLVMRealUGT, x, result);
  case ASM_GEU: return compare(b, LLVMRealUGE, x, result);
  case ASM_EQU: return compare(b, LLVMRealUEQ, x, result);
  case ASM_NEU: return compare(b, LLVMRealUNE, x, result);
  case ASM_ISNAN: return is_nan(b, x, n, t);
  case ASM_WARP_SIZE: return LLVMConstInt(t, 32, 0);
  case ASM_SHFL_IDX: return shuffle_pair(b, "idx", x, t);
  case ASM_SHFL_UP: return shuffle_pair(b, "up", x, t);
  case ASM_SHFL_DOWN: return shuffle_pair(b, "down", x, t);
  case ASM_SHFL_BFLY: return shuffle_pair(b, "bfly", x, t);
  case ASM_SHFL_DOWN_ADD: return shuffle_add(b, x, false);
  case ASM_SHFL_DOWN_ADD_F64: return shuffle_add_double(b, x, false);
  case ASM_SHFL_UP_ADD: return shuffle_add(b, x, true);
  case ASM_SHFL_UP_ADD_F64: return shuffle_add_double(b, x, true);
  }
  kn_die("unknown asm operation");
}

/* .sat clamps to [0, 1], NaN to 0; .relu clamps below at 0 (NaN stays
 * NaN). As selects on comparisons, so that the derivative is picked: that
 * of the operation inside, 0 where clamped. */
static LLVMValueRef clamped(LLVMBuilderRef b, AsmClamp clamp, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef zero = math_const(t, 0.0);
  if (clamp == CLAMP_RELU)
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, v, zero, ""), zero, v, "");
  LLVMValueRef below_one = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, v, math_const(t, 1.0), ""), v,
                                           math_const(t, 1.0), "");
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, v, zero, ""), below_one, zero, "");
}

/* The type operand k of `row`, v, is read as, t the type it computes in:
 * floats stay floats (conversions), the halves packed into a pair are its
 * lanes, a shuffle's lane, clamp and mask are integers. */
static LLVMTypeRef operand_type(const AsmRow *row, LLVMTypeRef t, unsigned k, LLVMValueRef v) {
  switch (row->op) {
  case ASM_SHFL_IDX: case ASM_SHFL_UP: case ASM_SHFL_DOWN: case ASM_SHFL_BFLY: return k ? LLVMTypeOf(v) : t;
  case ASM_TRUNC: case ASM_PACK_TRUNC: case ASM_SPLAT_TRUNC: case ASM_SHFL_DOWN_ADD:
  case ASM_SHFL_DOWN_ADD_F64: case ASM_SHFL_UP_ADD: case ASM_SHFL_UP_ADD_F64: case ASM_LOAD: case ASM_STORE:
  case ASM_X86_BARRIER: return LLVMTypeOf(v);
  case ASM_ATOMIC_FADD: case ASM_ATOMIC_FADD_BLOCK: return kn_is_pointer_type(LLVMTypeOf(v)) ? LLVMTypeOf(v) : t;
  case ASM_PACK: return LLVMGetElementType(t);
  default: return t;
  }
}

/* `call` of `row`'s assembly replaced by the IR it means, computing in t. */
static void replace(LLVMBuilderRef b, LLVMValueRef call, const AsmRow *row, LLVMTypeRef t) {
  LLVMTypeRef result = LLVMTypeOf(call);
  LLVMValueRef x[5];
  unsigned n = LLVMGetNumArgOperands(call);
  if (n > 5)
    kn_die("asm row with %u operands", n);
  LLVMPositionBuilderBefore(b, call);
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef v = LLVMGetOperand(call, k);
    x[k] = as(b, v, operand_type(row, t, k, v));
  }
  LLVMValueRef value = compute(b, row, x, n, t, result);
  if (value && row->clamp != CLAMP_NONE)
    value = clamped(b, row->clamp, value);
  if (value)
    LLVMReplaceAllUsesWith(call, as(b, value, result));
  LLVMInstructionEraseFromParent(call);
}

/* Whether assembly may move a derivative: a float goes in or comes out,
 * an address goes in, or its text computes with floats (halves travel as
 * 16-bit integers). */
static bool may_be_active(LLVMValueRef call, const char *text) {
  static const char *const float_types[] = {".f16", ".bf16", ".f32", ".f64"};
  if (kn_type_has_floats(LLVMTypeOf(call)))
    return true;
  for (unsigned i = 0, n = LLVMGetNumArgOperands(call); i < n; i++) {
    LLVMTypeRef type = LLVMTypeOf(LLVMGetOperand(call, i));
    if (kn_type_has_floats(type) || kn_is_pointer_type(type))
      return true;
  }
  for (size_t k = 0; k < sizeof float_types / sizeof *float_types; k++)
    if (strstr(text, float_types[k]))
      return true;
  return false;
}

/* Assembly the inlining brought in that has no row: an error, since the
 * generators would pass over it (an empty asm statement, which only orders
 * the compiler, excepted); with `active_only`, only that which may move a
 * derivative (cub's scan of integers shuffles them with assembly). */
static bool refuse_unknown(LLVMValueRef fn, LLVMValueRef subject, bool active_only) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      char *text = asm_text(inst);
      if (text && !asm_does_nothing(inst) && !asm_is_known(inst) && !asm_carries_nothing(inst) &&
          (!active_only || may_be_active(inst, text))) {
        kn_error(inst, subject, "it contains inline assembly ('%s'), which Kinase has no derivative rule for",
                 text);
        free(text);
        return true;
      }
      free(text);
    }
  return false;
}

bool asm_lower_known(LLVMValueRef fn, LLVMValueRef subject) {
  ValueSet seen = {0};
  bool reaches = reaches_known_asm(fn, INLINE_DEPTH, &seen);
  vset_free(&seen);
  /* Assembly in the callees inlined into fn (device code, a few levels)
   * escaped the check of fn's own code (rules/unsupported.c): cub's scan
   * step of floats was passed over, a silently wrong derivative. */
  if (!reaches)
    return !refuse_unknown(fn, subject, true);
  /* Every call, not only those reaching the assembly: the headers pass the
   * 16 bits through helpers without any (__nv_bfloat16's conversion to its
   * raw struct), and a derivative crossing a call as an integer is lost. */
  rule_inline_calls(fn, INLINE_DEPTH);
  if (refuse_unknown(fn, subject, false))
    return false;
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (row_of(inst) && !is_any16(row_of(inst)))
        arrput(calls, inst);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (ptrdiff_t k = 0; k < arrlen(calls); k++)
    replace(b, calls[k], row_of(calls[k]), type_of_row(row_of(calls[k]), calls[k]));
  LLVMDisposeBuilder(b);
  arrfree(calls);
  return true;
}

/* ---- pairs of halves whose type the assembly does not say ---- */

/* half or bfloat where `v` is the bits of one, or of a pair of them (a
 * bitcast from it), else NULL. */
static LLVMTypeRef half_behind(LLVMValueRef v) {
  if (!LLVMIsABitCastInst(v))
    return NULL;
  LLVMTypeRef from = LLVMTypeOf(LLVMGetOperand(v, 0));
  if (LLVMGetTypeKind(from) == LLVMVectorTypeKind)
    from = LLVMGetElementType(from);
  LLVMTypeKind kind = LLVMGetTypeKind(from);
  return kind == LLVMHalfTypeKind || kind == LLVMBFloatTypeKind ? from : NULL;
}

/* The lane type of the pair `call` packs or shuffles: what its operands
 * (the first `noperands`) were before they became bits, or what its users
 * read the pair as; NULL where these say nothing or disagree. */
static LLVMTypeRef packed_lane_type(LLVMValueRef call, unsigned noperands) {
  LLVMTypeRef found = NULL;
  bool clash = false;
  for (unsigned k = 0; k < noperands; k++) {
    LLVMTypeRef t = half_behind(LLVMGetOperand(call, k));
    clash |= t && found && t != found;
    found = t ? t : found;
  }
  for (LLVMUseRef use = LLVMGetFirstUse(call); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    LLVMTypeRef to = LLVMIsABitCastInst(user) ? LLVMTypeOf(user) : NULL;
    LLVMTypeRef t = to && LLVMGetTypeKind(to) == LLVMVectorTypeKind ? LLVMGetElementType(to) : NULL;
    if (t && (LLVMGetTypeKind(t) == LLVMHalfTypeKind || LLVMGetTypeKind(t) == LLVMBFloatTypeKind)) {
      clash |= found && t != found;
      found = t;
    }
  }
  return clash ? NULL : found;
}

static bool is_shuffle(const AsmRow *row) {
  return row->op == ASM_SHFL_IDX || row->op == ASM_SHFL_UP || row->op == ASM_SHFL_DOWN || row->op == ASM_SHFL_BFLY;
}

/* The type of the 32 bits `call` shuffles where no pair is: float where
 * they are a float's (cub's ShuffleUp of a float copies it into a word),
 * i32 where they are computed as an integer or read as one; NULL where
 * memory gives them and takes them back, unread. */
static LLVMTypeRef shuffled_word_type(LLVMValueRef call) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(kn_module.ctx);
  LLVMValueRef value = LLVMGetOperand(call, 0);
  if (LLVMIsABitCastInst(value) && LLVMTypeOf(LLVMGetOperand(value, 0)) == f32)
    return f32;
  bool only_stored = true;
  for (LLVMUseRef use = LLVMGetFirstUse(call); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsABitCastInst(user) && LLVMTypeOf(user) == f32)
      return f32;
    only_stored &= LLVMIsAStoreInst(user) != NULL;
  }
  return LLVMIsALoadInst(value) && only_stored ? NULL : LLVMInt32TypeInContext(kn_module.ctx);
}

/* Packs and shuffles of pairs are typed from the values around them; a
 * shuffle of a pack (the headers shuffle a __half as the pair of it twice)
 * is told by what reads the shuffle, and tells the pack once replaced: so
 * rounds go on while one replaces something. The shuffles left then are of
 * a float or an integer. Returns the calls whose type nothing tells (a
 * stb_ds array). */
static LLVMValueRef *lower_told(LLVMValueRef fn) {
  LLVMValueRef *calls = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      if (row_of(inst) && is_any16(row_of(inst)))
        arrput(calls, inst);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (bool progress = true; progress;) {
    progress = false;
    for (ptrdiff_t k = 0; k < arrlen(calls); k++) {
      const AsmRow *row = calls[k] ? row_of(calls[k]) : NULL;
      LLVMTypeRef t = row ? packed_lane_type(calls[k], row->op == ASM_PACK ? 2 : 1) : NULL;
      if (t) {
        replace(b, calls[k], row, LLVMVectorType(t, 2));
        calls[k] = NULL;
        progress = true;
      }
    }
  }
  LLVMValueRef *untold = NULL;
  for (ptrdiff_t k = 0; k < arrlen(calls); k++) {
    LLVMTypeRef t = calls[k] && is_shuffle(row_of(calls[k])) ? shuffled_word_type(calls[k]) : NULL;
    if (t)
      replace(b, calls[k], row_of(calls[k]), t);
    else if (calls[k])
      arrput(untold, calls[k]);
  }
  LLVMDisposeBuilder(b);
  arrfree(calls);
  return untold;
}

static bool any_shuffle(LLVMValueRef *calls) {
  for (ptrdiff_t k = 0; k < arrlen(calls); k++)
    if (is_shuffle(row_of(calls[k])))
      return true;
  return false;
}

bool asm_lower_pairs(LLVMValueRef fn, LLVMValueRef subject) {
  LLVMValueRef *untold = lower_told(fn);
  /* cub shuffles a value word by word (ShuffleUp, ShuffleDown,
   * ShuffleIndex, under WarpScan's ExclusiveSum, BlockScan, and the
   * reductions with an operator of the user's): the first word, then
   * `for (WORD = 1; WORD < WORDS; ++WORD)`, through locals that the loop's
   * counter indexes, so that sroa leaves the words in memory, which tells
   * nothing of their type. The loop's trip count is a constant (none for a
   * float, one for a double): unrolled, the words are the value's bits. */
  if (any_shuffle(untold)) {
    arrfree(untold);
    simplify_constant_loops(fn);
    untold = lower_told(fn);
  }
  if (arrlen(untold))
    kn_error(untold[0], subject,
             row_of(untold[0])->op == ASM_PACK
                 ? "it packs two 16-bit values into a pair (__halves2half2 or __halves2bfloat162) that are "
                   "neither computed as __half or __nv_bfloat16 here nor used as a pair of one of them"
                 : "it shuffles 32 bits from memory into memory whose type nothing here tells (__shfl_sync "
                   "on a __half2 or __nv_bfloat162 neither computed nor used as one)");
  bool ok = !arrlen(untold);
  arrfree(untold);
  return ok;
}
