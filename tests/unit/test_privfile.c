/*
 * test_privfile.c — bb_private_file: a new file is 0600 whatever the umask
 * (000 gives others everything, 0277 takes the owner's write bit too); an
 * existing file and its -wal, -shm and -journal lose group and other
 * permissions and keep their content; missing side files are no error.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privfile.h"

static char dir[] = "/tmp/bb_test_privfile_XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static unsigned mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (unsigned)(st.st_mode & 07777);
}

static void make(const char *path, mode_t mode, const char *content)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
    assert_int_equal(fchmod(fd, mode), 0);
    assert_int_equal(close(fd), 0);
}

static void test_new_file_whatever_the_umask(void **state)
{
    (void)state;
    static const mode_t masks[] = {0, 022, 077, 0277};
    char path[128], why[256];
    for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
        snprintf(path, sizeof(path), "%s/new%zu.db", dir, i);
        mode_t old = umask(masks[i]);
        int rc = bb_private_file(path, why, sizeof(why));
        umask(old);
        assert_int_equal(rc, BB_OK);
        assert_int_equal(mode_of(path), 0600);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 0);
    }
}

static void test_existing_files_tightened(void **state)
{
    (void)state;
    char path[128], side[160], why[256];
    snprintf(path, sizeof(path), "%s/old.db", dir);
    make(path, 0644, "data");
    snprintf(side, sizeof(side), "%s-wal", path);
    make(side, 0666, "wal");
    snprintf(side, sizeof(side), "%s-journal", path);
    make(side, 0640, "journal");
    /* No -shm: a missing side file is fine. */
    assert_int_equal(bb_private_file(path, why, sizeof(why)), BB_OK);
    assert_int_equal(mode_of(path), 0600);
    snprintf(side, sizeof(side), "%s-wal", path);
    assert_int_equal(mode_of(side), 0600);
    snprintf(side, sizeof(side), "%s-journal", path);
    assert_int_equal(mode_of(side), 0600);
    snprintf(side, sizeof(side), "%s-shm", path);
    assert_int_equal(access(side, F_OK), -1);
    /* The content stays. */
    char buf[8] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), 4);
    fclose(f);
    assert_string_equal(buf, "data");
    /* A private file stays as it is (0400 is the owner's choice). */
    make(path, 0400, "data");
    assert_int_equal(bb_private_file(path, why, sizeof(why)), BB_OK);
    assert_int_equal(mode_of(path), 0400);
}

static void test_unreachable_path(void **state)
{
    (void)state;
    char why[256] = "";
    assert_int_equal(bb_private_file("/nonexistent/dir/x.db", why, sizeof(why)), BB_EIO);
    assert_non_null(strstr(why, "/nonexistent/dir/x.db"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_file_whatever_the_umask),
        cmocka_unit_test(test_existing_files_tightened),
        cmocka_unit_test(test_unreachable_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
