/*
 * cmd_info.c — the read-only commands: `billboard config`, `privacy`, `show`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* GET /v1/config, encoded again by proto/ for printing. Caller frees. */
static char *config_text(struct bb_client *c, int *err)
{
    struct bb_config_info cfg = {0};
    char *s = NULL;
    *err = bb_client_config(c, &cfg);
    if (*err == BB_OK && !(s = bb_config_info_to_json(&cfg, 0, NULL)))
        *err = BB_ENOMEM;
    bb_config_info_release(&cfg);
    return s;
}

/* GET /v1/privacy, the same way. */
static char *privacy_text(struct bb_client *c, int *err)
{
    struct bb_privacy_budget p;
    char *s = NULL;
    *err = bb_client_privacy(c, &p);
    if (*err == BB_OK && !(s = bb_privacy_budget_to_json(&p, NULL)))
        *err = BB_ENOMEM;
    return s;
}

static int get_and_print(struct cli *cli, int argc, char **argv, const char *help,
                         char *(*get)(struct bb_client *, int *), const char *what)
{
    const char *pos[1];
    int npos, err;
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
    j = cli_json_of(get(c, &err));
    if (err == BB_OK && !j)
        err = BB_ENOMEM;
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
                         config_text, "config");
}

int cmd_privacy(struct cli *cli, int argc, char **argv)
{
    return get_and_print(cli, argc, argv,
                         "usage: billboard privacy [--json]\n"
                         "\n"
                         "Prints GET /v1/privacy: rho, epsilon, delta, budget spent and\n"
                         "remaining per mechanism, updates used of N_max, episodes of K_max.\n"
                         "Exit codes: see billboard --help.\n",
                         privacy_text, "privacy");
}

static const char show_help[] =
    "usage: billboard show [--version V] [--json]\n"
    "\n"
    "Fetches the current billboard (GET /v1/billboard) or a past one\n"
    "(GET /v1/billboard/V) and prints its header; the privacy ledger as it\n"
    "stood when that version was published (stored in the billboard, never\n"
    "updated) and as it stands now (GET /v1/privacy); and, per step h, the\n"
    "norm of w_h, its first entries and the smallest and largest diagonal\n"
    "entry of the noisy Gram matrix. --json prints the billboard in its\n"
    "canonical wire form (its privacy object is the snapshot).\n"
    "Exit codes: see billboard --help.\n";

/* The ledger a billboard carries is a snapshot taken when its version was
 * published — billboard 0 says 0 episodes and nothing spent forever — so it
 * is labelled so and printed beside the ledger now, from GET /v1/privacy,
 * which may have moved on (episodes since, an update in flight). */
static void print_privacy(struct bb_client *c, const struct bb_billboard *b)
{
    const struct bb_privacy_summary *s = &b->privacy;
    struct bb_privacy_budget now;
    printf("\nprivacy when version %llu was published (stored in the billboard):\n",
           (unsigned long long)b->version);
    printf("  rho spent   %.6g of %.6g  (epsilon %.6g, delta %.3g)\n", s->rho_spent, s->rho,
           s->epsilon, s->delta);
    printf("  updates     %ld of %ld\n", s->updates, s->max_updates);
    printf("  episodes    %ld of %ld\n", s->episodes, s->max_episodes);
    int err = bb_client_privacy(c, &now);
    if (err != BB_OK) {
        printf("\nprivacy now: unknown (see the warning)\n");
        cli_fail(c, err, "warning: privacy now (GET /v1/privacy)");
        return;
    }
    printf("\nprivacy now (GET /v1/privacy):\n");
    printf("  rho spent   %.6g of %.6g  (remaining %.6g)\n", now.rho_spent, now.rho,
           now.rho_remaining);
    printf("  updates     %ld of %ld\n", now.updates, now.max_updates);
    printf("  episodes    %ld of %ld\n", now.episodes, now.max_episodes);
    printf("  billboard   version %ld\n", now.billboard_version);
}

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
        rc = cli_fail(c, err, v >= 0 ? "billboard version" : "show");
        goto out;
    }
    if (cli->json) {
        size_t len;
        text = bb_billboard_to_json(b, &len);
        if (!text) {
            rc = cli_fail(NULL, BB_ENOMEM, "show");
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
    print_privacy(c, b);
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
