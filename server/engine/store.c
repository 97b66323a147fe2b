/*
 * store.c — append-only block storage of episodes (store.h).
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#define B BB_STORE_BLOCK

int bb_store_init(struct bb_store *s, int H, int A, int d, long K_max)
{
    memset(s, 0, sizeof(*s));
    s->H = H;
    s->A = A;
    s->d = d;
    s->K_max = K_max;
    s->nblocks = (K_max + B - 1) / B;
    s->block = calloc((size_t)s->nblocks, sizeof(*s->block));
    return s->block ? BB_OK : BB_ENOMEM;
}

void bb_store_release(struct bb_store *s)
{
    for (long b = 0; b < s->nblocks && s->block; b++) {
        free(s->block[b].feat);
        free(s->block[b].chosen);
        free(s->block[b].reward);
        free(s->block[b].action);
    }
    free(s->block);
    memset(s, 0, sizeof(*s));
}

int bb_store_append(struct bb_store *s, const struct bb_episode *e)
{
    if (s->n >= s->K_max)
        return BB_EFULL;
    long b = s->n / B, i = s->n % B;
    struct bb_store_block *blk = &s->block[b];
    size_t H = (size_t)s->H, A = (size_t)s->A, d = (size_t)s->d;
    if (!blk->feat) {
        blk->feat = malloc(sizeof(double) * H * B * A * d);
        blk->chosen = malloc(sizeof(double) * H * B * d);
        blk->reward = malloc(sizeof(double) * H * B);
        blk->action = malloc(sizeof(int) * H * B);
        if (!blk->feat || !blk->chosen || !blk->reward || !blk->action) {
            free(blk->feat);
            free(blk->chosen);
            free(blk->reward);
            free(blk->action);
            memset(blk, 0, sizeof(*blk));
            return BB_ENOMEM;
        }
    }
    for (size_t h = 0; h < H; h++) {
        const double *src = e->features + h * A * d;
        memcpy(blk->feat + (h * B + (size_t)i) * A * d, src, sizeof(double) * A * d);
        memcpy(blk->chosen + (h * B + (size_t)i) * d, src + (size_t)e->action[h] * d,
               sizeof(double) * d);
        blk->reward[h * B + (size_t)i] = e->reward[h];
        blk->action[h * B + (size_t)i] = e->action[h];
    }
    s->n++;
    return BB_OK;
}

const double *bb_store_feat(const struct bb_store *s, long b, int h)
{
    return s->block[b].feat + (size_t)h * B * s->A * s->d;
}

const double *bb_store_chosen(const struct bb_store *s, long b, int h)
{
    return s->block[b].chosen + (size_t)h * B * s->d;
}

const double *bb_store_reward(const struct bb_store *s, long b, int h)
{
    return s->block[b].reward + (size_t)h * B;
}

const int *bb_store_action(const struct bb_store *s, long b, int h)
{
    return s->block[b].action + (size_t)h * B;
}

long bb_store_block_len(long b, long n)
{
    long left = n - b * B;
    return left < 0 ? 0 : (left > B ? B : left);
}
