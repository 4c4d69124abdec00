/*
 * fabric_bench: the native libfabric baseline for dev.rivulet.samples.bench.fabric.FabricBenchCli
 * (docs/benchmarks.md, "Method").
 *
 *   gcc -O2 -o target/fabric_bench src/main/c/fabric_bench.c -lfabric
 *   target/fabric_bench [-p tcp|sockets|shm] [-w WINDOW] [-W WARMUP] [-d] [-m] stream|write|pingpong SIZE COUNT
 *
 * Two processes on one machine: the program forks before touching libfabric; the parent is the client
 * (sender / RMA initiator / pinger), the child the server (receiver / RMA target / echo). They exchange endpoint
 * names (and, for write, the target's address and key) over a socketpair, like fi_pingpong does over TCP.
 * Both sides open the provider with the hints Rivulet's FabricDomain uses (FI_EP_RDM, FI_MSG | FI_RMA | FI_READ |
 * FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV, plus FI_ATOMIC where offered, mode
 * FI_CONTEXT | FI_CONTEXT2, mr_mode FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY,
 * FI_THREAD_SAFE; with -m also data_progress FI_PROGRESS_MANUAL, as Rivulet's fabric.dataProgress=manual), take the
 * first fi_info entry, and poll their completion queues (FI_WAIT_NONE) all the time. tcp;ofi_rxm and shm make
 * progress only inside fi_cq_read (manual data progress) either way; sockets runs a progress thread of its own
 * unless -m asks for manual progress. With manual progress a side must keep polling while it waits for its peer
 * (the barriers do), or the peer's last transmits may never complete.
 *
 * Modes (each runs WARMUP untimed operations first, default COUNT / 10, then COUNT timed ones):
 *   stream SIZE COUNT    one fi_send per message, at most WINDOW sends outstanding (default 128), each from a buffer
 *                        of its own (WINDOW registered buffers of SIZE bytes, like a sender of distinct messages;
 *                        the payload is not written per message, as in Rivulet's benchmark); the receiver keeps
 *                        WINDOW receives of SIZE bytes posted and reposts each as it completes. Timed from the
 *                        start barrier until the client hears (over the socketpair) that the server has received
 *                        all COUNT messages. Prints msgs/s and MB/s (MB = 10^6 bytes).
 *   write SIZE COUNT     fi_write of SIZE bytes into one registered target buffer, WINDOW outstanding; after the
 *                        last write completes, one 8-byte fi_read from the target (a read after the writes: the
 *                        data is at the target). With -d every write is fi_writemsg(FI_DELIVERY_COMPLETE), as
 *                        Rivulet posts puts on tcp and sockets, and no read is needed. Prints MB/s.
 *   pingpong SIZE COUNT  the client sends SIZE bytes, the server's receive completes and it sends them back; the
 *                        client's receive completes. COUNT round trips, each timed with CLOCK_MONOTONIC. Prints the
 *                        median and p99 ROUND-TRIP time and the median one-way latency (= round trip / 2), in us.
 *
 * Output: one line starting with "RESULT " and key=value pairs, on the client's stdout. Exit status 0 on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        long rc_ = (long) (call);                                                                       \
        if (rc_ < 0) {                                                                                  \
            fprintf(stderr, "fabric_bench[%s] %s:%d: %s = %ld (%s)\n", role, __FILE__, __LINE__, #call, \
                    rc_, fi_strerror((int) -rc_));                                                      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)

#define DIE(...)                                          \
    do {                                                  \
        fprintf(stderr, "fabric_bench[%s]: ", role);      \
        fprintf(stderr, __VA_ARGS__);                     \
        fputc('\n', stderr);                              \
        exit(2);                                          \
    } while (0)

#define CQ_BATCH 64

static const char *role = "client";
static const char *prov = "tcp";
static int window = 128;
static int delivery_complete = 0;
static int single_buffer = 0;
/* -m: ask for FI_PROGRESS_MANUAL data progress, as Rivulet does with fabric.dataProgress=manual */
static enum fi_progress data_progress = FI_PROGRESS_UNSPEC;

struct bench {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t peer;
    int sock;
    /* one context per posted operation: FI_CONTEXT / FI_CONTEXT2 providers may write into it */
    struct fi_context2 *tx_ctx;
    struct fi_context2 *rx_ctx;
    int *tx_free;
    int tx_free_count;
    /* receive completions reaped by a caller that was not waiting for receives (a barrier, a post's retry),
     * handed to the next one that is, in the order they completed */
    int *rx_stash;
    int rx_stashed;
};

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000ull + (uint64_t) t.tv_nsec;
}

/* ------------------------------------------------------------------------------------------- socketpair */

static void sock_write(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            DIE("socket write failed: %s", strerror(errno));
        }
        p += n;
        len -= (size_t) n;
    }
}

static void sock_read(int fd, void *buf, size_t len) {
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            DIE("socket read failed (%s)", n == 0 ? "peer closed" : strerror(errno));
        }
        p += n;
        len -= (size_t) n;
    }
}

static int sock_readable(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

static int progress(struct bench *b, int *rx_slots, int rx_cap);

/*
 * Both sides write a byte, then read the other's: neither goes on before both got here. The wait keeps this side's
 * progress going: with manual data progress (tcp;ofi_rxm, shm, sockets opened with FI_PROGRESS_MANUAL) the peer
 * may still need it, e.g. to complete the transmit of the last message this side received. The peer may leave
 * first and send at once: receive completions reaped here wait in the stash.
 */
static void barrier(struct bench *b) {
    char c = 'b';
    sock_write(b->sock, &c, 1);
    for (unsigned spin = 0;; spin++) {
        if ((spin & 63) == 0 && sock_readable(b->sock)) {
            sock_read(b->sock, &c, 1);
            return;
        }
        progress(b, NULL, 0);
    }
}

/* ------------------------------------------------------------------------------------------- setup */

static struct fi_info *getinfo(uint64_t caps) {
    struct fi_info *hints = fi_allocinfo();
    struct fi_info *out = NULL;
    if (!hints) {
        DIE("fi_allocinfo failed");
    }
    hints->caps = caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->data_progress = data_progress;
    hints->fabric_attr->prov_name = strdup(prov);
    int rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &out);
    fi_freeinfo(hints);
    if (rc == -FI_ENODATA) {
        return NULL;
    }
    CHECK(rc);
    return out;
}

static void open_fabric(struct bench *b, size_t cq_size) {
    const uint64_t base = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
    struct fi_info *all = getinfo(base | FI_ATOMIC);
    if (!all) {
        all = getinfo(base);
    }
    if (!all) {
        DIE("libfabric offers no '%s' provider with RDM endpoints, messages and RMA", prov);
    }
    b->info = fi_dupinfo(all); /* the first entry only, as Rivulet does */
    fi_freeinfo(all);
    if (b->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        DIE("provider requires FI_MR_ENDPOINT");
    }
    CHECK(fi_fabric(b->info->fabric_attr, &b->fabric, NULL));
    CHECK(fi_domain(b->fabric, b->info, &b->domain, NULL));
    struct fi_av_attr av_attr = {0};
    av_attr.type = b->info->domain_attr->av_type == FI_AV_UNSPEC ? FI_AV_TABLE : b->info->domain_attr->av_type;
    av_attr.count = 16;
    CHECK(fi_av_open(b->domain, &av_attr, &b->av, NULL));
    struct fi_cq_attr cq_attr = {0};
    cq_attr.format = FI_CQ_FORMAT_DATA;
    cq_attr.size = cq_size;
    cq_attr.wait_obj = FI_WAIT_NONE;
    CHECK(fi_cq_open(b->domain, &cq_attr, &b->cq, NULL));
    CHECK(fi_endpoint(b->domain, b->info, &b->ep, NULL));
    CHECK(fi_ep_bind(b->ep, &b->av->fid, 0));
    CHECK(fi_ep_bind(b->ep, &b->cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_enable(b->ep));

    /* exchange endpoint names */
    char name[256];
    size_t len = sizeof name;
    CHECK(fi_getname(&b->ep->fid, name, &len));
    uint32_t n = (uint32_t) len;
    sock_write(b->sock, &n, sizeof n);
    sock_write(b->sock, name, len);
    char peer[256];
    uint32_t pn;
    sock_read(b->sock, &pn, sizeof pn);
    if (pn > sizeof peer) {
        DIE("peer name too long (%u)", pn);
    }
    sock_read(b->sock, peer, pn);
    if (fi_av_insert(b->av, peer, 1, &b->peer, 0, NULL) != 1) {
        DIE("fi_av_insert failed");
    }

    b->tx_ctx = calloc((size_t) window + 1, sizeof(struct fi_context2));
    b->rx_ctx = calloc((size_t) window + 1, sizeof(struct fi_context2));
    b->rx_stash = calloc((size_t) window + 1, sizeof(int));
    b->tx_free = calloc((size_t) window + 1, sizeof(int));
    for (int i = 0; i <= window; i++) {
        b->tx_free[i] = i;
    }
    b->tx_free_count = window + 1;
}

static void close_fabric(struct bench *b) {
    fi_close(&b->ep->fid);
    fi_close(&b->cq->fid);
    fi_close(&b->av->fid);
    fi_close(&b->domain->fid);
    fi_close(&b->fabric->fid);
    fi_freeinfo(b->info);
    free(b->tx_ctx);
    free(b->rx_ctx);
    free(b->tx_free);
    free(b->rx_stash);
}

struct region {
    char *buf;
    size_t len;
    struct fid_mr *mr;
    void *desc;
    uint64_t key;
    uint64_t remote_addr; /* what a peer names this buffer's byte 0 with */
};

static void reg(struct bench *b, struct region *r, size_t len, uint64_t access) {
    r->len = len;
    if (posix_memalign((void **) &r->buf, 4096, len ? len : 1) != 0) {
        DIE("out of memory (%zu bytes)", len);
    }
    memset(r->buf, 0x5a, len);
    static uint64_t next_key = 0x1000;
    CHECK(fi_mr_reg(b->domain, r->buf, len, access, 0, next_key++, 0, &r->mr, NULL));
    r->desc = (b->info->domain_attr->mr_mode & FI_MR_LOCAL) ? fi_mr_desc(r->mr) : NULL;
    r->key = fi_mr_key(r->mr);
    r->remote_addr = (b->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t) (uintptr_t) r->buf : 0;
}

static void unreg(struct region *r) {
    fi_close(&r->mr->fid);
    free(r->buf);
}

/* ------------------------------------------------------------------------------------------- completions */

static void cq_error(struct bench *b) {
    struct fi_cq_err_entry e = {0};
    fi_cq_readerr(b->cq, &e, 0);
    DIE("completion error: %s (prov_errno %d: %s)", fi_strerror(e.err), e.prov_errno,
        fi_cq_strerror(b->cq, e.prov_errno, e.err_data, NULL, 0));
}

/*
 * Reads completions once (the provider's progress happens here). Transmit-side completions give their context
 * slot back; receive completions go to rx_slots (slot indexes, at most rx_cap), earlier stashed ones first; a
 * receive completion beyond rx_cap (rx_cap 0: the caller expects none) is stashed for the next caller that does.
 * Returns the number of slots written to rx_slots.
 */
static int progress(struct bench *b, int *rx_slots, int rx_cap) {
    if (b->rx_stashed > 0 && rx_cap > 0) {
        int n = b->rx_stashed < rx_cap ? b->rx_stashed : rx_cap;
        memcpy(rx_slots, b->rx_stash, (size_t) n * sizeof(int));
        memmove(b->rx_stash, b->rx_stash + n, (size_t) (b->rx_stashed - n) * sizeof(int));
        b->rx_stashed -= n;
        return n;
    }
    struct fi_cq_data_entry e[CQ_BATCH];
    int rx = 0;
    ssize_t n = fi_cq_read(b->cq, e, CQ_BATCH);
    if (n == -FI_EAGAIN) {
        return 0;
    }
    if (n == -FI_EAVAIL) {
        cq_error(b);
    }
    CHECK(n);
    for (ssize_t i = 0; i < n; i++) {
        struct fi_context2 *c = e[i].op_context;
        if (e[i].flags & FI_RECV) {
            int slot = (int) (c - b->rx_ctx);
            if (slot < 0 || slot > window) {
                DIE("receive completion with a context that is not a receive slot (flags 0x%llx)",
                    (unsigned long long) e[i].flags);
            }
            if (rx < rx_cap) {
                rx_slots[rx++] = slot;
            } else if (b->rx_stashed <= window) {
                b->rx_stash[b->rx_stashed++] = slot;
            } else {
                DIE("more receive completions than receives posted");
            }
        } else {
            /* Checked rather than trusted: a completion for a context that was not taken would write past the
             * free list (seen once on sockets as heap corruption in a write run). */
            int slot = (int) (c - b->tx_ctx);
            if (slot < 0 || slot > window || b->tx_free_count > window) {
                DIE("transmit completion for a context that is not outstanding (slot %d, %d free, flags 0x%llx)",
                    slot, b->tx_free_count, (unsigned long long) e[i].flags);
            }
            b->tx_free[b->tx_free_count++] = slot;
        }
    }
    return rx;
}

static int tx_outstanding(struct bench *b) {
    return window + 1 - b->tx_free_count;
}

static struct fi_context2 *tx_take(struct bench *b) {
    return &b->tx_ctx[b->tx_free[--b->tx_free_count]];
}

static void tx_untake(struct bench *b) {
    b->tx_free_count++;
}

/* Posts with retry on -FI_EAGAIN, progressing meanwhile (receive completions reaped then wait in the stash). */
static void post_recv(struct bench *b, struct region *r, size_t size, int slot) {
    for (;;) {
        ssize_t rc = fi_recv(b->ep, r->buf + (size_t) slot * size, size, r->desc, FI_ADDR_UNSPEC, &b->rx_ctx[slot]);
        if (rc == 0) {
            return;
        }
        if (rc != -FI_EAGAIN) {
            CHECK(rc);
        }
        progress(b, NULL, 0);
    }
}

/* Waits for the peer's one-byte signal on the socketpair while keeping this side's progress going. */
static void wait_signal(struct bench *b) {
    for (unsigned spin = 0;; spin++) {
        if ((spin & 63) == 0 && sock_readable(b->sock)) {
            char c;
            sock_read(b->sock, &c, 1);
            return;
        }
        progress(b, NULL, 0);
    }
}

static void signal_peer(struct bench *b) {
    char c = 's';
    sock_write(b->sock, &c, 1);
}

/* ------------------------------------------------------------------------------------------- stream */

static void stream_send(struct bench *b, struct region *src, size_t size, long count) {
    long posted = 0;
    while (posted < count) {
        if (b->tx_free_count > 1) { /* at most WINDOW outstanding */
            struct fi_context2 *c = tx_take(b);
            /* each outstanding send has a buffer of its own (its context's index), as a sender of distinct
             * messages would: no cache-hot single source buffer */
            char *buf = single_buffer ? src->buf : src->buf + (size_t) (c - b->tx_ctx) * size;
            ssize_t rc = fi_send(b->ep, buf, size, src->desc, b->peer, c);
            if (rc == 0) {
                posted++;
                continue;
            }
            tx_untake(b);
            if (rc != -FI_EAGAIN) {
                CHECK(rc);
            }
        }
        progress(b, NULL, 0);
    }
    while (tx_outstanding(b) > 1) {
        progress(b, NULL, 0);
    }
}

static void stream_recv(struct bench *b, struct region *dst, size_t size, long count, long *reposts_left) {
    int slots[CQ_BATCH];
    long received = 0;
    while (received < count) {
        int n = progress(b, slots, CQ_BATCH);
        for (int i = 0; i < n; i++) {
            received++;
            if (*reposts_left > 0) {
                (*reposts_left)--;
                post_recv(b, dst, size, slots[i]);
            }
        }
    }
}

static int run_stream(struct bench *b, int server, size_t size, long count, long warm) {
    struct region r;
    if (server) {
        reg(b, &r, size * (size_t) window, FI_RECV);
        long total = warm + count;
        int initial = total < window ? (int) total : window;
        for (int i = 0; i < initial; i++) {
            post_recv(b, &r, size, i);
        }
        long reposts_left = total - initial;
        barrier(b);
        stream_recv(b, &r, size, warm, &reposts_left);
        signal_peer(b);
        barrier(b);
        stream_recv(b, &r, size, count, &reposts_left);
        signal_peer(b);
        barrier(b);
    } else {
        reg(b, &r, size * ((size_t) window + 1), FI_SEND);
        barrier(b);
        stream_send(b, &r, size, warm);
        wait_signal(b);
        barrier(b);
        double t0 = now_s();
        stream_send(b, &r, size, count);
        wait_signal(b);
        double t = now_s() - t0;
        barrier(b);
        printf("RESULT impl=native mode=stream provider=%s size=%zu count=%ld window=%d seconds=%.6f "
               "msgs_per_s=%.1f mb_per_s=%.3f\n", prov, size, count, window, t, count / t,
               (double) count * (double) size / t / 1e6);
    }
    unreg(&r);
    return 0;
}

/* ------------------------------------------------------------------------------------------- write */

static void writes(struct bench *b, struct region *src, size_t size, uint64_t raddr, uint64_t key, long count) {
    long posted = 0;
    struct iovec iov = {.iov_base = src->buf, .iov_len = size};
    struct fi_rma_iov rma = {.addr = raddr, .len = size, .key = key};
    while (posted < count) {
        if (b->tx_free_count > 1) {
            struct fi_context2 *c = tx_take(b);
            ssize_t rc;
            if (delivery_complete) {
                void *desc = src->desc;
                struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = b->peer,
                                         .rma_iov = &rma, .rma_iov_count = 1, .context = c, .data = 0};
                rc = fi_writemsg(b->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
            } else {
                rc = fi_write(b->ep, src->buf, size, src->desc, b->peer, raddr, key, c);
            }
            if (rc == 0) {
                posted++;
                continue;
            }
            tx_untake(b);
            if (rc != -FI_EAGAIN) {
                CHECK(rc);
            }
        }
        progress(b, NULL, 0);
    }
    while (tx_outstanding(b) > 1) {
        progress(b, NULL, 0);
    }
    if (!delivery_complete) {
        /* a read after the writes: when it completes, the writes before it are at the target */
        struct fi_context2 *c = tx_take(b);
        for (;;) {
            ssize_t rc = fi_read(b->ep, src->buf, 8, src->desc, b->peer, raddr, key, c);
            if (rc == 0) {
                break;
            }
            if (rc != -FI_EAGAIN) {
                CHECK(rc);
            }
            progress(b, NULL, 0);
        }
        while (tx_outstanding(b) > 1) {
            progress(b, NULL, 0);
        }
    }
}

static int run_write(struct bench *b, int server, size_t size, long count, long warm) {
    struct region r;
    if (server) {
        reg(b, &r, size, FI_REMOTE_WRITE | FI_REMOTE_READ);
        sock_write(b->sock, &r.remote_addr, sizeof r.remote_addr);
        sock_write(b->sock, &r.key, sizeof r.key);
        barrier(b);
        wait_signal(b); /* warm-up done */
        wait_signal(b); /* timed run done */
        barrier(b);
    } else {
        uint64_t raddr, key;
        sock_read(b->sock, &raddr, sizeof raddr);
        sock_read(b->sock, &key, sizeof key);
        reg(b, &r, size, FI_WRITE | FI_READ);
        barrier(b);
        writes(b, &r, size, raddr, key, warm);
        signal_peer(b);
        double t0 = now_s();
        writes(b, &r, size, raddr, key, count);
        double t = now_s() - t0;
        signal_peer(b);
        barrier(b);
        printf("RESULT impl=native mode=%s provider=%s size=%zu count=%ld window=%d seconds=%.6f "
               "msgs_per_s=%.1f mb_per_s=%.3f\n", delivery_complete ? "write-dc" : "write", prov, size, count,
               window, t, count / t, (double) count * (double) size / t / 1e6);
    }
    unreg(&r);
    return 0;
}

/* ------------------------------------------------------------------------------------------- pingpong */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static void send_one(struct bench *b, struct region *r, size_t size) {
    for (;;) {
        if (b->tx_free_count > 1) {
            struct fi_context2 *c = tx_take(b);
            ssize_t rc = fi_send(b->ep, r->buf, size, r->desc, b->peer, c);
            if (rc == 0) {
                return;
            }
            tx_untake(b);
            if (rc != -FI_EAGAIN) {
                CHECK(rc);
            }
        }
        progress(b, NULL, 0);
    }
}

static void wait_recv(struct bench *b) {
    int slot;
    while (progress(b, &slot, 1) == 0) {
    }
}

static int run_pingpong(struct bench *b, int server, size_t size, long count, long warm) {
    struct region rx, tx;
    reg(b, &rx, size, FI_RECV);
    reg(b, &tx, size, FI_SEND);
    long total = warm + count;
    post_recv(b, &rx, size, 0);
    barrier(b);
    if (server) {
        for (long i = 0; i < total; i++) {
            wait_recv(b);
            post_recv(b, &rx, size, 0);
            memcpy(tx.buf, rx.buf, size);
            send_one(b, &tx, size);
        }
        while (tx_outstanding(b) > 1) {
            progress(b, NULL, 0);
        }
    } else {
        uint64_t *rtt = calloc((size_t) count, sizeof(uint64_t));
        for (long i = 0; i < total; i++) {
            uint64_t t0 = now_ns();
            send_one(b, &tx, size);
            wait_recv(b);
            uint64_t t1 = now_ns();
            post_recv(b, &rx, size, 0);
            if (i >= warm) {
                rtt[i - warm] = t1 - t0;
            }
        }
        while (tx_outstanding(b) > 1) {
            progress(b, NULL, 0);
        }
        qsort(rtt, (size_t) count, sizeof(uint64_t), cmp_u64);
        double med = rtt[count / 2] / 1e3;
        double p99 = rtt[(long) ((double) count * 0.99)] / 1e3;
        printf("RESULT impl=native mode=pingpong provider=%s size=%zu count=%ld rtt_median_us=%.3f "
               "rtt_p99_us=%.3f rtt_min_us=%.3f oneway_median_us=%.3f\n", prov, size, count, med, p99,
               rtt[0] / 1e3, med / 2);
        free(rtt);
    }
    barrier(b);
    /* Both receive buffers were posted once more than used (the last repost); closing the endpoint cancels it. */
    close_fabric(b);
    unreg(&rx);
    unreg(&tx);
    return 0;
}

/* ------------------------------------------------------------------------------------------- main */

static void usage(void) {
    fprintf(stderr, "usage: fabric_bench [-p tcp|sockets|shm] [-w WINDOW] [-W WARMUP] [-d] [-m] "
                    "stream|write|pingpong SIZE COUNT\n");
    exit(64);
}

int main(int argc, char **argv) {
    long warm = -1;
    int opt;
    while ((opt = getopt(argc, argv, "p:w:W:dm1")) != -1) {
        switch (opt) {
            case 'p': prov = optarg; break;
            case 'w': window = atoi(optarg); break;
            case 'W': warm = atol(optarg); break;
            case 'd': delivery_complete = 1; break;
            case 'm': data_progress = FI_PROGRESS_MANUAL; break;
            case '1': single_buffer = 1; break;
            default: usage();
        }
    }
    if (argc - optind != 3 || window < 1) {
        usage();
    }
    const char *mode = argv[optind];
    size_t size = (size_t) atol(argv[optind + 1]);
    long count = atol(argv[optind + 2]);
    if (count < 1 || size < 1) {
        usage();
    }
    if (warm < 0) {
        warm = count / 10;
    }
    if (strcmp(mode, "pingpong") == 0 && warm < 1) {
        warm = 1;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        DIE("socketpair: %s", strerror(errno));
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        DIE("fork: %s", strerror(errno));
    }
    int server = child == 0;
    struct bench b = {0};
    if (server) {
        role = "server";
        close(sv[0]);
        b.sock = sv[1];
    } else {
        close(sv[1]);
        b.sock = sv[0];
    }
    open_fabric(&b, (size_t) window * 2 + 64);
    int rc;
    if (strcmp(mode, "stream") == 0) {
        rc = run_stream(&b, server, size, count, warm);
        close_fabric(&b);
    } else if (strcmp(mode, "write") == 0) {
        rc = run_write(&b, server, size, count, warm);
        close_fabric(&b);
    } else if (strcmp(mode, "pingpong") == 0) {
        rc = run_pingpong(&b, server, size, count, warm);
    } else {
        if (!server) {
            kill(child, SIGTERM);
        }
        usage();
        return 64;
    }
    fflush(stdout);
    if (server) {
        _exit(rc);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "fabric_bench: server process failed (status 0x%x)\n", status);
        return 3;
    }
    return rc;
}
