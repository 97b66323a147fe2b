/*
 * test_options.c — billboardd's command line: the HTTPS flags and the rule
 * that plain HTTP is served on loopback only unless --insecure-http.
 */
#include "testutil.h"

#include <getopt.h>
#include <string.h>

#include "options.h"

static void test_loopback(void **state)
{
    (void)state;
    static const struct {
        const char *addr;
        int loopback;
    } t[] = {
        {"127.0.0.1", 1},
        {"127.255.255.254", 1},
        {"127.1.2.3", 1},
        {"::1", 1},
        {"::ffff:127.0.0.1", 1},
        {"0:0:0:0:0:0:0:1", 1},
        {"0.0.0.0", 0},
        {"::", 0},
        {"10.0.0.1", 0},
        {"128.0.0.1", 0},
        {"126.255.255.255", 0},
        {"192.0.2.1", 0},
        {"::ffff:10.0.0.1", 0},
        {"::2", 0},
        {"fe80::1", 0},
        {"localhost", 0}, /* not a literal: --listen takes literals only */
        {"", 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (bb_listen_is_loopback(t[i].addr) != t[i].loopback)
            fail_msg("%s: loopback %d, want %d", t[i].addr, !t[i].loopback, t[i].loopback);
}

/* Parses a NULL-terminated argument list and applies the rules between
 * flags: 0 or the exit status. */
static int parse_check(const char *const *args)
{
    static struct bb_options o;
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"billboardd";
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    memset(&o, 0, sizeof(o));
    optind = 1; /* bb_options_parse reads argv[optind] itself: not 0 */
    int rc = bb_options_parse(&o, argc, argv);
    return rc ? rc : bb_options_check(&o);
}

static void test_rules(void **state)
{
    (void)state;
    static const struct {
        const char *args[10];
        int status;
    } t[] = {
        {{"--db", "x.db", NULL}, 0}, /* 127.0.0.1 by default */
        {{"--db", "x.db", "--listen", "::1", NULL}, 0},
        {{"--db", "x.db", "--listen", "0.0.0.0", NULL}, 2},
        {{"--db", "x.db", "--listen", "::", NULL}, 2},
        {{"--db", "x.db", "--listen", "0.0.0.0", "--insecure-http", NULL}, 0},
        {{"--db", "x.db", "--listen", "0.0.0.0", "--tls-cert", "c", "--tls-key", "k", NULL}, 0},
        {{"--db", "x.db", "--tls-cert", "c", NULL}, 2},
        {{"--db", "x.db", "--tls-key", "k", NULL}, 2},
        {{"--db", "x.db", "--tls-priorities", "NORMAL", NULL}, 2},
        {{"--db", "x.db", "--tls-cert", "c", "--tls-key", "k", "--tls-priorities", "NORMAL", NULL},
         0},
        {{"--db", "x.db", "--tls-cert", NULL}, 2}, /* no value */
        {{"--db", "x.db", "--insecure-http=1", NULL}, 2},
    };
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w"); /* the messages are the integration test's */
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int got = parse_check(t[i].args);
        if (got != t[i].status) {
            fclose(stderr);
            stderr = saved;
            fail_msg("case %zu: status %d, want %d", i, got, t[i].status);
        }
    }
    fclose(stderr);
    stderr = saved;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loopback),
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
