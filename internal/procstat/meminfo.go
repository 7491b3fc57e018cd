package procstat

import (
	"bytes"
	"fmt"
)

// MemInfo is the machine's memory from /proc/meminfo, in bytes. Inside a
// container it describes the host unless something like lxcfs rewrites it.
type MemInfo struct {
	Total, Free, Available int64
	SwapTotal, SwapFree    int64
}

// MemInfo reads /proc/meminfo.
func (fsys FS) MemInfo() (MemInfo, error) {
	var r reader
	path := fsys.root() + "/meminfo"
	b, err := r.read(path)
	if err != nil {
		return MemInfo{}, err
	}
	m := parseMemInfo(b)
	if m.Total == 0 {
		return m, fmt.Errorf("procstat: %s: no MemTotal", path)
	}
	return m, nil
}

func parseMemInfo(b []byte) MemInfo {
	var m MemInfo
	eachKeyValue(b, func(k, v []byte) {
		mult := int64(1)
		if n, ok := bytes.CutSuffix(v, []byte(" kB")); ok {
			v, mult = n, 1024
		}
		n, ok := atoi(bytes.TrimSpace(v))
		if !ok {
			return
		}
		switch string(k) {
		case "MemTotal":
			m.Total = n * mult
		case "MemFree":
			m.Free = n * mult
		case "MemAvailable":
			m.Available = n * mult
		case "SwapTotal":
			m.SwapTotal = n * mult
		case "SwapFree":
			m.SwapFree = n * mult
		}
	})
	return m
}
