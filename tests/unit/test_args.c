/*
 * test_args.c — the command-line rules all three programs share
 * (proto/args.h): exact spelling, --flag=value and --flag value, a missing
 * or an unwanted value, "--", -h; and the strict numbers.
 */
#include "testutil.h"

#include <string.h>

#include "args.h"

static const struct bb_opt table[] = {
    {"help", 0, 1},
    {"json", 0, 2},
    {"server", 1, 3},
    {"server-name", 1, 4},
};
#define N (sizeof(table) / sizeof(table[0]))

/* Reads words (NULL-terminated) and writes what each read was into out:
 * "O3=v" an option with its id and value, "P:w" positional, "U:w"
 * unknown, "M3" missing value, "X1" unwanted value. */
static void read_all(const char *const *words, char *out, size_t outlen)
{
    char *argv[16];
    int argc = 0;
    for (; *words; words++)
        argv[argc++] = (char *)*words;
    struct bb_args a;
    struct bb_arg g;
    size_t n = 0;
    out[0] = '\0';
    bb_args_init(&a, argc, argv, 0);
    while (bb_args_next(&a, table, N, &g) != BB_ARG_END) {
        switch (g.kind) {
        case BB_ARG_OPTION:
            n +=
                (size_t)snprintf(out + n, outlen - n, "O%d=%s ", g.opt->id, g.value ? g.value : "");
            break;
        case BB_ARG_POSITIONAL:
            n += (size_t)snprintf(out + n, outlen - n, "P:%s ", g.word);
            break;
        case BB_ARG_UNKNOWN:
            n += (size_t)snprintf(out + n, outlen - n, "U:%s ", g.word);
            break;
        case BB_ARG_NO_VALUE:
            n += (size_t)snprintf(out + n, outlen - n, "M%d ", g.opt->id);
            break;
        case BB_ARG_EXTRA_VALUE:
            n += (size_t)snprintf(out + n, outlen - n, "X%d ", g.opt->id);
            break;
        default:
            fail_msg("unexpected kind %d", g.kind);
        }
    }
}

static void test_rules(void **state)
{
    (void)state;
    static const struct {
        const char *words[8];
        const char *want;
    } t[] = {
        {{"--server", "u", NULL}, "O3=u "},
        {{"--server=u", NULL}, "O3=u "},
        {{"--server=", NULL}, "O3= "},           /* an empty value is a value */
        {{"--server-name", "n", NULL}, "O4=n "}, /* not --server with "-name" */
        {{"--ser", "u", NULL}, "U:--ser P:u "},  /* no abbreviations */
        {{"--servers=u", NULL}, "U:--servers=u "},
        {{"--server", NULL}, "M3 "},
        {{"--json=1", NULL}, "X2 "},
        {{"-h", NULL}, "O1= "},
        {{"-h=x", NULL}, "X1 "},
        {{"-hx", "-x", NULL}, "U:-hx U:-x "},
        {{"a", "-", "--json", "b", NULL}, "P:a P:- O2= P:b "},
        {{"--", "--json", "-h", NULL}, "P:--json P:-h "},
        {{"--server", "--json", NULL}, "O3=--json "}, /* the next word is the value */
    };
    char got[256];
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        read_all(t[i].words, got, sizeof(got));
        if (strcmp(got, t[i].want) != 0)
            fail_msg("case %zu: got '%s', want '%s'", i, got, t[i].want);
    }
    assert_ptr_equal(bb_opt_find(table, N, "server"), &table[2]);
    assert_null(bb_opt_find(table, N, "--server"));
}

static void test_numbers(void **state)
{
    (void)state;
    static const char *const longs_ok[] = {"0", "-3", "+7", "9223372036854775807", NULL};
    static const char *const longs_bad[] = {
        "", " 1", "1 ", "1x", "0x10", "1.5", "9223372036854775808", "--1", NULL};
    static const char *const doubles_ok[] = {"0", "-2.5", "1e-3", "inf", "-inf", "1E300", NULL};
    static const char *const doubles_bad[] = {"", " 1", "nan", "1e999", "1,5", "1.5x", NULL};
    long l = 42;
    double x = 42;
    for (const char *const *s = longs_ok; *s; s++)
        if (bb_parse_long(*s, &l) != BB_OK)
            fail_msg("'%s' is a long", *s);
    for (const char *const *s = longs_bad; *s; s++) {
        l = 42;
        if (bb_parse_long(*s, &l) != BB_EINVAL || l != 42)
            fail_msg("'%s' is no long (or *out changed)", *s);
    }
    for (const char *const *s = doubles_ok; *s; s++)
        if (bb_parse_double(*s, &x) != BB_OK)
            fail_msg("'%s' is a double", *s);
    for (const char *const *s = doubles_bad; *s; s++) {
        x = 42;
        if (bb_parse_double(*s, &x) != BB_EINVAL || x != 42)
            fail_msg("'%s' is no double (or *out changed)", *s);
    }
    assert_int_equal(bb_parse_long("-12", &l), BB_OK);
    assert_int_equal(l, -12);
    assert_int_equal(bb_parse_double("0.25", &x), BB_OK);
    assert_true(x == 0.25);
    assert_int_equal(bb_parse_long(NULL, &l), BB_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_numbers),
    };
    return cmocka_run_group_tests_name("args", tests, NULL, NULL);
}
