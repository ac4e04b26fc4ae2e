package memranges

// The conflict DAG of a dispatch list has an edge i -> j for every
// conflicting pair i < j (exact mode). Any order that keeps every such pair
// in its original relative order computes the same bytes, whatever the plan
// reused: data dependencies are RAW edges, and the planner's memory reuse
// shows up as WAR and WAW edges between otherwise unrelated nodes, so the
// DAG, not the graph's data edges, is what a reorder must respect.
//
// Levels number the DAG's nodes "as soon as possible": level(j) = 1 + the
// largest level of a predecessor, 1 for a source. No two dispatches of one
// level conflict (a conflict would put them at different levels), and the
// largest level is the number of dispatches on the longest chain: the
// critical path.
//
//	#0 write A  level 1        #0 ---RAW--> #2
//	#1 write B  level 1        #1 ---RAW--> #3
//	#2 read A, write C  2      #2 ---RAW--> #4
//	#3 read B   level 2
//	#4 read C   level 3        critical path 3: #0 -> #2 -> #4
//
// Building the DAG checks every pair, O(n^2) dispatch comparisons; it is
// meant for graphs (thousands of nodes), while barrier placement alone
// (PlaceBarriers) is near-linear and handles long streams.

// ConflictDAG returns, for each dispatch j, its conflict predecessors: the
// positions i < j that conflict with j in exact mode, ascending.
func ConflictDAG(ds []Dispatch) [][]int {
	preds := make([][]int, len(ds))
	for j := range ds {
		for i := 0; i < j; i++ {
			if _, ok := Conflicts(Exact, &ds[i], &ds[j]); ok {
				preds[j] = append(preds[j], i)
			}
		}
	}
	return preds
}

// Levels returns the ASAP level (1-based) of every node of a DAG given by
// predecessor lists whose entries are all smaller than their node.
func Levels(preds [][]int) []int {
	lv := make([]int, len(preds))
	for j, ps := range preds {
		l := 1
		for _, i := range ps {
			if i >= 0 && i < j {
				l = max(l, lv[i]+1)
			}
		}
		lv[j] = l
	}
	return lv
}

// CriticalPath returns the number of dispatches on the longest conflict
// chain of ds (0 for no dispatches). No order of ds needs fewer than
// CriticalPath-1 barriers.
func CriticalPath(ds []Dispatch) int {
	return maxLevel(Levels(ConflictDAG(ds)))
}

func maxLevel(lv []int) int {
	m := 0
	for _, l := range lv {
		m = max(m, l)
	}
	return m
}
