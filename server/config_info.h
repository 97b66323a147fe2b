/*
 * config_info.h — what GET /v1/config and --print-params show: the typed
 * configuration (billboard/config_info.h) filled from the engine's
 * parameters.
 */
#ifndef BB_CONFIG_INFO_H
#define BB_CONFIG_INFO_H

#include "billboard/config_info.h"
#include "engine/params.h"

/* Fills out (zeroed or released by the caller; the caller releases it
 * afterwards) from derived parameters p (borrowed). BB_OK or BB_ENOMEM. */
int bb_config_info_of(const struct bb_params *p, struct bb_config_info *out) BB_WARN_UNUSED;

/* The JSON of p's configuration (pretty: indented, for --print-params).
 * Caller frees; NULL on ENOMEM. */
char *bb_config_info_json(const struct bb_params *p, int pretty, size_t *len);

#endif
