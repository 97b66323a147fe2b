/*
 * test_conffile.c — the configuration file's syntax: keys and values with
 * blanks trimmed, comments and blank lines, CRLF, the value verbatim (a '#'
 * after '=' included), and every error with FILE:LINE — no '=', no value,
 * a bad key, a key twice, a NUL byte — leaving nothing behind.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conffile.h"

static void test_parses_keys_and_values(void **state)
{
    (void)state;
    static const char text[] = "# billboardd\n"
                               "\n"
                               "   # indented comment\n"
                               "db = /var/lib/billboard/billboard.db\n"
                               "port=8080\r\n"
                               "\tlisten\t=\t127.0.0.1  \n"
                               "tls-priorities = NORMAL:-VERS-ALL:+VERS-TLS1.3 # kept\n"
                               "insecure-http = true"; /* no final newline */
    struct bb_conffile cf;
    char why[256] = "";
    assert_int_equal(bb_conffile_parse(&cf, "x.conf", text, sizeof(text) - 1, why, sizeof(why)),
                     BB_OK);
    assert_int_equal(cf.n, 5);
    static const struct {
        const char *key, *flag, *value;
        int line;
    } want[] = {
        {"db", "--db", "/var/lib/billboard/billboard.db", 4},
        {"port", "--port", "8080", 5},
        {"listen", "--listen", "127.0.0.1", 6},
        {"tls-priorities", "--tls-priorities", "NORMAL:-VERS-ALL:+VERS-TLS1.3 # kept", 7},
        {"insecure-http", "--insecure-http", "true", 8},
    };
    for (size_t i = 0; i < cf.n; i++) {
        assert_string_equal(cf.e[i].key, want[i].key);
        assert_string_equal(cf.e[i].flag, want[i].flag);
        assert_string_equal(cf.e[i].value, want[i].value);
        assert_int_equal(cf.e[i].line, want[i].line);
    }
    assert_string_equal(cf.path, "x.conf");
    bb_conffile_release(&cf);
    assert_null(cf.e);
    bb_conffile_release(&cf); /* released twice: no-op */

    /* Empty, and comments only. */
    assert_int_equal(bb_conffile_parse(&cf, "e", "", 0, why, sizeof(why)), BB_OK);
    assert_int_equal(cf.n, 0);
    bb_conffile_release(&cf);
    assert_int_equal(bb_conffile_parse(&cf, "e", "#x\n\n#y", 6, why, sizeof(why)), BB_OK);
    assert_int_equal(cf.n, 0);
    bb_conffile_release(&cf);
}

static void test_errors_name_file_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"port = 1\nlisten\n", "f.conf:2: listen has no value: write 'listen = VALUE'"},
        {"port =\n", "f.conf:1: port has no value"},
        {"port =   \t\n", "f.conf:1: port has no value"},
        {"\n\n= 5\n", "f.conf:3: bad key '': a key is a flag's name, like 'port'"},
        {"--port = 5\n", "f.conf:1: bad key '--port': a key is a flag's name without its dashes"},
        {"Port = 5\n", "f.conf:1: bad key 'Port': a key is a flag's name, like 'port'"},
        {"max episodes = 5\n",
         "f.conf:1: bad key 'max episodes': a key is a flag's name, like 'port'"},
        {"port = 1\n# c\nport = 2\n", "f.conf:3: duplicate key 'port' (first at line 1)"},
        {"what is this\n", "f.conf:1: expected 'key = value'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct bb_conffile cf;
        char why[256] = "";
        int rc = bb_conffile_parse(&cf, "f.conf", cases[i].text, strlen(cases[i].text), why,
                                   sizeof(why));
        if (rc != BB_EINVAL || strcmp(why, cases[i].why) != 0)
            fail_msg("case %zu: rc %d, why '%s', want '%s'", i, rc, why, cases[i].why);
        assert_null(cf.e);
        assert_int_equal(cf.n, 0);
        bb_conffile_release(&cf);
    }
    struct bb_conffile cf;
    char why[256] = "";
    assert_int_equal(bb_conffile_parse(&cf, "b", "a = 1\n\0b = 2\n", 13, why, sizeof(why)),
                     BB_EINVAL);
    assert_string_equal(why, "b: not a text file (NUL byte)");
}

static void test_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/bb_test_conffile_XXXXXX", path[64], why[256] = "";
    struct bb_conffile cf;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/b.conf", dir);
    assert_int_equal(bb_conffile_read(&cf, path, why, sizeof(why)), BB_EIO);
    assert_non_null(strstr(why, "No such file"));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("horizon = 10\ndim = 16\n", f);
    fclose(f);
    assert_int_equal(bb_conffile_read(&cf, path, why, sizeof(why)), BB_OK);
    assert_int_equal(cf.n, 2);
    assert_string_equal(cf.e[1].value, "16");
    bb_conffile_release(&cf);
    /* Over 1 MiB: refused, not truncated. */
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < (1 << 20) / 8 + 1; i++)
        fputs("#comment", f);
    fclose(f);
    assert_int_equal(bb_conffile_read(&cf, path, why, sizeof(why)), BB_EIO);
    assert_non_null(strstr(why, "larger than"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parses_keys_and_values),
        cmocka_unit_test(test_errors_name_file_and_line),
        cmocka_unit_test(test_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
