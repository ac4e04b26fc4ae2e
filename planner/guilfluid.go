package planner

// Fluids of guilband.go.
//
// Buffers live over one column only (between two neighbouring
// boundaries) are many on the packable instances, small, and
// interchangeable: which of them join changes nothing but the size they
// add up to. A column with several of them holds them as one fluid: the
// band takes an amount of it, any sum of a subset (a knapsack table says
// which), and the subset is chosen once the band is whole. Where both
// neighbouring fluids of a boundary are undecided, one of them is taken
// empty (a restriction: bands that take both are not tried).
//
// Example: one-column buffers of 1, 2 and 4 units reach every amount from
// 0 to 7 units; subset(5 units) returns the 4 and the 1.

// guilFluid is the one-column buffers of one column.
type guilFluid struct {
	items []int   // positions in the piece
	total int64   // their sizes' sum
	unit  int64   // the gcd of their sizes
	from  []int32 // per sum in units: 1 + the item that first reached it; -1 for 0; 0 unreached
}

func newGuilFluid(items []int, size func(int) int64) *guilFluid {
	f := &guilFluid{items: items}
	for _, k := range items {
		f.total += size(k)
		f.unit = gcd64(f.unit, size(k))
	}
	if f.unit <= 0 || f.total/f.unit > guilFluidUnits {
		return nil
	}
	f.from = make([]int32, f.total/f.unit+1)
	f.from[0] = -1
	for n, k := range items {
		s := size(k) / f.unit
		for x := int64(len(f.from)) - 1; x >= s; x-- {
			if f.from[x] == 0 && f.from[x-s] != 0 {
				f.from[x] = int32(n + 1)
			}
		}
	}
	return f
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// reaches reports whether some of the items add up to x.
func (f *guilFluid) reaches(x int64) bool {
	return x >= 0 && x <= f.total && x%f.unit == 0 && f.from[x/f.unit] != 0
}

// subset returns items that add up to x (reaches(x)).
func (f *guilFluid) subset(x int64, size func(int) int64) []int {
	var out []int
	for u := x / f.unit; u > 0; {
		k := f.items[f.from[u]-1]
		out = append(out, k)
		u -= size(k) / f.unit
	}
	return out
}
