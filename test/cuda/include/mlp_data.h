/* mlp_data.h: the parameters, data and a direction of the MLP tests (C or
 * C++): W[hid][in], bias[hid], v[hid], x[batch][in], targets t[batch], and
 * dir[hid][in], a direction in W for the dot-product test. */
#ifndef KINASE_TEST_MLP_DATA_H
#define KINASE_TEST_MLP_DATA_H

#include <math.h>

static void mlp_data(float *W, float *bias, float *v, float *x, float *t, float *dir, int batch, int in,
                     int hid) {
  for (int k = 0; k < hid * in; k++) {
    W[k] = 0.3f * sinf(0.7f * k + 0.1f);
    dir[k] = cosf(0.3f * k);
  }
  for (int j = 0; j < hid; j++) {
    bias[j] = 0.1f * cosf(1.3f * j);
    v[j] = 0.5f * sinf(0.9f * j + 0.4f);
  }
  for (int k = 0; k < batch * in; k++)
    x[k] = cosf(0.37f * k);
  for (int b = 0; b < batch; b++)
    t[b] = 0.2f * sinf(0.11f * b) + 0.3f;
}

#endif
