/*
 * bench_mhd_static.c — the reference for GET /v1/billboard: the smallest
 * libmicrohttpd server that answers every GET with one file's bytes, with
 * the same event loop as billboardd (internal poll(), a pool of 2 threads)
 * and one response object built up front.
 *
 *   bench_mhd_static FILE PORT_FILE     serves on 127.0.0.1, ephemeral port,
 *                                       until SIGTERM
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct MHD_Response *resp;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **req_cls)
{
    static int marker;
    (void)cls, (void)url, (void)method, (void)version, (void)data, (void)size;
    /* The usual idiom: the first call only sees the headers; answering
     * then would make libmicrohttpd close the connection. */
    if (*req_cls == NULL) {
        *req_cls = &marker;
        return MHD_YES;
    }
    return MHD_queue_response(c, 200, resp);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_mhd_static FILE PORT_FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 1;
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    resp = MHD_create_response_from_buffer(n, buf, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "ETag", "\"v0-0000000000000000\"");
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGINT);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    struct MHD_Daemon *d =
        MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL, on_request,
                         NULL, MHD_OPTION_THREAD_POOL_SIZE, 2u, MHD_OPTION_CONNECTION_LIMIT, 1024u,
                         MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_END);
    if (!d)
        return 1;
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    FILE *pf = fopen(argv[2], "w");
    if (!pf)
        return 1;
    fprintf(pf, "%u\n", i->port);
    fclose(pf);
    int sig;
    sigwait(&s, &sig);
    MHD_stop_daemon(d);
    MHD_destroy_response(resp);
    return 0;
}
