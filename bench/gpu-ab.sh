#!/bin/bash
# gpu-ab: two gpusim binaries side by side on the same device, interleaved
# (A, B, A, B, …), for a change whose speed only a GPU can show (see
# docs/bench-gpu.md, "Fewer bytes were not faster"):
#
#   bench/gpu-ab.sh A B [CASES] [REPS]
#
# A and B are gpusim binaries (build each tree with go build ./cmd/gpusim);
# CASES are gpusim bench cases (default settle-1000,scale-64000,bed-1000000
# on a GPU, settle-64,bed-2000 on lavapipe), REPS the runs of each binary
# (default 3). Every run is `gpusim bench --backends vulkan --cases CASES`;
# the tables go to OUT (default out/gpu-ab)/A-i and /B-i. It prints, per
# case, each run's median step and solve (ms) and B's median over A's, the
# medians taken over the runs. Not part of make test or CI.
set -u
if [ $# -lt 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
	echo "usage: bench/gpu-ab.sh A B [CASES] [REPS] (make gpu-ab A=… B=…): A and B name gpusim binaries" >&2
	exit 2
fi
A=$1 B=$2
for g in "$A" "$B"; do
	if [ ! -x "$g" ]; then
		echo "gpu-ab: $g is not an executable gpusim" >&2
		exit 2
	fi
done
REPS=${4:-3}
[ -z "$REPS" ] && REPS=3
case $REPS in '' | *[!0-9]* | 0)
	echo "gpu-ab: REPS must be a positive integer, got $REPS" >&2
	exit 2
	;;
esac
if [ -n "${3:-}" ]; then
	CASES=$3
elif "$A" devices 2>/dev/null | grep -E '^ +type +' | grep -vq 'CPU'; then
	CASES=settle-1000,scale-64000,bed-1000000
else
	echo "gpu-ab: no Vulkan GPU here: small cases on lavapipe (its times say nothing of a GPU's)" >&2
	CASES=settle-64,bed-2000
fi
OUT=${OUT:-out/gpu-ab}
mkdir -p "$OUT" || exit 1
rc=0
for i in $(seq 1 "$REPS"); do
	for v in A B; do
		g=$A
		[ $v = B ] && g=$B
		echo "== run $i of $v: $g" >&2
		"$g" bench --backends vulkan --cases "$CASES" --out "$OUT/$v-$i" >"$OUT/$v-$i.log" 2>&1 ||
			{ rc=1; echo "gpu-ab: $g failed: $OUT/$v-$i.log" >&2; }
	done
done
python3 - "$OUT" "$REPS" <<'PY' || rc=1
import json, os, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
runs = {"A": [], "B": []}
for v in runs:
    for i in range(1, reps + 1):
        p = os.path.join(out, f"{v}-{i}", "bench.json")
        if os.path.exists(p):
            with open(p) as f:
                runs[v].append({r["case"]: r for r in json.load(f)["results"]})
cases = sorted({c for v in runs for r in runs[v] for c in r})
print("| case | phase | A runs (ms) | B runs (ms) | B / A (medians) |")
print("| --- | --- | --- | --- | ---: |")
for c in cases:
    for ph in ("step", "solve"):
        xs = {v: [1e3 * r[c][ph]["median_s"] for r in runs[v] if c in r] for v in runs}
        fmt = lambda l: ", ".join(f"{x:.3g}" for x in l) or "–"
        ratio = statistics.median(xs["B"]) / statistics.median(xs["A"]) if xs["A"] and xs["B"] else float("nan")
        print(f"| {c} | {ph} | {fmt(xs['A'])} | {fmt(xs['B'])} | {ratio:.3f} |")
PY
exit $rc
