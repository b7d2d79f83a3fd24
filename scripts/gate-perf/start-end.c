/* How long a kcamp process takes to start (spawn to the first line of its `main`) and to end
 * (the last line of its `main` to the parent's waitpid), for a binary built with
 * phase-timing.patch: it prints "main ... t<ns>" and "end ... t<ns>" on stderr with the
 * monotonic clock, which this parent reads around posix_spawn and waitpid. The least and
 * the median of N runs (default 50), the gate's output going to /dev/null:
 *
 *   cc -O2 -o start-end start-end.c && ./start-end KCAMP A.csv B.csv [N]
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The t<ns> of the stderr line that starts with `name `, or -1. */
static long long stamp(const char *err, const char *name) {
    size_t n = strlen(name);
    for (const char *line = err; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, name, n) == 0 && line[n] == ' ') {
            const char *t = strstr(line, " t");
            const char *eol = strchr(line, '\n');
            if (t && (!eol || t < eol)) return atoll(t + 2);
        }
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s KCAMP A.csv B.csv [N]\n", argv[0]);
        return 2;
    }
    int runs = argc > 4 ? atoi(argv[4]) : 50;
    if (runs < 1) runs = 1;
    double *start = calloc(runs, sizeof *start), *end = calloc(runs, sizeof *end);
    char *args[] = {argv[1], "gate", argv[2], argv[3], NULL};
    setenv("PH", "1", 1);
    for (int r = 0; r < runs; r++) {
        char path[] = "/tmp/start-end-XXXXXX";
        int err = mkstemp(path);
        if (err < 0) return 1;
        posix_spawn_file_actions_t io;
        posix_spawn_file_actions_init(&io);
        posix_spawn_file_actions_addopen(&io, 1, "/dev/null", 1 /* O_WRONLY */, 0);
        posix_spawn_file_actions_adddup2(&io, err, 2);
        pid_t pid;
        long long spawned = now_ns();
        if (posix_spawn(&pid, argv[1], &io, NULL, args, environ) != 0) return 1;
        int status;
        waitpid(pid, &status, 0);
        long long waited = now_ns();
        posix_spawn_file_actions_destroy(&io);
        static char text[1 << 16];
        ssize_t got = pread(err, text, sizeof text - 1, 0);
        text[got > 0 ? got : 0] = 0;
        close(err);
        unlink(path);
        long long main_at = stamp(text, "main"), end_at = stamp(text, "end");
        if (main_at < 0 || end_at < 0) {
            fprintf(stderr, "no main/end lines: is %s built with phase-timing.patch?\n", argv[1]);
            return 1;
        }
        start[r] = (main_at - spawned) / 1e6;
        end[r] = (waited - end_at) / 1e6;
    }
    qsort(start, runs, sizeof *start, by_value);
    qsort(end, runs, sizeof *end, by_value);
    printf("start (spawn to main): least %.3f ms, median %.3f ms\n", start[0], start[runs / 2]);
    printf("end (end of main to waitpid): least %.3f ms, median %.3f ms\n", end[0], end[runs / 2]);
    return 0;
}
