package classify

import "strings"

// listenMarkers are the lines an HTTP server prints once it accepts
// connections (uvicorn under SGLang, vLLM and TensorRT-LLM): the server is
// up, though not necessarily ready.
var listenMarkers = []string{"Application startup complete", "Uvicorn running on"}

// SaysListening reports whether a line says the server's HTTP server
// listens.
func SaysListening(line string) bool {
	for _, m := range listenMarkers {
		if strings.Contains(line, m) {
			return true
		}
	}
	return false
}
