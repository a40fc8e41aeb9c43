package analysis

import "testing"

// NSIP writes dates three ways and sex as words or codes (see the API
// document); the flock counts read them all.
func TestFlockFieldReaders(t *testing.T) {
	for in, want := range map[string]string{"2/13/2024": "2024", "2024-02-13T00:00:00": "2024", "2024-02-13": "2024", "": "unknown", "13/2/24": "unknown"} {
		if got := birthYear(in); got != want {
			t.Errorf("birthYear(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"Male": "male", "1": "male", "M": "male", "female": "female", "2": "female", "": "unknown", "Wether": "Wether"} {
		if got := sexName(in); got != want {
			t.Errorf("sexName(%q) = %q, want %q", in, got, want)
		}
	}
}
