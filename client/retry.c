/*
 * retry.c — transient or final, and how long to wait (retry.h).
 */
#include "retry.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

int retry_is_transient(int err)
{
    return err == BB_ENET || err == BB_ESERVER;
}

long retry_wait_ms(const struct bb_client_retry *p, int attempt, double jitter01)
{
    long w = p->base_ms;
    for (int i = 1; i < attempt && w < p->cap_ms; i++)
        w *= 2;
    if (w > p->cap_ms)
        w = p->cap_ms;
    if (jitter01 < 0.0)
        jitter01 = 0.0;
    if (jitter01 >= 1.0)
        jitter01 = 0.999999;
    long half = w / 2;
    return half + (long)((double)(w - half) * jitter01);
}

int retry_allowed(const struct bb_client_retry *p, int attempt, long elapsed_ms, long wait_ms)
{
    return attempt < p->max_attempts && elapsed_ms + wait_ms <= p->total_ms;
}

static int mentions(const char *s, const char *needle)
{
    if (!s)
        return 0;
    size_t n = strlen(needle);
    for (; *s; s++)
        if (strncasecmp(s, needle, n) == 0)
            return 1;
    return 0;
}

int retry_status_err(long status, const char *title, const char *type)
{
    if ((status >= 200 && status < 300) || status == 304)
        return BB_OK;
    if (status >= 500)
        return BB_ESERVER;
    switch (status) {
    case 400:
    case 415:
        return BB_EPROTO;
    case 401:
    case 403:
        return BB_EAUTH;
    case 404:
    case 410:
        return BB_ENOTFOUND;
    case 409:
        if (mentions(type, "update-cap") || mentions(title, "N_max"))
            return BB_ECAP;
        if (mentions(title, "K_max") || mentions(title, "budget") || mentions(title, "full") ||
            mentions(title, "exhausted") || mentions(type, "full") || mentions(type, "k-max") ||
            mentions(type, "kmax") || mentions(type, "exhausted"))
            return BB_EFULL;
        return BB_ECONFLICT;
    case 413:
    case 422:
        return BB_EINVAL;
    default:
        return status >= 400 ? BB_EINVAL : BB_EPROTO;
    }
}
