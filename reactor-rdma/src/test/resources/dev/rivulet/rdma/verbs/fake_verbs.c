/*
 * A software RC "device" behind the verbs ops table, for tests on hosts without RDMA hardware.
 *
 * FakeVerbs compiles this file into a shared library and builds contexts, CQs and QPs with it. Their
 * struct ibv_context carries post_send / post_recv / poll_cq / req_notify_cq of this file in its embedded ops table,
 * so the transport's real binding dispatches to it exactly as it does to a provider: it reads the ibv_send_wr chains,
 * scatter/gather lists and receive requests the wire writes, and writes ibv_wc entries the wire reads.
 *
 * Semantics kept from a reliable connection, as the transport relies on them:
 *  - a QP's requests execute and complete in posting order; only signalled ones produce a success completion,
 *    errors always produce one;
 *  - a send waits (like infinite RNR retry) until the peer posts a receive, and so does everything behind it;
 *  - receives complete in posting order; a send longer than the receive buffer fails both sides;
 *  - RDMA write/read and 64-bit atomics check the rkey, the window and the access flags of the registration
 *    (zero-length transfers check nothing), local scatter/gather entries their lkey (inline data excepted);
 *  - the first error puts the QP and its peer in the error state: every request not yet completed, and every
 *    receive, completes with IBV_WC_WR_FLUSH_ERR.
 * One lock serializes everything; requests execute inside the post call (or the peer's post_recv that unblocks them).
 */
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* execute()'s answer for a send that finds no posted receive (IBV_WC_SUCCESS is 0) */
#define WAIT (-1)

/* ------------------------------------------------------------------------------------------ registrations */

struct mr {
    uint32_t key;
    uint64_t addr;
    uint64_t len;
    int access;
    struct mr *next;
};

static struct mr *mrs;
static uint32_t next_key = 0x1000;

uint32_t fake_reg_mr(uint64_t addr, uint64_t len, int access) {
    pthread_mutex_lock(&lock);
    struct mr *m = calloc(1, sizeof *m);
    m->key = next_key += 0x101;
    m->addr = addr;
    m->len = len;
    m->access = access;
    m->next = mrs;
    mrs = m;
    pthread_mutex_unlock(&lock);
    return m->key;
}

void fake_dereg_mr(uint32_t key) {
    pthread_mutex_lock(&lock);
    for (struct mr **p = &mrs; *p; p = &(*p)->next) {
        if ((*p)->key == key) {
            struct mr *m = *p;
            *p = m->next;
            free(m);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Whether [addr, addr + len) lies inside registration key with all of the access bits in need. */
static int covered(uint32_t key, uint64_t addr, uint64_t len, int need) {
    for (struct mr *m = mrs; m; m = m->next) {
        if (m->key == key) {
            return addr >= m->addr && len <= m->len && addr - m->addr <= m->len - len && (m->access & need) == need;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ queues */

struct fcq {
    struct ibv_cq cq; /* first: the binding reads cq->context */
    struct ibv_wc *ring;
    int cap, head, count;
};

struct req {
    uint64_t wr_id;
    int opcode, flags, nsge;
    uint32_t imm;
    uint64_t raddr, cmp, swp;
    uint32_t rkey;
    struct ibv_sge sge[2];
    unsigned char *inl;
    uint32_t inl_len;
};

struct rcv {
    uint64_t wr_id;
    struct ibv_sge sge;
    int nsge;
};

struct fqp {
    struct ibv_qp qp; /* first: the binding reads qp->context */
    struct fcq *cq;
    struct fqp *peer;
    int error;
    struct req *sq;
    int sq_cap, sq_head, sq_count;
    struct rcv *rq;
    int rq_cap, rq_head, rq_count;
};

static uint32_t next_qpn = 0x40;

static void push(struct fcq *c, uint64_t wr_id, int status, int opcode, uint32_t len, int flags, uint32_t imm,
                 uint32_t qpn) {
    if (c->count == c->cap) {
        abort(); /* the transport sized its CQ too small: a bug worth a crash in a test */
    }
    struct ibv_wc *w = &c->ring[(c->head + c->count++) % c->cap];
    memset(w, 0, sizeof *w);
    w->wr_id = wr_id;
    w->status = status;
    w->opcode = opcode;
    w->byte_len = len;
    w->wc_flags = flags;
    w->imm_data = imm;
    w->qp_num = qpn;
    w->vendor_err = status == IBV_WC_SUCCESS ? 0 : 0x100 + status;
}

static void flush_receives(struct fqp *q) {
    while (q->rq_count > 0) {
        struct rcv *r = &q->rq[q->rq_head];
        q->rq_head = (q->rq_head + 1) % q->rq_cap;
        q->rq_count--;
        push(q->cq, r->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, 0, q->qp.qp_num);
    }
}

static void progress(struct fqp *q);

/* Puts q (and its peer, as a broken connection would) in the error state. */
static void fail(struct fqp *q) {
    if (!q->error) {
        q->error = 1;
        flush_receives(q);
    }
    struct fqp *p = q->peer;
    if (p && !p->error) {
        p->error = 1;
        flush_receives(p);
        progress(p);
    }
}

static uint64_t req_len(struct req *r) {
    if (r->flags & IBV_SEND_INLINE) {
        return r->inl_len;
    }
    uint64_t n = 0;
    for (int i = 0; i < r->nsge; i++) {
        n += r->sge[i].length;
    }
    return n;
}

static int local_ok(struct req *r, int need) {
    if (r->flags & IBV_SEND_INLINE) {
        return 1;
    }
    for (int i = 0; i < r->nsge; i++) {
        if (r->sge[i].length > 0 && !covered(r->sge[i].lkey, r->sge[i].addr, r->sge[i].length, need)) {
            return 0;
        }
    }
    return 1;
}

/* Copies the request's gather data to dst. */
static void gather(struct req *r, unsigned char *dst) {
    if (r->flags & IBV_SEND_INLINE) {
        memcpy(dst, r->inl, r->inl_len);
        return;
    }
    for (int i = 0; i < r->nsge; i++) {
        memcpy(dst, (void *) (uintptr_t) r->sge[i].addr, r->sge[i].length);
        dst += r->sge[i].length;
    }
}

/* Executes one request; WAIT when it must wait for a receive, else the completion status. */
static int execute(struct fqp *q, struct req *r, uint32_t *len) {
    struct fqp *p = q->peer;
    uint64_t n = req_len(r);
    *len = (uint32_t) n;
    if (!p || p->error) {
        return IBV_WC_RETRY_EXC_ERR;
    }
    if (!local_ok(r, r->opcode == IBV_WR_RDMA_READ || r->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD
                     || r->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_ACCESS_LOCAL_WRITE : 0)) {
        return IBV_WC_LOC_PROT_ERR;
    }
    switch (r->opcode) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM: {
        if (p->rq_count == 0) {
            return WAIT;
        }
        struct rcv *rv = &p->rq[p->rq_head];
        p->rq_head = (p->rq_head + 1) % p->rq_cap;
        p->rq_count--;
        uint32_t room = rv->nsge ? rv->sge.length : 0;
        if (n > room) {
            push(p->cq, rv->wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, 0, 0, p->qp.qp_num);
            return IBV_WC_REM_INV_REQ_ERR;
        }
        if (n > 0) {
            gather(r, (unsigned char *) (uintptr_t) rv->sge.addr);
        }
        push(p->cq, rv->wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, (uint32_t) n,
             r->opcode == IBV_WR_SEND_WITH_IMM ? IBV_WC_WITH_IMM : 0, r->imm, p->qp.qp_num);
        return IBV_WC_SUCCESS;
    }
    case IBV_WR_RDMA_WRITE:
        if (n > 0) {
            if (!covered(r->rkey, r->raddr, n, IBV_ACCESS_REMOTE_WRITE)) {
                return IBV_WC_REM_ACCESS_ERR;
            }
            gather(r, (unsigned char *) (uintptr_t) r->raddr);
        }
        return IBV_WC_SUCCESS;
    case IBV_WR_RDMA_READ: {
        if (n > 0) {
            if (!covered(r->rkey, r->raddr, n, IBV_ACCESS_REMOTE_READ)) {
                return IBV_WC_REM_ACCESS_ERR;
            }
            const unsigned char *src = (const unsigned char *) (uintptr_t) r->raddr;
            for (int i = 0; i < r->nsge; i++) {
                memcpy((void *) (uintptr_t) r->sge[i].addr, src, r->sge[i].length);
                src += r->sge[i].length;
            }
        }
        return IBV_WC_SUCCESS;
    }
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
    case IBV_WR_ATOMIC_CMP_AND_SWP: {
        if (r->nsge != 1 || r->sge[0].length != 8 || (r->raddr & 7) != 0) {
            return IBV_WC_REM_INV_REQ_ERR;
        }
        if (!covered(r->rkey, r->raddr, 8, IBV_ACCESS_REMOTE_ATOMIC)) {
            return IBV_WC_REM_ACCESS_ERR;
        }
        uint64_t *word = (uint64_t *) (uintptr_t) r->raddr;
        uint64_t old;
        if (r->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
            old = __atomic_fetch_add(word, r->cmp, __ATOMIC_SEQ_CST);
        } else {
            old = r->cmp;
            __atomic_compare_exchange_n(word, &old, r->swp, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        }
        memcpy((void *) (uintptr_t) r->sge[0].addr, &old, 8);
        return IBV_WC_SUCCESS;
    }
    default:
        return IBV_WC_LOC_QP_OP_ERR;
    }
}

static int wc_opcode(int wr_opcode) {
    switch (wr_opcode) {
    case IBV_WR_RDMA_WRITE: return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
    default: return IBV_WC_SEND;
    }
}

/* Runs q's queued requests in order until one must wait for the peer's receive. */
static void progress(struct fqp *q) {
    while (q->sq_count > 0) {
        struct req *r = &q->sq[q->sq_head];
        uint32_t len = 0;
        int status = q->error ? IBV_WC_WR_FLUSH_ERR : execute(q, r, &len);
        if (status == WAIT) {
            return; /* waiting for a receive, like an RNR retry */
        }
        if (status != IBV_WC_SUCCESS || (r->flags & IBV_SEND_SIGNALED)) {
            push(q->cq, r->wr_id, status, wc_opcode(r->opcode), len, 0, 0, q->qp.qp_num);
        }
        free(r->inl);
        r->inl = NULL;
        q->sq_head = (q->sq_head + 1) % q->sq_cap;
        q->sq_count--;
        if (status != IBV_WC_SUCCESS && status != IBV_WC_WR_FLUSH_ERR) {
            fail(q);
        }
    }
}

/* ------------------------------------------------------------------------------------------ ops table */

static int fake_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad) {
    struct fqp *q = (struct fqp *) ibqp;
    int rc = 0;
    pthread_mutex_lock(&lock);
    for (; wr; wr = wr->next) {
        if (q->sq_count == q->sq_cap || wr->num_sge > 2) {
            *bad = wr;
            rc = wr->num_sge > 2 ? EINVAL : ENOMEM;
            break;
        }
        struct req *r = &q->sq[(q->sq_head + q->sq_count++) % q->sq_cap];
        memset(r, 0, sizeof *r);
        r->wr_id = wr->wr_id;
        r->opcode = wr->opcode;
        r->flags = wr->send_flags;
        r->imm = wr->imm_data;
        r->nsge = wr->num_sge;
        for (int i = 0; i < wr->num_sge; i++) {
            r->sge[i] = wr->sg_list[i];
        }
        if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
            r->raddr = wr->wr.atomic.remote_addr;
            r->rkey = wr->wr.atomic.rkey;
            r->cmp = wr->wr.atomic.compare_add;
            r->swp = wr->wr.atomic.swap;
        } else {
            r->raddr = wr->wr.rdma.remote_addr;
            r->rkey = wr->wr.rdma.rkey;
        }
        if (r->flags & IBV_SEND_INLINE) {
            /* inline: the data is taken now, the buffer is the caller's again when post returns */
            uint64_t n = 0;
            for (int i = 0; i < r->nsge; i++) {
                n += r->sge[i].length;
            }
            r->inl = malloc(n ? n : 1);
            r->inl_len = (uint32_t) n;
            unsigned char *d = r->inl;
            for (int i = 0; i < r->nsge; i++) {
                memcpy(d, (void *) (uintptr_t) r->sge[i].addr, r->sge[i].length);
                d += r->sge[i].length;
            }
        }
    }
    progress(q);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int fake_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad) {
    struct fqp *q = (struct fqp *) ibqp;
    int rc = 0;
    pthread_mutex_lock(&lock);
    for (; wr; wr = wr->next) {
        if (q->rq_count == q->rq_cap) {
            *bad = wr;
            rc = ENOMEM;
            break;
        }
        if (q->error) {
            push(q->cq, wr->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, 0, q->qp.qp_num);
            continue;
        }
        struct rcv *r = &q->rq[(q->rq_head + q->rq_count++) % q->rq_cap];
        r->wr_id = wr->wr_id;
        r->nsge = wr->num_sge;
        if (wr->num_sge > 0) {
            r->sge = wr->sg_list[0];
        }
    }
    if (q->peer) {
        progress(q->peer); /* a send waiting for a receive may go now */
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int fake_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc) {
    struct fcq *c = (struct fcq *) ibcq;
    pthread_mutex_lock(&lock);
    int got = 0;
    while (got < n && c->count > 0) {
        wc[got++] = c->ring[c->head];
        c->head = (c->head + 1) % c->cap;
        c->count--;
    }
    pthread_mutex_unlock(&lock);
    return got;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only) {
    (void) cq;
    (void) solicited_only;
    return 0;
}

/* ------------------------------------------------------------------------------------------ objects */

struct ibv_context *fake_context(void) {
    struct ibv_context *c = calloc(1, sizeof *c);
    c->ops.post_send = fake_post_send;
    c->ops.post_recv = fake_post_recv;
    c->ops.poll_cq = fake_poll_cq;
    c->ops.req_notify_cq = fake_req_notify_cq;
    c->num_comp_vectors = 1;
    return c;
}

struct ibv_cq *fake_create_cq(struct ibv_context *ctx, int cqe) {
    struct fcq *c = calloc(1, sizeof *c);
    c->cq.context = ctx;
    c->cq.cqe = cqe;
    c->cap = cqe;
    c->ring = calloc((size_t) cqe, sizeof *c->ring);
    return &c->cq;
}

struct ibv_qp *fake_create_qp(struct ibv_context *ctx, struct ibv_cq *cq, int max_send, int max_recv) {
    struct fqp *q = calloc(1, sizeof *q);
    q->qp.context = ctx;
    q->qp.send_cq = cq;
    q->qp.recv_cq = cq;
    q->qp.qp_type = IBV_QPT_RC;
    pthread_mutex_lock(&lock);
    q->qp.qp_num = next_qpn++;
    pthread_mutex_unlock(&lock);
    q->cq = (struct fcq *) cq;
    q->sq_cap = max_send;
    q->sq = calloc((size_t) max_send, sizeof *q->sq);
    q->rq_cap = max_recv;
    q->rq = calloc((size_t) max_recv, sizeof *q->rq);
    return &q->qp;
}

void fake_connect(struct ibv_qp *a, struct ibv_qp *b) {
    pthread_mutex_lock(&lock);
    ((struct fqp *) a)->peer = (struct fqp *) b;
    ((struct fqp *) b)->peer = (struct fqp *) a;
    pthread_mutex_unlock(&lock);
}

/* What rdma_disconnect does to a connection: both queue pairs go to the error state. */
void fake_disconnect(struct ibv_qp *ibqp) {
    struct fqp *q = (struct fqp *) ibqp;
    pthread_mutex_lock(&lock);
    if (!q->error) {
        q->error = 1;
        flush_receives(q);
        progress(q);
    }
    struct fqp *p = q->peer;
    if (p && !p->error) {
        p->error = 1;
        flush_receives(p);
        progress(p);
    }
    pthread_mutex_unlock(&lock);
}

void fake_destroy_qp(struct ibv_qp *ibqp) {
    struct fqp *q = (struct fqp *) ibqp;
    pthread_mutex_lock(&lock);
    if (q->peer && q->peer->peer == q) {
        q->peer->peer = NULL;
    }
    for (int i = 0; i < q->sq_count; i++) {
        free(q->sq[(q->sq_head + i) % q->sq_cap].inl);
    }
    free(q->sq);
    free(q->rq);
    free(q);
    pthread_mutex_unlock(&lock);
}

void fake_destroy_cq(struct ibv_cq *cq) {
    struct fcq *c = (struct fcq *) cq;
    pthread_mutex_lock(&lock);
    free(c->ring);
    free(c);
    pthread_mutex_unlock(&lock);
}

/* How many requests q holds that have not executed (waiting for a receive): for tests. */
int fake_waiting(struct ibv_qp *ibqp) {
    pthread_mutex_lock(&lock);
    int n = ((struct fqp *) ibqp)->sq_count;
    pthread_mutex_unlock(&lock);
    return n;
}
