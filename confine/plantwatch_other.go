//go:build !linux

package confine

// PlantWatch is not available here: Disarm after the run applies.
type PlantWatch struct{}

// WatchPlants returns nil.
func WatchPlants(string, map[string]string, string) *PlantWatch { return nil }

// Stop returns nothing.
func (w *PlantWatch) Stop() []Disarmed { return nil }
