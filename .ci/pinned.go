//go:build ignore

// pinned checks that the release pipeline runs only code its own commit
// names and gives its token to no step that does not need it (make
// release-check runs it). A tag or a branch can be moved to other code
// after review, as happened to a widely used action in March 2025; the
// release job holds a token that writes the release and the image, so
// whatever runs in it must be what was reviewed.
//
//   - Every uses: in every file under .github/workflows names an action by
//     the full commit SHA of a release (owner/repo@<40 hex>, the version
//     in a comment), a local action (./path), or an image by digest
//     (docker://image@sha256:<64 hex>).
//   - Every image a workflow runs (a job's container:, a service's image:)
//     and every FROM of a Dockerfile in the repository, with its # syntax=
//     frontend, is named by digest, or is scratch or an earlier stage.
//   - No workflow-level or job-level env: carries a secret or the
//     workflow's token (secrets.…, github.token): every step of the job
//     would see it. A step that needs one gets it in its own env: or with:.
//
// Usage: go run .ci/pinned.go [-root dir]. It prints each break as
// file:line: what is wrong and the fix, and exits 1 when there is one.
// Workflows are read line by line, as the block-style YAML they are
// written in, so that the check needs no YAML library.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

var (
	// commitPin is an action or reusable workflow at a full commit SHA.
	commitPin = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$`)
	// digestPin is an image reference ending in a sha256 digest.
	digestPin = regexp.MustCompile(`^[^\s$]+@sha256:[0-9a-f]{64}$`)
	// yamlKey is a mapping key at the start of a line's content.
	yamlKey = regexp.MustCompile(`^("[^"]*"|'[^']*'|[^\s#'"][^:#]*?)\s*:(\s|$)`)
	// tokenRef is an expression that hands out a secret or the token.
	tokenRef = regexp.MustCompile(`(?i)\$\{\{[^}]*\b(secrets\.|github\.token\b)`)
	// syntaxDirective is a Dockerfile's frontend image, a parser directive.
	syntaxDirective = regexp.MustCompile(`(?i)^#\s*syntax\s*=\s*(\S+)`)
)

func main() {
	root := flag.String("root", ".", "the repository to check")
	flag.Parse()
	problems, summary, err := check(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pinned:", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "pinned: %d problems in %s\n", len(problems), summary)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "pinned: %s: every action pinned by commit, every image by digest, no job-wide token\n", summary)
}

// check reads every workflow and Dockerfile under root.
func check(root string) (problems []string, summary string, err error) {
	workflows, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*"))
	if err != nil {
		return nil, "", err
	}
	workflows = slices.DeleteFunc(workflows, func(p string) bool {
		fi, err := os.Stat(p)
		return err != nil || fi.IsDir()
	})
	if len(workflows) == 0 {
		return nil, "", fmt.Errorf("no workflows under %s", filepath.Join(root, ".github", "workflows"))
	}
	dockerfiles, err := findDockerfiles(root)
	if err != nil {
		return nil, "", err
	}
	for _, set := range []struct {
		files []string
		check func(name, text string) []string
	}{{workflows, checkWorkflow}, {dockerfiles, checkDockerfile}} {
		for _, f := range set.files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, "", err
			}
			name, _ := filepath.Rel(root, f)
			problems = append(problems, set.check(filepath.ToSlash(name), string(b))...)
		}
	}
	return problems, fmt.Sprintf("%d workflows, %d Dockerfiles", len(workflows), len(dockerfiles)), nil
}

// findDockerfiles lists Dockerfile, Dockerfile.* and *.Dockerfile under
// root, leaving out .dockerignore files and folders of installed packages.
func findDockerfiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == ".git" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		lower := strings.ToLower(name)
		if strings.HasSuffix(lower, ".dockerignore") {
			return nil
		}
		if lower == "dockerfile" || strings.HasPrefix(lower, "dockerfile.") || strings.HasSuffix(lower, ".dockerfile") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// yamlLine is one mapping entry of a workflow.
type yamlLine struct {
	no     int
	indent int    // column of the key
	key    string // unquoted
	value  string // after the colon: unquoted, without a comment
}

// scanYAML reads the mapping entries of block-style YAML: one key per
// line, list items ("- key: value") counted at their key's column, the
// lines of a block scalar (run: |) skipped.
func scanYAML(text string) []yamlLine {
	var out []yamlLine
	scalar := -1 // while >= 0, lines indented past it are a block scalar's
	for i, raw := range strings.Split(text, "\n") {
		content := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(content)
		if scalar >= 0 && (strings.TrimSpace(content) == "" || indent > scalar) {
			continue
		}
		scalar = -1
		for strings.HasPrefix(content, "- ") {
			content = strings.TrimLeft(content[2:], " ")
			indent = len(raw) - len(content)
		}
		m := yamlKey.FindStringSubmatch(content)
		if m == nil || strings.HasPrefix(content, "#") {
			continue
		}
		value := unquote(stripComment(strings.TrimSpace(content[len(m[0]):])))
		out = append(out, yamlLine{no: i + 1, indent: indent, key: unquote(m[1]), value: value})
		if strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">") {
			scalar = indent
		}
	}
	return out
}

// stripComment drops a " #" comment outside quotes.
func stripComment(v string) string {
	var quote rune
	for i, r := range v {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#' && (i == 0 || v[i-1] == ' ' || v[i-1] == '\t'):
			return strings.TrimSpace(v[:i])
		}
	}
	return v
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// checkWorkflow follows each entry's path of keys (jobs.<job>.steps.uses)
// and judges the entries that run code or hand out a token.
func checkWorkflow(name, text string) []string {
	var problems []string
	type frame struct {
		indent int
		key    string
	}
	var path []frame
	for _, l := range scanYAML(text) {
		for len(path) > 0 && path[len(path)-1].indent >= l.indent {
			path = path[:len(path)-1]
		}
		keys := make([]string, len(path)+1)
		for i, f := range path {
			keys[i] = f.key
		}
		keys[len(path)] = l.key
		if p := judgeEntry(keys, l.value); p != "" {
			problems = append(problems, fmt.Sprintf("%s:%d: %s", name, l.no, p))
		}
		path = append(path, frame{l.indent, l.key})
	}
	return problems
}

// judgeEntry says what is wrong with one workflow entry, given its path
// of keys from the top, or "".
func judgeEntry(keys []string, value string) string {
	last := keys[len(keys)-1]
	jobLevel := len(keys) >= 3 && keys[0] == "jobs"
	switch {
	case last == "uses":
		return judgeUses(value)
	case jobLevel && len(keys) == 3 && last == "container" && value != "",
		jobLevel && len(keys) == 4 && keys[2] == "container" && last == "image",
		jobLevel && len(keys) == 5 && keys[2] == "services" && last == "image":
		if !digestPin.MatchString(value) {
			return fmt.Sprintf("image %s is named by tag, which can be moved to another image: name it by digest (image@sha256:<64 hex>)", value)
		}
	case isEnv(keys[:len(keys)-1]) && tokenRef.MatchString(value),
		isEnv(keys) && tokenRef.MatchString(value):
		scope := "the workflow's"
		if jobLevel {
			scope = "job " + keys[1] + "'s"
		}
		return fmt.Sprintf("%s env gives %s = %s to every step: give it only to the steps that need it, in their own env: or with:", scope, last, value)
	}
	return ""
}

// isEnv reports whether keys is the workflow's env or a job's: not a
// step's, which is where a token belongs.
func isEnv(keys []string) bool {
	return len(keys) == 1 && keys[0] == "env" || len(keys) == 3 && keys[0] == "jobs" && keys[2] == "env"
}

// judgeUses says what is wrong with an action reference, or "".
func judgeUses(v string) string {
	switch {
	case strings.HasPrefix(v, "./"):
		return "" // a local action, at the workflow's own commit
	case strings.HasPrefix(v, "docker://"):
		if !digestPin.MatchString(strings.TrimPrefix(v, "docker://")) {
			return fmt.Sprintf("uses: %s names an image by tag, which can be moved to another image: name it by digest (docker://image@sha256:<64 hex>)", v)
		}
	case !commitPin.MatchString(v):
		action, _, _ := strings.Cut(v, "@")
		return fmt.Sprintf("uses: %s names a tag or branch, which can be moved to other code: pin the full commit SHA of the release and name the version in a comment (%s@<40 hex> # v1.2.3)", v, action)
	}
	return ""
}

// checkDockerfile judges each FROM and the syntax directive.
func checkDockerfile(name, text string) []string {
	var problems []string
	stages := map[string]bool{}
	directives := true // parser directives come first, before any other line
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if m := syntaxDirective.FindStringSubmatch(trimmed); directives && m != nil && !digestPin.MatchString(m[1]) {
			problems = append(problems, fmt.Sprintf("%s:%d: the syntax directive names frontend image %s by tag: name it by digest (image@sha256:<64 hex>) or remove it", name, i+1, m[1]))
		}
		if !strings.HasPrefix(trimmed, "#") {
			directives = false
		}
		fields := strings.Fields(trimmed)
		if len(fields) < 2 || !strings.EqualFold(fields[0], "FROM") {
			continue
		}
		args := slices.DeleteFunc(fields[1:], func(f string) bool { return strings.HasPrefix(f, "--") })
		if len(args) == 0 {
			continue
		}
		image := args[0]
		if image != "scratch" && !stages[strings.ToLower(image)] && !digestPin.MatchString(image) {
			problems = append(problems, fmt.Sprintf("%s:%d: FROM %s names its base by tag, which can be moved to another image: name it by digest (image@sha256:<64 hex>), or copy a prebuilt binary onto scratch", name, i+1, image))
		}
		if len(args) >= 3 && strings.EqualFold(args[1], "AS") {
			stages[strings.ToLower(args[2])] = true // later stages may build FROM it
		}
	}
	return problems
}
