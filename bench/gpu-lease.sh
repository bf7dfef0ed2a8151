#!/bin/bash
# gpu-lease: the device benchmark sized for one call of a lent GPU machine
# (15 minutes of device time a session, the machine's start included), run
# from the repository's root there with .lease/ carried
# (bench/gpu-lease-prep.sh made it here):
#
#   bench/gpu-lease.sh            (LEASE_S=360 LEASE_PARTS="tests large ab")
#
# It unpacks the Vulkan loader where the machine has none, then runs, in
# this order and each only while LEASE_S seconds (default 360) from its
# start are not spent:
#   tests  the parity and conformance tests of make gpu-bench (about 100 s
#          on the H100, pipelines compiled from scratch);
#   large  gpusim bench on the beds of 100 000 and 1 000 000 spheres, float64
#          and mixed precision (make gpu-bench's large part);
#   ab     the tree's gpusim beside base-gpusim (gpu-lease-prep's BASE) on
#          the same beds, interleaved, one run each (bench/gpu-ab.sh).
# Each part's results are copied to OUT (the device tool's $OUT; else
# out/gpu-lease) as soon as it ends, at most 8 files in one folder (what
# the tool brings back): lease.log, devices.txt, tests.log, large.md,
# large.json, ab.md, traffic.md. A part that would start with less than
# its usual time left is skipped and says so. Not part of make test or CI.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LEASE_S=${LEASE_S:-360}
LEASE_PARTS=${LEASE_PARTS:-tests large ab}
OUT=${OUT:-$ROOT/out/gpu-lease}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/lease.log
start=$(date +%s)
say() { echo "gpu-lease [$(($(date +%s) - start)) s]: $*" | tee -a "$LOG" >&2; }
left() { echo $((LEASE_S - ($(date +%s) - start))); }
: >"$LOG"

W=$(mktemp -d /tmp/gpu-lease.XXXXXX)
for b in gpusim gpu.test base-gpusim; do
	if [ -f ".lease/$b.gz" ]; then
		gunzip -c ".lease/$b.gz" >"$W/$b" && chmod +x "$W/$b"
	fi
done
if [ ! -x "$W/gpusim" ] || [ ! -x "$W/gpu.test" ]; then
	say ".lease/gpusim.gz or .lease/gpu.test.gz is missing: run bench/gpu-lease-prep.sh here first, and carry .lease"
	exit 2
fi
say "tree $(cat .lease/commit 2>/dev/null || echo '?'), base $(cat .lease/base-commit 2>/dev/null || echo none)"

# The loader: Debian's libvulkan1 and libglvnd, unpacked into / (the
# device tool's README: other packages elsewhere).
if ! ldconfig -p | grep -q 'libvulkan\.so\.1'; then
	if ls .lease/gl/*.deb >/dev/null 2>&1; then
		for f in .lease/gl/*.deb; do dpkg -x "$f" /; done
		ldconfig
		say "unpacked the Vulkan loader and libglvnd from .lease/gl"
	else
		say "no Vulkan loader here and none in .lease/gl"
	fi
fi
gpu() { "$W/gpusim" devices 2>/dev/null | grep -E '^ +type +' | grep -vq 'CPU'; }
if ! gpu && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
	export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
	export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
	say "set VK_DRIVER_FILES to NVIDIA's manifest"
fi
{
	"$W/gpusim" devices 2>&1
	command -v nvidia-smi >/dev/null && nvidia-smi 2>&1
	echo "cores: $(nproc)"
} >"$OUT/devices.txt"
if gpu; then
	say "a Vulkan GPU: $(grep -m1 -E '^ *name' "$OUT/devices.txt" | sed 's/^ *//')"
else
	say "no Vulkan GPU: the parts run at lavapipe's small sizes (make gpu-bench's fallback)"
fi

part() { case " $LEASE_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# fits NAME SECONDS: whether a part that takes about SECONDS may start.
fits() {
	if [ "$(left)" -lt "$2" ]; then
		say "skipped $1: $(left) s left of LEASE_S=$LEASE_S, it takes about $2 s"
		return 1
	fi
}
rc=0
export GPUSIM=$W/gpusim GPU_TEST=$W/gpu.test
if part tests && fits tests 120; then
	say "tests"
	PARTS=tests OUT=$W/gb timeout "$(left)" bench/gpu-bench.sh 2>>"$LOG" || rc=1
	cp "$W/gb/tests.log" "$OUT/tests.log" 2>/dev/null
	cp "$W/gb/traffic.md" "$OUT/traffic.md" 2>/dev/null
	say "tests: $(grep -c '^--- PASS' "$OUT/tests.log" 2>/dev/null) passed, $(grep -c '^--- FAIL' "$OUT/tests.log" 2>/dev/null) failed"
fi
if part large && fits large 90; then
	say "large"
	PARTS=large OUT=$W/gb timeout "$(left)" bench/gpu-bench.sh 2>>"$LOG" || rc=1
	cp "$W/gb/large/bench.md" "$OUT/large.md" 2>/dev/null
	cp "$W/gb/large/bench.json" "$OUT/large.json" 2>/dev/null
	cp "$W/gb/traffic.md" "$OUT/traffic.md" 2>/dev/null
fi
if part ab; then
	if [ ! -x "$W/base-gpusim" ]; then
		say "skipped ab: no .lease/base-gpusim.gz (gpu-lease-prep.sh BASE)"
	elif fits ab 90; then
		cases=bed-100000,bed-1000000
		gpu || cases=settle-64,bed-2000
		say "ab on $cases"
		OUT=$W/ab timeout "$(left)" bench/gpu-ab.sh "$W/base-gpusim" "$W/gpusim" "$cases" 1 >"$OUT/ab.md" 2>>"$LOG" || rc=1
	fi
fi
say "done, rc=$rc; files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
exit $rc
