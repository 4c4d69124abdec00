/*
 * A plain libfabric program, not Rivulet: exposes a registered buffer for RMA and prints what a peer needs
 * (endpoint name, RMA address, length, key), then keeps driving progress (tcp;ofi_rxm needs the target to read its
 * CQ) while it answers commands on stdin:
 *   dump    prints the buffer as hex on one line
 *   quit    exits (so does EOF)
 * Usage: rma_peer PROVIDER SIZE
 */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call) do { int _rc = (int)(call); if (_rc) { \
    fprintf(stderr, "%s failed: %d (%s)\n", #call, _rc, fi_strerror(-_rc)); exit(1); } } while (0)

int main(int argc, char **argv) {
    const char *prov = argc > 1 ? argv[1] : "tcp";
    size_t size = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
    struct fi_info *hints = fi_allocinfo(), *info;
    struct fid_fabric *fabric; struct fid_domain *domain; struct fid_ep *ep;
    struct fid_av *av; struct fid_cq *cq; struct fid_mr *mr;
    hints->caps = FI_MSG | FI_RMA | FI_REMOTE_READ | FI_REMOTE_WRITE;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(prov);
    CHECK(fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, hints, &info));
    CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
    CHECK(fi_domain(fabric, info, &domain, NULL));
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    CHECK(fi_av_open(domain, &av_attr, &av, NULL));
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .size = 64, .wait_obj = FI_WAIT_NONE };
    CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
    CHECK(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_enable(ep));

    unsigned char *buf = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    for (size_t i = 0; i < size; i++) buf[i] = (unsigned char)(i * 7 + 3);
    CHECK(fi_mr_reg(domain, buf, size, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, 0, 0x5eed, 0, &mr,
                    NULL));
    uint64_t key = fi_mr_key(mr);
    uint64_t addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;

    unsigned char name[256]; size_t len = sizeof name;
    CHECK(fi_getname(&ep->fid, name, &len));
    printf("NAME ");
    for (size_t i = 0; i < len; i++) printf("%02x", name[i]);
    printf("\nADDR %llu\nLEN %zu\nKEY %llu\nREADY\n", (unsigned long long)addr, size, (unsigned long long)key);
    fflush(stdout);

    char line[64];
    struct fi_cq_data_entry e[8];
    for (;;) {
        fi_cq_read(cq, e, 8); /* drives progress for the RMA that peers run against us */
        struct pollfd p = { .fd = 0, .events = POLLIN };
        if (poll(&p, 1, 0) > 0) {
            if (!fgets(line, sizeof line, stdin) || !strncmp(line, "quit", 4)) break;
            if (!strncmp(line, "dump", 4)) {
                for (size_t i = 0; i < size; i++) printf("%02x", buf[i]);
                printf("\n");
                fflush(stdout);
            }
        } else {
            usleep(50);
        }
    }
    fi_close(&mr->fid); fi_close(&ep->fid); fi_close(&cq->fid); fi_close(&av->fid);
    fi_close(&domain->fid); fi_close(&fabric->fid);
    fi_freeinfo(info); fi_freeinfo(hints); free(buf);
    return 0;
}
