/*
 * test_log.c — the daemon's text log lines on known values: the timestamp's
 * shape, the level, events with string and number fields (numbers as
 * "%.10g" prints them), quoting, and the line length cap.
 */
#include "testutil.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* Runs fn with stderr sent to a file and returns what it wrote (owned). */
static char *captured(void (*fn)(void))
{
    char path[] = "/tmp/bb-test-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    fn();
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    off_t n = lseek(fd, 0, SEEK_END);
    assert_true(n >= 0);
    char *out = malloc((size_t)n + 1);
    assert_non_null(out);
    assert_int_equal(pread(fd, out, (size_t)n, 0), n);
    out[n] = '\0';
    close(fd);
    return out;
}

/* Checks "YYYY-MM-DDThh:mm:ss.sssZ " at line and returns what follows. */
static const char *after_time(const char *line)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ ";
    for (size_t i = 0; i < sizeof(shape) - 1; i++) {
        if (shape[i] == 'd' ? !isdigit((unsigned char)line[i]) : line[i] != shape[i])
            fail_msg("timestamp shape at %zu: '%.30s'", i, line);
    }
    return line + sizeof(shape) - 1;
}

static void log_events(void)
{
    struct bb_log_field access[] = {
        {"client", "127.0.0.1", 0}, {"method", "GET", 0},    {"route", "/v1/billboard", 0},
        {"status", NULL, 200},      {"bytes", NULL, 1724},   {"latency_ms", NULL, 0.094},
        {"clinic", NULL, 3},
    };
    bb_log_event(BB_LOG_INFO, "access", access, sizeof(access) / sizeof(access[0]));
    struct bb_log_field nums[] = {
        {"zero", NULL, 0},         {"big", NULL, 9999999999.0}, {"e10", NULL, 1e10},
        {"e11", NULL, 12345678901.0}, {"neg", NULL, -5},       {"half", NULL, 0.5},
        {"third", NULL, 1.0 / 3},  {"inf", NULL, INFINITY},    {"negzero", NULL, -0.0},
    };
    bb_log_event(BB_LOG_WARN, "numbers", nums, sizeof(nums) / sizeof(nums[0]));
    struct bb_log_field quoted[] = {
        {"empty", "", 0}, {"blank", "a b", 0}, {"eq", "x=y", 0}, {"plain", "ok", 0}};
    bb_log_event(BB_LOG_ERROR, "quoting", quoted, sizeof(quoted) / sizeof(quoted[0]));
    bb_log(BB_LOG_INFO, "serving %s on port %d", "bb.db", 8443);
}

static void test_lines(void **state)
{
    (void)state;
    char *out = captured(log_events);
    static const char *const want[] = {
        "info billboardd: access client=127.0.0.1 method=GET route=/v1/billboard status=200 "
        "bytes=1724 latency_ms=0.094 clinic=3",
        "warn billboardd: numbers zero=0 big=9999999999 e10=1e+10 e11=1.23456789e+10 neg=-5 "
        "half=0.5 third=0.3333333333 inf=inf negzero=-0",
        "error billboardd: quoting empty=\"\" blank=\"a b\" eq=\"x=y\" plain=ok",
        "info billboardd: serving bb.db on port 8443",
    };
    char *save = NULL, *line = strtok_r(out, "\n", &save);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (!line)
            fail_msg("line %zu missing", i);
        assert_string_equal(after_time(line), want[i]);
        line = strtok_r(NULL, "\n", &save);
    }
    assert_null(line);
    free(out);
}

static void log_long(void)
{
    static char big[10000];
    memset(big, 'x', sizeof(big) - 1);
    struct bb_log_field f[] = {{"value", big, 0}};
    bb_log_event(BB_LOG_INFO, "long", f, 1);
    bb_log(BB_LOG_INFO, "%s", big);
}

/* A line longer than the cap is cut, still one line with its newline. */
static void test_long_lines(void **state)
{
    (void)state;
    char *out = captured(log_long);
    char *save = NULL;
    int lines = 0;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        after_time(line);
        assert_true(strlen(line) <= 4096);
        assert_true(strlen(line) > 4000);
        lines++;
    }
    assert_int_equal(lines, 2);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_long_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
