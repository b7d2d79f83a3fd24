/* What fresh memory costs on this machine: 8 MiB of new anonymous pages touched one by one,
 * populated with one madvise(MADV_POPULATE_WRITE) (Linux 5.14+), and in transparent huge
 * pages (madvise(MADV_HUGEPAGE) on a 2 MiB-aligned range), the last at once and again after
 * three idle seconds: the README's "about 0.7 ms a megabyte" of the gate's section, and why
 * huge pages were not kept. cc -O2 fresh-pages.c && ./a.out */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define HUGE (2UL << 20)
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
/* Touches n fresh bytes the way `how` says and returns the milliseconds it took. */
static double touch(size_t n, int how) {
    char *m = mmap(0, n + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return -1;
    char *p = (char *)(((uintptr_t)m + HUGE - 1) & ~(HUGE - 1));
    double t = now_ms();
    if (how == 1) madvise(p, n, MADV_POPULATE_WRITE);
    if (how == 2) madvise(p, n, MADV_HUGEPAGE);
    for (size_t i = 0; i < n; i += 4096) p[i] = 1;
    t = now_ms() - t;
    munmap(m, n + HUGE);
    return t;
}
int main(void) {
    const size_t n = 8 << 20;
    printf("page by page: %.2f ms for 8 MiB\n", touch(n, 0));
    printf("one MADV_POPULATE_WRITE: %.2f ms for 8 MiB\n", touch(n, 1));
    printf("huge pages: %.2f ms for 8 MiB\n", touch(n, 2));
    /* A virtual machine whose balloon reports free memory to its host has free 2 MiB
     * blocks taken back after a few seconds: a huge page from such a block is backed by
     * the host again as it is touched (on this machine, in some runs only, and 30-60 ms
     * for 8 MiB instead of 0.4). Pages of 4 KiB mostly come from recently freed ones. */
    sleep(3);
    printf("huge pages after 3 s idle: %.2f ms for 8 MiB\n", touch(n, 2));
    return 0;
}
