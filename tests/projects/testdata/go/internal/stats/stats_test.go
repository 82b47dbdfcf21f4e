package stats

import (
	"errors"
	"testing"
)

func TestMean(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"one", []float64{4}, 4},
		{"several", []float64{1, 2, 3, 4}, 2.5},
		{"negative", []float64{-2, 2}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Mean(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("Mean(%v) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	in := []float64{5, 1, 3, 2}
	got, err := Median(in)
	if err != nil || got != 2.5 {
		t.Errorf("Median(%v) = %v, %v; want 2.5", in, got, err)
	}
	if in[0] != 5 {
		t.Errorf("Median sorted its argument: %v", in)
	}
}

func TestEmpty(t *testing.T) {
	if _, err := Mean(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Mean(nil) error = %v, want ErrEmpty", err)
	}
	if _, err := Median(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Median(nil) error = %v, want ErrEmpty", err)
	}
}
