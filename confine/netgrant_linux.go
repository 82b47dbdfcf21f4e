//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/vtexec/vtexec/internal/capture"
)

// A program a person granted the network gets a network namespace of its
// own, connected to the outside by slirp4netns: user-mode networking,
// the connections made by an ordinary process of vtexec's, with the
// host's loopback not forwarded (--disable-host-loopback). It never runs
// in the host's network namespace, where the machine's own services
// listen. slirp4netns is the helper rootless Podman and RootlessKit use;
// it runs sandboxed (its own mount namespace, capabilities dropped,
// a syscall filter) and exits when vtexec closes its exit pipe, which
// the kernel does if vtexec dies.

// ErrNoNetworkHelper: a program was granted the network but slirp4netns
// is not installed.
var ErrNoNetworkHelper = errors.New("confine: slirp4netns is not installed: a command granted the network gets it only through slirp4netns, never in the host's network namespace")

// networkHelperDirs are where slirp4netns is looked for: system
// directories only, never the caller's PATH.
var networkHelperDirs = []string{"/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin"}

var networkHelper = sync.OnceValue(func() string {
	for _, d := range networkHelperDirs {
		p := d + "/slirp4netns"
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
})

// NetworkGrantAvailable reports whether a program can be granted the
// network here: slirp4netns is installed.
func NetworkGrantAvailable() bool { return networkHelper() != "" }

// CanGrantNetwork reports whether a program granted the network can
// start in this box: with a network namespace of its own connected by
// slirp4netns where the box uses namespaces (never the host's), or
// under Landlock's TCP rules lifted where no namespace can be had.
func (b *Box) CanGrantNetwork() bool {
	return !(b.root && b.netns >= 0 || b.userns) || NetworkGrantAvailable()
}

// networkReadyWait bounds how long a start waits for slirp4netns.
const networkReadyWait = 10 * time.Second

// grantedNet is the network of one granted program.
type grantedNet struct {
	ns    *os.File // as root: the namespace, entered before the start
	slirp *exec.Cmd
	exitW *os.File // closing it ends slirp4netns
}

// newGrantedNetns makes a network namespace and connects it (as root).
func newGrantedNetns() (*grantedNet, error) {
	if networkHelper() == "" {
		return nil, ErrNoNetworkHelper
	}
	fd, err := newLoopbackNetns()
	if err != nil {
		return nil, fmt.Errorf("confine: network namespace for a granted program: %w", err)
	}
	ns := os.NewFile(uintptr(fd), "netns")
	g, err := connect(ns, "--netns-type=path", "/proc/self/fd/3")
	if err != nil {
		ns.Close()
		return nil, err
	}
	g.ns = ns
	return g, nil
}

// connectPID connects the network namespace of the started process pid
// (unprivileged: slirp4netns joins its user namespace too).
func connectPID(pid int) (*grantedNet, error) {
	if networkHelper() == "" {
		return nil, ErrNoNetworkHelper
	}
	return connect(nil, strconv.Itoa(pid))
}

// connect starts slirp4netns on the namespace target names (ns, when
// given, is its descriptor 3) and waits until the interface is up.
func connect(ns *os.File, target ...string) (*grantedNet, error) {
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer readyR.Close()
	exitR, exitW, err := os.Pipe()
	if err != nil {
		readyW.Close()
		return nil, err
	}
	// Descriptors 3 (the namespace, or nothing), 4 (ready) and 5 (exit).
	files := []*os.File{ns, readyW, exitR}
	if ns == nil {
		null, err := os.Open(os.DevNull)
		if err != nil {
			readyW.Close()
			exitR.Close()
			exitW.Close()
			return nil, err
		}
		defer null.Close()
		files[0] = null
	}
	args := []string{"--configure", "--mtu=65520", "--disable-host-loopback",
		"--enable-sandbox", "--enable-seccomp", "--ready-fd=4", "--exit-fd=5"}
	args = append(args, target...)
	args = append(args, "tap0")
	cmd := exec.Command(networkHelper(), args...)
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stderr := capture.New(4096)
	cmd.Stderr = stderr
	err = cmd.Start()
	readyW.Close()
	exitR.Close()
	if err != nil {
		exitW.Close()
		return nil, fmt.Errorf("confine: start slirp4netns: %w", err)
	}
	g := &grantedNet{slirp: cmd, exitW: exitW}
	readyR.SetReadDeadline(time.Now().Add(networkReadyWait))
	var b [1]byte
	if n, _ := readyR.Read(b[:]); n != 1 {
		g.close()
		return nil, fmt.Errorf("confine: slirp4netns did not bring the network up: %s", stderr.String())
	}
	return g, nil
}

// close disconnects the namespace; slirp4netns exits.
func (g *grantedNet) close() {
	if g == nil {
		return
	}
	if g.ns != nil {
		g.ns.Close()
	}
	g.exitW.Close()
	done := make(chan struct{})
	go func() { g.slirp.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		g.slirp.Process.Kill()
		<-done
	}
}

// apart runs f on a goroutine of its own, whose thread is in vtexec's
// namespaces and cgroup: slirp4netns must start there, not from a thread
// that is entering a box.
func apart(f func() (*grantedNet, error)) (*grantedNet, error) {
	type res struct {
		g   *grantedNet
		err error
	}
	ch := make(chan res, 1)
	go func() {
		g, err := f()
		ch <- res{g, err}
	}()
	r := <-ch
	return r.g, r.err
}
