//go:build linux

package confine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Without root a fresh process makes the user and network namespaces its
// programs share (PrepareNamespaces: ~1 ms of a CPU), and each program's
// child builds the box's mount namespace (~1.3 ms) after its plan has
// looked at the machine's files (~0.3 ms). Without root nothing but a
// process can hold a namespace, so an ending process cannot keep them for
// the next as root does (persist_linux.go). A keeper is that process:
// vtexec's binary, started by the first fresh run of a workspace that
// found none, holding that run's user and network namespaces and the
// templates of the box's mount namespace (template_linux.go) made in them
// for the specs later runs asked for. It lists what it holds in an index
// beside its socket (its pid, and each namespace's descriptor number and
// inode); a later fresh process of the same user and workspace opens them
// through /proc/PID/fd, which wakes no process, and checks each is the
// namespace the index names, of the type it must be, owned by the user
// namespace it must be. Its programs then start from copies of the
// templates, as a server's do. The keeper runs nothing: no program
// enters a template (each gets a copy with a procfs and a /dev/shm of its
// own); the network namespace is the workspace's, as root's is. It is
// trusted only in the caller's own user namespace, where no box's program
// is; it makes a template when a process asks on its socket (a peer in
// another user namespace is refused), and ends once its index went
// untouched for keeperIdle, its socket is removed or replaced, or its
// workspace is removed.

const (
	keeperArg0    = "vtexec-keeper"
	keeperEnv     = "VTEXEC_KEEPER_SOCKET"
	keeperRootEnv = "VTEXEC_KEEPER_ROOT"
	// keeperIdle is how long a keeper stays with its index untouched (a
	// process that uses it touches it).
	keeperIdle = 5 * time.Minute
	// keeperTemplates bounds the templates a keeper holds; the oldest go.
	keeperTemplates = 8
	// keeperWait bounds how long a process waits on a keeper's socket.
	keeperWait = 200 * time.Millisecond

	nsGetUserns   = 0xb701
	nsGetNstype   = 0xb703
	nsGetOwnerUID = 0xb704
)

// keepDir is where keepers' sockets are ("" or nil: no keeper).
var keepDir atomic.Pointer[string]

// KeepNamespacesIn names the directory (in vtexec's state) where a fresh
// process without root finds the keeper of its workspace's namespaces,
// and starts one; "" (the default) keeps none.
func KeepNamespacesIn(dir string) { keepDir.Store(&dir) }

// keeperStarts and keeperTemplatesGot count keepers started and
// templates a box got from a keeper, for tests.
var keeperStarts, keeperTemplatesGot atomic.Int64

// keeperSocket is the socket of the keeper of root's namespaces for this
// user and this vtexec binary, or "" if there is none to have.
func keeperSocket(root string) string {
	dir := keepDir.Load()
	if dir == nil || *dir == "" || root == "" || os.Geteuid() == 0 {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	id := identity(exe) // another build of vtexec has another ("-": gone)
	if id == "-" {
		return ""
	}
	sum := sha256.Sum256([]byte(strconv.Itoa(os.Getuid()) + "\x00" + root + "\x00" + id + "\x00" + mountLayout))
	return filepath.Join(*dir, hex.EncodeToString(sum[:12])+".sock")
}

// socketAddr is the address of the socket at path: path itself, or,
// where it is longer than an address may be (107 bytes), the name in its
// directory opened (release closes it once bound or connected).
func socketAddr(path string) (addr *unix.SockaddrUnix, release func(), err error) {
	if len(path) < len(unix.RawSockaddrUnix{}.Path) {
		return &unix.SockaddrUnix{Name: path}, func() {}, nil
	}
	dir, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return &unix.SockaddrUnix{Name: "/proc/self/fd/" + strconv.Itoa(dir) + "/" + filepath.Base(path)}, func() { unix.Close(dir) }, nil
}

// keeperRequest is what a process asks a keeper: to make the template of
// Spec in Mode for Git.
type keeperRequest struct {
	Git  bool  `json:"git,omitempty"`
	Spec *Spec `json:"spec,omitempty"`
	Mode Mode  `json:"mode,omitempty"`
}

// keeperIndex is what a keeper holds, as its index lists it.
type keeperIndex struct {
	PID       int              `json:"pid"`
	User      heldNS           `json:"user"`
	Net       heldNS           `json:"net"`
	Templates []keeperTemplate `json:"templates,omitempty"`
}

// heldNS is a namespace a keeper holds: its descriptor there and inode.
type heldNS struct {
	FD  int    `json:"fd"`
	Ino uint64 `json:"ino"`
}

// keeperTemplate is one template a keeper holds.
type keeperTemplate struct {
	Key    string   `json:"key"`
	Git    bool     `json:"git,omitempty"`
	NS     heldNS   `json:"ns"`
	Absent []string `json:"absent,omitempty"`
	Links  []string `json:"links,omitempty"`
}

// indexPath is the index beside the keeper's socket.
func indexPath(socket string) string { return socket + ".json" }

// sameUserNamespace reports whether the process pid is in the caller's
// user namespace, and of the caller's user: a box's program is in one of
// its own.
func sameUserNamespace(pid int32, uid uint32) bool {
	if uid != uint32(os.Getuid()) {
		return false
	}
	var mine, theirs unix.Stat_t
	if unix.Stat("/proc/self/ns/user", &mine) != nil || unix.Stat("/proc/"+strconv.Itoa(int(pid))+"/ns/user", &theirs) != nil {
		return false
	}
	return mine.Dev == theirs.Dev && mine.Ino == theirs.Ino
}

// processUID is the uid that owns the process pid (^0 if unknown).
func processUID(pid int) uint32 {
	var st unix.Stat_t
	if unix.Stat("/proc/"+strconv.Itoa(pid), &st) != nil {
		return ^uint32(0)
	}
	return st.Uid
}

// peerTrusted reports whether the other end of the connected socket fd
// is a process of the caller's user in the caller's user namespace.
func peerTrusted(fd int) bool {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	return err == nil && sameUserNamespace(cred.Pid, cred.Uid)
}

// send writes one message to the socket fd.
func send(fd int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return unix.Sendmsg(fd, data, nil, nil, 0)
}

// receive reads one message into v; descriptors sent with it are
// closed.
func receive(fd int, v any) error {
	buf := make([]byte, 1<<20)
	oob := make([]byte, unix.CmsgSpace(4*16))
	n, oobn, flags, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return err
	}
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if fds, err := unix.ParseUnixRights(&m); err == nil {
				for _, d := range fds {
					unix.Close(d)
				}
			}
		}
	}
	if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 || n == 0 {
		return errors.New("confine: a request to a keeper that does not fit")
	}
	return json.Unmarshal(buf[:n], v)
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// nsInfo is a namespace's type and the inode of the user namespace that
// owns it (for a user namespace, its owner's uid instead).
func nsInfo(f *os.File) (nstype int, owner uint64, err error) {
	nstype, err = unix.IoctlRetInt(int(f.Fd()), nsGetNstype)
	if err != nil {
		return 0, 0, err
	}
	if nstype == unix.CLONE_NEWUSER {
		var uid uint32
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), nsGetOwnerUID, uintptr(unsafe.Pointer(&uid))); e != 0 {
			return 0, 0, e
		}
		return nstype, uint64(uid), nil
	}
	ufd, err := unix.IoctlRetInt(int(f.Fd()), nsGetUserns)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Close(ufd)
	var st unix.Stat_t
	if err := unix.Fstat(ufd, &st); err != nil {
		return 0, 0, err
	}
	return nstype, st.Ino, nil
}

// ownedBy reports whether f is a namespace of type nstype owned by the
// user namespace user.
func ownedBy(f *os.File, nstype int, user *os.File) bool {
	t, owner, err := nsInfo(f)
	var st unix.Stat_t
	return err == nil && t == nstype && unix.Fstat(int(user.Fd()), &st) == nil && owner == st.Ino
}

// keeperClient is a connection to a keeper.
type keeperClient struct{ fd int }

// dialKeeper connects to the keeper at path, or returns nil.
func dialKeeper(path string) *keeperClient {
	if path == "" {
		return nil
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	tv := unix.NsecToTimeval(keeperWait.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv) // a request has no answer to wait for
	addr, release, err := socketAddr(path)
	if err != nil {
		unix.Close(fd)
		return nil
	}
	err = unix.Connect(fd, addr)
	release()
	if err != nil {
		unix.Close(fd)
		return nil
	}
	// The socket's peer is the process that listened: the run that
	// started the keeper. Of another user, it is not this user's keeper.
	if cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED); err != nil || cred.Uid != uint32(os.Getuid()) {
		unix.Close(fd)
		return nil
	}
	return &keeperClient{fd: fd}
}

func (k *keeperClient) close() {
	if k != nil {
		unix.Close(k.fd)
	}
}

// ask sends req, which has no answer.
func (k *keeperClient) ask(req keeperRequest) { send(k.fd, req) }

// openKept opens the namespace n of the keeper pid, if it is still the
// one of that inode and of type nstype.
func openKept(pid int, n heldNS, nstype int) *os.File {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(n.FD))
	if err != nil {
		return nil
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Ino != n.Ino {
		f.Close()
		return nil
	}
	if t, err := unix.IoctlRetInt(int(f.Fd()), nsGetNstype); err != nil || t != nstype {
		f.Close()
		return nil
	}
	return f
}

// startKeeper starts a keeper of root's namespaces user and net at
// path, with its first requests, unless one answers there (which is then
// asked them). The socket and the index are made here: the keeper makes
// no entry in the directory, which a caller may remove as it ends.
func startKeeper(root, path string, user, net *os.File, requests []keeperRequest) bool {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false
	}
	lfd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	listener := os.NewFile(uintptr(lfd), "keeper")
	defer listener.Close()
	addr, release, err := socketAddr(path)
	if err != nil {
		return false
	}
	defer release()
	if err := unix.Bind(lfd, addr); errors.Is(err, unix.EADDRINUSE) {
		if k := dialKeeper(path); k != nil {
			defer k.close()
			for _, req := range requests {
				k.ask(req)
			}
			return true
		}
		// A socket a keeper that ended left: nothing answers it.
		os.Remove(path)
		if unix.Bind(lfd, addr) != nil {
			return false
		}
	} else if err != nil {
		return false
	}
	// Listening before the keeper starts: a run that comes meanwhile
	// finds it, its requests waiting for the keeper, and does not take
	// the socket for one a keeper that ended left.
	if unix.Listen(lfd, 16) != nil {
		os.Remove(path)
		return false
	}
	// A new index, not an old one's file: a keeper that ended removes
	// its own only.
	os.Remove(indexPath(path))
	index, err := os.OpenFile(indexPath(path), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		os.Remove(path)
		return false
	}
	defer index.Close()
	// Its first requests come on a pipe.
	first, err := json.Marshal(requests)
	if err != nil {
		os.Remove(path)
		return false
	}
	r, w, err := os.Pipe()
	if err != nil {
		os.Remove(path)
		return false
	}
	defer r.Close()
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{keeperArg0}
	cmd.Env = []string{keeperEnv + "=" + path, keeperRootEnv + "=" + root}
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{listener, user, net, r, index}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		os.Remove(path)
		return false
	}
	keeperStarts.Add(1)
	go cmd.Wait()  // a keeper outlives a process that ends; one that does not reaps it
	w.Write(first) // within a pipe's buffer: a spec is some kilobytes
	w.Close()
	return true
}

func init() {
	if len(os.Args) == 1 && os.Args[0] == keeperArg0 && os.Getenv(keeperEnv) != "" {
		os.Exit(keeperMain(os.Getenv(keeperEnv), os.Getenv(keeperRootEnv)))
	}
}

// keeper is the state of a keeper process.
type keeper struct {
	index     *os.File
	user, net *os.File
	mu        sync.Mutex
	templates map[keeperSlot]*keptTemplate
	making    chan struct{}
}

// keeperSlot names a template: its SpecKey, and git or not.
type keeperSlot struct {
	key string
	git bool
}

type keptTemplate struct {
	t    *mountTemplate
	made time.Time
}

// keeperMain serves the listener on descriptor 3 with the namespaces on
// 4 (user) and 5 (network), its first requests on 6 and its index on 7,
// until the index went untouched for keeperIdle, its socket at path is
// removed or replaced, or the workspace root is.
func keeperMain(path, root string) int {
	name := []byte(keeperArg0 + "\x00")
	unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&name[0])), 0, 0, 0) // as ps and top show it
	var bound, rootWas unix.Stat_t
	if unix.Stat(path, &bound) != nil || unix.Stat(root, &rootWas) != nil {
		return 1
	}
	k := &keeper{index: os.NewFile(7, "index"), user: os.NewFile(4, "user"), net: os.NewFile(5, "net"), templates: map[keeperSlot]*keptTemplate{}, making: make(chan struct{}, 1)}
	const listener = 3 // listening already
	if k.writeIndex() != nil {
		return 1
	}
	defer func() {
		// Its own socket and index only: a later keeper may have put its
		// own in their place.
		var now unix.Stat_t
		if unix.Stat(path, &now) == nil && now.Ino == bound.Ino && now.Dev == bound.Dev {
			os.Remove(path)
		}
		var ix, held unix.Stat_t
		if unix.Stat(indexPath(path), &ix) == nil && unix.Fstat(int(k.index.Fd()), &held) == nil && ix.Ino == held.Ino && ix.Dev == held.Dev {
			os.Remove(indexPath(path))
		}
	}()
	go func() {
		var first []keeperRequest
		if json.NewDecoder(io.LimitReader(os.NewFile(6, "first"), 1<<20)).Decode(&first) == nil {
			for _, req := range first {
				k.handle(req)
			}
		}
	}()
	var conns []int
	for {
		fds := []unix.PollFd{{Fd: listener, Events: unix.POLLIN}}
		for _, c := range conns {
			fds = append(fds, unix.PollFd{Fd: int32(c), Events: unix.POLLIN})
		}
		n, err := unix.Poll(fds, 1000)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return 1
		}
		if n <= 0 {
			var sock, index, rootNow unix.Stat_t
			if unix.Stat(path, &sock) != nil || sock.Ino != bound.Ino || sock.Dev != bound.Dev ||
				unix.Stat(root, &rootNow) != nil || rootNow.Ino != rootWas.Ino || rootNow.Dev != rootWas.Dev ||
				unix.Fstat(int(k.index.Fd()), &index) != nil || time.Since(time.Unix(index.Mtim.Unix())) > keeperIdle {
				return 0
			}
			continue
		}
		kept := conns[:0]
		for i, c := range conns {
			if fds[1+i].Revents == 0 {
				kept = append(kept, c)
				continue
			}
			var req keeperRequest
			if err := receive(c, &req); err != nil {
				unix.Close(c)
				continue
			}
			k.handle(req)
			kept = append(kept, c)
		}
		conns = kept
		if fds[0].Revents != 0 {
			if c, _, err := unix.Accept4(listener, unix.SOCK_CLOEXEC); err == nil {
				if peerTrusted(c) && len(conns) < 64 {
					conns = append(conns, c)
				} else {
					unix.Close(c)
				}
			}
		}
	}
}

// handle takes a request to make a template.
func (k *keeper) handle(req keeperRequest) {
	if req.Spec != nil {
		go k.make(*req.Spec, req.Mode, req.Git)
	}
}

// kept is f as the index lists it.
func kept(f *os.File) heldNS {
	var st unix.Stat_t
	unix.Fstat(int(f.Fd()), &st)
	return heldNS{FD: int(f.Fd()), Ino: st.Ino}
}

// writeIndex writes what the keeper holds over its index (a reader
// that finds it half written finds no keeper); the caller holds k.mu or
// is the only goroutine.
func (k *keeper) writeIndex() error {
	ix := keeperIndex{PID: os.Getpid(), User: kept(k.user), Net: kept(k.net)}
	for slot, kt := range k.templates {
		ix.Templates = append(ix.Templates, keeperTemplate{Key: slot.key, Git: slot.git, NS: kept(kt.t.ns),
			Absent: slices.Sorted(maps.Keys(kt.t.absent)), Links: slices.Sorted(maps.Keys(kt.t.links))})
	}
	data, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	if _, err := k.index.WriteAt(data, 0); err != nil {
		return err
	}
	return k.index.Truncate(int64(len(data)))
}

// make makes the template of spec in mode for git, unless it has one,
// one at a time; the oldest beyond keeperTemplates go.
func (k *keeper) make(spec Spec, mode Mode, git bool) {
	k.making <- struct{}{}
	defer func() { <-k.making }()
	spec.Network = false
	k.mu.Lock()
	have := k.templates[keeperSlot{SpecKey(spec, mode), git}] != nil
	k.mu.Unlock()
	if have {
		return
	}
	b := &Box{spec: spec, mode: mode, userns: true}
	t, err := b.makeTemplate(git, k.user)
	if err != nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	slot := keeperSlot{t.key, git}
	var gone []*os.File
	if old := k.templates[slot]; old != nil {
		gone = append(gone, old.t.ns)
	}
	k.templates[slot] = &keptTemplate{t: t, made: time.Now()}
	for len(k.templates) > keeperTemplates {
		var oldest keeperSlot
		var at time.Time
		for s, kt := range k.templates {
			if at.IsZero() || kt.made.Before(at) {
				oldest, at = s, kt.made
			}
		}
		gone = append(gone, k.templates[oldest].t.ns)
		delete(k.templates, oldest)
	}
	k.writeIndex()
	closeAll(gone) // after the index no longer lists them
}

// keeperDialed is what a fresh process got from its workspace's keeper.
type keeperDialed struct {
	root, path string
	index      keeperIndex
	user, net  *os.File // the keeper's namespaces; nil: no keeper
}

// dialKeeperOf reads the index of the keeper of root at path (its
// keeperSocket) and opens its namespaces, if it is a process of this
// user in this user namespace and they are the ones it lists; and marks
// the index used.
func dialKeeperOf(root, path string) keeperDialed {
	d := keeperDialed{root: root, path: path}
	if d.path == "" {
		return d
	}
	data, err := os.ReadFile(indexPath(d.path))
	if err != nil || json.Unmarshal(data, &d.index) != nil || d.index.PID <= 0 || !sameUserNamespace(int32(d.index.PID), processUID(d.index.PID)) {
		return d
	}
	if d.user, d.net = openKeeperNamespaces(d.index); d.user != nil {
		unix.UtimesNano(indexPath(d.path), nil) // in use: the keeper stays
	}
	return d
}

// openKeeperNamespaces opens the user and network namespaces ix lists,
// if they are still those, the user namespace is of this user and the
// network namespace is owned by it.
func openKeeperNamespaces(ix keeperIndex) (user, net *os.File) {
	user = openKept(ix.PID, ix.User, unix.CLONE_NEWUSER)
	if user == nil {
		return nil, nil
	}
	net = openKept(ix.PID, ix.Net, unix.CLONE_NEWNET)
	if _, uid, err := nsInfo(user); err != nil || uid != uint64(os.Getuid()) || net == nil || !ownedBy(net, unix.CLONE_NEWNET, user) {
		user.Close()
		if net != nil {
			net.Close()
		}
		return nil, nil
	}
	return user, net
}

// useKeeper has a fresh process's box adopt its keeper's namespaces, and
// the keeper's template for the box's spec for git (or the others) if it
// has it.
func (b *Box) useKeeper(git bool) {
	if preparedNS.keeper == nil {
		return
	}
	d := preparedNS.keeper.Get()
	if d.user == nil || preparedNS.keeperDone.Load() {
		return
	}
	// The keeper's, whether or not the namespaces made ahead (which
	// would be these) have begun.
	rootUnknown()
	b.shared.mu.Lock()
	if b.shared.user == nil && !b.shared.closed && preparedNS.taken.CompareAndSwap(false, true) {
		b.shared.user, b.shared.net = d.user, d.net
	}
	b.shared.mu.Unlock()
	b.keeperTemplate(d, git)
}

// keeperTemplate makes the template d's index lists for the box's spec
// for git (or the others) the box's, if the box shares d's namespaces
// and has no template.
func (b *Box) keeperTemplate(d keeperDialed, git bool) {
	i := zygoteSlot(git)
	b.shared.mu.Lock()
	defer b.shared.mu.Unlock()
	if b.shared.closed || d.user == nil || b.shared.user != d.user || b.shared.templates[i] != nil || b.shared.keeperAsked[i] {
		return
	}
	b.shared.keeperAsked[i] = true
	// Made now, not kept: a fresh process keys its box once, as it opens
	// (a second SpecKey would set a watch to keep it).
	key := specKey(string(specText(b.spec, b.mode)), specPaths(b.spec))
	for _, kt := range d.index.Templates {
		if kt.Key != key || kt.Git != git {
			continue
		}
		ns := openKept(d.index.PID, kt.NS, unix.CLONE_NEWNS)
		if ns == nil {
			return
		}
		if !ownedBy(ns, unix.CLONE_NEWNS, d.user) {
			ns.Close()
			return
		}
		t := &mountTemplate{ns: ns, key: key, absent: map[string]bool{}, links: map[string]bool{}}
		for _, p := range kt.Absent {
			t.absent[p] = true
		}
		for _, p := range kt.Links {
			t.links[p] = true
		}
		t.checked.Store(true)
		b.shared.templates[i] = t
		keeperTemplatesGot.Add(1)
		return
	}
}

// noteKeeperMissed records that a program for git (or the others)
// started without a template, which the keeper is asked to make.
func (b *Box) noteKeeperMissed(git bool) {
	b.shared.mu.Lock()
	b.shared.keeperMissed[zygoteSlot(git)] = true
	b.shared.mu.Unlock()
}

// handToKeeper, as a fresh process's box closes, asks its workspace's
// keeper for the templates its programs started without, and starts the
// keeper, with the namespaces this process made, where none answered.
func (b *Box) handToKeeper() {
	if preparedNS.keeper == nil || b.root || !b.userns || !preparedNS.keeperDone.CompareAndSwap(false, true) {
		return
	}
	d, begun := preparedNS.keeper.Begun()
	if !begun {
		return
	}
	b.shared.mu.RLock()
	missed, user, net := b.shared.keeperMissed, b.shared.user, b.shared.net
	b.shared.mu.RUnlock()
	var requests []keeperRequest
	for i, git := range []bool{false, true} {
		if missed[i] {
			requests = append(requests, keeperRequest{Spec: &b.spec, Mode: b.mode, Git: git})
		}
	}
	if len(requests) == 0 {
		return
	}
	if d.user != nil {
		if k := dialKeeper(d.path); k != nil {
			for _, req := range requests {
				k.ask(req)
			}
			k.close()
		}
		return
	}
	if d.path != "" && user != nil && net != nil {
		startKeeper(d.root, d.path, user, net, requests) // the box's, made ahead or by its first program
	}
}
