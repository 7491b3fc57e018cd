package srvconfig

import (
	"strings"
	"sync"

	"vigil/internal/ansi"
	"vigil/internal/lazyre"
	"vigil/internal/litset"
)

// Parse reads one log message and returns the configuration pairs it
// prints, if it is a configuration line. kind is the server kind ("sglang",
// "vllm", "trtllm", "llamacpp", "tgi"; "" or "auto" when unknown): the
// distinctive prints are recognised whatever kind says, kind only enables
// the generic ones (vLLM's banner, TensorRT-LLM's bare key=value lines).
//
// The caller normally strips the log prefix, but a prefix (timestamps,
// "(EngineCore pid=1) INFO ... [core.py:77] ", ANSI colours) does no harm.
// A message cut in the middle gives the pairs that were complete. ok is
// false when the message holds no configuration pair.
func Parse(kind, msg string) (Config, bool) {
	msg = cleanLine(msg)
	if msg == "" {
		return nil, false
	}
	found := recogniserLits().Scan(msg)
	for _, r := range recognisers {
		if r.kinds != nil && !kindIn(kind, r.kinds) {
			continue
		}
		if found&r.mask == 0 {
			continue
		}
		if items, matched := r.fn(msg); matched {
			c := Config(nil).Merge(items)
			return c, len(c) > 0
		}
	}
	return nil, false
}

type recogniser struct {
	name string
	// kinds limits a generic recogniser to these server kinds (an unknown
	// kind counts as any); nil means always.
	kinds []string
	// lit, or one of anyOf, must occur in the line for fn to be tried:
	// every log line goes through Parse, and one pass that finds every
	// recogniser's literals (recogniserLits) is far cheaper than a
	// substring test per literal, let alone a regexp.
	lit   string
	anyOf []string
	// fn reports whether msg is this kind of line and the pairs read.
	fn func(msg string) ([]KV, bool)
	// mask is the bits of lit and anyOf in recogniserLits.
	mask uint64
}

// recogniserLits finds the recognisers' literals in a line. It is built,
// and the recognisers' masks set, on first use: a command that reads no
// configuration does not pay for it at start.
var recogniserLits = sync.OnceValue(func() *litset.Set {
	var lits []string
	ids := map[string]int{}
	bit := func(l string) uint64 {
		id, ok := ids[l]
		if !ok {
			id = len(lits)
			ids[l] = id
			lits = append(lits, l)
		}
		return 1 << id
	}
	for i := range recognisers {
		r := &recognisers[i]
		for _, l := range append([]string{r.lit}, r.anyOf...) {
			if l != "" {
				r.mask |= bit(l)
			}
		}
	}
	return litset.New(lits...)
})

// recognisers are tried in order; the first that matches a line wins.
var recognisers = []recogniser{
	{name: "sglang ServerArgs", lit: "ServerArgs(", fn: listAfter("ServerArgs(", ')', '=')},
	// entrypoints/engine.py prints its resolved dict since mid-2026.
	{name: "sglang resolved dict", lit: "server_args={", fn: listAfter("server_args={", '}', ':')},
	{name: "sglang scheduler summary", lit: "max_total_num_tokens=", fn: parseSGLangSummary},
	{name: "sglang load weight end", lit: "Load weight end. ", fn: parseSGLangWeightsEnd},
	{name: "sglang default attention backend", lit: "backend by default", fn: parseSGLangDefaultAttention},
	{name: "vllm engine config", lit: "LLM engine (", fn: parseVLLMEngine},
	{name: "vllm non-default args", lit: "non-default args: {", fn: listAfter("non-default args: {", '}', ':')},
	{name: "vllm Namespace", lit: "args: Namespace(", fn: listAfter("args: Namespace(", ')', '=')},
	{name: "vllm version", lit: "server version ", fn: parseVLLMVersion},
	{name: "vllm backends", lit: " backend", fn: parseVLLMBackends},
	{name: "vllm banner", lit: " ", kinds: []string{"vllm"}, fn: parseVLLMBanner},
	{name: "tgi Args", lit: "Args {", fn: parseTGIArgs},
	{name: "trtllm", lit: "TensorRT-LLM", fn: parseTRTLLM},
	{name: "trtllm bracketed", lit: "[TRT-LLM]", fn: parseTRTLLM},
	{name: "trtllm generic", lit: "=", kinds: []string{"trtllm"}, fn: parseTRTLLMGeneric},
	{name: "llama.cpp", anyOf: llamaMarkers, fn: parseLlama},
}

func kindIn(kind string, kinds []string) bool {
	if kind == "" || kind == "auto" {
		return true
	}
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func cleanLine(s string) string {
	if len(s) > maxInput {
		s = s[:maxInput]
	}
	s = ansi.Strip(s)
	return strings.TrimRight(s, "\r\n")
}

// list reads a bracketed or bare list and flattens nested values one level.
func list(s string, close, sep byte) ([]KV, listResult) {
	r := scanList(s, close, sep)
	return flatten(r.items), r
}

// flatten adds "parent.key" pairs for values that are complete dicts, JSON
// objects or reprs (compilation_config={...}, DecodingConfig(...),
// Some(Struct { ... })): one level only, the nested values kept as printed.
func flatten(items []KV) []KV {
	var out []KV
	for _, kv := range items {
		out = append(out, kv)
		inner, close, sep, ok := container(kv.Value)
		if !ok {
			continue
		}
		r := scanList(inner, close, sep)
		if !r.closed {
			continue
		}
		for _, sub := range r.items {
			out = append(out, KV{Key: kv.Key + "." + sub.Key, Value: sub.Value})
		}
	}
	return out
}

var reprHeadRE = lazyre.New(`^[A-Za-z_][\w.]*(\(| \{)`)

// container recognises a value that holds named fields and returns the text
// after its opening bracket.
func container(v string) (inner string, close, sep byte, ok bool) {
	switch {
	case strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}"):
		return v[1:], '}', ':', true
	case strings.HasSuffix(v, ")") || strings.HasSuffix(v, "}"):
		m := reprHeadRE.Get().FindStringSubmatchIndex(v)
		if m == nil {
			return "", 0, 0, false
		}
		if v[m[2]:m[3]] == "(" {
			return v[m[1]:], ')', '=', true
		}
		return v[m[1]:], '}', ':', true
	}
	return "", 0, 0, false
}

// listAfter reads the list that follows marker, up to its close, its
// pairs separated by sep: a Python repr (ServerArgs(...), Namespace(...))
// or dict (server_args={...}, non-default args: {...}).
func listAfter(marker string, close, sep byte) func(string) ([]KV, bool) {
	return func(msg string) ([]KV, bool) {
		rest, ok := after(msg, marker)
		if !ok {
			return nil, false
		}
		items, _ := list(rest, close, sep)
		return items, true
	}
}

// after returns the text after the first occurrence of marker.
func after(msg, marker string) (string, bool) {
	i := strings.Index(msg, marker)
	if i < 0 {
		return "", false
	}
	return msg[i+len(marker):], true
}

// --- SGLang ---

// parseSGLangSummary reads the scheduler's resolved limits:
// "max_total_num_tokens=951104, chunked_prefill_size=8192, ...,
// max_running_requests=4096, context_len=32768, available_gpu_mem=11.80 GB",
// as scheduler.* keys: ServerArgs printed some of them as None before.
func parseSGLangSummary(msg string) ([]KV, bool) {
	i := strings.Index(msg, "max_total_num_tokens=")
	if i < 0 {
		return nil, false
	}
	items, _ := list(msg[i:], 0, '=')
	for n := range items {
		items[n].Key = "scheduler." + items[n].Key
	}
	return items, true
}

// parseSGLangWeightsEnd reads the resolved weights dtype and model class
// from "Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, ..."
// as weights.dtype and weights.architecture (ServerArgs says dtype='auto').
func parseSGLangWeightsEnd(msg string) ([]KV, bool) {
	rest, ok := after(msg, "Load weight end. ")
	if !ok {
		return nil, false
	}
	r := scanList(rest, 0, '=')
	var out []KV
	for _, kv := range r.items {
		switch kv.Key {
		case "type":
			out = append(out, KV{"weights.architecture", kv.Value})
		case "dtype":
			out = append(out, KV{"weights.dtype", kv.Value})
		}
	}
	return out, true
}

var sglangDefaultAttnRE = lazyre.New(`Attention backend not set\. Use (\S+) backend by default`)

// parseSGLangDefaultAttention reads the backend SGLang picked when
// ServerArgs said attention_backend=None (older versions).
func parseSGLangDefaultAttention(msg string) ([]KV, bool) {
	m := sglangDefaultAttnRE.Get().FindStringSubmatch(msg)
	if m == nil {
		return nil, false
	}
	return []KV{{"selected.attention_backend", m[1]}}, true
}

// --- vLLM ---

var vllmEngineRE = lazyre.New(`Initializing an? (?:V\d )?LLM engine \(v([^)\s]*)\) with config: `)

func parseVLLMEngine(msg string) ([]KV, bool) {
	m := vllmEngineRE.Get().FindStringSubmatchIndex(msg)
	if m == nil {
		return nil, false
	}
	items, _ := list(msg[m[1]:], 0, '=')
	out := []KV{{"version", msg[m[2]:m[3]]}}
	return append(out, items...), true
}

var (
	vllmServerVersionRE = lazyre.New(`vLLM (?:API )?server version (\S+?)(?:, serving model (\S+))?\s*$`)
)

func parseVLLMVersion(msg string) ([]KV, bool) {
	m := vllmServerVersionRE.Get().FindStringSubmatch(msg)
	if m == nil {
		return nil, false
	}
	out := []KV{{"version", strings.TrimSuffix(m[1], ",")}}
	if m[2] != "" {
		out = append(out, KV{"model", m[2]})
	}
	return out, true
}

var (
	// "Using FLASH_ATTN attention backend out of potential backends: [...]"
	vllmAttnRE = lazyre.New(`\bUsing (\S+) attention backend\b`)
	// "Using Flash Attention backend on V1 engine." (2025)
	vllmAttnV1RE = lazyre.New(`\bUsing ([\w ]+?) backend on V\d engine`)
	// "Using FLASHINFER backend." (older platforms/cuda.py)
	vllmAttnOldRE = lazyre.New(`\bUsing ([A-Z][A-Z0-9_]+) backend\.?\s*$`)
	// "Using TRITON Fp8 MoE backend out of potential backends: [...]"
	vllmMoERE = lazyre.New(`\bUsing (\S+) (?:\S+ )?MoE backend\b`)
)

func parseVLLMBackends(msg string) ([]KV, bool) {
	for _, re := range []*lazyre.Regexp{vllmAttnRE, vllmAttnV1RE, vllmAttnOldRE} {
		if m := re.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{"selected.attention_backend", m[1]}}, true
		}
	}
	if m := vllmMoERE.Get().FindStringSubmatch(msg); m != nil {
		return []KV{{"selected.moe_backend", m[1]}}, true
	}
	return nil, false
}

var (
	// The startup logo's text column: "...  version 0.21.1" and
	// "...  model   Qwen/Qwen3-8B", after the glyphs.
	vllmBannerVersionRE = lazyre.New(`^[^A-Za-z0-9]*\s+version\s+(v?\d[\w.+-]*)\s*$`)
	vllmBannerModelRE   = lazyre.New(`^[^A-Za-z0-9]*\s+model\s+(\S+)\s*$`)
)

func parseVLLMBanner(msg string) ([]KV, bool) {
	if len(msg) > 400 || !strings.Contains(msg, "version ") && !strings.Contains(msg, "model ") {
		return nil, false // banner lines are short
	}
	msg = stripVLLMPrefix(msg)
	if m := vllmBannerVersionRE.Get().FindStringSubmatch(" " + msg); m != nil {
		return []KV{{"version", m[1]}}, true
	}
	if m := vllmBannerModelRE.Get().FindStringSubmatch(" " + msg); m != nil {
		return []KV{{"model", m[1]}}, true
	}
	return nil, false
}

var vllmPrefixRE = lazyre.New(`^(?:\([^()]*pid=\d+\) ?)?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d \[?[^\]:]+:\d+\] )?`)

func stripVLLMPrefix(msg string) string {
	return msg[len(vllmPrefixRE.Get().FindString(msg)):]
}

// --- TGI ---

func parseTGIArgs(msg string) ([]KV, bool) {
	rest, ok := after(msg, "Args {")
	if !ok {
		return nil, false
	}
	r := scanList(rest, '}', ':')
	for i := range r.items {
		r.items[i].Value = unwrapSome(compactPretty(r.items[i].Value))
	}
	return flatten(r.items), true
}

var (
	prettyBreakRE = lazyre.New(`\s*\n\s*`)
	prettyOpenRE  = lazyre.New(`([\[({]) `)
	prettyCloseRE = lazyre.New(`,? ([\])}])`)
)

// compactPretty folds a value Rust pretty-printed over several lines back
// onto one: "[\n    1,\n    2,\n]" becomes "[1, 2]".
func compactPretty(v string) string {
	if !strings.Contains(v, "\n") {
		return v
	}
	v = prettyBreakRE.Get().ReplaceAllString(v, " ")
	v = prettyOpenRE.Get().ReplaceAllString(v, "$1")
	return prettyCloseRE.Get().ReplaceAllString(v, "$1")
}

// unwrapSome turns Rust's Some("x") or pretty-printed Some(\n 2,\n ) into
// the value inside; None stays None.
func unwrapSome(v string) string {
	if !strings.HasPrefix(v, "Some(") || !strings.HasSuffix(v, ")") {
		return v
	}
	inner := strings.TrimSpace(v[len("Some(") : len(v)-1])
	inner = strings.TrimSpace(strings.TrimSuffix(inner, ","))
	return cleanValue(inner)
}

// --- TensorRT-LLM ---

var (
	trtVersionRE  = lazyre.New(`TensorRT-LLM version: (\S+)`)
	trtGptModelRE = lazyre.New(`TRTGptModel (\w+): (\S+)\s*$`)
	trtReprRE     = lazyre.New(`\b([A-Z]\w*(?:Args|Config))\(`)
	trtPrefixRE   = lazyre.New(`\[TRT-LLM\](?: \[(?:MPI_Rank|RANK) \d+\])? \[[FEWIV]\] `)
)

func parseTRTLLM(msg string) ([]KV, bool) {
	if m := trtVersionRE.Get().FindStringSubmatch(msg); m != nil {
		return []KV{{"version", m[1]}}, true
	}
	if m := trtGptModelRE.Get().FindStringSubmatch(msg); m != nil && strings.Contains(msg, "[TensorRT-LLM]") {
		return []KV{{m[1], m[2]}}, true
	}
	if loc := trtPrefixRE.Get().FindStringIndex(msg); loc != nil {
		body := msg[loc[1]:]
		if m := trtReprRE.Get().FindStringSubmatchIndex(body); m != nil && m[0] == 0 {
			items, _ := list(body[m[1]:], ')', '=')
			return items, len(items) > 0
		}
		return genericPairs(body)
	}
	return nil, false
}

// parseTRTLLMGeneric reads a bare "k=v, k=v" line from a server known to be
// TensorRT-LLM whose prefix was already stripped.
func parseTRTLLMGeneric(msg string) ([]KV, bool) {
	if m := trtReprRE.Get().FindStringSubmatchIndex(msg); m != nil && m[0] == 0 {
		items, _ := list(msg[m[1]:], ')', '=')
		return items, len(items) > 0
	}
	return genericPairs(msg)
}

// genericPairs accepts a message only when it is wholly a list of at least
// two key=value items ("max_seq_len=8193, max_num_requests=32, ..."), so
// ordinary prose with an '=' in it is not taken for configuration.
func genericPairs(body string) ([]KV, bool) {
	if !strings.Contains(body, "=") {
		return nil, false
	}
	r := scanList(body, 0, '=')
	if r.strays > 0 || len(r.items) < 2 || strings.Count(body, ",")+1 != len(r.items) {
		return nil, false
	}
	return flatten(r.items), true
}

// --- llama.cpp ---

var (
	llamaInfoRE    = lazyre.New(`\bprint_info: ([A-Za-z_][\w.]*(?: [\w.]+)*?)\s*=\s*(.*?)\s*$`)
	llamaTokenKey  = lazyre.New(`(?i)(^| )token$`)
	llamaCtxRE     = lazyre.New(`\bllama_context: ([a-z_][\w]*)\s*=\s*(\S.*?)\s*$`)
	llamaKVRE      = lazyre.New(`\bllama_model_loader: - kv\s+\d+:\s+(general\.\S+)\s+\S+\s+=\s+(.*?)\s*$`)
	llamaBuildRE   = lazyre.New(`(?:^|\s)build: (\d+) \((\w+)\)`)
	llamaModelRE   = lazyre.New(`load_model: loading model '(.*)'`)
	llamaOffloadRE = lazyre.New(`load_tensors: offloaded (\d+/\d+) layers to GPU`)
	llamaKVCacheRE = lazyre.New(`llama_kv_cache(?:_unified)?: .*\bK \((\w+)\):.*\bV \((\w+)\)`)
	llamaSlotsRE   = lazyre.New(`initializing slots, n_slots = (\d+)`)
)

// llamaMarkers are the texts parseLlama looks for, one of which a line
// must hold.
var llamaMarkers = []string{"print_info: ", "llama_context: ", "llama_model_loader: - kv", "system_info: ", "build: ",
	"load_model: loading model '", "load_tensors: offloaded ", "llama_kv_cache", "n_slots = "}

func parseLlama(msg string) ([]KV, bool) {
	has := func(lit string) bool { return strings.Contains(msg, lit) }
	switch {
	case has("print_info: "):
		if m := llamaInfoRE.Get().FindStringSubmatch(msg); m != nil {
			if llamaTokenKey.Get().MatchString(m[1]) {
				return nil, true // BOS/EOS/... token ids: not configuration
			}
			return []KV{{strings.ReplaceAll(m[1], " ", "_"), m[2]}}, true
		}
	case has("llama_context: "):
		if m := llamaCtxRE.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{m[1], m[2]}}, true
		}
	case has("llama_model_loader: - kv"):
		if m := llamaKVRE.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{m[1], m[2]}}, true
		}
	case has("system_info: "):
		i := strings.Index(msg, "system_info: ")
		return parseSystemInfo(msg[i+len("system_info: "):]), true
	case has("build: "):
		if m := llamaBuildRE.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{"version", "b" + m[1]}, {"build_commit", m[2]}}, true
		}
	case has("load_model: loading model '"):
		if m := llamaModelRE.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{"model", m[1]}}, true
		}
	case has("load_tensors: offloaded "):
		if m := llamaOffloadRE.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{"gpu_layers", m[1]}}, true
		}
	case has("llama_kv_cache"):
		if m := llamaKVCacheRE.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{"type_k", m[1]}, {"type_v", m[2]}}, true
		}
	case has("n_slots = "):
		if m := llamaSlotsRE.Get().FindStringSubmatch(msg); m != nil {
			return []KV{{"n_slots", m[1]}}, true
		}
	}
	return nil, false
}

// parseSystemInfo reads "n_threads = 12 (n_threads_batch = 12) / 24 |
// CUDA : ARCHS = 860 | USE_GRAPHS = 1 | CPU : SSE3 = 1 | ..." into
// n_threads, CUDA.ARCHS, CUDA.USE_GRAPHS, CPU.SSE3, ...
func parseSystemInfo(s string) []KV {
	var out []KV
	section := ""
	for _, part := range strings.Split(s, "|") {
		part = strings.TrimSpace(part)
		if sec, rest, ok := strings.Cut(part, " : "); ok && !strings.Contains(sec, "=") {
			section, part = strings.TrimSpace(sec), strings.TrimSpace(rest)
		}
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		if section != "" {
			k = section + "." + k
		}
		out = append(out, KV{k, v})
	}
	return out
}
