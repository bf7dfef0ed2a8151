#!/bin/bash
# bench-peers: gpusim's CPU path and Bullet 3.24 on the settle scene of
# ../shared/bench/settle.md, side by side (make bench-peers; issue 21).
#
# Builds the Bullet driver of ../shared/peers/bullet with its build.sh
# against Debian's libbullet-dev (installed with apt-get when missing and
# this runs as root) and gpusim, then runs, for each N of NS (default
# "1000 8000") and REPS times (default 3), interleaved: Bullet's default
# float build with its sequential-impulse solver at 50 iterations, and
# gpusim's CPU path with apgd at 100 iterations (the scene's settings) on
# one worker, both 200 steps of h = 0.01 s from settle.md's lattice, one
# thread each. Prints a table: median ms per step over the reps' medians,
# the maximum overlap at the end (mm), and gpusim / Bullet per N. Never
# part of make test or CI's pass/fail: a comparison, not a check.
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
		echo "== rep $rep, N = $n: bullet" >&2
		"$OUT/settle_bullet" "$n" 50 --steps "$STEPS" | sed "s/^{/{\"rep\":$rep,/" >>"$runs" || exit 1
		echo "== rep $rep, N = $n: gpusim" >&2
		dir="$OUT/gpusim-$n-$rep"
		rm -rf "$dir"
		"$OUT/gpusim" run settle --set "n=$n" --backend cpu --workers 1 --steps "$STEPS" --out "$dir" --quiet || exit 1
		python3 - "$dir/summary.json" "$rep" "$n" >>"$runs" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
print(json.dumps({"rep": int(sys.argv[2]), "engine": "gpusim", "solver": s["settings"]["solver"], "n": int(sys.argv[3]),
                  "iters": s["settings"]["max_iter"], "ms_median": 1000 * s["step_s_median"],
                  "max_pen_mm": 1000 * s["final"]["max_penetration_m"]}))
PY
	done
done
python3 - "$runs" "$OUT/table.md" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
out = ["| engine / solver | N | ms/step (median of %d runs) | max overlap at the end (mm) | gpusim / Bullet |" % max(r["rep"] for r in rows),
       "| --- | ---: | ---: | ---: | ---: |"]
for n in sorted({r["n"] for r in rows}):
    med = {}
    for eng in ("bullet-f32", "gpusim"):
        rs = [r for r in rows if r["n"] == n and r["engine"] == eng]
        med[eng] = statistics.median(r["ms_median"] for r in rs)
        pen = max(r["max_pen_mm"] for r in rs)
        name = "Bullet 3.24 SI %d (float)" % rs[0]["iters"] if eng != "gpusim" else "gpusim %s %d" % (rs[0]["solver"], rs[0]["iters"])
        ratio = "%.2f" % (med["gpusim"] / med["bullet-f32"]) if eng == "gpusim" else ""
        out.append("| %s | %d | %.1f | %.3g | %s |" % (name, n, med[eng], pen, ratio))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
