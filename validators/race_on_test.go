//go:build race

package validators

const raceEnabled = true
