/*
 * Plain TCP baselines for UringBenchCli (docs/benchmarks.md): two processes on loopback, TCP_NODELAY, no io_uring and
 * no framing library. It forks after listen(): the child accepts and receives, the parent connects and sends, so each
 * measurement is one invocation, like Rivulet's two JVMs.
 *
 *   tcp_bench stream SIZE COUNT     COUNT messages of SIZE bytes, one send() of the whole message each (fixed-size
 *                                   messages: the receiver needs no length prefix), from one buffer whose first
 *                                   8 bytes carry the sequence number. The receiver read()s into a 256 KiB buffer
 *                                   until it has COUNT * SIZE bytes, then answers with one byte; the sender's clock
 *                                   runs from its first send() until that byte arrives.
 *   tcp_bench bulk SIZE COUNT       the same COUNT * SIZE bytes written in 256 KiB send()s, whatever SIZE is: what one
 *                                   TCP stream carries over loopback here when the sender makes as few system calls
 *                                   as it usefully can (the ceiling for streaming large messages).
 *   tcp_bench pingpong SIZE COUNT   the sender sends SIZE bytes, the receiver sends them back; median round trip.
 *                                   Both sides block in recv().
 *   tcp_bench pingpong-spin SIZE COUNT
 *                                   the same with both sides busy-polling non-blocking recv() (MSG_DONTWAIT), each on
 *                                   a core of its own: the loopback round trip with no wake-up in it, the bound for
 *                                   a busy-polling transport.
 *
 * Each measurement is preceded by an untimed tenth of its count on the same connection. Prints one line:
 *   RESULT impl=native mode=stream size=.. count=.. seconds=.. msgs_per_s=.. mb_per_s=..
 *   RESULT impl=native mode=pingpong size=.. count=.. rtt_median_us=.. rtt_p99_us=.. rtt_min_us=.. oneway_median_us=..
 * (mode is the command given).
 *
 * Build: gcc -O2 -o target/tcp_bench src/main/c/tcp_bench.c   (UringBenchCli does this, in samples/benchmarks/)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RECV_CHUNK (256 * 1024)
#define BULK_WRITE (256 * 1024)

/* pingpong-spin: recv() never sleeps, it returns EAGAIN and is called again. */
static int spin_recv;

static void die(const char *what) {
    perror(what);
    exit(1);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = send(fd, p, n, 0);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("send");
        }
        p += w;
        n -= (size_t) w;
    }
}

static void read_exactly(int fd, char *p, size_t n) {
    while (n > 0) {
        ssize_t r = recv(fd, p, n, spin_recv ? MSG_DONTWAIT : 0);
        if (r < 0 && (errno == EINTR || (spin_recv && errno == EAGAIN))) {
            continue;
        }
        if (r <= 0) {
            die("recv");
        }
        p += r;
        n -= (size_t) r;
    }
}

static void nodelay(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
        die("setsockopt TCP_NODELAY");
    }
}

/* One streaming phase on the sending side: returns seconds from the first send to the receiver's answer. */
static double send_phase(int fd, char *msg, size_t size, long count) {
    char ack;
    double t0 = now_s();
    for (long i = 0; i < count; i++) {
        memcpy(msg, &i, sizeof i);
        write_all(fd, msg, size);
    }
    read_exactly(fd, &ack, 1);
    return now_s() - t0;
}

/* bulk: the phase's bytes in 256 KiB writes (the first 8 bytes of each carry a counter, as in stream). */
static double bulk_phase(int fd, char *chunk, size_t size, long count) {
    char ack;
    size_t left = size * (size_t) count;
    double t0 = now_s();
    for (long i = 0; left > 0; i++) {
        size_t n = left < BULK_WRITE ? left : BULK_WRITE;
        memcpy(chunk, &i, sizeof i);
        write_all(fd, chunk, n);
        left -= n;
    }
    read_exactly(fd, &ack, 1);
    return now_s() - t0;
}

static void receive_phase(int fd, char *chunk, size_t size, long count) {
    size_t left = size * (size_t) count;
    while (left > 0) {
        ssize_t r = recv(fd, chunk, left < RECV_CHUNK ? left : RECV_CHUNK, 0);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            die("recv");
        }
        left -= (size_t) r;
    }
    write_all(fd, "A", 1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *) a;
    double y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Round trips of SIZE bytes; fills rtt (seconds) when it is not NULL. */
static void ping_phase(int fd, char *msg, size_t size, long count, double *rtt) {
    for (long i = 0; i < count; i++) {
        double t0 = now_s();
        write_all(fd, msg, size);
        read_exactly(fd, msg, size);
        if (rtt != NULL) {
            rtt[i] = now_s() - t0;
        }
    }
}

static void pong_phase(int fd, char *msg, size_t size, long count) {
    for (long i = 0; i < count; i++) {
        read_exactly(fd, msg, size);
        write_all(fd, msg, size);
    }
}

int main(int argc, char **argv) {
    const char *mode = argc == 4 ? argv[1] : "";
    int stream = strcmp(mode, "stream") == 0;
    int bulk = strcmp(mode, "bulk") == 0;
    spin_recv = strcmp(mode, "pingpong-spin") == 0;
    if (!stream && !bulk && !spin_recv && strcmp(mode, "pingpong") != 0) {
        fprintf(stderr, "usage: %s stream|bulk|pingpong|pingpong-spin SIZE COUNT\n", argv[0]);
        return 64;
    }
    size_t size = (size_t) atol(argv[2]);
    long count = atol(argv[3]);
    long warm = count / 10 > 0 ? count / 10 : 1;
    if (size < 8 || count < 1) {
        fprintf(stderr, "SIZE must be at least 8 and COUNT at least 1\n");
        return 64;
    }

    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0) {
        die("socket");
    }
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
    socklen_t alen = sizeof addr;
    if (bind(lfd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen(lfd, 1) != 0
        || getsockname(lfd, (struct sockaddr *) &addr, &alen) != 0) {
        die("bind/listen");
    }
    char *msg = malloc(size);
    char *chunk = malloc(RECV_CHUNK);
    if (msg == NULL || chunk == NULL) {
        die("malloc");
    }
    memset(msg, 0x5a, size);

    pid_t child = fork();
    if (child < 0) {
        die("fork");
    }
    if (child == 0) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) {
            die("accept");
        }
        nodelay(fd);
        if (stream || bulk) {
            receive_phase(fd, chunk, size, warm);
            receive_phase(fd, chunk, size, count);
        } else {
            pong_phase(fd, msg, size, warm);
            pong_phase(fd, msg, size, count);
        }
        close(fd);
        _exit(0);
    }
    close(lfd);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *) &addr, sizeof addr) != 0) {
        die("connect");
    }
    nodelay(fd);
    if (stream || bulk) {
        double secs;
        if (bulk) {
            bulk_phase(fd, chunk, size, warm);
            secs = bulk_phase(fd, chunk, size, count);
        } else {
            send_phase(fd, msg, size, warm);
            secs = send_phase(fd, msg, size, count);
        }
        printf("RESULT impl=native mode=%s size=%zu count=%ld seconds=%.6f msgs_per_s=%.1f mb_per_s=%.3f\n",
               mode, size, count, secs, count / secs, count * (double) size / secs / 1e6);
    } else {
        double *rtt = malloc(sizeof(double) * (size_t) count);
        if (rtt == NULL) {
            die("malloc");
        }
        ping_phase(fd, msg, size, warm, NULL);
        ping_phase(fd, msg, size, count, rtt);
        qsort(rtt, (size_t) count, sizeof(double), cmp_double);
        double med = rtt[count / 2] * 1e6;
        printf("RESULT impl=native mode=%s size=%zu count=%ld rtt_median_us=%.3f rtt_p99_us=%.3f "
               "rtt_min_us=%.3f oneway_median_us=%.3f\n", mode, size, count, med, rtt[(long) (count * 0.99)] * 1e6,
               rtt[0] * 1e6, med / 2);
        free(rtt);
    }
    close(fd);
    int status;
    if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "receiver process failed\n");
        return 1;
    }
    free(msg);
    free(chunk);
    return 0;
}
