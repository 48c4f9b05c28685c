// SPDX-License-Identifier: BSD-3-Clause
// DOM building and number formatting shared by the report page. Every text
// from the payload goes through textContent (never innerHTML), so a hotspot
// or file name can hold any character.
//
// Honesty rules (report.css, docs/cli/report.md): a Quality is shown by
// colour AND shape (measured plain, estimated hatched, unavailable dotted),
// and an absent value reads "unavailable", never 0.

const QUALITIES = ["measured", "estimated", "unavailable"];

// Bidi controls in a name (RLO U+202E and kin) would reorder the text
// beside it ("emit delpmas eht fo %6.64"): they are shown as visible marks
// (‹U+202E›), and a text that held one is isolated in a <bdi>
// (docs/security.md).
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function showBidi(s) {
  return String(s).replace(BIDI_CONTROLS, (c) =>
    "\u2039U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "\u203a");
}

function textNode(s) {
  const t = String(s), shown = showBidi(t);
  if (shown === t) return document.createTextNode(t);
  const b = document.createElement("bdi");
  b.className = "bidi-shown";
  b.textContent = shown;
  return b;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.append(textNode(v));
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : showBidi(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : textNode(c));
  }
  return node;
}

// The SVG namespace, taken from the HTML parser rather than spelled out.
const SVG_NS = (() => {
  const probe = document.createElement("div");
  probe.innerHTML = "<svg></svg>";
  return probe.firstChild.namespaceURI;
})();

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") node.textContent = showBidi(v);
    else node.setAttribute(k, showBidi(v));
  }
  append(node, children);
  return node;
}

// A payload Value: {value, unit, quality, reason} (+ lineage, formula).
function isValue(v) {
  return v !== null && typeof v === "object" && typeof v.quality === "string";
}

function available(v) {
  return isValue(v) && v.quality !== "unavailable" && typeof v.value === "number" &&
    Number.isFinite(v.value);
}

// The number of a Quality value (schema 6: {value, unit, quality, reason}),
// or of a bare number (older payloads); null when unavailable, never 0.
function num(v) {
  if (isValue(v)) return available(v) ? v.value : null;
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

// "unavailable" with its reason (and the clock of a time) as the tooltip.
function unavailSpan(v) {
  return el("span", {class: "unavail", title: isValue(v) && v.reason ? v.reason : "not in this payload"}, "unavailable");
}

function qualityOf(v) {
  if (!isValue(v)) return "unavailable";
  return available(v) ? v.quality : "unavailable";
}

function worstQuality(qs) {
  let w = 0;
  for (const q of qs) w = Math.max(w, Math.max(0, QUALITIES.indexOf(q)));
  return QUALITIES[w];
}

function pct(ratio) {
  if (typeof ratio !== "number" || !Number.isFinite(ratio)) return "unavailable";
  const p = ratio * 100;
  if (p > 0 && p < 0.1) return "<0.1%";
  return (p >= 99.95 || p === 0 ? p.toFixed(0) : p.toFixed(1)) + "%";
}

const SI = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];

function sig3(x) {
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

// 1.22e9 "flop/s" -> "1.22 Gflop/s"; ratios and counts keep their own shape.
function formatNumber(x, unit) {
  if (unit === "ratio") return sig3(x) + "\u00d7";
  if (unit === "sample" || unit === "locus") return Math.round(x).toLocaleString("en-US");
  // a duration in ns (payload Values of times) reads as the seconds it is:
  // "563 ms", never "562688049 ns"
  if (unit === "ns") return formatNumber(x / 1e9, "s");
  if (unit === "s") return x >= 1 || x === 0 ? sig3(x) + " s" : x >= 1e-3 ? sig3(x * 1e3) + " ms"
    : x >= 1e-6 ? sig3(x * 1e6) + " \u00b5s" : sig3(x * 1e9) + " ns";
  if (unit && /\/s$|^B$|byte/.test(unit) && unit !== "flop/byte") {
    for (const [f, p] of SI) if (Math.abs(x) >= f) return sig3(x / f) + " " + p + unit;
  }
  return sig3(x) + (unit ? " " + unit : "");
}

// The text of a Value, as a share when asked ("99.6%").
function valueText(v, asShare) {
  if (!available(v)) return "unavailable";
  // A bound is a value too (payload "bound": "lower"): the truth is above it.
  return (v.bound === "lower" ? "above " : "") + (asShare ? pct(v.value) : formatNumber(v.value, v.unit));
}

function whyAbsent(v) {
  return (isValue(v) && v.reason) || "not in this payload";
}

function reasonTitle(v) {
  if (!isValue(v)) return "not in this payload";
  const parts = [v.quality];
  if (v.reason) parts.push(v.reason);
  if (v.formula) parts.push("formula: " + v.formula);
  if (Array.isArray(v.lineage) && v.lineage.length)
    parts.push("from: " + v.lineage.filter(Boolean).join(", "));
  return parts.join("\n");
}

// A small swatch whose fill pattern is the Quality (plain/hatched/dotted).
function qualityMark(q) {
  return el("span", {class: "qmark q-" + q, "aria-hidden": "true"});
}

function qualityBadge(q, title) {
  return el("span", {class: "badge q-" + q, title: title || q}, qualityMark(q), q);
}

// A value cell: the number (or "unavailable") with its Quality mark.
function valueSpan(v, asShare) {
  const q = qualityOf(v);
  const node = el("span", {class: "val q-" + q, title: reasonTitle(v)});
  if (q !== "measured") node.append(qualityMark(q));
  node.append(valueText(v, asShare));
  return node;
}

function shareBar(ratio, q) {
  const bar = el("span", {class: "bar q-" + (q || "measured"), "aria-hidden": "true"});
  const fill = el("span", {class: "fill"});
  const w = typeof ratio === "number" && Number.isFinite(ratio) ? Math.max(0, Math.min(1, ratio)) : 0;
  fill.style.width = (w * 100).toFixed(2) + "%";
  bar.append(fill);
  return bar;
}

function resolutionLabel(level) {
  return el("span", {class: "res", title: "resolution: how precisely this Hotspot is named"},
    level || "unresolved");
}

function basename(path) {
  if (typeof path !== "string") return "";
  const i = path.lastIndexOf("/");
  return i >= 0 ? path.slice(i + 1) : path;
}

function plural(n, one, many) {
  return n + " " + (n === 1 ? one : (many || one + "s"));
}

function floorText(payload) {
  const f = payload.floor_samples;
  return Number.isInteger(f) ? plural(f, "sample") : "an unrecorded number of samples";
}

function classificationChip(h) {
  if (h.classification)
    return el("span", {class: "cls cls-" + h.classification}, h.classification);
  return el("span", {class: "cls cls-none", title: h.classification_reason || ""},
    "no placement");
}

// Columns unavailable for every row are not drawn as a column of
// "unavailable": the table keeps the others and one sentence says which are
// missing and why. A column is {title, avail: row => bool, why: rows =>
// string|null, ...}; columns without `avail` are always shown.
function splitColumns(cols, rows) {
  const shown = [], gone = [];
  for (const c of cols) (!c.avail || !rows.length || rows.some(r => c.avail(r)) ? shown : gone).push(c);
  return {shown, gone};
}

function listText(items) {
  return items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

// The sentence for the columns splitColumns() left out, or null.
function goneColumnsNote(gone, rows, noun) {
  if (!gone.length) return null;
  const byWhy = new Map();
  for (const c of gone) {
    const why = (c.why && c.why(rows)) || "";
    if (!byWhy.has(why)) byWhy.set(why, []);
    byWhy.get(why).push(c.title);
  }
  const parts = [...byWhy].map(([why, titles]) => listText(titles) + (why ? ` (${why})` : ""));
  return el("p", {class: "muted gone-columns"}, `Unavailable for every ${noun}, so not drawn as columns: ${parts.join("; ")}.`);
}

// The reason every row gives for an unavailable payload Value k, when it is
// one and the same; otherwise null (each row's detail says why).
function commonReason(rows, k) {
  const rs = new Set(rows.map(r => r[k] && r[k].reason).filter(Boolean));
  return rs.size === 1 ? [...rs][0] : null;
}
