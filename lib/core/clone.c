/* Function copies. The C API has no CloneFunction: instructions are copied
 * with LLVMInstructionClone and their operands remapped; phis are rebuilt
 * because their incoming blocks are not operands. */
#include "kinase.h"

#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

static LLVMValueRef mapped(ValueMap *map, LLVMValueRef value) {
  LLVMValueRef copy = vmap_get(map, value);
  return copy ? copy : value;
}

static void copy_phi_incoming(ValueMap *map, LLVMValueRef phi, LLVMValueRef copy) {
  unsigned n = LLVMCountIncoming(phi);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef value = mapped(map, LLVMGetIncomingValue(phi, i));
    LLVMBasicBlockRef block =
        LLVMValueAsBasicBlock(mapped(map, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(phi, i))));
    LLVMAddIncoming(copy, &value, &block, 1);
  }
}

static void remap_operands(ValueMap *map, LLVMValueRef copy) {
  int n = LLVMGetNumOperands(copy);
  for (int i = 0; i < n; i++) {
    LLVMValueRef op = LLVMGetOperand(copy, (unsigned)i);
    LLVMValueRef to = vmap_get(map, op);
    if (to)
      LLVMSetOperand(copy, (unsigned)i, to);
  }
}

/* Landing pads are valid only in a function with a personality. */
static void copy_personality(LLVMValueRef from, LLVMValueRef to) {
  if (LLVMHasPersonalityFn(from))
    LLVMSetPersonalityFn(to, LLVMGetPersonalityFn(from));
}

LLVMValueRef clone_function(LLVMValueRef fn, const char *name) {
  LLVMValueRef copy = LLVMAddFunction(kn_module.mod, name, LLVMGlobalGetValueType(fn));
  LLVMSetLinkage(copy, LLVMInternalLinkage);
  copy_personality(fn, copy);
  ValueMap map = {0};
  for (unsigned i = 0, n = LLVMCountParams(fn); i < n; i++) {
    LLVMValueRef param = LLVMGetParam(copy, i);
    LLVMSetValueName2(param, kn_value_name(LLVMGetParam(fn, i)),
                      strlen(kn_value_name(LLVMGetParam(fn, i))));
    vmap_put(&map, LLVMGetParam(fn, i), param);
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMBasicBlockRef to = LLVMAppendBasicBlockInContext(kn_module.ctx, copy, LLVMGetBasicBlockName(bb));
    vmap_put(&map, LLVMBasicBlockAsValue(bb), LLVMBasicBlockAsValue(to));
  }

  unsigned assign_id = LLVMGetMDKindIDInContext(kn_module.ctx, "DIAssignID", 10);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMPositionBuilderAtEnd(b, LLVMValueAsBasicBlock(vmap_get(&map, LLVMBasicBlockAsValue(bb))));
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef dup;
      if (LLVMIsAPHINode(inst)) {
        dup = LLVMBuildPhi(b, LLVMTypeOf(inst), kn_value_name(inst));
      } else {
        dup = LLVMInstructionClone(inst);
        LLVMInsertIntoBuilderWithName(b, dup, kn_value_name(inst));
      }
      LLVMInstructionSetDebugLoc(dup, LLVMInstructionGetDebugLoc(inst));
      /* The original's assignment-tracking records (-g -O2) name its
       * instructions by this ID: a copy sharing it would be theirs too. */
      LLVMSetMetadata(dup, assign_id, NULL);
      vmap_put(&map, inst, dup);
    }
  }
  LLVMDisposeBuilder(b);

  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef dup = vmap_get(&map, inst);
      if (LLVMIsAPHINode(inst))
        copy_phi_incoming(&map, inst, dup);
      else
        remap_operands(&map, dup);
    }
  vmap_free(&map);
  return copy;
}

void move_body(LLVMValueRef from, LLVMValueRef to, LLVMValueRef *args) {
  LLVMBasicBlockRef anchor = LLVMAppendBasicBlockInContext(kn_module.ctx, to, "anchor");
  LLVMBasicBlockRef last = anchor;
  while (LLVMGetFirstBasicBlock(from)) {
    LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(from);
    LLVMMoveBasicBlockAfter(bb, last);
    last = bb;
  }
  LLVMDeleteBasicBlock(anchor);
  copy_personality(from, to);
  for (unsigned i = 0, n = LLVMCountParams(from); i < n; i++)
    LLVMReplaceAllUsesWith(LLVMGetParam(from, i), args[i]);
  LLVMDeleteFunction(from);
}

void strip_debug_locations(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      LLVMInstructionSetDebugLoc(inst, NULL);
}

static void set_name(LLVMValueRef value, const char *prefix, const char *name) {
  char *full = kn_strdup_printf("%s%s", prefix, name);
  LLVMSetValueName2(value, full, strlen(full));
  free(full);
}

/* A struct passed by value (byval) is the callee's own copy: the copy of the
 * body works on a local copy of it, as the callee's frame would. The copy
 * keeps the parameter's alignment: unaligned, a __half field moved byte by
 * byte, which ptxas at -O0 got wrong (the low byte of an adjoint lost). */
static void copy_byval_params(LLVMValueRef fn, LLVMValueRef copy) {
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  unsigned align_kind = LLVMGetEnumAttributeKindForName("align", 5);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  for (unsigned i = 0, n = LLVMCountParams(fn); i < n; i++) {
    LLVMAttributeRef attr = LLVMGetEnumAttributeAtIndex(fn, i + 1, byval);
    if (!attr)
      continue;
    LLVMTypeRef type = LLVMGetTypeAttributeValue(attr);
    LLVMValueRef param = LLVMGetParam(copy, i);
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(copy)));
    LLVMValueRef local = LLVMBuildAlloca(b, type, "byval.copy");
    LLVMReplaceAllUsesWith(param, local);
    LLVMValueRef size = LLVMConstInt(LLVMInt64TypeInContext(kn_module.ctx),
                                     LLVMABISizeOfType(kn_module.layout, type), 0);
    LLVMAttributeRef align = LLVMGetEnumAttributeAtIndex(fn, i + 1, align_kind);
    LLVMBuildMemCpy(b, local, LLVMGetAlignment(local), param,
                    align ? (unsigned)LLVMGetEnumAttributeValue(align) : 1, size);
  }
  LLVMDisposeBuilder(b);
}

bool adopt_simplified_body(const Signature *sig, LLVMValueRef deriv, LLVMValueRef *primals,
                           LLVMValueRef *shadows, UnwindEdge **unwinds) {
  if (unsupported_construct(sig->fn))
    return false;
  LLVMValueRef copy = clone_function(sig->fn, "kinase.copy");
  copy_byval_params(sig->fn, copy);
  iter_bump(copy);
  devirt_indirect_calls(copy);
  /* In device code a call differentiated as a call keeps a tape per call,
   * which in a loop grows on the small device heap: the callees' bodies
   * join the copy instead, where their values are recomputed. */
  if (kn_module.gpu) {
    rule_inline_calls(copy, DEVICE_INLINE_LEVELS);
    warp_inline_integer_shuffles(copy);
  } else
    rule_inline_host_calls(copy);
  /* The inlined callees' own indirect calls (`L->ops->act(z)` in a helper
   * taking the struct of function pointers) */
  devirt_indirect_calls(copy);
  variadic_fix_calls(copy);
  half_math_wrap_calls(copy);
  nvvm_intrinsics_as_ir(copy);
  rule_inline_models(copy);
  rule_unpack_model_arguments(copy);
  if (!scanf_isolate_numbers(copy, sig->fn) || !asm_lower_known(copy, sig->fn)) {
    LLVMDeleteFunction(copy);
    return false;
  }
  kn_split_struct_copies(copy, sig->fn);
  if (!kn_module.gpu)
    cuda_launch_structs_whole(copy);
  simplify_registers(copy);
  if (!asm_lower_pairs(copy, sig->fn) || !pairbits_as_lanes(copy, sig->fn) ||
      (kn_module.gpu && !warp_double_bit_shuffles(copy, sig->fn))) {
    LLVMDeleteFunction(copy);
    return false;
  }
  /* A copy made a load and a store may free a local for sroa: a __half
   * chosen by `c ? v : zero` is copied from a select of two locals, which
   * sroa leaves to a copy but takes as a load (else each local gets a
   * shadow, on the device heap in a kernel's derivative). */
  bool as_values = copytypes_note(copy, sig->fn);
  bool accessors = !kn_module.gpu && rule_inline_accessors(copy);
  if (as_values || accessors)
    simplify_registers(copy);
  simplify_control(copy);
  if (local_select_loads(copy))
    simplify_registers(copy);
  split_loads_choosing_const_memory(sig, copy);
  barrier_settle(copy);
  kn_float_shuffles(copy);
  if (kn_module.gpu && !warp_float_bit_shuffles(copy, sig->fn)) {
    LLVMDeleteFunction(copy);
    return false;
  }
  if (!unwind_detach(copy, sig->fn, unwinds)) {
    LLVMDeleteFunction(copy);
    return false;
  }
  /* Indirect invokes, calls now, get their comparisons as calls did (each
   * direct call keeps the mark that makes it an invoke again). */
  if (arrlen(*unwinds))
    devirt_indirect_calls(copy);
  floatbits_specialize_calls(copy);
  unsigned k = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    const char *name = kn_value_name(LLVMGetParam(sig->fn, i));
    primals[i] = LLVMGetParam(deriv, k++);
    set_name(primals[i], "", name);
    shadows[i] = NULL;
    if (sig->params[i] == ACT_DUP || sig->params[i] == ACT_DUPNONEED) {
      shadows[i] = LLVMGetParam(deriv, k);
      set_name(shadows[i], "d.", name);
      k += kn_width(sig); /* batch mode: the other lanes' shadows follow */
    }
  }
  move_body(copy, deriv, primals);
  return true;
}

