package main

// Module resolution: how an import path becomes a directory.
//
// The checker never runs the go command from library code, so it resolves
// import paths itself, the way the go command does for a tidy module whose
// go.mod lists every module the build needs (Go >= 1.17 pruned module
// graphs make that true):
//
//	github.com/memplan/memplan/exec/metal  -> <module root>/exec/metal
//	github.com/progrium/darwinkit/objc     -> $GOMODCACHE/github.com/progrium/darwinkit@v0.5.0/objc
//	github.com/BurntSushi/toml             -> $GOMODCACHE/github.com/!burnt!sushi/toml@v1.3.2
//	fmt                                    -> $GOROOT/src/fmt
//	golang.org/x/net/dns/dnsmessage (from net) -> $GOROOT/src/vendor/golang.org/x/net/dns/dnsmessage
//
// The longest module path that prefixes the import path wins; a path whose
// first element has no dot belongs to the standard library.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// Module is one module the checker can load packages from: its path and the
// directory holding its root.
type Module struct {
	Path    string
	Version string // empty for the main module and local replacements
	Dir     string
}

// ParseGoMod reads the module path, the requirements and the replace
// directives of a go.mod file's contents. It returns the module path and
// the required modules with their versions after replacement; Dir is left
// empty for cache modules (ModuleDir fills it) and set for local
// replacements (relative to root).
func ParseGoMod(data []byte, root string) (string, []Module, error) {
	var modPath string
	req := map[string]string{}
	type repl struct{ path, version, dir string }
	reps := map[string]repl{}
	block := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	var errs []error
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.Index(text, "//"); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if block != "" {
			if f[0] == ")" {
				block = ""
				continue
			}
			f = append([]string{block}, f...)
		} else if len(f) == 2 && f[1] == "(" {
			block = f[0]
			continue
		}
		switch f[0] {
		case "module":
			if len(f) != 2 {
				errs = append(errs, fmt.Errorf("%w: line %d: module needs one path", ErrGoMod, line))
				continue
			}
			modPath = unquote(f[1])
		case "require":
			if len(f) != 3 {
				errs = append(errs, fmt.Errorf("%w: line %d: require needs path and version", ErrGoMod, line))
				continue
			}
			req[unquote(f[1])] = f[2]
		case "replace":
			arrow := -1
			for i, s := range f {
				if s == "=>" {
					arrow = i
				}
			}
			if arrow < 2 || arrow+2 > len(f) || arrow+3 < len(f) {
				errs = append(errs, fmt.Errorf("%w: line %d: malformed replace", ErrGoMod, line))
				continue
			}
			r := repl{path: unquote(f[arrow+1])}
			if arrow+2 < len(f) {
				r.version = f[arrow+2]
			} else {
				r.dir = filepath.Join(root, r.path)
			}
			reps[unquote(f[1])] = r
		}
	}
	if modPath == "" {
		errs = append(errs, fmt.Errorf("%w: no module line", ErrGoMod))
	}
	if len(errs) > 0 {
		return "", nil, errors.Join(errs...)
	}
	mods := make([]Module, 0, len(req))
	for p, v := range req {
		m := Module{Path: p, Version: v}
		if r, ok := reps[p]; ok {
			if r.dir != "" {
				m.Version, m.Dir = "", r.dir
			} else {
				// Keep the import path; load the replacement's files.
				m.Version = r.version
				m.Dir = "=" + r.path
			}
		}
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return modPath, mods, nil
}

func unquote(s string) string { return strings.Trim(s, "\"`") }

// EscapePath applies the module cache's case encoding: every upper-case
// letter becomes '!' followed by its lower-case form, so that module paths
// differing only in case map to different directories on case-insensitive
// file systems.
func EscapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ModuleDir is the directory of module path at version inside the module
// cache rooted at modCache.
func ModuleDir(modCache, path, version string) string {
	return filepath.Join(modCache, filepath.FromSlash(EscapePath(path)+"@"+EscapePath(version)))
}

// isStd reports whether an import path belongs to the standard library:
// its first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// hasPathPrefix reports whether p is prefix or lies below it.
func hasPathPrefix(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}
