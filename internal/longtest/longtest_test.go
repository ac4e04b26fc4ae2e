package longtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		val  string
		want bool
	}{{"", false}, {"0", false}, {"1", true}, {"yes", true}} {
		t.Setenv(Var, c.val)
		got := Enabled()
		assert.Equalf(t, c.want, got, "%s=%q: Enabled() = %v, want %v", Var, c.val, got, c.want)
	}
}
