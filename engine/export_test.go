package engine

// PaperStep makes a run Algorithm 1's step-size rule as the APGD paper
// lists it (APGD.paperStep), for engine_test's comparison of the rules.
func PaperStep(a *APGD) *APGD {
	a.paperStep = true
	return a
}
