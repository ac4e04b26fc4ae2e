module github.com/memplan/memplan

go 1.26

require (
	github.com/ebitengine/purego v0.11.3
	github.com/emirpasic/gods/v2 v2.0.0-alpha
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/progrium/darwinkit v0.5.0
	github.com/stretchr/testify v1.12.1
	google.golang.org/protobuf v1.36.12
	pgregory.net/rapid v1.3.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
