/* Reading a CSV the way the gate does (read() into one 64 KiB buffer, block after block)
 * against mapping it (mmap, and mmap with MAP_POPULATE), touching every cache line of it each
 * way; five rounds, the first one cold. Behind the gate README's "read() stays".
 * cc -O2 read-vs-mmap.c && ./a.out FILE.csv */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    static char buf[65536];
    unsigned long sum = 0;
    for (int round = 0; round < 5; round++) {
        double t0 = now_ms();
        int fd = open(argv[1], O_RDONLY);
        if (fd < 0) {
            perror(argv[1]);
            return 1;
        }
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            for (ssize_t i = 0; i < n; i += 64) sum += buf[i];
        close(fd);
        double t1 = now_ms();
        struct stat st;
        fd = open(argv[1], O_RDONLY);
        fstat(fd, &st);
        char *p = mmap(0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        for (off_t i = 0; i < st.st_size; i += 64) sum += p[i];
        munmap(p, st.st_size);
        close(fd);
        double t2 = now_ms();
        fd = open(argv[1], O_RDONLY);
        p = mmap(0, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        for (off_t i = 0; i < st.st_size; i += 64) sum += p[i];
        munmap(p, st.st_size);
        close(fd);
        double t3 = now_ms();
        printf("read, 64 KiB blocks %.3f ms   mmap %.3f ms   mmap + populate %.3f ms\n", t1 - t0,
               t2 - t1, t3 - t2);
    }
    return sum == 42; /* keeps the sums from being optimized away */
}
