package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"vigil/internal/checkpoint"
	"vigil/internal/classify"
	"vigil/internal/history"
	"vigil/internal/judge"
	"vigil/internal/learn"
	"vigil/internal/observe"
	"vigil/internal/redact"
	"vigil/internal/render"
	"vigil/internal/srvconfig"
	"vigil/internal/statedir"
)

// startupHistory is the history store as one judging session uses it:
// learned windows and ETA before, one recorded startup after. Every
// failure here is a warning: the history never blocks or changes a verdict.
type startupHistory struct {
	store    *history.Store
	key      history.Key
	learned  *learn.Expectation
	lastGood *history.Startup // the last ready start of this model here
	getenv   func(string) string
	warnings []string
	// red masks secrets in what is stored beyond what history itself
	// masks: the literal API key.
	red     *redact.Redactor
	windows learn.Windows // as judgeConfig decided them
}

// openStartupHistory opens the store and looks up what past startups of this
// server and model on this host say, for their latest configuration.
func openStartupHistory(env *Env, f *judgeFlags, kind, model string) (*startupHistory, error) {
	h := &startupHistory{getenv: env.Getenv, red: f.red}
	if f.noHistory {
		return h, nil
	}
	store, err := history.OpenDefault(env.Getenv)
	if errors.Is(err, statedir.ErrNoStateDir) {
		return h, nil
	}
	if errors.Is(err, statedir.ErrUnsafe) {
		// Another user could read or plant the history: refuse, as for
		// any unsafe state file.
		return nil, Usagef("%v (or give --no-history)", err)
	}
	if err != nil {
		h.warnings = append(h.warnings, "history unavailable: "+err.Error())
		return h, nil
	}
	h.store = store
	h.warnings = append(h.warnings, store.Warnings()...)
	host, _ := os.Hostname()
	h.key = history.Key{Server: kind, Model: model, Host: host}
	if kind == "" || model == "" {
		return h, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	fp, ok, err := store.LatestFingerprint(ctx, kind, model, host)
	if err != nil {
		h.warnings = append(h.warnings, "history: "+err.Error())
		return h, nil
	}
	if !ok {
		return h, nil
	}
	h.key.Fingerprint = fp
	// The last good start's configuration, for the judge to name drift.
	if prev, ok, err := store.Previous(ctx, history.Startup{Server: kind, Model: model, Host: host, StartedAt: time.Now()}, true); err == nil && ok {
		h.lastGood = &prev
	}
	e, ok, err := store.Expectation(ctx, h.key)
	if err != nil {
		h.warnings = append(h.warnings, "history: "+err.Error())
		return h, nil
	}
	if ok {
		h.learned = &e
	}
	return h, nil
}

// judgeConfig fills the judge's windows and expectations from the flags
// and the history.
func (h *startupHistory) judgeConfig(f *judgeFlags, cfg judge.Config) judge.Config {
	w := learn.Decide(h.learned, f.timeout.given(), f.stallAfter.given(), defaultTimeout, defaultStallAfter)
	h.windows = w
	cfg.Timeout, cfg.StallAfter, cfg.AutoWindows = w.Timeout, w.StallAfter, w.Auto
	cfg.FallbackTimeout, cfg.FallbackStall = w.FallbackTimeout, w.FallbackStall
	cfg.Expect = f.expects
	if h.learned != nil {
		cfg.Learned = h.learned
		cfg.LearnedFingerprint = h.key.Fingerprint
		if h.lastGood != nil && h.lastGood.Fingerprint == h.key.Fingerprint {
			cfg.LearnedConfig = h.lastGood.Config
		}
	}
	if h.lastGood != nil {
		cfg.LastGood, cfg.LastGoodID = h.lastGood.Config, h.lastGood.ID
	}
	for _, e := range f.expects {
		if e.Key == "quantization" && h.getenv != nil {
			// A server that prints quantization=None runs with what
			// the checkpoint's config.json says; nothing found: unknown.
			if q, err := checkpoint.Effective(classify.ModelFromArgv(cfg.Argv), h.getenv); err == nil {
				cfg.CheckpointQuant = q.Names()
			}
			break
		}
	}
	return cfg
}

// notes says what the history contributed, for the start of the output.
func (h *startupHistory) notes(cfg judge.Config, f *judgeFlags) []string {
	out := append([]string(nil), h.warnings...)
	if h.learned != nil && h.learned.Samples > 0 {
		s := fmt.Sprintf("history: %d earlier ready start(s) of %s; usually ready in %s", h.learned.Samples, h.key.Model, h.learned.TotalTypical.Round(time.Second))
		if cfg.AutoWindows {
			s += fmt.Sprintf("; learned --timeout %s --stall-after %s", cfg.Timeout.Round(time.Second), cfg.StallAfter.Round(time.Second))
		}
		out = append(out, s)
	}
	return out
}

// record stores the judged startup and returns its id (0 when not stored).
func (h *startupHistory) record(res *observe.Result, info render.Info, model string, extras map[string]any) (int64, string) {
	if h.store == nil {
		return 0, ""
	}
	defer h.store.Close()
	if m := importantValue(res.Important, "model"); m != "" {
		model = m
	}
	host, _ := os.Hostname()
	version, _ := res.Config.Get("version")
	st := history.Startup{
		StartedAt: info.Start, Server: res.Server, Version: version, Model: model, Host: host,
		GPUs: gpuNames(), Config: res.Config, Fingerprint: res.Fingerprint,
		Phases:       learn.PhasesFrom(render.PhaseDurations(res.Phases, res.At)),
		TotalSeconds: res.At.Sub(info.Start).Seconds(),
		Verdict:      string(res.Verdict), Cause: string(res.Cause), Phase: string(res.Phase), Summary: res.Summary, LogPath: info.LogFile,
	}
	st.Summary = h.red.String(st.Summary)
	st.Mode, st.Argv, st.Hint = info.Mode, h.red.Argv(info.Argv), h.red.String(res.Hint)
	for _, e := range res.Evidence {
		st.Evidence = append(st.Evidence, h.red.String(e))
	}
	for name, x := range extras {
		if b, err := json.Marshal(x); err == nil {
			if st.Extra == nil {
				st.Extra = map[string]json.RawMessage{}
			}
			st.Extra[name] = redactJSON(h.red, b)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id, err := h.store.Record(ctx, st)
	if err != nil {
		return 0, "history not recorded: " + err.Error()
	}
	return id, ""
}

// recordStopped stores a startup that vigil stopped on a signal before
// its verdict: verdict "interrupted", the signal as its cause. It never
// counts as a ready start for the learned windows.
func (h *startupHistory) recordStopped(info render.Info, model, signal string, pid int) {
	if h.store == nil {
		return
	}
	defer h.store.Close()
	host, _ := os.Hostname()
	now := time.Now()
	st := history.Startup{
		StartedAt: info.Start, Server: h.key.Server, Model: model, Host: host,
		TotalSeconds: now.Sub(info.Start).Seconds(),
		Verdict:      "interrupted", Cause: signal,
		Summary: fmt.Sprintf("%s before the verdict: vigil stopped the server (pid %d)", signal, pid),
		LogPath: info.LogFile, Mode: info.Mode, Argv: h.red.Argv(info.Argv),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = h.store.Record(ctx, st)
}

func importantValue(kvs []srvconfig.KV, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// gpuNames is a short description of the host's GPUs ("8x NVIDIA H100
// 80GB HBM3"), or "" without nvidia-smi.
func gpuNames() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	snap := gpuClient.Snapshot(ctx)
	if !snap.Available || len(snap.GPUs) == 0 {
		return ""
	}
	counts := map[string]int{}
	var order []string
	for _, g := range snap.GPUs {
		if counts[g.Name] == 0 {
			order = append(order, g.Name)
		}
		counts[g.Name]++
	}
	var parts []string
	for _, n := range order {
		parts = append(parts, fmt.Sprintf("%dx %s", counts[n], n))
	}
	return strings.Join(parts, ", ")
}
