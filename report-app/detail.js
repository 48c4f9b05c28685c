// SPDX-License-Identifier: BSD-3-Clause
// Level 3, the detail of one Hotspot (it replaces the inventory; back with
// "← Inventory" or Escape). Left: downgrade reasons, the roofline or an
// "Off the roofline" box, the metrics with their Quality. Right: the source
// extract with per-line shares (hot at 10% and above), the hot loop, the
// callers and the ventilation by inline frame.

const HOT_LINE = 0.10;
const MAX_CALLERS = 6;

const METRICS = [
  ["share", "Share of the sampled time", true],
  ["achieved", "Achieved", false],
  ["attainable", "Attainable", false],
  ["envelope_fraction", "Envelope fraction", true],
  ["dram_intensity", "DRAM intensity", false],
  ["imbalance", "Imbalance (max/min over Loci)", false],
];

function metricRow(label, v, asShare, extra) {
  const q = qualityOf(v);
  return el("tr", {},
    el("th", {scope: "row"}, label),
    el("td", {class: "num"}, valueSpan(v, asShare), extra || ""),
    el("td", {}, qualityBadge(q, reasonTitle(v))),
    el("td", {class: "why"}, v && v.reason ? v.reason : "", v && v.formula ? el("div", {class: "formula"}, v.formula) : ""));
}

function inclusiveValue(h) {
  if (isValue(h.inclusive)) return h.inclusive;
  return {value: null, unit: "ratio", quality: "unavailable",
    reason: "not computed for this Run: inclusive time needs call stacks"};
}

function metricsTable(h) {
  const rel = h.relative_error;
  // Relative (1/sqrt(n)), said so, with its size in points of the share.
  const relText = available(rel) ? ` \u00b1 ${(rel.value * 100).toFixed(1)}% relative` +
    (available(h.share) ? ` (\u00b1 ${(rel.value * h.share.value * 100).toFixed(1)} points)` : "") : "";
  const rows = METRICS.map(([k, label, asShare]) =>
    metricRow(label, h[k], asShare, k === "share" && relText ? el("span", {class: "relerr", title: reasonTitle(rel)}, relText) : null));
  rows.splice(1, 0, el("tr", {}, el("th", {scope: "row"}, "Samples"),
    el("td", {class: "num"}, Number.isInteger(h.samples) ? h.samples.toLocaleString("en-US") : el("span", {class: "unavail"}, "unavailable")),
    el("td", {}, qualityBadge("measured")), el("td", {class: "why"}, "relative error 1/\u221an: ", valueText(rel, true))));
  const inc = inclusiveValue(h);
  rows.push(metricRow("Inclusive", inc, true));
  return el("table", {class: "metrics"}, el("thead", {}, el("tr", {},
    ["Metric", "Value", "Quality", "Why / formula"].map(t => el("th", {scope: "col"}, t)))), el("tbody", {}, rows));
}

function lineShares(h) {
  const m = new Map();
  for (const l of h.lines || []) if (Number.isInteger(l.line)) m.set(l.line, (m.get(l.line) || 0) + (num(l.share) || 0));
  return m;
}

function lineRow(no, share, code, withheld) {
  const hot = share >= HOT_LINE;
  const row = el("tr", {class: hot ? "hot" : share > 0 ? "warm" : ""},
    el("td", {class: "ln"}, no),
    el("td", {class: "lpct"}, share > 0 ? pct(share) : ""),
    el("td", {class: withheld ? "code withheld" : "code"}, code));
  if (share > 0) row.cells[1].style.setProperty("--w", (Math.min(1, share) * 100).toFixed(1) + "%");
  return row;
}

function sourceBlock(h, x, shares) {
  const head = el("div", {class: "src-head", title: x.resolved_path || x.file || ""},
    (x.file ? basename(x.file) : "unknown file") + (x.start_line ? `:${x.start_line}\u2013${x.end_line}` : ""),
    x.truncated ? el("span", {class: "muted"}, " (truncated)") : "");
  const body = el("tbody", {});
  if (typeof x.text === "string") {
    const lines = x.text.replace(/\n$/, "").split("\n");
    lines.forEach((t, i) => body.append(lineRow(x.start_line + i, shares.get(x.start_line + i) || 0, t, false)));
  } else {
    for (const [no, s] of [...shares.entries()].sort((a, b) => a[0] - b[0]))
      if (!x.start_line || (no >= x.start_line && no <= x.end_line)) body.append(lineRow(no, s, "\u00b7\u00b7\u00b7", true));
  }
  return el("div", {class: "src"}, head,
    typeof x.text === "string" ? null : el("p", {class: "withheld-note"}, "Source text unavailable: " + (x.reason || "no reason recorded"), ". Per-line shares are kept."),
    el("table", {class: "source"}, body));
}

function sourcePanel(h) {
  const shares = lineShares(h);
  const blocks = (h.source || []).map(x => sourceBlock(h, x, shares));
  // A line with time outside every extract is still shown, without text.
  const covered = no => (h.source || []).some(x => !x.start_line || (no >= x.start_line && no <= x.end_line));
  const outside = new Map([...shares].filter(([no]) => !covered(no)));
  if (blocks.length && outside.size)
    blocks.push(sourceBlock(h, {file: h.source_file, text: null, reason: "these lines lie outside every extract"}, outside));
  if (!blocks.length && shares.size)
    blocks.push(sourceBlock(h, {file: h.source_file, text: null, reason: "no source extract in this Run"}, shares));
  if (!blocks.length)
    blocks.push(el("p", {class: "muted"}, h.resolution_level === "line" ? "No source extract in this Run."
      : `Resolved to ${h.resolution_level} level only: no line table for this code.`));
  return el("section", {class: "panel"}, el("h3", {}, "Source"), blocks);
}

function loopPanel(h) {
  const l = h.loop;
  if (!l || typeof l !== "object") return null;
  const rows = [];
  for (const [k, v] of Object.entries(l)) {
    if (isValue(v)) rows.push(metricRow(k.replace(/_/g, " "), v, false));
    else if (v !== null && typeof v !== "object") rows.push(el("tr", {}, el("th", {scope: "row"}, k.replace(/_/g, " ")), el("td", {colspan: 3}, String(v))));
    else if (v && typeof v === "object") rows.push(el("tr", {}, el("th", {scope: "row"}, k.replace(/_/g, " ")), el("td", {colspan: 3}, el("code", {}, JSON.stringify(v)))));
  }
  return el("section", {class: "panel"}, el("h3", {}, "Hot loop, from the machine code"), el("table", {class: "metrics"}, el("tbody", {}, rows)));
}

function callersPanel(h) {
  const cs = (h.callers || []).slice(0, MAX_CALLERS);
  return el("section", {class: "panel"}, el("h3", {}, "Called from"),
    cs.length ? el("table", {class: "grid-table"}, el("tbody", {}, cs.map(c => el("tr", {},
      el("td", {}, el("span", {class: "hs-name"}, c.name || "unresolved")),
      el("td", {class: "bar-cell"}, shareBar(num(c.share), qualityOf(c.share))), el("td", {class: "num"}, valueSpan(c.share, true))))))
      : el("p", {class: "muted"}, "unavailable: no caller recorded for this Hotspot (callers need call stacks)"));
}

function inlinePanel(h) {
  const fr = (h.inline_frames || []).slice().sort((a, b) => (num(b.share) || 0) - (num(a.share) || 0));
  if (!fr.length) return null;
  return el("section", {class: "panel"}, el("h3", {}, "Ventilation by inline frame"),
    el("table", {class: "grid-table"}, el("tbody", {}, fr.map(f => el("tr", {},
      el("td", {}, el("span", {class: "hs-name"}, f.function || "unavailable")),
      el("td", {title: f.file || ""}, f.file ? basename(f.file) + (f.line ? ":" + f.line : "") : ""),
      el("td", {class: "bar-cell"}, shareBar(num(f.share), qualityOf(f.share))), el("td", {class: "num"}, valueSpan(f.share, true)))))));
}

// Where this Hotspot's samples fell among the regions (innermost open region
// of the sampled thread at the sample's time).
function regionsPanel(h) {
  const rs = h.regions || [];
  if (!rs.length) return null;
  return el("section", {class: "panel"}, el("h3", {}, "By region"),
    el("table", {class: "grid-table"}, el("tbody", {}, rs.slice(0, 8).map(r => el("tr", {},
      el("td", {}, r.path === null ? el("span", {class: "muted"}, "outside every region") : el("span", {class: "region-path"}, r.path)),
      el("td", {class: "bar-cell"}, shareBar(num(r.share), qualityOf(r.share))), el("td", {class: "num"}, valueSpan(r.share, true)),
      el("td", {class: "num muted"}, plural(r.samples, "sample")))))));
}

function rooflinePanel(payload, i) {
  const h = payload.hotspots[i];
  const why = offRooflineReason(payload, h);
  if (why)
    return el("section", {class: "panel off-roofline"}, el("h3", {}, "Off the roofline"),
      el("p", {}, "This Hotspot is not placed on a roofline: " + why + "."));
  const perRank = rankPoints(h).length > 0;
  return el("section", {class: "panel"}, el("h3", {}, "Roofline"), rooflineSvg(payload, i),
    el("p", {class: "muted"}, "Point: this Hotspot (achieved at its DRAM intensity); pale points: the other Hotspots; the dotted line rises to what is attainable." +
      (perRank ? " Small squares: this Hotspot on each rank." : "")),
    ranksTable(h));
}

// Each rank's placement of this Hotspot: who runs it below the envelope of the others.
function ranksTable(h) {
  const rows = Array.isArray(h.ranks) ? h.ranks : [];
  if (rows.length < 2) return null;
  // each rank is placed against its own node's Ceilings (when the Run knows its nodes' Machines)
  const nodes = rows.some(r => r.node);
  const ceil = r => r.ceilings ? ["flops_dp", "dram_bandwidth"].map(k => r.ceilings[k] ? [valueSpan(r.ceilings[k]), " "] : "unavailable ") : "";
  return el("table", {class: "grid-table ranks-placement"},
    el("thead", {}, el("tr", {}, ["Rank"].concat(nodes ? ["Node", "Its node's Ceilings (flops_dp, dram_bandwidth)"] : [])
      .concat(["Achieved", "Attainable", "Envelope", "DRAM intensity", "Quality"]).map(t => el("th", {}, t)))),
    el("tbody", {}, rows.map(r => el("tr", {"data-rank": r.rank},
      el("td", {class: "num"}, String(r.rank)),
      nodes ? el("td", {}, r.node || "") : null, nodes ? el("td", {class: "num"}, ceil(r)) : null,
      el("td", {class: "num"}, valueText(r.achieved)), el("td", {class: "num"}, valueText(r.attainable)),
      el("td", {class: "num"}, available(r.envelope_fraction) ? pct(r.envelope_fraction.value) : "unavailable"),
      el("td", {class: "num"}, valueText(r.dram_intensity)),
      el("td", {}, qualityBadge(qualityOf(r.envelope_fraction), r.envelope_fraction && r.envelope_fraction.reason))))));
}

function detail(payload, i, back) {
  const h = payload.hotspots[i];
  const down = downgradeReasons(h);
  const sub = [h.module ? el("span", {title: h.module}, basename(h.module)) : null,
    typeof h.offset === "number" ? el("code", {}, "+0x" + h.offset.toString(16)) : null,
    h.build_id ? el("span", {class: "muted", title: "build id " + h.build_id}, "build " + h.build_id.slice(0, 12)) : null,
    resolutionLabel(h.resolution_level), classificationChip(h)];
  return el("section", {class: "level level3", id: "detail", "data-hotspot": i},
    el("div", {class: "detail-head"},
      el("button", {type: "button", class: "back", onclick: back, title: "back to the inventory (Escape)"}, "\u2190 Inventory"),
      el("h2", {}, el("span", {class: "hs-name"}, h.name)), el("div", {class: "sub"}, sub.filter(Boolean).map(x => [x, " "]))),
    h.classification ? null : el("p", {class: "muted"}, "No placement: " + (h.classification_reason || "no reason recorded")),
    el("div", {class: "cols"},
      el("div", {class: "col-left"},
        down.length ? el("section", {class: "panel downgrades"}, el("h3", {}, qualityMark("estimated"), "Downgraded to estimated"),
          el("ul", {}, down.map(r => el("li", {}, r)))) : null,
        rooflinePanel(payload, i),
        el("section", {class: "panel"}, el("h3", {}, "Metrics"), metricsTable(h))),
      el("div", {class: "col-right"}, sourcePanel(h), loopPanel(h), regionsPanel(h), callersPanel(h), inlinePanel(h))));
}
