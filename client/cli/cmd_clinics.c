/*
 * cmd_clinics.c — `billboard clinics add|list|revoke`: the administrator's
 * enrolment of clinics (admin token).
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char clinics_help[] =
    "usage: billboard clinics add NAME [--json]\n"
    "       billboard clinics list [--json]\n"
    "       billboard clinics revoke ID\n"
    "\n"
    "Needs the admin token ($BILLBOARD_ADMIN_TOKEN or --admin-token-file).\n"
    "  add     enrols a clinic; prints its id and its token, which the daemon\n"
    "          shows only this once: hand it to the clinic (BILLBOARD_TOKEN)\n"
    "  list    the enrolled clinics\n"
    "  revoke  revokes clinic ID: its token is refused from now on\n"
    "Exit codes: see billboard --help.\n";

/* The API sends Unix seconds; every listing shows RFC 3339. */
static void times_rfc3339(json_t *o)
{
    static const char *const times[] = {"created", "revoked", NULL};
    cli_times_rfc3339(o, times);
}

/* Parses text (taken; wiped, as an enrolment's holds the token) for
 * printing. NULL on ENOMEM. */
static json_t *printable(char *text, size_t len)
{
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    if (text)
        sodium_memzero(text, len);
    free(text);
    return j;
}

/* `clinics add NAME`. Each subcommand returns an exit code. */
static int clinics_add(struct cli *cli, struct bb_client *c, const char *name)
{
    struct bb_clinic added = {0};
    size_t len = 0;
    json_t *j = NULL;
    int err = bb_client_clinic_add(c, name, &added);
    if (err == BB_OK) {
        j = printable(bb_clinic_enrolled_to_json(&added, &len), len);
        err = j ? BB_OK : BB_ENOMEM;
    }
    sodium_memzero(&added, sizeof(added));
    if (err != BB_OK)
        return cli_fail(c, err, "enrol");
    times_rfc3339(j);
    cli_print_object(cli, j);
    if (!cli->json)
        fprintf(stderr, "billboard: the token is shown only once: store it now\n");
    json_decref(j);
    return EXIT_OKAY;
}

static int clinics_list(struct cli *cli, struct bb_client *c, const char *arg)
{
    struct bb_clinic_list listed = {0};
    size_t len = 0, i;
    json_t *j = NULL, *row;
    (void)arg;
    int err = bb_client_clinic_list(c, &listed);
    if (err == BB_OK) {
        j = printable(bb_clinic_list_to_json(&listed, &len), len);
        err = j ? BB_OK : BB_ENOMEM;
    }
    bb_clinic_list_release(&listed);
    if (err != BB_OK)
        return cli_fail(c, err, "list");
    json_t *rows = json_object_get(j, "clinics");
    json_array_foreach(rows, i, row)
    {
        times_rfc3339(row);
    }
    if (cli->json)
        cli_print_object(cli, j); /* the daemon's answer, times in RFC 3339 */
    else
        cli_print_rows(cli, rows);
    json_decref(j);
    return EXIT_OKAY;
}

static int clinics_revoke(struct cli *cli, struct bb_client *c, const char *id)
{
    int err = bb_client_clinic_revoke(c, id);
    if (err != BB_OK)
        return cli_fail(c, err, "revoke");
    if (cli->json)
        printf("{\"revoked\": \"%s\"}\n", id);
    else
        printf("clinic %s revoked\n", id);
    return EXIT_OKAY;
}

/* The subcommands of `clinics`: one line each, with the message when the
 * argument is missing (or, for list, given). */
static const struct {
    const char *name;
    int (*run)(struct cli *cli, struct bb_client *c, const char *arg);
    int takes_arg;
    const char *usage;
} clinics_cmds[] = {
    {"add", clinics_add, 1, "clinics add needs NAME"},
    {"list", clinics_list, 0, "clinics list takes no argument"},
    {"revoke", clinics_revoke, 1, "clinics revoke needs ID"},
};

int cmd_clinics(struct cli *cli, const char *sub, int argc, char **argv)
{
    const char *pos[1];
    struct bb_client *c = NULL;
    size_t k = 0;
    int npos;
    int rc = cli_parse(cli, argc, argv, NULL, pos, 1, &npos);
    if (rc != EXIT_OKAY)
        return rc;
    if (cli->help || !sub) {
        fputs(clinics_help, cli->help ? stdout : stderr);
        return cli->help ? EXIT_OKAY : EXIT_USAGE;
    }
    while (k < sizeof(clinics_cmds) / sizeof(clinics_cmds[0]) && strcmp(clinics_cmds[k].name, sub))
        k++;
    if (k == sizeof(clinics_cmds) / sizeof(clinics_cmds[0]))
        return cli_usage_error("unknown clinics command '%s'", sub);
    if (clinics_cmds[k].takes_arg != (npos == 1))
        return cli_usage_error("%s", clinics_cmds[k].usage);
    rc = cli_client(cli, 0, &c);
    if (rc == EXIT_OKAY)
        rc = clinics_cmds[k].run(cli, c, npos ? pos[0] : NULL);
    bb_client_free(c);
    return rc;
}
