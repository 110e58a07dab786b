/* fanclient.c - many WebSocket clients in one process, for the fan-out benchmark.
 *
 *   fanclient HOST PORT N count EXPECTED   connect N clients, print "ready", then count the
 *                                          messages each receives until every client has
 *                                          EXPECTED (or the server closes, or 2 s pass with
 *                                          nothing new); print one JSON line with the totals
 *   fanclient HOST PORT N idle             connect N clients, print "ready", hold them open
 *                                          until stdin ends
 *
 * One thread, poll(2), blocking connects and handshakes (loopback), then non-blocking
 * reads into one buffer; frames are parsed only as far as their headers (the payload
 * is skipped, never copied), so one process keeps up with the server being measured.
 * Build: cc -O2 -o fanclient fanclient.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    uint8_t head[14]; /* header bytes of the frame being read */
    int have;         /* header bytes in head */
    uint64_t skip;    /* payload bytes of the current frame still to skip */
    int fin, opcode;  /* of the current frame */
    long messages;
    int closed;
} client_t;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Length of a header whose first two bytes are known (no mask: from a server). */
static int header_length(const uint8_t *h) {
    int n = h[1] & 0x7f;
    return 2 + (n == 126 ? 2 : n == 127 ? 8 : 0) + ((h[1] & 0x80) ? 4 : 0);
}

static uint64_t payload_length(const uint8_t *h) {
    uint64_t n = h[1] & 0x7f;
    if (n == 126) return (uint64_t)h[2] << 8 | h[3];
    if (n == 127) {
        n = 0;
        for (int i = 2; i < 10; i++) n = n << 8 | h[i];
    }
    return n;
}

static int connect_one(const char *host, int port) {
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, host, &a.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("fanclient: connect"); exit(2); }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", host, port);
    if (write(fd, req, n) != n) { perror("fanclient: write"); exit(2); }
    /* Read the 101 response byte by byte up to its blank line, so no frame byte is taken. */
    char resp[2048];
    int got = 0;
    while (got < (int)sizeof resp - 1) {
        ssize_t k = read(fd, resp + got, 1);
        if (k <= 0) { fprintf(stderr, "fanclient: handshake failed\n"); exit(2); }
        got += k;
        if (got >= 4 && memcmp(resp + got - 4, "\r\n\r\n", 4) == 0) break;
    }
    if (got < 12 || memcmp(resp + 9, "101", 3) != 0) { fprintf(stderr, "fanclient: refused\n"); exit(2); }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* Consumes n bytes of c's stream: counts each data message's final frame. */
static void consume(client_t *c, const uint8_t *p, size_t n) {
    while (n > 0) {
        if (c->skip > 0) {
            size_t k = n < c->skip ? n : c->skip;
            c->skip -= k; p += k; n -= k;
            if (c->skip == 0 && c->fin && c->opcode < 8) c->messages++;
            continue;
        }
        c->head[c->have++] = *p++; n--;
        if (c->have < 2 || c->have < header_length(c->head)) continue;
        c->fin = c->head[0] >> 7;
        c->opcode = c->head[0] & 15;
        c->skip = payload_length(c->head);
        c->have = 0;
        if (c->opcode == 8) c->closed = 1;
        if (c->skip == 0 && c->fin && c->opcode < 8) c->messages++;
    }
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: fanclient HOST PORT N count EXPECTED | fanclient HOST PORT N idle\n");
        return 2;
    }
    const char *host = argv[1];
    int port = atoi(argv[2]), n = atoi(argv[3]);
    int idle = strcmp(argv[4], "idle") == 0;
    long expected = idle ? 0 : atol(argv[5]);
    client_t *cs = calloc(n, sizeof *cs);
    struct pollfd *ps = calloc(n + 1, sizeof *ps);
    for (int i = 0; i < n; i++) cs[i].fd = connect_one(host, port);
    printf("ready %d\n", n);
    fflush(stdout);

    if (idle) {
        char b[64];
        while (read(0, b, sizeof b) > 0) {}
        return 0;
    }

    static uint8_t buf[1 << 20];
    double first = 0, last = 0, quiet_since = now();
    int open = n;
    while (open > 0) {
        int np = 0;
        for (int i = 0; i < n; i++) {
            if (cs[i].closed || cs[i].messages >= expected) continue;
            ps[np].fd = cs[i].fd; ps[np].events = POLLIN; ps[np].revents = 0; np++;
        }
        if (np == 0) break;
        int r = poll(ps, np, 200);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) {
            if (now() - quiet_since > 2) break;
            continue;
        }
        for (int i = 0, j = 0; i < n && j < np; i++) {
            if (cs[i].closed || cs[i].messages >= expected || cs[i].fd != ps[j].fd) continue;
            if (ps[j++].revents == 0) continue;
            for (;;) {
                ssize_t k = read(cs[i].fd, buf, sizeof buf);
                if (k > 0) {
                    long before = cs[i].messages;
                    consume(&cs[i], buf, k);
                    if (cs[i].messages > before) {
                        last = now();
                        if (first == 0) first = last;
                        quiet_since = last;
                    }
                    if (cs[i].messages >= expected || cs[i].closed) break;
                    continue;
                }
                if (k == 0 || (errno != EAGAIN && errno != EINTR)) cs[i].closed = 1;
                break;
            }
            if (cs[i].closed || cs[i].messages >= expected) open--;
        }
    }
    long total = 0, least = -1;
    for (int i = 0; i < n; i++) {
        total += cs[i].messages;
        if (least < 0 || cs[i].messages < least) least = cs[i].messages;
    }
    printf("{\"delivered\": %ld, \"least\": %ld, \"first\": %.6f, \"last\": %.6f}\n", total, least, first, last);
    return 0;
}
