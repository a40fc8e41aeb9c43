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

// TestClientIsTheRequestsWhateverTheSession: the client a call is counted
// under is what the transport recorded, the same in every session it
// opens; the owner is the session.
func TestClientIsTheRequestsWhateverTheSession(t *testing.T) {
	ctx := WithRequest(context.Background(), Address("192.0.2.7"))
	if got := Client(ctx); got != "addr:192.0.2.7" {
		t.Fatalf("Client(request) = %q, want addr:192.0.2.7", got)
	}
	if got := Client(context.Background()); got != Local {
		t.Fatalf("Client(no transport) = %q, want %q", got, Local)
	}
	fwd := Forwarded(Address("127.0.0.1"))
	if fwd.Owns() || !Address("127.0.0.1").Owns() || ID("").Owns() {
		t.Fatalf("Owns: forwarded %v, address %v, empty %v; want false, true, false",
			fwd.Owns(), Address("127.0.0.1").Owns(), ID("").Owns())
	}
	if fwd == Address("127.0.0.1") {
		t.Fatal("a forwarded client shares the proxy's own ID")
	}
}
