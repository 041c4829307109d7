/* bfloat16 on the host. C has no bfloat16 arithmetic that every libgcc can
 * convert: the runtime's own sums of bfloat16 adjoints (cuda_copy.c) work on
 * the bits. And clang lowers an fptrunc to bfloat on x86-64 to a call of
 * __truncsfbf2, which GCC 12's libgcc (the one Debian 12 links) lacks;
 * Kinase makes such conversions wherever it reads __float2bfloat16 in
 * differentiated host code (rules/halfmath.c), so the runtime provides one:
 * weak, so that a libgcc or compiler-rt that has it wins. */
#include "bfloat16.h"

#include <string.h>

float kinase_rt_bfloat16_to_float(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &wide, sizeof f);
  return f;
}

uint16_t kinase_rt_float_to_bfloat16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN */
    return (uint16_t)((bits >> 16) | 0x0040u);
  return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

__attribute__((weak)) __bf16 __truncsfbf2(float value);

__attribute__((weak)) __bf16 __truncsfbf2(float value) {
  uint16_t rounded = kinase_rt_float_to_bfloat16(value);
  __bf16 result;
  memcpy(&result, &rounded, sizeof result);
  return result;
}
