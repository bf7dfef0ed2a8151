package engine

import (
	"math"
	"slices"
)

// jointRankBudget bounds the nonzeros JointRank keeps in its echelon
// rows: a joint graph whose elimination fills beyond it is left unchecked.
const jointRankBudget = 4 << 20

// JointRank returns the numerical rank of the joint rows' Jacobian: row r
// has −lin_r and rotA_r on RowA[r]'s six columns and lin_r and rotB_r on
// RowB[r]'s (3 per row each; the world and the static bodies, static[i],
// have no columns), as a backend's Build makes them. Rows are eliminated
// in order, each against the echelon rows of the columns it reaches in
// increasing order (bodies by index: a chain's or a mechanism's
// neighbours are near, so the fill stays small); an entry below 1e-9 of
// its row's largest counts as zero. ok is false when the fill passed
// jointRankBudget nonzeros and the rank was not found. nj − rank rows are
// redundant: the joints over-constrain the bodies, which the solvers
// still solve (a bilateral row's impulse need not be unique).
func (l *JointLayout) JointRank(lin, rotA, rotB []float64, static []bool) (rank int, ok bool) {
	type entry struct {
		col int
		v   float64
	}
	pivots := map[int][]entry{} // leading column → its echelon row (leading entry first)
	kept := 0
	var row, next []entry
	for r := 0; r < l.Rows; r++ {
		row = row[:0]
		for side, body := range [2]int32{l.RowA[r], l.RowB[r]} {
			if body < 0 || static[body] {
				continue
			}
			sign, rot := -1.0, rotA
			if side == 1 {
				sign, rot = 1, rotB
			}
			for k := 0; k < 3; k++ {
				row = append(row, entry{6*int(body) + k, sign * lin[3*r+k]}, entry{6*int(body) + 3 + k, rot[3*r+k]})
			}
		}
		slices.SortFunc(row, func(a, b entry) int { return a.col - b.col })
		scale := 0.0
		for _, e := range row {
			scale = math.Max(scale, math.Abs(e.v))
		}
		tol := 1e-9 * scale
		for {
			// Drop the zeros, then find the leading entry.
			row = slices.DeleteFunc(row, func(e entry) bool { return !(math.Abs(e.v) > tol) })
			if len(row) == 0 {
				break // a combination of the rows before: redundant
			}
			p, has := pivots[row[0].col]
			if !has {
				pivots[row[0].col] = append([]entry(nil), row...)
				kept += len(row)
				rank++
				break
			}
			// row −= (row_c / p_c)·p, merging the two sorted rows.
			f := row[0].v / p[0].v
			next = next[:0]
			i, j := 1, 1
			for i < len(row) || j < len(p) {
				switch {
				case j == len(p) || i < len(row) && row[i].col < p[j].col:
					next = append(next, row[i])
					i++
				case i == len(row) || p[j].col < row[i].col:
					next = append(next, entry{p[j].col, -f * p[j].v})
					j++
				default:
					next = append(next, entry{row[i].col, row[i].v - f*p[j].v})
					i++
					j++
				}
			}
			row, next = next, row
		}
		if kept > jointRankBudget {
			return rank, false
		}
	}
	return rank, true
}
