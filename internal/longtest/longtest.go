// Package longtest tells tests whether to run their long cases.
//
// The README's test command (go test ./...) runs the quick cases only, so a
// newcomer gets an answer in under a minute. CI sets MEMPLAN_LONG_TESTS=1
// and runs every case. A test opts a long case out of the quick run with
//
//	longtest.Skip(t)
//
// Go's test cache records the variable, so switching it re-runs the tests.
// Only tests import this package: library code never reads the environment.
//
// The package's own tests also guard the other half of what CI runs every
// time: a test that reads the DSA benchmark folder (../shared) must have
// DSA in its name, since .ci/run selects those by name to run them
// uncached (-count=1 -run DSA).
package longtest

import (
	"os"
	"testing"
)

// Var is the environment variable that turns the long cases on.
const Var = "MEMPLAN_LONG_TESTS"

// Enabled reports whether long test cases should run (Var is set and not
// "0").
func Enabled() bool {
	v := os.Getenv(Var)
	return v != "" && v != "0"
}

// Skip skips t with a one-line reason unless long cases are enabled.
func Skip(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skipf("long case: set %s=1 to run it (CI does)", Var)
	}
}
