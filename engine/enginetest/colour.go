package enginetest

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// CheckColouring returns an error unless colour is a valid colouring of
// the contacts con for the gs sweep (cpuref's colour.go) with the given
// fixed flags and maxColours colours: every colour below maxColours or
// maxColours (the tail), no two contacts of one colour on a movable body,
// and a contact in the tail only where its neighbours hold every colour,
// or anywhere when outOfRounds (the Jones–Plassmann rounds ran out).
func CheckColouring(con *engine.Contacts, fixed []bool, colour []uint32, maxColours int, outOfRounds bool) error {
	tail := uint32(maxColours)
	if len(colour) != con.Len() {
		return fmt.Errorf("%d colours for %d contacts", len(colour), con.Len())
	}
	on := map[int32][]int{} // movable body → its contacts
	for k := range colour {
		if colour[k] > tail {
			return fmt.Errorf("contact %d: colour %d", k, colour[k])
		}
		for _, i := range [2]int32{con.A[k], con.B[k]} {
			if !fixed[i] {
				on[i] = append(on[i], k)
			}
		}
	}
	for i, ks := range on {
		seen := map[uint32]int{}
		for _, k := range ks {
			c := colour[k]
			if c == tail {
				continue
			}
			if j, ok := seen[c]; ok {
				return fmt.Errorf("contacts %d and %d share body %d and colour %d", j, k, i, c)
			}
			seen[c] = k
		}
	}
	for k, c := range colour {
		if c != tail || outOfRounds {
			continue
		}
		var mask uint64
		for _, i := range [2]int32{con.A[k], con.B[k]} {
			if fixed[i] {
				continue
			}
			for _, j := range on[i] {
				if colour[j] < tail {
					mask |= 1 << colour[j]
				}
			}
		}
		if mask != 1<<maxColours-1 {
			return fmt.Errorf("contact %d in the tail, its neighbours' colours %#x", k, mask)
		}
	}
	return nil
}
