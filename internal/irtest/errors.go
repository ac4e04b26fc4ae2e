package irtest

import (
	"errors"
	"fmt"
)

// Sentinel errors. A fixture line the language cannot read wraps ErrSyntax;
// a line that reads but that ir rejects (unknown op, bad shape, view out of
// bounds) wraps the ir sentinel instead, so tests can tell the two apart
// with errors.Is.
var (
	ErrSyntax  = errors.New("syntax error")
	ErrNoGraph = errors.New("no such testdata graph")
)

// syntaxf is fmt.Errorf wrapping ErrSyntax: "syntax error: <message>".
func syntaxf(format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrSyntax, fmt.Errorf(format, args...))
}
