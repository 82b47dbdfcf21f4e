//go:build linux

package confine

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// PlantWatch disarms, while a run goes on, what it makes under a
// protected name in one directory (the workspace root): programs outside
// the box (the person's editor, direnv, git, an agent) run at the same
// time and may read such a name before the run ends. An inotify event is
// queued by the creation itself, so the window is the time it takes this
// process to read it and move the entry away.
type PlantWatch struct {
	fd       int
	wake     [2]int // a pipe: Stop writes to end the poll at once
	dir      string
	names    map[string]string // base name -> why it matters
	quarant  string
	stop     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	disarmed []Disarmed
}

// WatchPlants starts watching dir for the entries named in paths (those
// directly in dir; the value says why each matters). It returns nil when
// there is nothing to watch or inotify cannot be had: Disarm after the
// run still applies.
func WatchPlants(dir string, paths map[string]string, quarantine string) *PlantWatch {
	names := map[string]string{}
	for p, why := range paths {
		if filepath.Dir(p) == dir {
			names[filepath.Base(p)] = why
		}
	}
	if len(names) == 0 {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ONLYDIR); err != nil {
		unix.Close(fd)
		return nil
	}
	w := &PlantWatch{fd: fd, dir: dir, names: names, quarant: quarantine, stop: make(chan struct{}), done: make(chan struct{})}
	if err := unix.Pipe2(w.wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		unix.Close(fd)
		return nil
	}
	go w.loop()
	return w
}

func (w *PlantWatch) loop() {
	defer close(w.done)
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wake[0]), Events: unix.POLLIN}}
	for {
		select {
		case <-w.stop:
			w.drain(buf) // what was made just before the run ended
			return
		default:
		}
		if n, err := unix.Poll(fds, -1); err != nil || n == 0 || fds[0].Revents&unix.POLLIN == 0 {
			continue
		}
		w.drain(buf)
	}
}

// drain handles the events queued now.
func (w *PlantWatch) drain(buf []byte) {
	for {
		n, err := unix.Read(w.fd, buf)
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			nameLen := int(binary.NativeEndian.Uint32(buf[off+12 : off+16]))
			start := off + unix.SizeofInotifyEvent
			name := string(bytes.TrimRight(buf[start:min(start+nameLen, n)], "\x00"))
			off = start + nameLen
			if why, ok := w.names[name]; ok {
				d := Disarm([]string{filepath.Join(w.dir, name)}, w.quarant, why)
				w.mu.Lock()
				w.disarmed = append(w.disarmed, d...)
				w.mu.Unlock()
			}
		}
	}
}

// Stop ends the watch and returns what it disarmed.
func (w *PlantWatch) Stop() []Disarmed {
	if w == nil {
		return nil
	}
	close(w.stop)
	unix.Write(w.wake[1], []byte{0})
	<-w.done
	unix.Close(w.fd)
	unix.Close(w.wake[0])
	unix.Close(w.wake[1])
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.disarmed
}
