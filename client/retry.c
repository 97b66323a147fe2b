/*
 * retry.c — transient or final, and how long to wait (retry.h).
 */
#include "retry.h"

#include <stddef.h>
#include <string.h>

#include "billboard/problem.h"

#define AFTER_MAX_S 86400L /* a Retry-After past a day is not a plan */

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

long retry_next_wait_ms(const struct bb_client_retry *p, int attempt, double jitter01, long status,
                        long after_ms)
{
    long w = retry_wait_ms(p, attempt, jitter01);
    if ((status == 429 || status == 503) && after_ms >= 0) {
        if (after_ms > w)
            w = after_ms;
        if (w > p->cap_ms)
            w = p->cap_ms;
    }
    return w;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil), so no time zone or locale is involved. */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* n decimal digits at s into *out; 0 if they are not all digits. */
static int digits(const char *s, int n, long *out)
{
    long v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

/* "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 9110 §5.6.7, IMF-fixdate) as Unix
 * seconds; -1 if it is not one. */
static long imf_fixdate(const char *s)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    long day, year, hh, mm, ss, mon = -1;
    if (strlen(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' ||
        s[16] != ' ' || s[19] != ':' || s[22] != ':' || strcmp(s + 25, " GMT") != 0)
        return -1;
    for (int i = 0; i < 12; i++)
        if (strncmp(s + 8, months + 3 * i, 3) == 0)
            mon = i + 1;
    if (mon < 0 || !digits(s + 5, 2, &day) || !digits(s + 12, 4, &year) ||
        !digits(s + 17, 2, &hh) || !digits(s + 20, 2, &mm) || !digits(s + 23, 2, &ss) || day < 1 ||
        day > 31 || hh > 23 || mm > 59 || ss > 60)
        return -1;
    return days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 + ss;
}

long retry_after_ms(const char *value, time_t now)
{
    if (!value || !*value)
        return -1;
    if (value[0] >= '0' && value[0] <= '9') {
        long s = 0;
        for (const char *c = value; *c; c++) {
            if (*c < '0' || *c > '9')
                return -1;
            if (s <= AFTER_MAX_S)
                s = s * 10 + (*c - '0');
        }
        return (s > AFTER_MAX_S ? AFTER_MAX_S : s) * 1000;
    }
    long at = imf_fixdate(value);
    if (at < 0)
        return -1;
    long s = at - (long)now;
    return (s < 0 ? 0 : s > AFTER_MAX_S ? AFTER_MAX_S : s) * 1000;
}

int retry_allowed(const struct bb_client_retry *p, int attempt, long elapsed_ms, long wait_ms)
{
    return attempt < p->max_attempts && elapsed_ms + wait_ms <= p->total_ms;
}

static int is_type(const char *type, const char *uri)
{
    return type && strcmp(type, uri) == 0;
}

int retry_status_err(long status, const char *type)
{
    if ((status >= 200 && status < 300) || status == 304)
        return BB_OK;
    if (status >= 500 || status == 429)
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
        if (is_type(type, BB_PROBLEM_EPISODE_BUDGET))
            return BB_EFULL;
        if (is_type(type, BB_PROBLEM_UPDATE_CAP))
            return BB_ECAP;
        return BB_ECONFLICT;
    case 413:
    case 422:
    case 431:
        return BB_EINVAL;
    default:
        return status >= 400 ? BB_EINVAL : BB_EPROTO;
    }
}
