package procstat

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Bounds on one HFCache walk, so a huge cache cannot make sampling slow.
const (
	MaxCacheRepos = 4096    // repository directories looked at
	MaxCacheFiles = 1 << 16 // blob files looked at, over all repositories
)

// CacheSample is the Hugging Face hub cache at one moment. huggingface_hub
// downloads each file to hub/<repo>/blobs/<hash>.incomplete and renames it
// when done, so growing .incomplete files are a download that logs nothing.
type CacheSample struct {
	At              time.Time
	Repos           int   // repository directories (models--org--name, datasets--..., ...)
	Blobs           int   // finished blob files
	BlobBytes       int64 // their total size
	Incomplete      int   // *.incomplete files: downloads in progress or abandoned
	IncompleteBytes int64 // their total size
	Truncated       bool  // a bound was hit; counts cover part of the cache
}

// Bytes is the cache's total size, finished and incomplete.
func (c CacheSample) Bytes() int64 { return c.BlobBytes + c.IncompleteBytes }

// Growth is the cache's growth since prev, in bytes per second.
func (c CacheSample) Growth(prev CacheSample) float64 {
	sec := c.At.Sub(prev.At).Seconds()
	if sec <= 0 {
		return 0
	}
	return float64(c.Bytes()-prev.Bytes()) / sec
}

// Downloading reports whether a download made progress since prev: the
// cache grew, or a file was finished (renamed from .incomplete) or started.
func (c CacheSample) Downloading(prev CacheSample) bool {
	return c.Bytes() > prev.Bytes() || c.Blobs > prev.Blobs || c.Incomplete > prev.Incomplete
}

// HFCache measures hfHome/hub (see HubCache).
func HFCache(hfHome string) (CacheSample, error) {
	return HubCache(filepath.Join(hfHome, "hub"))
}

// HubCache measures a hub cache directory by looking only at
// <hub>/*/blobs/*, within MaxCacheRepos and MaxCacheFiles. Missing
// directories are not errors: a cache that does not exist yet is empty.
// Files are measured with lstat (apparent size, links not followed).
func HubCache(hub string) (CacheSample, error) {
	c := CacheSample{At: time.Now()}
	repos, err := readDirNames(hub)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, nil
		}
		return c, err
	}
	files := 0
	for _, repo := range repos {
		if repo == "" || repo[0] == '.' { // .locks, hidden files
			continue
		}
		if c.Repos == MaxCacheRepos {
			c.Truncated = true
			break
		}
		blobs := filepath.Join(hub, repo, "blobs")
		names, err := readDirNames(blobs)
		if err != nil {
			continue // not a repository, or it vanished
		}
		c.Repos++
		for _, name := range names {
			if files == MaxCacheFiles {
				c.Truncated = true
				return c, nil
			}
			files++
			fi, err := os.Lstat(filepath.Join(blobs, name))
			if err != nil || !fi.Mode().IsRegular() {
				continue // renamed or removed meanwhile
			}
			if strings.HasSuffix(name, ".incomplete") {
				c.Incomplete++
				c.IncompleteBytes += fi.Size()
			} else {
				c.Blobs++
				c.BlobBytes += fi.Size()
			}
		}
	}
	return c, nil
}

// DefaultHFHome returns where huggingface_hub keeps its files, the way it
// decides: $HF_HOME, else $XDG_CACHE_HOME/huggingface, else
// $HOME/.cache/huggingface. getenv is os.Getenv outside tests.
func DefaultHFHome(getenv func(string) string) string {
	if h := getenv("HF_HOME"); h != "" {
		return expandHome(h, getenv)
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(expandHome(x, getenv), "huggingface")
	}
	return filepath.Join(getenv("HOME"), ".cache", "huggingface")
}

// DefaultHubCache returns the hub cache directory: $HF_HUB_CACHE, else the
// older $HUGGINGFACE_HUB_CACHE, else DefaultHFHome/hub.
func DefaultHubCache(getenv func(string) string) string {
	for _, k := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if h := getenv(k); h != "" {
			return expandHome(h, getenv)
		}
	}
	return filepath.Join(DefaultHFHome(getenv), "hub")
}

// expandHome does what Python's os.path.expanduser does for "~/...".
func expandHome(p string, getenv func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(getenv("HOME"), p[1:])
	}
	return p
}
