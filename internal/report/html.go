package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"strings"
	"sync"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed style.css
	styleCSS string
)

// csp lets the page use its own style sheet and inline SVG, and nothing
// else: no script, no request of any kind. The style is allowed by its
// hash, so even a log line that made it into the page as markup could not
// style or load anything.
var csp = "default-src 'none'; style-src 'sha256-" + hash(styleCSS) + "'; img-src data:; base-uri 'none'; form-action 'none'"

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// page is the report's template. The style sheet is pasted into the
// template's own text (it is ours, not data) so that the bytes the browser
// hashes are exactly the bytes hashed for the policy. It is parsed on
// first use: every vigil command links this package, few write a report,
// and parsing took a millisecond of each command's start.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").
		Funcs(template.FuncMap{"csp": func() string { return csp }}).
		Parse(strings.Replace(pageHTML, "/*CSS*/", styleCSS, 1)))
})
