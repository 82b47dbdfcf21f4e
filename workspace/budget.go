package workspace

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Budget bounds the work one request's check may do in the file system:
// the directory entries its walks and globs read, every operand and
// command of the request together, and the time it may take. A
// workspace without one is not bounded.
type Budget struct {
	entries  int
	left     atomic.Int64
	deadline time.Time
	timeout  time.Duration
	spent    atomic.Pointer[BudgetError] // the first refusal
}

// NewBudget allows entries directory entries and timeout of time, from
// now.
func NewBudget(entries int, timeout time.Duration) *Budget {
	b := &Budget{entries: entries, deadline: time.Now().Add(timeout), timeout: timeout}
	b.left.Store(int64(entries))
	return b
}

// BudgetError says that a check spent its budget.
type BudgetError struct {
	Entries int           // the entries allowed, when they were spent
	Timeout time.Duration // the time allowed, when it was spent
}

func (e *BudgetError) Error() string {
	if e.Entries > 0 {
		return fmt.Sprintf("the check would read more than %d directory entries", e.Entries)
	}
	return fmt.Sprintf("the check took longer than %v", e.Timeout)
}

// SetBudget bounds the checks made with w and its clones from now on.
func (w *Workspace) SetBudget(b *Budget) { w.budget = b }

// Spend counts n directory entries read against the budget; it fails
// once the entries or the time are spent.
func (w *Workspace) Spend(n int) error {
	b := w.budget
	if b == nil {
		return nil
	}
	var err *BudgetError
	switch {
	case b.left.Add(-int64(n)) < 0:
		err = &BudgetError{Entries: b.entries}
	case time.Now().After(b.deadline):
		err = &BudgetError{Timeout: b.timeout}
	default:
		return nil
	}
	b.spent.CompareAndSwap(nil, err)
	return err
}

// Spent returns the budget's refusal if a Spend was refused: a caller
// whose reads were ended by one, where an error reads as "nothing there"
// (a glob's look at a directory), must not take what it got for the
// answer.
func (w *Workspace) Spent() error {
	if w.budget == nil {
		return nil
	}
	if err := w.budget.spent.Load(); err != nil {
		return err
	}
	return nil
}
