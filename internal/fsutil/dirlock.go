package fsutil

import "errors"

// ErrMoved is ShareDir's answer when the directory at the path was
// moved or removed while it waited for the lock: the caller makes it
// again and tries once more.
var ErrMoved = errors.New("the directory was moved away while it was being locked")
