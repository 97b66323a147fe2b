/*
 * test_options.c — billboardd's command line and --config file: every flag
 * --help lists is a key of the file (commands excepted) that means exactly
 * what the flag means — the same values accepted, the same options set, a
 * switch as "key = true"; a flag on the command line overrides the file's
 * key, and the configuration flags in effect are the file's and the command
 * line's without the overridden; errors name FILE:LINE. The HTTPS flags and
 * the rule that plain HTTP is served on loopback only unless
 * --insecure-http.
 */
#include "testutil.h"

#include <getopt.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_info.h"
#include "engine/config.h"
#include "options.h"

static char dir[] = "/tmp/bb_test_options_XXXXXX";
static char conf[96];
static char err[8192]; /* stderr of the last parse */

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(conf, sizeof(conf), "%s/b.conf", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(conf);
    return rmdir(dir);
}

static void write_conf(const char *text)
{
    FILE *f = fopen(conf, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Parses the NULL-terminated argument list into o (released first),
 * stderr into err; returns the status. */
static int parse(struct bb_options *o, const char *const *args)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "billboardd";
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    bb_options_release(o);
    memset(o, 0, sizeof(*o));
    fflush(stderr);
    int saved = dup(2);
    FILE *cap = tmpfile();
    assert_non_null(cap);
    dup2(fileno(cap), 2);
    int status = bb_options_parse(o, argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    size_t n = fread(err, 1, sizeof(err) - 1, cap);
    err[n] = '\0';
    fclose(cap);
    return status;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Do two parses leave the same options? */
static void assert_same(const struct bb_options *a, const struct bb_options *b, const char *what)
{
    char *da = bb_config_dump(&a->given), *db = bb_config_dump(&b->given);
    if (!same_str(a->db, b->db) || !same_str(a->listen, b->listen) ||
        !same_str(a->port_file, b->port_file) || !same_str(a->admin_file, b->admin_file) ||
        !same_str(a->tls_cert, b->tls_cert) || !same_str(a->tls_key, b->tls_key) ||
        !same_str(a->tls_priorities, b->tls_priorities) || a->insecure_http != b->insecure_http ||
        a->port != b->port || a->max_body != b->max_body ||
        memcmp(&a->http, &b->http, sizeof(a->http)) != 0 || !same_str(da, db) ||
        a->ngiven != b->ngiven)
        fail_msg("%s: the flag and the key differ", what);
    free(da);
    free(db);
}

struct flag {
    char name[64];
    int value; /* takes a value */
};

/* Every flag --help lists, with whether a value follows it ("--port N")
 * or the description ("--help   this text"). */
static size_t help_flags(struct flag *out, size_t max)
{
    char *text = NULL;
    size_t len = 0, n = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    bb_options_usage(f);
    fclose(f);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *s = line + strspn(line, " ");
        if (strncmp(s, "--", 2) != 0 || s == line || n == max)
            continue;
        size_t k = strcspn(s + 2, " ");
        snprintf(out[n].name, sizeof(out[n].name), "%.*s", (int)k, s + 2);
        out[n].value = s[2 + k] == ' ' && s[3 + k] != ' ' && s[3 + k] != '\0';
        n++;
    }
    free(text);
    return n;
}

static int is_command(const char *name)
{
    static const char *const commands[] = {"help",   "print-params", "print-routes",
                                           "config", "backup",       "restore", "version"};
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(name, commands[i]) == 0)
            return 1;
    return 0;
}

/* The table-derived promise: each flag of --help is a key meaning the same. */
static void test_every_flag_is_a_key(void **state)
{
    (void)state;
    static const char *const values[] = {"x",   "0",    "1",         "7",     "70000", "0.5",
                                         "inf", "tree", "127.0.0.1", "paper", "-1"};
    struct flag flags[96];
    struct bb_options a = {0}, b = {0};
    char text[256], name[80];
    size_t n = help_flags(flags, 96);
    assert_true(n >= 35); /* the daemon's and the configuration's */
    int keys = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "--%.60s", flags[i].name);
        if (is_command(flags[i].name)) {
            snprintf(text, sizeof(text), "%.60s = %s\n", flags[i].name,
                     flags[i].value ? "x" : "true");
            write_conf(text);
            assert_int_equal(parse(&b, (const char *[]){"--config", conf, NULL}), 2);
            if (!strstr(err, "is a command, not a setting"))
                fail_msg("%s: %s", flags[i].name, err);
            continue;
        }
        keys++;
        if (!flags[i].value) { /* a switch: "key = true" is the flag */
            int sa = parse(&a, (const char *[]){name, NULL});
            snprintf(text, sizeof(text), "%.60s = true\n", flags[i].name);
            write_conf(text);
            int sb = parse(&b, (const char *[]){"--config", conf, NULL});
            assert_int_equal(sa, sb);
            assert_same(&a, &b, flags[i].name);
            snprintf(text, sizeof(text), "%.60s = false\n", flags[i].name);
            write_conf(text);
            int sc = parse(&b, (const char *[]){"--config", conf, NULL});
            assert_int_equal(parse(&a, (const char *[]){NULL}), sc);
            assert_same(&a, &b, flags[i].name);
            continue;
        }
        for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
            int sa = parse(&a, (const char *[]){name, values[v], NULL});
            snprintf(text, sizeof(text), "%.60s = %s\n", flags[i].name, values[v]);
            write_conf(text);
            int sb = parse(&b, (const char *[]){"--config", conf, NULL});
            if (strstr(err, "unknown key"))
                fail_msg("%s is no key: %s", flags[i].name, err);
            if (sa != sb)
                fail_msg("%s %s: status %d as a flag, %d as a key (%s)", name, values[v], sa, sb,
                         err);
            if (sa == 0)
                assert_same(&a, &b, name);
            else if (!strstr(err, "b.conf:1: "))
                fail_msg("%s = %s: no FILE:LINE in '%s'", flags[i].name, values[v], err);
        }
    }
    assert_true(keys >= 30);
    bb_options_release(&a);
    bb_options_release(&b);
}

static void test_command_line_overrides_the_file(void **state)
{
    (void)state;
    struct bb_options o = {0};
    write_conf("# the service\n"
               "db = /srv/bb.db\n"
               "port = 8081\n"
               "threads = 4\n"
               "horizon = 5\n"
               "dim = 3\n"
               "actions = 2\n"
               "max-episodes = 100\n"
               "epsilon = 2\n"
               "listen = 0.0.0.0\n"
               "insecure-http = true\n");
    assert_int_equal(parse(&o, (const char *[]){"--port", "9000", "--config", conf, "--horizon",
                                                "6", "--beta", "3", NULL}),
                     0);
    assert_string_equal(o.db, "/srv/bb.db");
    assert_int_equal(o.port, 9000);
    assert_int_equal(o.http.threads, 4);
    assert_string_equal(o.config, conf);
    assert_int_equal(o.insecure_http, 1); /* a switch from the file */
    assert_int_equal(bb_options_check(&o), 0);
    assert_int_equal(o.given.H, 6);
    assert_int_equal(o.given.d, 3);
    assert_true(o.given.beta == 3);
    /* In effect: the file's dim, actions, max-episodes, epsilon (with their
     * lines), then the command line's horizon and beta; not the file's
     * horizon. */
    static const struct {
        const char *name, *value;
        int line;
    } want[] = {{"--dim", "3", 6},     {"--actions", "2", 7}, {"--max-episodes", "100", 8},
                {"--epsilon", "2", 9}, {"--horizon", "6", 0}, {"--beta", "3", 0}};
    assert_int_equal(o.ngiven, 6);
    for (int i = 0; i < 6; i++) {
        assert_string_equal(o.gname[i], want[i].name);
        assert_string_equal(o.gval[i], want[i].value);
        assert_int_equal(o.gline[i], want[i].line);
    }
    /* Without the file, the command line alone. */
    assert_int_equal(parse(&o, (const char *[]){"--horizon", "6", NULL}), 0);
    assert_int_equal(o.ngiven, 1);
    assert_null(o.db);
    bb_options_release(&o);
}

static void test_errors(void **state)
{
    (void)state;
    struct bb_options o = {0};
    char want[160];
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"port = 1\nbogus = 2\n", "b.conf:2: unknown key 'bogus'"},
        {"\nhorizon = ten\n", "b.conf:2: bad value 'ten' for horizon"},
        {"port = 99999\n", "b.conf:1: bad value '99999' for port"},
        {"backup = /tmp/x\n", "b.conf:1: backup is a command, not a setting"},
        {"config = other.conf\n", "b.conf:1: config is a command, not a setting"},
        {"port\n", "b.conf:1: port has no value"},
        {"port = 1\nport = 2\n", "b.conf:2: duplicate key 'port' (first at line 1)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        write_conf(cases[i].text);
        assert_int_equal(parse(&o, (const char *[]){"--config", conf, NULL}), 2);
        snprintf(want, sizeof(want), "%s/%s", dir, cases[i].why);
        if (!strstr(err, want))
            fail_msg("case %zu: '%s' has no '%s'", i, err, want);
    }
    assert_int_equal(parse(&o, (const char *[]){"--config", "/nonexistent.conf", NULL}), 2);
    assert_non_null(strstr(err, "/nonexistent.conf: No such file"));
    assert_int_equal(parse(&o, (const char *[]){"--config", conf, "--config", conf, NULL}), 2);
    assert_non_null(strstr(err, "--config given twice"));
    assert_int_equal(parse(&o, (const char *[]){"--config", NULL}), 2);
    assert_non_null(strstr(err, "--config needs a value"));
    /* --help reads no file. */
    assert_int_equal(parse(&o, (const char *[]){"--config", "/nonexistent.conf", "--help", NULL}),
                     0);
    assert_int_equal(o.help, 1);
    /* One command at a time. */
    assert_int_equal(parse(&o, (const char *[]){"--backup", "a", "--restore", "b", NULL}), 2);
    assert_non_null(strstr(err, "separate commands"));
    assert_int_equal(parse(&o, (const char *[]){"--db", "x", "--backup", "a", NULL}), 0);
    assert_string_equal(o.backup, "a");
    bb_options_release(&o);
}

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

/* Where a key's value in effect came from: FILE:LINE for the file's (a
 * daemon flag or a configuration key), nothing for the command line's or a
 * default; a host name in listen is refused as one, wherever it is given. */
static int check_captured(const struct bb_options *o)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *cap = tmpfile();
    assert_non_null(cap);
    dup2(fileno(cap), 2);
    int status = bb_options_check(o);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    size_t n = fread(err, 1, sizeof(err) - 1, cap);
    err[n] = '\0';
    fclose(cap);
    return status;
}

static void test_where(void **state)
{
    (void)state;
    struct bb_options o = {0};
    char at[256], want[256];
    write_conf("db = /srv/bb.db\n"
               "admin-token-file = /etc/token\n"
               "delta = 0.5\n"
               "horizon = 5\n"
               "listen = localhost\n");
    assert_int_equal(parse(&o, (const char *[]){"--config", conf, "--horizon", "6", NULL}), 0);
    snprintf(want, sizeof(want), "%s:2: ", conf);
    assert_string_equal(bb_options_at(&o, "admin-token-file", at, sizeof(at)), want);
    snprintf(want, sizeof(want), "%s:3: ", conf);
    assert_string_equal(bb_options_at(&o, "delta", at, sizeof(at)), want);
    assert_string_equal(bb_options_at(&o, "horizon", at, sizeof(at)), ""); /* command line */
    assert_string_equal(bb_options_at(&o, "tls-cert", at, sizeof(at)), "");   /* default */
    assert_int_equal(check_captured(&o), 2);
    snprintf(want, sizeof(want), "%s:5: listen 'localhost' is not an IPv4 or IPv6 address (host names are not accepted)", conf);
    assert_non_null(strstr(err, want));
    /* The command line's admin token file replaces the file's. */
    assert_int_equal(
        parse(&o, (const char *[]){"--config", conf, "--admin-token-file", "/tmp/t", NULL}), 0);
    assert_string_equal(bb_options_at(&o, "admin-token-file", at, sizeof(at)), "");
    assert_int_equal(parse(&o, (const char *[]){"--db", "x", "--listen", "my.host", NULL}), 0);
    assert_int_equal(check_captured(&o), 2);
    assert_non_null(strstr(err, "listen 'my.host' is not an IPv4 or IPv6 address"));
    bb_options_release(&o);
}

/* The stored configuration: 'auto' for the release start round-trips (0
 * is no k0 and is refused as a number), the prior policy is a key, and a
 * stored configuration from before that key existed keeps the greedy prior
 * it was created with. */
/* Sets flag to value, checks the stored form names it, and loads that form
 * into back. */
static void round_trip(struct bb_params *p, const char *flag, const char *value,
                       struct bb_params *back)
{
    char why[256], want[96];
    assert_int_equal(bb_config_stored_option(p, flag, value, why, sizeof(why)), BB_OK);
    char *js = bb_config_dump(p);
    snprintf(want, sizeof(want), "\"%s\":\"%s\"", flag + 2, value);
    assert_non_null(strstr(js, want));
    assert_int_equal(bb_config_load(js, back, why, sizeof(why)), BB_OK);
    free(js);
}

/* A stored key no flag sets, a number at offset off of struct bb_params: p
 * (the defaults) stores fresh, its stored form loads back as fresh, a
 * configuration from before the key loads as legacy, and neither the
 * command line nor the flags' list knows it. */
static void stored_number_key(const struct bb_params *p, const char *key, size_t off,
                              double fresh, double legacy)
{
    char why[256], want[96], flag[64];
    struct bb_params back, t = *p;
#define AT(q) (*(const double *)((const char *)(q) + off))
    assert_rel(AT(p), fresh, 0);
    char *js = bb_config_dump(p);
    snprintf(want, sizeof(want), "\"%s\":\"%.17g\"", key, fresh);
    assert_non_null(strstr(js, want));
    assert_int_equal(bb_config_load(js, &back, why, sizeof(why)), BB_OK);
    assert_rel(AT(&back), fresh, 0);
    free(js);
    assert_int_equal(bb_config_load("{\"epsilon\":\"10\"}", &back, why, sizeof(why)), BB_OK);
    assert_rel(AT(&back), legacy, 0);
#undef AT
    snprintf(flag, sizeof(flag), "--%s", key);
    assert_int_equal(bb_config_option(&t, flag, "1", why, sizeof(why)), BB_ENOTFOUND);
    for (size_t i = 0; bb_config_flag(i); i++)
        assert_string_not_equal(bb_config_flag(i), key);
}

/* An enum stored key that no flag sets: a new configuration stores fresh's
 * name and loads it back, one from before the key loads legacy. */
static void stored_enum_key(const struct bb_params *p, const char *key, size_t off, int fresh,
                            const char *fresh_name, int legacy)
{
    char why[256], want[96], flag[64];
    struct bb_params back, t = *p;
#define AT(q) (*(const int *)((const char *)(q) + off))
    assert_int_equal(AT(p), fresh);
    char *js = bb_config_dump(p);
    snprintf(want, sizeof(want), "\"%s\":\"%s\"", key, fresh_name);
    assert_non_null(strstr(js, want));
    assert_int_equal(bb_config_load(js, &back, why, sizeof(why)), BB_OK);
    assert_int_equal(AT(&back), fresh);
    free(js);
    assert_int_equal(bb_config_load("{\"epsilon\":\"10\"}", &back, why, sizeof(why)), BB_OK);
    assert_int_equal(AT(&back), legacy);
#undef AT
    snprintf(flag, sizeof(flag), "--%s", key);
    assert_int_equal(bb_config_option(&t, flag, fresh_name, why, sizeof(why)), BB_ENOTFOUND);
    for (size_t i = 0; bb_config_flag(i); i++)
        assert_string_not_equal(bb_config_flag(i), key);
}

static void test_stored_config_keys(void **state)
{
    (void)state;
    struct bb_params p;
    char why[256];
    bb_params_defaults(&p);
    assert_true(p.release_start == 0);
    assert_int_equal(p.prior_policy, BB_PRIOR_UNIFORM);
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    char *js = bb_config_dump(&p);
    assert_non_null(strstr(js, "\"release-start\":\"auto\""));
    assert_non_null(strstr(js, "\"prior-policy\":\"uniform\""));
    struct bb_params back;
    assert_int_equal(bb_config_load(js, &back, why, sizeof(why)), BB_OK);
    assert_true(back.release_start == 0);
    assert_int_equal(back.prior_policy, BB_PRIOR_UNIFORM);
    free(js);
    assert_int_equal(bb_config_option(&p, "--release-start", "0", why, sizeof(why)), BB_EINVAL);
    assert_int_equal(bb_config_option(&p, "--release-start", "3000", why, sizeof(why)), BB_OK);
    assert_true(p.release_start == 3000);
    assert_int_equal(bb_config_option(&p, "--release-start", "auto", why, sizeof(why)), BB_OK);
    assert_true(p.release_start == 0);
    assert_int_equal(bb_config_stored_option(&p, "--prior-policy", "greedy", why, sizeof(why)), BB_OK);
    assert_int_equal(p.prior_policy, BB_PRIOR_GREEDY);
    assert_int_equal(bb_config_stored_option(&p, "--prior-policy", "random", why, sizeof(why)),
                     BB_EINVAL);
    assert_int_equal(bb_config_load("{\"release-start\":\"1\"}", &back, why, sizeof(why)), BB_OK);
    assert_int_equal(back.prior_policy, BB_PRIOR_GREEDY);
    assert_true(back.release_start == 1);
    /* The plausible set: stored and loaded as given; a configuration from
     * before it existed keeps the greedy action (z = 0). */
    assert_true(back.plausible_z == 0 && back.plausible_floor == 0);
    assert_int_equal(bb_config_stored_option(&p, "--plausible", "0.75", why, sizeof(why)), BB_OK);
    js = bb_config_dump(&p);
    assert_non_null(strstr(js, "\"plausible\":\"0.75\""));
    assert_int_equal(bb_config_load(js, &back, why, sizeof(why)), BB_OK);
    assert_true(back.plausible_z == 0.75);
    assert_true(back.plausible_floor == 0.025);
    free(js);
    assert_int_equal(bb_config_stored_option(&p, "--plausible", "x", why, sizeof(why)), BB_EINVAL);
    /* The prior kappa: 'auto' (by the feature set, pinned at creation) or a
     * number >= 0; no negative number stands for 'auto'. */
    assert_int_equal(bb_config_stored_option(&p, "--prior-value", "auto", why, sizeof(why)), BB_OK);
    assert_true(p.prior_value == BB_PRIOR_VALUE_AUTO);
    js = bb_config_dump(&p);
    assert_non_null(strstr(js, "\"prior-value\":\"auto\""));
    assert_int_equal(bb_config_load(js, &back, why, sizeof(why)), BB_OK);
    assert_true(back.prior_value == BB_PRIOR_VALUE_AUTO);
    free(js);
    assert_int_equal(bb_config_stored_option(&p, "--prior-value", "-1", why, sizeof(why)), BB_EINVAL);
    assert_int_equal(bb_config_stored_option(&p, "--prior-value", "0", why, sizeof(why)), BB_OK);
    assert_true(p.prior_value == 0);
    /* The (epsilon, delta) conversion and the y sensitivity bound: stored
     * and loaded as given; a configuration from before they existed keeps
     * Bun–Steinke and the triangle bound, and so the rho and every noise
     * scale it was created with. */
    assert_int_equal(back.conversion, BB_CONV_CKS);
    assert_int_equal(back.y_sensitivity, BB_YSENS_CENTRED);
    assert_int_equal(bb_config_load("{\"epsilon\":\"10\"}", &back, why, sizeof(why)), BB_OK);
    assert_int_equal(back.conversion, BB_CONV_BUN_STEINKE);
    assert_int_equal(back.y_sensitivity, BB_YSENS_TRIANGLE);
    round_trip(&p, "--conversion", "bun-steinke", &back);
    assert_int_equal(back.conversion, BB_CONV_BUN_STEINKE);
    round_trip(&p, "--conversion", "cks", &back);
    assert_int_equal(back.conversion, BB_CONV_CKS);
    round_trip(&p, "--y-sensitivity", "triangle", &back);
    assert_int_equal(back.y_sensitivity, BB_YSENS_TRIANGLE);
    round_trip(&p, "--y-sensitivity", "nonnegative", &back);
    assert_int_equal(back.y_sensitivity, BB_YSENS_NONNEGATIVE);
    round_trip(&p, "--y-sensitivity", "centred", &back);
    assert_int_equal(back.y_sensitivity, BB_YSENS_CENTRED);
    /* An indefinite Lambda~: the same, refused before the option existed. */
    assert_int_equal(bb_config_load("{\"epsilon\":\"10\"}", &back, why, sizeof(why)), BB_OK);
    assert_int_equal(back.indefinite, BB_INDEF_REFUSE);
    round_trip(&p, "--indefinite", "double", &back);
    assert_int_equal(back.indefinite, BB_INDEF_DOUBLE);
    round_trip(&p, "--indefinite", "refuse", &back);
    assert_int_equal(back.indefinite, BB_INDEF_REFUSE);
    assert_int_equal(bb_config_stored_option(&p, "--indefinite", "fix", why, sizeof(why)), BB_EINVAL);
    assert_int_equal(bb_config_option(&p, "--conversion", "rdp", why, sizeof(why)), BB_EINVAL);
    assert_int_equal(bb_config_stored_option(&p, "--y-sensitivity", "2", why, sizeof(why)), BB_EINVAL);
    /* Exact arithmetic (docs/PRIVACY.md §5): a stored key, never a flag. A
     * new configuration stores "exact"; one from before exact arithmetic
     * loads as "float" and so derives the noise it was created with
     * (test_golden's first column). */
    stored_enum_key(&p, "arithmetic", offsetof(struct bb_params, arithmetic), BB_ARITH_EXACT,
                    "exact", BB_ARITH_FLOAT);
    assert_int_equal(bb_config_load("{\"arithmetic\":\"exact\"}", &back, why, sizeof(why)), BB_OK);
    assert_int_equal(back.arithmetic, BB_ARITH_EXACT);
    assert_int_equal(bb_config_load("{\"arithmetic\":\"fast\"}", &back, why, sizeof(why)), BB_EINVAL);
    /* The next values' noise discount (docs/PRIVACY.md §3.5): likewise. A new
     * configuration stores 2; one from before it loads as 0, the backward
     * pass it learned with; the simulator's sweeps may set it. */
    stored_number_key(&p, "next-discount", offsetof(struct bb_params, next_discount), 2.0, 0.0);
    /* The first update's share (docs/PRIVACY.md §2.3): likewise; a new
     * configuration stores 2, one from before it loads as 1, every update
     * the same share. */
    stored_number_key(&p, "first-share", offsetof(struct bb_params, first_share), 2.0, 1.0);
    /* The warm-up's share (docs/PRIVACY.md §2.5): likewise; a new
     * configuration stores 0.15, one from before it loads as 0, no warm-up. */
    stored_number_key(&p, "warm-up", offsetof(struct bb_params, warm_share), 0.15, 0.0);
    /* How the prior ends (docs/PRIVACY.md §3.2): a stored key, never a flag;
     * a new configuration stores "taper", one from before it loads as
     * "kept", the prior at every update; one stored "none" keeps it. */
    stored_enum_key(&p, "final-prior", offsetof(struct bb_params, final_prior),
                    BB_FINAL_PRIOR_TAPER, "taper", BB_FINAL_PRIOR_KEPT);
    round_trip(&p, "--final-prior", "kept", &back);
    assert_int_equal(back.final_prior, BB_FINAL_PRIOR_KEPT);
    round_trip(&p, "--final-prior", "none", &back);
    assert_int_equal(back.final_prior, BB_FINAL_PRIOR_NONE);
    assert_int_equal(bb_config_stored_option(&p, "--final-prior", "some", why, sizeof(why)),
                     BB_EINVAL);
    /* The rows' weights (docs/PRIVACY.md §1.7): a stored key, never a flag;
     * a new configuration stores "norm", one from before it loads as "one",
     * every row weighing 1, the sums its releases hold. */
    stored_enum_key(&p, "row-weight", offsetof(struct bb_params, row_weight),
                    BB_ROW_WEIGHT_NORM, "norm", BB_ROW_WEIGHT_ONE);
    round_trip(&p, "--row-weight", "one", &back);
    assert_int_equal(back.row_weight, BB_ROW_WEIGHT_ONE);
    assert_int_equal(bb_config_stored_option(&p, "--row-weight", "all", why, sizeof(why)),
                     BB_EINVAL);
    /* The keys that were flags until the learner's levers were measured
     * (docs/DAEMON.md "Stored keys"): a database stores them all, a command
     * line or configuration file sets none, the simulator sets every one. */
    static const char *const demoted[][2] = {
        {"failure-prob", "0.25"},    {"update-ratio", "3"},     {"shift-bound", "paper"},
        {"indefinite", "refuse"},   {"value-clip", "horizon"}, {"prior-policy", "greedy"},
        {"y-exponent", "0"},        {"prior-value", "0.25"},    {"y-sensitivity", "triangle"},
        {"plausible", "0"},         {"plausible-floor", "0.125"}, {"calibration", "paper"},
    };
    for (size_t i = 0; i < sizeof(demoted) / sizeof(demoted[0]); i++) {
        char flag[64];
        snprintf(flag, sizeof(flag), "--%s", demoted[i][0]);
        struct bb_params t = p;
        assert_int_equal(bb_config_option(&t, flag, demoted[i][1], why, sizeof(why)), BB_ENOTFOUND);
        for (size_t j = 0; bb_config_flag(j); j++)
            assert_string_not_equal(bb_config_flag(j), demoted[i][0]);
        size_t k = 0;
        while (bb_config_key(k) && strcmp(bb_config_key(k), demoted[i][0]) != 0)
            k++;
        assert_non_null(bb_config_key(k)); /* the simulator's option */
        round_trip(&t, flag, demoted[i][1], &back);
        char *a = bb_config_dump(&t), *b = bb_config_dump(&back);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    struct bb_params swept = p;
    assert_int_equal(bb_config_stored_option(&swept, "--next-discount", "3", why, sizeof(why)), BB_OK);
    assert_rel(swept.next_discount, 3.0, 0);
    assert_int_equal(bb_config_stored_option(&swept, "--first-share", "1.5", why, sizeof(why)), BB_OK);
    assert_rel(swept.first_share, 1.5, 0);
    assert_int_equal(bb_config_stored_option(&swept, "--next-discount", "x", why, sizeof(why)),
                     BB_EINVAL);
    assert_int_equal(bb_config_stored_option(&swept, "--no-such", "1", why, sizeof(why)),
                     BB_ENOTFOUND);
}

/* GET /v1/config and --print-params report the bound on y's change in
 * force, whatever the stored key asks for: the centred release needs simplex
 * or onehot rows, the nonnegative bound too. */
static void test_reported_y_sensitivity(void **state)
{
    (void)state;
    static const struct {
        enum bb_features f;
        enum bb_y_sensitivity asked;
        const char *reported;
    } c[] = {
        {BB_FEATURES_SIMPLEX, BB_YSENS_CENTRED, "centred"},
        {BB_FEATURES_ONEHOT, BB_YSENS_CENTRED, "centred"},
        {BB_FEATURES_BALL, BB_YSENS_CENTRED, "triangle"},
        {BB_FEATURES_SIMPLEX, BB_YSENS_NONNEGATIVE, "nonnegative"},
        {BB_FEATURES_ONEHOT, BB_YSENS_NONNEGATIVE, "nonnegative"},
        {BB_FEATURES_SIMPLEX, BB_YSENS_TRIANGLE, "triangle"},
        {BB_FEATURES_BALL, BB_YSENS_NONNEGATIVE, "triangle"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        struct bb_params p;
        struct bb_config_info info;
        bb_params_defaults(&p);
        p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
        p.features = c[i].f, p.y_sensitivity = c[i].asked;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
        assert_int_equal(bb_config_info_of(&p, &info), BB_OK);
        assert_string_equal(info.y_sensitivity, c[i].reported);
        bb_config_info_release(&info);
    }
}

/* A configuration whose 'auto' choices are pinned (bb_config_pin) derives to
 * exactly the same constants as the one it came from, and its stored form
 * names the choices, not 'auto'; on a restart an 'auto' flag takes the
 * stored choice (bb_config_keep_pinned), an explicit value does not. */
static void test_config_pin(void **state)
{
    (void)state;
    const struct {
        int H, d, A;
        double eps;
        const char *flag, *value;
    } c[] = {
        {5, 8, 5, 10, NULL, NULL},        {5, 8, 5, 1, NULL, NULL},
        {20, 12, 2, 10, NULL, NULL},      {10, 16, 8, 1, NULL, NULL},
        {5, 8, 5, INFINITY, NULL, NULL},  {5, 8, 5, 10, "--mechanism", "tree"},
        {5, 8, 5, 3, "--max-updates", "4"}, {5, 8, 5, 3, "--release-start", "500"},
        {5, 8, 5, 3, "--mechanism", "grid"}, {20, 12, 2, 10, "--features", "onehot"},
        {5, 8, 5, 3, "--shift-scale", "0.375"},
    };
    char why[256];
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        struct bb_params given, derived, pinned, loaded, again;
        bb_params_defaults(&given);
        given.H = c[i].H, given.d = c[i].d, given.A = c[i].A, given.K_max = 100000;
        given.epsilon = c[i].eps;
        if (c[i].flag)
            assert_int_equal(bb_config_option(&given, c[i].flag, c[i].value, why, sizeof(why)),
                             BB_OK);
        derived = given;
        assert_int_equal(bb_params_derive(&derived, why, sizeof(why)), BB_OK);
        pinned = given;
        bb_config_pin(&pinned, &derived);
        char *js = bb_config_dump(&pinned);
        assert_null(strstr(js, "auto"));
        assert_null(strstr(js, "\"max-updates\":\"0\""));
        /* The shift scale 'auto' is pinned as the number it chose: 0.4 of
         * onehot rows' diagonal bound, 0.25 otherwise. */
        const char *scale = c[i].flag && strcmp(c[i].flag, "--shift-scale") == 0 ? c[i].value
                            : c[i].flag && strcmp(c[i].value, "onehot") == 0  ? "0.40000000000000002"
                                                                              : "0.25";
        char want[64];
        snprintf(want, sizeof(want), "\"shift-scale\":\"%s\"", scale);
        if (!strstr(js, want))
            fail_msg("%s: want %s", js, want);
        /* So is the prior's 'auto': 0.35 for onehot rows, 0 otherwise. */
        snprintf(want, sizeof(want), "\"prior-value\":\"%s\"",
                 derived.features == BB_FEATURES_ONEHOT ? "0.34999999999999998" : "0");
        if (!strstr(js, want))
            fail_msg("%s: want %s", js, want);
        assert_int_equal(bb_config_load(js, &loaded, why, sizeof(why)), BB_OK);
        again = loaded;
        assert_int_equal(bb_params_derive(&again, why, sizeof(why)), BB_OK);
        char *sa = bb_config_info_json(&derived, 0, NULL);
        char *sb = bb_config_info_json(&again, 0, NULL);
        assert_non_null(sa);
        assert_non_null(sb);
        assert_string_equal(sa, sb);
        /* An 'auto' flag on a restart means the stored choice; a value
         * differing from it stays different. */
        struct bb_params t = loaded;
        assert_int_equal(bb_config_option(&t, "--release-start", "auto", why, sizeof(why)), BB_OK);
        assert_int_equal(bb_config_option(&t, "--mechanism", "auto", why, sizeof(why)), BB_OK);
        assert_int_equal(bb_config_option(&t, "--max-updates", "0", why, sizeof(why)), BB_OK);
        assert_int_equal(bb_config_option(&t, "--shift-scale", "auto", why, sizeof(why)), BB_OK);
        assert_int_equal(bb_config_stored_option(&t, "--prior-value", "auto", why, sizeof(why)),
                         BB_OK);
        bb_config_keep_pinned(&t, &loaded);
        char *jt = bb_config_dump(&t);
        assert_string_equal(jt, js);
        free(jt);
        t = loaded;
        assert_int_equal(bb_config_option(&t, "--release-start", "7", why, sizeof(why)), BB_OK);
        bb_config_keep_pinned(&t, &loaded);
        jt = bb_config_dump(&t);
        assert_string_not_equal(jt, js);
        free(jt);
        free(sa), free(sb), free(js);
    }
    /* A non-private run on the tree pins N_max = K_max, which may pass 2^31:
     * its stored form must load again. */
    {
        struct bb_params np, npd, back;
        bb_params_defaults(&np);
        np.H = 5, np.d = 8, np.A = 5, np.K_max = 1L << 33, np.rho = INFINITY;
        npd = np;
        assert_int_equal(bb_params_derive(&npd, why, sizeof(why)), BB_OK);
        bb_config_pin(&np, &npd);
        char *s = bb_config_dump(&np);
        assert_int_equal(bb_config_load(s, &back, why, sizeof(why)), BB_OK);
        assert_int_equal(back.max_updates_cap, 1L << 33);
        assert_int_equal(bb_params_derive(&back, why, sizeof(why)), BB_OK);
        assert_int_equal(back.max_updates, 1L << 33);
        free(s);
    }
    /* Known values: the simplex sizes at epsilon 10 store k0 = 1166, N_max 11
     * (rho by CKS; test_params test_release_start_auto); the tree stores
     * k0 = 1. */
    struct bb_params g, d;
    bb_params_defaults(&g);
    g.H = 5, g.d = 8, g.A = 5, g.K_max = 100000, g.epsilon = 10;
    g.release_base = 1.5; /* as the known values were computed */
    g.first_share = 1;    /* as the known values were computed */
    g.warm_share = 0;     /* as the known values were computed */
    d = g;
    assert_int_equal(bb_params_derive(&d, why, sizeof(why)), BB_OK);
    bb_config_pin(&g, &d);
    char *js = bb_config_dump(&g);
    assert_non_null(strstr(js, "\"release-start\":\"1166\""));
    assert_non_null(strstr(js, "\"conversion\":\"cks\""));
    assert_non_null(strstr(js, "\"max-updates\":\"11\""));
    assert_non_null(strstr(js, "\"mechanism\":\"grid-sqrt\""));
    free(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_flag_is_a_key),
        cmocka_unit_test(test_command_line_overrides_the_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_loopback),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_stored_config_keys),
        cmocka_unit_test(test_reported_y_sensitivity),
        cmocka_unit_test(test_config_pin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
