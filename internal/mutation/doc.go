// Package mutation holds the verifiers' mutation test (mutation_test.go):
// it corrupts the plans and programs of every testdata graph and zoo model
// in every way a planner, a barrier pass or a compiler could get wrong,
// runs each corrupted program on the CPU backend against the reference run
// to tell the harmful corruptions from the harmless ones, and requires
// that planner.Plan.Verify or exec.Program.Verify rejects every harmful
// one. It reports, per kind of corruption, how many were tried, how many
// were harmful and how many the verifiers caught.
//
// The default run tries one corruption of each kind on five quick subjects
// (a few seconds); with MEMPLAN_LONG_TESTS=1 (internal/longtest) it tries
// four of each kind on every testdata graph and zoo model, and
// -mutation.per-kind sets the number:
//
//	MEMPLAN_LONG_TESTS=1 go test ./internal/mutation -run Mutation -v -args -mutation.per-kind=10
//
// The package has no code of its own beyond the test.
package mutation
