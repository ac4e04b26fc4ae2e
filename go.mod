module github.com/memplan/memplan

go 1.26

require (
	github.com/chzyer/readline v1.5.1 // indirect
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/emirpasic/gods v1.18.1 // indirect
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20250417193237-f615e6bd150b // indirect
	github.com/progrium/darwinkit v0.5.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/sys v0.32.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
