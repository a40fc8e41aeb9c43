package cache_test

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache"
)

// Without a secret of some length every record could be forged; NewRedis
// refuses, and says how to make one without repeating what it was given.
func TestNewRedisRefusesAShortSecret(t *testing.T) {
	for _, secret := range []string{"", "tooshort-secret-0123456789abcde"} {
		_, err := cache.NewRedis(cache.RedisConfig{URL: "redis://127.0.0.1:1/0", Secret: []byte(secret)})
		if err == nil {
			t.Fatalf("NewRedis with a %d-byte secret: no error", len(secret))
		}
		if !strings.Contains(err.Error(), "at least 32") || !strings.Contains(err.Error(), "openssl rand -hex 32") ||
			(secret != "" && strings.Contains(err.Error(), secret)) {
			t.Errorf("NewRedis with a %d-byte secret: %q; want the minimum and how to make one, without the secret", len(secret), err)
		}
	}
	r, err := cache.NewRedis(cache.RedisConfig{URL: "redis://127.0.0.1:1/0", Secret: []byte(strings.Repeat("k", cache.MinRedisSecret))})
	if err != nil {
		t.Fatalf("NewRedis with a %d-byte secret: %v", cache.MinRedisSecret, err)
	}
	_ = r.Close()
}
