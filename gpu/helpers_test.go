//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// requireEnv names the variable that turns "no Vulkan device" from a skip
// into a failure: CI sets it on the machines that must have one (lavapipe),
// as crypto/internal/cryptotest does for implementations a builder must
// have.
const requireEnv = "GPUSIM_REQUIRE_VULKAN"

// shared devices, opened on first use and closed by TestMain: opening one
// (with validation) costs more than most tests.
var shared struct {
	mu      sync.Mutex
	devices map[bool]*Device // by Options.forceStaging
	errs    map[bool]error
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range shared.devices {
		if err := d.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close:", err)
			code = 1
		}
		for _, msg := range d.ValidationMessages() {
			fmt.Fprintln(os.Stderr, "validation:", msg)
			code = 1
		}
	}
	os.Exit(code)
}

// openDevice opens a device with the validation layer unless
// GPUSIM_VALIDATION=0 or the layer is not installed.
func openDevice(opt Options) (*Device, error) {
	opt.Validation = os.Getenv("GPUSIM_VALIDATION") != "0"
	d, err := Open(opt)
	if errors.Is(err, errNoValidation) {
		opt.Validation = false
		d, err = Open(opt)
	}
	return d, err
}

// skipOrFail skips the test when err says there is no usable device, unless
// GPUSIM_REQUIRE_VULKAN=1; any other error fails it.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoDevice) && os.Getenv(requireEnv) != "1" {
		t.Skipf("no Vulkan device (%v); set %s=1 to make this a failure", err, requireEnv)
	}
	t.Fatal(err)
}

// requireDevice returns the shared test device (unified memory where the
// device has it), or skips / fails as skipOrFail says. Validation messages
// that appear during the test fail it.
func requireDevice(t testing.TB) *Device {
	t.Helper()
	return requireShared(t, false)
}

// requireStagingDevice is requireDevice with device-local buffers and
// staging copies even on unified memory: the discrete-GPU path.
func requireStagingDevice(t testing.TB) *Device {
	t.Helper()
	return requireShared(t, true)
}

func requireShared(t testing.TB, staging bool) *Device {
	t.Helper()
	shared.mu.Lock()
	if shared.devices == nil {
		shared.devices, shared.errs = map[bool]*Device{}, map[bool]error{}
	}
	d, ok := shared.devices[staging]
	err := shared.errs[staging]
	if !ok && err == nil {
		d, err = openDevice(Options{forceStaging: staging})
		if err == nil {
			shared.devices[staging] = d
		}
		shared.errs[staging] = err
	}
	shared.mu.Unlock()
	if err != nil {
		skipOrFail(t, err)
	}
	d.ValidationMessages() // drop what earlier tests left
	t.Cleanup(func() { checkValidation(t, d) })
	return d
}

// openFresh opens a device of the test's own, closed at cleanup.
func openFresh(t testing.TB, opt Options) *Device {
	t.Helper()
	d, err := openDevice(opt)
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
		checkValidation(t, d)
	})
	return d
}

func checkValidation(t testing.TB, d *Device) {
	t.Helper()
	for _, m := range d.ValidationMessages() {
		t.Errorf("validation: %s", m)
	}
}

// newLinAlg returns a LinAlg on d whose sticky error fails the test.
func newLinAlg(t testing.TB, d *Device) *LinAlg {
	t.Helper()
	l, err := NewLinAlg(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("LinAlg: %v", err)
		}
	})
	return l
}

// wantPanic runs f and fails the test (as name) unless f panics with a
// string that contains want.
// liveBuffers counts the device's buffers other than the batches'
// arguments buffers (args.go), which stay with their kept command buffers.
func liveBuffers(d *Device) int {
	n := 0
	for b := range d.buffers {
		if !b.args {
			n++
		}
	}
	return n
}

func wantPanic(t *testing.T, name, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Errorf("%s: recovered %v, want a panic with %q", name, r, want)
		}
	}()
	f()
}
