/*
 * codec_clinics.c — the clinics resource (billboard/clinic.h): the
 * enrolment request, its answer and the list, as field tables.
 */
#include "billboard/clinic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_table.h"

#define C(key, kind, member, flags)                                                                \
    {                                                                                              \
        key, kind, offsetof(struct bb_clinic, member), 0, flags, NULL, NULL                        \
    }
#define NAME_FIELD                                                                                 \
    {                                                                                              \
        "name", CODEC_TEXT, offsetof(struct bb_clinic, name), BB_CLINIC_NAME_MAX + 1, 0, NULL,     \
            NULL                                                                                   \
    }

static const struct codec_field enrolled[] = {
    C("id", CODEC_I64, id, 0),
    NAME_FIELD,
    {"token", CODEC_TEXT, offsetof(struct bb_clinic, token), BB_CLINIC_TOKEN_MAX, 0, NULL, NULL},
    C("created", CODEC_I64, created, 0),
    CODEC_END,
};

static const struct codec_field row[] = {
    C("id", CODEC_I64, id, 0),
    NAME_FIELD,
    C("created", CODEC_I64, created, 0),
    C("revoked", CODEC_I64_NULL, revoked, 0),
    CODEC_END,
};

static const struct codec_field request[] = {
    NAME_FIELD,
    CODEC_END,
};

char *bb_clinic_req_to_json(const char *name, size_t *len)
{
    /* Any name is sent as given: the daemon says what is wrong with it. */
    return codec_dump(json_pack("{s:s}", "name", name), len);
}

int bb_clinic_req_from_json(const char *buf, size_t len, char *name, char *field, size_t fieldlen,
                            char *why, size_t whylen)
{
    json_t *o = NULL;
    struct bb_clinic c = {0};
    if (field && fieldlen)
        field[0] = '\0';
    int rc = codec_load_object(buf, len, &o, why, whylen);
    if (rc != BB_OK)
        return rc;
    int ok = codec_table_decode(o, request, &c, "the request", NULL, 0) == BB_OK && c.name[0];
    for (const char *p = c.name; ok && *p; p++)
        ok = (unsigned char)*p >= 0x20 && *p != 0x7f;
    json_decref(o);
    if (!ok) {
        codec_say(why, whylen,
                  "name must be a string of 1 to 128 characters, no control characters");
        codec_say(field, fieldlen, "/name");
        return BB_EINVAL;
    }
    memcpy(name, c.name, sizeof(c.name));
    return BB_OK;
}

char *bb_clinic_enrolled_to_json(const struct bb_clinic *c, size_t *len)
{
    return codec_table_dump(enrolled, c, 0, len);
}

int bb_clinic_enrolled_from_json(const char *buf, size_t len, struct bb_clinic *out, char *why,
                                 size_t whylen)
{
    memset(out, 0, sizeof(*out));
    return codec_table_parse(buf, len, enrolled, out, "the enrolment", why, whylen);
}

int bb_clinic_list_append(struct bb_clinic_list *l, const struct bb_clinic *c)
{
    struct bb_clinic *v = realloc(l->clinics, sizeof(*v) * (l->n + 1));
    if (!v)
        return BB_ENOMEM;
    v[l->n++] = *c;
    l->clinics = v;
    return BB_OK;
}

void bb_clinic_list_release(struct bb_clinic_list *l)
{
    if (!l)
        return;
    free(l->clinics);
    l->clinics = NULL;
    l->n = 0;
}

char *bb_clinic_list_to_json(const struct bb_clinic_list *l, size_t *len)
{
    json_t *o = json_object(), *a = json_array();
    int rc = o && a && json_object_set(o, "clinics", a) == 0 ? BB_OK : BB_ENOMEM;
    for (size_t i = 0; rc == BB_OK && i < l->n; i++) {
        json_t *r = json_object();
        rc = r ? codec_table_encode(r, row, &l->clinics[i]) : BB_ENOMEM;
        if (json_array_append_new(a, r) != 0)
            rc = BB_ENOMEM;
    }
    json_decref(a);
    if (rc != BB_OK) {
        json_decref(o);
        o = NULL;
    }
    return codec_dump(o, len);
}

int bb_clinic_list_from_json(const char *buf, size_t len, struct bb_clinic_list *out, char *why,
                             size_t whylen)
{
    json_t *o = NULL;
    int rc = codec_load_object(buf, len, &o, why, whylen);
    if (rc != BB_OK)
        return rc;
    json_t *a = json_object_get(o, "clinics"), *r;
    size_t i;
    if (!json_is_array(a)) {
        codec_say(why, whylen, "the list lacks clinics");
        rc = BB_EPROTO;
    }
    json_array_foreach(a, i, r)
    {
        struct bb_clinic c = {0};
        if (rc == BB_OK && !json_is_object(r)) {
            codec_say(why, whylen, "the list's clinic %zu is not an object", i);
            rc = BB_EPROTO;
        }
        if (rc == BB_OK)
            rc = codec_table_decode(r, row, &c, "a listed clinic", why, whylen);
        if (rc == BB_OK)
            rc = bb_clinic_list_append(out, &c);
    }
    json_decref(o);
    return rc;
}
