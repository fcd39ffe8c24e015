package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/memory"
)

const (
	exportUsage = "usage: tenure export [--scope S] [--json] > file.jsonl"
	importUsage = "usage: tenure import FILE.jsonl [--dry-run] [--json]   (FILE - reads standard input; progress goes to standard error)"
)

// runExport writes every fact (of one scope with --scope), archived ones
// included, as JSON Lines to standard output: one object per fact with
// every field needed to restore it exactly, and its decision if it is one.
func runExport(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var scope string
	var asJSON bool
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&scope, "scope", "", "export only the facts of this scope (default: every scope)")
	fs.BoolVar(&asJSON, "json", false, "report progress as JSON lines on standard error, even on a terminal")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	scope = strings.TrimSpace(scope)
	if scope != "" {
		if _, err := memory.ParseScope(scope); err != nil {
			return usagef("export: %v\n%s", err, exportUsage)
		}
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	db, store, err := openStore(ctx, env, &cfg)
	if err != nil {
		return err
	}
	defer db.close()
	total, err := store.CountExport(ctx, scope)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	prog := newProgress(env, "export", asJSON)
	prog.set("write", "facts", 0, int64(total), nil)
	w := bufio.NewWriterSize(env.stdout, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	done := int64(0)
	n, err := store.Export(ctx, scope, func(f memory.TransferFact) error {
		done++
		prog.set("write", "facts", done, max(int64(total), done), nil)
		return enc.Encode(f)
	})
	prog.finish()
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(env.stderr, "exported %d facts\n", n)
	return nil
}

// runImport imports a JSON Lines file of facts, as tenure export writes
// them (legacy rows may give data_type), in one transaction. Any bad line
// refuses the whole file, naming every bad line, and nothing is written
// (exit status 1); --dry-run validates and reports without writing.
func runImport(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var dryRun, asJSON bool
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.BoolVar(&dryRun, "dry-run", false, "validate the file against the database and report, writing nothing")
	fs.BoolVar(&asJSON, "json", false, "print the report (or the bad lines) as JSON")
	// The file may come before or after the flags: tenure import f.jsonl --dry-run.
	var files []string
	for {
		if err := parseFlags(fs, args, 1<<30); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(files) {
	case 0:
		return usagef("import: name the file to import\n%s", importUsage)
	case 1:
	default:
		return usagef("import: unexpected arguments: %s\n%s", strings.Join(files[1:], " "), importUsage)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	in, size, closeIn, err := openInput(env, files[0])
	if err != nil {
		return err
	}
	defer closeIn()
	db, store, err := openStore(ctx, env, &cfg)
	if err != nil {
		return err
	}
	defer db.close()
	read := &countingReader{r: in}
	prog := newProgress(env, "import", asJSON)
	opts := memory.ImportOptions{DryRun: dryRun, Progress: importProgress(prog, read, size)}
	report, err := store.ImportStream(ctx, memory.System(memory.SourceImport), api.ReadImport(read), opts)
	prog.finish()
	if ie := memory.AsError(err); ie != nil && ie.Problems != nil {
		if asJSON {
			if perr := printJSON(env.stdout, map[string]any{"error": ie.Message, "lines": ie.Problems}); perr != nil {
				return perr
			}
		}
		return fmt.Errorf("import %s: %w", files[0], ie)
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", files[0], err)
	}
	if asJSON {
		return printJSON(env.stdout, report)
	}
	printImportReport(env.stdout, report)
	return nil
}

// openInput opens the file to import, or standard input for "-", and
// tells its size when it is a regular file (-1 otherwise).
func openInput(env *environment, name string) (io.Reader, int64, func(), error) {
	if name == "-" {
		return env.stdin, -1, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("import: %w", err)
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, func() { f.Close() }, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// importProgress turns the engine's progress into prog's: the read phase
// in bytes of the file (of size bytes, -1 when unknown), the later phases
// in facts; every record carries the lines read.
func importProgress(prog *progress, read *countingReader, size int64) func(memory.ImportProgress) {
	return func(ip memory.ImportProgress) {
		extra := map[string]int64{"lines": int64(ip.Lines)}
		switch ip.Phase {
		case memory.ImportPhaseRead:
			total := size
			if total >= 0 && read.n > total {
				total = read.n
			}
			prog.set(ip.Phase, "bytes", read.n, total, extra)
		case memory.ImportPhaseCheck:
			prog.set(ip.Phase, "lines", int64(ip.Lines), int64(ip.Lines), extra)
		default:
			prog.set(ip.Phase, "facts", int64(ip.Done), int64(ip.Total), extra)
		}
	}
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printImportReport(w io.Writer, r memory.ImportReport) {
	verb := "Imported"
	if r.DryRun {
		verb = "Dry run, nothing written: would import"
	}
	fmt.Fprintf(w, "%s %d lines: %d facts (%d decisions), %d new entities, %d already present.\n",
		verb, r.Lines, r.Facts, r.Decisions, r.EntitiesCreated, r.AlreadyPresent)
	keys := make([]string, 0, len(r.ByMapping))
	for k := range r.ByMapping {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintln(w, "Lines by mapping:")
	for _, k := range keys {
		fmt.Fprintf(w, "  %-24s %d\n", k, r.ByMapping[k])
	}
}
