/*
 * billboard/clinic.h — the clinics resource (/v1/clinics, admin token), as
 * typed structs and their codec.
 *
 *   POST /v1/clinics   request  {"name": name}
 *                      answer   {"id", "name", "token", "created"}   (201)
 *   GET /v1/clinics    answer   {"clinics": [{"id", "name", "created",
 *                                             "revoked"}, ...]}
 *
 * in this order. Times are Unix seconds; "revoked" is null while the
 * clinic is active. The token appears in the enrolment answer only, once.
 */
#ifndef BILLBOARD_CLINIC_H
#define BILLBOARD_CLINIC_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/err.h"

#define BB_CLINIC_NAME_MAX  128 /* bytes of a name, NUL not counted */
#define BB_CLINIC_TOKEN_MAX 64  /* bytes of a token string, NUL included */

struct bb_clinic {
    int64_t id;
    char name[BB_CLINIC_NAME_MAX + 1];
    char token[BB_CLINIC_TOKEN_MAX]; /* the enrolment answer's; "" otherwise */
    int64_t created;                 /* Unix seconds */
    int64_t revoked;                 /* Unix seconds; 0 = active */
};

/* A list of clinics; clinics owned (n entries). */
struct bb_clinic_list {
    size_t n;
    struct bb_clinic *clinics;
};

/* The enrolment request for name (borrowed, sent as given: the daemon
 * validates it). Caller frees; NULL on ENOMEM or if name is not UTF-8. */
char *bb_clinic_req_to_json(const char *name, size_t *len);

/* Reads an enrolment request's name into name (BB_CLINIC_NAME_MAX + 1
 * bytes). BB_EPROTO: not JSON or not an object (why says what).
 * BB_EINVAL: the name is not a string of 1 to 128 bytes without control
 * characters; field receives "/name". */
int bb_clinic_req_from_json(const char *buf, size_t len, char *name, char *field, size_t fieldlen,
                            char *why, size_t whylen) BB_WARN_UNUSED;

/* The enrolment answer (id, name, token, created) of c. Caller frees (and
 * should wipe: it holds the token); NULL on ENOMEM. */
char *bb_clinic_enrolled_to_json(const struct bb_clinic *c, size_t *len);

/* Parses an enrolment answer into *out (overwritten). BB_EPROTO (reason in
 * why, may be NULL) if a field is missing or of the wrong type. */
int bb_clinic_enrolled_from_json(const char *buf, size_t len, struct bb_clinic *out, char *why,
                                 size_t whylen) BB_WARN_UNUSED;

/* Appends a copy of *c to l. BB_OK or BB_ENOMEM. */
int bb_clinic_list_append(struct bb_clinic_list *l, const struct bb_clinic *c) BB_WARN_UNUSED;

/* Frees l's entries and empties it. NULL is a no-op. */
void bb_clinic_list_release(struct bb_clinic_list *l);

/* The list answer of l. Caller frees; NULL on ENOMEM. */
char *bb_clinic_list_to_json(const struct bb_clinic_list *l, size_t *len);

/* Parses a list answer into out (empty or released by the caller; the
 * caller releases it afterwards, also on error). BB_EPROTO (reason in why)
 * if it is not one; BB_ENOMEM. */
int bb_clinic_list_from_json(const char *buf, size_t len, struct bb_clinic_list *out, char *why,
                             size_t whylen) BB_WARN_UNUSED;

#endif
