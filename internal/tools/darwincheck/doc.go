// Command darwincheck type-checks darwin-only Go packages on any host.
//
// exec/metal is built only with `//go:build darwin && cgo`, so on Linux the
// go command never compiles it and a misspelt darwinkit method or a wrong
// argument type would first show up on a Mac. darwincheck closes that gap:
// it selects files with go/build under GOOS=darwin, GOARCH=arm64 and cgo
// enabled, parses them, and type-checks them with go/types using
// Config.FakeImportC (so `import "C"` needs no SDK) and a recursive source
// importer. The importer resolves this module's packages from the module
// root, required modules from the module cache at the versions go.mod
// names, and the standard library from GOROOT/src, each under the same
// darwin context; dependencies are checked for declarations only. With
// -tests (the default) the packages' _test.go files are checked too, as go
// vet does: in-package tests with the package, external tests after it. Every
// constant selector passed to darwinkit's objc.Sel is also looked up in
// darwinkit's sources and a short Apple list, and an unknown one is
// reported as a warning; an objc.Call whose constant selector takes a
// different number of arguments (one per colon) than it is given is an
// error.
//
// Usage, from anywhere inside the module:
//
//	go mod download github.com/progrium/darwinkit
//	go run ./internal/tools/darwincheck [-v] ./exec/metal
//
// Findings print as file:line:col: message (warnings as
// file:line:col: warning: message). On success one line names the packages
// and counts the files checked:
//
//	darwincheck: ok: darwin/arm64: 1 package, 24 files (9 + 15 tests): github.com/memplan/memplan/exec/metal
//
// The exit status is 0 when no package has an error, 1 when any has, 2 when
// the tool cannot run. The calls in order: NewChecker(Config) reads go.mod;
// Checker.Check(dir) loads, checks and returns the sorted diagnostics;
// Checker.Checked() lists the packages and files checked so far.
package main
