/*
 * version.h — the build's version: `git describe --always --dirty` when
 * built from a git checkout, else the VERSION file (Makefile).
 */
#ifndef BB_VERSION_H
#define BB_VERSION_H

/* A static string, e.g. "v0.3-12-gabc1234-dirty". */
const char *bb_version(void);

#endif
