package planner

import "errors"

// joinErrors is errors.Join that returns nil for an empty list.
func joinErrors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}
