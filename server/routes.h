/*
 * routes.h — the route table of billboardd (DESIGN.md §4, proto/openapi.yaml).
 *
 * Each route names its method, its path pattern ("{name}" matches one
 * segment), who may call it, whether it takes a JSON body, and its handler.
 * The table is the single source the router, /metrics labels and
 * `billboardd --print-routes` (checked against openapi.yaml by a test) use.
 */
#ifndef BB_ROUTES_H
#define BB_ROUTES_H

#include <stdio.h>

#include "daemon.h"
#include "reply.h"

enum bb_who { BB_ANYONE, BB_CLINIC, BB_ADMIN };

struct bb_route {
    const char *method;
    const char *pattern;
    enum bb_who who;
    int has_body;
    /* Runs when the body (if any) is complete, and again after a writer
     * job finishes (r->submitted && r->job.finished). */
    enum MHD_Result (*handle)(struct bbd *d, struct bb_req *r);
};

/* The table and its size. */
extern const struct bb_route bb_routes[];
extern const int bb_nroutes;

/* Finds the route for method and path (HEAD matches GET routes); on a
 * match returns its index and
 * copies the {…} segment into param. Returns -1 if no pattern matches the
 * path (404) and -2 if one does but not with this method (405). */
int bb_route_match(const char *method, const char *path, char *param, size_t paramlen);

/* The index of the first route whose pattern matches path, whatever its
 * method; -1 if none (metrics label a 405 with its route). */
int bb_route_of_path(const char *path);

/* The methods served on path, as an Allow header value ("GET, POST"), into
 * out (outlen bytes); empty if none. */
void bb_route_allow(const char *path, char *out, size_t outlen);

/* Writes "METHOD PATTERN\n" per route. */
void bb_routes_print(FILE *f);

/* Labels for /metrics. */
void bb_routes_labels(const char **names, const char **methods);

#endif
