package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows how far long work has come (import, export, bench seed,
// consolidate). On a terminal it draws a bar on standard error: the phase,
// done/total, the rate and the time left. Anywhere else (a pipe, a file, a
// log collector), or with --json, it writes one JSON object per line to
// standard error instead, at most once per interval and once at the end,
// so that a machine can follow a run without parsing a bar:
//
//	{"progress":"import","phase":"read","done":52428800,"total":104857600,"unit":"bytes",
//	 "rate":26214400,"elapsed_s":2,"eta_s":2,"lines":250000}
//
// rate is units per second since the phase began; eta_s is the seconds
// left at that rate, absent while the total is unknown. Extra counters
// (lines for an import) ride beside them.
type progress struct {
	task  string
	w     io.Writer
	bar   *progressbar.ProgressBar // nil when writing JSON lines
	every time.Duration
	now   func() time.Time

	mu         sync.Mutex
	phase      string
	unit       string
	done       int64
	total      int64 // -1 while unknown
	extra      map[string]int64
	phaseStart time.Time
	lastJSON   time.Time
	finished   bool
}

// progressEvery is how often the JSON lines come at most.
const progressEvery = time.Second

// progressRecord is one JSON line of progress.
type progressRecord struct {
	Progress string           `json:"progress"`
	Phase    string           `json:"phase"`
	Done     int64            `json:"done"`
	Total    *int64           `json:"total,omitempty"`
	Unit     string           `json:"unit"`
	Rate     float64          `json:"rate"`
	Elapsed  float64          `json:"elapsed_s"`
	ETA      *float64         `json:"eta_s,omitempty"`
	Extra    map[string]int64 `json:"-"`
	Final    bool             `json:"final,omitempty"`
}

// newProgress starts the progress of task on env's standard error: a bar
// when it is a terminal and asJSON is false, JSON lines otherwise.
func newProgress(env *environment, task string, asJSON bool) *progress {
	p := &progress{task: task, w: env.stderr, every: progressEvery, now: time.Now, total: -1}
	if f, ok := env.stderr.(*os.File); ok && !asJSON && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription(task),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// set reports that the phase has done of total units (total < 0 when
// unknown); extra counters, when given, replace the previous ones.
func (p *progress) set(phase, unit string, done, total int64, extra map[string]int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	newPhase := phase != p.phase
	if newPhase {
		p.phase, p.unit, p.phaseStart = phase, unit, now
	}
	p.done, p.total = done, total
	if extra != nil {
		p.extra = extra
	}
	if p.bar != nil {
		if newPhase {
			p.bar.Reset()
			p.bar.ChangeMax64(total)
			p.bar.Describe(p.task + " " + phase)
		} else if total != p.bar.GetMax64() {
			p.bar.ChangeMax64(total)
		}
		_ = p.bar.Set64(done)
		return
	}
	if newPhase || p.lastJSON.IsZero() || now.Sub(p.lastJSON) >= p.every {
		p.writeJSON(now, false)
	}
}

// finishAt records done of total in the current phase and finishes: one
// final line with the last counts, not a line of its own before it.
func (p *progress) finishAt(done, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done, p.total = done, total
	if p.bar != nil {
		p.bar.ChangeMax64(total)
		_ = p.bar.Set64(done)
	}
	p.mu.Unlock()
	p.finish()
}

// finish writes the last state: the final JSON line, or clears the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	if p.bar != nil {
		_ = p.bar.Finish()
		return
	}
	if p.phase != "" {
		p.writeJSON(p.now(), true)
	}
}

func (p *progress) writeJSON(now time.Time, final bool) {
	p.lastJSON = now
	elapsed := now.Sub(p.phaseStart).Seconds()
	r := progressRecord{Progress: p.task, Phase: p.phase, Done: p.done, Unit: p.unit, Elapsed: round2(elapsed), Final: final}
	if elapsed > 0 {
		r.Rate = round2(float64(p.done) / elapsed)
	}
	if p.total >= 0 {
		total := p.total
		r.Total = &total
		if r.Rate > 0 {
			eta := round2(float64(max(p.total-p.done, 0)) / r.Rate)
			r.ETA = &eta
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	if len(p.extra) > 0 {
		// The extra counters sit beside the fixed fields.
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			for k, v := range p.extra {
				m[k] = v
			}
			if b2, err := json.Marshal(m); err == nil {
				b = b2
			}
		}
	}
	fmt.Fprintf(p.w, "%s\n", b)
}

func round2(f float64) float64 {
	return float64(int64(f*100+0.5)) / 100
}
