#!/usr/bin/env bash
# billboardd --print-params prints the derived privacy parameters as JSON
# and exits 0; bad configurations exit non-zero with a message.
set -euo pipefail
B="${O:-build}/billboardd"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The known values below were computed at the release grid base g = 1.5, the
# default before issue 29 (1.25 now, checked at the end): check() asks for it.
check() { # args: expected-json-subset, then the flags
    local want=$1
    shift
    "$B" --print-params --release-base 1.5 "$@" | python3 -c '
import json, sys
got = json.load(sys.stdin)
want = json.loads(sys.argv[1])
for k, v in want.items():
    g = got[k]
    ok = (g == v) if isinstance(v, int) else abs(g - v) <= 1e-6 * abs(v)
    if not ok:
        sys.exit("%s = %r, want %r" % (k, g, v))
for k in ("L", "sigma_gram", "shift", "max_updates", "sigma_y", "rho", "epsilon", "delta"):
    assert k in got, k
' "$want"
}

# The paper's construction with the corrected calibration (docs/PRIVACY.md)
# needs stored keys no flag sets (the paper's shift bound, V clipped to
# [0, H]): its known values are tests/unit/test_params.c's.
# The defaults (grid-sqrt, g = 1.5 from k0 = 1: 23 release points; tight
# bound x 0.25; V clipped to the steps left), values computed independently.
check '{"releases": 23, "sens_factor": 2.060891049, "sigma_gram": 4.539703789, "prefix_sd": 6.517109726, "shift": 16.71506233, "max_updates": 23, "sigma_y": 71.13367698}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1 --release-start 1 --gram-share 0.5
# The default release start is auto: the smallest k0 >= 5 d sigma_1(k0),
# sigma_1 the first update's sd, sigma_y(k0) / sqrt(min(2, G/2)) with the
# first update's share a = 2 (docs/PRIVACY.md §1.2, §2.3; counted
# independently in Python as tests/unit/test_params.c's a = 1 values were).
# rho from epsilon by CKS (the default), by Bun–Steinke where asked. The
# warm-up (docs/PRIVACY.md §2.5) takes phi = 0.15 of rho first: at the same
# grid size G every sigma_y is the one computed without it (30.42309362,
# 32.6231853, 271.9697743) / sqrt(0.85), and k0 (861, 923, 7693) with it.
check '{"release_start": 934, "releases": 12, "max_updates": 12, "sigma_y": 32.99847813, "gram_share": 0.2, "first_share": 2, "warm_up_points": 2}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10
check '{"release_start": 1001, "releases": 12, "max_updates": 12, "sigma_y": 35.38481262, "gram_share": 0.2, "warm_up_points": 3}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --conversion bun-steinke
check '{"release_start": 8344, "releases": 7, "sigma_y": 294.9926383, "warm_up_points": 6}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 1 --release-start auto --gram-share 0.5 \
    --conversion bun-steinke
check '{"release_start": 1, "releases": 100000}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --mechanism tree
# With the reward stream (docs/PRIVACY.md §2.4) every update noises only
# the next values, at sigma_V,h = 2 sqrt(sqrt(N) c_h B_h Q / (2 rho_y)), and
# the stream the rewards at sigma_R,h = 2 sqrt(B_h Q / (2 rho_y)) (ball rows:
# y_pair 2; c_h = 4 - h, B_h = 1 + c_h, Q = sum_k (S + sqrt(N) c_k) / B_k,
# S the square-root sum over the release points), each inflated by its
# grid's slack (below 1e-4 here); the update-mode exponent: test_params.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 |
    python3 -c '
import json, math, sys
d = json.load(sys.stdin)
assert d["rewards"] == "stream", d["rewards"]
G, N, rho_y = d["releases"], d["max_updates"], d["rho_y"]
c, S = 1.0, 0.0
for l in range(G):
    S, c = S + c * c, c * (2 * l + 1) / (2 * l + 2)
caps = [4 - h for h in range(5)]
Q = sum((S + math.sqrt(N) * ck) / (1 + ck) for ck in caps)
sv, sr = d["sigma_y_drawn_step"], d["sigma_reward_drawn_step"]
assert len(sv) == 5 and len(sr) == 5, (sv, sr)
for h, ck in enumerate(caps):
    want_v = 2 * math.sqrt(math.sqrt(N) * ck * (1 + ck) * Q / (2 * rho_y))
    want_r = 2 * math.sqrt((1 + ck) * Q / (2 * rho_y))
    assert abs(sv[h] - want_v) <= 1e-4 * want_v, (h, sv[h], want_v)
    assert abs(sr[h] - want_r) <= 1e-4 * want_r, (h, sr[h], want_r)
assert d["sigma_y_drawn"] == sv[0], d["sigma_y_drawn"]
want = rho_y * S * sum(1 / (1 + ck) for ck in caps) / Q
assert abs(d["rho_rewards"] - want) <= 1e-12 * rho_y, (d["rho_rewards"], want)
' || { echo "per-step y noise wrong" >&2; exit 1; }
# With onehot rows the next values come from regressions shrunk towards
# 0.35 of each step's largest target, H - h + 1; with ball and simplex rows
# towards 0 (prior-value auto, docs/PRIVACY.md §3.2): post-processing, so
# sigma_y and the ridge do not move with it (test_params); none in a
# non-private run.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    --features onehot >"$TMP/p02o.json"
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    >"$TMP/p02.json"
python3 - "$TMP/p02.json" "$TMP/p02o.json" <<'PY' || { echo "prior target wrong" >&2; exit 1; }
import json, sys
a, o = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert (a["features"], a["prior_value"]) == ("ball", 0), a["prior_value"]
assert a["prior_target_step"] == [0] * 5, a
assert o["prior_value"] == 0.35, o["prior_value"]
want = [0.35 * (5 - h) for h in range(5)]
assert all(abs(x - w) <= 1e-12 for x, w in zip(o["prior_target_step"], want)), o
# The prior tapers to none at the final update (§3.2): said where there is one.
assert (o["final_prior"], a.get("final_prior", "")) == ("taper", ""), (o.get("final_prior"), a.get("final_prior"))
# Every row weighs as much as its set's bounds allow (§1.7): in force, and said.
assert (o["row_weight"], a["row_weight"]) == ("norm", "norm"), (o.get("row_weight"), a.get("row_weight"))
# The plausible set (docs/PRIVACY.md §3.4): z = 1 and floor 0.025,
# post-processing (test_params).
assert (a["plausible"], a["plausible_floor"]) == (1.0, 0.025), a
# The sample of the noise (§3.6) is how clinics explore; without noise,
# nothing to sample ("").
assert a["explore"] == "sample", a.get("explore")
PY
# The next values' noise discount nu (docs/PRIVACY.md §3.5): 2 in a private
# run, 0 without noise (test_params: 0 under the paper's calibration); a
# stored key that no flag sets, so the command line refuses it.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --rho inf >"$TMP/pnd.json"
python3 - "$TMP/p02.json" "$TMP/pnd.json" <<'PY' || { echo "next_discount wrong" >&2; exit 1; }
import json, sys
a, n = (json.load(open(f)) for f in sys.argv[1:3])
assert (a["next_discount"], n["next_discount"]) == (2.0, 0.0), (a["next_discount"], n["next_discount"])
PY
if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
    --next-discount 1 >/dev/null 2>&1; then
    echo "--next-discount, a stored key, was accepted as a flag" >&2
    exit 1
fi
# How the learner works within the budget has no flag since issue 29's
# levers were measured: each of these keys is stored with the database
# (docs/DAEMON.md "Stored keys"), and the command line refuses it; the
# simulator sets them for its ablations.
for key in calibration failure-prob update-ratio shift-bound indefinite value-clip prior-policy \
    y-exponent prior-value y-sensitivity plausible plausible-floor explore; do
    err=$("$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
        "--$key" 1 2>&1 >/dev/null) && { echo "--$key, a stored key, was accepted as a flag" >&2; exit 1; }
    grep -q "'--$key' is not a flag: .*Stored keys" <<<"$err" || { echo "--$key: unclear message: $err" >&2; exit 1; }
done
# --features simplex (docs/PRIVACY.md §3.3): the next-value bound is on in a
# private run and targets are released centred (below); ball is the
# default. Under the triangle bound simplex rows cost what ball rows do
# (test_params).
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    --features simplex >"$TMP/fs.json"
python3 - "$TMP/p02.json" "$TMP/fs.json" <<'PY' || { echo "features wrong" >&2; exit 1; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert (a["features"], a["next_value_bound"]) == ("ball", False), a
assert (b["features"], b["next_value_bound"]) == ("simplex", True), b
for key in ("ridge", "max_updates", "rho_y"):
    assert a[key] == b[key], key
PY
# --features onehot (docs/PRIVACY.md §1.6): the tight shift bounds d
# diagonal entries, s sqrt(2 ln(2 d G H / p)), not a d x d matrix; every cost
# is simplex's. Known value (Python): sqrt 170 sqrt(2 ln 27200) at G = 17.
for f in simplex onehot; do
    "$B" --print-params --horizon 5 --dim 8 --actions 2 --max-episodes 100000 --rho 1 \
        --gram-share 0.5 --mechanism grid --release-base 2 --release-start 1 --shift-scale 1 \
        --features "$f" >"$TMP/f-$f.json"
done
python3 - "$TMP/f-simplex.json" "$TMP/f-onehot.json" <<'PY' || { echo "onehot wrong" >&2; exit 1; }
import json, sys
s, o = (json.load(open(f)) for f in sys.argv[1:3])
assert o["features"] == "onehot" and o["next_value_bound"] and o["y_sensitivity"] == "centred", o
assert abs(o["y_centre"] - (1 - 0.5 ** 0.5)) < 1e-15, o["y_centre"]
assert abs(o["shift"] - 58.92139310790768) < 1e-9 * 58.9, o["shift"]
assert abs(s["shift"] - 124.0460206026939) < 1e-9 * 124, s["shift"]
for key in ("sigma_y_drawn", "sigma_y_drawn_step", "sigma_gram_drawn", "max_updates", "rho_y", "prefix_sd"):
    assert s[key] == o[key], key
PY
# The auto release start asks k0 / d >= 3 sigma_y of onehot rows, 5 of
# the others (docs/PRIVACY.md §1.2; the Python count of test_params):
# RiverSwim's S = 6 shape at epsilon 10; with the warm-up's phi = 0.15 of
# rho, k0 (7122, 4568 without it) / sqrt(0.85) at the same G.
check '{"release_start": 7725, "releases": 7}' \
    --horizon 20 --dim 12 --actions 2 --max-episodes 100000 --epsilon 10 --features simplex
check '{"release_start": 4955, "releases": 8}' \
    --horizon 20 --dim 12 --actions 2 --max-episodes 100000 --epsilon 10 --features onehot
[ "$("$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho inf \
    --features simplex | python3 -c 'import json,sys; print(json.load(sys.stdin)["next_value_bound"])')" = False ] ||
    { echo "a non-private run has the next-value bound" >&2; exit 1; }
for bad in auto sphere; do
    if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
        --features "$bad" >/dev/null 2>&1; then
        echo "--features $bad was accepted" >&2
        exit 1
    fi
done
[ "$("$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho inf |
    python3 -c 'import json,sys; print(sum(json.load(sys.stdin)["prior_target_step"]))')" = 0.0 ] ||
    { echo "a non-private run has a prior" >&2; exit 1; }
[ "$("$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["prior_policy"])')" = uniform ] ||
    { echo "the default prior policy is not uniform" >&2; exit 1; }
if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
    --release-start 0 >/dev/null 2>&1; then
    echo "--release-start 0 was accepted" >&2
    exit 1
fi
[ "$("$B" --print-params --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1 |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["mechanism"], d["value_clip"], d["shift_bound"])')" = "grid-sqrt remaining tight" ] ||
    { echo "the defaults are not grid-sqrt, remaining, tight" >&2; exit 1; }
[ "$("$B" --print-params --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho inf |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["mechanism"])')" = tree ] ||
    { echo "a non-private run does not default to the tree" >&2; exit 1; }
# (epsilon, delta) to rho (docs/PRIVACY.md §4; the CKS value from an
# independent Python search, tests/unit/test_params.c), and rho to epsilon.
check '{"rho": 0.02081994, "epsilon": 1.0, "delta": 1e-5, "epsilon_bun_steinke": 1.0}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --epsilon 1 --delta 1e-5 --conversion bun-steinke
check '{"rho": 0.0305565952, "epsilon": 1.0, "epsilon_cks": 1.0, "epsilon_bun_steinke": 1.216804129}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --epsilon 1 --delta 1e-5
check '{"rho": 1.0, "epsilon": 7.077196696, "epsilon_cks": 7.077196696, "epsilon_bun_steinke": 7.786140}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1
[ "$("$B" --print-params --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --epsilon 1 |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["conversion"])')" = cks ] ||
    { echo "the default conversion is not cks" >&2; exit 1; }
# y's sensitivity with simplex rows: (1 + cap) with the centred targets, the
# default, sqrt 2 (1 + cap) with the nonnegative bound, not 2 (1 + cap)
# (docs/PRIVACY.md §2.1, §2.2; the known values from tests/unit/test_params.c,
# 15.21154681 without the warm-up, / sqrt(0.85) with its phi = 0.15 of rho).
check '{"sigma_y": 16.49923907, "max_updates": 12, "y_centre": 0.2928932188}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --features simplex --release-start 1000
# The bound reported is the one in force (for the stored keys' other
# bounds, test_options).
for f in simplex:centred onehot:centred ball:triangle; do
    [ "$("$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
        --features "${f%%:*}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["y_sensitivity"])')" = "${f##*:}" ] ||
        { echo "--features ${f%%:*} does not give the ${f##*:} bound" >&2; exit 1; }
done
check '{"max_updates": 10}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1 --max-updates 10
# An indefinite Lambda~ doubles its step's ridge (docs/PRIVACY.md §1.4);
# refuse, the old behaviour, moves no privacy constant (test_params).
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    --release-base 1.5 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["indefinite"] == "double" and d["shift_scale"] == 0.25, d
assert abs(d["sigma_y"] - 32.99847813) < 1e-6 and d["release_start"] == 934, d
'


# Refusals: exit status 2 and a message naming the problem.
refuse() {
    local pattern=$1
    shift
    local err rc=0
    err=$("$B" --print-params "$@" 2>&1 >/dev/null) || rc=$?
    [ "$rc" -eq 2 ] || { echo "exit $rc for: $*"; exit 1; }
    grep -qi -- "$pattern" <<<"$err" || { echo "message '$err' lacks '$pattern'"; exit 1; }
}
refuse "switching-cost bound" --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1 --max-updates 32 \
    --release-base 1.5
refuse "horizon" --horizon 0 --dim 10 --actions 4 --max-episodes 10 --rho 1
refuse "rho" --horizon 5 --dim 10 --actions 4 --max-episodes 10 --rho -1
refuse "bad value" --horizon five --dim 10 --actions 4 --max-episodes 10 --rho 1
refuse "unknown option" --horizon 5 --bogus 1
refuse "bad value" --horizon 5 --dim 10 --actions 4 --max-episodes 10 --epsilon 1 --conversion renyi
refuse "not a flag" --horizon 5 --dim 10 --actions 4 --max-episodes 10 --rho 1 --calibration paper
# The default release grid base is 1.25 (issue 29, docs/RESULTS.md "Levers"):
# more grid points than 1.5 from the auto start, which still satisfies its rule.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 |
    python3 -c '
import json, math, sys
d = json.load(sys.stdin)
assert d["release_base"] == 1.25, d["release_base"]
k0, n, x = d["release_start"], 0, d["release_start"]
while x <= d["K_max"]:
    n, x = n + 1, x * 1.25
assert d["releases"] == n and n > 11, (d["releases"], n)
assert d["rewards"] == "stream" and d["rho_rewards"] > 0, d
a = min(d["first_share"], n / 2)  # the first update share (docs/PRIVACY.md §2.3)
assert a == 2, d
assert k0 >= 5 * d["d"] * d["sigma_y"] / math.sqrt(a), d
' || { echo "the default release grid is not g = 1.25" >&2; exit 1; }
# The first update's share a (docs/PRIVACY.md §2.3): 2 in a private run, 1
# without noise; a stored key that no flag sets.
[ "$("$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho inf |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["first_share"])')" = 1.0 ] ||
    { echo "a non-private run has a first share" >&2; exit 1; }
if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
    --first-share 1 >/dev/null 2>&1; then
    echo "--first-share, a stored key, was accepted as a flag" >&2
    exit 1
fi
echo "print-params ok"
