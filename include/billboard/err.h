/*
 * billboard/err.h — the one error enum every fallible billboard call returns.
 *
 * Functions return BB_OK (0) on success and a negative enum bb_err otherwise.
 * The daemon maps each value to one HTTP status in one place; the client maps
 * them to exit codes. Values are part of the ABI: append, never renumber.
 */
#ifndef BILLBOARD_ERR_H
#define BILLBOARD_ERR_H

#if defined(__GNUC__)
#define BB_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define BB_WARN_UNUSED
#endif

enum bb_err {
    BB_OK = 0,
    BB_ENOMEM = -1,    /* allocation failed */
    BB_EINVAL = -2,    /* invalid argument or input (validation failure) */
    BB_ERANGE = -3,    /* a number out of its allowed range */
    BB_EFULL = -4,     /* K_max episodes already used; nothing more is accepted */
    BB_ENOTPD = -5,    /* a matrix that must be positive definite is not */
    BB_ELINALG = -6,   /* LAPACK reported an argument error: our bug */
    BB_EIO = -7,       /* storage or file error */
    BB_ECONFLICT = -8, /* state conflict (idempotency key reused, config mismatch) */
    BB_ENOTFOUND = -9, /* no such object */
    BB_EAUTH = -10,    /* missing or bad credentials */
    BB_ENET = -11,     /* network error talking to the daemon */
    BB_ESERVER = -12,  /* the daemon answered 5xx or 429: it cannot serve now */
    BB_EPROTO = -13,   /* malformed message on the wire */
    BB_ECAP = -14,     /* the update cap N_max is reached */
    BB_ETLS = -15,     /* TLS failed: the daemon's certificate is not trusted */
};

/* Returns a static, human-readable description of err. Never NULL. */
const char *bb_strerror(int err);

#endif
