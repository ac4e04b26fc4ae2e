package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGoMod(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		path    string
		mods    []Module
		wantErr bool
	}{
		{
			name: "block and single requires",
			src:  "module example.com/m\n\ngo 1.26\n\nrequire (\n\tgithub.com/A/b v1.0.0 // indirect\n\tgolang.org/x/sys v0.32.0\n)\nrequire pgregory.net/rapid v1.3.0\n",
			path: "example.com/m",
			mods: []Module{
				{Path: "github.com/A/b", Version: "v1.0.0"},
				{Path: "golang.org/x/sys", Version: "v0.32.0"},
				{Path: "pgregory.net/rapid", Version: "v1.3.0"},
			},
		},
		{
			name: "replace by module and by directory",
			src:  "module m\nrequire (\n\tx.org/a v1.0.0\n\tx.org/b v1.0.0\n)\nreplace x.org/a => y.org/a v1.2.0\nreplace x.org/b v1.0.0 => ../b\n",
			path: "m",
			mods: []Module{
				{Path: "x.org/a", Version: "v1.2.0", Dir: "=y.org/a"},
				{Path: "x.org/b", Dir: filepath.Join("/root", "../b")},
			},
		},
		{name: "no module line", src: "require x.org/a v1.0.0\n", wantErr: true},
		{name: "bad require", src: "module m\nrequire x.org/a\n", wantErr: true},
		{name: "bad replace", src: "module m\nreplace x.org/a =>\n", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, mods, err := ParseGoMod([]byte(tc.src), "/root")
			if tc.wantErr {
				require.ErrorIsf(t, err, ErrGoMod, "err = %v, want ErrGoMod", err)
				return
			}
			require.NoErrorf(t, err, "%v", err)
			assert.Equalf(t, tc.path, path, "path = %q, want %q", path, tc.path)
			require.Lenf(t, mods, len(tc.mods), "mods = %v, want %v", mods, tc.mods)
			for i := range mods {
				if mods[i] != tc.mods[i] {
					t.Errorf("mods[%d] = %+v, want %+v", i, mods[i], tc.mods[i])
				}
			}
		})
	}
}

func TestEscapePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"github.com/progrium/darwinkit", "github.com/progrium/darwinkit"},
		{"github.com/BurntSushi/toml", "github.com/!burnt!sushi/toml"},
		{"v0.0.0-20260906184651-6331bc6350fe", "v0.0.0-20260906184651-6331bc6350fe"},
	}
	for _, tc := range tests {
		got := EscapePath(tc.in)
		assert.Equalf(t, tc.want, got, "EscapePath(%q) = %q, want %q", tc.in, got, tc.want)
	}
}

func FuzzParseGoMod(f *testing.F) {
	if data, err := os.ReadFile("../../../go.mod"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("module m\nreplace (\n\ta => b v1\n)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path, _, err := ParseGoMod(data, "/r")
		assert.Falsef(t, err == nil && path == "", "no error and no module path")
	})
}

func FuzzParseSelectorList(f *testing.F) {
	f.Add(appleSelectors)
	f.Add("# comment\n\n  setBuffer:offset:atIndex:  \n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range ParseSelectorList(text) {
			assert.Falsef(t, s == "" || s[0] == '#' || strings.TrimSpace(s) != s, "selector %q kept", s)
		}
	})
}

func TestParseSelectorList(t *testing.T) {
	got := ParseSelectorList("# Apple\nrelease\n\n  setLabel:  \n#x\n")
	assert.Equalf(t, "[release setLabel:]", fmt.Sprint(got), "got %q", got)
}
