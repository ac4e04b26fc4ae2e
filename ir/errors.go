package ir

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package returns wraps one of them, so
// callers can test the class with errors.Is.
var (
	ErrDType        = errors.New("invalid dtype")
	ErrShape        = errors.New("invalid shape")
	ErrOverflow     = errors.New("size overflow")
	ErrUnknownOp    = errors.New("unknown op")
	ErrArity        = errors.New("wrong number of inputs or outputs")
	ErrAttr         = errors.New("invalid attribute")
	ErrUndefined    = errors.New("undefined value")
	ErrRedefined    = errors.New("value produced twice")
	ErrCycle        = errors.New("cycle")
	ErrViewBounds   = errors.New("view out of bounds")
	ErrSchedule     = errors.New("invalid schedule")
	ErrTypeMismatch = errors.New("type mismatch")
	ErrFormat       = errors.New("malformed graph file")
	ErrFlags        = errors.New("invalid flags")
	ErrID           = errors.New("id does not match its index")
)

// NodeError is a problem with one node. It names the node and wraps the class.
type NodeError struct {
	Node NodeID
	Name string
	Op   string
	Err  error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("ir: node %d %q (%s): %v", e.Node, e.Name, e.Op, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// ValueError is a problem with one value. It names the value and wraps the class.
type ValueError struct {
	Value ValueID
	Name  string
	Err   error
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("ir: value %d %q: %v", e.Value, e.Name, e.Err)
}

func (e *ValueError) Unwrap() error { return e.Err }
