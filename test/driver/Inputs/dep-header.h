/* Included by the dependency-file tests: it must be named in the .d file. */
#define DEP_VALUE 7
