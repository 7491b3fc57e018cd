package gpu

import (
	"strconv"
	"strings"
)

// ParseGPUs parses the output of the GPU query (GPUQuery). Lines that do not
// fit, such as "No devices were found" or "Unable to determine the device
// handle for GPU0000:1B:00.0: Unknown Error", come back in bad.
func ParseGPUs(out []byte) (gpus []GPU, bad []string) {
	for _, line := range lines(out) {
		f := splitCSV(line)
		if len(f) < 6 {
			bad = append(bad, line)
			continue
		}
		// A name could hold a comma; the name is whatever lies between
		// the UUID and the last three columns.
		n := len(f)
		idx, err := strconv.Atoi(f[0])
		if err != nil {
			bad = append(bad, line)
			continue
		}
		gpus = append(gpus, GPU{
			Index:       idx,
			UUID:        f[1],
			Name:        strings.Join(f[2:n-3], ", "),
			MemUsedMiB:  number(f[n-3]),
			MemTotalMiB: number(f[n-2]),
			UtilPct:     int(number(f[n-1])),
		})
	}
	return gpus, bad
}

// ParseApps parses the output of the compute-apps query (AppQuery) and
// resolves each app's GPU index through gpus.
func ParseApps(out []byte, gpus []GPU) (apps []App, bad []string) {
	index := make(map[string]int, len(gpus))
	for _, g := range gpus {
		index[g.UUID] = g.Index
	}
	for _, line := range lines(out) {
		if strings.HasPrefix(line, "No running") {
			continue
		}
		f := splitCSV(line)
		if len(f) != 3 {
			bad = append(bad, line)
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			bad = append(bad, line)
			continue
		}
		gi, ok := index[f[1]]
		if !ok {
			gi = Unknown
		}
		apps = append(apps, App{PID: pid, GPUUUID: f[1], GPUIndex: gi, UsedMiB: number(f[2])})
	}
	return apps, bad
}

// lines splits output into trimmed, non-empty lines (tolerating \r\n).
func lines(out []byte) []string {
	var ls []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

func splitCSV(line string) []string {
	f := strings.Split(line, ",")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}

// number parses a value printed with nounits; "[N/A]", "[Not Supported]",
// "[Unknown Error]", "[Insufficient Permissions]" and anything else that is
// not a number become Unknown. Some drivers print decimals or keep the unit
// despite nounits ("71234 MiB", "98 %"); both are accepted.
func number(s string) int64 {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, "MiB"), "%"))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 {
		return int64(f + 0.5)
	}
	return Unknown
}
