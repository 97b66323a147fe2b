/*
 * main.c — `billboard`, the command line of a clinic's operator: finds the
 * command among the arguments and hands the rest to it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "version.h"

static const char usage[] =
    "usage: billboard [OPTIONS] COMMAND [ARGS]\n"
    "\n"
    "Talk to a billboardd curator as a clinic.\n"
    "\n"
    "commands:\n"
    "  config                          public parameters of the deployment\n"
    "  privacy                         privacy budget spent and remaining\n"
    "  show [--version V]              the current (or a past) billboard\n"
    "  recommend --step H --features FILE\n"
    "                                  the action the billboard recommends\n"
    "  episode start|step|finish|status|list|abort|prune\n"
    "                                  record a patient's episode locally\n"
    "  submit [FILE...]                queue episode files and send every unsent one\n"
    "  clinics add NAME|list|revoke ID enrol, list, revoke clinics (admin)\n"
    "\n"
    "options (any command):\n"
    "  --server URL            daemon (default $BILLBOARD_SERVER or " CLI_DEFAULT_SERVER ")\n"
    "  --token-file FILE       clinic token (default $BILLBOARD_TOKEN)\n"
    "  --admin-token-file FILE admin token (default $BILLBOARD_ADMIN_TOKEN)\n"
    "  --cacert FILE           trust only the CA certificates in FILE (PEM) for an\n"
    "                          https:// server (default $BILLBOARD_CACERT, else the\n"
    "                          system's CA store); verification is always on\n"
    "  --state FILE            local state file (default $BILLBOARD_STATE or\n"
    "                          ~/.local/state/billboard/state.db)\n"
    "  --json                  machine-readable JSON on stdout instead of tables\n"
    "  --timeout MS            per-request timeout (default 10000)\n"
    "  --retries N             attempts on network errors, 5xx and 429 (default 6;\n"
    "                          Retry-After is honoured, up to 5 s a wait)\n"
    "  --retry-total MS        cap on the total time spent retrying (default 30000)\n"
    "  --help                  help (also after any command)\n"
    "  --version               print the version and exit (before any command)\n"
    "\n"
    "exit codes:\n"
    "  0  success\n"
    "  1  local failure (state file, input file, invalid local data)\n"
    "  2  usage error (bad arguments, missing token)\n"
    "  3  network error: the daemon could not be reached, or its certificate\n"
    "     could not be verified (see --cacert)\n"
    "  4  server error: the daemon answered 5xx or 429, or an answer that cannot\n"
    "     be read\n"
    "  5  refused: the daemon answered 4xx (bad token, wrong role, invalid\n"
    "     episode, conflict, K_max reached, not found)\n";

/* Removes argv[i] from the vector. */
static void drop(int *argc, char **argv, int i)
{
    memmove(argv + i, argv + i + 1, sizeof(char *) * (size_t)(*argc - i));
    (*argc)--;
}

/* Index of the first positional word at or after `from`, or -1. */
static int find_word(int argc, char **argv, int from)
{
    for (int i = from; i < argc; i++) {
        if (argv[i][0] != '-')
            return i;
        if (cli_takes_value(argv[i])) /* its value is not the command */
            i++;
    }
    return -1;
}

/* The commands, after git's cmd_struct: one line each. A command with
 * subcommands (episode start, clinics add, ...) takes the next word too. */
struct cmd_struct {
    const char *name;
    int (*run)(struct cli *cli, int argc, char **argv);
    int (*run_sub)(struct cli *cli, const char *sub, int argc, char **argv);
};

static int cmd_help(struct cli *cli, int argc, char **argv)
{
    (void)cli, (void)argc, (void)argv;
    fputs(usage, stdout);
    return EXIT_OKAY;
}

static const struct cmd_struct commands[] = {
    {"config", cmd_config, NULL},
    {"privacy", cmd_privacy, NULL},
    {"show", cmd_show, NULL},
    {"recommend", cmd_recommend, NULL},
    {"episode", NULL, cmd_episode},
    {"submit", cmd_submit, NULL},
    {"clinics", NULL, cmd_clinics},
    {"help", cmd_help, NULL},
};

static const struct cmd_struct *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    struct cli cli = {.prog = "billboard"};
    int rc;

    /* Work on argv[1..]; argv[argc] stays NULL for drop(). */
    argc--;
    argv++;
    int ci = find_word(argc, argv, 0);
    if (ci < 0) {
        for (int i = 0; i < argc; i++)
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                fputs(usage, stdout);
                return EXIT_OKAY;
            }
        for (int i = 0; i < argc; i++)
            if (strcmp(argv[i], "--version") == 0) {
                printf("billboard %s\n", bb_version());
                return EXIT_OKAY;
            }
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[ci];
    drop(&argc, argv, ci);
    const struct cmd_struct *cmd = find_command(name);
    if (!cmd) {
        rc = cli_usage_error("unknown command '%s'", name);
    } else if (cmd->run_sub) {
        const char *sub = NULL;
        int si = find_word(argc, argv, ci);
        if (si >= 0) {
            sub = argv[si];
            drop(&argc, argv, si);
        }
        rc = cmd->run_sub(&cli, sub, argc, argv);
    } else {
        rc = cmd->run(&cli, argc, argv);
    }
    cli_release(&cli);
    return rc;
}
