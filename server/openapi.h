/*
 * openapi.h — the API's own description, served at GET /v1/openapi.json.
 *
 * proto/openapi.yaml is the contract; the build converts it to compact JSON
 * and server/openapi_embed.py writes the bytes into a generated C file
 * ($(O)/gen/server/openapi_json.c), so the daemon serves exactly the spec it
 * was built from. Immutable, static storage.
 */
#ifndef BB_OPENAPI_H
#define BB_OPENAPI_H

#include <stddef.h>

/* The spec as JSON, bb_openapi_json_len bytes, not NUL-terminated. */
extern const unsigned char bb_openapi_json[];
extern const size_t bb_openapi_json_len;
/* Its strong ETag, quoted: "\"<16 hex of BLAKE2b-64 of the bytes>\"". */
extern const char bb_openapi_etag[];

#endif
