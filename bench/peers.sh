#!/bin/bash
# bench-peers: gpusim's CPU path and Bullet 3.24 on the settle scene of
# ../shared/bench/settle.md, side by side (make bench-peers; issue 21).
#
# Builds the Bullet driver of ../shared/peers/bullet with its build.sh
# against Debian's libbullet-dev (installed with apt-get when missing and
# this runs as root) and gpusim, then runs, for each N of NS (default
# "1000 8000") and REPS times (default 3), interleaved: Bullet's default
# float build with its sequential-impulse solver at each iteration count
# of BULLET_ITERS (default "50 100"), and gpusim's CPU path with apgd at
# each of GPUSIM_ITERS (default "100 20 10"; 100 is the scene's own
# setting) on one worker, all 200 steps of h = 0.01 s from settle.md's
# lattice, one thread each. Prints a table: median ms per step over the
# reps' medians, the maximum overlap at the end (mm), and each row's time
# over Bullet SI-50's at its N (the first of BULLET_ITERS). The iteration
# counts trace what each engine's time buys: Bullet's overlap comes from
# its position correction and does not shrink with iterations, gpusim's
# does. Never part of make test or CI's pass/fail: a comparison, not a
# check.
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
GPUSIM_ITERS=${GPUSIM_ITERS:-"100 20 10"}
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
		for it in $GPUSIM_ITERS; do
			echo "== rep $rep, N = $n: gpusim apgd $it" >&2
			dir="$OUT/gpusim-$n-$it-$rep"
			rm -rf "$dir"
			"$OUT/gpusim" run settle --set "n=$n" --set "settings.max_iter=$it" --backend cpu --workers 1 --steps "$STEPS" --out "$dir" --quiet || exit 1
			python3 - "$dir/summary.json" "$rep" "$n" >>"$runs" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
print(json.dumps({"rep": int(sys.argv[2]), "engine": "gpusim", "solver": s["settings"]["solver"], "n": int(sys.argv[3]),
                  "iters": s["settings"]["max_iter"], "ms_median": 1000 * s["step_s_median"],
                  "max_pen_mm": 1000 * s["final"]["max_penetration_m"]}))
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
out = ["| engine / solver | N | ms/step (median of %d runs) | max overlap at the end (mm) | time / Bullet SI %s |" % (reps, rows[0]["iters"]),
       "| --- | ---: | ---: | ---: | ---: |"]
for n in sorted({r["n"] for r in rows}):
    keys = []
    for r in rows:
        k = (r["engine"], r["solver"], r["iters"])
        if r["n"] == n and k not in keys:
            keys.append(k)
    base = None
    for eng, solver, iters in keys:
        rs = [r for r in rows if r["n"] == n and (r["engine"], r["solver"], r["iters"]) == (eng, solver, iters)]
        med = statistics.median(r["ms_median"] for r in rs)
        pen = max(r["max_pen_mm"] for r in rs)
        if base is None:
            base = med  # the first Bullet row: BULLET_ITERS' first count
        name = "gpusim %s %d" % (solver, iters) if eng == "gpusim" else "Bullet 3.24 SI %d (float)" % iters
        out.append("| %s | %d | %.1f | %.3g | %.2f |" % (name, n, med, pen, med / base))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
