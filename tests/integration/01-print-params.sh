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

# The paper's construction with the corrected calibration (docs/PRIVACY.md).
PAPER=(--mechanism tree --shift-bound paper --shift-scale 1 --value-clip horizon --gram-share 0.5
       --conversion bun-steinke)
check '{"L": 15, "sigma_gram": 12.247449, "shift": 1910.6544, "max_updates": 31, "sigma_y": 149.398795, "rho": 1.0, "epsilon": 7.786140}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1 "${PAPER[@]}"
check '{"L": 18, "sigma_gram": 26.832816, "shift": 6403.6012, "max_updates": 184, "sigma_y": 1334.586078}' \
    --horizon 10 --dim 32 --actions 8 --max-episodes 100000 --rho 0.5 "${PAPER[@]}"
check '{"L": 11, "sigma_gram": 6.633250, "shift": 816.4673, "max_updates": 33, "sigma_y": 341.209613}' \
    --horizon 20 --dim 8 --actions 2 --max-episodes 1000 --rho 10 "${PAPER[@]}"
# The defaults (grid-sqrt, g = 1.5 from k0 = 1: 23 release points; tight
# bound x 0.25; V clipped to the steps left), values computed independently.
check '{"releases": 23, "sens_factor": 2.060891049, "sigma_gram": 4.539703789, "prefix_sd": 6.517109726, "shift": 16.71506233, "max_updates": 23, "sigma_y": 71.13367698}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1 --release-start 1 --gram-share 0.5
# The default release start is auto: the smallest k0 >= 5 d sigma_y(k0)
# (docs/PRIVACY.md §1.2; computed independently in tests/unit/test_params.c).
# rho from epsilon by CKS (the default), by Bun–Steinke where asked.
check '{"release_start": 1166, "releases": 11, "max_updates": 11, "sigma_y": 29.12789453, "gram_share": 0.2}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10
check '{"release_start": 1250, "releases": 11, "max_updates": 11, "sigma_y": 31.23432195, "gram_share": 0.2}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --conversion bun-steinke
check '{"release_start": 10072, "releases": 6, "sigma_y": 251.7950836}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 1 --release-start auto --gram-share 0.5 \
    --conversion bun-steinke
check '{"release_start": 1, "releases": 100000}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --mechanism tree
# Step h's y noise is proportional to its sensitivity 2(H - h + 1) by default
# (--y-exponent 1, docs/PRIVACY.md §2), at the same rho_y as sigma_y at every
# step: sigma_h = sigma_y sqrt(H / sum_j (2j)^2) 2(H - h + 1), inflated by
# its grid's slack (below 1e-4 here); --y-exponent 0 gives sigma_y at every step.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 |
    python3 -c '
import json, math, sys
d = json.load(sys.stdin)
assert d["y_exponent"] == 1, d["y_exponent"]
s = d["sigma_y_drawn_step"]
assert len(s) == 5, s
unit = d["sigma_y"] * math.sqrt(5 / 220)
for h, x in enumerate(s):
    want = unit * 2 * (5 - h)
    assert abs(x - want) <= 1e-4 * want, (h, x, want)
assert d["sigma_y_drawn"] == s[0], d["sigma_y_drawn"]
' || { echo "per-step y noise wrong" >&2; exit 1; }
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    --y-exponent 0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert all(abs(x - d["sigma_y"]) <= 1e-4 * d["sigma_y"] for x in d["sigma_y_drawn_step"]), d
' || { echo "--y-exponent 0 does not give sigma_y at every step" >&2; exit 1; }
# The next values come from regressions shrunk towards 0.5 of each step's
# largest target, H - h + 1
# (--prior-value, docs/PRIVACY.md §3.2): post-processing, so sigma_y and the
# ridge do not move with it; none in a non-private run.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    >"$TMP/p02.json"
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    --prior-value 0.3 >"$TMP/p05.json"
python3 - "$TMP/p02.json" "$TMP/p05.json" <<'PY' || { echo "prior target wrong" >&2; exit 1; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["prior_value"] == 0.5 and b["prior_value"] == 0.3, (a["prior_value"], b["prior_value"])
for d, k in ((a, 0.5), (b, 0.3)):
    want = [k * (5 - h) for h in range(5)]
    assert all(abs(x - w) <= 1e-12 for x, w in zip(d["prior_target_step"], want)), d
for key in ("sigma_y_drawn", "sigma_gram_drawn", "ridge", "max_updates", "rho_y"):
    assert a[key] == b[key], key
PY
# The plausible set's z (--plausible, docs/PRIVACY.md §3.4): 1 by default,
# post-processing, so no privacy constant moves with it; outside [0, 10] refused.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    --plausible 0 >"$TMP/pz0.json"
python3 - "$TMP/p02.json" "$TMP/pz0.json" <<'PY' || { echo "plausible wrong" >&2; exit 1; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert (a["plausible"], b["plausible"]) == (1.0, 0.0), (a["plausible"], b["plausible"])
assert a["plausible_floor"] == 0.025, a["plausible_floor"]
for key in ("sigma_y_drawn", "sigma_y_drawn_step", "sigma_gram_drawn", "ridge", "max_updates",
            "rho_y", "release_start"):
    assert a[key] == b[key], key
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
for bad in -1 10.5 nan inf; do
    if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
        --plausible "$bad" >/dev/null 2>&1; then
        echo "--plausible $bad was accepted" >&2
        exit 1
    fi
done
for bad in -0.1 1.5 nan; do
    if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
        --plausible-floor "$bad" >/dev/null 2>&1; then
        echo "--plausible-floor $bad was accepted" >&2
        exit 1
    fi
done
# --features simplex (docs/PRIVACY.md §3.3): the next-value bound is on in a
# private run, and the privacy constants are those of ball (under the same
# triangle bound on y's sensitivity; the nonnegative one is below), but for
# the ball rows' slack eta of a float norm check (PRIVACY "Setting": noise
# (1 + eta) larger, eta ~ d 2^-53); ball is the default.
"$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
    --features simplex --y-sensitivity triangle >"$TMP/fs.json"
python3 - "$TMP/p02.json" "$TMP/fs.json" <<'PY' || { echo "features wrong" >&2; exit 1; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert (a["features"], a["next_value_bound"]) == ("ball", False), a
assert (b["features"], b["next_value_bound"]) == ("simplex", True), b
eta = 8 * 2.0 ** -53
for key in ("ridge", "max_updates", "rho_y"):
    assert a[key] == b[key], key
for key in ("sigma_y_drawn", "sigma_gram_drawn"):
    assert b[key] < a[key] <= b[key] * (1 + 2 * eta), (key, a[key], b[key])
for x, y in zip(a["sigma_y_drawn_step"], b["sigma_y_drawn_step"]):
    assert y < x <= y * (1 + 2 * eta), (x, y)
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
# RiverSwim's S = 6 shape at epsilon 10.
check '{"release_start": 9324, "releases": 6}' \
    --horizon 20 --dim 12 --actions 2 --max-episodes 100000 --epsilon 10 --features simplex
check '{"release_start": 6043, "releases": 7}' \
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
for bad in -0.1 1.5 nan; do
    if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
        --prior-value "$bad" >/dev/null 2>&1; then
        echo "--prior-value $bad was accepted" >&2
        exit 1
    fi
done
if "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 1 \
    --y-exponent -1 >/dev/null 2>&1; then
    echo "--y-exponent -1 was accepted" >&2
    exit 1
fi
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
# (docs/PRIVACY.md §2.1, §2.2; the known values from tests/unit/test_params.c).
check '{"sigma_y": 15.21154681, "max_updates": 12, "y_centre": 0.2928932188}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --features simplex --release-start 1000
check '{"sigma_y": 21.51237580, "max_updates": 12, "y_centre": 0}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --features simplex --release-start 1000 \
    --y-sensitivity nonnegative
check '{"sigma_y": 30.42309362, "max_updates": 12}' \
    --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 --features simplex --release-start 1000 \
    --y-sensitivity triangle
# The bound reported is the one in force, whatever was asked for.
for f in simplex:centred onehot:centred ball:triangle "simplex --y-sensitivity nonnegative:nonnegative" \
    "onehot --y-sensitivity nonnegative:nonnegative" "simplex --y-sensitivity triangle:triangle" \
    "ball --y-sensitivity nonnegative:triangle"; do
    # shellcheck disable=SC2086 # the feature set, maybe a flag and its value
    [ "$("$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 \
        --features ${f%%:*} | python3 -c 'import json,sys; print(json.load(sys.stdin)["y_sensitivity"])')" = "${f##*:}" ] ||
        { echo "--features ${f%%:*} does not give the ${f##*:} bound" >&2; exit 1; }
done
check '{"max_updates": 10}' \
    --horizon 5 --dim 10 --actions 4 --max-episodes 10000 --rho 1 --max-updates 10
# An indefinite Lambda~ doubles its step's ridge by default (docs/PRIVACY.md
# §1.4); refuse is the old behaviour. Neither moves a privacy constant.
for r in "":double "--indefinite refuse":refuse "--indefinite double":double; do
    # shellcheck disable=SC2086 # the flag and its value, or nothing
    "$B" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes 100000 --epsilon 10 ${r%%:*} \
        --release-base 1.5 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["indefinite"] == sys.argv[1] and d["shift_scale"] == 0.25, d
assert abs(d["sigma_y"] - 29.12789453) < 1e-6 and d["release_start"] == 1166, d
' "${r##*:}"
done

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
refuse "bad value" --horizon 5 --dim 10 --actions 4 --max-episodes 10 --epsilon 1 --y-sensitivity l1
refuse "bad value" --horizon 5 --dim 10 --actions 4 --max-episodes 10 --epsilon 1 --indefinite fix
refuse "corrected" --horizon 5 --dim 10 --actions 4 --max-episodes 10 --rho 1 --calibration paper
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
assert k0 >= 5 * d["d"] * d["sigma_y"], d
' || { echo "the default release grid is not g = 1.25" >&2; exit 1; }
echo "print-params ok"
