// Command testifyconv rewrites hand-written test checks into testify
// assertions, mechanically and without weakening any of them.
//
// A check is an if statement with no else whose body is exactly one call
// t.Fatal, t.Fatalf, t.Error or t.Errorf on a *testing.T, *testing.B,
// *testing.F, testing.TB or *rapid.T. Fatal becomes a require assertion (a
// precondition: the test stops), Error an assert assertion (the test goes
// on); under rapid both become require, so a failing case stops where it
// fails and rapid shrinks it. The condition chooses the assertion, using
// go/types so that the assertion fails exactly when the condition held:
//
//	err != nil           NoError(t, err)      err of static type error only
//	err == nil           Error(t, err)
//	!errors.Is(err, E)   ErrorIs(t, err, E)   (and NotErrorIs)
//	got != want          Equal(t, want, got)  types whose == is reflect.DeepEqual:
//	                                          numbers, strings, bools, and arrays
//	                                          and structs of them; an untyped
//	                                          constant is converted to the other
//	                                          side's type (Equal compares types)
//	p != q (pointers)    Same(t, q, p)        (and NotSame)
//	p != nil (pointer,   Nil(t, p)            (and NotNil); never for interfaces,
//	slice, map, chan)                         whose nil test differs
//	len(x) != n          Len(t, x, n)         x a slice, map, string, chan, array
//	len(x) != 0          Empty(t, x)          (and == 0: NotEmpty)
//	a > b (ints, strings) LessOrEqual(t, a, b) (and the other three orders)
//	!strings.Contains    Contains(t, s, sub)
//	!cond                True(t, cond)
//	anything else        False(t, cond)       the faithful fallback
//
// Floats compare with Equal (reflect.DeepEqual uses == on floats, so NaN
// fails either way) but never with the ordering assertions. The failure
// message is kept: the call's arguments become the assertion's message
// (Fatalf's format and arguments as they are; Fatal's operands as "%v %v").
// An assertion evaluates its message before it knows the outcome, while the
// original evaluated it only on failure, so a check whose message needs
// more than reading variables, constants, value fields and conversions (a
// method call such as err.Error(), a pointer dereference, an index) is left
// as it is. An init statement (if err := f(); err != nil) is hoisted before
// the assertion only when no name it declares is visible there already or
// declared again later in the block. Comments inside a converted statement
// move above it. Every rewritten package is type-checked again before
// anything is written.
//
// The tool counts the checks of each package before (t.Fatal/t.Error call
// sites, and how many of them are if-blocks it recognises) and after
// (testify calls plus the remaining t.Fatal/t.Error calls) and prints the
// table; it exits 1 if any package has fewer checks after than before.
//
// Usage, from inside the module:
//
//	go run ./internal/tools/testifyconv [-w] ./profile/... ./onnx
//	go run ./internal/tools/testifyconv -negate file_test.go:LINE
//
// Without -w it prints the table and writes nothing. -negate turns the
// testify assertion on that line into its opposite (Equal into NotEqual,
// Len into Len with n+1, ...), for mutation runs: the package's tests must
// then fail (scripts/testifyconv_mutation.sh).
//
// The calls in order: load (go list, parse, type-check with export data),
// convert (one edit per recognised check), fixImports, check again, count,
// write.
package main
