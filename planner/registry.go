package planner

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

var registry = struct {
	sync.RWMutex
	m map[string]func(Options) Placer
}{m: map[string]func(Options) Placer{}}

// RegisterPlacer makes a placement strategy available under name (for
// Options.Strategy, PlacerByName and the CLI's -strategy). Other files and
// packages call it from init; a later registration under the same name
// replaces the earlier one.
func RegisterPlacer(name string, f func(Options) Placer) {
	registry.Lock()
	defer registry.Unlock()
	registry.m[name] = f
}

// PlacerByName returns the strategy registered under name, built with opts;
// "" means "auto".
func PlacerByName(name string, opts Options) (Placer, error) {
	if name == "" {
		name = "auto"
	}
	registry.RLock()
	f, ok := registry.m[name]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("planner: strategy %q (known: %s): %w", name, strings.Join(PlacerNames(), ", "), ErrUnknownStrategy)
	}
	return f(opts), nil
}

// PlacerNames returns the registered strategy names, sorted.
func PlacerNames() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
