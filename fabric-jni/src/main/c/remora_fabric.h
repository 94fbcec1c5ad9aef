/*
 * remora_fabric: Remora's message endpoint over libfabric FI_EP_RDM (the core, free of JNI so that a plain C test
 * can drive it under valgrind). The JNI glue in remora_fabric_jni.c is a thin layer over these calls.
 *
 * Wire format (tagged messages; the sender's stamp is a 30-bit hash of its fabric address that the receiver maps
 * back to the peer handle it got from rf_insert):
 *   - a message of at most RF_EAGER bytes travels as one tagged send, tag = 0, remote CQ data = stamp;
 *   - over shm with shared rings (rf_shared_create), a message above the inject size and up to a quarter of the
 *     sender's ring is written into that ring and announced by a 16-byte descriptor (start, length: 64-bit counts,
 *     native byte order), tag = 0, CQ data = RF_DATA_SHARED | stamp;
 *   - a longer message travels as an announcement, tag = 0, CQ data = RF_DATA_LARGE | stamp, holding its 8-byte
 *     total length (native byte order), then as segments, tag = RF_TAG_CONT | stamp, of at most the provider's
 *     max_msg_size (capped at 64 MiB) each, in order (FI_ORDER_SAS), straight from the sender's buffer.
 * Receives of eager messages match tag 0 exactly: see RF_TAG_EAGER in remora_fabric.c for the shm bug this avoids.
 * The receiver keeps two RF_EAGER slots posted (one being read by the caller, one receiving), and a large-message
 * buffer that grows on demand, into which it posts the segments' receives once the announcement arrived (the
 * provider's rendezvous, CMA on shm, then copies once); segment receives match the exact tag, so other peers'
 * messages wait.
 *
 * Threading: rf_send from one thread at a time, rf_recv from one (other) thread at a time, rf_wakeup, rf_sleep_deeply
 * and rf_bell from any thread; rf_close only when no other call is running (the Java layer enforces all three).
 */
#ifndef REMORA_FABRIC_H
#define REMORA_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#define RF_EAGER (256u * 1024u)       /* largest single-segment message; a protocol constant */
#define RF_ERR_LEN 320

#define RF_OK 0
#define RF_TIMEOUT 1                  /* rf_recv only: no message before the deadline */
#define RF_ERROR (-1)                 /* err holds "fi_call: fi_strerror text (code)" */
#define RF_CLOSED (-2)                /* rf_wakeup was called */

#define RF_SLOT_LARGE 2               /* rf_msg.slot of a message held in the large buffer */
#define RF_SLOT_SHARED 3              /* rf_msg.slot of a message read where it lies, in the peer's shared ring */

#define RF_LOST_CPU_NS 500000ll       /* a yield this long lost the CPU to a thread that runs for whole slices */

typedef struct rf_ep rf_ep;

/* Where the last received message is: returned by rf_recv; the buffer stays valid until the next rf_recv. */
typedef struct rf_msg {
    int64_t length;
    int64_t source;                   /* peer handle from rf_insert, or -1 if the sender was not inserted */
    int64_t slot;                     /* 0, 1 or RF_SLOT_LARGE */
    int64_t large_generation;         /* changes whenever the large buffer is reallocated */
    int64_t stamp;                    /* the sender's stamp (for diagnostics) */
    int64_t offset;                   /* where the message starts in its slot's buffer (RF_SLOT_SHARED; else 0) */
    int64_t lost_cpu;                 /* 1: this wait stopped spinning because a yield lost the CPU (RF_LOST_CPU_NS);
                                       * set by every rf_recv, also one that times out */
    int64_t yields;                   /* sched_yield calls of this endpoint's receives so far (diagnostics, tests) */
} rf_msg;

/* How a thread waits for a completion: busy_polls pure polls, then polls with sched_yield (if yield) until its spin
 * budget is spent, then sleeps (CQ fd, or naps doubling up to max_sleep_ns). The budget is spin_ns, or, when
 * spin_max_ns is larger, twice what such waits have lately lasted, between spin_ns and spin_max_ns. A receiver that
 * rf_sleep_deeply allowed to sleeps on the endpoint's eventfd instead of napping, until rf_bell or for deep_sleep_ns
 * at most (<= 0: 100 ms). */
typedef struct rf_wait_policy {
    int64_t spin_ns;
    int64_t spin_max_ns;
    int64_t max_sleep_ns;
    int yield;
    int busy_polls;
    int64_t deep_sleep_ns;
} rf_wait_policy;

/* Opens libfabric (dlopen, keeping the process's signal handlers); idempotent. Every other call does it first. */
int rf_init(char *err);

const char *rf_libfabric_version(void);

/* Writes the names of providers that offer tagged RDM endpoints, separated by '\n', into buf. */
int rf_providers(char *buf, size_t buflen, char *err);

int rf_open(const char *provider, rf_ep **out, char *err);

void rf_set_wait(rf_ep *ep, const rf_wait_policy *policy);

int rf_address(rf_ep *ep, const void **addr, size_t *len);

size_t rf_inject_size(rf_ep *ep);

const char *rf_provider_name(rf_ep *ep);

int rf_insert(rf_ep *ep, const void *addr, size_t len, int64_t *peer, char *err);

int rf_remove(rf_ep *ep, int64_t peer, char *err);

/* Sends len bytes; returns when the buffer may be reused (a send from rf_staging's ring may still be in flight: the
 * ring keeps its region until it completed). timeout_ns bounds the wait for a slow or dead peer. */
int rf_send(rf_ep *ep, int64_t peer, const void *buf, size_t len, int64_t timeout_ns, char *err);

/* A staging buffer of at least len bytes for the next rf_send, for callers that copy before sending (NULL with err
 * filled: out of memory, or the ring's earlier sends did not complete within timeout_ns); free again once that rf_send
 * returned. Page-aligned, as the receive buffers are (see rf_copy for why a sender's and a receiver's buffers must
 * agree). Over shm, messages above the inject size and up to a quarter of the send ring are placed one after another
 * in the ring (see rf_set_send_ring), others in one fixed buffer. */
void *rf_staging(rf_ep *ep, size_t len, int64_t timeout_ns, char *err);

/* Size of the send ring (rounded up to 4096 bytes; 0: none, every message is staged in one buffer). Default
 * RF_SEND_RING_DEFAULT; allocated on first use. Call before the first send. */
void rf_set_send_ring(rf_ep *ep, size_t bytes);
#define RF_SEND_RING_DEFAULT (4u << 20)
#define RF_BEHIND_MAX 32             /* sends from the ring that may complete behind the caller (see rf_send) */

/*
 * memcpy for large copies whose source and destination may sit at any offset from each other. glibc's memcpy moves
 * large blocks with `rep movsb`, which on this project's machine (AMD EPYC, Zen 4) runs 16 times slower when the
 * destination lies 1 to 15 bytes past the source modulo 64: 100 KB in 28.5 us instead of 1.8 (1 MB: 285 us instead of
 * 20), and 1.3-1.6 times slower at most other offsets. Java arrays sit at any multiple of 8 in the heap, so a copy
 * from one into native memory hit that at random, for as long as the allocation pattern held. rf_copy aligns the
 * destination to 64 bytes and moves the rest with vector loads and aligned stores (AVX2 where the CPU has it, else
 * SSE2): 1.7-1.9 us for 100 KB at every offset. Copies under RF_COPY_MIN bytes are memcpy's. The kernel's copy has
 * the same flaw, which is why process_vm_readv (shm's CMA) needs the sender's and receiver's buffers congruent
 * modulo 64: 7.7 us for 100 KB, 11-13 us at other offsets, 40-54 us in that band (see rf_send).
 */
void rf_copy(void *dst, const void *src, size_t n);
#define RF_COPY_MIN 4096u

/*
 * Shared rings, shm only (see remora_fabric.c): rf_shared_create makes this endpoint's ring of `bytes` (rounded up
 * to pages, at least 64 KiB) in /dev/shm, once, and writes its name; the peer maps it with rf_shared_attach(name);
 * rf_shared_enable(ep, peer_mapped_it) then unlinks the name and, if the peer mapped it, makes rf_staging hand out
 * regions of it for messages above the inject size and up to a quarter of it, which rf_send then announces with a
 * 16-byte descriptor instead of sending. rf_shared_on: bit 0 sends use ours, bit 1 the peer's is mapped. Call these
 * before the first message, from the thread that sends.
 */
int rf_shared_create(rf_ep *ep, size_t bytes, char *name, size_t namelen, char *err);
int rf_shared_attach(rf_ep *ep, const char *name, char *err);
void rf_shared_enable(rf_ep *ep, int enable);
int rf_shared_on(rf_ep *ep);

/* Receives the next message; timeout_ns < 0 waits until a message, rf_wakeup or an error. A spin whose yield lost
 * the CPU for RF_LOST_CPU_NS or more (another thread runnable for whole slices on this CPU, e.g. a JIT compiler)
 * ends at once: the wait sleeps (fd, deep sleep or naps), and msg->lost_cpu says so, so that the caller can stop
 * spinning for its next waits. */
int rf_recv(rf_ep *ep, int64_t timeout_ns, rf_msg *msg, char *err);

/* The receive buffer of a slot and its capacity. */
void *rf_buffer(rf_ep *ep, int slot, size_t *capacity);

/* The spin budget (ns) the next wait for a message starts with (see rf_wait_policy): for diagnostics and tests. */
int64_t rf_spin_budget_rx(rf_ep *ep);

/* Bytes of native memory the endpoint holds for messages beyond its fixed receive slots: the large-message buffer,
 * the staging buffer and the send ring (not the shared rings, which are files in /dev/shm). For diagnostics and
 * tests; any thread (a racy read of sizes). */
size_t rf_held_bytes(rf_ep *ep);

/* Sends from the ring still in flight behind their callers (see rf_send); for tests. */
int rf_sends_behind(rf_ep *ep);

/* Whether waits sleep on a CQ fd (the provider has FI_WAIT_FD, e.g. tcp) rather than in naps (shm). */
int rf_waits_on_fd(rf_ep *ep);

/* Deep sleep, for providers without a wait fd, where napping costs CPU forever: the caller's peer has promised to
 * ring (the caller's own side channel, then rf_bell) before its next message, so rf_recv, once it has spun and napped
 * as usual, may sleep until the bell. Any thread; async-safe. */
void rf_sleep_deeply(rf_ep *ep);

/* The peer's bell: withdraws rf_sleep_deeply and wakes a receiver sleeping deeply, which then spins for the message
 * that follows the bell. Any thread; async-safe. */
void rf_bell(rf_ep *ep);

/* Makes blocked and future rf_recv / rf_send calls return RF_CLOSED. Async-safe with respect to the others. */
void rf_wakeup(rf_ep *ep);

/* Whether rf_wakeup was called: why rf_staging returned NULL, when it did. */
int rf_closing(rf_ep *ep);

void rf_close(rf_ep *ep);

#endif
