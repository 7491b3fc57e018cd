package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"vigil/internal/history"
	"vigil/internal/judge"
	"vigil/internal/learn"
	"vigil/internal/observe"
	"vigil/internal/render"
	"vigil/internal/srvconfig"
)

// startupHistory is the history store as one judging session uses it:
// learned windows and ETA before, one recorded startup after. Every
// failure here is a warning: the history never blocks or changes a verdict.
type startupHistory struct {
	store    *history.Store
	key      history.Key
	learned  *learn.Expectation
	warnings []string
	windows  learn.Windows // as judgeConfig decided them
}

// openStartupHistory opens the store and looks up what past startups of this
// server and model on this host say, for their latest configuration.
func openStartupHistory(env *Env, f *judgeFlags, kind, model string) *startupHistory {
	h := &startupHistory{}
	if f.noHistory {
		return h
	}
	path := history.DefaultPath(env.Getenv)
	if path == "" {
		return h
	}
	store, err := history.Open(path)
	if err != nil {
		h.warnings = append(h.warnings, "history unavailable: "+err.Error())
		return h
	}
	h.store = store
	h.warnings = append(h.warnings, store.Warnings()...)
	host, _ := os.Hostname()
	h.key = history.Key{Server: kind, Model: model, Host: host}
	if kind == "" || model == "" {
		return h
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	fp, ok, err := store.LatestFingerprint(ctx, kind, model, host)
	if err != nil {
		h.warnings = append(h.warnings, "history: "+err.Error())
		return h
	}
	if !ok {
		return h
	}
	h.key.Fingerprint = fp
	e, ok, err := store.Expectation(ctx, h.key)
	if err != nil {
		h.warnings = append(h.warnings, "history: "+err.Error())
		return h
	}
	if ok {
		h.learned = &e
	}
	return h
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
	for name, x := range extras {
		if b, err := json.Marshal(x); err == nil {
			if st.Extra == nil {
				st.Extra = map[string]json.RawMessage{}
			}
			st.Extra[name] = b
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
