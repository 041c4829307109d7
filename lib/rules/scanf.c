/* The scanf family (sscanf, fscanf, scanf), inactive calls (calls.def) that
 * store numbers into the caller's memory. A number read has no derivative,
 * and it replaces whatever derivative that memory held. So in the copy
 * being differentiated each floating-point conversion's argument becomes a
 * fresh local, and after the call the number goes where the argument
 * pointed, if the call assigned it (its result counts the assignments):
 *   r = sscanf(s, "%lf", &v)  ->  r = sscanf(s, "%lf", &t);
 *                                 v = r > 0 ? t : v;
 * The local's shadow stays zero, so the number carries none; the select
 * keeps the old derivative where nothing was read. The format must be a
 * constant string: it says which arguments are floats. */
#include "kinase.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  unsigned format; /* the format's argument */
} scanners[] = {
    {"sscanf", 1},          {"__isoc99_sscanf", 1}, {"__isoc23_sscanf", 1},
    {"fscanf", 1},          {"__isoc99_fscanf", 1}, {"__isoc23_fscanf", 1},
    {"scanf", 0},           {"__isoc99_scanf", 0},  {"__isoc23_scanf", 0},
};

/* The format argument of a call of the scanf family, or -1. */
static int format_index(LLVMValueRef call) {
  LLVMValueRef callee = kn_called_function(call);
  for (size_t i = 0; callee && i < sizeof scanners / sizeof *scanners; i++)
    if (!strcmp(kn_function_name(callee), scanners[i].name))
      return (int)scanners[i].format;
  return -1;
}

/* One conversion that takes an argument. */
typedef struct {
  LLVMTypeRef number; /* the float type it stores, or NULL */
  bool counted;       /* it counts in the result (all but %n) */
} Conversion;

/* The float type a conversion with length modifier `length` stores: float,
 * double ('l') or long double ('L'), which is x87's on x86 and binary128
 * on the other 64-bit targets Linux has. */
static LLVMTypeRef float_type(char length) {
  LLVMContextRef ctx = kn_module.ctx;
  const char *triple = LLVMGetTarget(kn_module.mod);
  bool x86 = !strncmp(triple, "x86_64", 6) || (triple[0] == 'i' && strstr(triple, "86-"));
  if (length == 'L')
    return x86 ? LLVMX86FP80TypeInContext(ctx) : LLVMFP128TypeInContext(ctx);
  return length == 'l' ? LLVMDoubleTypeInContext(ctx) : LLVMFloatTypeInContext(ctx);
}

/* The conversions of `format` that take arguments, in order; how many, or
 * -1 for more than `max`. */
static int conversions(const char *format, Conversion *out, int max) {
  int n = 0;
  for (const char *c = format; *c; c++) {
    if (*c != '%')
      continue;
    c++;
    if (*c == '%')
      continue;
    bool suppressed = *c == '*';
    c += suppressed;
    while (isdigit((unsigned char)*c))
      c++;
    char length = 0;
    for (; *c && strchr("hlLqjztm", *c); c++)
      length = *c;
    if (!*c)
      break;
    if (*c == '[') { /* a scanset: ']' first is one of its characters */
      c += c[1] == '^';
      c += c[1] == ']';
      while (c[1] && c[1] != ']')
        c++;
      c += c[1] == ']';
    }
    if (suppressed)
      continue;
    if (n == max)
      return -1;
    bool is_float = strchr("aAeEfFgG", *c) != NULL;
    out[n++] = (Conversion){.number = is_float ? float_type(length) : NULL, .counted = *c != 'n'};
  }
  return n;
}

/* The text of a constant C string (its bytes up to a final NUL), or NULL. */
static const char *constant_string(LLVMValueRef v) {
  LLVMValueRef global = LLVMIsAGlobalVariable(kn_strip_casts(v));
  LLVMValueRef init = global && LLVMIsGlobalConstant(global) ? LLVMGetInitializer(global) : NULL;
  if (!init || !LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
    return NULL;
  size_t len;
  const char *text = LLVMGetAsString(init, &len);
  return len && !text[len - 1] ? text : NULL;
}

/* Routes the floats `call` reads through fresh locals of `fn`. */
static void isolate(LLVMValueRef fn, LLVMValueRef call, unsigned first, const Conversion *conv, int n) {
  LLVMBuilderRef entry = kn_entry_builder(fn);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(kn_module.ctx);
  LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  LLVMTypeRef i32 = LLVMTypeOf(call);
  unsigned counted = 0;
  for (int k = 0; k < n && first + (unsigned)k < LLVMGetNumArgOperands(call); k++) {
    unsigned arg = first + (unsigned)k;
    if (conv[k].number) {
      LLVMValueRef target = LLVMGetOperand(call, arg);
      LLVMValueRef local = LLVMBuildAlloca(entry, conv[k].number, "scanned");
      LLVMSetOperand(call, arg, local);
      LLVMValueRef assigned = LLVMBuildICmp(b, LLVMIntSGT, call, LLVMConstInt(i32, counted, 0), "");
      LLVMValueRef read = LLVMBuildLoad2(b, conv[k].number, local, "");
      LLVMValueRef old = LLVMBuildLoad2(b, conv[k].number, target, "");
      LLVMBuildStore(b, LLVMBuildSelect(b, assigned, read, old, ""), target);
    }
    counted += conv[k].counted;
  }
  LLVMDisposeBuilder(b);
  LLVMDisposeBuilder(entry);
}

bool scanf_isolate_numbers(LLVMValueRef fn, LLVMValueRef subject) {
  enum { MAX_CONVERSIONS = 64 };
  bool ok = true;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      int format = LLVMIsACallInst(inst) ? format_index(inst) : -1;
      if (format < 0 || (unsigned)format + 1 >= LLVMGetNumArgOperands(inst))
        continue;
      const char *text = constant_string(LLVMGetOperand(inst, (unsigned)format));
      Conversion conv[MAX_CONVERSIONS];
      int n = text ? conversions(text, conv, MAX_CONVERSIONS) : -1;
      if (n < 0) {
        const char *name = kn_function_name(kn_called_function(inst));
        if (!strncmp(name, "__isoc", 6)) /* glibc's __isoc99_sscanf is the user's sscanf */
          name = strchr(name + 2, '_') + 1;
        kn_error(inst, subject,
                 "it calls %s with a format that is not a constant string (or has more than %d "
                 "conversions): Kinase cannot tell which arguments it stores numbers into",
                 name, MAX_CONVERSIONS);
        ok = false;
        continue;
      }
      isolate(fn, inst, (unsigned)format + 1, conv, n);
    }
  return ok;
}
