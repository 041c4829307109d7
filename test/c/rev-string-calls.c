// RUN: %check-c %s %t
// Library calls on strings, characters, files and clocks mixed into
// differentiated code, both modes: they carry no derivative, whether they
// return integers or pointers into strings (strtok, strchr, strrchr,
// strstr, strpbrk, memchr), allocate strings (strdup) or read them (fgets,
// strtof, strtoul), and the derivative of the numbers around them is right.
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"

extern int enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  const char *name;
  double weight;
} Item;

/* sum_i weight_i x (i + 1) + x per name starting with 'a' + x (1.5 + 2.5) */
double labelled(const Item *items, int n, double x) {
  char label[64];
  double s = 0;
  for (int i = 0; i < n; i++) {
    snprintf(label, sizeof label, "%s:%d", items[i].name, i + 1);
    const char *colon = strchr(label, ':');
    long count = colon ? strtoul(colon + 1, NULL, 10) : 0;
    char *copy = strdup(items[i].name);
    int starts_with_a = toupper((unsigned char)copy[0]) == 'A';
    int skipped = (int)strspn(copy, "abc") + (int)strcspn(copy, "m") + (strrchr(copy, 'a') != NULL) +
                  (strstr(label, "ta") != NULL) + (strpbrk(copy, "xyz") != NULL) +
                  (memchr(copy, 'l', strlen(copy)) != NULL) + strncasecmp(copy, "ALPHA", 5);
    free(copy);
    s += items[i].weight * x * (double)count + (starts_with_a ? x : 0) + 0.0 * skipped;
  }
  char list[] = "1.5,2.5";
  for (char *token = strtok(list, ","); token; token = strtok(NULL, ","))
    s += strtof(token, NULL) * x;
  return s;
}

/* x^2, with a clock, an error string and a file read beside it */
double bookkept(double x) {
  time_t now = time(NULL);
  struct tm parts;
  char stamp[32] = "", line[16] = "";
  if (localtime_r(&now, &parts))
    strftime(stamp, sizeof stamp, "%Y", &parts);
  FILE *f = fopen("/dev/null", "r");
  if (f) {
    if (!fgets(line, sizeof line, f) && !feof(f))
      fputs(strerror(errno), stderr);
    fclose(f);
  }
  return x * x + 0.0 * (double)(strlen(stamp) + strlen(line));
}

int main(void) {
  Item items[3] = {{"alpha", 0.5}, {"beta", 1.5}, {"gamma", -1}};
  Item ditems[3] = {{0}}, titems[3] = {{0}};
  double x = 2.0, want = 0.5 * 1 + 1.5 * 2 - 1 * 3 + 1 + 4.0;
  check_close("strings: d/dx", __enzyme_autodiff((void *)labelled, enzyme_dup, items, ditems, enzyme_const, 3, x),
              want, 1e-12);
  for (int i = 0; i < 3; i++)
    check_close("strings: d/dweight", ditems[i].weight, x * (i + 1), 1e-12);
  check_close("strings: forward",
              __enzyme_fwddiff((void *)labelled, enzyme_dup, items, titems, enzyme_const, 3, x, 1.0), want, 1e-12);
  check_close("clock and file: reverse", __enzyme_autodiff((void *)bookkept, x), 2 * x, 1e-15);
  check_close("clock and file: forward", __enzyme_fwddiff((void *)bookkept, x, 1.0), 2 * x, 1e-15);
  return check_exit();
}
