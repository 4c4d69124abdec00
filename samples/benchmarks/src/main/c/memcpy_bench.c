/*
 * The copy ceiling for ShmBenchCli (docs/benchmarks.md): one thread copying SIZE bytes COUNT times between the same
 * two page-aligned buffers with the C library's memcpy, which is what a put into a mapped shared window costs at
 * best. Small sizes stay in the cache; that is the point of measuring them (a stream of puts into one window does
 * the same).
 *
 *   memcpy_bench SIZE COUNT
 *
 * An untimed tenth of COUNT first. Prints one line:
 *   RESULT impl=memcpy-c mode=put copy=memcpy size=.. count=.. seconds=.. msgs_per_s=.. mb_per_s=..
 *
 * Build: gcc -O2 -o target/memcpy_bench src/main/c/memcpy_bench.c   (ShmBenchCli does this, in samples/benchmarks/)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void copies(char *dst, const char *src, size_t size, long n) {
    for (long i = 0; i < n; i++) {
        memcpy(dst, src, size);
        /* The copy's result is used by nobody: without this the compiler may drop all but the last one. */
        __asm__ __volatile__("" : : "r"(dst) : "memory");
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: memcpy_bench SIZE COUNT\n");
        return 64;
    }
    size_t size = strtoul(argv[1], NULL, 10);
    long count = strtol(argv[2], NULL, 10);
    char *src;
    char *dst;
    if (size == 0 || count <= 0 || posix_memalign((void **) &src, 4096, size) != 0
            || posix_memalign((void **) &dst, 4096, size) != 0) {
        fprintf(stderr, "memcpy_bench: bad arguments or out of memory\n");
        return 1;
    }
    memset(src, 0x5a, size);
    memset(dst, 0, size);
    copies(dst, src, size, count / 10 > 0 ? count / 10 : 1);
    double t0 = now();
    copies(dst, src, size, count);
    double secs = now() - t0;
    if (dst[size - 1] != 0x5a) {
        fprintf(stderr, "memcpy_bench: the copy did not copy\n");
        return 1;
    }
    printf("RESULT impl=memcpy-c mode=put copy=memcpy size=%zu count=%ld seconds=%.6f msgs_per_s=%.1f "
           "mb_per_s=%.3f\n", size, count, secs, count / secs, count * (double) size / secs / 1e6);
    free(src);
    free(dst);
    return 0;
}
