/*
 * err.c — human-readable text for enum bb_err.
 */
#include "billboard/err.h"

const char *bb_strerror(int err)
{
    switch (err) {
    case BB_OK: return "success";
    case BB_ENOMEM: return "out of memory";
    case BB_EINVAL: return "invalid input";
    case BB_ERANGE: return "value out of range";
    case BB_EFULL: return "episode budget K_max exhausted";
    case BB_ENOTPD: return "matrix not positive definite";
    case BB_ELINALG: return "linear algebra argument error";
    case BB_EIO: return "storage error";
    case BB_ECONFLICT: return "conflict";
    case BB_ENOTFOUND: return "not found";
    case BB_EAUTH: return "authentication failed";
    case BB_ENET: return "network error";
    case BB_ESERVER: return "server error";
    case BB_EPROTO: return "protocol error";
    case BB_ECAP: return "update cap reached";
    case BB_ETLS: return "TLS error (the daemon's certificate was not verified)";
    }
    return "unknown error";
}
