package planner

func (m *srchMin) improve(free []int) {}
