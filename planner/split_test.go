package planner

import (
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// TestPlaceSplitValid: on random instances (empty buffers, alignment and
// fixed buffers included) the split placement verifies, and it is the
// same on a second run.
func TestPlaceSplitValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 40)
		if rapid.Bool().Draw(t, "zero") {
			bufs[0].Size = 0
		}
		if rapid.Bool().Draw(t, "fixed") {
			bufs[0].Fixed, bufs[0].Offset = true, 0
		}
		ff := singleOrders[3]
		off, err := placeSplit(context.Background(), bufs, ff.order(bufs), ff.policy)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyPlacement(bufs, off); err != nil {
			t.Fatalf("invalid: %v", err)
		}
		again, _ := placeSplit(context.Background(), bufs, ff.order(bufs), ff.policy)
		for i := range off {
			if off[i] != again[i] {
				t.Fatalf("two runs differ at %d", i)
			}
		}
	})
}

// TestPlaceSplitLarge: on the synthetic ladder's 20,000 buffers the split
// placement verifies and stays within 1% of first-fit's arena.
func TestPlaceSplitLarge(t *testing.T) {
	bufs := synthetic(20_000)
	ff := singleOrders[3]
	off, err := placeSplit(context.Background(), bufs, ff.order(bufs), ff.policy)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyPlacement(bufs, off); err != nil {
		t.Fatal(err)
	}
	whole, _ := ff.Place(context.Background(), bufs)
	if a, w := ArenaSize(bufs, off), ArenaSize(bufs, whole); float64(a) > 1.01*float64(w) {
		t.Errorf("split arena %d more than 1%% above first-fit's %d", a, w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := placeSplit(ctx, bufs, ff.order(bufs), ff.policy); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
