// Package lazyre holds regular expressions that compile on first use.
// Every vigil command links every package, and a command uses few of
// their expressions: compiling them all at init was a large part of a
// short command's start (bench/firstline).
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is an expression compiled by its first Get.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// made is every expression New made, for Sources. New is called from
// package-level declarations, which run in one goroutine.
var made []*Regexp

// New returns src, to be compiled when first used. Call it only at package
// level, as regexp.MustCompile would be, so that tests can compile every
// expression (Sources).
func New(src string) *Regexp {
	r := &Regexp{src: src}
	made = append(made, r)
	return r
}

// Get is the compiled expression; it panics, as regexp.MustCompile does,
// when src is not valid (a test compiling Sources finds that first).
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

// Sources are the expressions New made in the packages linked into this
// program, for a test to compile.
func Sources() []string {
	out := make([]string, len(made))
	for i, r := range made {
		out[i] = r.src
	}
	return out
}
