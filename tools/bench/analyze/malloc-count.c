// Counts heap allocations of a process: `LD_PRELOAD=malloc-count.so CMD` writes
// "malloc-count: N allocations, M bytes" to the file named by $MALLOC_COUNT_OUT (or to
// standard error) at exit. Every malloc, calloc, realloc (of a new or moved block),
// posix_memalign, aligned_alloc and memalign call counts one. Used by
// tools/bench/analyze/run.sh for allocations per message (docs/PERFORMANCE.md).
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong count, bytes;

void *malloc(size_t n) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); atomic_fetch_add_explicit(&bytes, n, memory_order_relaxed); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); atomic_fetch_add_explicit(&bytes, a * b, memory_order_relaxed); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) {
    void *q = __libc_realloc(p, n);
    if (q != p) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); atomic_fetch_add_explicit(&bytes, n, memory_order_relaxed); }
    return q;
}
void *memalign(size_t al, size_t n) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); atomic_fetch_add_explicit(&bytes, n, memory_order_relaxed); return __libc_memalign(al, n); }
void *aligned_alloc(size_t al, size_t n) { return memalign(al, n); }
int posix_memalign(void **out, size_t al, size_t n) {
    void *p = memalign(al, n);
    if (!p) return 12;
    *out = p;
    return 0;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("MALLOC_COUNT_OUT");
    FILE *f = path ? fopen(path, "a") : stderr;
    if (!f) return;
    fprintf(f, "malloc-count: %lu allocations, %lu bytes\n", (unsigned long)atomic_load(&count), (unsigned long)atomic_load(&bytes));
    if (f != stderr) fclose(f);
}
