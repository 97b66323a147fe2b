/*
 * loadgen.c — the load generator of `make load` (tests/load/run.sh): HTTP/1.1
 * keep-alive connections to 127.0.0.1 on one epoll thread.
 *
 *   loadgen closed PORT CONNS SECONDS REQ [N] each connection sends, waits
 *                                             for the answer, sends again;
 *                                             with N, N requests each, and
 *                                             it ends when all are answered
 *   loadgen open PORT CONNS SECONDS REQ RATE  open loop: request i is due at
 *                                             start + i / RATE whether or not
 *                                             an answer came; it waits for a
 *                                             free connection if none is, and
 *                                             its latency runs from the time
 *                                             it was due (no coordinated
 *                                             omission)
 *   loadgen slow PORT CONNS SECONDS REQ MS    each connection trickles its
 *                                             request one byte every MS ms
 *
 * REQ is GET:/path, or POST:/path:TOKEN:BODYFILE for episodes (each request
 * gets its own Idempotency-Key). LOADGEN_SOURCES=N spreads the connections
 * over the source addresses 127.0.0.1 ... 127.0.0.N (default 1), one client
 * address per group, as the daemon's per-address limit sees them. Prints one line of figures:
 *   mode= conns= seconds= sent= done= non2xx= errors= rps= p50_ms= p99_ms=
 *   p999_ms= max_ms=
 * and exits 1 if nothing was answered.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXC 1024
#define INCAP 65536

enum mode { CLOSED, OPEN, SLOW };

struct conn {
    int fd;
    int busy;  /* a request is out or being written */
    double t0; /* when its latency starts */
    char *out; /* the request being written (owned) */
    size_t outlen, sent;
    char in[INCAP];
    size_t inlen;
    double next_byte; /* SLOW: when its next byte goes */
    long started;     /* requests it has started */
};

static struct conn *conns;
static int nconns, port, epfd, nsources = 1;
static enum mode mode;
static double gap; /* SLOW: seconds between bytes */
static const char *method, *path, *token;
static char *body;
static size_t bodylen;
static long seq;
static double *lat;
static size_t nlat, caplat;
static long sent_n, done_n, non2xx, errors_n;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what)
{
    perror(what);
    exit(2);
}

static char *build_request(size_t *len)
{
    char *r = NULL;
    int n;
    if (body)
        n = asprintf(&r,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/json\r\nIdempotency-Key: load-%d-%ld-%ld\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     method, path, token, (int)getpid(), (long)time(NULL), seq++, bodylen, body);
    else
        n = asprintf(&r, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", method, path);
    if (n < 0)
        die("asprintf");
    *len = (size_t)n;
    return r;
}

static void conn_open(struct conn *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0)
        die("socket");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (nsources > 1) {
        struct sockaddr_in src = {.sin_family = AF_INET};
        src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + (uint32_t)((c - conns) % nsources));
        if (bind(c->fd, (struct sockaddr *)&src, sizeof(src)) != 0)
            die("bind");
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) != 0 && errno != EINPROGRESS)
        die("connect");
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0)
        die("epoll_ctl");
    c->busy = 0;
    c->inlen = 0;
}

/* A connection that failed: counted, reopened; its request is lost. */
static void conn_reset(struct conn *c)
{
    errors_n++;
    close(c->fd);
    free(c->out);
    c->out = NULL;
    conn_open(c);
}

static void record(double l)
{
    if (nlat == caplat) {
        caplat = caplat ? 2 * caplat : 1 << 16;
        lat = realloc(lat, caplat * sizeof(*lat));
        if (!lat)
            die("realloc");
    }
    lat[nlat++] = l;
}

static void start(struct conn *c, double t0, double t)
{
    c->out = build_request(&c->outlen);
    c->sent = 0;
    c->busy = 1;
    c->t0 = t0;
    c->next_byte = t;
    c->started++;
    sent_n++;
}

/* Writes what the connection may write now (SLOW: one byte when due). */
static void pump_out(struct conn *c, double t)
{
    while (c->out && c->sent < c->outlen) {
        size_t n = c->outlen - c->sent;
        if (mode == SLOW) {
            if (t < c->next_byte)
                return;
            n = 1;
            c->next_byte = t + gap;
        }
        ssize_t w = send(c->fd, c->out + c->sent, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno != EAGAIN && errno != ENOTCONN)
                conn_reset(c);
            return;
        }
        c->sent += (size_t)w;
    }
}

/* Length of a whole response at the start of c->in, or 0. */
static size_t whole(const struct conn *c)
{
    const char *end = memmem(c->in, c->inlen, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t head = (size_t)(end - c->in) + 4;
    long n = 0;
    for (const char *p = c->in; p && p < end; p = memchr(p, '\n', (size_t)(end - p))) {
        p++;
        if (strncasecmp(p, "content-length:", 15) == 0)
            n = strtol(p + 15, NULL, 10);
    }
    return c->inlen >= head + (size_t)n ? head + (size_t)n : 0;
}

static void pump_in(struct conn *c, double t)
{
    for (;;) {
        if (c->inlen == INCAP) {
            conn_reset(c);
            return;
        }
        ssize_t r = recv(c->fd, c->in + c->inlen, INCAP - c->inlen, 0);
        if (r == 0) {
            conn_reset(c);
            return;
        }
        if (r < 0) {
            if (errno != EAGAIN)
                conn_reset(c);
            break;
        }
        c->inlen += (size_t)r;
    }
    size_t n;
    while ((n = whole(c)) > 0) {
        int status = c->inlen > 12 ? (int)strtol(c->in + 9, NULL, 10) : 0;
        if (status < 200 || status > 299)
            non2xx++;
        done_n++;
        record(t - c->t0);
        memmove(c->in, c->in + n, c->inlen - n);
        c->inlen -= n;
        free(c->out);
        c->out = NULL;
        c->busy = 0;
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double p)
{
    if (!nlat)
        return 0;
    size_t i = (size_t)(p * (double)(nlat - 1) + 0.5);
    return lat[i] * 1e3;
}

static char *slurp(const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        die(file);
    char *buf = malloc(1 << 20);
    if (!buf)
        die("malloc");
    *len = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    while (*len && (buf[*len - 1] == '\n' || buf[*len - 1] == '\r'))
        (*len)--;
    buf[*len] = '\0';
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: loadgen closed|open|slow PORT CONNS SECONDS REQ [N|RATE|MS]\n");
        return 2;
    }
    mode = strcmp(argv[1], "open") == 0 ? OPEN : strcmp(argv[1], "slow") == 0 ? SLOW : CLOSED;
    port = (int)strtol(argv[2], NULL, 10);
    nconns = (int)strtol(argv[3], NULL, 10);
    double seconds = strtod(argv[4], NULL);
    double rate = argc > 6 ? strtod(argv[6], NULL) : 0;
    long per_conn = mode == CLOSED && argc > 6 ? strtol(argv[6], NULL, 10) : 0;
    gap = argc > 6 ? strtod(argv[6], NULL) / 1e3 : 0.1;
    if (nconns < 1 || nconns > MAXC || seconds <= 0 || (mode == OPEN && rate <= 0) ||
        per_conn < 0) {
        fprintf(stderr, "loadgen: bad arguments\n");
        return 2;
    }
    char *req = strdup(argv[5]), *save = NULL;
    method = strtok_r(req, ":", &save);
    path = strtok_r(NULL, ":", &save);
    if (!method || !path)
        return 2;
    if (strcmp(method, "POST") == 0) {
        token = strtok_r(NULL, ":", &save);
        const char *file = strtok_r(NULL, ":", &save);
        if (!token || !file)
            return 2;
        body = slurp(file, &bodylen);
    }
    const char *src = getenv("LOADGEN_SOURCES");
    nsources = src ? (int)strtol(src, NULL, 10) : 1;
    if (nsources < 1 || nsources > 254) {
        fprintf(stderr, "loadgen: LOADGEN_SOURCES is 1 to 254\n");
        return 2;
    }
    if ((epfd = epoll_create1(0)) < 0)
        die("epoll_create1");
    conns = calloc((size_t)nconns, sizeof(*conns));
    if (!conns)
        die("calloc");
    for (int i = 0; i < nconns; i++)
        conn_open(&conns[i]);
    double t_start = now(), t_end = t_start + seconds;
    long due = 0;          /* OPEN: requests due so far */
    long issued = 0;       /* OPEN: of them, handed to a connection */
    struct epoll_event ev[256];
    for (;;) {
        double t = now();
        if (t >= t_end || (per_conn > 0 && done_n >= per_conn * nconns))
            break;
        if (mode == OPEN) {
            due = (long)((t - t_start) * rate) + 1;
            for (int i = 0; i < nconns && issued < due; i++)
                if (!conns[i].busy) {
                    start(&conns[i], t_start + (double)issued / rate, t);
                    issued++;
                    pump_out(&conns[i], t);
                }
        } else {
            for (int i = 0; i < nconns; i++)
                if (!conns[i].busy && (per_conn == 0 || conns[i].started < per_conn))
                    start(&conns[i], t, t);
        }
        for (int i = 0; i < nconns; i++)
            if (conns[i].out && conns[i].sent < conns[i].outlen)
                pump_out(&conns[i], t);
        int wait = 10;
        if (mode == OPEN) {
            double next = t_start + (double)due / rate - t;
            wait = next <= 0 ? 0 : (int)(next * 1e3) + 1;
            if (wait > 10)
                wait = 10;
        }
        int n = epoll_wait(epfd, ev, 256, wait);
        t = now();
        for (int i = 0; i < n; i++) {
            struct conn *c = ev[i].data.ptr;
            if (ev[i].events & (EPOLLERR | EPOLLHUP)) {
                conn_reset(c);
                continue;
            }
            if (ev[i].events & EPOLLIN)
                pump_in(c, t);
            if (ev[i].events & EPOLLOUT)
                pump_out(c, t);
        }
    }
    double took = now() - t_start;
    /* OPEN: requests due but unanswered at the end count with the wait
     * they had so far, so a stall cannot hide. */
    if (mode == OPEN) {
        for (long i = issued; i < due; i++)
            record(t_end - (t_start + (double)i / rate));
        for (int i = 0; i < nconns; i++)
            if (conns[i].busy)
                record(t_end - conns[i].t0);
    }
    qsort(lat, nlat, sizeof(*lat), cmp);
    printf("mode=%s conns=%d seconds=%.0f sent=%ld done=%ld non2xx=%ld errors=%ld rps=%.0f "
           "p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f\n",
           argv[1], nconns, seconds, sent_n, done_n, non2xx, errors_n, (double)done_n / took,
           pct(0.5), pct(0.99), pct(0.999), nlat ? lat[nlat - 1] * 1e3 : 0.0);
    return done_n > 0 ? 0 : 1;
}
