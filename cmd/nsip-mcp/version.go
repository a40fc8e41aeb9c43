package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set at build time by make build and make dist:
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>"
//
// Left empty, they are filled from what the Go toolchain recorded in the
// binary (see readBuild).
var version, commit, date string

// buildInfo names the build a binary came from.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Date     string `json:"date,omitempty"`
	Modified bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Go       string `json:"go"`
}

// build is this binary's, read once.
var build = readBuild(version, commit, date, debug.ReadBuildInfo)

// readBuild prefers the values stamped by the linker. Without them it takes
// the module version Go records (name@version's for go install, a
// pseudo-version v0.0.0-<time>-<commit> or a tag for a build in a git
// checkout), and the VCS revision and time beside it. A toolchain that
// records (devel) beside a revision gets dev+<short revision>, so that two
// unstamped builds still tell apart; with -buildvcs=false it is plain dev.
func readBuild(v, c, d string, read func() (*debug.BuildInfo, bool)) buildInfo {
	b := buildInfo{Version: v, Commit: c, Date: d, Go: runtime.Version()}
	if b.Version != "" {
		b.Modified = strings.HasSuffix(b.Version, "-dirty")
		return b
	}
	b.Version = "dev"
	bi, ok := read()
	if !ok {
		return b
	}
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		b.Version = mv
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.Commit == "" {
				b.Commit = s.Value
			}
		case "vcs.time":
			if b.Date == "" {
				b.Date = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Version == "dev" && b.Commit != "" {
		b.Version += "+" + b.Commit[:min(12, len(b.Commit))]
		if b.Modified {
			b.Version += ".dirty"
		}
	}
	return b
}

// String is what --version prints after the program's name.
func (b buildInfo) String() string {
	s := b.Version
	var parts []string
	if b.Commit != "" {
		parts = append(parts, "commit "+b.Commit)
	}
	if b.Date != "" {
		parts = append(parts, "built "+b.Date)
	}
	if b.Modified && !strings.HasSuffix(s, "dirty") {
		parts = append(parts, "uncommitted changes")
	}
	parts = append(parts, b.Go, runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("%s (%s)", s, strings.Join(parts, ", "))
}
