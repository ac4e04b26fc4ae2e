// Package hostile writes the large hostile inputs of the corpus in
// testdata/hostile (the small ones are committed files): graphs and DSA
// instances that are legal but large, or malformed only past a limit, so
// that a slow path, an unbounded allocation or a late limit check shows.
// Tests call the generators with small sizes by default and with the sizes
// of issue 17 under MEMPLAN_LONG_TESTS=1; cmd/hostilegen writes them to a
// folder for scripts/hostile_bench.sh, which measures the CLI on each.
//
//	hostile.InPlaceChain(w, 100_000)  // 100k Relu nodes, each in place
//	hostile.ViewChain(w, 100_000)     // a 100k-deep chain of views
//	hostile.ManyValues(w, 5<<20)      // more values than ir.MaxFileElements
//	hostile.CSVRows(w, 1_000_000, 1)  // a 1M-row DSA instance
//	hostile.ManyLiveCSV(w, 300_000)   // 300k buffers live at once
package hostile
