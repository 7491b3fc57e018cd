#!/usr/bin/env bash
# firstline_floor.sh: bench/firstline with two floors beside vigil: an
# empty Go program ("go-empty"), and one that links every library outside
# the standard library that vigil links and does nothing ("libraries":
# their package init and the runtime's start for a binary of their size).
# What vigil takes above the second is its own to save. Both are built
# through an overlay, so no file is written in the tree.
#
# Usage: bench/firstline_floor.sh            (VIGIL=<binary> to time one already built; N=30)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CGO_ENABLED=0

vigil=${VIGIL:-}
if [ -z "$vigil" ]; then
	vigil=$tmp/vigil
	go build -o "$vigil" ./cmd/vigil
fi

# Packages outside the standard library (a dot in the first element) and
# outside vigil, less those only their own module may import.
mapfile -t libs < <(go list -deps ./cmd/vigil | grep -E '^[^/]+\.[^/]+/' | grep -v -E '/internal(/|$)')
{
	echo 'package main'
	echo 'import ('
	printf '\t_ "%s"\n' "${libs[@]}"
	echo ')'
	echo 'func main() {}'
} >"$tmp/libraries.go"
echo 'package main; func main() {}' >"$tmp/empty.go"

# The overlay puts each file in a package directory that does not exist,
# inside this module so that go.mod's versions apply.
build() { # name source
	local pkg=bench/firstline/floor_$1
	printf '{"Replace":{"%s/main.go":"%s"}}' "$PWD/$pkg" "$2" >"$tmp/$1.json"
	go build -overlay "$tmp/$1.json" -o "$tmp/$1" "./$pkg"
}
build libraries "$tmp/libraries.go"
build go-empty "$tmp/empty.go"
echo "libraries linked: ${#libs[@]} packages; binaries: vigil $(stat -c %s "$vigil") B, libraries $(stat -c %s "$tmp/libraries") B, go-empty $(stat -c %s "$tmp/go-empty") B"
go run ./bench/firstline -vigil "$vigil" -n "${N:-30}" -floor "$tmp/go-empty" -floor "$tmp/libraries"
