package main

import (
	"net/http"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
)

// What TestMain stamps into the binary the end-to-end tests run.
const (
	stampVersion = "v1.4.2-7-gfeedbee"
	stampCommit  = "feedbee0123456789abcdef0123456789abcdef0"
	stampDate    = "2026-03-04T05:06:07Z"
)

// stampFlags are the -ldflags make build passes.
func stampFlags(version, commit, date string) string {
	return "-X main.version=" + version + " -X main.commit=" + commit + " -X main.date=" + date
}

func TestReadBuild(t *testing.T) {
	vcs := func(rev, when, modified string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
			for k, v := range map[string]string{"vcs.revision": rev, "vcs.time": when, "vcs.modified": modified} {
				if v != "" {
					bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
				}
			}
			return bi, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	installed := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}}, true
	}
	tests := []struct {
		name          string
		v, c, d       string
		read          func() (*debug.BuildInfo, bool)
		want          buildInfo
		wantFormatted string
	}{
		{"stamped by make", "v1.2.0", "abc123", "2026-01-02T03:04:05Z", vcs("ignored", "ignored", "true"),
			buildInfo{Version: "v1.2.0", Commit: "abc123", Date: "2026-01-02T03:04:05Z"},
			"v1.2.0 (commit abc123, built 2026-01-02T03:04:05Z, "},
		{"stamped from a dirty tree", "v1.2.0-3-g0a1b2c3-dirty", "0a1b2c3", "", none,
			buildInfo{Version: "v1.2.0-3-g0a1b2c3-dirty", Commit: "0a1b2c3", Modified: true},
			"v1.2.0-3-g0a1b2c3-dirty (commit 0a1b2c3, "},
		{"go install name@version", "", "", "", installed,
			buildInfo{Version: "v0.3.1"}, "v0.3.1 ("},
		{"go build in a git checkout", "", "", "", vcs("0123456789abcdef0123", "2026-05-06T07:08:09Z", "false"),
			buildInfo{Version: "dev+0123456789ab", Commit: "0123456789abcdef0123", Date: "2026-05-06T07:08:09Z"},
			"dev+0123456789ab (commit 0123456789abcdef0123, built 2026-05-06T07:08:09Z, "},
		{"go build with uncommitted changes", "", "", "", vcs("0123456789abcdef0123", "", "true"),
			buildInfo{Version: "dev+0123456789ab.dirty", Commit: "0123456789abcdef0123", Modified: true},
			"dev+0123456789ab.dirty (commit 0123456789abcdef0123, "},
		{"nothing recorded", "", "", "", none, buildInfo{Version: "dev"}, "dev ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readBuild(tt.v, tt.c, tt.d, tt.read)
			tt.want.Go = runtime.Version()
			if got != tt.want {
				t.Errorf("readBuild = %+v, want %+v", got, tt.want)
			}
			want := tt.wantFormatted + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
			if got.String() != want {
				t.Errorf("String() = %q, want %q", got.String(), want)
			}
		})
	}
}

// TestEndToEndVersionIsStamped: a binary built with make's -ldflags reports
// the same version in --version, in initialize's serverInfo and in
// /healthz, with the commit and date beside it.
func TestEndToEndVersionIsStamped(t *testing.T) {
	watchdog(t, testLimit)
	out, err := exec.Command(buildBinary(), "--version").Output()
	want := "nsip-mcp " + stampVersion + " (commit " + stampCommit + ", built " + stampDate + ", " +
		runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if err != nil || string(out) != want {
		t.Fatalf("--version printed %q (%v), want %q", out, err, want)
	}

	srv := startServer(t, "websocket")
	c := dialFlavour(t, "websocket", srv.BaseURL)
	if info := initialize(t, c).ServerInfo; info.Name != "nsip-mcp" || info.Version != stampVersion {
		t.Errorf("serverInfo = %+v, want nsip-mcp %s", info, stampVersion)
	}
	var health struct {
		Version string    `json:"version"`
		Build   buildInfo `json:"build"`
	}
	getJSONBody(t, srv.BaseURL+"/healthz", http.StatusOK, &health)
	wantBuild := buildInfo{Version: stampVersion, Commit: stampCommit, Date: stampDate, Go: runtime.Version()}
	if health.Version != stampVersion || health.Build != wantBuild {
		t.Errorf("healthz version %q build %+v, want %q and %+v", health.Version, health.Build, stampVersion, wantBuild)
	}
}
