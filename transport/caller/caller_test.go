package caller

import (
	"context"
	"testing"
)

func TestOfPrefersRequestThenLocal(t *testing.T) {
	ctx := context.Background()
	if got := Of(ctx); got != Local {
		t.Fatalf("Of(no transport) = %q, want %q", got, Local)
	}
	ctx = WithRequest(ctx, Address("192.0.2.7"))
	if got := Of(ctx); got != "addr:192.0.2.7" {
		t.Fatalf("Of(request) = %q, want addr:192.0.2.7", got)
	}
	if Token("ab") == Address("ab") || Session("ab") == Token("ab") {
		t.Fatal("kinds of ID collide")
	}
}
