/* live_blocks.h: counts the heap blocks a test program holds, C++ only.
 * The program's own malloc, calloc, realloc, aligned_alloc (what shadows of
 * locals come from) and free, on glibc's, count the blocks not yet freed; operator new and delete, and the memory Kinase's
 * derivatives allocate (shadows, tapes), go through them too. Include it in
 * one translation unit. */
#ifndef KINASE_TEST_LIVE_BLOCKS_H
#define KINASE_TEST_LIVE_BLOCKS_H

#include <cstddef>

extern "C" {
void *__libc_malloc(std::size_t);
void *__libc_calloc(std::size_t, std::size_t);
void *__libc_realloc(void *, std::size_t);
void *__libc_memalign(std::size_t, std::size_t);
void __libc_free(void *);
}

static long live_blocks; // allocated and not yet freed

extern "C" void *malloc(std::size_t n) {
  live_blocks++;
  return __libc_malloc(n);
}
extern "C" void *calloc(std::size_t n, std::size_t size) {
  live_blocks++;
  return __libc_calloc(n, size);
}
extern "C" void *realloc(void *p, std::size_t n) {
  live_blocks += p == nullptr;
  return __libc_realloc(p, n);
}
extern "C" void *aligned_alloc(std::size_t align, std::size_t n) {
  live_blocks++;
  return __libc_memalign(align, n);
}
extern "C" void free(void *p) {
  live_blocks -= p != nullptr;
  __libc_free(p);
}

#endif
