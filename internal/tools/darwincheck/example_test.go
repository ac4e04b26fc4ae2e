package main

import (
	"fmt"
	"path/filepath"
)

func ExampleModuleDir() {
	fmt.Println(filepath.ToSlash(ModuleDir("/cache", "github.com/progrium/darwinkit", "v0.5.0")))
	fmt.Println(filepath.ToSlash(ModuleDir("/cache", "github.com/BurntSushi/toml", "v1.3.2")))
	// Output:
	// /cache/github.com/progrium/darwinkit@v0.5.0
	// /cache/github.com/!burnt!sushi/toml@v1.3.2
}
