#!/usr/bin/env bash
# client/sim/price.sh — the price of privacy (`make price`): regenerates the
# section of docs/RESULTS.md between its price markers and docs/img/price-*.png.
#
# Reported on environments the defaults were NOT tuned on (tuning used the
# simplex MDP's environment seeds 2-9, see TUNE below): the simplex MDP of
# environment seed 1, RiverSwim, and the two-state fixture; run seeds 1-5,
# K = K_max = 10^5, delta = 1e-5, epsilon in {1, 3, 10}. Every run is
# seeded and paired with the random policy on the same seeds.
#
#   O=build client/sim/price.sh          full (26-36 min on 2 cores)
#   K=10000 SEEDS=1-2 client/sim/price.sh   a quick look (not for the docs)
#   TUNE=1 client/sim/price.sh           also rerun the tuning sweep (~25 min)
set -euo pipefail
O=${O:-build}
SIM="$O/billboard-sim"
K=${K:-100000}
SEEDS=${SEEDS:-1-5}
EPS=1,3,10
OUT=docs/RESULTS.md
IMG=docs/img
WORK="$O/price"
[ -x "$SIM" ] || { echo "price.sh: no $SIM (run make first)" >&2; exit 1; }
mkdir -p "$WORK" "$IMG"
start=$(date +%s)

SIMPLEX=(--env simplex --env-seeds 1)
RIVER=(--env riverswim)
TWO=(--env tests/fixtures/sim_env_two_state.json)
# The paper's construction, with the calibration corrected (DESIGN.md §3)
# and none of billboard's levers (the next-value bound is one).
PAPER=(--mechanism tree --shift-bound paper --shift-scale 1 --value-clip horizon
       --release-base 2 --beta 2 --prior-policy greedy --gram-share 0.5 --prior-value 0
       --features ball --plausible 0 --conversion bun-steinke)
# The earlier levers' ablation starts from the paper's grid start and prior,
# with one y noise for every step, the regressions shrunk towards 0, no
# next-value bound and the greedy action always.
EARLY=(--release-start 1 --prior-policy greedy --gram-share 0.5 --y-exponent 0 --prior-value 0
       --features ball --plausible 0 --conversion bun-steinke)

sweep() { # name, then billboard-sim arguments: $WORK/name.md and name.csv
    local name=$1
    shift
    echo "== $name: billboard-sim $*" >&2
    "$SIM" --episodes "$K" --max-episodes "$K" --delta 1e-5 --seeds "$SEEDS" \
        --summary "$WORK/$name.md" --csv "$WORK/$name.csv" "$@"
}

# 1. The table: per environment, random, non-private (best beta of four),
#    the paper's construction as corrected, and the defaults.
for env in simplex riverswim two-state; do
    case $env in
    simplex) args=("${SIMPLEX[@]}") ;;
    riverswim) args=("${RIVER[@]}") ;;
    two-state) args=("${TWO[@]}") ;;
    esac
    sweep "$env-nonprivate" "${args[@]}" --algo lsvi-ucb-rare --epsilon inf \
        --sweep beta=0.5,1,2,4
    sweep "$env-paper" "${args[@]}" --epsilon "$EPS" "${PAPER[@]}" --sweep beta=2
    sweep "$env-default" "${args[@]}" --epsilon "$EPS"
done

# 2. The ablation on the simplex MDP: one lever at a time, from the paper's
#    construction to the defaults.
sweep ablation "${SIMPLEX[@]}" --epsilon "$EPS" "${EARLY[@]}" --beta 2 --value-clip horizon --shift-scale 1 \
    --release-base 2 \
    --sweep mechanism=tree,grid,grid-sqrt --sweep shift-bound=paper,tight
sweep ablation-clip "${SIMPLEX[@]}" --epsilon "$EPS" "${EARLY[@]}" --beta 2 --mechanism grid-sqrt \
    --shift-bound tight --shift-scale 1 --release-base 2 --sweep value-clip=horizon,remaining
# The later levers: when the grid starts, what version 0 recommends
# (docs/PRIVACY.md §1.2, §3.1) and the split f, from the earlier defaults
# (k0 = 1, the greedy prior, f = 1/2) to today's.
sweep ablation-start "${SIMPLEX[@]}" --epsilon "$EPS" --y-exponent 0 --prior-value 0 --features ball \
    --sweep release-start=1,auto \
    --sweep prior-policy=greedy,uniform --sweep gram-share=0.5,0.2
# Step h's y noise proportional to its sensitivity (docs/PRIVACY.md §2),
# with the regressions shrunk towards 0 and no next-value bound, on both
# environments.
sweep ablation-y "${SIMPLEX[@]}" --epsilon "$EPS" --prior-value 0 --features ball \
    --sweep y-exponent=0,1
sweep ablation-y-river "${RIVER[@]}" --epsilon "$EPS" --prior-value 0 --features ball \
    --sweep y-exponent=0,1
# The next values' prior (docs/PRIVACY.md §3.2), on the defaults otherwise
# without the next-value bound, on both environments.
sweep ablation-prior "${SIMPLEX[@]}" --epsilon "$EPS" --features ball --sweep prior-value=0,0.5
sweep ablation-prior-river "${RIVER[@]}" --epsilon "$EPS" --features ball \
    --sweep prior-value=0,0.5
# The latest lever: the next-value bound of simplex features (docs/PRIVACY.md
# §3.3), on the defaults otherwise, on both environments.
sweep ablation-features "${SIMPLEX[@]}" --epsilon "$EPS" --sweep features=ball,simplex
sweep ablation-features-river "${RIVER[@]}" --epsilon "$EPS" --sweep features=ball,simplex,onehot
# The Gram noise on the diagonal only for one-hot rows (docs/PRIVACY.md
# §1.6): simplex (dense noise, the dense bound at 0.25) against onehot (the
# diagonal bound at 0.4, the default for these environments), then the
# diagonal bound's scale alone; RiverSwim, then the two-state fixture.
sweep ablation-onehot-river "${RIVER[@]}" --epsilon "$EPS" --sweep features=simplex,onehot
sweep ablation-onehot-scale-river "${RIVER[@]}" --epsilon "$EPS" --features onehot \
    --sweep shift-scale=0.25,0.4
sweep ablation-onehot-two "${TWO[@]}" --epsilon "$EPS" --sweep features=simplex,onehot
# The auto release start's constant for onehot rows (docs/PRIVACY.md §1.2):
# on RiverSwim k0 was 9324 at epsilon 10 and 21465 at 3 with c = 5, and 7050
# and 16799 with c = 3.5 (the default before 2026-11-26; at 1 all sit at the
# cap K_max / 5), against 'auto' with c = 3.
sweep ablation-onehot-start-river10 "${RIVER[@]}" --epsilon 10 --features onehot \
    --sweep release-start=9324,7050,auto
sweep ablation-onehot-start-river3 "${RIVER[@]}" --epsilon 3 --features onehot \
    --sweep release-start=21465,16799,auto
# The plausible set (docs/PRIVACY.md §3.4), on the defaults otherwise.
sweep ablation-plausible "${SIMPLEX[@]}" --epsilon "$EPS" --sweep plausible=0,1
sweep ablation-plausible-river "${RIVER[@]}" --epsilon "$EPS" --sweep plausible=0,1
# rho from (epsilon, delta) by Bun–Steinke or by CKS (docs/PRIVACY.md §4).
sweep ablation-conversion "${SIMPLEX[@]}" --epsilon "$EPS" --sweep conversion=bun-steinke,cks
sweep ablation-conversion-river "${RIVER[@]}" --epsilon "$EPS" --sweep conversion=bun-steinke,cks
# The PD shift's scale, 0.35 before and 0.25 now (docs/PRIVACY.md §1.4).
sweep ablation-shift "${SIMPLEX[@]}" --epsilon "$EPS" --sweep shift-scale=0.35,0.25
sweep ablation-shift-river "${RIVER[@]}" --epsilon "$EPS" --features simplex \
    --sweep shift-scale=0.35,0.25
# y's sensitivity: the nonnegative bound, the default before 2026-11-26,
# against the centred targets (docs/PRIVACY.md §2.1, §2.2).
sweep ablation-centre "${SIMPLEX[@]}" --epsilon "$EPS" --sweep y-sensitivity=nonnegative,centred
sweep ablation-centre-river "${RIVER[@]}" --epsilon "$EPS" --sweep y-sensitivity=nonnegative,centred
sweep ablation-centre-two "${TWO[@]}" --epsilon "$EPS" --sweep y-sensitivity=nonnegative,centred
# The auto release start's cap (docs/PRIVACY.md §1.2): K_max / 4, the default
# before 2026-11-26, against 'auto' (K_max / 5 = 20000 on RiverSwim at epsilon 1,
# where the rule's k0 lies beyond the cap).
sweep ablation-start-cap-river "${RIVER[@]}" --epsilon 1 --sweep release-start=25000,auto

# 3. Regret curves of one seed: the defaults at each epsilon, the
#    non-private algorithm and random.
"$SIM" --env simplex --env-seed 1 --seed 1 --episodes "$K" --max-episodes "$K" --quiet \
    --algo lsvi-ucb-rare,private,random --epsilon "$EPS" --summary "$WORK/curve-simplex.md" \
    --plot "$IMG/price-simplex" 2>/dev/null
"$SIM" --env riverswim --seed 1 --episodes "$K" --max-episodes "$K" --quiet \
    --algo lsvi-ucb-rare,private,random --epsilon "$EPS" --summary "$WORK/curve-riverswim.md" \
    --plot "$IMG/price-riverswim" 2>/dev/null

# 4. The tuning sweep (environment seeds 2-9 only), on request.
if [ "${TUNE:-0}" = 1 ]; then
    "$SIM" --env simplex --env-seeds 2-9 --seeds 1-2 --episodes "$K" --max-episodes "$K" \
        --epsilon "$EPS" --mechanism grid-sqrt --shift-bound tight --value-clip remaining \
        --sweep release-base=1.5,2 --sweep shift-scale=0.35,0.5,0.7 --sweep beta=0.5,1,2 \
        --summary "$WORK/tune.md" --csv "$WORK/tune.csv"
fi
secs=$(( $(date +%s) - start ))

# The table's rows from the sweeps' CSVs: mean and sd of regret / random
# over the seeds, and the mean regrets.
python3 - "$WORK" "$K" >"$WORK/table.md" <<'PY'
import csv, statistics as st, sys
work, K = sys.argv[1], sys.argv[2]
def load(name):
    return list(csv.DictReader(open("%s/%s.csv" % (work, name))))
def stats(rows):
    r = [float(x["ratio"]) for x in rows]
    return (st.mean(r), st.stdev(r) if len(r) > 1 else 0.0,
            st.mean(float(x["regret"]) for x in rows),
            st.mean(float(x["random_regret"]) for x in rows))
print("| environment | ε | random | non-private (best β) | paper's construction, corrected | defaults | defaults / random | defaults / non-private |")
print("|---|---|---|---|---|---|---|---|")
for env, label in (("simplex", "simplex S=50 A=5 d=8 H=5, env seed 1"),
                   ("riverswim", "RiverSwim S=6 H=20"), ("two-state", "two-state fixture")):
    npr = load(env + "-nonprivate")
    best = min({x["config"] for x in npr}, key=lambda c: stats([x for x in npr if x["config"] == c])[0])
    nm, nsd, nreg, _ = stats([x for x in npr if x["config"] == best])
    for eps in ("10", "3", "1"):
        pm, psd, preg, rreg = stats([x for x in load(env + "-paper") if x["epsilon"] == eps])
        dm, dsd, dreg, _ = stats([x for x in load(env + "-default") if x["epsilon"] == eps])
        print("| %s | %s | %.0f | %.0f (%s; %.3f ± %.3f) | %.0f (%.3f ± %.3f) | %.0f (%.3f ± %.3f) | **%.3f** | %.1f |" % (
            label, eps, rreg, nreg, best.replace("--beta ", "β="), nm, nsd, preg, pm, psd,
            dreg, dm, dsd, dm, dreg / nreg if nreg > 0 else float("inf")))
PY

# The goal, checked against the same CSVs (issue: on the simplex MDP and
# RiverSwim, eps = 10: <= 0.10x random and <= 10x non-private; eps = 1:
# <= 0.40x random).
python3 - "$WORK" >"$WORK/goal.md" <<'PY'
import csv, statistics as st, sys
work = sys.argv[1]
def load(name):
    return list(csv.DictReader(open("%s/%s.csv" % (work, name))))
def mean(rows, key="ratio"):
    return st.mean(float(x[key]) for x in rows)
lines, met = [], True
for env, label in (("simplex", "simplex (env seed 1)"), ("riverswim", "RiverSwim")):
    npr = load(env + "-nonprivate")
    best = min({x["config"] for x in npr}, key=lambda c: mean([x for x in npr if x["config"] == c]))
    nreg = mean([x for x in npr if x["config"] == best], "regret")
    d = load(env + "-default")
    r10 = mean([x for x in d if x["epsilon"] == "10"])
    x10 = mean([x for x in d if x["epsilon"] == "10"], "regret") / nreg if nreg > 0 else float("inf")
    r1 = mean([x for x in d if x["epsilon"] == "1"])
    ok = r10 <= 0.10 and x10 <= 10 and r1 <= 0.40
    met &= ok
    lines.append("- %s: ε = 10 at %.3f× random (goal ≤ 0.10: %s) and %.1f× non-private "
                 "(≤ 10: %s); ε = 1 at %.3f× random (≤ 0.40: %s)." % (
                     label, r10, "met" if r10 <= 0.10 else "not met", x10,
                     "met" if x10 <= 10 else "not met", r1, "met" if r1 <= 0.40 else "not met"))
print("**Against the goal** (mean of the seeds above, on environments not tuned on): %s" %
      ("met." if met else "not met everywhere:"))
print()
print("\n".join(lines))
PY

cfg() { "$O/billboardd" --print-params --horizon 5 --dim 8 --actions 5 --max-episodes "$K" \
    --epsilon "$1" "${@:2}" | python3 -c '
import json, sys
p = json.load(sys.stdin)
print("ρ %.4g; %s, %d releases: σ_Λ %.3g, prefix sd %.3g, ridge 2λ̃ %.4g, N_max %d, σ_y %.4g" % (
    p["rho"], p["mechanism"], p["releases"], p["sigma_gram"], p["prefix_sd"], p["ridge"],
    p["max_updates"], p["sigma_y"]))'; }

{
    echo "<!-- price:begin (client/sim/price.sh; edit the script, not this section) -->"
    echo "## The price of privacy"
    echo
    echo "Generated by \`make price\` (\`client/sim/price.sh\`) on $(date -u +%Y-%m-%d) in ${secs} s on"
    echo "2 shared cores. K = K_max = ${K}, δ = 10⁻⁵, run seeds ${SEEDS}; every private run"
    echo "is paired with the uniformly random policy on the same environment and seed, and"
    echo "the ratios are regret / random regret, mean ± sd over the seeds. The defaults were"
    echo "tuned on other environments only: the simplex MDP's environment seeds 2–29,"
    echo "RiverSwim with S = 4, 5, 7 and variants of the two-state fixture (sections"
    echo "below). No choice reads the environments here; env seed 1's ε = 10 result at"
    echo "three values of an earlier form of \`--prior-value\` was seen before its"
    echo "choice, and RiverSwim's seed 1 at ε = 10 with and without the next-value"
    echo "bound (worse with it) before that lever landed (\"More levers\"); the plausible"
    echo "set without its floor was run here once, and its cost with \`--features ball\`"
    echo "prompted the floor, whose value was then chosen on the tuning sets. This"
    echo "table with the release start at 5 σ_y of the nonnegative bound's smaller"
    echo "noise (RiverSwim 0.229 / 0.351 / 0.582) was seen before the start's rule was"
    echo "set to the triangle bound's σ_y on a third tuning seed set (\"More levers\")."
    echo "The PD shift's scale, 0.35 before, was set to 0.25 (with \`--indefinite double\`)"
    echo "on three tuning seed sets after this table at 0.35 had been seen (simplex"
    echo "0.033 / 0.082 / 0.181, RiverSwim 0.211 / 0.432 / 0.582, two-state 0.007 /"
    echo "0.005 / 0.013)."
    echo "The simulator's \`--features\` defaults to the environment's feature set: simplex"
    echo "for the simplex MDP, onehot for RiverSwim and the two-state fixture"
    echo "(docs/PRIVACY.md §3.3, §1.6). onehot's Gram noise on the diagonal has no"
    echo "constant; its shift scale (0.4) was chosen on the one-hot tuning families"
    echo "(RiverSwim S = 4, 5, 7 and client/sim/tuning_envs.py's) before this table"
    echo "was run with it (\"More levers\", 2026-11-25). The auto release start's"
    echo "constant for onehot rows (3.5, not 5) was chosen on the same families on"
    echo "three run-seed sets after this table at 5 had been seen (RiverSwim 0.155 /"
    echo "0.308 / 0.465, two-state 0.030 / 0.018 / 0.016). The centred regression"
    echo "targets (\`--y-sensitivity centred\`, 2026-11-26) and the plausible set's"
    echo "width with them were chosen on the tuning families before this table was"
    echo "run with them; the ablation's nonnegative rows below were the table before"
    echo "at that day's earlier release start (RiverSwim 0.160 / 0.271 / 0.465)."
    echo "The auto start's constant for onehot rows (3, not 3.5) and its cap (K_max / 5,"
    echo "not 4; 2026-11-26) were chosen on the one-hot tuning families on two run-seed"
    echo "sets after this table at 3.5 and K_max / 4 had been seen (RiverSwim 0.111 /"
    echo "0.247 / 0.417, two-state 0.010 / 0.014 / 0.014)."
    echo
    cat "$WORK/table.md"
    echo
    echo "Defaults at ε = 10 and ε = 1 for the simplex sizes (\`billboardd --print-params\`):"
    echo
    echo "- ε = 10: $(cfg 10)"
    echo "- ε = 1: $(cfg 1)"
    echo "- the paper's construction, ε = 10: $(cfg 10 "${PAPER[@]}")"
    echo
    cat "$WORK/goal.md"
    echo
    echo "### Ablation: what each lever buys (simplex, env seed 1, β = 2)"
    echo
    echo "From the paper's construction (tree, paper's bound) one lever at a time; the"
    echo "value clip on grid-sqrt with the tight bound."
    echo
    cat "$WORK/ablation.md"
    echo
    tail -n +3 "$WORK/ablation-clip.md"
    echo
    echo "From the earlier defaults (release start k₀ = 1, the prior's greedy action at"
    echo "version 0, f = ½) to today's (\`--release-start auto\`, \`--prior-policy"
    echo "uniform\`, \`--gram-share 0.2\`), on the defaults otherwise, with one y noise"
    echo "for every step, the regressions shrunk towards 0 and no next-value bound:"
    echo
    cat "$WORK/ablation-start.md"
    echo
    echo "One y noise for every step (\`--y-exponent 0\`) against step h's proportional"
    echo "to its sensitivity (\`--y-exponent 1\`, the default; docs/PRIVACY.md §2), on"
    echo "the defaults otherwise but with the regressions shrunk towards 0"
    echo "(\`--prior-value 0\`) and no next-value bound (\`--features ball\`); the"
    echo "simplex MDP, then RiverSwim:"
    echo
    cat "$WORK/ablation-y.md"
    echo
    tail -n +3 "$WORK/ablation-y-river.md"
    echo
    echo "The next values in the targets from regressions shrunk towards 0"
    echo "(\`--prior-value 0\`, the paper's ridge) against towards half of each step's"
    echo "largest target (\`--prior-value 0.5\`, the default; docs/PRIVACY.md §3.2),"
    echo "on the defaults otherwise with no next-value bound (\`--features ball\`); the"
    echo "simplex MDP, then RiverSwim:"
    echo
    cat "$WORK/ablation-prior.md"
    echo
    tail -n +3 "$WORK/ablation-prior-river.md"
    echo
    echo "The next values clipped at the steps left only (\`--features ball\`) against"
    echo "also at the largest value a simplex row can have under the next step's"
    echo "released regression, with the y noise scaled down with it (\`--features"
    echo "simplex\`, the simulator's default for the simplex MDP; docs/PRIVACY.md §3.3),"
    echo "on the defaults otherwise; the simplex MDP, then RiverSwim (with \`--features"
    echo "onehot\` too, its default):"
    echo
    cat "$WORK/ablation-features.md"
    echo
    tail -n +3 "$WORK/ablation-features-river.md"
    echo
    echo "One-hot rows: the Gram matrices' noise dense, with the dense bound at scale"
    echo "0.25 (\`--features simplex\`), against on the diagonal only, with the diagonal"
    echo "bound at 0.4 (\`--features onehot\`, the default for these environments;"
    echo "docs/PRIVACY.md §1.6), on the defaults otherwise; RiverSwim, the diagonal"
    echo "bound's scale alone on RiverSwim, then the two-state fixture:"
    echo
    cat "$WORK/ablation-onehot-river.md"
    echo
    tail -n +3 "$WORK/ablation-onehot-scale-river.md"
    echo
    tail -n +3 "$WORK/ablation-onehot-two.md"
    echo
    echo "The auto release start for onehot rows: k0 at c = 5 (9324 at epsilon 10,"
    echo "21465 at 3) and at c = 3.5 (7050 and 16799, the default before 2026-11-26;"
    echo "at 1 all are the cap K_max / 5) against \`auto\`, c = 3"
    echo "(docs/PRIVACY.md §1.2), on the defaults otherwise; RiverSwim:"
    echo
    cat "$WORK/ablation-onehot-start-river10.md"
    echo
    tail -n +3 "$WORK/ablation-onehot-start-river3.md"
    echo
    echo "The greedy action always (\`--plausible 0\`) against the episode's own pick among"
    echo "the actions within one noise sd of the greedy one's Q-value (\`--plausible 1\`,"
    echo "the default; docs/PRIVACY.md §3.4), on the defaults otherwise; the simplex"
    echo "MDP, then RiverSwim:"
    echo
    cat "$WORK/ablation-plausible.md"
    echo
    tail -n +3 "$WORK/ablation-plausible-river.md"
    echo
    echo "The budget (ε, δ) converted to ρ by Bun–Steinke (\`--conversion bun-steinke\`)"
    echo "against by Canonne–Kamath–Steinke (\`--conversion cks\`, the default; a larger"
    echo "ρ for the same guarantee, docs/PRIVACY.md §4), on the defaults otherwise; the"
    echo "simplex MDP, then RiverSwim:"
    echo
    cat "$WORK/ablation-conversion.md"
    echo
    tail -n +3 "$WORK/ablation-conversion-river.md"
    echo
    echo "The PD shift's scale: 0.35, the default before 2026-11-24, against 0.25, the"
    echo "default now for dense noise (docs/PRIVACY.md §1.4), on the defaults otherwise"
    echo "(so with \`--indefinite double\`); the simplex MDP, then RiverSwim with"
    echo "\`--features simplex\` (its dense bound):"
    echo
    cat "$WORK/ablation-shift.md"
    echo
    tail -n +3 "$WORK/ablation-shift-river.md"
    echo
    echo "y's sensitivity: the nonnegative bound (\`--y-sensitivity nonnegative\`, √2"
    echo "times the largest target, the default before 2026-11-26) against the targets"
    echo "released centred (\`--y-sensitivity centred\`, the default: 1 times, so every"
    echo "y noise ×0.707 at the same ρ, and the plausible set's z and floor carried in"
    echo "units of the smaller noise; docs/PRIVACY.md §2.2, §3.4), on the defaults"
    echo "otherwise; the simplex MDP, RiverSwim, then the two-state fixture:"
    echo
    cat "$WORK/ablation-centre.md"
    echo
    tail -n +3 "$WORK/ablation-centre-river.md"
    echo
    tail -n +3 "$WORK/ablation-centre-two.md"
    echo
    echo "The auto release start's cap: K_max / 4 (\`--release-start 25000\`, the cap"
    echo "before 2026-11-26) against \`auto\` (its cap K_max / 5 = 20000 here, where the"
    echo "rule's k₀ lies beyond either; docs/PRIVACY.md §1.2), on the defaults"
    echo "otherwise; RiverSwim at ε = 1:"
    echo
    cat "$WORK/ablation-start-cap-river.md"
    echo
    echo "### Regret curves (seed 1)"
    echo
    echo "![simplex](img/price-simplex-regret.png) ![riverswim](img/price-riverswim-regret.png)"
    echo
    echo "The non-private curve (lsvi-ucb-rare) runs at the default β = 1, where it gets"
    echo "stuck on this simplex MDP; its best β is in the table above."
    echo
    echo "<!-- price:end -->"
} >"$WORK/section.md"
if [ "${TUNE:-0}" = 1 ]; then
    {
        echo "<!-- tune:begin (TUNE=1 client/sim/price.sh) -->"
        echo "### The tuning sweep (simplex, environment seeds 2–9, run seeds 1–2)"
        echo
        echo "Generated by \`TUNE=1 make price\` on $(date -u +%Y-%m-%d); the defaults are"
        echo "the configuration with the lowest mean over the three budgets."
        echo
        cat "$WORK/tune.md"
        echo "<!-- tune:end -->"
    } >"$WORK/tune-section.md"
fi

# Splice the sections into docs/RESULTS.md: the price section after the
# title, the tuning section (only when rerun) right after it.
python3 - "$OUT" "$WORK/section.md" "${TUNE:-0}" "$WORK/tune-section.md" <<'PY'
import re, sys
doc, sec = open(sys.argv[1]).read(), open(sys.argv[2]).read().rstrip("\n")
if "<!-- price:begin" in doc:
    doc = re.sub(r"<!-- price:begin.*?<!-- price:end -->", lambda m: sec, doc, flags=re.S)
else:
    head, _, rest = doc.partition("\n\n")
    doc = head + "\n\n" + sec + "\n\n" + rest
if sys.argv[3] == "1":
    tune = open(sys.argv[4]).read().rstrip("\n")
    if "<!-- tune:begin" in doc:
        doc = re.sub(r"<!-- tune:begin.*?<!-- tune:end -->", lambda m: tune, doc, flags=re.S)
    else:
        doc = doc.replace("<!-- price:end -->", "<!-- price:end -->\n\n" + tune, 1)
open(sys.argv[1], "w").write(doc)
PY
echo "price.sh: wrote the price-of-privacy section of $OUT (${secs} s)" >&2
