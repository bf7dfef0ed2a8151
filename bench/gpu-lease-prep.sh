#!/bin/bash
# gpu-lease-prep: packs what bench/gpu-lease.sh needs on a lent GPU machine
# that has neither Go nor a Vulkan loader, into .lease/ (which
# .git/info/exclude ignores, and which the device tool carries):
#
#   bench/gpu-lease-prep.sh [BASE]     (make gpu-lease-prep BASE=<commit>)
#
# - gpusim.gz and gpu.test.gz: this tree's gpusim and the gpu package's
#   test binary, built here (stripped, gzipped: the tree and what it carries
#   travel in 64 MiB);
# - base-gpusim.gz: gpusim built from the commit BASE (a git worktree of it
#   in /tmp), for gpu-lease.sh's side-by-side run; none without BASE;
# - gl/*.deb: Debian's Vulkan loader and the libglvnd libraries that
#   NVIDIA's Vulkan driver needs (the H100 and H200 machines lent so far had
#   neither; docs/bench-gpu.md), downloaded with apt-get for amd64.
#
# Then, in one call of the device tool: command
# "bench/gpu-lease.sh", carry [".lease"], timeout_s 480 or so
# (docs/bench-gpu.md, "Measuring on a lent GPU").
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
grep -qxF '/.lease/' .git/info/exclude 2>/dev/null || echo '/.lease/' >>.git/info/exclude
rm -rf .lease
mkdir -p .lease/gl
build() { # build DIR OUT: DIR's gpusim, stripped and gzipped, into OUT
	(cd "$1" && go build -buildvcs=true -trimpath -ldflags='-s -w' -o "$2/gpusim" ./cmd/gpusim)
	gzip -9f "$2/gpusim"
}
build "$ROOT" "$ROOT/.lease"
go test -c -trimpath -ldflags='-s -w' -o .lease/gpu.test ./gpu
gzip -9f .lease/gpu.test
if [ -n "${1:-}" ]; then
	wt=$(mktemp -d /tmp/gpu-lease-base.XXXXXX)
	git worktree add -q --detach "$wt" "$1"
	mkdir -p "$wt/.out"
	build "$wt" "$wt/.out"
	mv "$wt/.out/gpusim.gz" .lease/base-gpusim.gz
	git rev-parse "$1" >.lease/base-commit
	git worktree remove --force "$wt"
fi
git rev-parse HEAD >.lease/commit
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/gpu-lease-apt'
mkdir -p /tmp/gpu-lease-apt/partial
# shellcheck disable=SC2086
apt-get $o update -qq
# shellcheck disable=SC2086
(cd .lease/gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
du -sh .lease
echo "gpu-lease-prep: .lease/ holds $(ls .lease | tr '\n' ' ')(tree $(git rev-parse --short HEAD)${1:+, base $(git rev-parse --short "$1")})" >&2
