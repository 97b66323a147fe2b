/*
 * version.c — the build's version (version.h); BB_VERSION comes from the
 * Makefile, which rebuilds this file whenever the version changes.
 */
#include "version.h"

#ifndef BB_VERSION
#define BB_VERSION "unknown"
#endif

const char *bb_version(void)
{
    return BB_VERSION;
}
