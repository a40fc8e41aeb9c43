package param

import (
	"testing"
	"time"
)

func TestClosestSuggestions(t *testing.T) {
	known := []string{"page", "page_size", "breed_id", "sorted_trait", "reverse", "search_criteria"}
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"pageSize", "page_size", true},
		{"PAGE-SIZE", "page_size", true},
		{"breedId", "breed_id", true},
		{"sortedTrait", "sorted_trait", true},
		{"criteria", "search_criteria", true},
		{"revers", "reverse", true},
		{"colour", "", false},
		{"x", "", false},
	}
	for _, tt := range tests {
		got, ok := Closest(tt.in, known)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("closest(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAsInteger(t *testing.T) {
	tests := []struct {
		in   any
		want int
		ok   bool
	}{
		{float64(3), 3, true},
		{3.5, 0, false},
		{int64(7), 7, true},
		{9, 9, true},
		{"3", 0, false},
		{1e300, int(^uint(0) >> 1), true},
		{-1e300, -int(^uint(0)>>1) - 1, true},
	}
	for _, tt := range tests {
		got, ok := asInteger(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("asInteger(%v) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDurationAsWritten(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: "1h", 2 * time.Hour: "2h", 30 * time.Minute: "30m", 10 * time.Minute: "10m", 90 * time.Minute: "1h30m",
		30 * time.Second: "30s", 90 * time.Second: "1m30s", 2*time.Minute + 5*time.Second: "2m5s", 25*time.Hour + 10*time.Second: "25h0m10s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
