package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memplan/memplan/arenamap"
	"github.com/memplan/memplan/memranges"
)

// -format svg and -format html: the arena map of the plan (package
// arenamap). For graph inputs, with -barriers (barriers.go), the map also
// marks the barriers that memranges places between the dispatches of the
// schedule.

// vizOpts holds this run's map flags (set by the extension below).
var vizOpts struct {
	colorBy  *string
	width    *int
	height   *int
	frontier *bool
}

func init() {
	outputFormats["svg"] = func(w io.Writer, s *session) error { return renderMap(w, s, arenamap.SVG) }
	outputFormats["html"] = func(w io.Writer, s *session) error { return renderMap(w, s, arenamap.HTML) }
	register(extension{Name: "viz", Flags: func(fs *flag.FlagSet) hooks {
		vizOpts.colorBy = fs.String("color", "kind", "with -format svg|html: colour blocks by kind|size")
		vizOpts.width = fs.Int("map-width", 1200, "with -format svg|html: plot width in pixels")
		vizOpts.height = fs.Int("map-height", 560, "with -format svg|html: plot height in pixels")
		vizOpts.frontier = fs.Bool("frontier", false, "with -format html and a graph: add the memory/concurrency frontier plot (arena against barriers)")
		return hooks{BeforePlan: func(s *session) error {
			if c := *vizOpts.colorBy; c != "kind" && c != "size" {
				return fmt.Errorf("-color %q: want kind or size", c)
			}
			return nil
		}}
	}})
}

func renderMap(w io.Writer, s *session, draw func(io.Writer, *arenamap.Map, arenamap.Options) error) error {
	opt := arenamap.Options{}
	if vizOpts.width != nil {
		opt.Width, opt.Height = *vizOpts.width, *vizOpts.height
		switch *vizOpts.colorBy {
		case "kind":
			opt.ColorBy = arenamap.ByKind
		case "size":
			opt.ColorBy = arenamap.BySize
		default:
			return fmt.Errorf("-color %q: want kind or size", *vizOpts.colorBy)
		}
	}
	title := "example"
	if g := s.Input.Graph; g != nil && g.Name != "" {
		title = g.Name
	}
	if s.Input.Path != "" {
		title = strings.TrimSuffix(filepath.Base(s.Input.Path), filepath.Ext(s.Input.Path))
	}
	title += " · " + s.Plan.Strategy
	m, err := arenamap.FromPlan(title, s.Plan, s.Input.Graph)
	if err != nil {
		return err
	}
	if g := s.Input.Graph; g != nil && barriersOn != nil && *barriersOn {
		// The plan's own order: a grouped plan sorts the schedule by group,
		// and its time axis is groups.
		st, err := memranges.FromPlan(g, s.Plan.Order, s.Plan, memranges.BuildOptions{})
		if err != nil {
			fmt.Fprintf(s.Stderr, "planreport: map without barriers: %v\n", err)
		} else {
			steps := arenamap.BarrierSteps(s.Plan.Order, st.Dispatches, memranges.PlaceBarriers(memranges.Exact, st.Dispatches))
			for i, k := range steps {
				steps[i] = s.Plan.GroupOf(int(k))
			}
			m.Barriers = slices.Compact(steps)
		}
	}
	if g := s.Input.Graph; g != nil && vizOpts.frontier != nil && *vizOpts.frontier {
		o := s.Opts
		o.Objective = ""
		f, err := memranges.BuildFrontier(s.Ctx, g, s.Input.Order, o)
		if err != nil {
			return err
		}
		for _, p := range f.Points {
			label := p.Objective
			if label == "" {
				label = fmt.Sprintf("%d groups", p.Groups)
			}
			cur := p.ArenaBytes == s.Plan.ArenaBytes && p.Groups == s.Plan.Steps
			m.Frontier = append(m.Frontier, arenamap.FrontierPoint{Barriers: p.Barriers, ArenaBytes: p.ArenaBytes, Label: label, Current: cur})
		}
	}
	return draw(w, m, opt)
}
