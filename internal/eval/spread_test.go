package eval

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestNewSpread(t *testing.T) {
	for _, tt := range []struct {
		name string
		xs   []float64
		want Spread
	}{
		{"none", nil, Spread{}},
		{"one", []float64{7}, Spread{N: 1, Min: 7, Median: 7, Max: 7, Mean: 7}},
		{"even count", []float64{4, 1, 3, 2}, Spread{N: 4, Min: 1, Median: 2.5, Max: 4, Mean: 2.5, SD: 1.2909944487358056}},
		{"odd count", []float64{2, 9, 4}, Spread{N: 3, Min: 2, Median: 4, Max: 9, Mean: 5, SD: 3.605551275463989}},
		{"all equal", []float64{5, 5, 5}, Spread{N: 3, Min: 5, Median: 5, Max: 5, Mean: 5}},
		{"sizes", []float64{2664, 2700, 2580, 2810, 2664}, Spread{N: 5, Min: 2580, Median: 2664, Max: 2810, Mean: 2683.6, SD: 83.2874540372078}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]float64(nil), tt.xs...)
			got := NewSpread(tt.xs)
			const eps = 1e-6
			if got.N != tt.want.N || math.Abs(got.Min-tt.want.Min) > eps || math.Abs(got.Median-tt.want.Median) > eps ||
				math.Abs(got.Max-tt.want.Max) > eps || math.Abs(got.Mean-tt.want.Mean) > eps || math.Abs(got.SD-tt.want.SD) > eps {
				t.Errorf("NewSpread(%v) = %+v, want %+v", tt.xs, got, tt.want)
			}
			if !reflect.DeepEqual(in, tt.xs) {
				t.Errorf("NewSpread changed its input: %v", tt.xs)
			}
		})
	}
	data, err := json.Marshal(NewSpread([]float64{1, 3}))
	if err != nil || string(data) != `{"n":2,"min":1,"median":2,"max":3,"mean":2,"sd":1.4142135623730951}` {
		t.Errorf("JSON %s %v", data, err)
	}
}

func TestRepeatOf(t *testing.T) {
	for _, tt := range []struct {
		run   string
		base  string
		index int
	}{
		{"cascade", "cascade", 1},
		{"cascade@2", "cascade", 2},
		{"gpt-5.4-nano@50", "gpt-5.4-nano", 50},
		{"a@b@3", "a@b", 3},
		{"x@1", "x@1", 1},                         // the first repeat is the plain name
		{"x@0", "x@0", 1},                         // not an index
		{"x@02", "x@02", 1},                       // leading zero
		{"x@51", "x@51", 1},                       // above replay.MaxRepeat
		{"claude@20240620", "claude@20240620", 1}, // a model id's version
		{"x@+3", "x@+3", 1},
		{"x@", "x@", 1},
		{"@2", "@2", 1}, // no base
		{"x@2a", "x@2a", 1},
	} {
		if base, index := RepeatOf(tt.run); base != tt.base || index != tt.index {
			t.Errorf("RepeatOf(%q) = %q, %d; want %q, %d", tt.run, base, index, tt.base, tt.index)
		}
	}
}

func TestRepeatGroups(t *testing.T) {
	got := RepeatGroups([]string{"terse@10", "cascade", "terse@2", "builtin", "terse", "cascade@3", "terse@2", "solo@2", "other"})
	want := map[string][]string{
		"terse":   {"terse", "terse@2", "terse@10"},
		"cascade": {"cascade", "cascade@3"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RepeatGroups = %v, want %v", got, want)
	}
	if g := RepeatGroups(nil); len(g) != 0 {
		t.Errorf("RepeatGroups(nil) = %v", g)
	}
}

func TestMcNemar(t *testing.T) {
	for _, tt := range []struct {
		aOnly, bOnly int
		want         float64
	}{
		{0, 0, 1},
		{0, 1, 1},
		{3, 3, 1},
		{0, 6, 0.03125},
		{6, 0, 0.03125},
		{1, 9, 0.021484375},
		{2, 8, 0.109375},
		{5, 0, 0.0625},
		{10, 25, 0.01667384780012071},
		{40, 60, 0.05688793364098079},
		{480, 520, 0.21744829320414094},
		// Past 1000 discordant pairs, in logarithms.
		{450, 551, 0.001561138839699202},
		{600, 700, 0.0060157938610449525},
		{0, 1100, 0},
		{-2, 6, 0.03125},
	} {
		got := McNemar(tt.aOnly, tt.bOnly)
		if math.Abs(got-tt.want) > 1e-9*tt.want || tt.want == 0 && got != 0 {
			t.Errorf("McNemar(%d, %d) = %v, want %v", tt.aOnly, tt.bOnly, got, tt.want)
		}
	}
	// Exact where the counts are small.
	if McNemar(0, 6) != 0.03125 || McNemar(1, 9) != 0.021484375 {
		t.Errorf("McNemar(0, 6) = %v, McNemar(1, 9) = %v", McNemar(0, 6), McNemar(1, 9))
	}
}
