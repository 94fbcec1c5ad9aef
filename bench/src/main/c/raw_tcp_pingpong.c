/*
 * raw_tcp_pingpong: the kernel's TCP alone, for comparing libfabric's tcp provider with it (docs/transports.md);
 * with -u, a Unix domain socket instead: the floor of any socket between two processes of one host.
 *
 * One invocation forks: the child is the echo server, the parent the client; they talk over TCP on 127.0.0.1 (or an
 * address given), with TCP_NODELAY, or over a stream Unix domain socket at PATH (-u), with SIZE-byte messages,
 * WARMUP round trips, then ITERS timed ones.
 *
 *   raw_tcp_pingpong [-s SIZE] [-n ITERS] [-w WARMUP] [-m block|busy] [-c CLIENT_CPU] [-C SERVER_CPU] [-a ADDR] [-P PORT]
 *                    [-u PATH]
 *     -m  block: blocking recv (default); busy: recv with MSG_DONTWAIT in a loop (both sides)
 *     -u  a Unix domain socket bound at PATH (a socket left there is removed first; removed after), not TCP; -a and -P
 *         are then unused
 *
 * Output: one line, "raw-tcp,MODE,SIZE,ITERS,CLIENT_CPU,SERVER_CPU,MEDIAN_US,P99_US" (round-trip times), "raw-unix,..."
 * with -u.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu) {
    if (cpu >= 0) {
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(cpu, &s);
        if (sched_setaffinity(0, sizeof s, &s) != 0) {
            perror("raw_tcp_pingpong: sched_setaffinity");
            exit(1);
        }
    }
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Reads exactly n bytes; 0, or -1 when the peer closed or failed. */
static int recv_full(int fd, char *b, int n, int busy) {
    int got = 0;
    while (got < n) {
        ssize_t r = recv(fd, b + got, (size_t) (n - got), busy ? MSG_DONTWAIT : 0);
        if (r > 0) {
            got += (int) r;
        } else if (r == 0 || !busy) {
            return -1;
        }
    }
    return 0;
}

/* Removes a socket file left at path by an earlier run; anything else there is left for bind to refuse. */
static void unlink_socket(const char *path) {
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        unlink(path);
    }
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *) a, y = *(const long long *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int size = 64, iters = 20000, warmup = 2000, busy = 0, client_cpu = -1, server_cpu = -1, port = 47611, opt;
    const char *addr = "127.0.0.1", *path = NULL;
    while ((opt = getopt(argc, argv, "s:n:w:m:c:C:a:P:u:")) != -1) {
        switch (opt) {
        case 's': size = atoi(optarg); break;
        case 'n': iters = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 'm': busy = strcmp(optarg, "busy") == 0; break;
        case 'c': client_cpu = atoi(optarg); break;
        case 'C': server_cpu = atoi(optarg); break;
        case 'a': addr = optarg; break;
        case 'P': port = atoi(optarg); break;
        case 'u': path = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-s size] [-n iters] [-w warmup] [-m block|busy] [-c cpu] [-C cpu] [-a addr]"
                    " [-P port] [-u path]\n", argv[0]);
            return 2;
        }
    }
    if (size <= 0 || size > 1 << 20 || iters <= 0 || warmup < 0) {
        fprintf(stderr, "raw_tcp_pingpong: bad size or counts\n");
        return 2;
    }
    int one = 1;
    struct sockaddr_storage a;
    socklen_t alen;
    memset(&a, 0, sizeof a);
    if (path != NULL) {
        struct sockaddr_un *u = (struct sockaddr_un *) &a;
        if (strlen(path) >= sizeof u->sun_path) {
            fprintf(stderr, "raw_tcp_pingpong: socket path too long: %s\n", path);
            return 2;
        }
        u->sun_family = AF_UNIX;
        strcpy(u->sun_path, path);
        alen = sizeof *u;
        unlink_socket(path);
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *) &a;
        in->sin_family = AF_INET;
        in->sin_port = htons((unsigned short) port);
        if (inet_pton(AF_INET, addr, &in->sin_addr) != 1) {
            fprintf(stderr, "raw_tcp_pingpong: bad address %s\n", addr);
            return 2;
        }
        alen = sizeof *in;
    }
    int family = path != NULL ? AF_UNIX : AF_INET;
    int ls = socket(family, SOCK_STREAM, 0);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(ls, (struct sockaddr *) &a, alen) != 0 || listen(ls, 1) != 0) {
        perror("raw_tcp_pingpong: bind/listen");
        return 1;
    }
    char *buf = calloc(1, (size_t) size);
    pid_t child = fork();
    if (child < 0) {
        perror("raw_tcp_pingpong: fork");
        return 1;
    }
    if (child == 0) { /* echo server */
        pin(server_cpu);
        int fd = accept(ls, NULL, NULL);
        if (path == NULL) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        while (recv_full(fd, buf, size, busy) == 0) {
            if (send(fd, buf, (size_t) size, 0) != size) {
                break;
            }
        }
        return 0;
    }
    close(ls);
    pin(client_cpu);
    int fd = socket(family, SOCK_STREAM, 0);
    if (path == NULL) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    if (connect(fd, (struct sockaddr *) &a, alen) != 0) {
        perror("raw_tcp_pingpong: connect");
        return 1;
    }
    long long *t = malloc(sizeof(long long) * (size_t) iters);
    for (int i = 0; i < warmup + iters; i++) {
        long long s = now_ns();
        if (send(fd, buf, (size_t) size, 0) != size || recv_full(fd, buf, size, busy) != 0) {
            fprintf(stderr, "raw_tcp_pingpong: the echo server went away\n");
            return 1;
        }
        if (i >= warmup) {
            t[i - warmup] = now_ns() - s;
        }
    }
    close(fd);
    waitpid(child, NULL, 0);
    if (path != NULL) {
        unlink_socket(path);
    }
    qsort(t, (size_t) iters, sizeof t[0], cmp_ll);
    printf("raw-%s,%s,%d,%d,%d,%d,%.3f,%.3f\n", path != NULL ? "unix" : "tcp", busy ? "busy" : "block", size, iters,
            client_cpu, server_cpu, t[iters / 2] / 1e3, t[(long long) iters * 99 / 100] / 1e3);
    return 0;
}
