// A malformed __enzyme_allocation_like registration is an error that says
// what each of its four elements must be.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

void *pool_alloc(void *pool, int size, int *used);
void pool_free(int *used, void *p);

// CHECK-DAG: error: kinase: registration '__enzyme_allocation_like_short' must hold four elements: the allocator, the index of its size argument, the free function's arguments as a string ("2,-1") and the free function
void *__enzyme_allocation_like_short[3] = {(void *)pool_alloc, (void *)1, (void *)"2,-1"};

// Argument 0 is the pool, not a size.
// CHECK-DAG: error: kinase: registration '__enzyme_allocation_like_size' must give as its second element the index of the allocator's integer size argument
void *__enzyme_allocation_like_size[4] = {(void *)pool_alloc, (void *)0, (void *)"2,-1", (void *)pool_free};

// pool_free takes two arguments; the list names one.
// CHECK-DAG: error: kinase: registration '__enzyme_allocation_like_arity' must list, for each parameter of the free function, the index of the allocator's argument passed there, or -1 (once) for the allocated pointer
void *__enzyme_allocation_like_arity[4] = {(void *)pool_alloc, (void *)1, (void *)"-1", (void *)pool_free};

// The allocator has no argument 5.
// CHECK-DAG: error: kinase: registration '__enzyme_allocation_like_range' must list
void *__enzyme_allocation_like_range[4] = {(void *)pool_alloc, (void *)1, (void *)"5,-1", (void *)pool_free};

// CHECK: 4 errors generated.
