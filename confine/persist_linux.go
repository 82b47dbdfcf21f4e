//go:build linux

package confine

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/dirwatch"
)

// A one-shot vtexec process would build a box's mount namespace and tear
// it down again at exit, which waits for RCU grace periods (a few ms).
// As root, a box keeps its mount namespaces between processes instead:
// bound to a file in persistDir, named by everything the namespace was
// built from (the spec, and the identity of every path it binds or
// protects), so a later box with the same key enters it, and a changed
// world (a placeholder removed, a directory replaced) gets a new one.
// At most persistKeep are kept; the oldest go first.

const (
	persistDir  = "/run/vtexec/mnt"
	persistKeep = 32
	nsfsMagic   = 0x6e736673
	// mountLayout names how setUpMounts builds a namespace; change it
	// with setUpMounts, so that one an older vtexec kept is not entered.
	mountLayout = "10" // 2: /proc mounted hidepid=ptraceable; 3: git directories protected whole (protectGitDir); 4: a root of its own (newRoot); 5: links in protected places followed; 6: (unused); 7: binds under /dev (runs in /dev/shm); 8: a /dev/shm of its own; 9: /etc files that identify the system; 10: links among them bound as what they lead to
)

// mountBuilds counts mount namespaces built, for tests.
var mountBuilds atomic.Int64

// SpecKey names what a box is built from: its mode, its spec and the
// identity of every path it binds or protects.
//
// A server asks for the key of the same spec several times a call (to
// find its box, to see whether a template still serves): from the
// second time, the key is kept while a watch sees no entry made,
// removed or renamed under the name of any of those paths or of the
// directories above them, which is how a program changes an identity (a
// file put in a path's place, a directory renamed away); a mount made
// over one, which no box's program can make, is not seen.
func SpecKey(spec Spec, mode Mode) string {
	text := string(specText(spec, mode))
	if key, ok := specKeys.Get(text); ok {
		return key
	}
	paths := specPaths(spec)
	var w *dirwatch.Watch // before the identities: a change after shows
	if specKeys.Again(text) {
		if w = dirwatch.NewEntries(); !w.AddPaths(paths...) {
			w.Close()
			w = nil
		}
	}
	key := specKey(text, paths)
	specKeys.Put(text, key, w)
	return key
}

// specKeys are SpecKey's keys, by the spec's text.
var specKeys = dirwatch.Kept[string, string]{Max: 16}

// specKeysMade counts keys made from the paths' identities, for tests.
var specKeysMade atomic.Int64

// specPaths are the paths a box binds or protects.
func specPaths(spec Spec) []string {
	paths := append(append([]string{}, spec.ReadWrite...), spec.ReadOnly...)
	paths = append(paths, spec.GitDirs...)
	for _, p := range spec.Protected {
		paths = append(paths, p.Path)
	}
	return paths
}

// specKey is SpecKey made from the paths' identities now.
func specKey(text string, paths []string) string {
	specKeysMade.Add(1)
	key := append([]byte(mountLayout+"|"), text...)
	for _, p := range paths {
		key = append(key, '|')
		key = append(key, p...)
		key = append(key, ':')
		key = appendIdentity(key, p)
	}
	return string(key)
}

// identity tells one file from another that took its place: device,
// inode and type, and the birth time, since a new file may reuse the
// inode number of one just removed (the change time where the file
// system keeps no birth time, which also changes on other updates).
func identity(p string) string { return string(appendIdentity(nil, p)) }

func appendIdentity(b []byte, p string) []byte {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &st); err != nil {
		return append(b, '-')
	}
	born := st.Btime
	if st.Mask&unix.STATX_BTIME == 0 {
		born = st.Ctime
	}
	for i, n := range []uint64{uint64(st.Dev_major), uint64(st.Dev_minor), st.Ino} {
		if i > 0 {
			b = append(b, ':')
		}
		b = strconv.AppendUint(b, n, 10)
	}
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(st.Mode&unix.S_IFMT), 8)
	b = append(b, ':')
	b = strconv.AppendInt(b, born.Sec, 10)
	b = append(b, '.')
	return strconv.AppendUint(b, uint64(born.Nsec), 10)
}

// persistedNetns is where the network namespace of a workspace is kept.
func persistedNetns(root string) string {
	sum := sha256.Sum256([]byte("net|" + root + "|" + identity(root)))
	return filepath.Join(persistDir, "net-"+hex.EncodeToString(sum[:16]))
}

// persistedPath is where the namespace of key (for git or the others)
// is kept.
func persistedPath(key string, git bool) string {
	sum := sha256.Sum256([]byte(key + "|git=" + strconv.FormatBool(git)))
	return filepath.Join(persistDir, hex.EncodeToString(sum[:16]))
}

// openPersisted opens a kept namespace, if path holds one.
func openPersisted(path string) (int, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, false
	}
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil || fs.Type != nsfsMagic {
		unix.Close(fd)
		return -1, false
	}
	return fd, true
}

// persist keeps the namespace fd at path. It must run on a thread in
// vtexec's own mount namespace. Failing to keep it costs only speed.
func persist(fd int, path string) {
	if err := privateRootDir(filepath.Dir(persistDir)); err != nil {
		return
	}
	if err := privateRootDir(persistDir); err != nil {
		return
	}
	f, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return // another process keeps one under this key already
	}
	unix.Close(f)
	if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), path, "", unix.MS_BIND, ""); err != nil {
		unix.Unlink(path)
		return
	}
	collectPersisted()
}

// privateRootDir makes dir (0700) or accepts it only as root's own
// directory that no one else can write.
func privateRootDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return err
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != 0 || st.Mode&0o022 != 0 {
		return fmt.Errorf("%s is not root's own directory", dir)
	}
	return nil
}

// collectPersisted drops the oldest kept namespaces beyond persistKeep.
func collectPersisted() {
	entries, err := os.ReadDir(persistDir)
	if err != nil || len(entries) <= persistKeep {
		return
	}
	var all []keptNS
	for _, e := range entries {
		// Another process may be collecting at the same time: an entry
		// read above can be gone by now.
		if fi, err := e.Info(); err == nil {
			all = append(all, keptNS{filepath.Join(persistDir, e.Name()), fi.ModTime().UnixNano()})
		}
	}
	for _, k := range oldestBeyond(all, persistKeep) {
		unix.Unmount(k.path, unix.MNT_DETACH)
		unix.Unlink(k.path)
	}
}

// keptNS is one kept namespace and when it was kept.
type keptNS struct {
	path string
	at   int64
}

// oldestBeyond returns the oldest of all beyond the keep newest (none if
// there are no more than keep); it sorts all.
func oldestBeyond(all []keptNS, keep int) []keptNS {
	if len(all) <= keep {
		return nil
	}
	slices.SortFunc(all, func(a, b keptNS) int { return cmp.Compare(a.at, b.at) })
	return all[:len(all)-keep]
}
