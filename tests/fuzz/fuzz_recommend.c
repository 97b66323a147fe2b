/*
 * fuzz_recommend.c — the other bodies either side decodes: POST
 * /v1/recommend's request (H=3, A=2, d=4) and answer, an episode receipt
 * and GET /v1/privacy's budget. Every answer is a documented code; what is
 * accepted is in range.
 */
#include "fuzz.h"

#include "billboard/codec.h"

enum { H = 3, A = 2, D = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    char field[96], why[256];
    struct bb_recommend_req req = {0};
    int rc = bb_recommend_req_from_json(buf, size, H, A, D, &req, field, sizeof(field), why,
                                        sizeof(why));
    FUZZ_REQUIRE(rc == BB_OK || rc == BB_EPROTO || rc == BB_EINVAL || rc == BB_ERANGE ||
                 rc == BB_ENOMEM);
    if (rc == BB_OK)
        FUZZ_REQUIRE(req.h >= 1 && req.h <= H && req.version >= -1);
    bb_recommend_req_release(&req);

    int action = -1;
    double q[A];
    uint64_t version = 0;
    rc = bb_recommend_resp_from_json(buf, size, A, &action, q, &version, why, sizeof(why));
    if (rc == BB_OK)
        FUZZ_REQUIRE(action >= 0 && action < A);

    struct bb_receipt receipt;
    (void)bb_receipt_from_json(buf, size, &receipt, why, sizeof(why));

    struct bb_privacy_budget budget;
    (void)bb_privacy_budget_from_json(buf, size, &budget, why, sizeof(why));
    return 0;
}
