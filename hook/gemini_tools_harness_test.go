//go:build harness

package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// geminiModel answers Gemini's generateContent calls with text and
// records the function declarations each request carries.
type geminiModel struct {
	mu    sync.Mutex
	names map[string]bool
}

func (m *geminiModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	m.mu.Lock()
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			m.names[f.Name] = true
		}
	}
	m.mu.Unlock()
	resp := `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`
	if r.URL.Query().Get("alt") == "sse" {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, resp)
}

// Every tool Gemini CLI 0.61.0 declares to its model (in yolo mode, where
// it declares the most), every tool name constant in its bundle and every
// legacy alias it accepts is one the hook classifies.
func TestGeminiToolNamesAreClassified(t *testing.T) {
	geminiJS := os.Getenv("GEMINI_JS")
	require.NotEmpty(t, geminiJS, "set GEMINI_JS to node_modules/@google/gemini-cli/bundle/gemini.js (npm install @google/gemini-cli@0.61.0)")
	_, home, work, _ := harnessDirs(t)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o644))
	model := &geminiModel{names: map[string]bool{}}
	addr := serveLoopback(t, model)

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", geminiJS, "-m", "gemini-2.5-pro", "--approval-mode", "yolo", "-p", "hi", "-o", "json")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_API_KEY=dummy-not-used",
		"GOOGLE_GEMINI_BASE_URL=http://" + addr, "GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	names := map[string]bool{}
	model.mu.Lock()
	for n := range model.names {
		names[n] = true
	}
	model.mu.Unlock()
	require.Contains(t, names, "run_shell_command", "the model was sent Gemini's tools")

	// The bundle's tool name constants and legacy aliases.
	bundle := filepath.Dir(geminiJS)
	files, err := filepath.Glob(filepath.Join(bundle, "*.js"))
	require.NoError(t, err)
	constant := regexp.MustCompile(`[A-Z_]+_TOOL_NAME = "([a-z_]+)"`)
	aliases := regexp.MustCompile(`(?s)TOOL_LEGACY_ALIASES = \{(.*?)\}`)
	key := regexp.MustCompile(`(?m)^\s*([a-z_]+):`)
	aliasCount := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range constant.FindAllSubmatch(b, -1) {
			names[string(m[1])] = true
		}
		for _, m := range aliases.FindAllSubmatch(b, -1) {
			for _, k := range key.FindAllSubmatch(m[1], -1) {
				names[string(k[1])] = true
				aliasCount++
			}
		}
	}
	assert.Positive(t, aliasCount, "the bundle's legacy aliases were found")
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		assert.NotEmpty(t, toolClass(Gemini, n), "Gemini CLI's tool %q is not classified", n)
	}
	t.Logf("%d tool names: %v", len(sorted), sorted)
}
