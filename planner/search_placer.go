package planner

import "context"

// searchPlacer is the "search" strategy: Search under Options.TimeBudget,
// starting from the portfolio.
type searchPlacer struct{ opts Options }

func init() {
	RegisterPlacer("search", func(o Options) Placer { return &searchPlacer{o} })
}

// Name returns "search".
func (p *searchPlacer) Name() string { return "search" }

// Place returns the best placement Search finds within the time budget.
func (p *searchPlacer) Place(ctx context.Context, bufs []Buffer) ([]int64, error) {
	res, err := Search(ctx, bufs, SearchConfig{Budget: p.opts.TimeBudget, Progress: p.opts.Progress})
	if err != nil {
		return nil, err
	}
	return res.Offsets, nil
}
