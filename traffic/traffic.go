// Package traffic holds the memory-traffic models of the solvers'
// iterations: for each pass over the contacts or the bodies (a device
// kernel, a CPU loop), the bytes it reads and writes per contact and per
// body. The models are counts from the code, not measurements; the
// backends define them (gpu.APGDTraffic, cpuref.APGDTraffic) and gpusim
// bench prints them beside the times, with the rate they imply.
package traffic

import (
	"fmt"
	"io"
)

// Sizes the models count in: a contact's three float64 of a vector, a
// float64, a uint32.
const (
	Vec3 = 24
	F64  = 8
	U32  = 4
)

// Access is one array's traffic in a pass: bytes per contact and per
// body, read or written.
type Access struct {
	Binding    uint32 // the kernel's binding (device passes; 0 on the CPU)
	Name       string // what the array holds
	PerContact float64
	PerBody    float64
	Write      bool
}

// Read and Write make Accesses.
func Read(binding uint32, name string, perContact, perBody float64) Access {
	return Access{Binding: binding, Name: name, PerContact: perContact, PerBody: perBody}
}

func Write(binding uint32, name string, perContact, perBody float64) Access {
	return Access{Binding: binding, Name: name, PerContact: perContact, PerBody: perBody, Write: true}
}

// Pass is the traffic of one pass of an iteration: a kernel's dispatch
// on the device, a loop over the contacts or bodies on the CPU.
type Pass struct {
	Name     string // the shaders module or the Go function
	Role     string
	Accesses []Access
}

// PerContact returns the pass's bytes per contact at bodiesPerContact
// bodies per contact (its per-body traffic spread over the contacts).
func (p Pass) PerContact(bodiesPerContact float64) float64 {
	s := 0.0
	for _, a := range p.Accesses {
		s += a.PerContact + a.PerBody*bodiesPerContact
	}
	return s
}

// PerBody returns the pass's per-body bytes at bodiesPerContact, spread
// over the contacts (the part of PerContact that comes from bodies).
func (p Pass) PerBody(bodiesPerContact float64) float64 {
	s := 0.0
	for _, a := range p.Accesses {
		s += a.PerBody * bodiesPerContact
	}
	return s
}

// PerContactIteration is the passes' bytes per contact and iteration at
// bodiesPerContact bodies per contact.
func PerContactIteration(passes []Pass, bodiesPerContact float64) float64 {
	s := 0.0
	for _, p := range passes {
		s += p.PerContact(bodiesPerContact)
	}
	return s
}

// WriteTable writes the passes as a Markdown table, headed by what a
// pass is (kernel, loop), with their total; it returns the total.
func WriteTable(w io.Writer, what string, passes []Pass, bodiesPerContact float64) (float64, error) {
	if _, err := fmt.Fprintf(w, "| %s | what | bytes / contact | of which per body (× %.3g bodies / contact) |\n| --- | --- | ---: | ---: |\n", what, bodiesPerContact); err != nil {
		return 0, err
	}
	total := 0.0
	for _, p := range passes {
		c := p.PerContact(bodiesPerContact)
		total += c
		fmt.Fprintf(w, "| %s | %s | %.0f | %.0f |\n", p.Name, p.Role, c, p.PerBody(bodiesPerContact))
	}
	_, err := fmt.Fprintf(w, "| **total** | one iteration | **%.0f** | |\n\n", total)
	return total, err
}
