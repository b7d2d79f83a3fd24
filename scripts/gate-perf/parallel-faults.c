/* Fresh pages touched by one thread, and by two threads at once (each as many): on this
 * 2-vCPU virtual machine two threads fault pages in at 1.1-1.65 times the rate of one, not
 * twice, so the gate's fresh memory costs nearly as much wall time split over its two
 * threads as on one (gate-perf README, "The text table made as the shapes are judged").
 * cc -O2 -pthread parallel-faults.c && ./a.out */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#define PAGES 2048
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
/* Maps PAGES fresh pages, touches each once and unmaps them. */
static void *touch(void *unused) {
    (void)unused;
    char *p = mmap(0, PAGES * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    for (long i = 0; i < PAGES; i++)
        p[i * 4096] = 1;
    munmap(p, PAGES * 4096L);
    return 0;
}
int main(void) {
    for (int k = 0; k < 5; k++) {
        double t = now_ms();
        touch(0);
        double one = now_ms() - t;
        pthread_t a, b;
        t = now_ms();
        pthread_create(&a, 0, touch, 0);
        pthread_create(&b, 0, touch, 0);
        pthread_join(a, 0);
        pthread_join(b, 0);
        double two = now_ms() - t;
        printf("one thread: %d pages in %.2f ms (%.2f us a page); two threads, %d each at "
               "once: %.2f ms, %.2f times the rate of one\n",
               PAGES, one, one * 1e3 / PAGES, PAGES, two, 2 * one / two);
    }
    return 0;
}
