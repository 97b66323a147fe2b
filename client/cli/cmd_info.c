/*
 * cmd_info.c — the read-only commands: `billboard config`, `privacy`, `show`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static int get_and_print(struct cli *cli, int argc, char **argv, const char *help,
                         int (*get)(struct bb_client *, json_t **), const char *what)
{
    const char *pos[1];
    int npos;
    struct bb_client *c = NULL;
    json_t *j = NULL;
    int rc = cli_parse(cli, argc, argv, NULL, pos, 0, &npos);
    if (rc != EXIT_OKAY)
        goto out;
    if (cli->help) {
        fputs(help, stdout);
        goto out;
    }
    rc = cli_client(cli, 0, &c);
    if (rc != EXIT_OKAY)
        goto out;
    int err = get(c, &j);
    if (err != BB_OK) {
        rc = cli_fail(c, err, what);
        goto out;
    }
    cli_print_object(cli, j);
out:
    json_decref(j);
    bb_client_free(c);
    return rc;
}

int cmd_config(struct cli *cli, int argc, char **argv)
{
    return get_and_print(cli, argc, argv,
                         "usage: billboard config [--json]\n"
                         "\n"
                         "Prints GET /v1/config: H, d, A, K_max, the privacy budget and every\n"
                         "derived constant (sigma, shift, N_max). Exit codes: see billboard "
                         "--help.\n",
                         bb_client_config, "config");
}

int cmd_privacy(struct cli *cli, int argc, char **argv)
{
    return get_and_print(cli, argc, argv,
                         "usage: billboard privacy [--json]\n"
                         "\n"
                         "Prints GET /v1/privacy: rho, epsilon, delta, budget spent and\n"
                         "remaining per mechanism, updates used of N_max, episodes of K_max.\n"
                         "Exit codes: see billboard --help.\n",
                         bb_client_privacy, "privacy");
}

static const char show_help[] =
    "usage: billboard show [--version V] [--json]\n"
    "\n"
    "Fetches the current billboard (GET /v1/billboard) or a past one\n"
    "(GET /v1/billboard/V) and prints its header and, per step h, the norm of\n"
    "w_h, its first entries and the smallest and largest diagonal entry of the\n"
    "noisy Gram matrix. --json prints the billboard in its canonical wire form.\n"
    "Exit codes: see billboard --help.\n";

int cmd_show(struct cli *cli, int argc, char **argv)
{
    const char *version = NULL, *pos[1];
    const struct cli_opt opts[] = {{"--version", &version, NULL}, {NULL, NULL, NULL}};
    struct bb_client *c = NULL;
    struct bb_billboard past = {0};
    const struct bb_billboard *b = NULL;
    char *text = NULL;
    int npos, err;
    int rc = cli_parse(cli, argc, argv, opts, pos, 0, &npos);
    if (rc != EXIT_OKAY)
        goto out;
    if (cli->help) {
        fputs(show_help, stdout);
        goto out;
    }
    long v = -1;
    if (version && (cli_long(version, &v) != 0 || v < 0)) {
        rc = cli_usage_error("--version needs a non-negative integer");
        goto out;
    }
    rc = cli_client(cli, 0, &c);
    if (rc != EXIT_OKAY)
        goto out;
    if (v >= 0) {
        err = bb_client_get_billboard_version(c, (uint64_t)v, &past);
        b = &past;
    } else {
        err = bb_client_fetch_billboard(c, NULL);
        b = bb_client_billboard(c);
    }
    if (err != BB_OK) {
        rc = cli_fail(c, err, "billboard");
        goto out;
    }
    if (cli->json) {
        size_t len;
        text = bb_billboard_to_json(b, &len);
        if (!text) {
            rc = cli_fail(NULL, BB_ENOMEM, "billboard");
            goto out;
        }
        fwrite(text, 1, len, stdout);
        putchar('\n');
        goto out;
    }
    printf("version   %llu\n", (unsigned long long)b->version);
    printf("episode   %llu\n", (unsigned long long)b->episode);
    printf("H d A     %d %d %d\n", b->H, b->d, b->A);
    printf("beta      %.6g\n", b->beta);
    if (v < 0 && bb_client_billboard_etag(c)[0])
        printf("etag      %s\n", bb_client_billboard_etag(c));
    printf("privacy   rho %.6g  epsilon %.6g  delta %.3g  rho spent %.6g\n", b->privacy.rho,
           b->privacy.epsilon, b->privacy.delta, b->privacy.rho_spent);
    printf("updates   %ld of %ld\n", b->privacy.updates, b->privacy.max_updates);
    printf("episodes  %ld of %ld\n", b->privacy.episodes, b->privacy.max_episodes);
    printf("\n%3s  %10s  %-40s  %10s  %10s\n", "h", "|w_h|", "w_h (first entries)", "min diag",
           "max diag");
    for (int h = 0; h < b->H; h++) {
        const double *w = b->w + (size_t)h * b->d, *g = b->gram + (size_t)h * b->d * b->d;
        double n2 = 0, lo = INFINITY, hi = -INFINITY;
        char ws[64] = "";
        size_t off = 0;
        for (int j = 0; j < b->d; j++) {
            n2 += w[j] * w[j];
            double dj = g[(size_t)j * b->d + j];
            lo = dj < lo ? dj : lo;
            hi = dj > hi ? dj : hi;
            if (j < 4 && off < sizeof(ws))
                off += (size_t)snprintf(ws + off, sizeof(ws) - off, "%s%.4g", j ? " " : "", w[j]);
        }
        if (b->d > 4 && off < sizeof(ws))
            snprintf(ws + off, sizeof(ws) - off, " ...");
        printf("%3d  %10.4g  %-40s  %10.4g  %10.4g\n", h + 1, sqrt(n2), ws, lo, hi);
    }
out:
    free(text);
    bb_billboard_release(&past);
    bb_client_free(c);
    return rc;
}
