// SPDX-License-Identifier: BSD-3-Clause
// The roofline of the whole Run, in the first view: every placed Hotspot
// (and every region carrying counters) a mark against the Machine's
// Ceilings, log-log. Compute peaks are flat roofs, memory bandwidths
// diagonals; each diagonal stops at its break point with the highest peak
// and each peak starts on the highest diagonal, so the envelope reads
// min(peak, bandwidth x intensity). A mark's area follows its share of the
// sampled time, its fill its Quality (measured solid, estimated hatched);
// hovering names it with its figures, clicking opens its detail. A text
// table of the same points sits beside the chart; what cannot be placed is
// counted under it with the reason. Drawn with the page's own SVG code: no
// library, no request.

const RUN_ROOF = {W: 640, H: 420, L: 66, R: 16, T: 16, B: 46, RMAX: 22, RMIN: 3.5};

// The Ceilings the chart draws: compute peaks (flop/s) and memory
// bandwidths (B/s; the network's is not a roof), highest first.
function runCeilings(payload) {
  const all = Object.values(ceilingsOf(payload));
  const peaks = all.filter(c => /^flops_/.test(c.name)).sort((a, b) => b.value - a.value);
  const mems = all.filter(c => /_bandwidth$/.test(c.name) && c.name !== "network_bandwidth")
    .sort((a, b) => b.value - a.value);
  return {peaks, mems};
}

// The Hotspots with a place (index kept for the detail link), the regions
// that carry counters, and what could not be placed grouped by reason.
function runPoints(payload) {
  const hs = payload.hotspots || [];
  const placed = [], unplaced = new Map();
  hs.forEach((h, i) => {
    const why = offRooflineReason(payload, h);
    if (!why) { placed.push({h, i, kind: "hotspot"}); return; }
    if (!unplaced.has(why)) unplaced.set(why, {n: 0, share: 0, shareKnown: true});
    const u = unplaced.get(why);
    u.n++;
    if (available(h.share)) u.share += h.share.value; else u.shareKnown = false;
  });
  const regions = (payload.regions || []).filter(r => r && placeable(r))
    .map(r => ({h: Object.assign({name: r.path}, r), i: -1, kind: "region"}));
  return {placed, regions, unplaced};
}

// A mark's points per rank that can be placed: a Hotspot's rows per rank
// (ranks[]) or a region's (rank_points[], per rank where its traces are).
function markRanks(pt) {
  if (pt.kind !== "region") return rankPoints(pt.h);
  return Array.isArray(pt.h.rank_points) ? pt.h.rank_points.filter(placeable) : [];
}

// "; 3 ranks span the lines: 0.61 to 2.44 Gflop/s (ranks 1, 0) at 0.6 to 2.4 flop/byte"
function rankSpanText(ranks) {
  const by = key => ranks.reduce((a, b) => (b[key].value < a[0][key].value ? [b, a[1]]
    : b[key].value > a[1][key].value ? [a[0], b] : a), [ranks[0], ranks[0]]);
  const [alo, ahi] = by("achieved"), [ilo, ihi] = by("dram_intensity");
  const who = (lo, hi) => (lo.rank !== undefined ? ` (ranks ${lo.rank}, ${hi.rank})` : "");
  return `; ${ranks.length} ranks span the lines: ${valueText(alo.achieved)} to ${valueText(ahi.achieved)}` +
    `${who(alo, ahi)} at ${valueText(ilo.dram_intensity)} to ${valueText(ihi.dram_intensity)}${who(ilo, ihi)}`;
}

function ceilingLabel(c, what) {
  return `${what} ${formatNumber(c.value, c.unit || (what === "DRAM" ? "B/s" : "flop/s"))} \u00b7 ${c.quality}`;
}

function markRadius(h) {
  const s = available(h.share) ? Math.max(0, Math.min(1, h.share.value)) : 0;
  return Math.max(RUN_ROOF.RMIN, RUN_ROOF.RMAX * Math.sqrt(s));
}

function pointQuality(h) {
  return worstQuality([qualityOf(h.dram_intensity), qualityOf(h.achieved)]);
}

// "main: 1.22 Gflop/s at 1.21 flop/byte, 100% of the sampled time (estimated)"
function pointText(h, kind) {
  const share = available(h.share) ? `, ${pct(h.share.value)} of the sampled time` : "";
  const env = available(h.envelope_fraction) ? `, ${pct(h.envelope_fraction.value)} of the envelope` : "";
  return `${kind === "region" ? "region " : ""}${h.name}: ${valueText(h.achieved)} at ${valueText(h.dram_intensity)}` +
    `${share}${env} (${pointQuality(h)})`;
}

// The axes' range: every point, the break points and the roofs, on decades.
function runAxes(pts, roofs) {
  const P = roofs.peaks[0].value, B = roofs.mems[0].value;
  const xs = [], ys = [P * 1.5];
  for (const pt of pts) {
    const h = pt.h;
    xs.push(h.dram_intensity.value);
    ys.push(h.achieved.value);
    for (const r of markRanks(pt)) { xs.push(r.dram_intensity.value); ys.push(r.achieved.value); }
  }
  for (const p of roofs.peaks) xs.push(p.value / B / 4, p.value / B * 4);
  for (const m of roofs.mems) xs.push(P / m.value * 2);
  const x0 = decadeFloor(Math.min(...xs) / 2), x1 = decadeCeil(Math.max(...xs) * 2);
  const y0 = decadeFloor(Math.min(...ys, roofs.mems[roofs.mems.length - 1].value * x0) / 2);
  const y1 = decadeCeil(Math.max(...ys));
  const {W, H, L, R, T, B: Bm} = RUN_ROOF;
  const lx0 = Math.log10(x0), lx1 = Math.log10(x1), ly0 = Math.log10(y0), ly1 = Math.log10(y1);
  return {x0, x1, y0, y1,
    sx: x => L + (Math.log10(x) - lx0) / (lx1 - lx0) * (W - L - R),
    sy: y => H - Bm - (Math.log10(y) - ly0) / (ly1 - ly0) * (H - T - Bm)};
}

function runGrid(root, ax) {
  const {W, H, L, R, T, B} = RUN_ROOF;
  const grid = svg("g", {class: "grid"});
  for (let x = ax.x0; x <= ax.x1 * 1.0001; x *= 10) {
    grid.append(svg("line", {x1: ax.sx(x), x2: ax.sx(x), y1: T, y2: H - B}));
    grid.append(svg("text", {x: ax.sx(x), y: H - B + 15, "text-anchor": "middle", text: tickText(x)}));
  }
  for (let y = ax.y0; y <= ax.y1 * 1.0001; y *= 10) {
    grid.append(svg("line", {x1: L, x2: W - R, y1: ax.sy(y), y2: ax.sy(y)}));
    grid.append(svg("text", {x: L - 5, y: ax.sy(y) + 3, "text-anchor": "end", text: tickText(y)}));
  }
  root.append(grid,
    svg("text", {class: "axis", x: 14, y: (T + H - B) / 2, "text-anchor": "middle",
      transform: `rotate(-90 14 ${(T + H - B) / 2})`, text: "achieved (flop/s)"}),
    svg("text", {class: "axis", x: (L + W - R) / 2, y: H - 10, "text-anchor": "middle",
      text: "DRAM intensity (flop/byte)"}));
}

// The roofs: each memory diagonal up to its break point with the highest
// peak, each peak flat from the highest diagonal; every line labelled.
function runRoofs(root, ax, roofs) {
  const P = roofs.peaks[0].value, B = roofs.mems[0].value;
  const g = svg("g", {class: "roofs"});
  roofs.mems.forEach((m, k) => {
    const xb = Math.min(P / m.value, ax.x1), xs = ax.x0;
    const line = svg("line", {class: "roof mem q-" + m.quality, "data-ceiling": m.name,
      x1: ax.sx(xs), y1: ax.sy(m.value * xs), x2: ax.sx(xb), y2: ax.sy(m.value * xb)},
    svg("title", {text: `${m.name} ${formatNumber(m.value, m.unit || "B/s")} (${m.quality}` +
      (m.reason ? ": " + m.reason : "") + `); break point at ${sig3(P / m.value)} flop/byte`}));
    // The label runs along the diagonal, left of its middle, above it.
    const xm = Math.sqrt(xs * xb) / (k ? 1 : 1.6);
    const px = ax.sx(xm), py = ax.sy(m.value * xm);
    const angle = Math.atan2(ax.sy(m.value * xb) - ax.sy(m.value * xs), ax.sx(xb) - ax.sx(xs)) * 180 / Math.PI;
    g.append(line, svg("text", {class: "roof-label", "data-ceiling": m.name, x: px, y: py - 6,
      "text-anchor": "middle", transform: `rotate(${angle.toFixed(2)} ${px} ${py - 6})`,
      text: ceilingLabel(m, m.name === "dram_bandwidth" ? "DRAM" : m.name)}));
  });
  roofs.peaks.forEach(p => {
    const xb = Math.max(p.value / B, ax.x0);
    g.append(svg("line", {class: "roof peak q-" + p.quality, "data-ceiling": p.name,
      x1: ax.sx(xb), y1: ax.sy(p.value), x2: ax.sx(ax.x1), y2: ax.sy(p.value)},
    svg("title", {text: `${p.name} ${formatNumber(p.value, p.unit || "flop/s")} (${p.quality}` +
      (p.reason ? ": " + p.reason : "") + `); ridge at ${sig3(p.value / B)} flop/byte`})),
    svg("circle", {class: "ridge", cx: ax.sx(xb), cy: ax.sy(p.value), r: 2.5}),
    svg("text", {class: "roof-label", "data-ceiling": p.name, x: RUN_ROOF.W - RUN_ROOF.R - 2,
      y: ax.sy(p.value) - 5, "text-anchor": "end", text: ceilingLabel(p, p.name)}));
  });
  root.append(g);
}

// One mark: a circle (Hotspot) or a diamond (region), area by share, fill by
// Quality; focusable, a click or Enter opens the Hotspot's detail. With
// showRanks, a mark placed on several ranks (a Hotspot's ranks[], a
// region's rank_points[]) carries the envelope of its ranks: a horizontal
// line over their intensities and a vertical one over their achieved rates.
function runMark(ax, pt, showRanks) {
  const {h, i, kind} = pt, q = pointQuality(h);
  const cx = ax.sx(h.dram_intensity.value), cy = ax.sy(h.achieved.value), r = markRadius(h);
  const g = svg("g", {class: `mark ${kind} q-${q}`, "data-name": h.name,
    "data-x": h.dram_intensity.value, "data-y": h.achieved.value});
  if (i >= 0) {
    g.setAttribute("data-go", i);
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "link");
    g.setAttribute("aria-label", pointText(h, kind) + "; open its detail");
    g.addEventListener("keydown", ev => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); location.hash = "hotspot-" + i; }
    });
  }
  // How far below its roof: a dotted line up to the attainable rate.
  if (available(h.attainable) && h.attainable.value > h.achieved.value)
    g.append(svg("line", {class: "to-roof", x1: cx, x2: cx, y1: cy - r, y2: ax.sy(h.attainable.value)}));
  const ranks = showRanks ? markRanks(pt) : [];
  if (ranks.length > 1) {
    const rx = ranks.map(x => x.dram_intensity.value), ry = ranks.map(x => x.achieved.value);
    g.append(svg("line", {class: "rank-range", x1: ax.sx(Math.min(...rx)), x2: ax.sx(Math.max(...rx)), y1: cy, y2: cy}),
      svg("line", {class: "rank-range", x1: cx, x2: cx, y1: ax.sy(Math.min(...ry)), y2: ax.sy(Math.max(...ry))}));
  }
  const shape = kind === "region"
    ? svg("rect", {x: cx - r * 0.8, y: cy - r * 0.8, width: r * 1.6, height: r * 1.6,
      transform: `rotate(45 ${cx} ${cy})`})
    : svg("circle", {cx, cy, r});
  shape.append(svg("title", {text: pointText(h, kind) + (ranks.length > 1 ? rankSpanText(ranks) : "") +
    (i >= 0 ? " \u2014 click for its detail" : "")}));
  g.append(shape);
  return g;
}

function runRooflineSvg(payload, pts, roofs, showRanks) {
  const ax = runAxes(pts, roofs);
  const {W, H} = RUN_ROOF;
  const root = svg("svg", {class: "roofline run-roofline", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": "roofline of the Run: " + pts.length + " placed, the table beside lists them"});
  root.append(svg("defs", {}, svg("pattern", {id: "run-hatch", width: 5, height: 5,
    patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)"},
  svg("rect", {width: 5, height: 5, class: "hatch-bg"}), svg("line", {x1: 0, y1: 0, x2: 0, y2: 5, class: "hatch-line"}))));
  runGrid(root, ax);
  runRoofs(root, ax, roofs);
  // Largest first, so a small mark is never hidden under a large one; the
  // names of the five largest beside their marks.
  const order = pts.slice().sort((a, b) => markRadius(b.h) - markRadius(a.h));
  const marks = svg("g", {class: "marks"});
  for (const p of order) marks.append(runMark(ax, p, showRanks));
  order.slice(0, 5).forEach(p => marks.append(svg("text", {class: "mark-name",
    x: ax.sx(p.h.dram_intensity.value) + markRadius(p.h) + 3, y: ax.sy(p.h.achieved.value) + 3,
    text: p.h.name.length > 28 ? p.h.name.slice(0, 27) + "\u2026" : p.h.name})));
  root.append(marks);
  return root;
}

// The same points as text: the chart's accessible twin.
function runRooflineTable(pts, roofs) {
  const B = roofs.mems[0].value, P = roofs.peaks[0].value;
  const rows = pts.map(({h, i, kind}) => el("tr", {"data-go": i >= 0 ? i : null, class: i >= 0 ? "hs-row" : "region-row",
    tabindex: i >= 0 ? 0 : null},
  el("td", {}, el("span", {class: "hs-name"}, h.name), kind === "region" ? el("span", {class: "muted"}, " (region)") : null),
  el("td", {class: "num"}, valueSpan(h.share, true)),
  el("td", {class: "num"}, valueSpan(h.dram_intensity)),
  el("td", {class: "num"}, valueSpan(h.achieved)),
  el("td", {class: "nowrap"}, h.dram_intensity.value < P / B ? "memory" : "compute"),
  el("td", {class: "num"}, available(h.envelope_fraction) ? valueSpan(h.envelope_fraction, true) : unavailSpan(h.envelope_fraction))));
  return el("table", {class: "grid-table run-roofline-table"},
    el("caption", {class: "muted"}, "The chart's points"),
    el("thead", {}, el("tr", {}, ["Placed", "Share", "DRAM intensity", "Achieved", "Roof", "Of the envelope"]
      .map((t, k) => el("th", {scope: "col", class: k && k !== 4 ? "num" : null}, t)))),
    el("tbody", {}, rows));
}

function unplacedNote(unplaced) {
  if (!unplaced.size) return null;
  const parts = [...unplaced].map(([why, u]) =>
    `${plural(u.n, "Hotspot")} (${u.shareKnown ? pct(u.share) : "an unavailable share"} of the sampled time) not placed: ${why}`);
  return el("p", {class: "muted unplaced"}, parts.join("; ") + ".");
}

// The section, or one sentence when nothing can be placed.
function runRooflineSection(payload) {
  const roofs = runCeilings(payload);
  const {placed, regions, unplaced} = runPoints(payload);
  const hs = payload.hotspots || [];
  if (!hs.length) return null;
  if (!placed.length || !roofs.peaks.length || !roofs.mems.length) {
    const why = unplaced.size === 1 ? [...unplaced.keys()][0]
      : !roofs.peaks.length || !roofs.mems.length ? (payload.roofline && payload.roofline.missing) || "the Machine carries no flops_dp or dram_bandwidth Ceiling"
        : "each Hotspot lacks a value the roofline needs (its detail says which)";
    return el("p", {class: "no-run-roofline"}, `No Hotspot is placed on the roofline: ${why}.`);
  }
  const pts = placed.concat(regions);
  const hasRanks = pts.some(p => markRanks(p).length > 1);
  const box = el("div", {class: "run-roofline-chart"});
  const draw = on => box.replaceChildren(runRooflineSvg(payload, pts, roofs, on));
  draw(false);
  const legend = el("p", {class: "muted roofline-legend"},
    "Area follows the share of the sampled time; ", qualityBadge("measured"), " solid, ",
    qualityBadge("estimated"), " hatched", regions.length ? "; diamonds are regions" : "",
    ". Hover a mark for its figures, click it for its detail.",
    payload.roofline && payload.roofline.basis ? el("span", {class: "roof-basis"},
      ` Roofs: ${payload.roofline.basis}, as every rank's FLOPs are placed together; each rank against its own node's in a Hotspot's detail.`) : null);
  const toggle = hasRanks ? el("label", {class: "rank-toggle"},
    el("input", {type: "checkbox", onchange: ev => draw(ev.target.checked)}),
    " show the range over ranks") : null;
  return el("section", {class: "run-roofline", id: "roofline"},
    el("h2", {}, "Roofline of the Run"),
    el("div", {class: "run-roofline-grid"},
      el("div", {}, box, legend, toggle, unplacedNote(unplaced)),
      el("div", {class: "table-wrap"}, runRooflineTable(pts, roofs))));
}
