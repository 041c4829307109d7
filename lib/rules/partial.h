/* Shorthands for the partial derivatives of the rule tables (math.c,
 * nvvm.c): each is a PartialFn returning d(result)/d(args[i]) in the type of
 * args[i], given the call's arguments and its result y. */
#ifndef KINASE_RULES_PARTIAL_H
#define KINASE_RULES_PARTIAL_H

#include "kinase.h"

#define PARTIAL(name)                                                                              \
  LLVMValueRef name(LLVMBuilderRef b, LLVMValueRef *args, LLVMValueRef y, unsigned i)
#define X args[0]
#define K(v) math_const(LLVMTypeOf(args[0]), (v))
#define UNUSED (void)b, (void)args, (void)y, (void)i

/* pow's partials with the library's pow and log named (math.c). */
LLVMValueRef partial_pow_with(LLVMBuilderRef b, LLVMValueRef *args, LLVMValueRef y, unsigned i,
                              const char *pow, const char *log);

#endif
