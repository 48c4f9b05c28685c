#!/usr/bin/env bash
# Only src/exec/proc.c may fork, exec*, posix_spawn, popen or system (STYLE.md §10)
set -eu
src=${NUNATAK_SOURCE_DIR:?}/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Calls, not mentions: comment lines are skipped, and exec_which()/
# posix_spawn_file_actions_*() do not match.
pattern='(^|[^A-Za-z0-9_])(v?fork|exec(l|lp|le|v|vp|vpe|ve|veat)|fexecve|posix_spawnp?|popen|system|clone3?)[[:space:]]*\('

offenders() { # prints file:line:text for every call outside the boundary
	grep -rnE --include='*.c' --include='*.h' "$pattern" "$@" |
		grep -vE '^[^:]*/src/exec/proc\.c:' |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|//|/\*)' || true
}

# The check itself must catch a violation (else it would pass vacuously).
mkdir -p "$tmp/src/collect" "$tmp/src/exec"
printf 'int f(void) { return system("ls"); }\n' >"$tmp/src/collect/bad.c"
printf 'int g(void) { return fork(); }\n' >"$tmp/src/exec/proc.c"
printf '/* the file system (ext4) */\nint h(void) { return exec_which("x", 0); }\n' >"$tmp/src/collect/ok.c"
found=$(offenders "$tmp/src")
case "$found" in
*collect/bad.c:1:*) ;;
*) echo "self-test: the grep missed a system() call"; exit 1 ;;
esac
if printf '%s\n' "$found" | grep -qE 'ok\.c|exec/proc\.c'; then
	echo "self-test: false positive: $found"; exit 1
fi

bad=$(offenders "$src")
if [ -n "$bad" ]; then
	echo "process creation outside src/exec/proc.c (use an executor from exec/exec.h):"
	printf '%s\n' "$bad"
	exit 1
fi
grep -qE 'posix_spawn[[:space:]]*\(' "$src/exec/proc.c" || { echo "proc.c no longer spawns?"; exit 1; }
echo "ok: only src/exec/proc.c creates processes"
