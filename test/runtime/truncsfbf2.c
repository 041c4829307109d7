// The runtime's float-to-bfloat16 conversion (runtime/bfloat16.c), which
// x86-64 host code calls for an fptrunc to bfloat and GCC 12's libgcc
// lacks: round to nearest, ties to even (the device's cvt.rn.bf16.f32),
// infinities and signed zeros kept, a NaN quiet. A conversion compiled by
// clang calls it, linked from the archive alone.
//
// RUN: %clang -std=c11 -O0 -Wall -Wextra -Werror %s %kinase-rt -o %t.exe
// RUN: %t.exe

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint16_t bits_of(float f) {
  volatile float in = f; /* a conversion at run time, not folded */
  __bf16 b = (__bf16)in;
  uint16_t bits;
  memcpy(&bits, &b, sizeof bits);
  return bits;
}

static float float_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

int main(void) {
  static const struct {
    uint32_t in;
    uint16_t out;
  } cases[] = {
      {0x3f800000u, 0x3f80}, /* 1 */
      {0x3f808000u, 0x3f80}, /* halfway, to the even 1 */
      {0x3f818000u, 0x3f82}, /* halfway, to the even neighbour above */
      {0x3f80c000u, 0x3f81}, /* above halfway */
      {0x3f807fffu, 0x3f80}, /* below halfway */
      {0xbf80c000u, 0xbf81}, /* negative */
      {0x7f7fffffu, 0x7f80}, /* the largest float rounds to infinity */
      {0x7f800000u, 0x7f80}, /* infinity */
      {0x80000000u, 0x8000}, /* -0 */
      {0x00000001u, 0x0000}, /* the smallest subnormal, to 0 */
      {0x00400000u, 0x0040}, /* a subnormal that fits */
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint16_t got = bits_of(float_of(cases[i].in));
    if (got != cases[i].out) {
      printf("FAIL %08x: got %04x, want %04x\n", cases[i].in, got, cases[i].out);
      failures++;
    }
  }
  uint16_t nan = bits_of(float_of(0xff800001u)); /* a signalling NaN */
  if ((nan & 0x7f80) != 0x7f80 || !(nan & 0x0040) || !(nan & 0x8000)) {
    printf("FAIL NaN: got %04x, want a negative quiet NaN\n", nan);
    failures++;
  }
  if (failures)
    return 1;
  printf("PASS\n");
  return 0;
}
