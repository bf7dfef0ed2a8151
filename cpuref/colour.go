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

// colourRound is a Jones–Plassmann round of the uncoloured contacts todo
// (each k < len(col)) over the colours col (colourNone: uncoloured). For
// each contact k of todo, with mask the colours of its coloured
// neighbours: when mask holds every colour, k goes to the tail; else when
// no uncoloured neighbour beats k, k takes the lowest colour not in mask;
// else k stays uncoloured. Every decision reads the colours as they were
// before the round (dec holds them, len(todo) of room, until all are
// made), so two neighbours are never both coloured in one round (one
// beats the other) and the colouring is valid. It returns the contacts
// left uncoloured, in todo's order, in todo's array. Neighbours are read
// from the body → contact lists adjOff, adj (entries 2j + side, movable
// bodies only) of k's bodies a[k], b[k]. (A round over the uncoloured
// contacts only, not over all of them as the device's round is: the same
// colours, and a settled pile of 3 000 contacts took 24 rounds.)
func colourRound(col []uint32, todo []int32, dec []uint32, a, b []int32, adjOff, adj []int32) []int32 {
	for i, k32 := range todo {
		k := uint32(k32)
		var mask uint32
		blocked := false
		// With at most MaxColours list entries (k's own among them), the
		// neighbours cannot hold every colour: the scan may stop at the
		// first neighbour that blocks k.
		full := adjOff[a[k]+1]-adjOff[a[k]]+adjOff[b[k]+1]-adjOff[b[k]] > MaxColours
		pk := ColourPriority(k)
	scan:
		for _, i := range [2]int32{a[k], b[k]} {
			for _, e := range adj[adjOff[i]:adjOff[i+1]] {
				j := uint32(e) >> 1
				if j == k {
					continue
				}
				switch cj := col[j]; {
				case cj == colourNone:
					if pj := ColourPriority(j); pj > pk || (pj == pk && j > k) {
						blocked = true
						if !full {
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
			dec[i] = ColourTail
		case !blocked:
			dec[i] = uint32(bits.TrailingZeros32(^mask))
		default:
			dec[i] = colourNone
		}
	}
	left := todo[:0]
	for i, k := range todo {
		col[k] = dec[i]
		if dec[i] == colourNone {
			left = append(left, k)
		}
	}
	return left
}

// colourRounds runs Jones–Plassmann rounds (colourRound) from every
// contact uncoloured until none is left or maxRounds have run, with todo
// (len(col) of room) and dec as the rounds' scratch; it returns the rounds
// run and leaves colourNone on the contacts still uncoloured.
func colourRounds(col []uint32, todo []int32, dec []uint32, a, b []int32, adjOff, adj []int32, maxRounds int) int {
	for k := range col {
		col[k] = colourNone
		todo[k] = int32(k)
	}
	rounds := 0
	for len(todo) > 0 && rounds < maxRounds {
		todo = colourRound(col, todo, dec, a, b, adjOff, adj)
		rounds++
	}
	return rounds
}

// mayFill reports whether some contact has more than MaxColours entries
// in its bodies' lists, so that its neighbours might hold every colour.
func mayFill(a, b []int32, adjOff []int32) bool {
	for k := range a {
		if adjOff[a[k]+1]-adjOff[a[k]]+adjOff[b[k]+1]-adjOff[b[k]] > MaxColours {
			return true
		}
	}
	return false
}

// colourByPriority computes what colourRounds computes, colours, rounds
// and the contacts left uncoloured, where no neighbourhood may fill every
// colour (mayFill false), in one pass over the contacts in decreasing
// priority instead of rounds over all that are left (which took 0.7 ms
// for the 2 800 contacts of a settled pile of 1 000 spheres, in 22
// rounds). There, a contact k is coloured in the first round in which no
// uncoloured neighbour beats it, and none that k beats is coloured before
// k (k blocks it while uncoloured, and no contact goes to the tail with a
// full mask): so when k is coloured its coloured neighbours are exactly
// those that beat it, all coloured, and k takes the lowest colour none of
// them has, in round 1 + the latest of their rounds (1 if none beats k).
// A contact whose round would pass maxRounds stays uncoloured, as does
// every contact it beats (their rounds are later). rnd, keys and tmp are
// scratch of len(col). It returns the rounds colourRounds would run.
func colourByPriority(col, rnd []uint32, keys, tmp []uint64, a, b []int32, adjOff, adj []int32, maxRounds int) int {
	for k := range keys {
		keys[k] = uint64(ColourPriority(uint32(k)))<<32 | uint64(k)
	}
	sortHigh32(keys, tmp)
	rounds := 0
	// Descending: a contact that beats k (higher priority, or as high
	// and a larger index) comes before it.
	for i := len(keys) - 1; i >= 0; i-- {
		k, pk := uint32(keys[i]), uint32(keys[i]>>32)
		var mask uint32
		r := uint32(1)
		for _, body := range [2]int32{a[k], b[k]} {
			for _, e := range adj[adjOff[body]:adjOff[body+1]] {
				j := uint32(e) >> 1
				if pj := ColourPriority(j); j != k && (pj > pk || pj == pk && j > k) {
					r = max(r, rnd[j]+1)
					if c := col[j]; c < MaxColours {
						mask |= 1 << c
					}
				}
			}
		}
		rnd[k] = r
		if int(r) > maxRounds {
			col[k] = colourNone
			rounds = maxRounds
			continue
		}
		col[k] = uint32(bits.TrailingZeros32(^mask))
		rounds = max(rounds, int(r))
	}
	return rounds
}

// sortHigh32 sorts keys by their high 32 bits, ascending, keys of equal
// high bits in their order: four passes of a radix sort, 8 bits each,
// through tmp (len(keys)), ending in keys (a comparison sort took a third
// of colourByPriority's time).
func sortHigh32(keys, tmp []uint64) {
	src, dst := keys, tmp
	for shift := 32; shift < 64; shift += 8 {
		var start [257]int
		for _, x := range src {
			start[x>>shift&0xff+1]++
		}
		for d := 1; d < len(start); d++ {
			start[d] += start[d-1]
		}
		for _, x := range src {
			d := x >> shift & 0xff
			dst[start[d]] = x
			start[d]++
		}
		src, dst = dst, src
	}
}

// colouring is the colouring of the current contacts and the sweep's
// order.
type colouring struct {
	valid   bool     // computed for the current contacts (Build clears it)
	rounds  int      // the rounds the last colouring took
	colour  []uint32 // per contact: its colour, or ColourTail
	scratch []uint32 // a round's decisions, or each contact's round (colourByPriority)
	keys    []uint64 // colourByPriority's order and its sort's second buffer
	perm    []int32  // the contacts by colour, each colour in index order, the tail last
	// The sweep's copies, in perm's order (sweepCopies; copied: made for
	// this colouring): the contacts' Jacobian values (b.jac's layout), r
	// (3 each) and bodies (A, B).
	copied bool
	jac, r []float64
	ab     []int32
	start  [MaxColours + 2]int32
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
	if cap(cl.perm) < nc {
		cl.perm = make([]int32, nc, nc+nc/4)
	}
	a, bb, adjOff, adj := b.con.A, b.con.B, b.adjOff, b.adj
	if mayFill(a, bb, adjOff) {
		// The rounds' list of uncoloured contacts lives in perm until the
		// order is made.
		cl.rounds = colourRounds(cl.colour, cl.perm[:nc], cl.scratch, a, bb, adjOff, adj, ColourRounds)
	} else {
		if cap(cl.keys) < 2*nc {
			cl.keys = make([]uint64, 2*nc, roomy(2*nc))
		}
		cl.rounds = colourByPriority(cl.colour, cl.scratch, cl.keys[:nc], cl.keys[nc:2*nc], a, bb, adjOff, adj, ColourRounds)
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
	cl.perm = cl.perm[:nc]
	next := cl.start
	for k, c := range cl.colour {
		cl.perm[next[c]] = int32(k)
		next[c]++
	}
	cl.copied = false
	cl.valid = true
	return cl
}

// sweepCopies returns the colouring with the sweep's copies of the
// contacts' Jacobians, r and bodies in its order, made once per colouring:
// read in order by the sweep, where by contact index they came from all
// over the arrays (the Jacobian's load was a quarter of a gs step at
// N = 8000, 30 000 contacts). Call it after Build.
func (b *Backend) sweepCopies() *colouring {
	cl := b.colour()
	if cl.copied {
		return cl
	}
	nc := len(cl.perm)
	st := b.jacStride()
	cl.jac, cl.r, cl.ab = resizeF(cl.jac, st*nc), resizeF(cl.r, 3*nc), resizeI32(cl.ab, 2*nc)
	for i, k32 := range cl.perm {
		k := int(k32)
		copy(cl.jac[st*i:st*i+st], b.jac[st*k:st*k+st])
		copy(cl.r[3*i:3*i+3], b.r[3*k:3*k+3])
		cl.ab[2*i], cl.ab[2*i+1] = b.con.A[k], b.con.B[k]
	}
	cl.copied = true
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
