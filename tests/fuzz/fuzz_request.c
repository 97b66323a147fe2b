/*
 * fuzz_request.c — the whole request path: a real billboardd (HTTP
 * server, router, headers, body codec, validation, writer, SQLite under
 * $TMPDIR) runs in this process on 127.0.0.1, and each input is sent to it
 * as raw bytes over TCP, then the write side is closed and the answer read.
 * "@TOKEN@" in an input becomes an enrolled clinic's token and "@ADMIN@"
 * the admin token, so that the seeds (tests/fuzz/corpus/request/) reach
 * past authentication. Whatever the bytes: no crash, no 500, every answer
 * a well-formed HTTP status line, the daemon never fatal, and still
 * answering /livez afterwards.
 */
#include "fuzz.h"

#include <arpa/inet.h>
#include <errno.h>
#include <cblas.h>
#include <jansson.h>
#include <netinet/in.h>
#include <sodium.h>
#include <poll.h>
#include <sys/socket.h>

#include "daemon.h"
#include "http.h"
#include "options.h"
#include "writer.h"

static struct bbd d;
static struct bb_options o;
static struct bb_http *http;
static unsigned port;
static char token[256];
static const char admin[] = "fuzz-admin-token-0123456789abcdef";

/* Length of the complete HTTP responses at the start of buf (n bytes):
 * each is a head and then Content-Length bytes (none for 1xx, 204, 304). */
static size_t complete(const char *buf, size_t n)
{
    size_t done = 0;
    for (;;) {
        const char *p = buf + done, *end = memmem(p, n - done, "\r\n\r\n", 4);
        if (!end)
            return done;
        size_t head = (size_t)(end - p) + 4;
        long body = 0;
        if (n - done > 12 && p[9] != '1' && strncmp(p + 9, "204", 3) != 0 &&
            strncmp(p + 9, "304", 3) != 0) {
            const char *cl = strcasestr(p, "\r\ncontent-length:");
            if (cl && cl < end)
                body = strtol(cl + 17, NULL, 10);
        }
        if (body < 0 || n - done < head + (size_t)body)
            return done;
        done += head + (size_t)body;
    }
}

/* 1 if req (len bytes) begins with a whole request the server must
 * answer: a head, and its Content-Length bytes or a last chunk. */
static int answerable(const char *req, size_t len)
{
    const char *end = memmem(req, len, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t head = (size_t)(end - req) + 4;
    char *h = strndup(req, head);
    FUZZ_REQUIRE(h);
    const char *cl = strcasestr(h, "\r\ncontent-length:");
    int chunked = strcasestr(h, "\r\ntransfer-encoding:") != NULL;
    long body = cl ? strtol(cl + 17, NULL, 10) : 0;
    free(h);
    if (chunked)
        return memmem(req + head, len - head, "0\r\n\r\n", 5) != NULL;
    return body >= 0 && len - head >= (size_t)body;
}

/* Sends req (len bytes), closes the write side unless req holds a whole
 * request, and reads the answers into out (at most cap - 1 bytes,
 * NUL-terminated): up to first_ms for the first byte if req holds a whole
 * request, else 50 ms (the server may answer a bad head at once); then,
 * once what came is whole responses, 2 ms for a pipelined next one, else
 * 300 ms for the rest of this one. The answers' framing, not the end of
 * the stream, says when to stop. A whole request keeps the write side
 * open, as HTTP clients do: libmicrohttpd 0.9.75 in poll mode closes a
 * connection whose client half-closed before a suspended request's answer
 * (docs/RELIABILITY.md). Returns the length read. */
static size_t exchange(const char *req, size_t len, char *out, size_t cap, int first_ms)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* libFuzzer's timer signals interrupt a blocking connect (EINTR), and
     * loopback's ephemeral ports can run out under thousands of
     * connections a second: both are the harness's, so try again on a new
     * socket rather than blame the daemon. */
    int fd = -1, rc = -1;
    for (int tries = 0; tries < 500; tries++) {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        FUZZ_REQUIRE(fd >= 0);
        if ((rc = connect(fd, (struct sockaddr *)&a, sizeof(a))) == 0)
            break;
        int e = errno;
        close(fd);
        fd = -1;
        errno = e;
        if (e != EINTR && e != EADDRNOTAVAIL)
            break;
        usleep(10000);
    }
    if (rc != 0)
        fprintf(stderr, "fuzz_request: connect: %s\n", strerror(errno));
    FUZZ_REQUIRE(rc == 0);
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, req + off, len - off, MSG_NOSIGNAL);
        if (n <= 0)
            break; /* the server may close early (413, 431) */
        off += (size_t)n;
    }
    int whole = answerable(req, len);
    if (!whole)
        shutdown(fd, SHUT_WR);
    size_t got = 0;
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int wait = got == 0 ? (whole ? first_ms : 50) : complete(out, got) == got ? 2 : 300;
        int ready = poll(&pfd, 1, wait);
        if (ready < 0 && errno == EINTR)
            continue; /* libFuzzer's timer; the wait starts again, a little longer */
        if (ready <= 0 || got + 1 >= cap)
            break;
        ssize_t n = recv(fd, out + got, cap - 1 - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        out[got] = '\0';
    }
    out[got] = '\0';
    /* A reset, not a FIN: the server frees the connection at once rather
     * than after its idle timeout, so connections do not pile up against
     * its limits. */
    struct linger lg = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
    return got;
}

static void enrol(void)
{
    static const char body[] = "{\"name\": \"fuzz clinic\"}";
    char req[512], resp[8192];
    int n = snprintf(req, sizeof(req),
                     "POST /v1/clinics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                     admin, sizeof(body) - 1, body);
    exchange(req, (size_t)n, resp, sizeof(resp), 15000);
    const char *js = strstr(resp, "\r\n\r\n");
    FUZZ_REQUIRE(strncmp(resp, "HTTP/1.1 201", 12) == 0 && js);
    json_t *o2 = json_loads(js + 4, 0, NULL);
    const char *t = json_string_value(json_object_get(o2, "token"));
    FUZZ_REQUIRE(t && strlen(t) < sizeof(token));
    snprintf(token, sizeof(token), "%s", t);
    json_decref(o2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char dir[256], db[300], adminf[300];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/bbfuzz-request-XXXXXX", tmp ? tmp : "/tmp");
    FUZZ_REQUIRE(mkdtemp(dir));
    snprintf(db, sizeof(db), "%s/bb.db", dir);
    snprintf(adminf, sizeof(adminf), "%s/admin", dir);
    FUZZ_REQUIRE(fuzz_write(adminf, (const uint8_t *)admin, sizeof(admin) - 1) == 0);
    char *args[] = {"billboardd", "--db", db, "--listen", "127.0.0.1", "--port", "0",
                    "--admin-token-file", adminf, "--horizon", "3", "--dim", "4",
                    "--actions", "2", "--max-episodes", "100000", "--rho", "100000", NULL};
    openblas_set_num_threads(1);
    FUZZ_REQUIRE(sodium_init() >= 0);
    FUZZ_REQUIRE(bb_options_parse(&o, (int)(sizeof(args) / sizeof(args[0])) - 1, args) == 0);
    d.lock_fd = -1;
    FUZZ_REQUIRE(bb_daemon_open(&d, &o) == BB_OK);
    struct bb_writer_ctx wx = {d.engine, d.db, d.pool, d.auth, &d.board, &d.stats,
                               &d.fatal, &d.ledger, &d.entropy, bb_daemon_rebuild, &d};
    FUZZ_REQUIRE(bb_writer_start(&wx, &d.writer) == BB_OK);
    o.http.listen = o.listen;
    o.http.port = 0;
    char why[256];
    FUZZ_REQUIRE(bb_http_start(&d, &o.http, &http, &port, why, sizeof(why)) == BB_OK);
    enrol();
    fprintf(stderr, "fuzz_request: billboardd on 127.0.0.1:%u, database %s\n", port, db);
    return 0;
}

/* Copies data with the placeholders replaced into a new buffer. */
static char *expand(const uint8_t *data, size_t size, size_t *len)
{
    size_t cap = size * 4 + 256, n = 0;
    char *out = malloc(cap);
    FUZZ_REQUIRE(out);
    for (size_t i = 0; i < size;) {
        const char *sub = NULL;
        size_t skip = 0;
        if (size - i >= 7 && memcmp(data + i, "@TOKEN@", 7) == 0)
            sub = token, skip = 7;
        else if (size - i >= 7 && memcmp(data + i, "@ADMIN@", 7) == 0)
            sub = admin, skip = 7;
        if (sub) {
            size_t sl = strlen(sub);
            if (n + sl + 1 > cap) {
                cap = 2 * (n + sl + 1);
                out = realloc(out, cap);
                FUZZ_REQUIRE(out);
            }
            memcpy(out + n, sub, sl);
            n += sl;
            i += skip;
        } else {
            if (n + 2 > cap) {
                cap *= 2;
                out = realloc(out, cap);
                FUZZ_REQUIRE(out);
            }
            out[n++] = (char)data[i++];
        }
    }
    *len = n;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char resp[1 << 16];
    size_t len = 0;
    char *req = expand(data, size, &len);
    size_t got = exchange(req, len, resp, sizeof(resp), 3000);
    free(req);
    /* Every answer in the stream (pipelined requests) is a status line. */
    for (const char *p = resp; (p = strstr(p, "HTTP/1.")) != NULL; p++) {
        if (p != resp && p[-1] != '\n')
            continue; /* inside a body */
        FUZZ_REQUIRE(p[8] == ' ' && p[9] >= '1' && p[9] <= '5');
        FUZZ_REQUIRE(strncmp(p + 9, "500", 3) != 0);
    }
    FUZZ_REQUIRE(got == 0 || strncmp(resp, "HTTP/1.", 7) == 0);
    FUZZ_REQUIRE(!atomic_load(&d.fatal));
    static const char livez[] = "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n";
    /* 15 s: on a shared machine the daemon's threads may wait for a core. */
    exchange(livez, sizeof(livez) - 1, resp, sizeof(resp), 15000);
    if (strncmp(resp, "HTTP/1.1 200", 12) != 0)
        fprintf(stderr, "fuzz_request: /livez answered '%.200s'\n", resp);
    FUZZ_REQUIRE(strncmp(resp, "HTTP/1.1 200", 12) == 0);
    return 0;
}
