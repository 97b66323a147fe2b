/*
 * bench_sqlite_loop.c — the reference for durable POST /v1/episodes: a
 * plain loop inserting what billboardd stores per episode (the episode's
 * feature/action/reward blobs, its H new tree-node blobs and an
 * idempotency row) into SQLite in WAL mode with synchronous=FULL, one
 * transaction per episode, i.e. what a server without group commit must
 * do before each 2xx.
 *
 *   bench_sqlite_loop DB H A d SECONDS     prints "<episodes> <seconds>"
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_sqlite_loop DB H A d SECONDS\n");
        return 2;
    }
    int H = (int)strtol(argv[2], NULL, 10), A = (int)strtol(argv[3], NULL, 10);
    int d = (int)strtol(argv[4], NULL, 10);
    double secs = strtod(argv[5], NULL);
    if (H < 1 || A < 1 || d < 1 || !(secs > 0)) {
        fprintf(stderr, "bench_sqlite_loop: H, A, d and SECONDS must be positive\n");
        return 2;
    }
    sqlite3 *db;
    if (sqlite3_open(argv[1], &db) != SQLITE_OK)
        return 1;
    sqlite3_exec(db,
                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                 "CREATE TABLE episodes(k INTEGER PRIMARY KEY, features BLOB, actions BLOB, "
                 "rewards BLOB);"
                 "CREATE TABLE nodes(h INTEGER, level INTEGER, leaf INTEGER, noise BLOB, "
                 "PRIMARY KEY(h, level)) WITHOUT ROWID;"
                 "CREATE TABLE idem(key TEXT PRIMARY KEY, hash BLOB, response BLOB, "
                 "episode INTEGER) WITHOUT ROWID;",
                 NULL, NULL, NULL);
    size_t nf = (size_t)H * A * d;
    double *feat = calloc(nf, sizeof(double));
    double *noise = calloc((size_t)d * d, sizeof(double));
    int *act = calloc((size_t)H, sizeof(int));
    double *rew = calloc((size_t)H, sizeof(double));
    for (size_t i = 0; i < nf; i++)
        feat[i] = (double)(i % 7) / 30.0;
    sqlite3_stmt *ep, *node, *idem;
    sqlite3_prepare_v2(db, "INSERT INTO episodes VALUES (?1, ?2, ?3, ?4)", -1, &ep, NULL);
    sqlite3_prepare_v2(db,
                       "INSERT INTO nodes VALUES (?1, ?2, ?3, ?4) ON CONFLICT(h, level) DO "
                       "UPDATE SET leaf = excluded.leaf, noise = excluded.noise",
                       -1, &node, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO idem VALUES (?1, ?2, ?3, ?4)", -1, &idem, NULL);
    long k = 0;
    double t0 = now(), t = t0;
    while (t - t0 < secs) {
        k++;
        char key[32], hash[32] = {0}, resp[64];
        snprintf(key, sizeof(key), "key-%ld", k);
        int rl = snprintf(resp, sizeof(resp), "{\"episode\":%ld,\"billboard_version\":0}", k);
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        sqlite3_bind_int64(ep, 1, k);
        sqlite3_bind_blob(ep, 2, feat, (int)(nf * sizeof(double)), SQLITE_STATIC);
        sqlite3_bind_blob(ep, 3, act, (int)(H * sizeof(int)), SQLITE_STATIC);
        sqlite3_bind_blob(ep, 4, rew, (int)(H * sizeof(double)), SQLITE_STATIC);
        sqlite3_step(ep);
        sqlite3_reset(ep);
        int level = __builtin_ctzl((unsigned long)k);
        for (int h = 0; h < H; h++) {
            sqlite3_bind_int(node, 1, h);
            sqlite3_bind_int(node, 2, level);
            sqlite3_bind_int64(node, 3, k);
            sqlite3_bind_blob(node, 4, noise, (int)((size_t)d * d * sizeof(double)), SQLITE_STATIC);
            sqlite3_step(node);
            sqlite3_reset(node);
        }
        sqlite3_bind_text(idem, 1, key, -1, SQLITE_STATIC);
        sqlite3_bind_blob(idem, 2, hash, 32, SQLITE_STATIC);
        sqlite3_bind_blob(idem, 3, resp, rl, SQLITE_STATIC);
        sqlite3_bind_int64(idem, 4, k);
        sqlite3_step(idem);
        sqlite3_reset(idem);
        if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
            return 1;
        t = now();
    }
    printf("%ld %.3f\n", k, t - t0);
    sqlite3_finalize(ep);
    sqlite3_finalize(node);
    sqlite3_finalize(idem);
    sqlite3_close(db);
    free(feat);
    free(noise);
    free(act);
    free(rew);
    return 0;
}
