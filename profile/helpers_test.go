package profile

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// eq fails the test when got and want differ (reflect.DeepEqual).
func eq(t *testing.T, got, want any, what string) {
	t.Helper()
	require.Truef(t, reflect.DeepEqual(got, want), "%s:\n got  %#v\n want %#v", what, got, want)
}

func noErr(t *testing.T, err error) {
	t.Helper()
	require.NoErrorf(t, err, "%v", err)
}
