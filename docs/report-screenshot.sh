#!/usr/bin/env bash
# Regenerates docs/report.png: the report of the browser test's demo history
# (internal/report/demo_test.go), as headless Chromium draws it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v "${VIGIL_CHROMIUM:-chromium}" >/dev/null; then
	echo "report-screenshot: needs chromium (apt-get install chromium) or VIGIL_CHROMIUM" >&2
	exit 1
fi
go test -count=1 -run '^TestBrowser$' ./internal/report/ -args -screenshot "$PWD/docs/report.png"
echo "docs/report.png"
