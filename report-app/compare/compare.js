// SPDX-License-Identifier: BSD-3-Clause
// The compare page (report-compare.html): the two sides' Runs side by side,
// then every matched item with its time in A and in B as two bars, the
// ratio B/A and its interval on a log axis, and the verdict. The data is
// the document `nunatak compare --json` prints, embedded in the element
// with id "nunatak-payload". Every text goes through textContent.

const COMPARE_SCHEMA = 1;

function readCompare() {
  const node = document.getElementById("nunatak-payload");
  if (!node) throw new Error("this page holds no comparison");
  const d = JSON.parse(node.textContent);
  if (!d || !d.format || d.format.name !== "nunatak-compare")
    throw new Error("the embedded JSON is not a nunatak comparison");
  if (d.format.schema > COMPARE_SCHEMA)
    throw new Error("comparison schema " + d.format.schema + " is newer than this page's " + COMPARE_SCHEMA);
  return d;
}

function timeText(v, unit) {
  if (typeof v !== "number" || !Number.isFinite(v)) return "unavailable";
  return formatNumber(v, unit);
}

function ratioText(r) {
  return typeof r === "number" && Number.isFinite(r) ? r.toFixed(2) + "\u00d7" : "\u2013";
}

function intervalText(it) {
  if (typeof it.ratio_low !== "number") return "unavailable";
  const hi = typeof it.ratio_high === "number" ? it.ratio_high.toFixed(2) + "]" : "\u221e)";
  return "[" + it.ratio_low.toFixed(2) + ", " + hi;
}

function sideCard(title, side) {
  const runs = (side && side.runs) || [];
  const card = el("section", {class: "side"}, el("h2", {}, title + " \u00b7 " + plural(runs.length, "Run")));
  for (const r of runs) {
    card.append(el("table", {class: "kv"},
      el("tr", {}, el("th", {}, r.label), el("td", {}, r.path)),
      el("tr", {}, el("th", {}, "name"), el("td", {}, r.name || "unknown")),
      el("tr", {}, el("th", {}, "created"), el("td", {}, r.created || "unknown")),
      el("tr", {}, el("th", {}, "command"), el("td", {}, (r.command || []).join(" "))),
      el("tr", {}, el("th", {}, "Machine"), el("td", {}, r.machine_identity + " \u00b7 " + (r.cpu_model || "CPU unknown"))),
      el("tr", {}, el("th", {}, "sampling"), el("td", {}, typeof r.sampling_hz === "number" ? r.sampling_hz + " Hz" : "not recorded"))));
  }
  return card;
}

// The ratio's interval on a log axis from 1/4 to 4, with 1 and the
// practical threshold band drawn; an interval beyond the axis is clipped
// with an arrow.
const AXIS_W = 180, AXIS_H = 18, AXIS_MAX = Math.log(4);

function axisX(r) {
  const l = Math.max(-AXIS_MAX, Math.min(AXIS_MAX, Math.log(r)));
  return (l + AXIS_MAX) / (2 * AXIS_MAX) * AXIS_W;
}

function intervalPlot(it, threshold) {
  const s = svg("svg", {class: "ivplot", width: AXIS_W, height: AXIS_H, viewBox: "0 0 " + AXIS_W + " " + AXIS_H,
    role: "img", "aria-label": "interval " + intervalText(it)});
  const t0 = axisX(1 / (1 + threshold)), t1 = axisX(1 + threshold);
  s.append(svg("rect", {class: "band", x: t0, y: 0, width: t1 - t0, height: AXIS_H}));
  s.append(svg("line", {class: "one", x1: axisX(1), x2: axisX(1), y1: 0, y2: AXIS_H}));
  if (typeof it.ratio_low === "number") {
    const hi = typeof it.ratio_high === "number" ? it.ratio_high : Infinity;
    s.append(svg("line", {class: "iv dir-" + dirClass(it), x1: axisX(Math.max(it.ratio_low, 1e-9)),
      x2: axisX(hi), y1: AXIS_H / 2, y2: AXIS_H / 2}));
  }
  if (typeof it.ratio === "number")
    s.append(svg("circle", {class: "pt dir-" + dirClass(it), cx: axisX(it.ratio), cy: AXIS_H / 2, r: 3.5}));
  return s;
}

function dirClass(it) {
  if (!it.significant) return "same";
  return it.verdict === "faster" || it.verdict === "vanished" ? "faster" : "slower";
}

function bars(it, max) {
  const w = (v) => (typeof v === "number" && max > 0 ? Math.max(0, v / max) : 0);
  const bar = (v, cls) => {
    const b = el("span", {class: "tbar " + cls, "aria-hidden": "true"});
    const f = el("span", {class: "fill"});
    f.style.width = (w(v) * 100).toFixed(2) + "%";
    b.append(f);
    return b;
  };
  return el("div", {class: "pair"}, bar(it.a, "side-a"), bar(it.b, "side-b"));
}

function itemRow(it, max, threshold) {
  const q = it.interval_quality;
  const why = [it.basis_text, it.reason].filter(Boolean).join("; ");
  return el("tr", {class: "it dir-" + dirClass(it), "data-name": it.name},
    el("td", {class: "name"}, el("span", {class: "it-name"}, it.name),
      it.module && it.module !== it.name ? el("span", {class: "muted"}, " " + it.module) : null,
      it.status !== "matched" ? el("span", {class: "status"}, it.status) : null),
    el("td", {}, bars(it, max)),
    el("td", {class: "num"}, timeText(it.a, it.unit)),
    el("td", {class: "num"}, timeText(it.b, it.unit)),
    el("td", {class: "num ratio"}, ratioText(it.ratio)),
    el("td", {class: "num"}, intervalText(it)),
    el("td", {}, intervalPlot(it, threshold)),
    el("td", {class: "verdict"}, it.verdict),
    el("td", {}, qualityBadge(q, why)));
}

function itemTable(title, items, d) {
  if (!items.length) return null;
  let max = 0;
  for (const it of items) for (const v of [it.a, it.b]) if (typeof v === "number" && v > max) max = v;
  const head = el("tr", {}, ["", "A | B", "A", "B", "B/A", Math.round(d.confidence * 100) + "% interval",
    "1/4 \u2190 1 \u2192 4", "verdict", "interval Quality"].map((h) => el("th", {}, h)));
  return el("section", {class: "items"}, el("h2", {}, title),
    el("table", {class: "cmp"}, el("thead", {}, head),
      el("tbody", {}, items.map((it) => itemRow(it, max, d.threshold)))));
}

function headline(d) {
  const hs = d.hotspots || [];
  const slower = hs.filter((h) => h.significant && h.verdict === "slower").length;
  const faster = hs.filter((h) => h.significant && h.verdict === "faster").length;
  const parts = [plural(slower, "Hotspot") + " significantly slower", faster + " faster",
    (hs.length - slower - faster) + " without a significant change"];
  const t = d.total;
  const tot = t ? "Total B/A " + ratioText(t.ratio) + " " + intervalText(t) + " (" + t.verdict + "). " : "";
  return el("p", {class: "headline"}, tot + parts.join(", ") + ". Significant: the " +
    Math.round(d.confidence * 100) + "% interval clears 1 by more than " + Math.round(d.threshold * 100) + "%.");
}

function notesList(d) {
  const notes = d.notes || [];
  if (!notes.length) return null;
  return el("section", {class: "notes"}, el("h2", {}, "What is not comparable"),
    el("ul", {}, notes.map((n) => el("li", {class: n.refusal && !n.forced ? "refusal" : "flag"},
      el("strong", {}, n.refusal && !n.forced ? "refused: " : "flag: "), n.message))));
}

function methods(d) {
  const seen = new Map();
  for (const it of [d.total, d.others, ...(d.hotspots || []), ...(d.regions || []), ...(d.ranks || []),
    ...(d.lines || [])])
    if (it && it.basis !== "none" && !seen.has(it.basis)) seen.set(it.basis, it);
  if (!seen.size) return null;
  return el("section", {class: "methods"}, el("h2", {}, "How the intervals were computed"),
    el("ul", {}, [...seen.values()].map((it) => el("li", {}, qualityBadge(it.interval_quality),
      " " + it.basis_text + (it.reason ? ": " + it.reason : "")))));
}

function drawCompare(app, d) {
  const main = el("main", {});
  append(main, [el("h1", {}, "Did it get faster? B (after) against A (before)"),
    el("p", {class: "muted"}, "Time base " + (d.time_base || "unknown") +
      ": time = samples \u00d7 period, mean per Run."),
    el("div", {class: "sides"}, sideCard("A (before)", d.a), sideCard("B (after)", d.b)),
    notesList(d)]);
  if (!d.comparable) {
    append(main, [el("p", {class: "fatal"}, "These Runs were not compared: see above.")]);
  } else {
    const hot = [...(d.hotspots || [])];
    if (d.others) hot.push(d.others);
    if (d.total) hot.push(d.total);
    append(main, [headline(d), itemTable("Hotspots, by significance", hot, d),
      itemTable("Regions, by call path", d.regions || [], d),
      itemTable("Ranks, by number", d.ranks || [], d),
      itemTable("Lines (same build on both sides), by significance", d.lines || [], d), methods(d)]);
  }
  app.replaceChildren(el("header", {class: "topbar"}, el("span", {class: "brand"}, "nunatak compare")), main);
}

function startCompare() {
  const app = document.getElementById("app");
  try {
    const d = readCompare();
    drawCompare(app, d);
  } catch (err) {
    app.replaceChildren(el("div", {class: "fatal"}, "This comparison cannot be drawn: " + err.message + "."));
  }
}

startCompare();
