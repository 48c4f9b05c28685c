#!/bin/bash
# sp_begin("work") / sp_end("work") (a string where a handle is expected) is a compile error under gcc, with or without -Werror, in C11 and later; the handle form compiles cleanly (api_string_handle_clang.sh: the same under clang)
set -eu
c=${SP_TEST_CC:-gcc}
command -v "$c" >/dev/null || { echo "skip: $c not found (scripts/deps.sh installs gcc and clang)"; exit 2; }
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc="$NUNATAK_SOURCE_DIR/include"
cat > "$tmp/bad_begin.c" <<'C'
#include <scope_profiler.h>
int main(void) { sp_begin("work"); return 0; }
C
cat > "$tmp/bad_end.c" <<'C'
#include <scope_profiler.h>
int main(void) { sp_end("work"); return 0; }
C
cat > "$tmp/good.c" <<'C'
#include <stddef.h>
#include <scope_profiler.h>
int main(void)
{
	const struct sp_site *work = sp_region("work");
	struct sp_site *none = NULL;
	sp_begin(work);
	sp_end(work);
	sp_begin(none); /* a NULL handle is ignored */
	sp_end(NULL);
	return 0;
}
C
for std in c11 c17 gnu17; do
	for f in bad_begin bad_end; do
		for gate in "" -DSP_NO_INLINE_GATE; do
			if "$c" -std=$std $gate -I"$inc" -c "$tmp/$f.c" -o "$tmp/x.o" 2> "$tmp/err"; then
				fail "$c -std=$std $gate accepted $f.c"
			fi
		done
	done
	"$c" -std=$std -Wall -Wextra -Werror -I"$inc" -c "$tmp/good.c" -o "$tmp/x.o" ||
		fail "$c -std=$std rejected handles"
done
echo "ok ($c)"
