package scenario

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"
)

// builtinFS holds the built-in scenarios, one JSON file per name.
//
//go:embed builtin/*.json
var builtinFS embed.FS

// BuiltinNames lists the built-in scenarios, sorted.
func BuiltinNames() []string {
	entries, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Builtin returns the built-in scenario name, parsed, with its JSON.
func Builtin(name string) (*Scenario, []byte, error) {
	data, err := builtinData(name)
	if err != nil {
		return nil, nil, err
	}
	s, err := Parse(data)
	if err != nil {
		err.(*Error).File = BuiltinPrefix + name
		return nil, data, err
	}
	return s, data, nil
}

func builtinData(name string) ([]byte, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name != path.Clean(name) {
		return nil, fmt.Errorf("no built-in scenario %q (have: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	data, err := builtinFS.ReadFile("builtin/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("no built-in scenario %q (have: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	return data, nil
}
