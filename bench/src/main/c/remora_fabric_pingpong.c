/*
 * remora_fabric_pingpong: the C floor for Remora's fabric transport.
 *
 * A tagged-message ping-pong over libfabric FI_EP_RDM, the same way Remora's fabric-jni library uses it
 * (fi_tinject up to inject_size, fi_tsend above, one completion queue per direction, FI_WAIT_FD wait object).
 * One invocation forks: the parent is the client, the child the echo server; they swap fabric addresses over a
 * socketpair, so the floor needs no network setup. Each side is pinned with sched_setaffinity when asked.
 *
 * Command line:
 *   remora_fabric_pingpong [-p PROVIDER] [-s SIZE[,SIZE...]] [-n ITERS] [-w WARMUP] [-m busy|block]
 *                          [-S SPIN_US] [-B BUSY_POLLS] [-c CLIENT_CPU] [-C SERVER_CPU] [-F] [-H]
 *     -p  libfabric provider, e.g. shm (default), "tcp;ofi_rxm"
 *     -s  message sizes in bytes (default 64,100000)
 *     -n  measured round trips per size (default 20000), -w warm-up round trips (default 2000)
 *     -m  busy: spin on fi_cq_read forever; block: BUSY_POLLS pure polls (default 50), then poll with sched_yield
 *         for SPIN_US (default 50), then sleep on
 *         the CQ fd (fi_trywait + poll) where the provider has one (tcp), else nanosleep with backoff (shm)
 *     -c / -C  CPU for the client / server process (default: not pinned, printed as -1)
 *     -F  fresh buffers: every message is received into the next buffer of a pool far larger than the last-level
 *         cache (PP_POOL_BYTES, written once before timing), and the echo server answers from the buffer it received
 *         into; the client sends from its one buffer. This is what an echo with Java's semantics does at best: each
 *         array received is a new object in memory not touched lately, and the server returns that object. Nothing
 *         is zeroed or copied, so no JVM can beat it. Reported as impl "c-fresh".
 *     -H  print the CSV header line first
 *
 * Output: one CSV line per size on stdout, header (with -H):
 *   impl,provider,mode,size,iters,client_cpu,server_cpu,median_us,p99_us,mb_per_s
 *   impl is "c" ("c-fresh" with -F); median_us and p99_us are round-trip times; mb_per_s = size / (median_us / 2),
 *   i.e. the bandwidth each way (10^6 bytes per second). Errors go to stderr, exit status 1 (2 for usage).
 *
 * Build: make -C bench/src/main/c   (see the Makefile there; needs libfabric-dev)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
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
#include <rdma/fi_tagged.h>

#define PP_MAX_SIZES 16
#define PP_CHECK(call)                                                                        \
    do {                                                                                       \
        int pp_rc_ = (int) (call);                                                             \
        if (pp_rc_ < 0) {                                                                      \
            fprintf(stderr, "remora_fabric_pingpong: %s failed: %s (%d)\n", #call,             \
                    fi_strerror(-pp_rc_), pp_rc_);                                             \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

struct pp_ctx {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *txcq, *rxcq;
    struct fid_ep *ep;
    int txfd, rxfd;
    fi_addr_t peer;
    char *buf_tx, *buf_rx;
    size_t inject_size;
};

/* -F: receive buffers cycle through a pool of this size (8 times this machine's 32 MiB L3, so always cold) */
#define PP_POOL_BYTES (256u << 20)
static int pp_fresh = 0;
static char *pp_pool;            /* -F: the pool, and how many max_size buffers it holds */
static size_t pp_pool_slots, pp_pool_next, pp_pool_stride;

static int pp_block = 0; /* 0 busy, 1 block (spin with sched_yield, then sleep) */
static long pp_spin_ns = 50000;
static unsigned pp_busy_polls = 50; /* block mode: pure polls before the sched_yield ones, as Remora's endpoint */

static uint64_t pp_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void pp_pin(int cpu) {
    if (cpu < 0) {
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        perror("remora_fabric_pingpong: sched_setaffinity");
        exit(1);
    }
}

static void pp_open(struct pp_ctx *c, const char *prov, size_t max_size) {
    struct fi_info *hints = fi_allocinfo();
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_TAGGED;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->fabric_attr->prov_name = strdup(prov);
    PP_CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &c->info));
    fi_freeinfo(hints);
    c->inject_size = c->info->tx_attr->inject_size;
    PP_CHECK(fi_fabric(c->info->fabric_attr, &c->fabric, NULL));
    PP_CHECK(fi_domain(c->fabric, c->info, &c->domain, NULL));
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    PP_CHECK(fi_av_open(c->domain, &av_attr, &c->av, NULL));
    /* shm has no CQ wait objects (-FI_ENOSYS): then the block mode sleeps with backoff instead of on an fd. */
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_TAGGED, .size = 128, .wait_obj = FI_WAIT_FD};
    c->txfd = c->rxfd = -1;
    if (fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL) == 0) {
        PP_CHECK(fi_cq_open(c->domain, &cq_attr, &c->rxcq, NULL));
        PP_CHECK(fi_control(&c->txcq->fid, FI_GETWAIT, &c->txfd));
        PP_CHECK(fi_control(&c->rxcq->fid, FI_GETWAIT, &c->rxfd));
    } else {
        cq_attr.wait_obj = FI_WAIT_NONE;
        PP_CHECK(fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL));
        PP_CHECK(fi_cq_open(c->domain, &cq_attr, &c->rxcq, NULL));
    }
    PP_CHECK(fi_endpoint(c->domain, c->info, &c->ep, NULL));
    PP_CHECK(fi_ep_bind(c->ep, &c->av->fid, 0));
    PP_CHECK(fi_ep_bind(c->ep, &c->txcq->fid, FI_TRANSMIT));
    PP_CHECK(fi_ep_bind(c->ep, &c->rxcq->fid, FI_RECV));
    PP_CHECK(fi_enable(c->ep));
    c->buf_tx = aligned_alloc(4096, (max_size + 4095) & ~(size_t) 4095);
    c->buf_rx = aligned_alloc(4096, (max_size + 4095) & ~(size_t) 4095);
    memset(c->buf_tx, 'r', max_size);
    memset(c->buf_rx, 0, max_size);
}

static void pp_close(struct pp_ctx *c) {
    fi_close(&c->ep->fid);
    fi_close(&c->rxcq->fid);
    fi_close(&c->txcq->fid);
    fi_close(&c->av->fid);
    fi_close(&c->domain->fid);
    fi_close(&c->fabric->fid);
    fi_freeinfo(c->info);
    free(c->buf_tx);
    free(c->buf_rx);
}

/* Swap addresses over the socketpair and insert the peer. */
static void pp_exchange(struct pp_ctx *c, int sock) {
    char addr[256], peer[256];
    size_t len = sizeof(addr);
    PP_CHECK(fi_getname(&c->ep->fid, addr, &len));
    uint32_t l32 = (uint32_t) len, p32;
    if (write(sock, &l32, 4) != 4 || write(sock, addr, len) != (ssize_t) len || read(sock, &p32, 4) != 4 ||
        p32 > sizeof(peer) || read(sock, peer, p32) != (ssize_t) p32) {
        fprintf(stderr, "remora_fabric_pingpong: address exchange failed\n");
        exit(1);
    }
    if (fi_av_insert(c->av, peer, 1, &c->peer, 0, NULL) != 1) {
        fprintf(stderr, "remora_fabric_pingpong: fi_av_insert failed\n");
        exit(1);
    }
}

/*
 * Wait for one completion: busy poll; or (block) pp_busy_polls pure polls, then poll with sched_yield for pp_spin_ns,
 * so that a peer sharing this CPU gets to run, then sleep: on the CQ's fd where the provider has one, else nanosleep with doubling backoff
 * (1 us .. 1 ms).
 */
static void pp_wait(struct pp_ctx *c, struct fid_cq *cq, int fd) {
    struct fi_cq_tagged_entry e;
    uint64_t deadline = 0;
    long nap = 1000;
    unsigned n = 0, polls = 0;
    for (;;) {
        ssize_t rc = fi_cq_read(cq, &e, 1);
        if (rc == 1) {
            return;
        }
        if (rc != -FI_EAGAIN) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            fprintf(stderr, "remora_fabric_pingpong: fi_cq_read failed: %s (%s)\n", fi_strerror((int) -rc),
                    fi_strerror(err.err));
            exit(1);
        }
        if (!pp_block || ++polls <= pp_busy_polls) {
            continue;
        }
        sched_yield();
        if ((++n & 15) != 0) {
            continue;
        }
        uint64_t now = pp_now_ns();
        if (deadline == 0) {
            deadline = now + (uint64_t) pp_spin_ns;
        } else if (now >= deadline) {
            if (fd >= 0) {
                struct fid *fids[1] = {&cq->fid};
                if (fi_trywait(c->fabric, fids, 1) == FI_SUCCESS) {
                    struct pollfd p = {.fd = fd, .events = POLLIN};
                    poll(&p, 1, 1000);
                }
            } else {
                struct timespec ts = {0, nap};
                nanosleep(&ts, NULL);
                nap = nap < 1000000 ? nap * 2 : nap;
            }
        }
    }
}

static void pp_send(struct pp_ctx *c, const char *buf, size_t size) {
    for (;;) {
        ssize_t rc = size <= c->inject_size ? fi_tinject(c->ep, buf, size, c->peer, 1)
                                            : fi_tsend(c->ep, buf, size, NULL, c->peer, 1, NULL);
        if (rc == 0) {
            break;
        }
        if (rc != -FI_EAGAIN) {
            PP_CHECK(rc);
        }
        struct fi_cq_tagged_entry e;
        fi_cq_read(c->txcq, &e, 0);
    }
    if (size > c->inject_size) {
        pp_wait(c, c->txcq, c->txfd);
    }
}

/* The buffer the next message goes into: the fixed one, or with -F the next of the pool. */
static char *pp_rx_buffer(struct pp_ctx *c) {
    return pp_fresh ? pp_pool + (pp_pool_next++ % pp_pool_slots) * pp_pool_stride : c->buf_rx;
}

static void pp_post_recv(struct pp_ctx *c, char *buf, size_t size) {
    PP_CHECK(fi_trecv(c->ep, buf, size, NULL, FI_ADDR_UNSPEC, 1, 0, NULL));
}

/* -F: write the pool once, so that the timed run sees cold memory, not first-touch page faults. */
static void pp_touch_pool(void) {
    if (pp_fresh) {
        memset(pp_pool, 'f', pp_pool_slots * pp_pool_stride);
    }
}

static int pp_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *prov = "shm";
    size_t sizes[PP_MAX_SIZES] = {64, 100000};
    int nsizes = 2, iters = 20000, warmup = 2000, ccpu = -1, scpu = -1, header = 0, opt;
    while ((opt = getopt(argc, argv, "p:s:n:w:m:S:B:c:C:FH")) != -1) {
        switch (opt) {
        case 'p': prov = optarg; break;
        case 's': {
            nsizes = 0;
            for (char *t = strtok(optarg, ","); t != NULL && nsizes < PP_MAX_SIZES; t = strtok(NULL, ",")) {
                sizes[nsizes++] = strtoull(t, NULL, 10);
            }
            break;
        }
        case 'n': iters = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 'm': pp_block = strcmp(optarg, "block") == 0; break;
        case 'S': pp_spin_ns = atol(optarg) * 1000L; break;
        case 'B': pp_busy_polls = (unsigned) atoi(optarg); break;
        case 'c': ccpu = atoi(optarg); break;
        case 'C': scpu = atoi(optarg); break;
        case 'F': pp_fresh = 1; break;
        case 'H': header = 1; break;
        default:
            fprintf(stderr, "usage: %s [-p provider] [-s size,...] [-n iters] [-w warmup] [-m busy|block] "
                            "[-S spin_us] [-B busy_polls] [-c client_cpu] [-C server_cpu] [-F] [-H]\n", argv[0]);
            return 2;
        }
    }
    if (iters <= 0 || nsizes == 0) {
        fprintf(stderr, "remora_fabric_pingpong: need -n > 0 and at least one size\n");
        return 2;
    }
    size_t max_size = 1;
    for (int i = 0; i < nsizes; i++) {
        max_size = sizes[i] > max_size ? sizes[i] : max_size;
    }
    if (pp_fresh) { /* before the fork: each process gets its own copy of the (touched) pool */
        pp_pool_stride = (max_size + 4095) & ~(size_t) 4095;
        pp_pool_slots = PP_POOL_BYTES / pp_pool_stride > 2 ? PP_POOL_BYTES / pp_pool_stride : 2;
        pp_pool = aligned_alloc(4096, pp_pool_slots * pp_pool_stride);
        if (pp_pool == NULL) {
            fprintf(stderr, "remora_fabric_pingpong: no memory for the -F pool\n");
            return 1;
        }
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("remora_fabric_pingpong: socketpair");
        return 1;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("remora_fabric_pingpong: fork");
        return 1;
    }
    struct pp_ctx c = {0};
    if (child == 0) { /* echo server: receive a message, send it back, for every round trip of every size */
        pp_pin(scpu);
        pp_open(&c, prov, max_size);
        pp_exchange(&c, sv[1]);
        pp_touch_pool();
        for (int s = 0; s < nsizes; s++) {
            for (int i = 0; i < warmup + iters; i++) {
                char *rx = pp_rx_buffer(&c);
                pp_post_recv(&c, rx, sizes[s]);
                pp_wait(&c, c.rxcq, c.rxfd);
                pp_send(&c, pp_fresh ? rx : c.buf_tx, sizes[s]);
            }
        }
        char done;
        if (read(sv[1], &done, 1) != 1) { /* client's "finished" byte: keep the endpoint alive until then */
            done = 0;
        }
        pp_close(&c);
        _exit(0);
    }
    pp_pin(ccpu);
    pp_open(&c, prov, max_size);
    pp_exchange(&c, sv[0]);
    pp_touch_pool();
    uint64_t *rtt = malloc(sizeof(uint64_t) * (size_t) iters);
    if (header) {
        printf("impl,provider,mode,size,iters,client_cpu,server_cpu,median_us,p99_us,mb_per_s\n");
    }
    for (int s = 0; s < nsizes; s++) {
        for (int i = 0; i < warmup + iters; i++) {
            uint64_t t0 = pp_now_ns();
            pp_post_recv(&c, pp_rx_buffer(&c), sizes[s]);
            pp_send(&c, c.buf_tx, sizes[s]);
            pp_wait(&c, c.rxcq, c.rxfd);
            if (i >= warmup) {
                rtt[i - warmup] = pp_now_ns() - t0;
            }
        }
        qsort(rtt, (size_t) iters, sizeof(uint64_t), pp_cmp);
        double med = rtt[iters / 2] / 1000.0, p99 = rtt[(size_t) ((iters - 1) * 0.99)] / 1000.0;
        printf("%s,%s,%s,%zu,%d,%d,%d,%.3f,%.3f,%.1f\n", pp_fresh ? "c-fresh" : "c", prov,
               pp_block ? "block" : "busy", sizes[s], iters, ccpu, scpu, med, p99, sizes[s] / (med / 2.0));
        fflush(stdout);
    }
    if (write(sv[0], "x", 1) != 1) {
        perror("remora_fabric_pingpong: write");
    }
    int status = 0;
    waitpid(child, &status, 0);
    free(rtt);
    free(pp_pool);
    pp_close(&c);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
