package profile

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		noErr(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	noErr(t, err)
	require.Truef(t, bytes.Equal(got, want), "%s differs (run with -update to accept):\n--- got\n%s--- want\n%s", path, got, want)
}

func TestDumpsGolden(t *testing.T) {
	p := fixture()
	cases := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"table.golden", func(b *bytes.Buffer) error { return p.WriteTable(b, 0) }},
		{"table_top1.golden", func(b *bytes.Buffer) error { return p.WriteTable(b, 1) }},
		{"dispatch_table.golden", func(b *bytes.Buffer) error { return p.WriteDispatchTable(b, 10) }},
		{"kinds.golden", func(b *bytes.Buffer) error { return p.WriteKindTable(b) }},
		{"dispatches.golden", func(b *bytes.Buffer) error { return p.WriteDispatches(b) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			noErr(t, c.write(&b))
			golden(t, c.name, b.Bytes())
		})
	}
}

func TestFormatNs(t *testing.T) {
	cases := []struct {
		ns   int64
		want string
	}{
		{0, "0ns"}, {999, "999ns"}, {1000, "1.00us"}, {12345, "12.35us"}, {1_234_567, "1.235ms"},
		{2_500_000_000, "2.500s"}, {-1500, "-1.50us"},
	}
	for _, c := range cases {
		eq(t, FormatNs(c.ns), c.want, "FormatNs")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWritersReportErrors(t *testing.T) {
	p := fixture()
	for name, err := range map[string]error{
		"table":      p.WriteTable(failWriter{}, 3),
		"kinds":      p.WriteKindTable(failWriter{}),
		"dispatches": p.WriteDispatches(failWriter{}),
		"trace":      p.WriteTrace(failWriter{}),
		"pprof":      p.WritePprof(failWriter{}),
	} {
		assert.ErrorIsf(t, err, ErrWrite, "%s: error %v, want ErrWrite", name, err)
	}
}
