package confine

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// PlantWatch disarms, while a run goes on, what it makes under a
// protected name in one directory (the workspace root): programs outside
// the box (the person's editor, direnv, git, an agent) run at the same
// time and may read such a name before the run ends. It looks for the
// names every plantPoll (an lstat each); inotify would see them sooner,
// but closing an inotify instance, or a process ending with one, waits
// for a kernel grace period (5–15 ms here), which every run would pay.
type PlantWatch struct {
	dir      string
	paths    map[string]string // path -> why it matters
	quarant  string
	began    time.Time // the directory's modification time as the watch began
	stop     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	disarmed []Disarmed
}

// plantPoll is how often a PlantWatch looks, and plantPollLater how
// often once a run has lasted plantPollFast.
const (
	plantPoll      = time.Millisecond
	plantPollLater = 5 * time.Millisecond
	plantPollFast  = time.Second
)

// mtimeGrain bounds how coarse a directory's modification time may be:
// a kernel without fine-grained timestamps sets it from a clock that
// moves by the jiffy, so an entry made within one of the last look may
// leave it as it was. A directory changed more recently than this is
// looked at whatever its time says.
const mtimeGrain = 50 * time.Millisecond

// plantScans counts the times a watch looked at its names, for tests.
var plantScans atomic.Int64

// WatchPlants starts watching the entries named in paths that lie
// directly in dir (the value says why each matters). It returns nil when
// there is nothing to watch: Disarm after the run applies either way.
func WatchPlants(dir string, paths map[string]string, quarantine string) *PlantWatch {
	w := &PlantWatch{dir: dir, paths: map[string]string{}, quarant: quarantine, stop: make(chan struct{}), done: make(chan struct{})}
	for p, why := range paths {
		if filepath.Dir(p) == dir {
			w.paths[p] = why
		}
	}
	if len(w.paths) == 0 {
		return nil
	}
	// The run's programs have not begun: what changes the directory from
	// here on is looked at.
	if fi, err := os.Stat(dir); err == nil {
		w.began = fi.ModTime()
	}
	go w.loop()
	return w
}

func (w *PlantWatch) loop() {
	defer close(w.done)
	start := time.Now()
	t := time.NewTimer(plantPoll)
	defer t.Stop()
	seen := w.began // the directory's last change looked at
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		// An entry made or renamed in the directory changes its mtime:
		// one stat a tick, and the names only when it changed.
		fi, err := os.Stat(w.dir)
		if err == nil && fi.ModTime().Equal(seen) && time.Since(seen) > mtimeGrain {
			w.next(t, start)
			continue
		}
		if err == nil {
			seen = fi.ModTime()
		}
		plantScans.Add(1)
		for p, why := range w.paths {
			if _, err := os.Lstat(p); err == nil {
				d := Disarm([]string{p}, w.quarant, why)
				w.mu.Lock()
				w.disarmed = append(w.disarmed, d...)
				w.mu.Unlock()
			}
		}
		w.next(t, start)
	}
}

// next sets the timer for the next look.
func (w *PlantWatch) next(t *time.Timer, start time.Time) {
	if time.Since(start) < plantPollFast {
		t.Reset(plantPoll)
	} else {
		t.Reset(plantPollLater)
	}
}

// Stop ends the watch and returns what it disarmed.
func (w *PlantWatch) Stop() []Disarmed {
	if w == nil {
		return nil
	}
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.disarmed
}
