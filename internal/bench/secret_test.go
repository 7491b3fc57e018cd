package bench

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Neither the key a server echoes in its refusals nor a password in the
// URL reaches the result.
func TestResultCarriesNoSecret(t *testing.T) {
	const key = "sk-bench-planted-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"bad key ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}`))
	}))
	defer srv.Close()
	o := quick()
	o.Model = "m"
	base := strings.Replace(srv.URL, "http://", "http://user:hunter2pass@", 1)
	res, err := Run(t.Context(), NewClient(base, key, o), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), key) || strings.Contains(string(b), "hunter2pass") {
		t.Errorf("the result holds a secret: %s", b)
	}
	if lv := res.Levels[0]; lv.Failed != o.Requests || len(lv.Failures) != 1 || lv.Failures[0].Reason != "HTTP 401" {
		t.Errorf("failures = %+v, want every request refused with HTTP 401", lv.Failures)
	}
}
