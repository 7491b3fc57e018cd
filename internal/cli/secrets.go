package cli

import (
	"encoding/json"
	"os"

	"vigil/internal/observe"
	"vigil/internal/redact"
	"vigil/internal/srvconfig"
)

// secured returns a copy of env whose stdout and stderr mask red's secrets
// (the API key vigil sends, which a server may echo) and every secret's
// shape, so that nothing vigil prints can show a key.
func (env *Env) secured(red *redact.Redactor) *Env {
	if env.IO.redacted {
		return env
	}
	c := *env
	io := *env.IO
	io.raw, io.redacted = env.IO, true
	io.Out = red.Writer(env.IO.Out)
	io.ErrOut = red.Writer(env.IO.ErrOut)
	c.IO = &io
	return &c
}

// errFile is the terminal behind stderr, if it is one, for its width.
func (s *IOStreams) errFile() (*os.File, bool) {
	for s.raw != nil {
		s = s.raw
	}
	f, ok := s.ErrOut.(*os.File)
	return f, ok
}

// redactResult masks secrets in what a verdict shows and stores: the
// configuration the server printed (its api_key among it), the evidence
// (log lines), the summary and the hint.
func redactResult(red *redact.Redactor, res *observe.Result) {
	if res == nil {
		return
	}
	res.Summary = red.String(res.Summary)
	res.Hint = red.String(res.Hint)
	for i, e := range res.Evidence {
		res.Evidence[i] = red.String(e)
	}
	res.Config = redactConfig(red, res.Config)
	res.Important = redactConfig(red, res.Important)
}

func redactConfig(red *redact.Redactor, cfg srvconfig.Config) srvconfig.Config {
	if cfg == nil {
		return nil
	}
	out := make(srvconfig.Config, len(cfg))
	for i, kv := range cfg {
		out[i] = srvconfig.KV{Key: kv.Key, Value: red.String(redact.Value(kv.Key, kv.Value))}
	}
	return out
}

// redactJSON masks red's secrets in a JSON document; a document the
// masking would break (a key with JSON-escaped bytes) is dropped whole.
func redactJSON(red *redact.Redactor, b []byte) []byte {
	out := []byte(red.String(string(b)))
	if !json.Valid(out) {
		return []byte(`"` + redact.Mask + `"`)
	}
	return out
}

// redactNotes masks secrets in notes (other processes' command lines,
// history warnings).
func redactNotes(red *redact.Redactor, notes []string) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = red.String(n)
	}
	return out
}
