#!/usr/bin/env bash
# Runs a gpusim sweep as a Slurm job array from docs/slurm/sweep.sbatch, on a
# one-node Slurm cluster that this script starts on this machine (Debian's
# slurm-wlm and munge), and checks what docs/sweeps.md promises:
#
#   1. the array runs every run of the sweep, each task its own run, with
#      the script's #SBATCH lines as written (--gres=gpu:1 per task: the node
#      declares two GPUs, backed by stand-in device files, so that Slurm sets
#      CUDA_VISIBLE_DEVICES as it does on a GPU node);
#   2. a task cancelled mid-run (as a preemption or a node failure would)
#      leaves its run incomplete, and resubmitting the whole array reruns
#      only that run, while the other tasks exit at once;
#   3. collect, chained with --dependency=afterany as the docs show, makes
#      the table (every run done) and the plot.
#
# Needs root (it starts slurmctld, slurmd and, unless one runs, munged, and
# makes two device nodes) and takes under a minute. It stops what it started.
# Usage:
#
#   sudo tests/cluster/slurm-local.sh [SPEC]      # default examples/sweeps/pressure-friction.json
#
# Set KEEP=1 to keep the work folder (printed at the start).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
spec_src=${1:-examples/sweeps/pressure-friction.json}
export PATH="$PATH:/usr/local/go/bin:/usr/sbin"

fail() {
	echo "slurm-local: FAIL: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (it starts the Slurm and munge daemons)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	echo "slurm-local: installing slurm-wlm and munge"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/gpusim-slurm.XXXXXX)
echo "slurm-local: work folder $work"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "${KEEP:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT

go build -o "$work/bin/gpusim" ./cmd/gpusim
host=$(hostname -s)
mkdir -p "$work"/{state,spool,log,dev,shared}
# Two stand-in GPUs: Slurm's gres/gpu wants character devices to hand out;
# these are /dev/null's numbers, and nothing opens them.
mknod "$work/dev/gpu0" c 1 3
mknod "$work/dev/gpu1" c 1 3
cat >"$work/slurm.conf" <<EOF
ClusterName=gpusimtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=16917
SlurmdPort=16918
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# The node claims more CPUs and memory than it has, so that the script's
# #SBATCH --cpus-per-task=4 --mem=8G fit two tasks at once.
SlurmdParameters=config_overrides
ReturnToService=2
GresTypes=gpu
MpiDefault=none
SchedulerParameters=sched_interval=1
NodeName=$host CPUs=8 RealMemory=20000 Gres=gpu:2 State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=$host Name=gpu File=$work/dev/gpu[0-1]" >"$work/gres.conf"
export SLURM_CONF=$work/slurm.conf

# munge: one daemon serves the machine; start it if none answers.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	mkdir -p /run/munge
	[ -s /etc/munge/munge.key ] || (command -v mungekey >/dev/null && mungekey --create) || fail "no /etc/munge/munge.key"
	munged --force --pid-file="$work/munged.pid" 2>/dev/null
	sleep 1
	munge -n | unmunge >/dev/null || fail "munged does not answer"
	pids+=("$(cat "$work/munged.pid")")
fi
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
	if sinfo -h -o %t 2>/dev/null | grep -q idle; then break; fi
	sleep 1
done
sinfo -h -o %t | grep -q idle || { tail -20 "$work/log/"*; fail "the node did not come up"; }

gpusim=$work/bin/gpusim
shared=$work/shared
cp "$spec_src" "$shared/spec.json"
out=$shared/sweep
runs=$("$gpusim" sweep "$shared/spec.json" --out "$out" --list | wc -l)
echo "slurm-local: $runs runs"

# wait_job JOB: until no task of JOB is pending or running.
wait_job() {
	for _ in $(seq 600); do
		if [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; then return 0; fi
		sleep 1
	done
	fail "job $1 did not finish in 10 minutes"
}

# 1. The array, 2 tasks at a time, as docs/sweeps.md submits it.
job=$(sbatch --parsable --chdir="$shared" --array=0-$((runs - 1))%2 \
	--export=ALL,SHARED="$shared",SPEC="$shared/spec.json",GPUSIM="$gpusim" "$repo/docs/slurm/sweep.sbatch")
echo "slurm-local: submitted array job $job"

# 2. Cancel the last task once its run has steps on disk.
victim=$((runs - 1))
victim_dir=$out/runs/$(printf %04d "$victim")
for _ in $(seq 300); do
	if [ -s "$victim_dir/stats.csv" ] && [ "$(wc -l <"$victim_dir/stats.csv")" -gt 5 ]; then break; fi
	sleep 0.2
done
[ -s "$victim_dir/stats.csv" ] || fail "task $victim never started its run"
scancel "${job}_${victim}"
echo "slurm-local: cancelled task $victim mid-run"
wait_job "$job"

for i in $(seq 0 $((runs - 1))); do
	d=$out/runs/$(printf %04d "$i")
	if [ "$i" = "$victim" ]; then
		[ ! -e "$d/DONE" ] || fail "cancelled run $i has a DONE marker"
	else
		[ -s "$d/DONE" ] || fail "run $i has no DONE marker after the array: $(cat "$shared/gpusim-sweep-${job}_$i.out" 2>/dev/null)"
	fi
done
# Each task saw the GPU Slurm gave it, and gpusim said what it made of it.
grep -q "GPU [01]" "$shared/gpusim-sweep-${job}_0.out" || fail "task 0 got no GPU: $(cat "$shared/gpusim-sweep-${job}_0.out")"
grep -q "CUDA_VISIBLE_DEVICES" "$shared/gpusim-sweep-${job}_0.out" || fail "gpusim did not report CUDA_VISIBLE_DEVICES: $(cat "$shared/gpusim-sweep-${job}_0.out")"
grep -q ", 4 CPUs" "$shared/gpusim-sweep-${job}_0.out" || fail "task 0 did not take its 4 CPUs (--cpus-per-task) as GOMAXPROCS: $(cat "$shared/gpusim-sweep-${job}_0.out")"
echo "slurm-local: array done: $((runs - 1)) runs complete, run $victim incomplete"

# 3. Resubmit the whole array, then collect once it is over.
job2=$(sbatch --parsable --chdir="$shared" --array=0-$((runs - 1))%2 \
	--export=ALL,SHARED="$shared",SPEC="$shared/spec.json",GPUSIM="$gpusim" "$repo/docs/slurm/sweep.sbatch")
job3=$(sbatch --parsable --chdir="$shared" --dependency=afterany:"$job2" --output="$shared/collect.out" \
	--wrap "$gpusim collect $out --x mu --y fixed_force_z_N")
echo "slurm-local: resubmitted as job $job2, collect as job $job3"
wait_job "$job2"
wait_job "$job3"

started=0
for i in $(seq 0 $((runs - 1))); do
	log=$shared/gpusim-sweep-${job2}_$i.out
	[ -s "$out/runs/$(printf %04d "$i")/DONE" ] || fail "run $i not complete after the resubmission: $(cat "$log")"
	if grep -q "run started" "$log"; then
		started=$((started + 1))
		[ "$i" = "$victim" ] || fail "resubmitted task $i ran its complete run again: $(cat "$log")"
	else
		grep -q "skipped_complete=1" "$log" || fail "resubmitted task $i neither ran nor skipped: $(cat "$log")"
	fi
done
[ "$started" = 1 ] || fail "$started runs ran again, want 1"

csv=$out/collect.csv
[ -s "$csv" ] || fail "no collect.csv: $(cat "$shared/collect.out")"
rows=$(($(wc -l <"$csv") - 1))
done_rows=$(grep -c ',done,' "$csv" || true)
[ "$rows" = "$runs" ] && [ "$done_rows" = "$runs" ] || fail "collect.csv has $rows rows, $done_rows done; want $runs: $(cat "$csv")"
[ -s "$out/collect-fixed_force_z_N-vs-mu.png" ] || fail "no plot: $(cat "$shared/collect.out")"
echo "slurm-local: collect: $rows rows, all done; plot written"
cat "$csv"
echo "slurm-local: PASS"
