package cpuref

import "math/bits"

// The contact colouring of the projected Gauss–Seidel sweep (Box2D v3's
// constraint graph colouring, computed by Jones–Plassmann rounds): two
// contacts are neighbours when they share a movable body (a fixed body,
// whose velocity the sweep never updates, links none), and contacts of
// one colour are pairwise not neighbours, so a colour's updates are
// independent and the device runs them in parallel (gs_colour_sweep).
// The sweep takes colour 0's contacts in index order, then colour 1's, …,
// then the tail (contacts left uncoloured) in index order. gpu's
// gs_colour.comp computes the same colours.
const (
	// MaxColours caps the colours: a colour is a bit of a uint32 mask and
	// a dispatch of each sweep on the device. 32 is more than a pile of
	// spheres needs (a sphere touches at most 12 others, so a contact has
	// at most 22 neighbours and takes a colour below 23), and a body
	// touching more than 32 movable ones (a heavy lid on grains) is a
	// clique that no cap colours: its extra contacts go to the tail.
	MaxColours = 32
	// ColourTail is the colour of a contact swept in the sequential tail.
	ColourTail = MaxColours
	// ColourRounds caps the Jones–Plassmann rounds (each a dispatch on
	// the device); contacts still uncoloured after them go to the tail.
	// A round colours every contact whose priority beats its uncoloured
	// neighbours', so the rounds needed are the longest chain of
	// decreasing priorities: settled piles of settle-1000 and settle-8000
	// (3035 and 27195 contacts) took 24 and 27 rounds for 10 and 11
	// colours.
	ColourRounds = 48
	// colourNone marks a contact not yet coloured, during the rounds.
	colourNone = ^uint32(0)
)

// ColourPriority is the Jones–Plassmann priority of contact k: Wellons'
// lowbias32 integer hash, a bijection on 32 bits (so no two contacts
// below 2³² tie; ties would go to the larger index). gs_colour.comp's
// priority.
func ColourPriority(k uint32) uint32 {
	k ^= k >> 16
	k *= 0x7feb352d
	k ^= k >> 15
	k *= 0x846ca68b
	k ^= k >> 16
	return k
}

// colourRound is Jones–Plassmann round of the contacts in [0, nc), from
// the colours src to dst (both of length nc; colourNone: uncoloured). For
// each uncoloured contact k, with mask the colours of its coloured
// neighbours: when mask holds every colour, k goes to the tail; else when
// no uncoloured neighbour beats k, k takes the lowest colour not in mask;
// else k stays uncoloured. It reports whether any contact stays
// uncoloured. Neighbours are read from the body → contact lists adjOff,
// adj (entries 2j + side, movable bodies only) of k's bodies a[k], b[k].
// Two neighbours are never both coloured in one round (one beats the
// other), so reading src alone gives a valid colouring.
func colourRound(dst, src []uint32, a, b []int32, adjOff, adj []int32) bool {
	left := false
	for k := range src {
		c := src[k]
		if c != colourNone {
			dst[k] = c
			continue
		}
		var mask uint32
		blocked := false
		// With at most MaxColours list entries (k's own among them), the
		// neighbours cannot hold every colour: the scan may stop at the
		// first neighbour that blocks k.
		mayFill := adjOff[a[k]+1]-adjOff[a[k]]+adjOff[b[k]+1]-adjOff[b[k]] > MaxColours
		pk := ColourPriority(uint32(k))
	scan:
		for _, i := range [2]int32{a[k], b[k]} {
			for _, e := range adj[adjOff[i]:adjOff[i+1]] {
				j := uint32(e) >> 1
				if j == uint32(k) {
					continue
				}
				switch cj := src[j]; {
				case cj == colourNone:
					if pj := ColourPriority(j); pj > pk || (pj == pk && j > uint32(k)) {
						blocked = true
						if !mayFill {
							break scan
						}
					}
				case cj < MaxColours:
					mask |= 1 << cj
				}
			}
		}
		switch {
		case mask == ^uint32(0):
			dst[k] = ColourTail
		case !blocked:
			dst[k] = uint32(bits.TrailingZeros32(^mask))
		default:
			dst[k] = colourNone
			left = true
		}
	}
	return left
}

// colouring is the colouring of the current contacts and the sweep's
// order.
type colouring struct {
	valid   bool     // computed for the current contacts (Build clears it)
	rounds  int      // the rounds the last colouring took
	colour  []uint32 // per contact: its colour, or ColourTail
	scratch []uint32 // the rounds' second buffer
	perm    []int32  // the contacts by colour, each colour in index order, the tail last
	start   [MaxColours + 2]int32
}

// colour computes the colouring of the current contacts when Build has
// not since the last time: ColourRounds rounds at most (fewer when none
// is left uncoloured: the remaining rounds would change nothing), the
// uncoloured then to the tail, and perm by a counting sort on the colour,
// stable.
func (b *Backend) colour() *colouring {
	cl := &b.col
	if cl.valid {
		return cl
	}
	nc := b.con.Len()
	cl.colour = resizeU(cl.colour, nc)
	cl.scratch = resizeU(cl.scratch, nc)
	for k := range cl.colour {
		cl.colour[k] = colourNone
	}
	src, dst := cl.colour, cl.scratch
	cl.rounds = 0
	left := nc > 0
	for left && cl.rounds < ColourRounds {
		left = colourRound(dst, src, b.con.A, b.con.B, b.adjOff, b.adj)
		src, dst = dst, src
		cl.rounds++
	}
	if cl.rounds%2 == 1 {
		copy(cl.colour, src)
	}
	for k, c := range cl.colour {
		if c == colourNone {
			cl.colour[k] = ColourTail
		}
	}
	cl.start = [MaxColours + 2]int32{}
	for _, c := range cl.colour {
		cl.start[c+1]++
	}
	for c := 0; c <= MaxColours; c++ {
		cl.start[c+1] += cl.start[c]
	}
	if cap(cl.perm) < nc {
		cl.perm = make([]int32, nc, nc+nc/4)
	}
	cl.perm = cl.perm[:nc]
	next := cl.start
	for k, c := range cl.colour {
		cl.perm[next[c]] = int32(k)
		next[c]++
	}
	cl.valid = true
	return cl
}

// Colours returns the colour of each current contact (0 to MaxColours−1,
// or ColourTail) as the gs sweep uses it, and the Jones–Plassmann rounds
// it took; the slice is the backend's, valid until the next Build.
func (b *Backend) Colours() ([]uint32, int) {
	cl := b.colour()
	return cl.colour, cl.rounds
}

func resizeU(s []uint32, n int) []uint32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]uint32, n, roomy(n))
}
