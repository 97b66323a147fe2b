/*
 * fail.c — how a `billboard` command fails: one line on stderr saying what
 * failed and why (with the daemon's status and problem+json when it
 * answered), and the exit code of docs/CLI.md for the error.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_fail(const struct bb_client *c, int err, const char *what)
{
    int status = c ? bb_client_last_status(c) : 0;
    const char *title = c ? bb_client_last_title(c) : "";
    const char *detail = c ? bb_client_last_detail(c) : "";
    char http[32];
    snprintf(http, sizeof(http), "HTTP %d", status);
    /* "network error: network error" or "HTTP 404: HTTP 404" (an answer
     * that is no problem+json) says nothing twice. */
    if (strcmp(title, bb_strerror(err)) == 0 || strcmp(title, http) == 0)
        title = "";
    fprintf(stderr, "billboard: %s: %s", what, bb_strerror(err));
    if (status)
        fprintf(stderr, " (HTTP %d", status);
    else if (title[0])
        fputs(" (", stderr);
    if (title[0])
        fprintf(stderr, "%s%s", status ? ": " : "", title);
    if (detail[0])
        fprintf(stderr, ": %s", detail);
    if (status || title[0])
        fputc(')', stderr);
    fputc('\n', stderr);

    if (err == BB_ETLS)
        fprintf(stderr, "billboard: give the CA that signed the daemon's certificate with "
                        "--cacert FILE or $BILLBOARD_CACERT\n");
    if (err == BB_ENET || err == BB_ETLS)
        return EXIT_NET;
    if (err == BB_ESERVER || status >= 500)
        return EXIT_SERVER;
    if (status >= 400)
        return EXIT_REFUSED;
    if (err == BB_EPROTO && status >= 200)
        return EXIT_SERVER; /* the daemon said something we cannot read */
    if (err == BB_EAUTH)
        return EXIT_USAGE; /* no token given */
    return EXIT_LOCAL;
}
