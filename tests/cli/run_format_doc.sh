#!/bin/bash
# docs/run-format.md matches a real Run's manifest.json both ways (every documented key is there unless optional, every key there is documented), its reals are in shortest round-trip form, and the pass duration comes from the monotonic clock
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf '[tools]\nperf = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/run/fake_perf.sh" > nunatak.toml
printf '#!/bin/sh\nsleep 0.3\n' > app.sh
chmod +x app.sh
"$NUNATAK" run -q -o "$tmp/run" -- ./app.sh > /dev/null 2> err.txt || { cat err.txt; exit 1; }
python3 - "$NUNATAK_SOURCE_DIR/docs/run-format.md" "$tmp/run/manifest.json" <<'PY'
import json, re, sys
doc, path = open(sys.argv[1]).read(), sys.argv[2]
text = open(path).read()
m = json.loads(text)

def table(section):
    body = doc.split(section, 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    rows = {}
    for line in body.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        keys = re.findall(r"`([^`]+)`", cells[0])
        base = None
        for k in keys:
            if k.startswith(".") and base:
                k = base.rsplit(".", 1)[0] + k
            base = k
            rows[k] = "optional" in cells[1]
            # `{tool, version}` in the meaning documents the items' keys
            for fields in re.findall(r"`\{([a-z_, ]+)\}`", cells[2] if len(cells) > 2 else ""):
                for f in fields.split(","):
                    rows[k + "." + f.strip()] = True
    return rows

def get(obj, dotted):
    for part in dotted.split("."):
        if part.endswith("[]"):
            obj = obj.get(part[:-2]) if isinstance(obj, dict) else None
            if not isinstance(obj, list):
                return "absent"
            if not obj:
                return []   # present, empty: nothing deeper to check
            obj = obj[0]
            continue
        if obj == []:
            return []
        if not isinstance(obj, dict) or part not in obj:
            return "absent"
        obj = obj[part]
    return obj

man = table("## manifest.json")
for k, optional in man.items():
    if get(m, k) == "absent" and not optional and k not in ("degradations[]",):
        sys.exit(f"documented key {k} is not in {path}")
documented = set(man)
def walk(obj, prefix):
    for k, v in obj.items():
        key = prefix + k
        if key.startswith("machine.") or key.startswith("provenance.effective_configuration.") \
           or key.startswith("provenance.dependencies.") or key.startswith("files.") or key.startswith("overhead."):
            continue
        if isinstance(v, list) and v and isinstance(v[0], dict):
            if key + "[]" not in documented:
                sys.exit(f"{key}[] is in the manifest, not in docs/run-format.md")
            walk(v[0], key + "[].")
        elif isinstance(v, dict) and key not in documented:
            walk(v, key + ".")
        elif key not in documented and key + "[]" not in documented:
            sys.exit(f"{key} is in the manifest, not in docs/run-format.md")
walk(m, "")
mach = table("### machine")
for k, optional in mach.items():
    if get(m["machine"], k) == "absent" and not optional:
        sys.exit(f"documented machine key {k} is not in the manifest")
for k, v in m["machine"].items():
    if isinstance(v, dict):
        for k2 in v:
            if f"{k}.{k2}" not in mach:
                sys.exit(f"machine.{k}.{k2} is not documented")
    elif k not in mach and k + "[]" not in mach:
        sys.exit(f"machine.{k} is not documented")
# Shortest round-trip reals: every real token reads back as Python's repr.
for tok in re.findall(r'(?<![\w"."])-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+', re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)):
    short = repr(float(tok))
    if len(tok.replace("-", "").lstrip("0.")) > len(short.replace("-", "").lstrip("0.")) + 1:
        sys.exit(f"real {tok} is not in its shortest form ({short})")
d = m["passes"][0]["duration_s"]
assert isinstance(d, float) and 0.25 < d < 600, d   # sleep 0.3: not whole seconds
print("ok")
PY
