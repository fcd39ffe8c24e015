// Package architecture holds the rules of which package may import which,
// and a test that reads every Go file of the module to enforce them. The
// rules are those ARCHITECTURE.md draws.
package architecture

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tenurehq/tenure"

// rule forbids packages matching from to import packages matching to,
// unless from is among except. Patterns are module-relative package paths;
// a trailing /... matches the package and everything under it. The tests of
// a folder written as an outside package (package web_test) are a package
// of their own, "web (tests)", held to the rules of the folder's package;
// they may break a rule only where it says so.
type rule struct {
	why    string
	from   []string
	to     []string
	except []string
	// tests lets outside test packages through: they may drive the whole
	// server.
	tests bool
}

// testsSuffix marks a folder's outside test package.
const testsSuffix = " (tests)"

var rules = []rule{
	{
		why:    "one door to the database: only memory, auth (accounts, sessions, tokens) and jobs (its leader lock and job status) run queries",
		from:   []string{"..."},
		to:     []string{"queries"},
		except: []string{"memory", "auth", "jobs", "queries"},
	},
	{
		why:  "the console, the API and MCP stand side by side: none imports another; server mounts them",
		from: []string{"web/..."},
		to:   []string{"api/...", "mcpserver/..."},
	},
	{
		why:  "the console, the API and MCP stand side by side: none imports another; server mounts them",
		from: []string{"api/..."},
		to:   []string{"web/...", "mcpserver/..."},
	},
	{
		why:  "the console, the API and MCP stand side by side: none imports another; server mounts them",
		from: []string{"mcpserver/..."},
		to:   []string{"web/...", "api/..."},
	},
	{
		why:  "the JSON objects both agent surfaces answer with are data: no HTTP, no database, no surface",
		from: []string{"wire"},
		to: []string{"web/...", "api/...", "mcpserver/...", "server/...", "queries", "net/http",
			"github.com/labstack/echo/v4/...", "github.com/modelcontextprotocol/go-sdk/..."},
	},
	{
		why:  "the engine knows nothing of HTTP or pages",
		from: []string{"memory/..."},
		to: []string{"web/...", "api/...", "mcpserver/...", "server/...", "views/...", "static/...",
			"github.com/labstack/echo/v4/...", "github.com/a-h/templ/...", "net/http"},
	},
	{
		why:  "the classifier is pure: text in, classification out",
		from: []string{"memory/classify/..."},
		to:   []string{"..."},
	},
	{
		why:    "the server is assembled once, by the binary and what measures or drives the whole of it",
		from:   []string{"..."},
		to:     []string{"server/..."},
		except: []string{"cmd/tenure", "bench", "quality", "e2e", "reliability", "server/..."},
		tests:  true,
	},
}

// match reports whether pkg, a module-relative path (or an outside import
// path), matches pattern.
func match(pattern, pkg string) bool {
	if pattern == "..." {
		return !strings.Contains(strings.Split(pkg, "/")[0], ".") && !isStd(pkg)
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// isStd reports whether a module-relative name is in fact a standard
// library path: those are recorded with a std: prefix.
func isStd(pkg string) bool { return strings.HasPrefix(pkg, "std:") }

// violations lists the imports of graph (package → imports, both
// module-relative, standard and outside paths as they are) that break a
// rule.
func violations(graph map[string][]string) []string {
	var out []string
	for _, from := range sortedKeys(graph) {
		for _, to := range graph[from] {
			for _, r := range rules {
				pkg := strings.TrimSuffix(from, testsSuffix)
				if !slices.ContainsFunc(r.from, func(p string) bool { return match(p, pkg) }) ||
					slices.ContainsFunc(r.except, func(p string) bool { return match(p, pkg) }) ||
					(r.tests && strings.HasSuffix(from, testsSuffix)) {
					continue
				}
				target := strings.TrimPrefix(to, "std:")
				hit := slices.ContainsFunc(r.to, func(p string) bool {
					if p == "..." {
						return match(p, to) && to != from
					}
					return match(p, target)
				})
				if hit && to != from {
					out = append(out, from+" imports "+target+": "+r.why)
				}
			}
		}
	}
	return out
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// importGraph reads the imports of every Go file under root, test files
// included, as module-relative package paths; a standard library import is
// recorded as std:path, one from outside the module as its full path.
func importGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if strings.HasSuffix(f.Name.Name, "_test") {
			pkg += testsSuffix
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			switch {
			case p == module:
				p = "."
			case strings.HasPrefix(p, module+"/"):
				p = strings.TrimPrefix(p, module+"/")
			case !strings.Contains(strings.Split(p, "/")[0], "."):
				p = "std:" + p
			}
			if !slices.Contains(graph[pkg], p) {
				graph[pkg] = append(graph[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

// TestArchitecture fails on any import that breaks a rule, in production
// code and in tests alike.
func TestArchitecture(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	graph := importGraph(t, root)
	for _, pkg := range []string{"memory", "web", "api", "mcpserver", "queries"} {
		if _, ok := graph[pkg]; !ok {
			t.Fatalf("package %s not found under %s: the walk is broken", pkg, root)
		}
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

// TestRulesCatch: each rule finds the import it forbids, and lets the
// allowed ones through.
func TestRulesCatch(t *testing.T) {
	graph := map[string][]string{
		"web":             {"api", "memory", "std:net/http"},
		"api":             {"queries", "memory"},
		"mcpserver":       {"web"},
		"memory":          {"queries", "std:net/http", "memory/classify"},
		"memory/classify": {"memory", "std:strings"},
		"auth":            {"queries"},
		"demo":            {"server"},
		"cmd/tenure":      {"server"},
		"web (tests)":     {"server", "queries"},
		"api (tests)":     {"mcpserver"},
	}
	got := violations(graph)
	want := []string{
		"api imports queries",
		"api (tests) imports mcpserver",
		"demo imports server",
		"mcpserver imports web",
		"memory imports net/http",
		"memory/classify imports memory",
		"web imports api",
		"web (tests) imports queries",
	}
	if len(got) != len(want) {
		t.Fatalf("violations = %q, want %d of them", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+":") {
			t.Errorf("violation %d = %q, want %q", i, got[i], w)
		}
	}
}
