#!/bin/bash
# gpu-bench: the device benchmark of docs/bench-gpu.md (make gpu-bench).
#
# On a machine with a Vulkan GPU: the parity and conformance tests of the
# gpu package on it, then gpusim bench on the small cases beside the CPU
# path, on beds of 100 000 and 1 000 000 spheres (bench.Bed: a settled
# lattice, 100 apgd iterations, 2 warm-up steps and 5 measured; each in
# float64 and with settings.precision "mixed", side by side), and on
# the mechanism scenes (bench.Mechanism: 5 warm-up steps and 20 measured
# from the scene's start) beside the CPU path and at the papers' sizes.
# Without one it says so and runs the same at small size on lavapipe.
# PARTS (default "tests small large mech host") picks the sections; host
# runs settle at n = 1000 on both backends with apgd and gs (what a step
# reads back, the coloured sweep's time), and the traffic model is
# printed in every case.
#
# Not part of make test or CI. Prebuilt binaries can stand in for go (a
# GPU machine without a Go toolchain): GPUSIM=path/to/gpusim and
# GPU_TEST=path/to/gpu.test (go test -c ./gpu). Output: OUT (default
# out/gpu-bench)/small and /large, bench.md and bench.json each, and
# tests.log, and /mech and /paper.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${OUT:-out/gpu-bench}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -z "${GPUSIM:-}" ]; then
	go build -o bin/gpusim ./cmd/gpusim || exit 1
	GPUSIM=$(pwd)/bin/gpusim
fi
if [ -z "${GPU_TEST:-}" ]; then
	go test -c -o bin/gpu.test ./gpu || exit 1
	GPU_TEST=$(pwd)/bin/gpu.test
fi
GPUSIM=$(cd "$(dirname "$GPUSIM")" && pwd)/$(basename "$GPUSIM")
GPU_TEST=$(cd "$(dirname "$GPU_TEST")" && pwd)/$(basename "$GPU_TEST")

# A device that is not a CPU (lavapipe is "type CPU").
if "$GPUSIM" devices 2>/dev/null | grep -E '^ +type +' | grep -vq 'CPU'; then
	gpu=1
	small=settle-1000,scale-8000,scale-64000,ellipsoids
	large=bed-100000,bed-1000000
	mech=chain-1000,shear-2000,shaker-2000,mixer-3000,flow-gap-300
	paper=mixer-100000,flow-gap-39000,shear-100000
else
	gpu=0
	echo "gpu-bench: no Vulkan GPU here (only a CPU device, or none): running at small size on lavapipe" >&2
	small=settle-64,ellipsoids-27
	large=bed-2000
	mech=chain-50,shear-60,shaker-60,mixer-40,flow-gap-60
	paper=
fi
PARTS=${PARTS:-tests small large mech host}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
rc=0
if part tests; then
echo "== parity and conformance tests" >&2
(cd gpu && GPUSIM_REQUIRE_VULKAN=1 "$GPU_TEST" -test.v -test.timeout 20m \
	-test.run 'TestNarrowRowsBuild|TestCollideMatchesCPU|TestCollideNarrow|TestKernelCollideScan|TestSolversMatchCPU|TestEngineConformance|TestDeviceAPGD$|TestDeviceAPGDMixed|TestSceneStepMixed|TestMemoryLimit|TestJointsMatchCPU|TestCollideDeviceExcluded|TestKinematicSceneStep|TestCompoundSceneStep|TestKernelColours|TestCheckStateMatchesHost|TestKeepState|TestReuseVecReleasesReplaced|TestDeviceGS|TestBufferGrow|TestCollideDeviceSubmits|TestDevicePCG|TestCachedBatch|TestStepsReuseCommandBuffers|TestChangingContactsReuseCommandBuffers|TestCollideDeviceWindows') \
	>"$OUT/tests.log" 2>&1 || { rc=1; echo "gpu-bench: tests failed: $OUT/tests.log" >&2; }
grep -E '^(--- |ok|FAIL)' "$OUT/tests.log" | grep -v '^    ' >&2
fi
cd /tmp || exit 1
if part small; then
	echo "== bench, small cases, beside the CPU path" >&2
	"$GPUSIM" bench --backends vulkan,cpu --cases "$small" --out "$OUT/small" || rc=1
fi
if part large; then
	echo "== bench, large beds" >&2
	"$GPUSIM" bench --backends vulkan --cases "$large" --precision double,mixed --out "$OUT/large" || rc=1
fi
if part mech; then
	echo "== bench, mechanism scenes, beside the CPU path" >&2
	"$GPUSIM" bench --backends vulkan,cpu --cases "$mech" --out "$OUT/mech" || rc=1
	if [ -n "$paper" ]; then
		echo "== bench, mechanism scenes at the papers' sizes" >&2
		"$GPUSIM" bench --backends vulkan --cases "$paper" --out "$OUT/paper" || rc=1
	fi
fi
if part host; then
	# What a run reads back from the device per step (the guard's 12 bytes,
	# the collision counts, the solver's scalars), and a gs run's time with
	# the coloured sweep, beside the CPU path.
	echo "== host traffic and the coloured gs" >&2
	for be in vulkan cpu; do
		"$GPUSIM" run settle --set n=1000 --backend $be --steps 20 --out "$OUT/host-$be" --overwrite --quiet || rc=1
		"$GPUSIM" run settle --set n=1000 --set settings.solver=gs --backend $be --steps 20 --out "$OUT/gs-$be" --overwrite --quiet || rc=1
	done
	# The same run recording every submit (no kept command buffers,
	# gpu/cmdcache.go): what reusing them saves.
	GPUSIM_COMMAND_CACHE=0 "$GPUSIM" run settle --set n=1000 --backend vulkan --steps 20 --out "$OUT/host-vulkan-recorded" --overwrite --quiet || rc=1
	# The host time of recording them, and the step, with and without.
	(cd "$ROOT/gpu" && "$GPU_TEST" -test.run '^$' -test.bench 'StepRecording' -test.benchtime 3x) >"$OUT/recording.log" 2>&1 || rc=1
	grep -E '^Benchmark' "$OUT/recording.log" >&2
	grep -H -E '"(step_read_back_bytes|step_s_median|iterations_mean)"' "$OUT"/host-vulkan/summary.json "$OUT"/host-vulkan-recorded/summary.json "$OUT"/gs-*/summary.json >&2
fi
"$GPUSIM" bench --traffic >"$OUT/traffic.md" || rc=1
echo "gpu-bench: gpu=$gpu; tables in $OUT/{small,large,mech,paper}/bench.md, the traffic model in $OUT/traffic.md, runs in $OUT/{host,gs}-* (host-vulkan-recorded: without kept command buffers) and $OUT/recording.log" >&2
exit $rc
