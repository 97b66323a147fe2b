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

int cmd_clinics(struct cli *cli, const char *sub, int argc, char **argv)
{
    const char *pos[1];
    struct bb_client *c = NULL;
    struct bb_clinic added = {0};
    struct bb_clinic_list listed = {0};
    json_t *j = NULL;
    int npos, err;
    int rc = cli_parse(cli, argc, argv, NULL, pos, 1, &npos);
    if (rc != EXIT_OKAY)
        goto out;
    if (cli->help || !sub) {
        fputs(clinics_help, cli->help ? stdout : stderr);
        rc = cli->help ? EXIT_OKAY : EXIT_USAGE;
        goto out;
    }
    int add = strcmp(sub, "add") == 0, list = strcmp(sub, "list") == 0,
        revoke = strcmp(sub, "revoke") == 0;
    if (!add && !list && !revoke) {
        rc = cli_usage_error("unknown clinics command '%s'", sub);
        goto out;
    }
    if ((add || revoke) != (npos == 1)) {
        rc = cli_usage_error(add      ? "clinics add needs NAME"
                             : revoke ? "clinics revoke needs ID"
                                      : "clinics list takes no argument");
        goto out;
    }
    rc = cli_client(cli, 0, &c);
    if (rc != EXIT_OKAY)
        goto out;
    if (add)
        err = bb_client_clinic_add(c, pos[0], &added);
    else if (list)
        err = bb_client_clinic_list(c, &listed);
    else
        err = bb_client_clinic_revoke(c, pos[0]);
    if (err == BB_OK && !revoke) {
        /* The daemon's answer as proto/ encodes it, for printing. */
        size_t len = 0;
        char *text = add ? bb_clinic_enrolled_to_json(&added, &len)
                         : bb_clinic_list_to_json(&listed, &len);
        sodium_memzero(added.token, sizeof(added.token));
        j = text ? json_loads(text, 0, NULL) : NULL;
        if (text)
            sodium_memzero(text, len); /* the enrolment's holds the token */
        free(text);
        err = j ? BB_OK : BB_ENOMEM;
    }
    if (err != BB_OK) {
        rc = cli_fail(c, err, add ? "enrol" : list ? "list" : "revoke");
        goto out;
    }
    /* The API sends Unix seconds; every listing shows RFC 3339. */
    static const char *const times[] = {"created", "revoked", NULL};
    json_t *rows = list && json_is_object(j) ? json_object_get(j, "clinics") : j;
    size_t i;
    json_t *row;
    if (json_is_array(rows)) {
        json_array_foreach(rows, i, row)
        {
            cli_times_rfc3339(row, times);
        }
    } else {
        cli_times_rfc3339(rows, times);
    }
    if (revoke) {
        if (cli->json)
            printf("{\"revoked\": \"%s\"}\n", pos[0]);
        else
            printf("clinic %s revoked\n", pos[0]);
    } else if (list && cli->json) {
        cli_print_object(cli, j); /* the daemon's answer, times in RFC 3339 */
    } else if (list) {
        cli_print_rows(cli, rows ? rows : j);
    } else {
        cli_print_object(cli, j);
        if (!cli->json)
            fprintf(stderr, "billboard: the token is shown only once: store it now\n");
    }
out:
    bb_clinic_list_release(&listed);
    json_decref(j);
    bb_client_free(c);
    return rc;
}
