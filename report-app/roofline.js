// SPDX-License-Identifier: BSD-3-Clause
// The roofline of one Hotspot (log-log): the memory diagonal bw x I stops at
// the ridge (peak / bw), the compute roof continues flat; the Hotspot is a
// point at (DRAM intensity, achieved), the other Hotspots pale. Drawn only
// when the Machine carries both Ceilings and the Hotspot has both values;
// otherwise the caller shows an "Off the roofline" box with the reason.

// The Run-wide placement's Ceilings: the sum of its nodes' when the Run
// spans nodes (payload "roofline", with its basis), else the Machine's.
function ceilingsOf(payload) {
  const out = {};
  const rf = payload.roofline && Array.isArray(payload.roofline.ceilings) ? payload.roofline.ceilings : null;
  const list = rf || (payload.machine && Array.isArray(payload.machine.ceilings) ? payload.machine.ceilings : []);
  for (const c of list) {
    if (c && typeof c.value === "number" && Number.isFinite(c.value) && c.value > 0 &&
        c.quality !== "unavailable")
      out[c.name] = c;
  }
  return out;
}

// Why this Hotspot cannot be placed, or null when it can.
function offRooflineReason(payload, h) {
  const c = ceilingsOf(payload);
  if (!c.flops_dp || !c.dram_bandwidth)
    return (payload.roofline && payload.roofline.missing) || (h.attainable && h.attainable.reason) ||
      "the Machine carries no flops_dp or dram_bandwidth Ceiling";
  for (const key of ["dram_intensity", "achieved"]) {
    const v = h[key];
    if (!available(v) || v.value <= 0)
      return (v && v.reason) || key.replace("_", " ") + " is unavailable";
  }
  return null;
}

// Decade tick labels: 0.01 0.1 1 10 100, then 1k 10k ... (no unit: the axis says it).
function tickText(x) {
  if (x < 1) return String(Number(x.toPrecision(1)));
  for (const [f, p] of SI) if (x >= f) return String(Math.round(x / f)) + " " + p;
  return String(Math.round(x));
}

function placeable(v) {
  return available(v.dram_intensity) && v.dram_intensity.value > 0 &&
    available(v.achieved) && v.achieved.value > 0;
}

// The per-rank rows of a Hotspot that can be placed (MPI payloads only).
function rankPoints(h) {
  return Array.isArray(h.ranks) ? h.ranks.filter(placeable) : [];
}

function decadeFloor(x) { return Math.pow(10, Math.floor(Math.log10(x))); }
function decadeCeil(x) { return Math.pow(10, Math.ceil(Math.log10(x))); }

function rooflineSvg(payload, index) {
  const c = ceilingsOf(payload);
  const peak = c.flops_dp.value, bw = c.dram_bandwidth.value, ridge = peak / bw;
  const placed = payload.hotspots.map((h, i) => ({h, i})).filter(({h}) => placeable(h));
  const ranks = rankPoints(payload.hotspots[index]);
  const xs = placed.map(p => p.h.dram_intensity.value).concat(ranks.map(r => r.dram_intensity.value),
    [ridge / 10, ridge * 10]);
  const ys = placed.map(p => p.h.achieved.value).concat(ranks.map(r => r.achieved.value), [peak * 2]);
  // A margin of half a decade keeps every point off the frame.
  const x0 = decadeFloor(Math.min(...xs) / 3), x1 = decadeCeil(Math.max(...xs) * 3);
  const y0 = decadeFloor(Math.min(...ys, bw * x0) / 3), y1 = decadeCeil(Math.max(...ys));
  const W = 420, H = 300, L = 64, R = 12, T = 14, B = 44;
  const sx = x => L + (Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0)) * (W - L - R);
  const sy = y => H - B - (Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0)) * (H - T - B);
  const root = svg("svg", {class: "roofline", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": "roofline of " + payload.hotspots[index].name});
  root.append(svg("defs", {}, svg("pattern", {id: "hatch", width: 5, height: 5,
    patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)"},
  svg("line", {x1: 0, y1: 0, x2: 0, y2: 5, class: "hatch-line"}))));
  const grid = svg("g", {class: "grid"});
  for (let x = x0; x <= x1 * 1.0001; x *= 10) {
    grid.append(svg("line", {x1: sx(x), x2: sx(x), y1: T, y2: H - B}));
    grid.append(svg("text", {x: sx(x), y: H - B + 14, "text-anchor": "middle", text: tickText(x)}));
  }
  for (let y = y0; y <= y1 * 1.0001; y *= 10) {
    grid.append(svg("line", {x1: L, x2: W - R, y1: sy(y), y2: sy(y)}));
    grid.append(svg("text", {x: L - 4, y: sy(y) + 3, "text-anchor": "end", text: tickText(y)}));
  }
  root.append(grid);
  root.append(svg("text", {class: "axis", x: 12, y: (T + H - B) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${(T + H - B) / 2})`, text: "achieved (flop/s)"}));
  root.append(svg("text", {class: "axis", x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle",
    text: "DRAM intensity (flop/byte)"}));
  // Each segment carries its own Ceiling's Quality (estimated: dashed).
  const xr = Math.min(ridge, x1), yr = Math.min(bw * xr, peak);
  const ridgeText = `; ridge at ${sig3(ridge)} flop/byte`;
  root.append(svg("line", {class: "roof q-" + c.dram_bandwidth.quality, x1: sx(x0), y1: sy(bw * x0), x2: sx(xr), y2: sy(yr)},
    svg("title", {text: `dram_bandwidth ${formatNumber(bw, c.dram_bandwidth.unit || "B/s")} (${c.dram_bandwidth.quality}` +
      (c.dram_bandwidth.reason ? ": " + c.dram_bandwidth.reason : "") + ")" + ridgeText})));
  if (ridge < x1)
    root.append(svg("line", {class: "roof q-" + c.flops_dp.quality, x1: sx(xr), y1: sy(yr), x2: sx(x1), y2: sy(peak)},
      svg("title", {text: `flops_dp ${formatNumber(peak, c.flops_dp.unit || "flop/s")} (${c.flops_dp.quality}` +
        (c.flops_dp.reason ? ": " + c.flops_dp.reason : "") + ")" + ridgeText})));
  root.append(svg("text", {class: "roof-label", x: W - R - 2, y: sy(peak) - 5, "text-anchor": "end",
    text: "flops_dp " + formatNumber(peak, c.flops_dp.unit || "flop/s") + (c.flops_dp.quality === "measured" ? "" : " (" + c.flops_dp.quality + ")")}));
  const mid = Math.sqrt(x0 * xr);
  // Left of and above the diagonal, which rises to the right: never crossed.
  root.append(svg("text", {class: "roof-label", x: sx(mid) - 6, y: sy(bw * mid) - 4, "text-anchor": "end",
    text: "DRAM " + formatNumber(bw, c.dram_bandwidth.unit || "B/s") + (c.dram_bandwidth.quality === "measured" ? "" : " (" + c.dram_bandwidth.quality + ")")}));
  // This Hotspot on each rank: small squares, under the aggregate point.
  for (const r of ranks) {
    const q = worstQuality([qualityOf(r.dram_intensity), qualityOf(r.achieved)]);
    const cx = sx(r.dram_intensity.value), cy = sy(r.achieved.value);
    root.append(svg("g", {class: "pt rank q-" + q, "data-rank": r.rank},
      svg("rect", {x: cx - 3, y: cy - 3, width: 6, height: 6},
        svg("title", {text: `rank ${r.rank}: ${valueText(r.achieved)} at ${valueText(r.dram_intensity)}` +
          (available(r.envelope_fraction) ? `, ${pct(r.envelope_fraction.value)} of the envelope` : "") + ` (${q})`}))));
  }
  const sorted = placed.slice().sort((a, b) => (a.i === index) - (b.i === index));
  for (const {h, i} of sorted) {
    const q = worstQuality([qualityOf(h.dram_intensity), qualityOf(h.achieved)]);
    const cx = sx(h.dram_intensity.value), cy = sy(h.achieved.value);
    const g = svg("g", {class: i === index ? "pt current q-" + q : "pt other"});
    if (i === index && available(h.attainable))
      g.append(svg("line", {class: "to-roof", x1: cx, x2: cx, y1: cy, y2: sy(h.attainable.value)}));
    g.append(svg("circle", {cx, cy, r: i === index ? 6 : 4},
      svg("title", {text: `${h.name}: ${valueText(h.achieved)} at ${valueText(h.dram_intensity)} (${q})`})));
    root.append(g);
  }
  return root;
}
