/*
 * cli.h — the pieces every `billboard` command shares (program-internal),
 * grouped by the file that implements them:
 *
 *   options.c  the command line: getopt_long over the global options and a
 *              command's own, strict numbers, usage errors
 *   setup.c    the client from options and environment; the billboard
 *   fail.c     an error as one line on stderr and an exit code
 *   input.c    files and feature matrices
 *   print.c    tables, JSON, times, the progress bar
 *   cmd_*.c    the commands; main.c finds the command word
 */
#ifndef BB_CLI_H
#define BB_CLI_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "billboard/client.h"

/* Exit codes (also in --help and docs/CLI.md). */
enum cli_exit {
    EXIT_OKAY = 0,
    EXIT_LOCAL = 1,   /* local failure: state file, input file, invalid local data */
    EXIT_USAGE = 2,   /* bad command line */
    EXIT_NET = 3,     /* daemon unreachable (after retries) */
    EXIT_SERVER = 4,  /* daemon answered 5xx (after retries) or an unreadable answer */
    EXIT_REFUSED = 5, /* daemon refused the request: 4xx (auth, validation, conflict, K_max) */
};

#define CLI_DEFAULT_SERVER "http://127.0.0.1:8080"

/* Options every command accepts. Strings are borrowed from argv/environ
 * except the tokens, which are owned and wiped by cli_release(). */
struct cli {
    const char *prog;
    const char *server;
    const char *state; /* state file path (NULL = default) */
    char *state_owned; /* owned default path */
    char *token;       /* owned */
    char *admin;       /* owned */
    const char *token_file, *admin_file;
    const char *cacert; /* CA file for https:// (NULL: $BILLBOARD_CACERT, else the system's) */
    int json;
    int help;
    long timeout_ms, retries, retry_total_ms;
};

/* ---- options.c ---- */

/* One command-specific option. Exactly one of val (takes a value) or flag
 * (boolean) is set. */
struct cli_opt {
    const char *name; /* with the leading "--" */
    const char **val;
    int *flag;
};

/* Parses args (borrowed) with getopt_long: global options into cli, the
 * command's options into opts (NULL-name terminated, at most 16; may be
 * NULL), positional arguments into pos (up to maxpos, count in *npos).
 * Option names must be spelt out in full. Prints the reason and returns
 * EXIT_USAGE on a bad line, else EXIT_OKAY. */
int cli_parse(struct cli *cli, int argc, char **argv, const struct cli_opt *opts, const char **pos,
              int maxpos, int *npos);

/* 1 if arg is a global option whose value is the next argument ("--server"
 * but not "--server=URL"), so that main can find the command word. */
int cli_takes_value(const char *arg);

/* Prints a usage error and returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict number parsing: the whole string must be the number. 0 on success. */
int cli_long(const char *s, long *out);
int cli_double(const char *s, double *out);

/* ---- setup.c ---- */

/* Reads the tokens (env or files) into cli and makes a client; needs_state
 * opens the state file (default path created if needed). Returns an exit
 * code; *out is the client on EXIT_OKAY (caller frees). */
int cli_client(struct cli *cli, int needs_state, struct bb_client **out);

/* Wipes and frees what cli owns (tokens, default state path). */
void cli_release(struct cli *cli);

/* Fetches the current billboard into *b (borrowed from c). If the daemon
 * cannot be reached or answers 5xx but the state file holds the last
 * billboard fetched, warns on stderr and uses that one. Returns an exit
 * code. */
int cli_billboard(struct bb_client *c, const struct bb_billboard **b);

/* ---- fail.c ---- */

/* Prints "billboard: what: reason (HTTP status: title: detail)" to stderr and
 * returns the exit code for err after a call on c (c may be NULL). */
int cli_fail(const struct bb_client *c, int err, const char *what);

/* ---- input.c ---- */

/* Reads a feature file (JSON [[d numbers] x A]; "-" = stdin) into *out
 * (malloc'd A*d doubles, caller frees). Returns EXIT_OKAY or EXIT_LOCAL
 * with the reason printed. */
int cli_read_features(const char *path, int A, int d, double **out);

/* Reads a whole file ("-" = stdin) into a malloc'd NUL-terminated buffer
 * (caller frees); *len receives its length. NULL if it cannot be read. */
char *cli_slurp(const char *path, size_t *len);

/* ---- print.c ---- */

/* Prints j: with --json as indented JSON, else as an aligned two-column
 * table, nested objects flattened as "a.b". */
void cli_print_object(const struct cli *cli, json_t *j);

/* Parses text (taken: freed here; NULL gives NULL), the JSON a proto/
 * encoder wrote, for printing. NULL if it does not parse. */
json_t *cli_json_of(char *text);

/* Prints an array of objects as a table with one column per key of the
 * first element (or as JSON with --json). */
void cli_print_rows(const struct cli *cli, json_t *rows);

/* Rewrites the members of o named in keys (NULL-terminated) that are Unix
 * seconds (JSON integers) as RFC 3339 UTC strings, "YYYY-MM-DDThh:mm:ssZ":
 * the one time format of every listing, tables and --json alike. Other
 * values (null, strings) stay as they are. */
void cli_times_rfc3339(json_t *o, const char *const *keys);

/* Progress bar on stderr, only if it is a terminal; user is ignored. */
void cli_progress(void *user, size_t done, size_t total);

/* ---- cmd_*.c ---- */

/* Command entry points: args are what follows the command words. */
int cmd_config(struct cli *cli, int argc, char **argv);
int cmd_privacy(struct cli *cli, int argc, char **argv);
int cmd_show(struct cli *cli, int argc, char **argv);
int cmd_recommend(struct cli *cli, int argc, char **argv);
int cmd_episode(struct cli *cli, const char *sub, int argc, char **argv);
int cmd_submit(struct cli *cli, int argc, char **argv);
int cmd_clinics(struct cli *cli, const char *sub, int argc, char **argv);

#endif
