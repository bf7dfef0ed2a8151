# gpusim: common tasks. `make test` is what CI runs.
GO      ?= go
SCENE   ?= settle
BIN     := bin/gpusim

.PHONY: all build test test-short run bench lint fmt clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/gpusim

# The full test suite, including the validation scenes of the papers
# (rolling ball, fill); a few minutes on two cores.
test:
	$(GO) test -count=1 -timeout 60m ./...

# Unit tests only (skips the long validation scenes).
test-short:
	$(GO) test -short -count=1 ./...

# Run a built-in scene on the default backend: make run SCENE=rolling-ball
run: build
	./$(BIN) run $(SCENE)

# Go benchmarks of the kernels.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./cpuref ./engine

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin out
