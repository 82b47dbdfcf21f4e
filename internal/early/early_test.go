package early

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// newWork is a Work whose background goroutine is not started: the
// caller plays it with w.Get in a goroutine of its own, or not at all.
func newWork(produce func() int) *Work[int] { return &Work[int]{produce: produce} }

// What nothing began is made by its first taker, once.
func TestGetMakesWhatNothingBegan(t *testing.T) {
	var made atomic.Int32
	w := newWork(func() int { made.Add(1); return 7 })
	assert.Equal(t, 7, w.Get())
	assert.Equal(t, 7, w.Get())
	assert.Equal(t, int32(1), made.Load())
}

// A taker waits for what the background has begun, and it is made once.
func TestGetWaitsForWhatIsBeingMade(t *testing.T) {
	var made atomic.Int32
	begun, release := make(chan struct{}), make(chan struct{})
	w := newWork(func() int { made.Add(1); close(begun); <-release; return 3 })
	go w.Get()
	<-begun
	got := make(chan int)
	go func() { got <- w.Get() }()
	select {
	case <-got:
		t.Fatal("Get returned before the background's produce ended")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	assert.Equal(t, 3, <-got)
	assert.Equal(t, int32(1), made.Load())
}

// Begun gives up what nothing began: it is never made, even when the
// background's goroutine runs later.
func TestBegunGivesUpWhatNothingBegan(t *testing.T) {
	var made atomic.Int32
	w := newWork(func() int { made.Add(1); return 5 })
	v, ok := w.Begun()
	assert.False(t, ok)
	assert.Zero(t, v)
	w.Get() // the background, late
	assert.Zero(t, made.Load())
	_, ok = w.Begun()
	assert.False(t, ok)
}

// Begun waits for what the background has begun and gives its result.
func TestBegunWaitsForWhatIsBeingMade(t *testing.T) {
	begun := make(chan struct{})
	w := newWork(func() int { close(begun); time.Sleep(10 * time.Millisecond); return 9 })
	go w.Get()
	<-begun
	v, ok := w.Begun()
	assert.True(t, ok)
	assert.Equal(t, 9, v)
}

// Start's goroutine makes it without a taker.
func TestStartMakesItInTheBackground(t *testing.T) {
	done := make(chan struct{})
	w := Start(func() int { close(done); return 1 })
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the background never made it")
	}
	v, ok := w.Begun()
	assert.True(t, ok)
	assert.Equal(t, 1, v)
}
