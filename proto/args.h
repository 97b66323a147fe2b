/*
 * args.h — the one command-line reader of billboardd, billboard and
 * billboard-sim (library-internal), and the strict numbers their values
 * go through.
 *
 * A program lists its options in a table (struct bb_opt: the exact
 * spelling, whether it takes a value, the program's id for it) and asks
 * bb_args_next() for one argument at a time. The rules, the same for all
 * three programs:
 *   - a name is spelt out in full: "--ser" is not "--server";
 *   - an option with a value takes it as "--name=value" or "--name value";
 *   - an option without a value refuses "--name=value";
 *   - "--" ends the options: every argument after it is positional;
 *   - "-h" is "--help" (the table's "help");
 *   - "-" and anything not starting with '-' is positional; any other
 *     "-x" is unknown.
 * What to do with a positional or unknown argument, and every message, is
 * the program's.
 */
#ifndef BB_ARGS_H
#define BB_ARGS_H

#include <stddef.h>

#include "billboard/err.h"

struct bb_opt {
    const char *name; /* "name" for --name: the exact spelling, without dashes */
    int takes_value;
    int id; /* the program's */
};

enum bb_arg_kind {
    BB_ARG_END,         /* no argument left */
    BB_ARG_OPTION,      /* opt; value is its value (NULL without one) */
    BB_ARG_POSITIONAL,  /* word is not an option */
    BB_ARG_UNKNOWN,     /* word looks like an option the table does not spell */
    BB_ARG_NO_VALUE,    /* opt takes a value and the line ends */
    BB_ARG_EXTRA_VALUE, /* "--name=value" for opt, which takes none */
};

/* Where the reader stands in argv (borrowed). */
struct bb_args {
    int argc;
    char **argv;
    int next;  /* index of the next argument */
    int ended; /* "--" was read */
};

/* One argument read. Strings borrowed from argv. */
struct bb_arg {
    enum bb_arg_kind kind;
    const struct bb_opt *opt; /* OPTION, NO_VALUE, EXTRA_VALUE */
    const char *word;         /* the argument as given ("--name=value", ...) */
    const char *value;
};

/* Starts reading argv at index first (1 skips the program name). */
void bb_args_init(struct bb_args *a, int argc, char **argv, int first);

/* Reads the next argument against table (n entries) into *out and returns
 * its kind. */
enum bb_arg_kind bb_args_next(struct bb_args *a, const struct bb_opt *table, size_t n,
                              struct bb_arg *out);

/* The entry of table (n entries) named exactly name (no dashes), or NULL. */
const struct bb_opt *bb_opt_find(const struct bb_opt *table, size_t n, const char *name);

/* Strict numbers: the whole of s (no blanks, at most a sign, digits; for a
 * double anything strtod reads, "inf" included) is one number that fits.
 * BB_OK, or BB_EINVAL with *out untouched. NaN is never a number. */
int bb_parse_long(const char *s, long *out) BB_WARN_UNUSED;
int bb_parse_double(const char *s, double *out) BB_WARN_UNUSED;

#endif
