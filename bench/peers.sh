#!/bin/bash
# bench-peers: gpusim's CPU path and Bullet 3.24 on the settle scene of
# ../shared/bench/settle.md, side by side (make bench-peers; issue 21).
#
# Builds the Bullet driver of ../shared/peers/bullet with its build.sh
# against Debian's libbullet-dev (installed with apt-get when missing and
# this runs as root) and gpusim, then runs, for each N of NS (default
# "1000 8000") and REPS times (default 3), interleaved: Bullet's default
# float build with its sequential-impulse solver at each iteration count
# of BULLET_ITERS (default "50 100"), and gpusim's CPU path in each
# configuration of GPUSIM_RUNS, SOLVER:ITERATIONS or
# SOLVER:ITERATIONS:TOLERANCE (default "apgd:100 apgd:20 apgd:10 gs:50
# apgd:100:1e-5": apgd at a fixed 100 iterations is the scene's own
# setting and the issue's row; gs, projected Gauss–Seidel, is the method
# of Bullet's sequential impulses, at Bullet's 50; the last stops each
# step's solve at the residual 1e-5, a converged step, within 100
# iterations) on one worker, all 200 steps of h = 0.01 s from settle.md's
# lattice, one thread each. Prints a table: median ms per step over the
# reps' medians, the maximum overlap at the end (mm), each row's time over
# Bullet SI-50's at its N (the first of BULLET_ITERS) and, for a solve
# with a tolerance, the mean iterations and the steps that reached it.
# The iteration counts trace what each engine's time buys: Bullet's
# overlap comes from its position correction and does not shrink with
# iterations, gpusim's does. Never part of make test or CI's pass/fail: a
# comparison, not a check.
#
# OUT (default out/bench-peers) holds the builds, each run's output and
# table.md. STEPS changes the step count.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out/bench-peers}
PEERS=${PEERS:-../shared/peers/bullet}
NS=${NS:-"1000 8000"}
REPS=${REPS:-3}
STEPS=${STEPS:-200}
BULLET_ITERS=${BULLET_ITERS:-"50 100"}
GPUSIM_RUNS=${GPUSIM_RUNS:-"apgd:100 apgd:20 apgd:10 gs:50 apgd:100:1e-5"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ ! -f /usr/include/bullet/btBulletDynamicsCommon.h ]; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y -q libbullet-dev >&2 || { apt-get update -q >&2 && apt-get install -y -q libbullet-dev >&2; } || exit 1
	else
		echo "bench-peers: needs Debian's libbullet-dev (sudo apt-get install libbullet-dev)" >&2
		exit 2
	fi
fi
sh "$PEERS/build.sh" "$OUT" || exit 1
go build -o "$OUT/gpusim" ./cmd/gpusim || exit 1
runs="$OUT/runs.jsonl"
: >"$runs"
for rep in $(seq 1 "$REPS"); do
	for n in $NS; do
		for it in $BULLET_ITERS; do
			echo "== rep $rep, N = $n: bullet SI $it" >&2
			"$OUT/settle_bullet" "$n" "$it" --steps "$STEPS" | sed "s/^{/{\"rep\":$rep,/" >>"$runs" || exit 1
		done
		for cfg in $GPUSIM_RUNS; do
			IFS=: read -r solver it tol <<<"$cfg"
			if [ -z "$it" ]; then
				echo "bench-peers: GPUSIM_RUNS entry \"$cfg\" is not SOLVER:ITERATIONS or SOLVER:ITERATIONS:TOLERANCE" >&2
				exit 2
			fi
			tol=${tol:-0}
			echo "== rep $rep, N = $n: gpusim $solver $it, tolerance $tol" >&2
			dir="$OUT/gpusim-$n-$solver-$it-$tol-$rep"
			rm -rf "$dir"
			"$OUT/gpusim" run settle --set "n=$n" --set "settings.solver=$solver" --set "settings.max_iter=$it" --set "settings.tol=$tol" \
				--backend cpu --workers 1 --steps "$STEPS" --out "$dir" --quiet || exit 1
			python3 - "$dir/summary.json" "$rep" "$n" >>"$runs" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
print(json.dumps({"rep": int(sys.argv[2]), "engine": "gpusim", "solver": s["settings"]["solver"], "n": int(sys.argv[3]),
                  "iters": s["settings"]["max_iter"], "tol": s["settings"]["tol"], "ms_median": 1000 * s["step_s_median"],
                  "max_pen_mm": 1000 * s["final"]["max_penetration_m"], "iterations_mean": s["iterations_mean"],
                  "steps": s["steps"], "steps_not_converged": s["steps_not_converged"]}))
PY
		done
	done
done
simd=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("cpu_simd", "none"))' "$dir/summary.json")
echo "gpusim's CPU path ran its vector loops: $simd (avx512 needs GOEXPERIMENT=simd, as make bench-peers builds, and AVX-512)" >&2
python3 - "$runs" "$OUT/table.md" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
reps = max(r["rep"] for r in rows)
out = ["| engine / solver | N | ms/step (median of %d runs) | max overlap at the end (mm) | time / Bullet SI %s | iterations (mean) | steps converged |" % (reps, rows[0]["iters"]),
       "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
for n in sorted({r["n"] for r in rows}):
    keys = []
    for r in rows:
        k = (r["engine"], r["solver"], r["iters"], r.get("tol", 0))
        if r["n"] == n and k not in keys:
            keys.append(k)
    base = None
    for eng, solver, iters, tol in keys:
        rs = [r for r in rows if r["n"] == n and (r["engine"], r["solver"], r["iters"], r.get("tol", 0)) == (eng, solver, iters, tol)]
        med = statistics.median(r["ms_median"] for r in rs)
        pen = max(r["max_pen_mm"] for r in rs)
        if base is None:
            base = med  # the first Bullet row: BULLET_ITERS' first count
        its, conv = "%d" % iters, "—"
        if eng != "gpusim":
            name = "Bullet 3.24 SI %d (float)" % iters
        elif tol > 0:
            name = "gpusim %s ≤ %d, tolerance %g" % (solver, iters, tol)
            its = "%.1f" % statistics.mean(r["iterations_mean"] for r in rs)
            conv = "%d %%" % round(100 * sum(r["steps"] - r["steps_not_converged"] for r in rs) / sum(r["steps"] for r in rs))
        else:
            name = "gpusim %s %d" % (solver, iters)
        out.append("| %s | %d | %.1f | %.3g | %.2f | %s | %s |" % (name, n, med, pen, med / base, its, conv))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
