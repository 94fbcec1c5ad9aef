/*
 * C-level tests of the rf_* core, run by `make test` (and under valgrind by `make valgrind`).
 *
 * Two endpoints in one process over PROVIDER (default shm, argv[1] to override): an echo thread answers every
 * message; the main thread checks rf_copy against memcpy, 64 B, 100 KB, a segmented 3 MB message (also from sources
 * that are not 64-byte aligned), receive timeout (and the timer slack of
 * its naps), deep sleep until the bell, that a busy thread on the receiver's CPU ends a spin (and does not delay a
 * message by its slices), wakeup, an unknown provider's error text and close. Exit status 0 when all
 * pass; each failure prints one line.
 *
 * Over shm also: shared rings (messages read where they lie in the sender's ring; full ring; no reader).
 * Over shm it first leaves files in /dev/shm under the names the provider gives this process's first endpoints, as a
 * killed process with the same PID would: opening must still succeed; and a child process that exits with an
 * endpoint open must leave no region file behind.
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "remora_fabric.h"

static int failures;

#define CHECK(cond, ...)                                                                                         \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            failures++;                                                                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                 \
            fprintf(stderr, __VA_ARGS__);                                                                        \
            fprintf(stderr, "\n");                                                                               \
        }                                                                                                        \
    } while (0)

/* Whether valgrind runs this test (make valgrind): it runs one thread at a time, so timing checks mean nothing. */
static int under_valgrind(void) {
    const char *preload = getenv("LD_PRELOAD");
    return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

/* Over shm: a child opens an endpoint and exits without closing it; its region file must be gone after. */
static void exit_leaves_no_region(void) {
    int fds[2];
    if (pipe(fds) != 0) {
        CHECK(0, "pipe failed");
        return;
    }
    pid_t child = fork();
    if (child == 0) {
        char err[RF_ERR_LEN];
        rf_ep *ep = NULL;
        char name[256] = "";
        if (rf_open("shm", &ep, err) == RF_OK) {
            const void *addr;
            size_t len;
            rf_address(ep, &addr, &len);
            snprintf(name, sizeof(name), "/dev/shm/%s", (const char *) addr + 9); /* after "fi_shm://" */
        }
        if (write(fds[1], name, sizeof(name)) != (ssize_t) sizeof(name)) {
            _exit(3);
        }
        exit(0); /* endpoint still open */
    }
    char name[256] = "";
    ssize_t got = read(fds[0], name, sizeof(name));
    int status = 0;
    waitpid(child, &status, 0);
    close(fds[0]);
    close(fds[1]);
    CHECK(got == (ssize_t) sizeof(name) && name[0] != '\0', "the child could not open an shm endpoint");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child ended with status %d", status);
    if (name[0] != '\0') {
        CHECK(access(name, F_OK) != 0, "%s is left behind by a process that exited with its endpoint open", name);
        unlink(name);
    }
}

static volatile sig_atomic_t segv_seen;
static volatile int watch_stop;
static volatile int window_seen;
static char first_region[64];

static void on_segv(int sig, siginfo_t *info, void *ctx) {
    segv_seen++;
}

/* Whether SIGSEGV's handler is another than the process's own (on_segv). */
static int segv_not_ours(void) {
    struct sigaction now;
    return sigaction(SIGSEGV, NULL, &now) == 0 && now.sa_sigaction != on_segv;
}

/*
 * Watches, as rf_open runs, for a moment when the new region exists while SIGSEGV is not the process's own handler
 * (the JVM's, here on_segv); then raises SIGSEGV, as a JVM thread at a safepoint poll does at any moment. The handler
 * is read before and after the region is seen: within one rf_open it changes to libfabric's and back once, so a
 * region seen between two reads that both found libfabric's existed under it. One read before only could see the
 * region made after the handler was put back (the watcher preempted between its two looks: CI failed so once).
 */
static void *window_watch_main(void *p) {
    while (!watch_stop) {
        if (segv_not_ours() && access(first_region, F_OK) == 0 && segv_not_ours()) {
            window_seen = 1;
            raise(SIGSEGV);
            return NULL;
        }
    }
    return NULL;
}

/*
 * Over shm: no moment of rf_open, for a process's first endpoint, leaves libfabric's SIGSEGV handler in place while
 * the new region exists. The provider's first fi_endpoint installs a handler that unlinks every region of the
 * process; a SIGSEGV in another thread then (the JVM raises them on purpose) removed the new region's name, and the
 * peer could not reach it. In a child, whose first endpoint this is: no such moment, and the region is the first one
 * (not made again) and still in /dev/shm.
 */
static void signals_during_the_first_open_keep_its_region(void) {
    if (under_valgrind()) {
        /* valgrind runs one thread at a time: the watcher's busy loop then took 2-9 minutes of the open's turns
         * and no window can be seen anyway; the plain run (make test) checks it */
        return;
    }
    pid_t child = fork();
    if (child == 0) {
        struct sigaction a = {0};
        a.sa_sigaction = on_segv;
        a.sa_flags = SA_SIGINFO | SA_RESTART;
        sigaction(SIGSEGV, &a, NULL);
        snprintf(first_region, sizeof(first_region), "/dev/shm/%d:%d:0", (int) getpid(), (int) getuid());
        /* a file of that name now is a killed process's that had this PID (PIDs wrap): the watcher would take it
         * for the new region (and rf_open steps over it anyway) */
        unlink(first_region);
        pthread_t t;
        if (pthread_create(&t, NULL, window_watch_main, NULL) != 0) {
            _exit(4);
        }
        char err[RF_ERR_LEN];
        rf_ep *ep = NULL;
        int rc = rf_open("shm", &ep, err);
        watch_stop = 1;
        pthread_join(t, NULL);
        if (rc != RF_OK) {
            fprintf(stderr, "child: %s\n", err);
            _exit(2);
        }
        const void *addr;
        size_t len;
        rf_address(ep, &addr, &len);
        char name[300];
        snprintf(name, sizeof(name), "/dev/shm/%s", (const char *) addr + 9); /* after "fi_shm://" */
        int code = window_seen ? 5 : access(name, F_OK) != 0 ? 1 : strcmp(name, first_region) != 0 ? 3 : 0;
        if (code != 0) {
            fprintf(stderr, "child: region %s: %s\n", name, code == 5 ? "existed under libfabric's SIGSEGV handler"
                    : code == 1 ? "gone" : "not the first: made again");
        }
        rf_close(ep);
        _exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "rf_open's first endpoint: its region existed while "
          "libfabric's SIGSEGV handler was installed, or did not survive (child status %d)", status);
}

/* Reads this process's main thread's timer slack (ns), or -1. */
static long main_thread_slack(void) {
    FILE *f = fopen("/proc/self/timerslack_ns", "r");
    long v = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &v) != 1) {
            v = -1;
        }
        fclose(f);
    }
    return v;
}

typedef struct slack_probe {
    volatile int stop;
    long lowest;
} slack_probe;

static void *slack_probe_main(void *p) {
    slack_probe *probe = p;
    while (!probe->stop) {
        long v = main_thread_slack();
        if (v >= 0 && (probe->lowest < 0 || v < probe->lowest)) {
            probe->lowest = v;
        }
        usleep(1000);
    }
    return NULL;
}

/* Naps sleep with a timer slack in proportion to the nap (a 50 us default slack made a 1 us nap last 60 us), and
 * give the thread its own slack back afterwards. Runs on the main thread: /proc/self/timerslack_ns is the main
 * thread's, which a second thread watches while the main thread waits out a receive timeout. */
static void naps_use_a_small_timer_slack(rf_ep *ep) {
    char err[RF_ERR_LEN];
    const unsigned long mine = 777777;
    if (prctl(PR_SET_TIMERSLACK, mine, 0, 0, 0) != 0 || main_thread_slack() != (long) mine) {
        printf("test_remora_fabric: timer slack not observable here, nap check skipped\n");
        return;
    }
    slack_probe probe = {.stop = 0, .lowest = -1};
    pthread_t t;
    pthread_create(&t, NULL, slack_probe_main, &probe);
    rf_msg msg;
    int rc = rf_recv(ep, 300000000, &msg, err);
    probe.stop = 1;
    pthread_join(t, NULL);
    CHECK(rc == RF_TIMEOUT, "recv without a message did not time out (rc %d)", rc);
    CHECK(probe.lowest >= 0 && probe.lowest <= 100000, "a waiting receive napped with timer slack %ld ns (expected at"
          " most max_sleep / 8 = 25000 ns, never the thread's own 777777)", probe.lowest);
    CHECK(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) == (int) mine, "the thread's timer slack was not restored: %d",
          prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
    prctl(PR_SET_TIMERSLACK, 0, 0, 0, 0); /* 0: back to the default */
}

typedef struct recv_arg {
    rf_ep *ep;
    volatile int rc;                 /* -100 while rf_recv runs */
    rf_msg msg;
} recv_arg;

static void *recv_main(void *p) {
    recv_arg *r = p;
    char err[RF_ERR_LEN];
    r->rc = rf_recv(r->ep, 20000000000ll, &r->msg, err);
    return NULL;
}

/* Whether r's rf_recv returned within ms milliseconds. */
static int returns_within(recv_arg *r, int ms) {
    for (int i = 0; i < ms && r->rc == -100; i++) {
        usleep(1000);
    }
    return r->rc != -100;
}

/*
 * A receiver allowed to sleep deeply (long deep_sleep_ns) does not see a message sent without the bell, however long
 * it waits, and takes it at once when rung; the bell withdraws the permission, so the next idle wait naps again and a
 * message without bell gets through. Only for providers without a wait fd (over tcp the CQ fd wakes the receiver).
 */
static void deep_sleep_until_the_bell(rf_ep *a, rf_ep *b, int64_t peer_a) {
    if (rf_waits_on_fd(a)) {
        return;
    }
    char err[RF_ERR_LEN];
    /* shm's first message to a peer needs the receiver's progress (it maps the sender): not while it sleeps */
    recv_arg r = {.ep = a, .rc = -100};
    pthread_t t;
    pthread_create(&t, NULL, recv_main, &r);
    CHECK(rf_send(b, peer_a, "hi", 2, 1000000000ll, err) == RF_OK, "first send to a: %s", err);
    pthread_join(t, NULL);
    CHECK(r.rc == RF_OK, "first receive on a: rc %d", r.rc);
    rf_wait_policy deep = {.spin_ns = 20000, .max_sleep_ns = 200000, .yield = 1, .busy_polls = 20,
                           .deep_sleep_ns = 30000000000ll};
    rf_set_wait(a, &deep);
    rf_sleep_deeply(a);
    r.rc = -100;
    pthread_create(&t, NULL, recv_main, &r);
    usleep(300000); /* spun, napped, now asleep on the eventfd (time to spare under valgrind) */
    CHECK(rf_send(b, peer_a, "deep", 4, 1000000000ll, err) == RF_OK, "send to the deep sleeper: %s", err);
    CHECK(!returns_within(&r, 300), "a deep sleeper took a message without the bell (rc %d)", r.rc);
    rf_bell(a);
    CHECK(returns_within(&r, 5000), "the bell did not wake the deep sleeper within 5 s");
    pthread_join(t, NULL);
    CHECK(r.rc == RF_OK && r.msg.length == 4, "deep sleeper: rc %d, length %lld", r.rc, (long long) r.msg.length);

    r.rc = -100; /* the bell withdrew deep sleep: an idle receiver naps again, and a plain message gets through */
    pthread_create(&t, NULL, recv_main, &r);
    usleep(100000);
    CHECK(rf_send(b, peer_a, "nap", 3, 1000000000ll, err) == RF_OK, "send to the napper: %s", err);
    CHECK(returns_within(&r, 5000), "after the bell, a receiver still slept deeply");
    pthread_join(t, NULL);
    CHECK(r.rc == RF_OK && r.msg.length == 3, "napper: rc %d, length %lld", r.rc, (long long) r.msg.length);
    rf_wait_policy plain = {.spin_ns = 20000, .max_sleep_ns = 200000, .yield = 1, .busy_polls = 20};
    rf_set_wait(a, &plain);
}

static volatile int hog_stop;

static void *hog_main(void *p) {
    (void) p;
    while (!hog_stop) {
        /* always runnable: as a JVM's JIT compiler is while it recompiles */
    }
    return NULL;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

typedef struct late_sender {
    rf_ep *ep;
    int64_t peer;
    volatile uint64_t sent_at;
    int rc;
} late_sender;

static void *late_send_main(void *p) {
    late_sender *l = p;
    char err[RF_ERR_LEN];
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
    l->sent_at = now_ns();
    l->rc = rf_send(l->ep, l->peer, "late", 4, 1000000000ll, err);
    return NULL;
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;
    return a < b ? -1 : a > b;
}

/*
 * A thread that is always runnable (as a JVM's JIT compiler is while it recompiles) shares the receiving thread's
 * CPU; a message comes from another CPU 5 ms into the receive, whose spin budget (200 ms) outlasts it. A yield may
 * give that thread a whole slice, so a receiver that went on spinning would see the message only when the slice
 * ended. The receiver must stop spinning at the first yield that lost the CPU, say so (lost_cpu), and nap instead:
 * a napper's timer preempts the busy thread. Median of 8 receives.
 */
static void a_busy_cpu_ends_the_spin(rf_ep *rx, rf_ep *tx, int64_t rx_peer) {
    char err[RF_ERR_LEN];
    cpu_set_t saved, one;
    if (under_valgrind()) {
        return; /* valgrind runs one thread at a time on its own scheduler: no timing to check */
    }
    if (pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) != 0 || CPU_COUNT(&saved) < 2) {
        printf("test_remora_fabric: fewer than 2 CPUs, busy-CPU check skipped\n");
        return;
    }
    rf_wait_policy spin_long = {.spin_ns = 200000000, .max_sleep_ns = 200000, .yield = 1, .busy_polls = 20};
    rf_set_wait(rx, &spin_long);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    pthread_attr_t on_one, anywhere;
    pthread_attr_init(&on_one);
    pthread_attr_setaffinity_np(&on_one, sizeof(one), &one);
    pthread_attr_init(&anywhere);
    pthread_attr_setaffinity_np(&anywhere, sizeof(saved), &saved);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    hog_stop = 0;
    pthread_t hog;
    pthread_create(&hog, &on_one, hog_main, NULL);
    uint64_t lat[8];
    int lost = 0;
    for (int i = 0; i < 8; i++) {
        late_sender l = {.ep = tx, .peer = rx_peer};
        pthread_t t;
        pthread_create(&t, &anywhere, late_send_main, &l);
        rf_msg msg;
        int rc = rf_recv(rx, 2000000000ll, &msg, err);
        uint64_t got = now_ns();
        pthread_join(t, NULL);
        CHECK(rc == RF_OK && l.rc == RF_OK && msg.length == 4, "late message %d: recv %d, send %d", i, rc, l.rc);
        lat[i] = got - l.sent_at;
        lost += msg.lost_cpu == 1;
    }
    hog_stop = 1;
    pthread_join(hog, NULL);
    pthread_attr_destroy(&on_one);
    pthread_attr_destroy(&anywhere);
    pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
    rf_wait_policy plain = {.spin_ns = 20000, .max_sleep_ns = 200000, .yield = 1, .busy_polls = 20};
    rf_set_wait(rx, &plain);
    qsort(lat, 8, sizeof(lat[0]), cmp_u64);
    printf("test_remora_fabric: busy CPU: %d of 8 receives lost it, delay median %llu us, max %llu us\n", lost,
           (unsigned long long) (lat[4] / 1000), (unsigned long long) (lat[7] / 1000));
    CHECK(lost >= 4, "with a thread always runnable on its CPU, only %d of 8 receives said their spin lost it", lost);
    CHECK(lat[4] < 1000000, "with a busy thread on its CPU a receive saw a message %llu us after it was sent (median)",
          (unsigned long long) (lat[4] / 1000));
}

typedef struct echo_arg {
    rf_ep *ep;
    int rc;
    int messages;
    volatile long delay_ns;          /* a pause before each answer: a peer that takes a while */
} echo_arg;

static void *echo_main(void *p) {
    echo_arg *a = p;
    char err[RF_ERR_LEN];
    rf_msg msg;
    for (;;) {
        int rc = rf_recv(a->ep, -1, &msg, err);
        if (rc != RF_OK) {
            a->rc = rc;
            if (rc == RF_ERROR) {
                fprintf(stderr, "echo: %s\n", err);
            }
            return NULL;
        }
        if (a->delay_ns > 0) { /* asleep, not busy: on a shared CPU the waiting side must still see the whole wait */
            struct timespec ts = {a->delay_ns / 1000000000, a->delay_ns % 1000000000};
            nanosleep(&ts, NULL);
        }
        size_t cap;
        char *buf = (char *) rf_buffer(a->ep, (int) msg.slot, &cap) + msg.offset;
        if (msg.source < 0 || rf_send(a->ep, msg.source, buf, (size_t) msg.length, 10000000000ll, err) != RF_OK) {
            fprintf(stderr, "echo: send failed (source %lld): %s\n", (long long) msg.source, err);
            a->rc = RF_ERROR;
            return NULL;
        }
        a->messages++;
    }
}

/* Sends size bytes from skew bytes past a 64-byte boundary (shm sends those through the staging buffer), then checks
 * the echo. */
static void round_trip(rf_ep *client, int64_t peer, size_t size, size_t skew) {
    char err[RF_ERR_LEN];
    char *block = aligned_alloc(64, (size + skew + 63) & ~(size_t) 63);
    char *out = block + skew;
    for (size_t i = 0; i < size; i++) {
        out[i] = (char) (i * 31 + size);
    }
    int rc = rf_send(client, peer, out, size, 10000000000ll, err);
    CHECK(rc == RF_OK, "send %zu: %s", size, err);
    rf_msg msg;
    rc = rf_recv(client, 10000000000ll, &msg, err);
    CHECK(rc == RF_OK, "recv %zu: rc %d %s", size, rc, rc == RF_ERROR ? err : "");
    if (rc == RF_OK) {
        size_t cap;
        char *in = rf_buffer(client, (int) msg.slot, &cap);
        CHECK((size_t) msg.length == size, "length %lld, expected %zu", (long long) msg.length, size);
        CHECK(msg.source == peer, "source %lld, expected %lld", (long long) msg.source, (long long) peer);
        CHECK((size_t) msg.length != size || memcmp(in, out, size) == 0, "payload of %zu bytes differs", size);
        CHECK(size <= RF_EAGER || msg.slot == RF_SLOT_LARGE, "large message not in the large slot");
        CHECK(((uintptr_t) in & 4095) == 0, "receive buffer of slot %lld not page-aligned", (long long) msg.slot);
    }
    free(block);
}

typedef struct sink_arg {
    rf_ep *ep;
    int count;                       /* messages to take */
    size_t size;
    long delay_ns;                   /* a pause before each receive: a peer slower than the sender */
    int good;                        /* messages that arrived whole, in order */
} sink_arg;

/* Message i of a burst: size bytes that depend on i. */
static void burst_fill(char *p, size_t size, int i) {
    for (size_t k = 0; k < size; k++) {
        p[k] = (char) (k * 13 + (size_t) i * 101);
    }
}

static void *sink_main(void *p) {
    sink_arg *a = p;
    char err[RF_ERR_LEN];
    char *want = malloc(a->size);
    for (int i = 0; i < a->count; i++) {
        struct timespec ts = {0, a->delay_ns};
        nanosleep(&ts, NULL);
        rf_msg msg;
        if (rf_recv(a->ep, 10000000000ll, &msg, err) != RF_OK) {
            break;
        }
        size_t cap;
        burst_fill(want, a->size, i);
        if ((size_t) msg.length == a->size && memcmp((char *) rf_buffer(a->ep, (int) msg.slot, &cap) + msg.offset, want,
                                                   a->size) == 0) {
            a->good++;
        }
    }
    free(want);
    return NULL;
}

/*
 * Over shm, a message staged in the send ring completes behind its sender (rf_send). Against a receiver that takes
 * one message a millisecond: the first RF_BEHIND_MAX sends return at once, the next ones wait for a completion; every
 * message arrives whole and in order, also when the ring goes round with sends in flight (30 of 200 KB in a 4 MiB
 * ring: it waits for the last round's sends). And an endpoint closed with sends still in flight keeps their ring until the peer read
 * them (rf_close).
 */
static void sends_complete_behind(const char *prov, rf_ep *b) {
    if (strcmp(prov, "shm") != 0) {
        return;
    }
    char err[RF_ERR_LEN];
    size_t sizes[] = {5000, 200000};
    int counts[] = {RF_BEHIND_MAX + 8, 30};
    for (int round = 0; round < 3; round++) {
        rf_ep *c = NULL;
        if (rf_open(prov, &c, err) != RF_OK) {
            CHECK(0, "cannot open a third endpoint: %s", err);
            return;
        }
        const void *addr;
        size_t len;
        rf_address(b, &addr, &len);
        int64_t peer = -1;
        CHECK(rf_insert(c, addr, len, &peer, err) == RF_OK, "insert: %s", err);
        int closing = round == 2; /* close c right after a few sends, before b read any */
        size_t size = sizes[round == 1];
        sink_arg sink = {.ep = b, .count = closing ? 3 : counts[round == 1], .size = size, .delay_ns = 1000000};
        pthread_t t;
        pthread_create(&t, NULL, sink_main, &sink);
        int most = 0;
        for (int i = 0; i < sink.count; i++) {
            char *p = rf_staging(c, size, 10000000000ll, err);
            CHECK(p != NULL, "staging: %s", err);
            if (p == NULL) {
                break;
            }
            burst_fill(p, size, i);
            CHECK(rf_send(c, peer, p, size, 10000000000ll, err) == RF_OK, "send %d of %zu bytes: %s", i, size, err);
            most = rf_sends_behind(c) > most ? rf_sends_behind(c) : most;
        }
        if (closing) {
            CHECK(rf_sends_behind(c) > 0, "no send in flight when the endpoint closed");
            rf_close(c);
        }
        pthread_join(t, NULL);
        CHECK(sink.good == sink.count, "%d of %d messages of %zu bytes arrived whole (round %d)", sink.good,
              sink.count, size, round);
        if (round == 0) {
            CHECK(most == RF_BEHIND_MAX, "at most %d sends were in flight behind their callers", most);
        }
        if (!closing) {
            rf_close(c);
        }
    }
}

/* Two fresh endpoints that know each other, for tests that need their own pair. */
static int open_pair(const char *prov, rf_ep **c, rf_ep **d, int64_t *to_d, int64_t *to_c) {
    char err[RF_ERR_LEN];
    *c = *d = NULL;
    if (rf_open(prov, c, err) != RF_OK || rf_open(prov, d, err) != RF_OK) {
        CHECK(0, "cannot open two more endpoints: %s", err);
        rf_close(*c);
        *c = NULL;
        return 0;
    }
    rf_wait_policy policy = {.spin_ns = 20000, .max_sleep_ns = 200000, .yield = 1, .busy_polls = 20};
    rf_set_wait(*c, &policy);
    rf_set_wait(*d, &policy);
    const void *addr;
    size_t len;
    rf_address(*d, &addr, &len);
    CHECK(rf_insert(*c, addr, len, to_d, err) == RF_OK, "insert: %s", err);
    rf_address(*c, &addr, &len);
    CHECK(rf_insert(*d, addr, len, to_c, err) == RF_OK, "insert: %s", err);
    return 1;
}

/* open_pair, for the shared-ring tests: over shm only (0 for any other provider). */
static int open_shm_pair(const char *prov, rf_ep **c, rf_ep **d, int64_t *to_d, int64_t *to_c) {
    return strcmp(prov, "shm") == 0 && open_pair(prov, c, d, to_d, to_c);
}

/* Each side makes its shared ring (c's of c_ring bytes), maps the other's and enables its own. */
static void share(rf_ep *c, rf_ep *d, size_t c_ring) {
    char err[RF_ERR_LEN], name_c[64], name_d[64], path[96];
    CHECK(rf_shared_create(c, c_ring, name_c, sizeof(name_c), err) == RF_OK, "create: %s", err);
    CHECK(rf_shared_create(d, RF_SEND_RING_DEFAULT, name_d, sizeof(name_d), err) == RF_OK, "create: %s", err);
    CHECK(rf_shared_attach(c, "../etc/passwd", err) == RF_ERROR && strstr(err, "not the name") != NULL,
          "a bad name was not refused: %s", err);
    CHECK(rf_shared_attach(c, "1:remora:999999", err) == RF_ERROR && strstr(err, "shm_open") != NULL,
          "a missing ring was not refused: %s", err);
    CHECK(rf_shared_attach(d, name_c, err) == RF_OK, "attach %s: %s", name_c, err);
    CHECK(rf_shared_attach(c, name_d, err) == RF_OK, "attach %s: %s", name_d, err);
    CHECK(rf_shared_attach(c, name_d, err) == RF_ERROR, "a second attach succeeded");
    rf_shared_enable(c, 1);
    rf_shared_enable(d, 1);
    snprintf(path, sizeof(path), "/dev/shm/%s", name_c);
    CHECK(access(path, F_OK) != 0, "%s still linked after enable", path);
    CHECK(rf_shared_on(c) == 3 && rf_shared_on(d) == 3, "shared rings on: %d %d", rf_shared_on(c), rf_shared_on(d));
}

/*
 * Shared rings (shm): messages above the inject size and up to a quarter of the sender's ring are read where they lie
 * in it (RF_SLOT_SHARED); larger ones still go by CMA. c's ring is 256 KiB, so 64 KiB messages wrap it every few and
 * 65 KiB ones take the CMA path. A receiver that takes one message a millisecond makes a burst of 40 x 50 KB wait for
 * ring space (every message whole, in order); one that reads nothing makes a send fail at its timeout with a message
 * that says so; rf_close then frees both mappings (valgrind).
 */
/*
 * With shared rings both ways, a receiver that has stopped spinning blocks on its ring's flag, and the peer's post
 * wakes it: with naps of up to 50 ms allowed, a message sent 20 ms into a receive that does not spin must arrive in
 * a few ms, not at the end of a nap (about 13 ms later). rf_wakeup must wake such a receiver too.
 */
static void a_message_wakes_a_blocked_receiver(const char *prov) {
    char err[RF_ERR_LEN];
    rf_ep *c, *d;
    int64_t to_d = -1, to_c = -1;
    if (!open_shm_pair(prov, &c, &d, &to_d, &to_c)) {
        return;
    }
    share(c, d, 256 * 1024);
    recv_arg r = {.ep = c, .rc = -100};
    pthread_t t;
    pthread_create(&t, NULL, recv_main, &r); /* shm's first message needs the receiver's progress: one at once */
    CHECK(rf_send(d, to_c, "hi", 2, 1000000000ll, err) == RF_OK, "first send to c: %s", err);
    pthread_join(t, NULL);
    CHECK(r.rc == RF_OK, "first receive on c: rc %d", r.rc);
    rf_wait_policy no_spin = {.spin_ns = 0, .max_sleep_ns = 50000000, .yield = 1, .busy_polls = 0};
    rf_set_wait(c, &no_spin);
    uint64_t delay[3];
    for (int i = 0; i < 3; i++) {
        r.rc = -100;
        pthread_create(&t, NULL, recv_main, &r);
        usleep(20000);
        uint64_t sent = now_ns();
        CHECK(rf_send(d, to_c, "wake", 4, 1000000000ll, err) == RF_OK, "send %d to c: %s", i, err);
        while (r.rc == -100 && now_ns() - sent < 5000000000ull) {
            usleep(50);
        }
        delay[i] = now_ns() - sent;
        pthread_join(t, NULL);
        CHECK(r.rc == RF_OK && r.msg.length == 4, "blocked receive %d: rc %d", i, r.rc);
    }
    qsort(delay, 3, sizeof(delay[0]), cmp_u64);
    CHECK(under_valgrind() || delay[1] < 5000000, /* valgrind's own scheduler: no timing */
          "a receiver that did not spin took a message %llu us after it was sent (median of 3)",
          (unsigned long long) (delay[1] / 1000));
    r.rc = -100;
    pthread_create(&t, NULL, recv_main, &r);
    usleep(20000);
    rf_wakeup(c);
    CHECK(returns_within(&r, 40), "rf_wakeup did not end a blocked receive within 40 ms");
    pthread_join(t, NULL);
    CHECK(r.rc == RF_CLOSED, "a blocked receive ended by rf_wakeup returned %d", r.rc);
    rf_close(d);
    rf_close(c);
}

static void shared_rings(const char *prov) {
    char err[RF_ERR_LEN];
    rf_ep *c, *d;
    int64_t to_d = -1, to_c = -1;
    if (!open_shm_pair(prov, &c, &d, &to_d, &to_c)) {
        return;
    }
    /* a ring /dev/shm cannot hold: an error naming it, no file left behind, and a later ring still works */
    char name[64], path[96];
    CHECK(rf_shared_create(c, (size_t) 1 << 40, name, sizeof(name), err) == RF_ERROR && strstr(err, "/dev/shm"),
          "a 1 TiB ring: %s", err);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "/dev/shm/%d:remora:%d", (int) getpid(), i);
        CHECK(access(path, F_OK) != 0, "%s left behind", path);
    }
    share(c, d, 256 * 1024);
    echo_arg echo = {.ep = d};
    pthread_t t;
    pthread_create(&t, NULL, echo_main, &echo);
    size_t sizes[] = {64, 4097, 5000, 65536, 65536 + 64, 100000, 30000};
    for (int round = 0; round < 12; round++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            size_t size = sizes[i] + (size_t) round * 8;
            size = size > 65536 && sizes[i] == 65536 ? 65536 : size;
            char *p = rf_staging(c, size, 10000000000ll, err);
            CHECK(p != NULL, "staging %zu: %s", size, err);
            if (p == NULL) {
                continue;
            }
            burst_fill(p, size, round);
            CHECK(rf_send(c, to_d, p, size, 10000000000ll, err) == RF_OK, "send %zu: %s", size, err);
            rf_msg msg;
            int rc = rf_recv(c, 10000000000ll, &msg, err);
            CHECK(rc == RF_OK, "recv %zu: %s", size, rc == RF_ERROR ? err : "timeout");
            if (rc != RF_OK) {
                continue;
            }
            size_t cap;
            char *in = (char *) rf_buffer(c, (int) msg.slot, &cap) + msg.offset;
            char *want = malloc(size);
            burst_fill(want, size, round);
            CHECK((size_t) msg.length == size && memcmp(in, want, size) == 0, "echo of %zu bytes differs", size);
            free(want);
            /* the echo comes back through d's 4 MiB ring whenever it is above the inject size */
            CHECK((msg.slot == RF_SLOT_SHARED) == (size > rf_inject_size(d)), "%zu bytes came in slot %lld", size,
                  (long long) msg.slot);
            CHECK(msg.slot != RF_SLOT_SHARED || (size_t) msg.offset + size <= cap, "offset %lld past the ring",
                  (long long) msg.offset);
        }
    }
    rf_wakeup(d);
    pthread_join(t, NULL);
    rf_close(d);
    rf_close(c);

    /* a slow reader: the sender waits for ring space */
    if (!open_pair(prov, &c, &d, &to_d, &to_c)) {
        return;
    }
    share(c, d, 256 * 1024);
    sink_arg sink = {.ep = d, .count = 40, .size = 50000, .delay_ns = 1000000};
    pthread_create(&t, NULL, sink_main, &sink);
    for (int i = 0; i < sink.count; i++) {
        char *p = rf_staging(c, sink.size, 10000000000ll, err);
        CHECK(p != NULL, "staging: %s", err);
        if (p == NULL) {
            break;
        }
        burst_fill(p, sink.size, i);
        CHECK(rf_send(c, to_d, p, sink.size, 10000000000ll, err) == RF_OK, "send %d: %s", i, err);
    }
    pthread_join(t, NULL);
    CHECK(sink.good == sink.count, "%d of %d messages through a full shared ring arrived whole", sink.good,
          sink.count);

    /* no reader at all: the send that finds no room fails at its timeout and says why */
    int failed_at = -1;
    for (int i = 0; i < 10 && failed_at < 0; i++) {
        char *p = rf_staging(c, 60000, 50000000ll, err);
        if (p == NULL || rf_send(c, to_d, p, 60000, 50000000ll, err) != RF_OK) {
            failed_at = i;
        }
    }
    CHECK(failed_at >= 3, "a send into a ring nobody reads failed at message %d", failed_at);
    CHECK(failed_at < 0 || strstr(err, "shared ring") != NULL, "unclear error: %s", err);
    rf_close(d);
    rf_close(c);
}

/*
 * rf_copy against memcpy: every size class (under RF_COPY_MIN, vector steps with a tail) at destination and source
 * offsets 0..63 apart, no byte written outside the destination. Also: staging buffers are page-aligned, as receive
 * buffers are (rf_copy's comment says why the two must be congruent).
 */
static void copies_are_exact(rf_ep *ep) {
    char err[RF_ERR_LEN];
    size_t sizes[] = {0, 1, 63, RF_COPY_MIN - 1, RF_COPY_MIN, RF_COPY_MIN + 1, 100000, 262144 + 77};
    size_t cap = 262144 + 77 + 256;
    unsigned char *src = malloc(cap), *dst = malloc(cap), *want = malloc(cap);
    for (size_t i = 0; i < cap; i++) {
        src[i] = (unsigned char) (i * 7 + i / 251);
    }
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        for (size_t so = 0; so < 64; so += 5) {
            for (size_t d = 0; d < 64; d += 3) {
                size_t n = sizes[k];
                memset(dst, 0xEE, cap);
                memset(want, 0xEE, cap);
                memcpy(want + 64 + d, src + so, n);
                rf_copy(dst + 64 + d, src + so, n);
                if (memcmp(dst, want, n + 64 + d + 64) != 0) {
                    CHECK(0, "rf_copy of %zu bytes, source +%zu, destination +%zu, differs from memcpy", n, so, d);
                    goto done;
                }
            }
        }
    }
done:
    free(src);
    free(dst);
    free(want);
    for (size_t n = 64; n <= 8u << 20; n *= 8) {
        void *staging = rf_staging(ep, n, -1, err);
        CHECK(staging != NULL && ((uintptr_t) staging & 4095) == 0, "staging buffer for %zu bytes at %p", n, staging);
    }
    if (strcmp(rf_provider_name(ep), "shm") == 0) { /* the send ring: pages one after another, then round again */
        rf_set_send_ring(ep, 1u << 20);
        char *first = rf_staging(ep, 100000, -1, err), *p = first;
        for (int i = 1; i < 10; i++) {
            char *next = rf_staging(ep, 100000, -1, err);
            CHECK(next == p + 102400, "ring message %d staged at +%td, expected +%d", i, next - first, i * 102400);
            p = next;
        }
        CHECK(rf_staging(ep, 100000, -1, err) == first, "the 11th 100 KB message did not go round the 1 MiB ring");
        CHECK(rf_staging(ep, 300000, -1, err) != first + 102400,
              "a message over a quarter of the ring was staged in it");
        rf_set_send_ring(ep, 0);
        char *again = rf_staging(ep, 100000, -1, err);
        CHECK(rf_staging(ep, 100000, -1, err) == again, "without a ring, messages were staged apart");
        rf_set_send_ring(ep, RF_SEND_RING_DEFAULT);
    }
}

/*
 * The adaptive spin: waits for a peer that answers after 300 us grow the receive's budget from spin_ns toward twice
 * that (no sleep, no 30-60 us wake-up); waits longer than spin_max_ns (an idle peer) bring it back to spin_ns; with
 * spin_max_ns at or below spin_ns it never moves. Returns the round trips it made (retries add some).
 */
static int spin_adapts_to_a_slow_peer(rf_ep *a, int64_t peer_b, echo_arg *echo, const rf_wait_policy *usual) {
    int trips = 0;
    rf_wait_policy adaptive = *usual;
    adaptive.spin_max_ns = 10000000;
    rf_set_wait(a, &adaptive);
    CHECK(rf_spin_budget_rx(a) == usual->spin_ns, "budget %lld before any wait", (long long) rf_spin_budget_rx(a));
    /*
     * A wait is measured from when the waiting thread starts polling: on a loaded machine (other jobs, the peer's
     * own thread) it may start late and see part of the delay only. Each phase gets a few tries; broken adaptation
     * fails all of them.
     */
    echo->delay_ns = 300000;
    int64_t grown = 0;
    for (int attempt = 0; attempt < 5 && !(grown >= 400000 && grown <= adaptive.spin_max_ns); attempt++) {
        for (int i = 0; i < 40; i++, trips++) {
            round_trip(a, peer_b, 64, 0);
        }
        grown = rf_spin_budget_rx(a);
    }
    CHECK(grown >= 400000 && grown <= adaptive.spin_max_ns, "budget %lld after waits of 300 us", (long long) grown);
    echo->delay_ns = 12000000; /* 60 such waits bring even a 10 ms average below 10 us */
    for (int attempt = 0; attempt < 5 && (attempt == 0 || rf_spin_budget_rx(a) != usual->spin_ns); attempt++) {
        for (int i = 0; i < 60; i++, trips++) {
            round_trip(a, peer_b, 64, 0);
        }
    }
    CHECK(rf_spin_budget_rx(a) == usual->spin_ns, "budget %lld after waits longer than spin_max_ns",
          (long long) rf_spin_budget_rx(a));
    echo->delay_ns = 300000;
    rf_set_wait(a, usual);
    for (int i = 0; i < 10; i++, trips++) {
        round_trip(a, peer_b, 64, 0);
    }
    CHECK(rf_spin_budget_rx(a) == usual->spin_ns, "budget %lld without spin_max_ns", (long long) rf_spin_budget_rx(a));
    echo->delay_ns = 0;
    return trips;
}

int main(int argc, char **argv) {
    const char *prov = argc > 1 ? argv[1] : "shm";
    char err[RF_ERR_LEN];
    rf_ep *a = NULL, *b = NULL;

    char list[4096];
    CHECK(rf_providers(list, sizeof(list), err) == RF_OK, "providers: %s", err);
    CHECK(strstr(list, prov) != NULL, "provider %s not listed in [%s]", prov, list);

    CHECK(rf_open("no-such-provider", &a, err) == RF_ERROR && a == NULL, "open of an unknown provider succeeded");
    CHECK(strstr(err, "fi_getinfo") != NULL && strstr(err, "fi_info -l") != NULL, "unhelpful error: %s", err);

    if (strcmp(prov, "shm") == 0) {
        signals_during_the_first_open_keep_its_region();
        exit_leaves_no_region();
    }
    char stale[3][64];
    int stales = strcmp(prov, "shm") == 0 ? 3 : 0;
    for (int i = 0; i < stales; i++) {
        snprintf(stale[i], sizeof(stale[i]), "/dev/shm/%d:%d:%d", (int) getpid(), (int) getuid(), i);
        int fd = open(stale[i], O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0 && ftruncate(fd, 16 << 20) != 0) { /* the size of a real region: the provider maps it */
            CHECK(0, "cannot size %s", stale[i]);
        }
        CHECK(fd >= 0, "cannot create %s to stand for a killed process's region", stale[i]);
        if (fd >= 0) {
            close(fd);
        }
    }
    int opened = rf_open(prov, &a, err) == RF_OK && rf_open(prov, &b, err) == RF_OK;
    for (int i = 0; i < stales; i++) {
        unlink(stale[i]);
    }
    if (!opened) {
        fprintf(stderr, "FAIL: cannot open %s endpoints: %s\n", prov, err);
        rf_close(a);
        return 1;
    }
    rf_wait_policy policy = {.spin_ns = 20000, .max_sleep_ns = 200000, .yield = 1, .busy_polls = 20};
    rf_set_wait(a, &policy);
    rf_set_wait(b, &policy);
    const void *addr_a, *addr_b;
    size_t len_a, len_b;
    rf_address(a, &addr_a, &len_a);
    rf_address(b, &addr_b, &len_b);
    CHECK(len_a != len_b || memcmp(addr_a, addr_b, len_a) != 0, "two endpoints share an address");
    int64_t peer_b = -1, peer_a = -1;
    CHECK(rf_insert(a, addr_b, len_b, &peer_b, err) == RF_OK, "insert b: %s", err);
    CHECK(rf_insert(b, addr_a, len_a, &peer_a, err) == RF_OK, "insert a: %s", err);
    int64_t dup;
    CHECK(rf_insert(a, addr_b, len_b, &dup, err) == RF_ERROR, "inserting the same address twice succeeded");
    if (strcmp(prov, "shm") == 0) { /* a peer whose region is gone: refused at insert, never sent to */
        char gone[64];
        int n = snprintf(gone, sizeof(gone), "fi_shm://%d:%d:9999", (int) getpid(), (int) getuid());
        CHECK(rf_insert(a, gone, (size_t) n + 1, &dup, err) == RF_ERROR && strstr(err, "is gone") != NULL,
              "a peer whose region is missing from /dev/shm was inserted (%s)", err);
    }

    rf_msg msg;
    CHECK(rf_recv(a, 1000000, &msg, err) == RF_TIMEOUT, "recv without a message did not time out");
    copies_are_exact(a);
    naps_use_a_small_timer_slack(a);
    deep_sleep_until_the_bell(a, b, peer_a);
    a_busy_cpu_ends_the_spin(a, b, peer_a);
    sends_complete_behind(prov, b);
    shared_rings(prov);
    a_message_wakes_a_blocked_receiver(prov);

    echo_arg echo = {.ep = b};
    pthread_t t;
    pthread_create(&t, NULL, echo_main, &echo);
    size_t sizes[] = {0, 64, 4096, 4097, 100000, 100000, RF_EAGER, RF_EAGER + 1, 3 * 1024 * 1024 + 7, 64};
    size_t skews[] = {0, 0, 3, 0, 0, 8, 0, 0, 5, 0};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        round_trip(a, peer_b, sizes[i], skews[i]);
    }
    int adapt_trips = spin_adapts_to_a_slow_peer(a, peer_b, &echo, &policy);
    /* staged in the send ring (unaligned sources over shm): 60 messages of 90-150 KB go round the 4 MiB ring 2-3
     * times; each echo is checked, so a message staged over one still being sent would show */
    int ring_trips = 60;
    for (int i = 0; i < ring_trips; i++) {
        round_trip(a, peer_b, 90000 + (size_t) (i * 997) % 60000, 1 + (size_t) i % 63);
    }
    rf_wakeup(b);
    pthread_join(t, NULL);
    CHECK(echo.rc == RF_CLOSED, "echo thread ended with %d, expected RF_CLOSED after rf_wakeup", echo.rc);
    CHECK(echo.messages == (int) (sizeof(sizes) / sizeof(sizes[0])) + adapt_trips + ring_trips,
          "echo answered %d messages",
          echo.messages);
    CHECK(rf_send(b, peer_a, "x", 1, 1000000, err) == RF_CLOSED, "send after wakeup did not report closed");

    rf_close(a);
    rf_close(b);
    if (failures == 0) {
        printf("test_remora_fabric: all checks passed over %s\n", prov);
    }
    return failures == 0 ? 0 : 1;
}
