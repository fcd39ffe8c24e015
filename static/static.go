// Package static embeds the console's front-end assets (stylesheet, vendored
// htmx, favicon) and serves them under cache-busted URLs.
//
// Build an [Assets] once at start-up with [New], hand it to the templates so
// they can write asset URLs with [Assets.Path], and mount [Assets.Handler]
// on the [Prefix]:
//
//	assets, err := static.New()
//	if err != nil { … }
//	mux.Handle("GET "+static.Prefix, assets.Handler())
//	…
//	<link rel="stylesheet" href={ assets.Path("css/app.css") }>
//
// A hashed URL such as /static/css/app.1a2b3c4d5e.css is served with a
// one-year immutable Cache-Control. Because the hash changes whenever the
// file does, a deploy never serves stale CSS or JavaScript.
package static

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

//go:embed css js favicon.svg
var embedded embed.FS

// Prefix is the URL path under which [Assets.Handler] serves files. It is
// also the mux pattern to mount the handler on.
const Prefix = "/static/"

// hashLen is the number of hex characters of the SHA-256 content hash that
// go into a file's URL.
const hashLen = 10

// Cache-Control values sent by the handler.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// Assets is the set of embedded files with their content hashes. It is
// immutable after [New] and safe for concurrent use.
type Assets struct {
	byName map[string]*asset // logical name ("css/app.css") → asset
}

type asset struct {
	name        string // logical name, e.g. "css/app.css"
	url         string // cache-busted URL path, e.g. "/static/css/app.1a2b3c4d5e.css"
	hash        string // first hashLen hex chars of sha256(data)
	etag        string // strong ETag: the hash, quoted
	contentType string
	data        []byte
}

// New reads every embedded file and computes its content hash. Call it once
// at start-up; it fails only if the embedded tree cannot be read.
func New() (*Assets, error) {
	return newAssets(embedded)
}

func newAssets(fsys fs.FS) (*Assets, error) {
	a := &Assets{byName: make(map[string]*asset)}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		h := contentHash(data)
		a.byName[name] = &asset{
			name:        name,
			url:         Prefix + hashedName(name, h),
			hash:        h,
			etag:        `"` + h + `"`,
			contentType: contentType(name),
			data:        data,
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static: reading embedded assets: %w", err)
	}
	if len(a.byName) == 0 {
		return nil, fmt.Errorf("static: no embedded assets")
	}
	return a, nil
}

// Path returns the cache-busted URL path of the asset with the given logical
// name, which is its path inside this package's directory: Path("css/app.css")
// returns "/static/css/app.<hash>.css", where <hash> is the first 10 hex
// characters of the SHA-256 of the file's content.
//
// Path panics if no such file is embedded. A wrong name is a programming error
// in a template; the panic makes it fail loudly in tests instead of rendering
// a page with a broken link.
func (a *Assets) Path(name string) string {
	f, ok := a.byName[name]
	if !ok {
		panic(fmt.Sprintf("static: unknown asset %q (known: %s)", name, strings.Join(a.Names(), ", ")))
	}
	return f.url
}

// Names returns the logical names of all embedded files, sorted.
func (a *Assets) Names() []string {
	names := make([]string, 0, len(a.byName))
	for n := range a.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Handler serves the embedded files. It expects the full request path,
// starting with [Prefix] (mount it on "/static/" without http.StripPrefix).
//
//   - /static/css/app.<current hash>.css: the file, with
//     Cache-Control "public, max-age=31536000, immutable".
//   - /static/css/app.css, or a hash that is not the current one (an old page
//     asking for last deploy's file): the current file, with
//     Cache-Control "no-cache" so that it is revalidated every time.
//   - anything else: 404.
//
// Every response carries a strong ETag from the content hash, so conditional
// requests get 304 Not Modified. GET and HEAD are allowed; other methods get
// 405. Range requests are handled by [http.ServeContent].
func (a *Assets) Handler() http.Handler {
	return http.HandlerFunc(a.serve)
}

func (a *Assets) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	f, hash := a.lookup(rest)
	if f == nil {
		http.NotFound(w, r)
		return
	}

	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", f.etag)
	if hash == f.hash {
		h.Set("Cache-Control", cacheImmutable)
	} else {
		h.Set("Cache-Control", cacheRevalidate)
	}
	// Embedded files carry no modification time: with a zero time,
	// ServeContent sends no Last-Modified and relies on the ETag.
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(f.data))
}

// lookup resolves the part of a request path after Prefix to an asset. It
// returns the asset and the hash found in the name ("" when the request had
// none). The exact logical name wins, so a file whose own name happens to
// look hashed is still reachable.
func (a *Assets) lookup(rest string) (*asset, string) {
	if f, ok := a.byName[rest]; ok {
		return f, ""
	}
	name, hash, ok := splitHash(rest)
	if !ok {
		return nil, ""
	}
	if f, ok := a.byName[name]; ok {
		return f, hash
	}
	return nil, ""
}

// contentHash returns the short content hash used in asset URLs: the first
// 10 hex characters of the SHA-256 of data.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:hashLen]
}

// hashedName inserts hash before the file name's extension:
// "css/app.css" → "css/app.<hash>.css", "js/htmx.min.js" → "js/htmx.min.<hash>.js".
// A name without an extension gets it appended: "js/LICENSE" → "js/LICENSE.<hash>".
func hashedName(name, hash string) string {
	dir, file := path.Split(name)
	ext := path.Ext(file)
	if ext == "" || ext == file { // no extension, or a dot-file
		return dir + file + "." + hash
	}
	return dir + strings.TrimSuffix(file, ext) + "." + hash + ext
}

// splitHash is the inverse of hashedName: it removes a hash-shaped segment
// (hashLen lowercase hex characters) from the file name and returns the
// logical name and that hash. It reports false if the name has no such
// segment.
func splitHash(p string) (name, hash string, ok bool) {
	dir, file := path.Split(p)
	ext := path.Ext(file)
	stem := strings.TrimSuffix(file, ext)
	// "app.<hash>.css"
	if i := strings.LastIndexByte(stem, '.'); i > 0 && isHash(stem[i+1:]) {
		return dir + stem[:i] + ext, stem[i+1:], true
	}
	// "LICENSE.<hash>"
	if len(ext) > 1 && stem != "" && isHash(ext[1:]) {
		return dir + stem, ext[1:], true
	}
	return "", "", false
}

func isHash(s string) bool {
	if len(s) != hashLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// contentType gives the Content-Type for a file name. The common types are
// fixed here rather than taken from the host's MIME tables, which differ
// between systems (e.g. application/javascript vs text/javascript).
func contentType(name string) string {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".json", ".map":
		return "application/json"
	case ".png":
		return "image/png"
	case ".ico":
		return "image/x-icon"
	case ".woff2":
		return "font/woff2"
	case ".txt", "":
		return "text/plain; charset=utf-8"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}
