/* Float to bfloat16 on the host, as compilers call it: clang lowers an
 * fptrunc to bfloat on x86-64 to __truncsfbf2, which GCC 12's libgcc (the
 * one Debian 12 links) lacks. Kinase makes such conversions wherever it
 * reads __float2bfloat16 in differentiated host code (rules/halfmath.c), so
 * the runtime provides one: weak, so that a libgcc or compiler-rt that has
 * it wins. Rounds to nearest, ties to even, as the device's cvt.rn.bf16.f32
 * does; a NaN stays a quiet NaN of the same sign. */
#include <stdint.h>
#include <string.h>

__attribute__((weak)) __bf16 __truncsfbf2(float value);

__attribute__((weak)) __bf16 __truncsfbf2(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  uint16_t rounded;
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN */
    rounded = (uint16_t)((bits >> 16) | 0x0040u);
  else
    rounded = (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  __bf16 result;
  memcpy(&result, &rounded, sizeof result);
  return result;
}
