/* What fresh memory costs on this machine: 8 MiB of new anonymous pages touched one by one,
 * and populated with one madvise(MADV_POPULATE_WRITE) (Linux 5.14+); the README's "about
 * 0.7 ms a megabyte" of the gate's section. cc -O2 fresh-pages.c && ./a.out */
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
int main(void) {
    const size_t n = 8 << 20;
    for (int populate = 0; populate < 2; populate++) {
        char *p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 1;
        double t = now_ms();
        if (populate) madvise(p, n, MADV_POPULATE_WRITE);
        for (size_t i = 0; i < n; i += 4096) p[i] = 1;
        printf("%s: %.2f ms for 8 MiB\n", populate ? "one MADV_POPULATE_WRITE" : "page by page", now_ms() - t);
        munmap(p, n);
    }
    return 0;
}
