/*
 * codec_fast.h — the fast path of bb_episode_from_json (codec.c).
 *
 * A strict recursive-descent reader for exactly the episode schema, with no
 * intermediate tree: about half of billboardd's CPU under durable POST load
 * was jansson building a DOM of 1,280 numbers per episode. It accepts only
 * input it fully understands — RFC 8259 grammar, plain (escape-free) keys,
 * each known key once, exact sizes, finite numbers — and otherwise answers
 * "not sure", so the jansson path re-reads the body and classifies every
 * error exactly as before. Numbers are converted by strtod, as jansson does,
 * so both paths give bit-identical doubles.
 */
#ifndef BB_CODEC_FAST_H
#define BB_CODEC_FAST_H

#include <stddef.h>

#include "billboard/codec.h"

/* Fills out (initialised for H, A, d by the caller) from buf. Returns 1 if
 * the body was read completely and out holds it (sizes exact, numbers
 * finite; value ranges are still to be checked), 0 if the caller must use
 * the full parser. Never reports an error itself. */
int codec_episode_fast(const char *buf, size_t len, struct bb_episode_buf *out);

#endif
