module github.com/memplan/memplan

go 1.26

require (
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/progrium/darwinkit v0.5.0
	google.golang.org/protobuf v1.36.12
	pgregory.net/rapid v1.3.0
)
