// SPDX-License-Identifier: BSD-3-Clause
// Measured MPI time (level 1, under the ranks table): the ranks x MPI calls
// matrix - time per rank and MPI function, with its share of the rank's time
// and its heaviest call site - and a per-rank timeline of the MPI calls the
// interposition library kept as Events (the longest ones, bounded).

const MAX_MPI_COLUMNS = 8;
const MAX_TIMELINE_RANKS = 64;
const MPI_COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

function siteText(s) {
  if (!s) return "";
  if (s.file && s.line) return basename(s.file) + ":" + s.line;
  return s.function || s.address || "";
}

// MPI functions ordered by total time over ranks.
function mpiColumns(rows) {
  const total = new Map();
  for (const r of rows)
    for (const c of r.mpi_calls || []) total.set(c.name, (total.get(c.name) || 0) + (num(c.time_ns) || 0));
  return [...total.entries()].sort((a, b) => b[1] - a[1]).map(e => e[0]);
}

function mpiCell(row, name) {
  const c = (row.mpi_calls || []).find(x => x.name === name);
  if (!c) return el("td", {class: "num muted"}, "\u2013");
  const wall = row.mpi ? num(row.mpi.wall_ns) : null;
  const site = c.sites && c.sites.length ? c.sites[0] : null;
  const title = `${plural(c.calls, "call")}, ${formatNumber(c.bytes, "B")}` + (site ? `; heaviest site ${siteText(site)}` + (site.function ? ` in ${site.function}` : "") : "");
  return el("td", {class: "num mpi-cell", title},
    el("span", {class: "t"}, nsText(c.time_ns)), wall && num(c.time_ns) !== null ? el("span", {class: "muted t"}, " (" + pct(num(c.time_ns) / wall) + ")") : null,
    site ? el("div", {class: "mpi-site"}, siteText(site)) : null);
}

// nunatak's own probe where it costs more than 1% of a rank's time
// (ranks.mpi_probe, stated): the share, the calls that cost it and the
// option leaving them out, as the summary says it.
function mpiProbeNote(p) {
  if (!p || !p.stated || num(p.fraction) === null || !Array.isArray(p.calls) || !p.calls.length) return null;
  const calls = p.calls.map(c => `${Number(c.calls).toLocaleString("en-US")} call${c.calls === 1 ? "" : "s"} of ${c.name}`).join(", ");
  return el("p", {class: "mpi-probe"}, `nunatak's MPI probe took ${pct(num(p.fraction))} of rank ${p.rank}'s time `,
    qualityBadge(qualityOf(p.fraction), reasonTitle(p.fraction)),
    ` (its cost per call, measured at MPI_Init, times ${calls}); to leave those calls out of the measurement: `,
    el("code", {}, "nunatak run " + p.option), " (docs/mpi.md)");
}

function mpiMatrix(r) {
  const rows = r.rows.filter(x => x.mpi_calls && x.mpi_calls.length);
  if (!rows.length) return null;
  const cols = mpiColumns(rows).slice(0, MAX_MPI_COLUMNS);
  const dom = r.mpi_dominant;
  const head = dom ? el("p", {class: "mpi-dominant"}, `rank ${dom.rank} waits ${pct(num(dom.fraction))} of its time in `,
    el("code", {}, dom.call), dom.site ? [" at ", el("code", {}, dom.site)] : "") : null;
  const body = rows.slice(0, MAX_RANK_ROWS).map(x => el("tr", {"data-rank": x.rank},
    el("td", {class: "num"}, x.rank),
    el("td", {class: "num"}, num(x.mpi_fraction) === null ? unavailSpan(x.mpi_fraction) : pct(num(x.mpi_fraction)),
      " ", qualityBadge(x.mpi ? x.mpi.quality : "unavailable", x.mpi && x.mpi.reason ? x.mpi.reason : "")),
    cols.map(n => mpiCell(x, n))));
  return el("div", {class: "mpi-matrix"},
    el("h3", {}, "MPI calls by rank"),
    el("p", {class: "muted"}, "Measured by interposition (PMPI) in every rank: wall-clock time inside each MPI call on that rank (per rank, never summed over ranks), its share of the rank's wall time from MPI_Init to MPI_Finalize, and its heaviest call site."),
    head, mpiProbeNote(r.mpi_probe),
    el("table", {class: "grid-table mpi-calls"},
      el("thead", {}, el("tr", {}, el("th", {scope: "col", class: "rank-col"}, "Rank"),
        el("th", {scope: "col", class: "in-mpi-col", title: "wall clock inside MPI calls, over the rank's time from MPI_Init to MPI_Finalize"}, "In MPI ", el("span", {class: "clock"}, "wall clock")),
        cols.map(t => el("th", {scope: "col", class: "num", title: t + ": wall clock inside the calls, per rank (not summed)"}, t)))),
      el("tbody", {}, body)));
}

function mpiTimeline(t) {
  if (!t || !Array.isArray(t.items) || !t.items.length) return null;
  const ranks = [...new Set(t.items.map(i => i[0]))].sort((a, b) => a - b).slice(0, MAX_TIMELINE_RANKS);
  const lane = new Map(ranks.map((r, i) => [r, i]));
  const end = Math.max(...t.items.map(i => i[2] + i[3]));
  const W = 900, L = 60, H = 22, width = W - L - 10;
  const x = v => L + (end > 0 ? v / end * width : 0);
  const shapes = [];
  const mpiNames = new Set();
  let regions = 0;
  ranks.forEach((r, i) => shapes.push(svg("text", {x: 4, y: 15 + i * H, class: "lane", text: "rank " + r})));
  for (const [rank, k, start, dur, bytes, peer, kind] of t.items) {
    if (!lane.has(rank)) continue;
    const name = t.names[k];
    const w = Math.max(1, x(start + dur) - x(start));
    const region = kind === 1;
    if (region) regions++; else mpiNames.add(k);
    const tip = region ? `rank ${rank}: region ${name} at +${nsText(start)} for ${nsText(dur)}`
      : `rank ${rank}: ${name} at +${nsText(start)} for ${nsText(dur)}` + (bytes > 0 ? `, ${formatNumber(bytes, "B")}` : "") + (peer >= 0 ? `, peer ${peer}` : "");
    shapes.push(svg("rect", {x: x(start).toFixed(1), y: lane.get(rank) * H + (region ? 1 : 7), width: w.toFixed(1),
      height: region ? 4 : H - 10, fill: region ? "#888" : MPI_COLORS[k % MPI_COLORS.length],
      class: region ? "region-event" : "mpi-event", "data-name": name}, svg("title", {text: tip})));
  }
  const legend = [...mpiNames].map(k => el("span", {class: "mpi-legend"},
    el("span", {class: "swatch", style: "background:" + MPI_COLORS[k % MPI_COLORS.length]}), t.names[k]));
  if (regions) legend.push(el("span", {class: "mpi-legend"}, el("span", {class: "swatch", style: "background:#888"}), "regions (thin bar above)"));
  const regionText = t.regions_total ? ` Above each lane, the ${t.regions_shown} longest of ${t.regions_total} outer region calls.` : "";
  const laneText = t.ranks_total > ranks.length ? ` Drawn: the ${ranks.length} lowest-numbered of the ${t.ranks_total} ranks with MPI calls recorded; the count above is every rank's.` : "";
  return el("div", {class: "mpi-timeline"},
    el("h3", {}, "MPI calls over time"),
    el("p", {class: "muted"}, `${t.shown} of ${t.total} recorded MPI calls (every call of 50 \u00b5s or more, 1 in 256 shorter ones; at most ${t.limit} shown, the longest), over ${nsText(end)} from the first.` + regionText + laneText),
    svg("svg", {class: "timeline", viewBox: `0 0 ${W} ${ranks.length * H + 6}`, width: W, height: ranks.length * H + 6}, shapes),
    el("div", {class: "legend"}, legend));
}

function rankSpan(bin, b, n) {
  const lo = bin * b, hi = Math.min(n, lo + b) - 1;
  return lo === hi ? `rank ${lo}` : `ranks ${lo}\u2013${hi}`;
}

// Room for "to → (rank)" at 11 px, with a margin for wider fonts.
const AXIS_LABEL_W = 96;

// A heat map of rank pairs (rows: from, columns: to), at most 64 x 64 cells
// of `b` ranks each, shaded on a log scale of the cells' bytes.
function heatMap(cells, n, b, cls, color, tip) {
  const S = Math.max(4, Math.min(24, Math.floor(480 / n))), L = 70, T = 16;
  const max = Math.max(...cells.map(x => x[2]), 1);
  const shade = v => v > 0 ? (0.15 + 0.85 * Math.log1p(v) / Math.log1p(max)).toFixed(3) : "0.06";
  const shapes = [
    svg("text", {x: L, y: 11, class: "lane", text: "to \u2192 (rank)"}),
    svg("text", {x: 2, y: T + 11, class: "lane", text: "from \u2193"})];
  const every = Math.ceil(n / 8);
  for (let i = 0; i < n; i += every) {
    shapes.push(svg("text", {x: 2, y: T + 14 + i * S + Math.max(Math.min(S, 12) - 1, S / 2 + 4), class: "lane", text: String(i * b)}));
    shapes.push(svg("text", {x: L + i * S, y: T + 11, class: "lane", text: String(i * b)}));
  }
  for (const x of cells) {
    const [from, to, bytes] = x;
    shapes.push(svg("rect", {x: L + to * S, y: T + 14 + from * S, width: S - 1, height: S - 1, fill: color, "fill-opacity": shade(bytes),
      class: cls, "data-from": from, "data-to": to}, svg("title", {text: tip(x)})));
  }
  // a small matrix is narrower than its axis label: the label sets the width
  // (11 px text, report.css), never the cells alone, or "to → (rank)" is cut
  const W = Math.max(L + n * S + 4, L + AXIS_LABEL_W), H = T + 14 + n * S + 4;
  return svg("svg", {class: "comm-heat", viewBox: `0 0 ${W} ${H}`, width: W, height: H}, shapes);
}

// Collectives: what each collective's meaning implies between its
// communicator's members, estimated (the MPI library's algorithm decides the
// real pairs), drawn apart from the measured point-to-point map.
function collMatrix(k) {
  if (!k || !Array.isArray(k.cells) || !k.cells.length) return null;
  const b = k.bin;
  const tip = ([from, to, bytes, calls, time]) => `${rankSpan(from, b, k.ranks)} \u2192 ${rankSpan(to, b, k.ranks)}: ${formatNumber(bytes, "B")} by the collectives' patterns (estimated) in ${plural(calls, "call")}, ${nsText(time)} of their time`;
  const scale = b > 1 ? ` Each cell holds ${b} consecutive ranks.` : "";
  const unplaced = k.unplaced && k.unplaced.calls ? ` ${plural(k.unplaced.calls, "collective call")} (${formatNumber(k.unplaced.bytes, "B")}) on communicators that could not be placed in MPI_COMM_WORLD are not drawn.` : "";
  const byPattern = Object.entries(k.bytes_by_pattern || {}).filter(([, v]) => v > 0).map(([p, v]) => `${p} ${formatNumber(v, "B")}`).join(", ");
  const groups = (k.groups || []).map(g => el("tr", {},
    el("td", {}, g.function), el("td", {}, g.pattern), el("td", {}, g.members),
    el("td", {class: "num"}, g.root === null ? "\u2013" : g.root), el("td", {class: "num"}, g.calls),
    el("td", {class: "num"}, valueText(g.bytes)), el("td", {class: "num"}, nsText(g.time_ns))));
  const more = k.groups_total > (k.groups || []).length ? ` The ${(k.groups || []).length} heaviest of ${k.groups_total} collectives by communicator and root:` : "";
  return el("div", {class: "comm-matrix comm-collectives"},
    el("h4", {}, "Collectives ", qualityBadge("estimated", k.reason)),
    el("p", {class: "muted"}, `Collective calls measured by interposition in ${k.ranks_reporting} of ${plural(k.ranks, "rank")} (${plural(k.calls, "call")} summed over the ranks, ${nsText(k.time_ns)}), placed on their communicators' members: ${valueText(k.bytes)} by pattern${byPattern ? " (" + byPattern + ")" : ""}. Estimated: ${k.reason}. Rows send, columns receive; darker is more bytes (log scale).` + scale + unplaced),
    heatMap(k.cells, k.bins, b, "coll-cell", "#e15759", tip),
    el("p", {class: "muted"}, k.basis + "." + more),
    groups.length ? el("table", {class: "grid-table comm-groups"},
      el("thead", {}, el("tr", {}, ["Collective", "Pattern", "Members (world ranks)", "Root", "Calls (all its ranks)", "Bytes (estimated)"].map(h => el("th", {scope: "col"}, h)),
        el("th", {scope: "col"}, "Time ", el("span", {class: "clock"}, "wall clock")))),
      el("tbody", {}, groups)) : null);
}

// Who talks to whom: the point-to-point bytes sent, measured, and apart the
// collectives' estimated pairs; the heaviest pairs by name.
function commMatrix(c) {
  if (!c) return null;
  const coll = collMatrix(c.collectives);
  const p2p = Array.isArray(c.cells) && c.cells.length;
  if (!p2p && !coll) return null;
  const n = c.bins, b = c.bin;
  const tip = ([from, to, bytes, messages, time]) => `${rankSpan(from, b, c.ranks)} \u2192 ${rankSpan(to, b, c.ranks)}: ${formatNumber(bytes, "B")} in ${plural(messages, "message")}, ${nsText(time)} wall clock`;
  const scale = b > 1 ? ` Each cell holds ${b} consecutive ranks.` : "";
  const unplaced = c.unplaced && c.unplaced.messages ? ` ${plural(c.unplaced.messages, "message")} (${formatNumber(c.unplaced.bytes, "B")}) went to partners that could not be placed in MPI_COMM_WORLD and are not drawn.` : "";
  const top = (c.top_pairs || []).map(t => el("tr", {},
    el("td", {class: "num"}, t.from), el("td", {class: "num"}, t.to),
    el("td", {class: "num"}, formatNumber(t.bytes, "B")), el("td", {class: "num"}, t.messages),
    el("td", {class: "num"}, nsText(t.time_ns))));
  return el("div", {class: "comm-matrix"},
    el("h3", {}, "Who talks to whom"),
    el("h4", {}, "Point-to-point ", qualityBadge("measured", "exact totals counted by interposition")),
    p2p ? el("p", {class: "muted"}, `Point-to-point traffic measured by interposition in ${c.ranks_reporting} of ${plural(c.ranks, "rank")}: ${formatNumber(c.bytes, "B")} in ${plural(c.messages, "message")}. Rows send, columns receive; darker is more bytes (log scale).` + scale + unplaced + " " + c.basis + ".")
      : el("p", {class: "muted"}, "No point-to-point call named a partner in this Run."),
    p2p ? heatMap(c.cells, n, b, "comm-cell", "#4e79a7", tip) : null,
    top.length ? el("table", {class: "grid-table comm-top"},
      el("thead", {}, el("tr", {}, ["From", "To", "Bytes", "Messages"].map(h => el("th", {scope: "col"}, h)),
        el("th", {scope: "col"}, "Time ", el("span", {class: "clock"}, "wall clock")))),
      el("tbody", {}, top)) : null,
    coll);
}

// The network Ceilings (the Machine's network_* Values) with their Quality
// and where they came from (payload.network_ceilings, the manifest's
// cost.network_ceilings_from; the summary says the same, report/netceil_view.c):
// measured in this Run or read from the cache, when and on which nodes, and
// whether those are the nodes the application ran on. Null without them.
function networkCeilingsNote(payload) {
  const n = payload && payload.network_ceilings;
  if (!n || typeof n !== "object") return null;
  const cs = ((payload.machine || {}).ceilings || []).filter(c => c && typeof c.name === "string" && c.name.startsWith("network_"));
  const why = cs.filter(c => c.quality !== "measured" && c.reason).map(c => `${c.name}: ${c.reason}`);
  return el("p", {class: "network-from"}, "Network Ceilings ", qualityBadge(n.quality || "unavailable"), ": ",
    cs.map((c, i) => [i ? ", " : "", c.name, " ", valueSpan(c)]), "; ",
    n.from || "where they came from is not recorded in this Run", ".",
    why.length ? el("span", {class: "muted"}, " " + why.join("; ") + ".") : null);
}

// The MPI views of the ranks, then the network Ceilings' note (net, or null)
// under its own heading.
function mpiSection(r, net) {
  const n = net ? [el("h3", {}, "Network Ceilings"), net] : null;
  if (!r || !Array.isArray(r.rows)) return n ? el("section", {class: "mpi"}, n) : null;
  const m = mpiMatrix(r), t = mpiTimeline(r.mpi_timeline);
  // separate worlds number their ranks from 0 each: no matrix over the launch's ranks
  const c = r.separate_worlds
    ? el("p", {class: "muted comm-apart"}, `Who talks to whom: not placed. The ranks ran as ${r.separate_worlds.text}, each numbering its ranks from 0, so peers and communicator members are not the launch's ranks.`)
    : commMatrix(r.comm_matrix);
  if (!m && !t && !c && !n) return null;
  return el("section", {class: "mpi"}, m, c, t, n);
}
