package remote

import "strings"

// The remote side runs these POSIX sh scripts through `sh -c`. ssh joins
// its command words into one string for the user's login shell, which may
// be csh or fish, so each script is a single line without backslashes: every login
// shell passes such a single-quoted word to sh unchanged (TestScriptsAreOneLine).

// hashFn prints the SHA-256 of stdin in hex; macOS has shasum, not sha256sum.
const hashFn = `h() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1; }; `

// binDir sets d (the versioned directory, $1 the hash prefix) and b (the
// binary) under the user's cache directory.
const binDir = `[ -n "${XDG_CACHE_HOME:-$HOME}" ] || { echo "neither XDG_CACHE_HOME nor HOME is set" >&2; exit 3; }; ` +
	`d="${XDG_CACHE_HOME:-$HOME/.cache}/vigil/$1"; b="$d/vigil"; `

// probe runs "$b --help" and says whether the binary can run: "exec ok",
// "exec noexec" (permission denied on a noexec mount), "exec denied",
// "exec failed N".
const probe = `"$b" --help >/dev/null 2>&1; r=$?; ` +
	`if [ $r -eq 0 ]; then echo "exec ok"; ` +
	`elif [ $r -eq 126 ]; then o=$(findmnt -no OPTIONS -T "$d" 2>/dev/null); case ",$o," in *,noexec,*) echo "exec noexec";; *) echo "exec denied";; esac; ` +
	`else echo "exec failed $r"; fi`

// prepareScript prints `uname -sm`, then "present PATH" and the probe's
// line when the binary with hash $2 is already there, else "missing PATH".
const prepareScript = `uname -sm; ` + hashFn + binDir +
	`if [ -f "$b" ] && [ "$(h <"$b")" = "$2" ]; then echo "present $b"; ` + probe + `; else echo "missing $b"; fi`

// pushScript writes stdin to a temporary name next to the binary, checks
// its hash, makes it 0700 and renames it into place (atomic: a concurrent
// vigil never runs half a binary), then probes it.
const pushScript = hashFn + binDir + `umask 077; mkdir -p "$d" || exit 3; t=$(mktemp "$d/.vigil.XXXXXX") || exit 3; ` +
	`if cat >"$t" && [ "$(h <"$t")" = "$2" ] && chmod 700 "$t" && mv -f "$t" "$b"; then echo "installed $b"; ` +
	`else rm -f "$t"; echo "could not write $b (disk full, or a read-only cache directory?)" >&2; exit 3; fi; ` + probe

// sessionScript runs the remote vigil ($2...) in a session directory of
// its own: events (its stdout), stderr and rc (its exit status) are files,
// so nothing the ssh connection does can block or kill it. It prints
// "vigil-remote: pid P dir D" on stderr, streams the events file to stdout
// until vigil exits, then copies vigil's stderr, says "vigil-remote: end"
// on stderr and exits with vigil's status. A detached session's files are
// removed only when the client answers "ack" on stdin (within 5s), so that
// a connection that broke unnoticed leaves them for reading.
//
// $1 is "detached" (run: the remote vigil outlives a dropped connection
// and stops the server on failure by itself) or "attached" (watch: when
// stdin reaches EOF, the connection is gone, nobody reads the judgement,
// so the remote vigil gets SIGTERM; watch never signals the server).
// A background list's stdin is /dev/null in sh, hence the copy in fd 3.
// Each line read on stdin sends SIGTERM to the remote vigil's process
// group, which vigil takes as it takes Ctrl-C (a second one kills the
// server at once). Not SIGINT: sh starts background lists with SIGINT
// ignored, and a signal ignored on entry cannot be trapped.
//
// Exit 254 means the session itself failed (no directory, or the stream
// broke while vigil runs).
const sessionScript = `exec 3<&0; m=$1; shift; s="${XDG_STATE_HOME:-$HOME/.local/state}/vigil/remote"; umask 077; ` +
	`mkdir -p "$s" && d=$(mktemp -d "$s/session.XXXXXX") || { echo "vigil-remote: cannot create a session directory under $s" >&2; exit 254; }; ` +
	// Sessions left by dropped connections are kept for a week for reading.
	`find "$s" -mindepth 1 -maxdepth 1 -name 'session.*' -mtime +7 -exec rm -rf {} + 2>/dev/null; ` +
	`: >"$d/events"; if command -v setsid >/dev/null 2>&1; then S=setsid; else S=; fi; ` +
	// The inner sh traps TERM so that it outlives the signal it passes on
	// and records vigil's status; vigil gets TERM with its default action
	// (a caught trap is reset in the child).
	`$S sh -c 'trap : TERM; d=$1; shift; "$@"; echo $? >"$d/rc"' sh "$d" "$@" </dev/null >"$d/events" 2>"$d/stderr" 3<&- & p=$!; ` +
	`if [ -n "$S" ]; then g=-$p; else g=$p; fi; ` +
	`echo "vigil-remote: pid $p dir $d" >&2; ` +
	`(while read -r l; do if [ "$l" = ack ]; then : >"$d/ack"; else kill -TERM $g 2>/dev/null || pkill -TERM -P $p; fi; done; ` +
	`if [ "$m" = attached ]; then kill -TERM $g 2>/dev/null || pkill -TERM -P $p; fi) <&3 & r=$!; exec 3<&-; ` +
	`case "$(tail --version 2>/dev/null)" in *GNU*) tail -n +1 -s 0.1 --pid=$p -f "$d/events";; ` +
	`*) tail -n +1 -f "$d/events" & t=$!; while kill -0 $p 2>/dev/null; do sleep 1; done; sleep 2; kill $t;; esac; ` +
	// The stream broke while vigil runs: the connection is gone. An
	// attached vigil is stopped here too, before the stdin reader that would
	// stop it is ended: tail may notice the drop before that reader does.
	`if kill -0 $p 2>/dev/null; then if [ "$m" = attached ]; then kill -TERM $g 2>/dev/null || pkill -TERM -P $p; fi; kill $r 2>/dev/null; exit 254; fi; ` +
	`cat "$d/stderr" >&2; c=$(cat "$d/rc" 2>/dev/null); echo "vigil-remote: end" >&2; ` +
	// The files go only once the client says it has everything: after a
	// drop nobody acknowledges, and they stay for reading.
	`i=0; while [ "$m" = detached ] && [ ! -e "$d/ack" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; ` +
	`kill $r 2>/dev/null; if [ "$m" = attached ] || [ -e "$d/ack" ]; then rm -rf "$d"; fi; exit ${c:-254}`

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// remoteCommand is the command string ssh hands to the remote login shell:
// `sh -c SCRIPT sh ARGS...`, every word quoted.
func remoteCommand(script string, args ...string) string {
	words := []string{"sh", "-c", shellQuote(script), "sh"}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}
