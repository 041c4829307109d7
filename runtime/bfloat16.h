/* bfloat16 bits on the host (bfloat16.c): the high half of a float. */
#ifndef KINASE_RT_BFLOAT16_H
#define KINASE_RT_BFLOAT16_H

#include <stdint.h>

/* Widened exactly. */
float kinase_rt_bfloat16_to_float(uint16_t bits);
/* Rounded to nearest, ties to even, as the device's cvt.rn.bf16.f32; a NaN
 * stays a quiet NaN of the same sign. */
uint16_t kinase_rt_float_to_bfloat16(float value);

#endif
