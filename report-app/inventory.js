// SPDX-License-Identifier: BSD-3-Clause
// Level 2, the inventory: every Hotspot above the floor in a sortable table
// (share bar, %, GFLOP/s, DRAM intensity, imbalance, Quality, resolution),
// filter chips, the "others" row, then the transverse "By inline frame"
// table. A row opens level 3 (the detail) in its place.

const MAX_INLINE_ROWS = 20;

// The Quality of a row: the worst over the values it has; a row with none
// available is unavailable. Unavailable cells already read "unavailable".
function rowQuality(h) {
  const qs = EVIDENCE.map(k => h[k]).filter(available).map(v => v.quality);
  return qs.length ? worstQuality(qs) : "unavailable";
}

function hasSourceText(h) {
  return (h.source || []).some(x => typeof x.text === "string");
}

const COLUMNS = [
  {key: "name", title: "Hotspot", sort: h => String(h.name || "").toLowerCase()},
  {key: "bar", title: "Share", sort: h => available(h.share) ? h.share.value : -1},
  {key: "share", title: "%", sort: h => available(h.share) ? h.share.value : -1, num: true},
  {key: "achieved", title: "GFLOP/s", sort: h => available(h.achieved) ? h.achieved.value : -1, num: true},
  {key: "dram_intensity", title: "DRAM intensity", sort: h => available(h.dram_intensity) ? h.dram_intensity.value : -1, num: true},
  {key: "imbalance", title: "Imbalance", sort: h => available(h.imbalance) ? h.imbalance.value : -1, num: true},
].map(c => ["achieved", "dram_intensity", "imbalance"].includes(c.key)
  ? Object.assign({avail: h => available(h[c.key]), why: rows => commonReason(rows, c.key)}, c) : c).concat([
  {key: "quality", title: "Quality", sort: h => QUALITIES.indexOf(rowQuality(h))},
  {key: "resolution", title: "Resolution", sort: h => ["line", "function", "symbol", "unresolved"].indexOf(h.resolution_level)},
]);

function gflops(v) {
  if (!available(v)) return valueSpan(v);
  const s = el("span", {class: "val q-" + v.quality, title: reasonTitle(v)});
  if (v.quality !== "measured") s.append(qualityMark(v.quality));
  s.append(sig3(v.value / 1e9));
  return s;
}

function cell(col, h) {
  switch (col.key) {
  case "name":
    return el("td", {class: "name-cell"}, el("span", {class: "hs-name"}, h.name),
      el("span", {class: "module", title: h.module || ""}, basename(h.module)));
  case "bar": return el("td", {class: "bar-cell"}, shareBar(available(h.share) ? h.share.value : 0, qualityOf(h.share)));
  case "share": return el("td", {class: "num"}, valueSpan(h.share, true));
  case "achieved": return el("td", {class: "num"}, gflops(h.achieved));
  case "dram_intensity": return el("td", {class: "num"}, valueSpan(h.dram_intensity));
  case "imbalance": return el("td", {class: "num"}, valueSpan(h.imbalance));
  case "quality": {
    const q = rowQuality(h);
    const why = EVIDENCE.filter(k => h[k] && h[k].reason && h[k].quality !== "measured")
      .map(k => `${k}: ${h[k].quality}, ${h[k].reason}`).join("\n");
    return el("td", {}, qualityBadge(q, why || q));
  }
  default: return el("td", {}, resolutionLabel(h.resolution_level));
  }
}

function filtersOf(hs) {
  const out = [{id: "all", label: "all", test: () => true}];
  const classes = [...new Set(hs.map(h => h.classification || "no placement"))];
  for (const c of classes) out.push({id: "c:" + c, label: c, test: h => (h.classification || "no placement") === c});
  out.push({id: "estimated", label: "estimated quality", test: h => rowQuality(h) === "estimated"});
  out.push({id: "nosource", label: "no source", test: h => !hasSourceText(h)});
  return out;
}

function othersRow(payload, nCols) {
  const o = payload.others;
  if (!o) return null;
  const share = o.share;
  return el("tr", {class: "others"},
    el("td", {class: "name-cell"}, el("span", {class: "hs-name"}, "others"),
      el("span", {class: "module"}, `${plural(o.count, "Hotspot")} below the floor of ${floorText(payload)}`)),
    el("td", {class: "bar-cell"}, shareBar(available(share) ? share.value : 0, qualityOf(share))),
    el("td", {class: "num"}, valueSpan(share, true)),
    el("td", {colspan: nCols - 3, class: "muted"}, "aggregated: below the statistical floor, no per-Hotspot figure is shown"));
}

function inlineTable(payload) {
  const rows = (payload.inline_view || []).slice().sort((a, b) => (num(b.share) || 0) - (num(a.share) || 0)).slice(0, MAX_INLINE_ROWS);
  if (!rows.length) return null;
  const cols = [
    {title: "Function", cell: r => el("span", {class: "hs-name"}, r.function), avail: r => !!r.function,
      why: () => "no debug information names them"},
    {title: "Location", cell: r => el("span", {title: r.file || ""}, basename(r.file) + (r.line ? ":" + r.line : "")),
      avail: r => !!r.file, why: () => "no line information"},
    {title: "Share", cls: "bar-cell", cell: r => shareBar(num(r.share), qualityOf(r.share))},
    {title: "%", cls: "num", cell: r => valueSpan(r.share, true)},
    {title: "Sites", cell: r => "in " + plural(r.sites || 0, "hotspot")},
  ];
  const {shown, gone} = splitColumns(cols, rows);
  const cellOf = (c, r) => c.avail && !c.avail(r) ? el("span", {class: "unavail"}, "unavailable") : c.cell(r);
  return el("section", {class: "inline-view"}, el("h3", {}, "By inline frame"),
    el("p", {class: "muted"}, "Time by the innermost source function, across Hotspots (an inlined function counts wherever it was inlined)."),
    el("div", {class: "table-wrap"}, el("table", {class: "grid-table"},
      el("thead", {}, el("tr", {}, shown.map(c => el("th", {scope: "col", class: c.cls === "num" ? "num" : null}, c.title)))),
      el("tbody", {}, rows.map(r => el("tr", {}, shown.map(c => el("td", {class: c.cls || null}, cellOf(c, r)))))))),
    goneColumnsNote(gone, rows, "inline frame"));
}

function inventory(payload, state, rerender) {
  const hs = payload.hotspots || [];
  const filters = filtersOf(hs);
  const filter = filters.find(f => f.id === state.filter) || filters[0];
  const {shown, gone} = splitColumns(COLUMNS, hs);
  const col = shown.find(c => c.key === state.sortKey) || shown[1];
  const idx = hs.map((h, i) => i).filter(i => filter.test(hs[i]));
  idx.sort((a, b) => {
    const ka = col.sort(hs[a]), kb = col.sort(hs[b]);
    const d = ka < kb ? -1 : ka > kb ? 1 : 0;
    return state.sortDesc ? -d : d;
  });
  const chips = el("div", {class: "chips", role: "group", "aria-label": "filter"}, filters.map(f =>
    el("button", {type: "button", class: "chip" + (f === filter ? " on" : ""), "aria-pressed": f === filter ? "true" : "false",
      onclick: () => { state.filter = f.id; rerender(); }}, f.label)));
  const head = el("tr", {}, shown.map(c => el("th", {scope: "col", class: c.num ? "num" : "",
    "aria-sort": c === col ? (state.sortDesc ? "descending" : "ascending") : null},
  el("button", {type: "button", class: "sort", onclick: () => {
    state.sortDesc = c === col ? !state.sortDesc : c.key !== "name";
    state.sortKey = c.key; rerender();
  }}, c.title, c === col ? (state.sortDesc ? " \u25be" : " \u25b4") : ""))));
  const body = el("tbody", {}, idx.map(i => el("tr", {class: "hs-row", tabindex: 0, "data-go": i,
    title: "open the detail of " + hs[i].name}, shown.map(c => cell(c, hs[i])))));
  if (!idx.length) body.append(el("tr", {}, el("td", {colspan: shown.length, class: "muted"},
    hs.length ? "No Hotspot matches this filter." : `No Hotspot reached the statistical floor of ${floorText(payload)}.`)));
  append(body, [othersRow(payload, shown.length)]);
  const unres = payload.unresolved;
  return el("section", {class: "level level2", id: "inventory"},
    el("h2", {}, "Inventory"), chips,
    el("div", {class: "table-wrap"}, el("table", {class: "grid-table inventory"}, el("thead", {}, head), body)),
    goneColumnsNote(gone, hs, "Hotspot"),
    unres && unres.count ? el("p", {class: "muted"}, `Unresolved code (module+offset only): ${plural(unres.count, "Hotspot")}, `,
      valueSpan(unres.share, true), " of the sampled time, included above (as a row, or in \u201cothers\u201d below the floor).") : null,
    unresolvedModules(unres),
    inlineTable(payload));
}

const MAX_UNRESOLVED_MODULES = 10;

// Unresolved code by module (issue 24): one row per module, the runtimes
// named, and what would name the code.
function unresolvedModules(unres) {
  const mods = unres && Array.isArray(unres.modules) ? unres.modules : [];
  if (!mods.length) return null;
  const rows = mods.slice(0, MAX_UNRESOLVED_MODULES).map(m => el("tr", {},
    el("td", {title: m.path}, m.module),
    el("td", {class: "num"}, String(m.addresses)),
    el("td", {class: "num"}, valueSpan(m.share, true)),
    el("td", {}, m.runtime || "\u2014"),
    el("td", {class: "muted"}, m.remedy)));
  return el("div", {class: "table-wrap unresolved-modules"},
    el("table", {class: "grid-table"},
      el("caption", {}, "Unresolved code by module"),
      el("thead", {}, el("tr", {}, ["Module", "Addresses", "Share", "Runtime", "To name it"].map(t => el("th", {scope: "col"}, t)))),
      el("tbody", {}, rows)),
    mods.length > MAX_UNRESOLVED_MODULES ? el("p", {class: "muted"}, `\u2026 and ${plural(mods.length - MAX_UNRESOLVED_MODULES, "more module")}`) : null);
}
