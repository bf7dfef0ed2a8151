// Package tests holds gpusim's validation suite: the experiments of the
// papers (rolling ball, the fill test) and invariants (momentum), run on
// every backend available on the machine.
package tests
