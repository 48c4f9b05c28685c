#!/bin/bash
# the user's documentation (README.md, docs/, the examples' READMEs, the report page's sources) cites only pages that exist in the repository: every `name.md` it names and every relative link resolves to a file of the tree (no REFERENCE.md), and so does every page the binaries' --help cites
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed for the scan"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# What the binaries tell users to read.
for verb in "" run report compare calibrate doctor regions; do
	"$NUNATAK" $verb --help >>"$tmp/help.txt" 2>&1 || true
done
python3 - "$NUNATAK_SOURCE_DIR" "$tmp/help.txt" <<'PY'
import os, re, sys
root, helptext = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
# A page name (docs/x.md, x.md, tests/corpus/README.md) or a relative link target.
NAME = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
def sources():
    yield "README.md"
    for d in ("docs", "examples", "report-app"):
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith((".md", ".js", ".css")):
                    yield os.path.relpath(os.path.join(base, f), root)
def exists(ref, where):
    if re.match(r"^[a-z]+://", ref):
        return True
    ref = ref.split("#")[0]
    for base in (os.path.dirname(os.path.join(root, where)), root, os.path.join(root, "docs")):
        if os.path.exists(os.path.normpath(os.path.join(base, ref))):
            return True
    # an installed page is cited by its installed path (share/doc/nunatak/...)
    m = re.search(r"share/doc/nunatak/(.+)$", ref)
    return bool(m) and os.path.exists(os.path.join(root, m.group(1)))
bad = []
for rel in sources():
    text = open(os.path.join(root, rel), encoding="utf-8").read()
    for n, line in enumerate(text.splitlines(), 1):
        for ref in NAME.findall(line) + LINK.findall(line):
            if not exists(ref, rel):
                bad.append(f"{rel}:{n}: cites {ref}, which is not in the repository")
# --help names pages by their absolute path in the source tree, which may
# hold spaces: cite them relative to it, as the scan below reads them.
helptext = helptext.replace(os.path.realpath(root) + "/", "").replace(root.rstrip("/") + "/", "")
for ref in NAME.findall(helptext):
    if not exists(ref, "README.md"):
        bad.append(f"--help cites {ref}, which is not in the repository")
# The negative control: the scan sees a missing page.
assert not exists("REFERENCE.md", "docs/cli/run.md"), "REFERENCE.md must not resolve"
if bad:
    print("pages cited but absent:", *bad, sep="\n  ")
    sys.exit(1)
print("every cited page exists")
PY
