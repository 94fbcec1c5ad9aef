/*
 * remora_fabric.c: the endpoint core (see remora_fabric.h for the wire format and the threading rules).
 *
 * Waiting: a completion is awaited by polling the CQ busy_polls times, then for up to spin_ns calling sched_yield
 * between polls so that a peer sharing this CPU runs (two pure busy-pollers on one vCPU collapse to milliseconds per message), then sleeping:
 * on the CQ's fd where the provider offers FI_WAIT_FD (tcp;ofi_rxm), else with nanosleep doubling up to
 * max_sleep_ns (shm has no CQ wait objects in libfabric 1.17). An eventfd lets rf_wakeup cut a sleep short. Naps
 * would cost an idle receiver CPU forever (about 1.5 % of a CPU per endpoint), so once the caller's peer has promised
 * to ring before its next message (rf_sleep_deeply), a receiver that has spun and napped sleeps on that eventfd
 * until rf_bell: the caller carries the promise and the bell over its own side channel (Remora: the link's TCP
 * connection), because shm has none.
 *
 * Errors: every failure writes "fi_call: fi_strerror text (code)" into the caller's buffer and returns RF_ERROR;
 * nothing here aborts or prints.
 */
#define _GNU_SOURCE
#include "remora_fabric.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <limits.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/*
 * libfabric is opened with dlopen, not linked: Debian's libfabric.so.1 pulls in libinfinipath and libpsm2, whose
 * constructors install SIGSEGV/SIGBUS "backtrace" handlers. The JVM takes SIGSEGV on purpose (implicit null checks,
 * safepoint polls), so with those handlers in place the first NullPointerException in compiled code killed the
 * JVM ("java:PID terminated with signal 11"). rf_init sets IPATH_NO_BACKTRACE / HFI_NO_BACKTRACE (unless the user
 * set them), opens libfabric, and puts back every signal handler that changed meanwhile; rf_open and rf_providers
 * do the same around provider initialisation.
 */
static struct {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    uint32_t (*version)(void);
    const char *(*strerror)(int);
} rf_fi;

#define fi_getinfo (*rf_fi.getinfo)
#define fi_freeinfo (*rf_fi.freeinfo)
#define fi_fabric (*rf_fi.fabric)
#define fi_version (*rf_fi.version)
#define fi_strerror (*rf_fi.strerror)

typedef struct rf_sigsave {
    struct sigaction act[NSIG];
} rf_sigsave;

static void rf_signals_save(rf_sigsave *save) {
    for (int sig = 1; sig < NSIG; sig++) {
        if (sigaction(sig, NULL, &save->act[sig]) != 0) {
            save->act[sig].sa_handler = SIG_ERR;
        }
    }
}

static void rf_signals_restore(const rf_sigsave *save) {
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        if (save->act[sig].sa_handler != SIG_ERR && sigaction(sig, NULL, &now) == 0 &&
            (now.sa_handler != save->act[sig].sa_handler || now.sa_flags != save->act[sig].sa_flags)) {
            sigaction(sig, &save->act[sig], NULL);
        }
    }
}

int rf_init(char *err) {
    static volatile int done;
    static char failure[RF_ERR_LEN];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int rc = RF_OK;
    pthread_mutex_lock(&lock);
    if (done) {
        rc = failure[0] ? RF_ERROR : RF_OK;
        goto done;
    }
    rf_sigsave *save = malloc(sizeof(*save));
    if (save == NULL) {
        snprintf(failure, sizeof(failure), "rf_init: out of memory");
        rc = RF_ERROR;
        done = 1;
        goto done;
    }
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);
    rf_signals_save(save);
    void *lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_GLOBAL);
    rf_signals_restore(save);
    free(save);
    if (lib == NULL) {
        const char *why = dlerror();
        snprintf(failure, sizeof(failure), "dlopen(libfabric.so.1): %s", why ? why : "unknown error");
        rc = RF_ERROR;
        done = 1;
        goto done;
    }
    *(void **) &rf_fi.getinfo = dlsym(lib, "fi_getinfo");
    *(void **) &rf_fi.freeinfo = dlsym(lib, "fi_freeinfo");
    *(void **) &rf_fi.dupinfo = dlsym(lib, "fi_dupinfo");
    *(void **) &rf_fi.fabric = dlsym(lib, "fi_fabric");
    *(void **) &rf_fi.version = dlsym(lib, "fi_version");
    *(void **) &rf_fi.strerror = dlsym(lib, "fi_strerror");
    if (!rf_fi.getinfo || !rf_fi.freeinfo || !rf_fi.dupinfo || !rf_fi.fabric || !rf_fi.version || !rf_fi.strerror) {
        snprintf(failure, sizeof(failure), "dlsym: libfabric.so.1 lacks fi_getinfo/fi_fabric/...: not libfabric 1.x");
        rc = RF_ERROR;
    } else if (FI_MAJOR(rf_fi.version()) != 1 || FI_MINOR(rf_fi.version()) < 17) {
        snprintf(failure, sizeof(failure), "libfabric %u.%u is too old: Remora needs 1.17 or later",
                 FI_MAJOR(rf_fi.version()), FI_MINOR(rf_fi.version()));
        rc = RF_ERROR;
    }
    done = 1;
done:
    if (rc != RF_OK && err != NULL) {
        snprintf(err, RF_ERR_LEN, "%s", failure);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/*
 * Tags and CQ data. Eager messages and large-message announcements all carry tag RF_TAG_EAGER, and the slots'
 * receives match it exactly (ignore mask 0): libfabric 1.17's shm provider drops an *unexpected* tagged message whose
 * tag differs from the matching receive's tag in ignored bits (it is delivered fine when the receive was posted
 * first), so several messages in flight lost all but the first few. The sender's stamp and the large flag travel
 * instead as 4 bytes of remote CQ data (FI_REMOTE_CQ_DATA; efa offers 4, shm and rxm 8). Segments of a large
 * message carry RF_TAG_CONT | stamp and are received by exact tag as well.
 */
#define RF_TAG_EAGER 0ull
#define RF_TAG_CONT (1ull << 63)
#define RF_DATA_LARGE (1u << 31)
#define RF_DATA_SHARED (1u << 30)      /* a descriptor of a message in the sender's shared ring (rf_shared_create) */
#define RF_STAMP_MASK 0x3fffffffu
#define RF_MAX_SEG (64ull * 1024 * 1024)
#define RF_MAX_SEGS 80
#define RF_CQ_BATCH 8
#define RF_SELF_PEERS 4 /* peers of this process an endpoint remembers (rf_close) */
#define RF_BEHIND_DRAIN_NS 200000000ll /* how long rf_close and rf_set_send_ring wait for sends left behind */
#define RF_ADDR_MAX 256

typedef struct rf_slot {
    struct fi_context ctx;
    char *buf;
    size_t len;
    uint64_t data;                   /* the remote CQ data: the sender's stamp, RF_DATA_LARGE for an announcement */
    int posted;
    int done;
} rf_slot;

typedef struct rf_peer_entry {
    uint32_t stamp;
    int used;
    int64_t peer;
} rf_peer_entry;

/* How long one kind of wait (for a message, for a send's completion) has lately lasted: see rf_spin_budget. */
typedef struct rf_adapt {
    int64_t typical;                 /* moving average (1/8) of recent waits; one past spin_max_ns counts as 0 */
} rf_adapt;

struct rf_ep {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *txcq;
    struct fid_cq *rxcq;
    struct fid_ep *ep;
    int txfd;                        /* CQ wait fds, -1 without FI_WAIT_FD */
    int rxfd;
    int wakefd;                      /* eventfd written by rf_wakeup and rf_bell */
    volatile int closing;
    volatile int deep;               /* rf_sleep_deeply: the receiver may sleep on wakefd until rf_bell */
    int broken;                      /* after a failed send or a receive error: every call fails with broken_msg */
    char broken_msg[RF_ERR_LEN];
    rf_wait_policy wait;
    rf_adapt rx_adapt;               /* waits for a message */
    rf_adapt tx_adapt;               /* waits for a send's completion (the peer taking the message) */
    size_t inject_size;
    size_t seg_size;
    int cma;                         /* the provider moves large messages with the kernel's CMA copy (shm) */
    char addr[RF_ADDR_MAX];
    size_t addrlen;
    uint32_t stamp;
    /* receive side */
    rf_slot slots[2];
    int head;                        /* slot that receives the next message */
    int returned;                    /* slot handed to the caller by the last rf_recv, reposted by the next */
    char *large;
    size_t large_cap;
    int64_t large_gen;
    int large_pending;               /* continuation segments still to complete; -1: no large message under way */
    int64_t large_len;
    int64_t large_source;
    uint32_t large_stamp;
    struct fi_context cont_ctx[RF_MAX_SEGS];
    /* send side */
    struct fi_context tx_ctx[RF_MAX_SEGS + 1]; /* segments; the last one for a non-injected announcement */
    uint64_t send_hdr;
    char *staging;
    size_t staging_cap;
    char *ring;                      /* rf_staging's send ring for messages the peer's CMA reads; made on first use */
    size_t ring_cap;                 /* rf_set_send_ring; 0: no ring */
    size_t ring_pos;
    struct fi_context behind_ctx[RF_BEHIND_MAX]; /* sends left to complete behind the caller; bit i of behind_busy */
    uint32_t behind_busy;
    int behind;                      /* how many of them are still in flight */
    char self_peers[RF_SELF_PEERS][RF_ADDR_MAX]; /* region names of the first peers inserted that are this process's */
    int self_peer_count;
    int tx_unsettled;                /* a send's wait ended (closed, timeout, error) before its completion */
    /* shared rings (shm; see rf_shared_create): this endpoint's, which the peer maps and reads, and the peer's */
    char *sh_tx;                     /* mapping: header page, then sh_tx_cap bytes of ring; NULL: none */
    size_t sh_tx_cap;
    uint64_t sh_tx_head;             /* ring bytes handed out so far (a gap skipped at the ring's end included) */
    uint64_t sh_tx_last;             /* where the region rf_staging handed out last starts (same count) */
    int sh_tx_on;                    /* the peer mapped it: rf_staging hands out its regions */
    char sh_name[64];                /* its name in /dev/shm until unlinked, else "" */
    char *sh_rx;                     /* the peer's ring, mapped; NULL: none */
    size_t sh_rx_cap;
    uint64_t sh_rx_next;             /* no descriptor may start below this: the end of the last one */
    uint64_t sh_rx_release;          /* what to publish as read at the next rf_recv; 0: nothing */
    /* stamp -> peer handle, open addressing */
    rf_peer_entry *peers;
    size_t peers_cap;
    size_t peers_used;
    uint64_t rx_yields;              /* sched_yield calls of receives (the receiving thread's; rf_msg.yields) */
    uint64_t rx_quiet_until;         /* no yield in a receive that does not spin before then (rf_idle) */
    int64_t rx_quiet_ns;             /* the last such quiet stretch: doubles while yields keep losing the CPU */
    unsigned rx_lost_run;            /* receive yields in a row that lost the CPU (RF_LOST_CPU_NS) */
};

typedef struct rf_waiter {
    uint64_t start;
    int64_t nap;
    unsigned polls;
    int deep;                        /* the CQ was polled once more since deep sleep was allowed */
    rf_adapt *adapt;                 /* the kind of wait, for an adaptive spin budget; NULL: spin_ns */
    int64_t budget;                  /* this wait's spin budget, fixed when its clock starts */
    int lost_cpu;                    /* a yield lost the CPU (RF_LOST_CPU_NS): the spin ended (message waits only) */
    int armed;                       /* rf_rx_block raised the ring's sleep flag and the CQ was polled once more */
} rf_waiter;

static int rf_rx_blocks(const rf_ep *ep);
static void rf_rx_block(rf_ep *ep, rf_waiter *w, uint64_t left);
static void rf_wake_peer(rf_ep *ep);

/* ---------------------------------------------------------------- copies (see rf_copy in remora_fabric.h) */

#if defined(__x86_64__)
/* After the destination is 64-byte aligned: 128 bytes a step, unaligned loads, aligned stores. */
__attribute__((target("avx2"))) static void rf_copy_avx2(char *d, const char *s, size_t n) {
    for (; n >= 128; d += 128, s += 128, n -= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *) s), b = _mm256_loadu_si256((const __m256i *) (s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *) (s + 64)), e = _mm256_loadu_si256((const __m256i *) (s + 96));
        _mm256_store_si256((__m256i *) d, a);
        _mm256_store_si256((__m256i *) (d + 32), b);
        _mm256_store_si256((__m256i *) (d + 64), c);
        _mm256_store_si256((__m256i *) (d + 96), e);
    }
    memcpy(d, s, n);
}

static void rf_copy_sse2(char *d, const char *s, size_t n) {
    for (; n >= 64; d += 64, s += 64, n -= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *) s), b = _mm_loadu_si128((const __m128i *) (s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *) (s + 32)), e = _mm_loadu_si128((const __m128i *) (s + 48));
        _mm_store_si128((__m128i *) d, a);
        _mm_store_si128((__m128i *) (d + 16), b);
        _mm_store_si128((__m128i *) (d + 32), c);
        _mm_store_si128((__m128i *) (d + 48), e);
    }
    memcpy(d, s, n);
}
#endif

void rf_copy(void *dst, const void *src, size_t n) {
#if defined(__x86_64__)
    static int avx2 = -1; /* racy first use is harmless: every thread computes the same answer */
    if (n >= RF_COPY_MIN) {
        char *d = dst;
        const char *s = src;
        size_t head = (64 - ((uintptr_t) d & 63)) & 63;
        memcpy(d, s, head);
        if (avx2 < 0) {
            __builtin_cpu_init();
            avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        }
        if (avx2) {
            rf_copy_avx2(d + head, s + head, n - head);
        } else {
            rf_copy_sse2(d + head, s + head, n - head);
        }
        return;
    }
#endif
    memcpy(dst, src, n);
}

/* len rounded up to whole 4096-byte pages. */
static size_t rf_pages(size_t len) {
    return (len + 4095) & ~(size_t) 4095;
}

/* Page-aligned memory of at least len bytes: staging and receive buffers are congruent modulo 64 (see rf_copy). */
static void *rf_alloc_aligned(size_t len) {
    return aligned_alloc(4096, rf_pages(len));
}

static void rf_fail(char *err, const char *call, int rc) {
    if (rc < 0) {
        rc = -rc;
    }
    snprintf(err, RF_ERR_LEN, "%s: %s (%d)", call, fi_strerror(rc), -rc);
}

static void rf_failf(char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, RF_ERR_LEN, fmt, ap);
    va_end(ap);
}

static uint64_t rf_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static uint32_t rf_hash(const void *data, size_t len) {
    const unsigned char *p = data;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h == 0 ? 1 : h;
}

const char *rf_libfabric_version(void) {
    static char version[32];
    if (rf_init(NULL) != RF_OK) {
        return "none";
    }
    uint32_t v = fi_version();
    snprintf(version, sizeof(version), "%u.%u", FI_MAJOR(v), FI_MINOR(v));
    return version;
}

static struct fi_info *rf_hints(const char *provider) {
    struct fi_info *hints = rf_fi.dupinfo(NULL);
    if (hints == NULL) {
        return NULL;
    }
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_TAGGED;
    hints->mode = FI_CONTEXT;
    /* No FI_MR_LOCAL: providers that need every buffer registered (raw verbs) are skipped; rxm and efa register. */
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->cq_data_size = 4; /* the stamp and the large flag, see RF_TAG_EAGER */
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    if (provider != NULL) {
        hints->fabric_attr->prov_name = strdup(provider);
        if (hints->fabric_attr->prov_name == NULL) {
            fi_freeinfo(hints);
            return NULL;
        }
    }
    return hints;
}

/*
 * One rf_open (or rf_providers) at a time in a process: each saves the process's signal handlers, lets the provider
 * install its own (shm's, for SIGSEGV, SIGBUS, SIGINT, SIGTERM...) and puts the saved ones back. Two at once could
 * interleave so that one saved the other's provider handlers as "the JVM's" and restored those: the JVM's SIGSEGV
 * handler (implicit null checks, safepoints) replaced for good. Opens are rare (one per connection): the lock costs
 * nothing.
 */
static pthread_mutex_t rf_open_lock = PTHREAD_MUTEX_INITIALIZER;

int rf_providers(char *buf, size_t buflen, char *err) {
    if (rf_init(err) != RF_OK) {
        return RF_ERROR;
    }
    struct fi_info *hints = rf_hints(NULL), *list = NULL;
    int rc = RF_ERROR;
    size_t used = 0;
    if (hints == NULL) {
        rf_failf(err, "fi_allocinfo: out of memory");
        return RF_ERROR;
    }
    rf_sigsave *save = malloc(sizeof(*save));
    pthread_mutex_lock(&rf_open_lock);
    if (save != NULL) {
        rf_signals_save(save);
    }
    int frc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &list);
    if (frc == -FI_ENODATA) {
        buf[0] = '\0';
        rc = RF_OK;
        goto done;
    }
    if (frc != 0) {
        rf_fail(err, "fi_getinfo", frc);
        goto done;
    }
    buf[0] = '\0';
    for (struct fi_info *i = list; i != NULL; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        size_t n = strlen(name);
        int seen = 0;
        for (const char *p = buf; (p = strstr(p, name)) != NULL; p += n) {
            if ((p == buf || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0')) {
                seen = 1;
                break;
            }
        }
        if (seen || used + n + 2 > buflen) {
            continue;
        }
        memcpy(buf + used, name, n);
        used += n;
        buf[used++] = '\n';
        buf[used] = '\0';
    }
    rc = RF_OK;
done:
    fi_freeinfo(list);
    fi_freeinfo(hints);
    if (save != NULL) {
        rf_signals_restore(save);
        free(save);
    }
    pthread_mutex_unlock(&rf_open_lock);
    return rc;
}

static int rf_open_cq(rf_ep *ep, struct fid_cq **cq, int *fd, char *err) {
    struct fi_cq_attr attr = {.format = FI_CQ_FORMAT_TAGGED, .size = 256, .wait_obj = FI_WAIT_FD};
    int rc = fi_cq_open(ep->domain, &attr, cq, NULL);
    if (rc == 0) {
        rc = fi_control(&(*cq)->fid, FI_GETWAIT, fd);
        if (rc == 0) {
            return RF_OK;
        }
        fi_close(&(*cq)->fid);
        *cq = NULL;
    }
    /* shm: CQ wait objects not supported, fall back to polling with sleeps */
    attr.wait_obj = FI_WAIT_NONE;
    *fd = -1;
    rc = fi_cq_open(ep->domain, &attr, cq, NULL);
    if (rc != 0) {
        *cq = NULL;
        rf_fail(err, "fi_cq_open", rc);
        return RF_ERROR;
    }
    return RF_OK;
}

static int rf_post_slot(rf_ep *ep, int i, char *err) {
    rf_slot *s = &ep->slots[i];
    for (;;) {
        ssize_t rc = fi_trecv(ep->ep, s->buf, RF_EAGER, NULL, FI_ADDR_UNSPEC, RF_TAG_EAGER, 0, &s->ctx);
        if (rc == 0) {
            s->posted = 1;
            s->done = 0;
            return RF_OK;
        }
        if (rc != -FI_EAGAIN) {
            rf_fail(err, "fi_trecv", (int) rc);
            return RF_ERROR;
        }
        struct fi_cq_tagged_entry e;
        (void) fi_cq_read(ep->rxcq, &e, 0); /* progress; the receive queue holds at most 2 + RF_MAX_SEGS */
    }
}

/*
 * shm regions of this process's open endpoints, unlinked at exit. The shm provider removes its region file in
 * /dev/shm when an endpoint is closed, but a JVM that exits with endpoints open (System.exit, the end of main,
 * SIGTERM) skips that, and every such exit left 16 MB of tmpfs, that is RAM, behind for good. Unlinking at exit is safe
 * while other threads still use the endpoint: mappings outlive the name, and the process is ending. SIGKILL still
 * leaves the file; rf_open steps over such names (RF_BUSY_RETRIES).
 */
#define RF_REGIONS_MAX 256
static pthread_mutex_t rf_regions_lock = PTHREAD_MUTEX_INITIALIZER;
static char rf_regions[RF_REGIONS_MAX][RF_ADDR_MAX];
static int rf_regions_hooked;

static void rf_unlink_regions(void) {
    pthread_mutex_lock(&rf_regions_lock);
    for (int i = 0; i < RF_REGIONS_MAX; i++) {
        if (rf_regions[i][0] != '\0') {
            shm_unlink(rf_regions[i]);
            rf_regions[i][0] = '\0';
        }
    }
    pthread_mutex_unlock(&rf_regions_lock);
}

/* The shm region name in an shm address ("fi_shm://<pid>:<uid>:<n>"), or NULL for other providers' addresses. */
static const char *rf_region_name(const char *addr, size_t len) {
    if (len < 10 || len >= RF_ADDR_MAX || memchr(addr, '\0', len) == NULL || strncmp(addr, "fi_shm://", 9) != 0) {
        return NULL;
    }
    const char *name = addr + 9;
    return *name == '\0' || strchr(name, '/') != NULL ? NULL : name;
}

/* Whether name is the region of one of this process's open endpoints. */
static int rf_region_open_here(const char *name) {
    int found = 0;
    pthread_mutex_lock(&rf_regions_lock);
    for (int i = 0; i < RF_REGIONS_MAX && !found; i++) {
        found = strcmp(rf_regions[i], name) == 0;
    }
    pthread_mutex_unlock(&rf_regions_lock);
    return found;
}

/*
 * Whether a peer of this process that ep inserted has closed its endpoint. libfabric 1.17's shm keeps one mapping of
 * a peer's region per process, gone with that endpoint, and polling ep's completions then crashed in it (SIGSEGV in
 * pthread_spin_trylock, 4 closes in 6): rf_close does not drain then, the sends stay unsettled, their buffers kept.
 */
static int rf_self_peer_gone(const rf_ep *ep) {
    for (int i = 0; i < ep->self_peer_count; i++) {
        if (!rf_region_open_here(ep->self_peers[i])) {
            return 1;
        }
    }
    return 0;
}

/* Adds name to (or removes it from) the /dev/shm files unlinked at exit. */
static void rf_name_track(const char *name, int add) {
    pthread_mutex_lock(&rf_regions_lock);
    if (add && !rf_regions_hooked) {
        rf_regions_hooked = atexit(rf_unlink_regions) == 0;
    }
    for (int i = 0; i < RF_REGIONS_MAX; i++) {
        if (add && rf_regions[i][0] == '\0') {
            snprintf(rf_regions[i], RF_ADDR_MAX, "%s", name);
            break;
        }
        if (!add && strcmp(rf_regions[i], name) == 0) {
            rf_regions[i][0] = '\0';
            break;
        }
    }
    pthread_mutex_unlock(&rf_regions_lock);
}

static void rf_region_track(const rf_ep *ep, int add) {
    const char *name = rf_region_name(ep->addr, ep->addrlen);
    if (name != NULL) {
        rf_name_track(name, add);
    }
}

static int rf_open_guarded(const char *provider, rf_ep **out, char *err, int *busy, const rf_sigsave *save);

/*
 * Endpoints rf_open tries when fi_enable answers EBUSY. The shm provider names its region "<pid>:<uid>:<n>" in
 * /dev/shm, n counting this process's endpoints; a process with the same PID that was killed (SIGKILL skips the
 * provider's cleanup) leaves such files behind, and fi_enable then refuses the name. The next endpoint gets the next
 * n, and a killed process had only a few.
 */
#define RF_BUSY_RETRIES 32

/*
 * Endpoints rf_open makes again when the new one's region file is already gone from /dev/shm. libfabric 1.17's shm
 * provider installs its own SIGSEGV handler in the process's first fi_endpoint (a C probe: the handler changes
 * there, not in fi_getinfo, fi_fabric or fi_domain, and a second fi_endpoint leaves it alone); that handler unlinks
 * every region of the process, then re-raises. The JVM raises SIGSEGV on purpose (safepoint polls, implicit null
 * checks), so while it was installed, until rf_open restored the JVM's at its end, another thread's SIGSEGV removed
 * the name of the region fi_enable had just made: the peer's first send could not map it and either waited out the
 * send timeout with EAGAIN or crashed in libfabric (3 of 45 runs of an application whose connections all moved to
 * fabric). rf_open_guarded now restores the JVM's handlers right after fi_endpoint, before the region exists; this
 * check stays as a safety net.
 */
#define RF_GONE_RETRIES 3

/* Whether the shm region an address names is missing from /dev/shm; false for other providers' addresses. */
static int rf_region_gone(const char *addr, size_t len) {
    const char *name = rf_region_name(addr, len);
    char path[RF_ADDR_MAX + 16];
    if (name == NULL) {
        return 0;
    }
    snprintf(path, sizeof(path), "/dev/shm/%s", name);
    return access(path, F_OK) != 0 && errno == ENOENT;
}

int rf_open(const char *provider, rf_ep **out, char *err) {
    *out = NULL;
    if (rf_init(err) != RF_OK) {
        return RF_ERROR;
    }
    rf_sigsave *save = malloc(sizeof(*save));
    if (save == NULL) {
        rf_failf(err, "rf_open: out of memory");
        return RF_ERROR;
    }
    pthread_mutex_lock(&rf_open_lock);
    int busy = 0, rc = RF_ERROR;
    for (int gone = 0; gone < RF_GONE_RETRIES; gone++) {
        rf_signals_save(save);
        for (int attempt = 0; attempt < RF_BUSY_RETRIES; attempt++) {
            busy = 0;
            rc = rf_open_guarded(provider, out, err, &busy, save);
            if (!busy) {
                break;
            }
        }
        rf_signals_restore(save);
        if (busy) {
            size_t n = strlen(err);
            snprintf(err + n, RF_ERR_LEN - n, " %d times: region names of this PID are held by files a killed "
                     "process left in /dev/shm (%d:*); remove them", RF_BUSY_RETRIES, (int) getpid());
        }
        if (rc != RF_OK || !rf_region_gone((*out)->addr, (*out)->addrlen)) {
            break;
        }
        rf_failf(err, "rf_open: the shm region %s was removed from /dev/shm as it was made (%d times)",
                 rf_region_name((*out)->addr, (*out)->addrlen), gone + 1);
        rf_close(*out);
        *out = NULL;
        rc = RF_ERROR;
    }
    pthread_mutex_unlock(&rf_open_lock);
    free(save);
    return rc;
}

static int rf_open_guarded(const char *provider, rf_ep **out, char *err, int *busy, const rf_sigsave *save) {
    struct fi_info *hints = NULL;
    rf_ep *ep = calloc(1, sizeof(*ep));
    int rc;
    if (ep == NULL) {
        rf_failf(err, "rf_open: out of memory");
        return RF_ERROR;
    }
    ep->txfd = ep->rxfd = ep->wakefd = -1;
    ep->returned = -1;
    ep->large_pending = -1;
    ep->wait.spin_ns = 50000;
    ep->wait.max_sleep_ns = 1000000;
    ep->wait.yield = 1;
    ep->wait.busy_polls = 50;
    hints = rf_hints(provider);
    if (hints == NULL) {
        rf_failf(err, "fi_allocinfo: out of memory");
        goto fail;
    }
    rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &ep->info);
    if (rc != 0) {
        if (rc == -FI_ENODATA) {
            rf_failf(err, "fi_getinfo: no provider \"%s\" with tagged RDM endpoints (%s); fi_info -l lists those "
                          "installed", provider, fi_strerror(FI_ENODATA));
        } else {
            rf_fail(err, "fi_getinfo", rc);
        }
        ep->info = NULL;
        goto fail;
    }
    ep->inject_size = ep->info->tx_attr->inject_size;
    ep->cma = strcmp(ep->info->fabric_attr->prov_name, "shm") == 0;
    ep->ring_cap = RF_SEND_RING_DEFAULT;
    ep->seg_size = ep->info->ep_attr->max_msg_size < RF_MAX_SEG ? ep->info->ep_attr->max_msg_size : RF_MAX_SEG;
    if (ep->seg_size < RF_EAGER) {
        rf_failf(err, "fi_getinfo: provider %s sends at most %zu bytes per message, Remora needs %u",
                 ep->info->fabric_attr->prov_name, ep->seg_size, RF_EAGER);
        goto fail;
    }
    if ((rc = fi_fabric(ep->info->fabric_attr, &ep->fabric, NULL)) != 0) {
        ep->fabric = NULL;
        rf_fail(err, "fi_fabric", rc);
        goto fail;
    }
    if ((rc = fi_domain(ep->fabric, ep->info, &ep->domain, NULL)) != 0) {
        ep->domain = NULL;
        rf_fail(err, "fi_domain", rc);
        goto fail;
    }
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    if ((rc = fi_av_open(ep->domain, &av_attr, &ep->av, NULL)) != 0) {
        ep->av = NULL;
        rf_fail(err, "fi_av_open", rc);
        goto fail;
    }
    if (rf_open_cq(ep, &ep->txcq, &ep->txfd, err) != RF_OK || rf_open_cq(ep, &ep->rxcq, &ep->rxfd, err) != RF_OK) {
        goto fail;
    }
    rc = fi_endpoint(ep->domain, ep->info, &ep->ep, NULL);
    rf_signals_restore(save); /* before fi_enable makes the region: see RF_GONE_RETRIES */
    if (rc != 0) {
        ep->ep = NULL;
        rf_fail(err, "fi_endpoint", rc);
        goto fail;
    }
    if ((rc = fi_ep_bind(ep->ep, &ep->av->fid, 0)) != 0 || (rc = fi_ep_bind(ep->ep, &ep->txcq->fid, FI_TRANSMIT)) != 0 ||
        (rc = fi_ep_bind(ep->ep, &ep->rxcq->fid, FI_RECV)) != 0) {
        rf_fail(err, "fi_ep_bind", rc);
        goto fail;
    }
    if ((rc = fi_enable(ep->ep)) != 0) {
        rf_fail(err, "fi_enable", rc);
        *busy = rc == -FI_EBUSY;
        goto fail;
    }
    ep->addrlen = sizeof(ep->addr);
    if ((rc = fi_getname(&ep->ep->fid, ep->addr, &ep->addrlen)) != 0) {
        rf_fail(err, "fi_getname", rc);
        goto fail;
    }
    ep->stamp = rf_hash(ep->addr, ep->addrlen) & RF_STAMP_MASK;
    rf_region_track(ep, 1);
    ep->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (ep->wakefd < 0) {
        rf_failf(err, "eventfd: %s", strerror(errno));
        goto fail;
    }
    ep->peers_cap = 64;
    ep->peers = calloc(ep->peers_cap, sizeof(rf_peer_entry));
    for (int i = 0; i < 2; i++) {
        ep->slots[i].buf = rf_alloc_aligned(RF_EAGER);
    }
    if (ep->peers == NULL || ep->slots[0].buf == NULL || ep->slots[1].buf == NULL) {
        rf_failf(err, "rf_open: out of memory");
        goto fail;
    }
    if (rf_post_slot(ep, 0, err) != RF_OK || rf_post_slot(ep, 1, err) != RF_OK) {
        goto fail;
    }
    fi_freeinfo(hints);
    *out = ep;
    return RF_OK;
fail:
    if (hints != NULL) {
        fi_freeinfo(hints);
    }
    rf_close(ep);
    return RF_ERROR;
}

void rf_set_wait(rf_ep *ep, const rf_wait_policy *policy) {
    ep->wait = *policy;
    if (ep->wait.spin_ns < 0) {
        ep->wait.spin_ns = 0;
    }
    if (ep->wait.busy_polls < 0) {
        ep->wait.busy_polls = 0;
    }
    if (ep->wait.max_sleep_ns < 1000) {
        ep->wait.max_sleep_ns = 1000;
    }
}

int rf_address(rf_ep *ep, const void **addr, size_t *len) {
    *addr = ep->addr;
    *len = ep->addrlen;
    return RF_OK;
}

size_t rf_inject_size(rf_ep *ep) {
    return ep->inject_size;
}

const char *rf_provider_name(rf_ep *ep) {
    return ep->info->fabric_attr->prov_name;
}

static rf_peer_entry *rf_peer_find(rf_ep *ep, uint32_t stamp) {
    size_t mask = ep->peers_cap - 1;
    for (size_t i = stamp & mask;; i = (i + 1) & mask) {
        rf_peer_entry *e = &ep->peers[i];
        if (!e->used || e->stamp == stamp) {
            return e;
        }
    }
}

static int rf_peer_grow(rf_ep *ep) {
    rf_peer_entry *old = ep->peers;
    size_t old_cap = ep->peers_cap;
    rf_peer_entry *fresh = calloc(old_cap * 2, sizeof(rf_peer_entry));
    if (fresh == NULL) {
        return RF_ERROR;
    }
    ep->peers = fresh;
    ep->peers_cap = old_cap * 2;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].used && old[i].peer >= 0) {
            *rf_peer_find(ep, old[i].stamp) = old[i];
        }
    }
    free(old);
    return RF_OK;
}

int rf_insert(rf_ep *ep, const void *addr, size_t len, int64_t *peer, char *err) {
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    if (len == 0 || len > RF_ADDR_MAX) {
        rf_failf(err, "fi_av_insert: address of %zu bytes is not a %s address", len, rf_provider_name(ep));
        return RF_ERROR;
    }
    if (ep->peers_used * 2 >= ep->peers_cap && rf_peer_grow(ep) != RF_OK) {
        rf_failf(err, "fi_av_insert: out of memory");
        return RF_ERROR;
    }
    uint32_t stamp = rf_hash(addr, len) & RF_STAMP_MASK;
    rf_peer_entry *e = rf_peer_find(ep, stamp);
    if (e->used && e->peer >= 0) {
        rf_failf(err, "fi_av_insert: address id %08x is already taken by peer %lld (same address inserted twice, or "
                      "a hash collision: open a new endpoint)", stamp, (long long) e->peer);
        return RF_ERROR;
    }
    if (rf_region_gone((const char *) addr, len)) {
        /* libfabric 1.17 maps it at the first send and cannot (EAGAIN until the send timeout), or crashes there */
        rf_failf(err, "fi_av_insert: the peer's shm region /dev/shm/%s is gone (removed while its process runs)",
                 rf_region_name((const char *) addr, len));
        return RF_ERROR;
    }
    int rc = fi_av_insert(ep->av, addr, 1, &fa, 0, NULL);
    if (rc != 1) {
        rf_fail(err, "fi_av_insert", rc < 0 ? rc : -FI_EINVAL);
        return RF_ERROR;
    }
    if (!e->used) {
        ep->peers_used++;
    }
    e->used = 1;
    e->stamp = stamp;
    e->peer = (int64_t) fa;
    *peer = (int64_t) fa;
    const char *name = rf_region_name((const char *) addr, len);
    if (name != NULL && strtol(name, NULL, 10) == (long) getpid() && ep->self_peer_count < RF_SELF_PEERS) {
        snprintf(ep->self_peers[ep->self_peer_count++], RF_ADDR_MAX, "%s", name);
    }
    return RF_OK;
}

int rf_remove(rf_ep *ep, int64_t peer, char *err) {
    fi_addr_t fa = (fi_addr_t) peer;
    for (size_t i = 0; i < ep->peers_cap; i++) {
        if (ep->peers[i].used && ep->peers[i].peer == peer) {
            ep->peers[i].peer = -1; /* tombstone: keeps the probe chains intact */
        }
    }
    int rc = fi_av_remove(ep->av, &fa, 1, 0);
    if (rc != 0) {
        rf_fail(err, "fi_av_remove", rc);
        return RF_ERROR;
    }
    return RF_OK;
}

/* Sleeps for a nap with a timer slack in proportion to it. Linux lets a thread's timers expire up to its timer slack
 * late, 50 us by default: a 1 us nanosleep then took 60 us here (1 us slack: 9 us, the VM's wake-up), so a receiver
 * that had spun out its budget answered 50 us late, and an RMI echo of 100 KB, whose peers each compute for longer
 * than the spin budget, took about twice as long. The thread's own slack is put back after the nap: a JVM thread
 * leaves Remora's wait as it came. */
static void rf_nap(const struct timespec *ts, int64_t nap) {
    int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    long slack = nap / 8 < 1000 ? 1000 : nap / 8;
    if (old > slack && prctl(PR_SET_TIMERSLACK, (unsigned long) slack, 0, 0, 0) == 0) {
        nanosleep(ts, NULL);
        (void) prctl(PR_SET_TIMERSLACK, (unsigned long) old, 0, 0, 0);
    } else {
        nanosleep(ts, NULL);
    }
}

/*
 * The spin budget of a wait: spin_ns, or, with an adaptive policy (spin_max_ns > spin_ns), twice what this kind of
 * wait has lately lasted, up to spin_max_ns. Why: a wait that outlasts its spin sleeps, and on this VM a sleeping
 * vCPU halts and takes 30-60 us to wake, so a peer that answers a little after the budget costs that much more. An
 * RMI echo of byte[100000] keeps each side busy about 20-25 us, right at the 20 us default: its round trips took
 * 46-50 us or, for whole runs, 110-142 us, depending on which side of the budget the peer's work fell. Waits
 * longer than spin_max_ns (an idle link) count as 0, so an idle endpoint spins only spin_ns.
 */
static int64_t rf_spin_budget(const rf_ep *ep, const rf_adapt *a) {
    if (a == NULL || ep->wait.spin_max_ns <= ep->wait.spin_ns) {
        return ep->wait.spin_ns;
    }
    int64_t b = 2 * a->typical;
    return b < ep->wait.spin_ns ? ep->wait.spin_ns : b > ep->wait.spin_max_ns ? ep->wait.spin_max_ns : b;
}

int64_t rf_spin_budget_rx(rf_ep *ep) {
    return rf_spin_budget(ep, &ep->rx_adapt);
}

int rf_sends_behind(rf_ep *ep) {
    return ep->behind;
}

/* A wait ended with a completion: fold its length into its kind's average. */
static void rf_adapt_note(const rf_ep *ep, const rf_waiter *w) {
    if (w->adapt == NULL) {
        return;
    }
    int64_t d = w->start == 0 ? 0 : (int64_t) (rf_now() - w->start);
    if (d > ep->wait.spin_max_ns) {
        d = 0;
    }
    w->adapt->typical += (d - w->adapt->typical) / 8;
}

#define RF_QUIET_MIN_NS 16000000ll   /* after two receive yields in a row lost the CPU: unspun waits do not yield */
#define RF_QUIET_MAX_NS 1000000000ll /* ... doubling while the yields that follow lose it too */

/* A receive's yield. The second in a row that lost the CPU (RF_LOST_CPU_NS) starts a stretch of waits without a yield
 * before they sleep, each further one doubles it; one that did not lose it ends the run. One lost yield alone says
 * little: a JIT compiler or GC thread took a slice once, and the next yields are short again. Returns whether it
 * lost the CPU. */
static int rf_rx_yield(rf_ep *ep) {
    uint64_t before = rf_now();
    sched_yield();
    ep->rx_yields++;
    uint64_t after = rf_now();
    if (after - before < (uint64_t) RF_LOST_CPU_NS) {
        ep->rx_lost_run = 0;
        ep->rx_quiet_ns = 0;
        return 0;
    }
    if (++ep->rx_lost_run < 2) {
        return 1;
    }
    int64_t q = ep->rx_quiet_ns == 0 ? RF_QUIET_MIN_NS : ep->rx_quiet_ns * 2;
    ep->rx_quiet_ns = q < RF_QUIET_MAX_NS ? q : RF_QUIET_MAX_NS;
    ep->rx_quiet_until = after + (uint64_t) ep->rx_quiet_ns;
    return 1;
}

/* One step of waiting; returns RF_CLOSED, RF_TIMEOUT (deadline passed) or RF_OK (poll again). */
static int rf_idle(rf_ep *ep, rf_waiter *w, struct fid_cq *cq, int fd, uint64_t deadline) {
    if (ep->closing) {
        return RF_CLOSED;
    }
    if (w->nap == 0) { /* spinning: poll, yielding the CPU to a peer that may share it; read the clock now and then */
        if (++w->polls <= (unsigned) ep->wait.busy_polls) {
            return RF_OK; /* a first few pure polls: a split-CPU round trip often completes within them */
        }
        if (w->start == 0) {
            w->start = rf_now();
            w->budget = rf_spin_budget(ep, w->adapt);
        }
        if (w->budget > 0 && ep->wait.yield) {
            if (cq == ep->rxcq) {
                /* A yield that lost the CPU for whole slices (a JIT compiler recompiling on this CPU, while JDK
                 * serialization keeps it busy) ends the spin: a sleeping receiver is woken by the message (fd, bell)
                 * or its nap's timer, and preempts such a thread; a yielding one waits for the thread's slice to end,
                 * 1-4 ms here, at every wait (the compare's fabric+jdk pingpong: p99 5-7 ms). Not for sends. */
                if (rf_rx_yield(ep)) {
                    w->lost_cpu = 1;
                    w->nap = 1000;
                    return RF_OK; /* poll once more: the message may have come while the CPU was lost */
                }
            } else {
                sched_yield();
            }
        } else if (w->budget == 0 && ep->wait.yield && cq == ep->rxcq) {
            /* No spin budget (the caller said not to spin: the machine's CPUs are wanted, or a spin lost the CPU
             * lately): one yield, then sleep. The yield is what keeps a peer on this same CPU fast: it answers in its
             * turn and the poll after the yield finds the message, with no sleep and wake-up (same-CPU pingpong over
             * shm: 21-32 us a call with it, 28-45 us without). But with every CPU busy a yield hands the CPU to
             * another thread for the rest of its slice (3-4 ms here on Linux 6.18): an RMI call over shm took 2 ms
             * with two CPU-bound processes running, against 15 us over sockets. So after two yields in a row that
             * lost the CPU the waits that follow sleep at once, for 16 ms, doubling up to 1 s while the yield after
             * each such stretch loses it too (rf_rx_yield). */
            w->nap = 1000;
            if (rf_now() >= ep->rx_quiet_until) {
                w->lost_cpu |= rf_rx_yield(ep);
                return RF_OK; /* poll once more: the peer may have answered in the yield */
            }
        }
        if (w->budget > 0) {
            if ((w->polls & 15) != 1) {
                return RF_OK;
            }
            uint64_t now = rf_now();
            if (now >= deadline) {
                return RF_TIMEOUT;
            }
            if (now - w->start < (uint64_t) w->budget) {
                return RF_OK;
            }
        }
        w->nap = 1000;
    }
    uint64_t now = rf_now();
    if (now >= deadline) {
        return RF_TIMEOUT;
    }
    uint64_t left = deadline - now;
    if (fd >= 0) {
        struct fid *fids[1] = {&cq->fid};
        if (fi_trywait(ep->fabric, fids, 1) == FI_SUCCESS) {
            struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = ep->wakefd, .events = POLLIN}};
            int ms = left > 100000000ull ? 100 : (int) (left / 1000000ull) + 1;
            (void) poll(p, 2, ms);
        }
        return RF_OK;
    }
    if (cq == ep->rxcq && rf_rx_blocks(ep)) { /* the peer wakes us at its next post: block, as a socket read does */
        rf_rx_block(ep, w, left);
        return RF_OK;
    }
    if (cq == ep->rxcq && ep->deep) {
        if (!w->deep) {
            /* one more poll of the CQ first: a message the peer posted before it promised the bell is there now */
            w->deep = 1;
            return RF_OK;
        }
        uint64_t cap = ep->wait.deep_sleep_ns > 0 ? (uint64_t) ep->wait.deep_sleep_ns : 100000000ull;
        uint64_t d = cap < left ? cap : left;
        struct pollfd p = {.fd = ep->wakefd, .events = POLLIN};
        if (poll(&p, 1, (int) (d / 1000000ull) + 1) > 0) {
            uint64_t count;
            ssize_t rc = read(ep->wakefd, &count, sizeof(count)); /* drain: the bell (or rf_wakeup, seen above) */
            (void) rc;
            *w = (rf_waiter){.adapt = w->adapt}; /* rung: spin again for the message that follows the bell */
        }
        return RF_OK;
    }
    /* compare unsigned: with no deadline, left is near UINT64_MAX, negative as an int64_t (a negative nap made
     * nanosleep fail with EINVAL at once, so an idle receive spun at 100% of a CPU) */
    int64_t nap = (uint64_t) w->nap < left ? w->nap : (int64_t) left;
    struct timespec ts = {nap / 1000000000, nap % 1000000000};
    rf_nap(&ts, nap);
    if (w->nap < ep->wait.max_sleep_ns) {
        w->nap = w->nap * 2 < ep->wait.max_sleep_ns ? w->nap * 2 : ep->wait.max_sleep_ns;
    }
    return RF_OK;
}

static uint64_t rf_deadline(int64_t timeout_ns) {
    return timeout_ns < 0 ? UINT64_MAX : rf_now() + (uint64_t) timeout_ns;
}

static int rf_cq_error(rf_ep *ep, struct fid_cq *cq, ssize_t rc, const char *what, char *err) {
    if (rc == -FI_EAVAIL) {
        struct fi_cq_err_entry e;
        memset(&e, 0, sizeof(e));
        if (fi_cq_readerr(cq, &e, 0) > 0) {
            char buf[128];
            const char *detail = fi_cq_strerror(cq, e.prov_errno, e.err_data, buf, sizeof(buf));
            rf_failf(err, "%s: %s (%d; provider: %s)", what, fi_strerror(e.err), -e.err, detail ? detail : "-");
            return e.err;
        }
    }
    rf_fail(err, "fi_cq_read", (int) rc);
    (void) ep;
    return (int) -rc;
}

static int rf_break(rf_ep *ep, char *err) {
    ep->broken = 1;
    snprintf(ep->broken_msg, sizeof(ep->broken_msg), "%s (endpoint unusable, close it)", err);
    return RF_ERROR;
}

/*
 * Reads the transmit CQ once: a send left behind (rf_send) frees its context; other completions, of sends a caller
 * waits for, are added to *waited. Returns how many entries were read, 0 for none, RF_ERROR with the endpoint broken.
 */
static int rf_tx_poll(rf_ep *ep, int *waited, char *err) {
    struct fi_cq_tagged_entry e[RF_CQ_BATCH];
    ssize_t n = fi_cq_read(ep->txcq, e, RF_CQ_BATCH);
    if (n == -FI_EAGAIN) {
        return 0;
    }
    if (n < 0) {
        rf_cq_error(ep, ep->txcq, n, "fi_tsend completion", err);
        return rf_break(ep, err);
    }
    for (ssize_t i = 0; i < n; i++) {
        struct fi_context *c = e[i].op_context;
        if (c >= ep->behind_ctx && c < ep->behind_ctx + RF_BEHIND_MAX) {
            ep->behind_busy &= ~(1u << (c - ep->behind_ctx));
            ep->behind--;
        } else {
            (*waited)++;
        }
    }
    return (int) n;
}

/* Waits until `count` completions of waited-for sends arrived and at most `behind` sends left behind are in flight. */
static int rf_wait_tx(rf_ep *ep, int count, int behind, uint64_t deadline, char *err) {
    rf_waiter w = {.adapt = count > 0 ? &ep->tx_adapt : NULL};
    int got = 0;
    while (got < count || ep->behind > behind) {
        int n = rf_tx_poll(ep, &got, err);
        if (n == RF_ERROR) {
            ep->tx_unsettled |= got < count;
            return RF_ERROR;
        }
        if (n > 0) {
            if (got >= count && count > 0) {
                rf_adapt_note(ep, &w);
            }
            continue;
        }
        int rc = rf_idle(ep, &w, ep->txcq, ep->txfd, deadline);
        if (rc == RF_CLOSED) {
            ep->tx_unsettled |= got < count;
            return RF_CLOSED;
        }
        if (rc == RF_TIMEOUT) {
            ep->tx_unsettled |= got < count;
            rf_failf(err, "fi_tsend: no completion within the send timeout (%s): the peer stopped receiving",
                     fi_strerror(FI_ETIMEDOUT));
            return rf_break(ep, err);
        }
    }
    return RF_OK;
}

/* Posts one send, retrying while the provider's queue is full. Eager messages and announcements (tag
 * RF_TAG_EAGER) carry `data` as remote CQ data; segments carry none. ctx NULL means inject (no completion). */
static int rf_post_send(rf_ep *ep, int64_t peer, const void *buf, size_t len, uint64_t tag, uint64_t data,
                        void *ctx, uint64_t deadline, char *err) {
    rf_waiter w = {0};
    int with_data = tag == RF_TAG_EAGER;
    for (;;) {
        ssize_t rc;
        const char *call;
        if (ctx == NULL) {
            call = with_data ? "fi_tinjectdata" : "fi_tinject";
            rc = with_data ? fi_tinjectdata(ep->ep, buf, len, data, (fi_addr_t) peer, tag)
                           : fi_tinject(ep->ep, buf, len, (fi_addr_t) peer, tag);
        } else {
            call = with_data ? "fi_tsenddata" : "fi_tsend";
            rc = with_data ? fi_tsenddata(ep->ep, buf, len, NULL, data, (fi_addr_t) peer, tag, ctx)
                           : fi_tsend(ep->ep, buf, len, NULL, (fi_addr_t) peer, tag, ctx);
        }
        if (rc == 0) {
            rf_wake_peer(ep);
            return RF_OK;
        }
        if (rc != -FI_EAGAIN) {
            rf_fail(err, call, (int) rc);
            return RF_ERROR;
        }
        struct fi_cq_tagged_entry e;
        ssize_t n = fi_cq_read(ep->txcq, &e, 0); /* progress only */
        if (n < 0 && n != -FI_EAGAIN) {
            rf_cq_error(ep, ep->txcq, n, "fi_tsend completion", err);
            return rf_break(ep, err);
        }
        int irc = rf_idle(ep, &w, ep->txcq, ep->txfd, deadline);
        if (irc == RF_CLOSED) {
            return RF_CLOSED;
        }
        if (irc == RF_TIMEOUT) {
            rf_failf(err, "%s: %s for the whole send timeout: the peer stopped receiving", call, fi_strerror(FI_EAGAIN));
            return rf_break(ep, err);
        }
    }
}

/* Whether [buf, buf + len) lies in the send ring. */
static int rf_in_ring(const rf_ep *ep, const void *buf, size_t len) {
    const char *p = buf;
    return ep->ring != NULL && p >= ep->ring && p + len <= ep->ring + ep->ring_cap;
}

/*
 * Shared rings (shm only). Over shm the provider moves a message above its inject size with the kernel's CMA copy:
 * the receiver's kernel reads it from the sender's memory into the receive buffer, 8.8 us for 100 KB here, on top
 * of the copy the sender made into its staging buffer and the one the receiver makes out of its buffer into the
 * Java heap. A shared ring drops the middle copy: each endpoint makes a ring in a /dev/shm file that its peer maps
 * too (rf_shared_create, rf_shared_attach over the caller's side channel, then rf_shared_enable once the peer has
 * mapped it). rf_staging then hands out regions of that ring, and rf_send sends only a 16-byte descriptor (start,
 * length), injected with RF_DATA_SHARED; the receiver's rf_recv returns the message where it lies in the peer's ring
 * (RF_SLOT_SHARED, rf_msg.offset), and publishes it read (the header's `released`) at its next rf_recv, once the
 * caller has copied it out. Messages sit one after another in the ring, 64-byte aligned; one that does not fit
 * before the ring's end starts at its beginning (the gap counts as used until a later message is read). A sender
 * whose peer has not read far enough waits like a send (spin, naps) up to the send timeout. Only a peer of the same
 * user can map the file (0600), which is the trust libfabric's shm provider already needs; the name is unlinked as
 * soon as the peer answered, and at exit.
 */
#define RF_SHARED_MAGIC 0x524d52494e473032ull /* "RMRING02": with rx_sleeping */
#define RF_SHARED_HDR 4096u
#define RF_SHARED_MIN (64u * 1024u)

typedef struct rf_shared_hdr {
    uint64_t magic;
    uint64_t cap;                    /* bytes of ring after the header page */
    int64_t creator;                 /* the creating process, for diagnostics */
    volatile uint32_t rx_sleeping;   /* a futex: 1 while the ring owner's receiver may sleep on it (rf_rx_block) */
    uint32_t pad32;
    uint64_t pad[4];
    volatile uint64_t released;      /* every message ending at or before this count was read (the receiver's) */
} rf_shared_hdr;

/*
 * Blocking receives (shm with shared rings both ways). shm has no wait object, so a receiver that has spun out its
 * budget used to nap, and a nap is not ended by the message: a message that came during a 100 us nap waited for its
 * end. Where the peer has mapped this endpoint's ring (rf_shared_enable), the receiver blocks instead on a futex in
 * the ring's header page, which both processes map: it raises rx_sleeping, polls the CQ once more, and sleeps while
 * the flag stays up; the peer, after each post (rf_post_send), sees the flag, clears it and wakes the receiver. The
 * flag is raised before the last poll and read after the post, each behind a full barrier, so either that poll finds
 * the message or the sender finds the flag. A sleep lasts 100 ms at most, as a safety net, and rf_wakeup wakes it.
 * Thus a receiver whose spin lost the CPU (RF_LOST_CPU_NS), or that does not spin while the application wants every
 * CPU, is woken by the message and preempts whatever runs, where a yielding or napping one waited for its slice.
 */
static int rf_futex(volatile uint32_t *word, int op, uint32_t val, const struct timespec *ts) {
    return (int) syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

static int rf_rx_blocks(const rf_ep *ep) {
    return __atomic_load_n(&ep->sh_tx_on, __ATOMIC_RELAXED) && ep->sh_tx != NULL;
}

/* One step of a blocking wait: first raises the flag and returns (the caller polls the CQ once more), then sleeps
 * while the flag is up, at most left ns (and 100 ms). */
static void rf_rx_block(rf_ep *ep, rf_waiter *w, uint64_t left) {
    rf_shared_hdr *h = (rf_shared_hdr *) ep->sh_tx;
    if (!w->armed) {
        __atomic_store_n(&h->rx_sleeping, 1, __ATOMIC_SEQ_CST);
        w->armed = 1;
        return;
    }
    uint64_t d = left < 100000000ull ? left : 100000000ull;
    struct timespec ts = {(time_t) (d / 1000000000ull), (long) (d % 1000000000ull)};
    (void) rf_futex(&h->rx_sleeping, FUTEX_WAIT, 1, &ts);
    w->armed = 0; /* woken (the flag is down), timed out or interrupted: raise it again before the next sleep */
}

/* A receive ends: the flag down, so that the peer's next posts need not wake anyone. */
static void rf_rx_unblock(rf_ep *ep) {
    if (rf_rx_blocks(ep)) {
        rf_shared_hdr *h = (rf_shared_hdr *) ep->sh_tx;
        if (__atomic_load_n(&h->rx_sleeping, __ATOMIC_RELAXED) != 0) {
            __atomic_store_n(&h->rx_sleeping, 0, __ATOMIC_RELAXED);
        }
    }
}

/* After a post to the peer: wakes its receiver if it sleeps on its ring's flag. */
static void rf_wake_peer(rf_ep *ep) {
    if (ep->sh_rx == NULL) {
        return;
    }
    rf_shared_hdr *h = (rf_shared_hdr *) ep->sh_rx;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&h->rx_sleeping, __ATOMIC_RELAXED) != 0 &&
        __atomic_exchange_n(&h->rx_sleeping, 0, __ATOMIC_SEQ_CST) != 0) {
        (void) rf_futex(&h->rx_sleeping, FUTEX_WAKE, 1, NULL);
    }
}

int rf_shared_create(rf_ep *ep, size_t bytes, char *name, size_t namelen, char *err) {
    static volatile uint32_t counter;
    if (!ep->cma) {
        rf_failf(err, "rf_shared_create: shared rings are for shm only, not %s", rf_provider_name(ep));
        return RF_ERROR;
    }
    if (ep->sh_tx == NULL) {
        size_t cap = rf_pages(bytes < RF_SHARED_MIN ? RF_SHARED_MIN : bytes);
        int fd = -1;
        for (int attempt = 0; attempt < 2 && fd < 0; attempt++) {
            snprintf(ep->sh_name, sizeof(ep->sh_name), "%d:remora:%u", (int) getpid(),
                     __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
            fd = shm_open(ep->sh_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd < 0 && errno == EEXIST) {
                shm_unlink(ep->sh_name); /* a killed process of the same PID left it: not ours to keep */
            }
        }
        if (fd < 0) {
            rf_failf(err, "shm_open(%s): %s", ep->sh_name, strerror(errno));
            ep->sh_name[0] = '\0';
            return RF_ERROR;
        }
        rf_name_track(ep->sh_name, 1);
        /* the pages are allocated now (posix_fallocate), not on first touch: a full /dev/shm (a container's 64 MB)
         * is an error here, not a SIGBUS in the middle of a send, in this process or the peer's */
        void *map = MAP_FAILED;
        int saved = posix_fallocate(fd, 0, (off_t) (RF_SHARED_HDR + cap));
        if (saved == 0) {
            map = mmap(NULL, RF_SHARED_HDR + cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
            saved = errno;
        }
        close(fd);
        if (map == MAP_FAILED) {
            rf_failf(err, "allocating a %zu-byte shared ring in /dev/shm: %s", RF_SHARED_HDR + cap, strerror(saved));
            shm_unlink(ep->sh_name);
            rf_name_track(ep->sh_name, 0);
            ep->sh_name[0] = '\0';
            return RF_ERROR;
        }
        rf_shared_hdr *h = map;
        h->cap = cap;
        h->creator = getpid();
        h->released = 0;
        __atomic_store_n(&h->magic, RF_SHARED_MAGIC, __ATOMIC_RELEASE);
        ep->sh_tx = map;
        ep->sh_tx_cap = cap;
        ep->sh_tx_head = 0;
    }
    if (ep->sh_name[0] == '\0' || strlen(ep->sh_name) >= namelen) {
        rf_failf(err, "rf_shared_create: the ring's name is already unlinked, or longer than %zu bytes", namelen);
        return RF_ERROR;
    }
    snprintf(name, namelen, "%s", ep->sh_name);
    return RF_OK;
}

int rf_shared_attach(rf_ep *ep, const char *name, char *err) {
    if (!ep->cma) {
        rf_failf(err, "rf_shared_attach: shared rings are for shm only, not %s", rf_provider_name(ep));
        return RF_ERROR;
    }
    if (ep->sh_rx != NULL) {
        rf_failf(err, "rf_shared_attach: this endpoint has mapped its peer's ring already");
        return RF_ERROR;
    }
    if (name[0] == '\0' || name[0] == '.' || strchr(name, '/') != NULL || strstr(name, ":remora:") == NULL) {
        rf_failf(err, "rf_shared_attach: \"%s\" is not the name of a Remora shared ring", name);
        return RF_ERROR;
    }
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        rf_failf(err, "shm_open(%s): %s", name, strerror(errno));
        return RF_ERROR;
    }
    struct stat st;
    void *map = MAP_FAILED;
    size_t size = 0;
    if (fstat(fd, &st) == 0 && st.st_size > (off_t) (RF_SHARED_HDR + RF_SHARED_MIN) - 1) {
        size = (size_t) st.st_size;
        map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    int saved = errno;
    close(fd);
    if (map == MAP_FAILED) {
        rf_failf(err, "mapping the peer's shared ring %s (%zu bytes): %s", name, size,
                 size == 0 ? "too small" : strerror(saved));
        return RF_ERROR;
    }
    rf_shared_hdr *h = map;
    if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != RF_SHARED_MAGIC || h->cap != size - RF_SHARED_HDR ||
        h->cap % 4096 != 0) {
        rf_failf(err, "rf_shared_attach: %s is no Remora shared ring of this version (size %zu)", name, size);
        munmap(map, size);
        return RF_ERROR;
    }
    ep->sh_rx = map;
    ep->sh_rx_cap = h->cap;
    ep->sh_rx_next = 0;
    ep->sh_rx_release = 0;
    return RF_OK;
}

void rf_shared_enable(rf_ep *ep, int enable) {
    if (ep->sh_name[0] != '\0') {
        shm_unlink(ep->sh_name);
        rf_name_track(ep->sh_name, 0);
        ep->sh_name[0] = '\0';
    }
    ep->sh_tx_on = enable && ep->sh_tx != NULL;
}

int rf_closing(rf_ep *ep) {
    return ep->closing;
}

size_t rf_held_bytes(rf_ep *ep) {
    return ep->large_cap + ep->staging_cap + (ep->ring != NULL ? ep->ring_cap : 0);
}

int rf_shared_on(rf_ep *ep) {
    return ep->sh_tx_on + 2 * (ep->sh_rx != NULL);
}

/* Whether a message of len bytes goes through the shared ring: it is on, and len above the inject size and at most a
 * quarter of the ring. */
static int rf_shared_fits(const rf_ep *ep, size_t len) {
    return ep->sh_tx_on && len > ep->inject_size && len <= ep->sh_tx_cap / 4;
}

/* A region of the shared ring for len bytes, once the peer has read far enough; NULL with err on timeout or close. */
static char *rf_shared_reserve(rf_ep *ep, size_t len, int64_t timeout_ns, char *err) {
    rf_shared_hdr *h = (rf_shared_hdr *) ep->sh_tx;
    size_t cap = ep->sh_tx_cap;
    size_t need = (len + 63) & ~(size_t) 63;
    uint64_t start = ep->sh_tx_head;
    size_t pos = (size_t) (start % cap);
    if (pos + need > cap) {
        start += cap - pos; /* the rest of this round is a gap */
    }
    if (start + need - __atomic_load_n(&h->released, __ATOMIC_ACQUIRE) > cap) {
        uint64_t deadline = rf_deadline(timeout_ns);
        rf_waiter w = {0};
        while (start + need - __atomic_load_n(&h->released, __ATOMIC_ACQUIRE) > cap) {
            int rc = rf_idle(ep, &w, ep->txcq, -1, deadline);
            if (rc == RF_CLOSED) {
                rf_failf(err, "fi_tsend: the endpoint was closed while the peer read earlier messages");
                return NULL;
            }
            if (rc == RF_TIMEOUT) {
                rf_failf(err, "fi_tsend: the peer read nothing from the shared ring within the send timeout (%s): it "
                              "stopped receiving", fi_strerror(FI_ETIMEDOUT));
                rf_break(ep, err);
                return NULL;
            }
        }
    }
    ep->sh_tx_last = start;
    ep->sh_tx_head = start + need;
    return ep->sh_tx + RF_SHARED_HDR + (start % cap);
}

/* Whether buf is the region rf_shared_reserve handed out last, with len bytes in it. */
static int rf_in_shared(const rf_ep *ep, const void *buf, size_t len) {
    return ep->sh_tx_on && (const char *) buf == ep->sh_tx + RF_SHARED_HDR + (ep->sh_tx_last % ep->sh_tx_cap) &&
           ep->sh_tx_last + len <= ep->sh_tx_head;
}

/*
 * Sends. A message above the inject size waits for its completion (the peer took it: over shm its kernel read it
 * from our buffer), except one from the send ring up to RF_EAGER bytes: that one completes behind the caller, who
 * goes on to wait for the reply instead. Why: on a shared CPU each such wait is one more trip through the scheduler
 * to the peer and back; star(byte[5000]) with 4 client threads and the server on one CPU ran no faster than vanilla
 * RMI. Its ring region is not handed out again until it completed (rf_staging), at most RF_BEHIND_MAX are in flight,
 * and rf_close gives them a moment to complete.
 */
int rf_send(rf_ep *ep, int64_t peer, const void *buf, size_t len, int64_t timeout_ns, char *err) {
    if (ep->broken) {
        snprintf(err, RF_ERR_LEN, "%s", ep->broken_msg);
        return RF_ERROR;
    }
    if (ep->closing) {
        return RF_CLOSED;
    }
    if (ep->behind > 0) { /* reap what completed meanwhile */
        int none = 0;
        if (rf_tx_poll(ep, &none, err) == RF_ERROR) {
            return RF_ERROR;
        }
    }
    if (rf_shared_fits(ep, len)) { /* the peer reads it from our ring */
        if (!rf_in_shared(ep, buf, len)) { /* not staged there by the caller: one copy, still cheaper than CMA's */
            char *region = rf_shared_reserve(ep, len, timeout_ns, err);
            if (region == NULL) {
                return ep->closing ? RF_CLOSED : RF_ERROR;
            }
            rf_copy(region, buf, len);
        }
        uint64_t d[2] = {ep->sh_tx_last, (uint64_t) len}; /* where: the peer maps the ring itself */
        return rf_post_send(ep, peer, d, sizeof(d), RF_TAG_EAGER, ep->stamp | RF_DATA_SHARED, NULL,
                            rf_deadline(timeout_ns), err);
    }
    if (ep->cma && len >= RF_COPY_MIN && ((uintptr_t) buf & 63) != 0) {
        /* The receiver's buffers are page-aligned; the kernel's CMA copy from a source at another offset modulo 64
         * takes 1.4 to 7 times as long (see rf_copy). One rf_copy into the page-aligned staging buffer costs less. */
        char *staging = rf_staging(ep, len, timeout_ns, err);
        if (staging == NULL) {
            return RF_ERROR;
        }
        rf_copy(staging, buf, len);
        buf = staging;
    }
    uint64_t deadline = rf_deadline(timeout_ns);
    uint64_t stamp = ep->stamp;
    if (len <= RF_EAGER) {
        if (len <= ep->inject_size) {
            return rf_post_send(ep, peer, buf, len, RF_TAG_EAGER, stamp, NULL, deadline, err);
        }
        if (rf_in_ring(ep, buf, len)) { /* completes behind the caller: the ring region stays until it did */
            int rc = rf_wait_tx(ep, 0, RF_BEHIND_MAX - 1, deadline, err); /* a context free */
            if (rc != RF_OK) {
                return rc;
            }
            int i = __builtin_ctz(~ep->behind_busy);
            rc = rf_post_send(ep, peer, buf, len, RF_TAG_EAGER, stamp, &ep->behind_ctx[i], deadline, err);
            if (rc == RF_OK) {
                ep->behind_busy |= 1u << i;
                ep->behind++;
            }
            return rc;
        }
        int rc = rf_post_send(ep, peer, buf, len, RF_TAG_EAGER, stamp, &ep->tx_ctx[0], deadline, err);
        return rc != RF_OK ? rc : rf_wait_tx(ep, 1, RF_BEHIND_MAX, deadline, err);
    }
    size_t segs = (len + ep->seg_size - 1) / ep->seg_size;
    if (segs > RF_MAX_SEGS) {
        rf_failf(err, "fi_tsend: message of %zu bytes needs %zu segments of the provider's %zu, at most %d", len, segs,
                 ep->seg_size, RF_MAX_SEGS);
        return RF_ERROR;
    }
    /* an 8-byte announcement with the total length, then the payload straight from the caller's buffer */
    ep->send_hdr = (uint64_t) len;
    int announce_ctx = sizeof(uint64_t) <= ep->inject_size ? 0 : 1;
    int posted = 0;
    int rc = rf_post_send(ep, peer, &ep->send_hdr, sizeof(uint64_t), RF_TAG_EAGER, stamp | RF_DATA_LARGE,
                          announce_ctx ? &ep->tx_ctx[RF_MAX_SEGS] : NULL, deadline, err);
    if (rc == RF_OK) {
        posted = announce_ctx;
        for (size_t off = 0, i = 0; off < len && rc == RF_OK; off += ep->seg_size, i++) {
            size_t n = len - off < ep->seg_size ? len - off : ep->seg_size;
            rc = rf_post_send(ep, peer, (const char *) buf + off, n, RF_TAG_CONT | stamp, 0, &ep->tx_ctx[i], deadline,
                              err);
            if (rc == RF_OK) {
                posted++;
            }
        }
    }
    if (posted > 0) {
        /* every posted segment must complete before the caller may reuse the buffer */
        char werr[RF_ERR_LEN];
        int wrc = rf_wait_tx(ep, posted, RF_BEHIND_MAX, deadline, werr);
        if (rc == RF_OK && wrc != RF_OK) {
            memcpy(err, werr, RF_ERR_LEN);
            rc = wrc;
        }
    }
    if (rc == RF_ERROR && !ep->broken) {
        rf_break(ep, err); /* the receiver now waits for segments that will never come */
    }
    return rc;
}

/*
 * Why a ring: over shm the peer's kernel reads a message above the inject size straight from this buffer (CMA), so
 * afterwards its lines sit in the peer CPU's cache too, and writing the next message into the same buffer has to
 * take every line back first: 100 KB took 11.5-13 us to write instead of 1.8 here (a C probe with two threads on the
 * two vCPUs). Lines the peer read 4 MB of messages ago have left its cache (L2: 1 MB here): 2.8-3.4 us. Smaller
 * messages are injected (the provider copies them into its own buffers) and use the fixed buffer.
 */
void rf_set_send_ring(rf_ep *ep, size_t bytes) {
    size_t cap = rf_pages(bytes);
    char err[RF_ERR_LEN];
    if (cap != ep->ring_cap && rf_wait_tx(ep, 0, 0, rf_deadline(RF_BEHIND_DRAIN_NS), err) == RF_OK) {
        free(ep->ring);
        ep->ring = NULL;
        ep->ring_cap = cap;
        ep->ring_pos = 0;
    }
}

void *rf_staging(rf_ep *ep, size_t len, int64_t timeout_ns, char *err) {
    if (rf_shared_fits(ep, len)) {
        return rf_shared_reserve(ep, len, timeout_ns, err);
    }
    if (ep->cma && len > ep->inject_size && len <= ep->ring_cap / 4) {
        if (ep->ring == NULL) {
            ep->ring = rf_alloc_aligned(ep->ring_cap);
        }
        if (ep->ring != NULL) { /* else, out of memory: the fixed buffer below */
            size_t need = rf_pages(len); /* page-aligned, as the receiver's buffers */
            if (ep->ring_pos + need > ep->ring_cap) {
                /* round again: the last round's sends that complete behind must have completed */
                int rc = rf_wait_tx(ep, 0, 0, rf_deadline(timeout_ns), err);
                if (rc != RF_OK) {
                    if (rc == RF_CLOSED) {
                        rf_failf(err, "fi_tsend: the endpoint was closed while earlier sends completed");
                    }
                    return NULL;
                }
                ep->ring_pos = 0;
            }
            char *p = ep->ring + ep->ring_pos;
            ep->ring_pos += need;
            return p;
        }
    }
    if (len > ep->staging_cap || (ep->staging_cap > 4 * RF_EAGER && len <= RF_EAGER)) {
        size_t cap = len < RF_EAGER ? RF_EAGER : len;
        char *fresh = rf_alloc_aligned(cap);
        if (fresh == NULL) {
            rf_failf(err, "fi_tsend: cannot allocate a staging buffer of %zu bytes", cap);
            return NULL;
        }
        free(ep->staging);
        ep->staging = fresh;
        ep->staging_cap = cap;
    }
    return ep->staging;
}

static int64_t rf_source(rf_ep *ep, uint32_t stamp) {
    rf_peer_entry *e = rf_peer_find(ep, stamp);
    return e->used ? e->peer : -1;
}

/* Handles the completed head slot; returns RF_OK with msg filled, or 1 if a large message is now under way. */
static int rf_take_head(rf_ep *ep, rf_msg *msg, char *err) {
    rf_slot *s = &ep->slots[ep->head];
    uint32_t stamp = (uint32_t) (s->data & RF_STAMP_MASK);
    if ((s->data & (RF_DATA_LARGE | RF_DATA_SHARED)) == RF_DATA_SHARED) { /* where it lies in the peer's ring */
        uint64_t d[2];
        memcpy(d, s->buf, sizeof(d) <= s->len ? sizeof(d) : s->len);
        size_t cap = ep->sh_rx_cap;
        if (ep->sh_rx == NULL || s->len != sizeof(d) || d[0] < ep->sh_rx_next || d[1] == 0 || d[1] > cap ||
            d[0] % cap + d[1] > cap || (d[0] & 63) != 0) {
            rf_failf(err, "fi_trecv: malformed shared-ring descriptor (%zu bytes, start %llu, length %llu, ring of "
                          "%zu bytes, next start at least %llu): peer speaks another protocol", s->len,
                     (unsigned long long) d[0], (unsigned long long) d[1], cap, (unsigned long long) ep->sh_rx_next);
            return rf_break(ep, err);
        }
        ep->sh_rx_next = d[0] + d[1];
        ep->sh_rx_release = d[0] + d[1];
        msg->length = (int64_t) d[1];
        msg->slot = RF_SLOT_SHARED;
        msg->offset = (int64_t) (d[0] % cap);
        msg->source = rf_source(ep, stamp);
        msg->stamp = stamp;
        msg->large_generation = ep->large_gen;
        s->done = 0;
        ep->returned = ep->head; /* the descriptor's slot: reposted by the next rf_recv */
        ep->head ^= 1;
        return RF_OK;
    }
    msg->offset = 0;
    if ((s->data & RF_DATA_LARGE) == 0) {
        msg->length = (int64_t) s->len;
        msg->slot = ep->head;
        msg->source = rf_source(ep, stamp);
        msg->stamp = stamp;
        msg->large_generation = ep->large_gen;
        s->done = 0;
        ep->returned = ep->head;
        ep->head ^= 1;
        return RF_OK;
    }
    uint64_t total;
    memcpy(&total, s->buf, sizeof(total));
    if (s->len != sizeof(uint64_t) || total <= RF_EAGER || total > ((uint64_t) 1 << 40)) {
        rf_failf(err, "fi_trecv: malformed large-message announcement (%zu bytes, total %llu): peer speaks another "
                      "protocol", s->len, (unsigned long long) total);
        return rf_break(ep, err);
    }
    size_t segs = (total + ep->seg_size - 1) / ep->seg_size;
    if (segs > RF_MAX_SEGS) {
        rf_failf(err, "fi_trecv: message of %llu bytes exceeds %d segments", (unsigned long long) total, RF_MAX_SEGS);
        return rf_break(ep, err);
    }
    if (total > ep->large_cap) {
        char *fresh = rf_alloc_aligned(total);
        if (fresh == NULL) {
            rf_failf(err, "fi_trecv: cannot allocate %llu bytes for a large message", (unsigned long long) total);
            return rf_break(ep, err);
        }
        free(ep->large);
        ep->large = fresh;
        ep->large_cap = total;
        ep->large_gen++;
    }
    ep->large_len = (int64_t) total;
    ep->large_stamp = stamp;
    ep->large_source = rf_source(ep, stamp);
    ep->large_pending = 0;
    for (size_t off = 0; off < total; off += ep->seg_size) {
        size_t n = total - off < ep->seg_size ? total - off : ep->seg_size;
        ssize_t rc;
        while ((rc = fi_trecv(ep->ep, ep->large + off, n, NULL, FI_ADDR_UNSPEC, RF_TAG_CONT | stamp, 0,
                              &ep->cont_ctx[ep->large_pending])) == -FI_EAGAIN) {
            struct fi_cq_tagged_entry e;
            (void) fi_cq_read(ep->rxcq, &e, 0);
        }
        if (rc != 0) {
            rf_fail(err, "fi_trecv", (int) rc);
            return rf_break(ep, err);
        }
        ep->large_pending++;
    }
    /* the announcement is read: its slot can take the next message at once */
    s->done = 0;
    int head = ep->head;
    ep->head ^= 1;
    if (rf_post_slot(ep, head, err) != RF_OK) {
        return rf_break(ep, err);
    }
    return 1;
}

static int rf_recv_wait(rf_ep *ep, int64_t timeout_ns, rf_msg *msg, char *err);

int rf_recv(rf_ep *ep, int64_t timeout_ns, rf_msg *msg, char *err) {
    int rc = rf_recv_wait(ep, timeout_ns, msg, err);
    rf_rx_unblock(ep);
    msg->yields = (int64_t) ep->rx_yields;
    return rc;
}

static int rf_recv_wait(rf_ep *ep, int64_t timeout_ns, rf_msg *msg, char *err) {
    struct fi_cq_tagged_entry e[RF_CQ_BATCH];
    if (ep->broken) {
        snprintf(err, RF_ERR_LEN, "%s", ep->broken_msg);
        return RF_ERROR;
    }
    if (ep->sh_rx_release != 0) { /* the caller has copied the last message out of the peer's ring */
        __atomic_store_n(&((rf_shared_hdr *) ep->sh_rx)->released, ep->sh_rx_release, __ATOMIC_RELEASE);
        ep->sh_rx_release = 0;
    }
    if (ep->returned >= 0) {
        int slot = ep->returned;
        ep->returned = -1;
        if (rf_post_slot(ep, slot, err) != RF_OK) {
            return rf_break(ep, err);
        }
    }
    uint64_t deadline = rf_deadline(timeout_ns);
    rf_waiter w = {.adapt = &ep->rx_adapt};
    msg->lost_cpu = 0;
    for (;;) {
        msg->lost_cpu |= w.lost_cpu; /* before w starts over at a completion */
        if (ep->large_pending == 0) {
            ep->large_pending = -1;
            msg->length = ep->large_len;
            msg->slot = RF_SLOT_LARGE;
            msg->offset = 0;
            msg->source = ep->large_source;
            msg->stamp = ep->large_stamp;
            msg->large_generation = ep->large_gen;
            return RF_OK;
        }
        if (ep->large_pending < 0 && ep->slots[ep->head].done) {
            int rc = rf_take_head(ep, msg, err);
            if (rc != 1) {
                return rc;
            }
            continue;
        }
        ssize_t n = fi_cq_read(ep->rxcq, e, RF_CQ_BATCH);
        if (n > 0) {
            for (ssize_t i = 0; i < n; i++) {
                if (e[i].op_context == &ep->slots[0].ctx || e[i].op_context == &ep->slots[1].ctx) {
                    rf_slot *s = e[i].op_context == &ep->slots[0].ctx ? &ep->slots[0] : &ep->slots[1];
                    s->done = 1;
                    s->posted = 0;
                    s->len = e[i].len;
                    s->data = e[i].data;
                    if ((e[i].flags & FI_REMOTE_CQ_DATA) == 0 || e[i].tag != RF_TAG_EAGER) {
                        rf_failf(err, "fi_trecv: a message without Remora's CQ data (tag %llx, flags %llx): the peer "
                                      "speaks another protocol", (unsigned long long) e[i].tag,
                                 (unsigned long long) e[i].flags);
                        return rf_break(ep, err);
                    }
                } else {
                    ep->large_pending--;
                }
            }
            rf_adapt_note(ep, &w);
            w = (rf_waiter){.adapt = &ep->rx_adapt};
            continue;
        }
        if (n != -FI_EAGAIN) {
            int code = rf_cq_error(ep, ep->rxcq, n, "fi_trecv completion", err);
            if (code == FI_ECANCELED && ep->closing) {
                return RF_CLOSED;
            }
            if (code == FI_ETRUNC) {
                size_t l = strlen(err);
                snprintf(err + l, RF_ERR_LEN - l, ": a message overran its %u-byte slot, peer speaks another protocol",
                         RF_EAGER);
            }
            return rf_break(ep, err);
        }
        int rc = rf_idle(ep, &w, ep->rxcq, ep->rxfd, deadline);
        if (rc == RF_CLOSED) {
            return RF_CLOSED;
        }
        if (rc == RF_TIMEOUT) {
            return RF_TIMEOUT;
        }
    }
}

void *rf_buffer(rf_ep *ep, int slot, size_t *capacity) {
    if (slot == RF_SLOT_SHARED) {
        *capacity = ep->sh_rx_cap;
        return ep->sh_rx == NULL ? NULL : ep->sh_rx + RF_SHARED_HDR;
    }
    if (slot == RF_SLOT_LARGE) {
        *capacity = ep->large_cap;
        return ep->large;
    }
    *capacity = RF_EAGER;
    return ep->slots[slot & 1].buf;
}

int rf_waits_on_fd(rf_ep *ep) {
    return ep->rxfd >= 0;
}

void rf_sleep_deeply(rf_ep *ep) {
    ep->deep = 1;
    __sync_synchronize();
}

/* Makes the eventfd readable: a deep sleep (or a poll on the CQ fd) ends. Callers set their flag first. */
static void rf_poke(rf_ep *ep) {
    __sync_synchronize();
    if (ep->wakefd >= 0) {
        uint64_t one = 1;
        ssize_t rc = write(ep->wakefd, &one, sizeof(one));
        (void) rc;
    }
}

void rf_bell(rf_ep *ep) {
    ep->deep = 0;
    rf_poke(ep);
}

void rf_wakeup(rf_ep *ep) {
    ep->closing = 1;
    rf_poke(ep);
    if (ep->sh_tx != NULL) { /* a receiver blocked on its ring's flag */
        rf_shared_hdr *h = (rf_shared_hdr *) ep->sh_tx;
        __atomic_store_n(&h->rx_sleeping, 0, __ATOMIC_SEQ_CST);
        (void) rf_futex(&h->rx_sleeping, FUTEX_WAKE, INT_MAX, NULL);
    }
}

void rf_close(rf_ep *ep) {
    if (ep == NULL) {
        return;
    }
    if (ep->behind > 0 && ep->txcq != NULL && !ep->broken && !rf_self_peer_gone(ep)) {
        /* sends left behind: the peer's kernel reads them from the ring freed below; give it a moment (a broken
         * endpoint reports no more completions). Not rf_wait_tx: its rf_idle returns at once once rf_wakeup ran. */
        uint64_t deadline = rf_deadline(RF_BEHIND_DRAIN_NS);
        int none = 0;
        char err[RF_ERR_LEN];
        while (ep->behind > 0 && rf_now() < deadline && rf_tx_poll(ep, &none, err) != RF_ERROR) {
            sched_yield();
        }
    }
    /* A peer that has not read a message yet would read it later from memory this process reuses: wrong bytes
     * instead of an error. Those buffers stay (at most the ring and one staging buffer, once per such close). */
    int unsettled = ep->behind > 0 || ep->tx_unsettled;
    if (ep->addrlen > 0) {
        rf_region_track(ep, 0); /* closing the endpoint removes its region */
    }
    /* the endpoint first: closing it drops the receives still posted into our buffers */
    if (ep->ep != NULL) {
        fi_close(&ep->ep->fid);
    }
    if (ep->rxcq != NULL) {
        fi_close(&ep->rxcq->fid);
    }
    if (ep->txcq != NULL) {
        fi_close(&ep->txcq->fid);
    }
    if (ep->av != NULL) {
        fi_close(&ep->av->fid);
    }
    if (ep->domain != NULL) {
        fi_close(&ep->domain->fid);
    }
    if (ep->fabric != NULL) {
        fi_close(&ep->fabric->fid);
    }
    if (ep->info != NULL) {
        fi_freeinfo(ep->info);
    }
    if (ep->wakefd >= 0) {
        close(ep->wakefd);
    }
    /* shared rings: a peer that still reads ours keeps its own mapping */
    if (ep->sh_tx != NULL) {
        munmap(ep->sh_tx, RF_SHARED_HDR + ep->sh_tx_cap);
    }
    if (ep->sh_name[0] != '\0') {
        shm_unlink(ep->sh_name);
        rf_name_track(ep->sh_name, 0);
    }
    if (ep->sh_rx != NULL) {
        munmap(ep->sh_rx, RF_SHARED_HDR + ep->sh_rx_cap);
    }
    free(ep->slots[0].buf);
    free(ep->slots[1].buf);
    free(ep->large);
    if (!unsettled) {
        free(ep->staging);
        free(ep->ring);
    }
    free(ep->peers);
    free(ep);
}
