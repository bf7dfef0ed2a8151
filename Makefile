# gpusim: common tasks. `make test` is what CI runs.
GO      ?= go
SCENE   ?= settle
BIN     := bin/gpusim

# Go 1.26's experimental simd/archsimd package, for the CPU path's AVX-512
# loops (cpuref/simd.go: the same bits as the scalar loops, which every
# other build and processor runs). Only with Go 1.26, whose package the
# loops are written for; GOEXPERIMENT= (empty) builds without them.
GOEXPERIMENT ?= $(if $(filter go1.26%,$(shell $(GO) env GOVERSION)),simd,)
export GOEXPERIMENT

.PHONY: all build test test-short docs-check run bench gpu-bench gpu-ab gpu-lease-prep bench-peers lint fmt clean shaders check-shaders fuzz soak test-slurm test-k8s

all: build

build:
	$(GO) build -o $(BIN) ./cmd/gpusim

# The full test suite, including the validation scenes of the papers
# (rolling ball, fill); a few minutes on two cores.
test:
	$(GO) test -count=1 -timeout 60m ./...

# The figures of docs/ recomputed and compared with what the pages print
# (tests/docs_test.go): the cheap ones run in make test too; this adds the
# expensive ones (a few minutes).
docs-check:
	GPUSIM_DOCS_CHECK=all $(GO) test -count=1 -timeout 30m -run '^TestDocs' -v ./tests

# Unit tests only (skips the long validation scenes).
test-short:
	$(GO) test -short -count=1 ./...

# Run a built-in scene on the default backend: make run SCENE=rolling-ball
run: build
	./$(BIN) run $(SCENE)

# Go benchmarks of the kernels (the gpu ones skip without a Vulkan device).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./collide ./cpuref ./engine ./gpu

# The device benchmark (docs/bench-gpu.md): parity tests on the GPU, then
# gpusim bench at 100 000 and 1 000 000 spheres; on lavapipe at small size
# where no GPU is. Not part of make test or CI.
gpu-bench:
	bench/gpu-bench.sh

# Two gpusim binaries side by side on the Vulkan device, interleaved
# (bench/gpu-ab.sh): make gpu-ab A=path/to/gpusim B=path/to/gpusim
# [CASES=settle-1000,bed-1000000] [REPS=3]. Not part of make test.
gpu-ab:
	bench/gpu-ab.sh "$(A)" "$(B)" "$(CASES)" "$(REPS)"

# For a session lent a GPU (15 minutes of device time): packs .lease/ with
# prebuilt binaries (BASE=<commit> adds a baseline gpusim) and the Vulkan
# loader's packages, for one call of bench/gpu-lease.sh on that machine
# (docs/bench-gpu.md, "Measuring on a lent GPU").
gpu-lease-prep:
	bench/gpu-lease-prep.sh $(BASE)

# gpusim's CPU path beside Bullet 3.24 on the settle scene, one thread each,
# interleaved (bench/peers.sh; docs/bench.md). Builds the Bullet driver of
# ../shared/peers/bullet (Debian's libbullet-dev). Not part of make test.
bench-peers:
	bench/peers.sh

# Long runs outside the default tests: settle for 10 000 steps on each
# backend (GPUSIM_SOAK_STEPS to change), memory flat and results finite.
# About 8 minutes on the CPU path; on lavapipe hours (set
# GPUSIM_SOAK_STEPS=2000 there, or run on a real GPU).
soak:
	$(GO) test -tags soak -count=1 -timeout 6h -run '^TestSoak$$' -v ./tests

# The Slurm array of docs/slurm/sweep.sbatch on a one-node Slurm cluster
# started on this machine: runs, a cancelled task, resubmission, collect
# (tests/cluster/slurm-local.sh; needs root; about a minute; CI runs it).
test-slurm:
	tests/cluster/slurm-local.sh

# The Indexed Job of docs/k8s/sweep-job.yaml in the image of
# docs/docker/Dockerfile, without Docker or Kubernetes: a debootstrap of
# the runtime stage's Debian, its RUN lines in a chroot, pods as chrooted
# processes (tests/cluster/k8s-local.py; needs root and debootstrap; about a
# minute; CI runs it).
test-k8s:
	tests/cluster/k8s-local.py

# A short run of every fuzz target (FUZZTIME each; CI runs it). New
# failing inputs land in the package's testdata/fuzz/ and then run as
# regression cases in every `go test`. The budget is a count of inputs,
# not a duration: with a duration, Go 1.26's fuzzing coordinator can
# report "context deadline exceeded" as a failure when the time runs out
# while a worker is busy (golang/go#75804, fixed in Go 1.27), which failed
# a run here without any failing input. 300000 inputs take 3–10 s per
# target on two cores.
FUZZTIME ?= 300000x
# A hull takes ~0.7 ms to build (Quickhull with exact predicates), 10 to 100
# times a narrowphase call: FuzzHull runs a tenth of the executions.
FUZZTIME_HULL ?= 30000x
FUZZ_TARGETS := ./scene:FuzzParse ./fclib:FuzzReadMatrixMarket ./collide:FuzzNarrow ./checkpoint:FuzzCheckpoint \
	./shaders/internal/spirv:FuzzReflect ./geom:FuzzHull:$(FUZZTIME_HULL) ./geom:FuzzReadOBJ ./geom:FuzzReadSTL \
	./vtk:FuzzDecode
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; ft=$(FUZZTIME); \
		case $$rest in *:*) ft=$${rest#*:};; esac; \
		echo "fuzz $$pkg $$name ($$ft)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$ft $$pkg; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@# The pure-Go build (no cgo: gpu's stub, the CPU path alone) must
	@# build too: a cgo file without its build tag breaks it.
	CGO_ENABLED=0 $(GO) build ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin out

# Compile the GLSL kernels (shaders/*.comp, which #include the shared GLSL
# of shaders/lib/*.glsl) to the committed SPIR-V and regenerate
# shaders/zshaders.go (the reflection table) and shaders/zargs.go (each
# kernel's push-constant struct); needs glslc and spirv-val (apt-get install glslc
# spirv-tools). A plain go build never does.
GLSLC     ?= glslc
GLSLFLAGS := --target-env=vulkan1.1 -O

# A kernel that includes store.glsl is compiled a second time, with
# -DSTORE_F32, to NAME_f32.spv: the float32 storage of settings.precision
# "mixed" (shaders/lib/store.glsl).
shaders:
	@set -e; for f in shaders/*.comp; do \
		$(GLSLC) $(GLSLFLAGS) -I shaders/lib -o $${f%.comp}.spv $$f; \
		spirv-val --target-env vulkan1.1 $${f%.comp}.spv; \
		if grep -q '^#include "store.glsl"' $$f; then \
			$(GLSLC) $(GLSLFLAGS) -DSTORE_F32 -I shaders/lib -o $${f%.comp}_f32.spv $$f; \
			spirv-val --target-env vulkan1.1 $${f%.comp}_f32.spv; \
		fi; \
	done
	$(GO) run ./shaders/gen -dir shaders

# Recompile into a temporary folder and fail if the committed SPIR-V or
# the generated Go differ (the same glslc version gives the same bytes).
check-shaders:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	cp shaders/*.comp "$$tmp"/; mkdir "$$tmp"/lib; cp shaders/lib/*.glsl "$$tmp"/lib/; \
	for f in "$$tmp"/*.comp; do \
		$(GLSLC) $(GLSLFLAGS) -I "$$tmp"/lib -o "$${f%.comp}.spv" "$$f"; \
		spirv-val --target-env vulkan1.1 "$${f%.comp}.spv"; \
		if grep -q '^#include "store.glsl"' "$$f"; then \
			$(GLSLC) $(GLSLFLAGS) -DSTORE_F32 -I "$$tmp"/lib -o "$${f%.comp}_f32.spv" "$$f"; \
			spirv-val --target-env vulkan1.1 "$${f%.comp}_f32.spv"; \
		fi; \
	done; \
	$(GO) run ./shaders/gen -dir "$$tmp"; \
	stale=0; \
	for f in "$$tmp"/*.spv "$$tmp"/zshaders.go "$$tmp"/zargs.go; do \
		b=$$(basename "$$f"); \
		if ! cmp -s "$$f" "shaders/$$b"; then echo "shaders/$$b is stale: run make shaders"; stale=1; fi; \
	done; \
	for f in shaders/*.spv; do \
		if [ ! -f "$$tmp/$$(basename "$$f")" ]; then echo "$$f has no .comp source"; stale=1; fi; \
	done; \
	if [ $$stale = 0 ]; then echo "shaders up to date ($$($(GLSLC) --version | head -1))"; fi; \
	exit $$stale
