package session

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Progress runs work, and while it runs past each interval sends the
// caller a notifications/progress, if the request asked for progress
// (a progress token in its _meta). Every notification is sent before
// Progress returns, hence before the call's result: a client never hears
// of progress on a call it has its answer to.
func Progress(ctx context.Context, req mcp.CallToolRequest, interval time.Duration, log *slog.Logger, work func()) {
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	srv := server.ServerFromContext(ctx)
	if token == nil || srv == nil {
		work()
		return
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		t := time.NewTicker(interval)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-t.C:
				err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": token,
					"progress":      n,
					"message":       fmt.Sprintf("waiting for NSIP: %.0f s so far", time.Since(start).Seconds()),
				})
				if err != nil {
					log.Debug("progress notification not sent", slog.String("error", err.Error()))
				}
			}
		}
	})
	work()
	close(stop)
	wg.Wait()
}
