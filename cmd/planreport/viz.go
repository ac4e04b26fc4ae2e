package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
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
	colorBy *string
	width   *int
	height  *int
}

func init() {
	outputFormats["svg"] = func(w io.Writer, s *session) error { return renderMap(w, s, arenamap.SVG) }
	outputFormats["html"] = func(w io.Writer, s *session) error { return renderMap(w, s, arenamap.HTML) }
	register(extension{Name: "viz", Flags: func(fs *flag.FlagSet) hooks {
		vizOpts.colorBy = fs.String("color", "kind", "with -format svg|html: colour blocks by kind|size")
		vizOpts.width = fs.Int("map-width", 1200, "with -format svg|html: plot width in pixels")
		vizOpts.height = fs.Int("map-height", 560, "with -format svg|html: plot height in pixels")
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
		st, err := memranges.FromPlan(g, s.Input.Order, s.Plan, memranges.BuildOptions{})
		if err != nil {
			fmt.Fprintf(s.Stderr, "planreport: map without barriers: %v\n", err)
		} else {
			order := s.Input.Order
			if order == nil {
				order = s.Plan.Order
			}
			m.Barriers = arenamap.BarrierSteps(order, st.Dispatches, memranges.PlaceBarriers(memranges.Exact, st.Dispatches))
		}
	}
	return draw(w, m, opt)
}
