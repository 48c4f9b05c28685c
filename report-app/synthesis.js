// SPDX-License-Identifier: BSD-3-Clause
// The top bar with its provenance drawer, and level 1 (synthesis): headline,
// coverage sentence, findings with their evidence, the ranks table, and
// "What this report does not say" (every degradation, with its remedy).

const MAX_FINDINGS = 10;
const MAX_RANK_ROWS = 32;

// The passes' duration_s (monotonic clock); start/end, whole seconds of the
// wall clock, only for older Runs and replays, and then said as such.
function runDuration(payload) {
  let total = 0, known = false, coarse = false;
  for (const p of payload.passes || []) {
    if (typeof p.duration_s === "number" && p.duration_s > 0) { total += p.duration_s * 1000; known = true; continue; }
    // A replay's start and end are the replay's, not the recorded application's.
    if (payload.machine && payload.machine.recorded) continue;
    const a = Date.parse(p.start), b = Date.parse(p.end);
    if (Number.isFinite(a) && Number.isFinite(b) && b >= a) { total += b - a; known = coarse = true; }
  }
  if (!known) return payload.machine && payload.machine.recorded ? "duration not recorded" : "duration unavailable";
  if (coarse) return total < 1000 ? "under 1 s (wall clock, whole seconds)" : "about " + formatNumber(total / 1000, "s") + " wall clock";
  // nunatak's start and end of collection around the application: longer
  // than the application's own wall time ("Where the wall time went").
  return formatNumber(total / 1000, "s") + " wall clock (with collection)";
}

// A replayed Run's Machine is the recording's (machine.recorded): said as
// such, and what the recording does not hold is "not recorded", never this
// host's value.
function cpuText(m) {
  if (!m) return "CPU unavailable";
  const missing = m.recorded ? "not recorded" : "unavailable";
  const model = m.cpu_model || "CPU model " + missing;
  const cores = [];
  if (Number.isInteger(m.logical_cores)) cores.push(plural(m.logical_cores, "core"));
  if (Number.isInteger(m.allocated_cores) && m.allocated_cores !== m.logical_cores)
    cores.push(m.allocated_cores + " allocated");
  return model + " \u00b7 " + (cores.length ? cores.join(", ") : "cores " + missing);
}

function machineBits(m) {
  const text = el("span", {class: "cpu"}, cpuText(m));
  if (!m || !m.recorded) return text;
  const n = (m.ceilings || []).filter(c => available(c) || (c && typeof c.value === "number")).length;
  return el("span", {class: "recorded-machine", title: "this Run was replayed from a recording: its Machine " +
    "(CPU, cores, " + plural(n, "Ceiling") + ") is the recorded one, not this host's"},
  el("span", {class: "recorded-tag"}, "recorded Machine"), " ", text);
}

// A Run over several nodes says so before the Machine, which is the launch
// node's (each node's own is in the Nodes table): "2 nodes, launch node".
function nodesBits(r) {
  const rows = r && r.nodes && Array.isArray(r.nodes.rows) ? r.nodes.rows : [];
  return rows.length > 1 ? el("span", {class: "nodes-count", title: "each node's Machine and Ceilings: the Nodes table"},
    `${rows.length} nodes, launch node`) : null;
}

// The command as the header shows it: the application first (the target,
// whatever the Run's name), the launcher after it, muted; the whole command
// in the tooltip.
function commandBits(run) {
  if (!Array.isArray(run.command)) return [el("code", {class: "cmd"}, "command unavailable")];
  const cmd = run.command.join(" ");
  const app = Array.isArray(run.app) && run.app.length ? run.app : null;
  if (!app) return [el("code", {class: "cmd target", title: cmd}, cmd)];
  // the program's basename: a long build path would push it out of sight
  const target = [basename(app[0])].concat(app.slice(1)).join(" ");
  if (app.length === run.command.length) return [el("code", {class: "cmd target", title: cmd}, target)];
  const launcher = run.command.slice(0, run.command.length - app.length).join(" ");
  return [el("code", {class: "cmd target", title: cmd}, target),
    el("span", {class: "launcher", title: cmd}, "via " + launcher)];
}

function topBar(payload, toggleDrawer) {
  const run = payload.run || {};
  const bits = [
    el("span", {class: "run-name"}, run.name || "unnamed Run"),
    commandBits(run),
    nodesBits(payload.ranks),
    machineBits(payload.machine),
    el("span", {}, runDuration(payload)),
  ];
  if (Number.isInteger(run.exit_code) && run.exit_code !== 0)
    bits.push(el("span", {class: "exit-bad", title: run.outcome || ""},
      "exit " + run.exit_code + (run.signal ? " (" + run.signal + ")" : "")));
  if (run.interrupted_by)
    bits.push(el("span", {class: "exit-bad", title: run.outcome || ""},
      "interrupted by " + run.interrupted_by));
  const parts = [];
  bits.filter(b => b).forEach((b, i) => { if (i) parts.push(el("span", {class: "sep"}, "\u00b7")); parts.push(b); });
  return el("header", {class: "topbar"},
    el("span", {class: "brand"}, "nunatak"), el("div", {class: "run-line"}, parts),
    el("button", {type: "button", class: "drawer-btn", "aria-controls": "provenance",
      onclick: toggleDrawer}, "Provenance"));
}

function kvTable(rows) {
  return el("table", {class: "kv"}, el("tbody", {}, rows.map(([k, v]) =>
    el("tr", {}, el("th", {scope: "row"}, k),
      el("td", {}, v === null || v === undefined || v === "" ? el("span", {class: "unavail"}, "unavailable")
        : typeof v === "object" && !(v instanceof Node) ? JSON.stringify(v) : v)))));
}

function drawer(payload, close) {
  const prov = payload.provenance || {};
  const m = payload.machine || {};
  const dirty = prov.dirty_tree === true ? "yes" : prov.dirty_tree === false ? "no" : null;
  const collectors = [];
  for (const p of payload.passes || [])
    for (const c of p.collectors || [])
      collectors.push(["pass " + p.index, (c.tool || "?") + " " + (c.version || "(version unavailable)")]);
  const deps = Object.entries(prov.dependencies || {});
  const cfg = Object.entries(prov.effective_configuration || {});
  const ceilings = (m.ceilings || []).map(c => [c.name,
    el("span", {}, c.value === null ? "unavailable" : formatNumber(c.value, c.unit), " ",
      qualityBadge(c.quality || "unavailable", c.reason || c.quality),
      c.reason ? el("span", {class: "muted ceiling-reason"}, " " + c.reason) : null)]);
  return el("aside", {id: "provenance", class: "drawer", hidden: true, "aria-label": "provenance"},
    el("div", {class: "drawer-head"}, el("h2", {}, "Provenance"),
      el("button", {type: "button", onclick: close, title: "close (Escape)"}, "\u00d7")),
    el("h3", {}, "Code"), kvTable([["commit", prov.commit], ["dirty tree", dirty]]),
    el("h3", {}, "Collectors"), collectors.length ? kvTable(collectors) : el("p", {class: "muted"}, "none recorded"),
    el("h3", {}, "Dependencies"), deps.length ? kvTable(deps) : el("p", {class: "muted"}, "none recorded"),
    el("h3", {}, "Machine"), kvTable([["source", m.recorded ? "recorded: replayed from a recording; fields it does not hold read unavailable" : "this host"],
      ["system", m.system], ["kernel", m.kernel], ["architecture", m.architecture],
      ["CPU", m.cpu_model], ["hostname", m.hostname], ["identity", m.identity],
      ["logical cores", m.logical_cores], ["allocated cores", m.allocated_cores]]),
    el("h3", {}, m.recorded ? "Ceilings (recorded)" : "Ceilings"), ceilings.length ? kvTable(ceilings) : el("p", {class: "muted"}, "none: this Machine was not calibrated"),
    networkCeilingsNote(payload),
    el("h3", {}, "Effective configuration"), cfg.length ? kvTable(cfg) : el("p", {class: "muted"}, "not recorded"));
}

function headline(payload) {
  const hs = payload.hotspots || [];
  if (!hs.length)
    return `No Hotspot above the statistical floor of ${floorText(payload)}.`;
  // one unavailable share makes the sum unavailable, never a partial or 0 (summary.c)
  const total = hs.every(h => available(h.share)) ? hs.reduce((s, h) => s + h.share.value, 0) : null;
  return `${plural(hs.length, "Hotspot")} above the statistical floor ${hs.length === 1 ? "holds" : "hold"} ` +
    `${total === null ? "an unavailable share" : pct(total)} of the sampled time.`;
}

// "on 4 ranks; 4 MPI runtime helper threads seen beside them": Loci are
// application threads; the runtime's own helper threads are counted apart
// (docs/mpi.md), so 4 ranks never read as "8 Loci".
function lociText(cov, ranks) {
  const nRanks = ranks && Array.isArray(ranks.rows) ? ranks.rows.filter(x => x.sampled).length : 0;
  const nLoci = available(cov.loci) ? cov.loci.value : null;
  const nHelp = available(cov.helper_threads) ? cov.helper_threads.value : 0;
  let out = "";
  const nAll = ranks && Array.isArray(ranks.rows) ? ranks.rows.length : 0;
  const apart = ranks && ranks.separate_worlds ? ` (${ranks.separate_worlds.text}, not one job)` : "";
  if (nRanks) out = `on ${nRanks < nAll ? nRanks + " of " : ""}${plural(nAll, "rank")}${apart}` +
    (nLoci !== null && nLoci > nRanks ? ` (${plural(nLoci, "application thread")})` : "");
  else if (nLoci !== null) out = `on ${plural(nLoci, "Locus", "Loci")}`;
  if (nHelp) out += `${out ? "; " : ""}${plural(nHelp, "MPI runtime helper thread")} (progress, event loops) seen beside them, not counted as Loci`;
  return out;
}

function coverageSentence(cov, ranks) {
  const out = [];
  out.push(available(cov.samples)
    ? `${formatNumber(cov.samples.value, "sample")} sample${cov.samples.value === 1 ? "" : "s"} of ${cov.time_base || "an unnamed time base"}`
    : `samples unavailable (${whyAbsent(cov.samples)})`);
  out.push(available(cov.seconds) ? `over ${formatNumber(cov.seconds.value, "s")} of sampled time`
    : `sampled seconds unavailable (${whyAbsent(cov.seconds)})`);
  const loci = lociText(cov, ranks);
  if (loci) out.push(loci);
  return out.join(", ") + ".";
}

const EVIDENCE = ["share", "achieved", "attainable", "envelope_fraction", "dram_intensity", "imbalance"];

const EVIDENCE_LABEL = {share: "share", achieved: "achieved", attainable: "attainable",
  envelope_fraction: "envelope fraction", dram_intensity: "DRAM intensity", imbalance: "imbalance"};

// "imbalance: reason", for the values among `keys` (those the finding shows)
// that are estimated: a value not shown has no downgrade line (summary.c).
// Reasons are "; "-joined lists and the same part travels through several
// values (intensity -> attainable -> envelope): each part is said once,
// naming every value it downgrades.
function downgradeReasons(h, keys) {
  const byPart = new Map();
  for (const k of keys || EVIDENCE) {
    const v = h[k];
    if (!v || v.quality !== "estimated" || !v.reason) continue;
    for (const part of v.reason.split("; ")) {
      if (!part) continue;
      if (!byPart.has(part)) byPart.set(part, []);
      const names = byPart.get(part), label = EVIDENCE_LABEL[k] || k;
      if (!names.includes(label)) names.push(label);
    }
  }
  return [...byPart].map(([why, names]) => `${names.join(", ")}: ${why}`);
}

// The hottest line is the payload's hottest_line, the one the terminal
// summary names (attrib_hottest_line); older payloads: the largest of lines.
function hotLine(h) {
  let best = h.hottest_line || null;
  if (!best && !("hottest_line" in h))
    for (const l of h.lines || []) if (num(l.share) !== null && (!best || num(l.share) > num(best.share))) best = l;
  return best && Number.isInteger(best.line) ? best : null;
}

// "timestep > solve > sweep 95%, no region 3%": where the Hotspot's samples
// fell among the region traces (empty without traces or -k CLOCK_MONOTONIC).
function regionsText(h, max) {
  return (h.regions || []).filter(r => num(r.share) >= 0.01).slice(0, max)
    .map(r => `${r.path === null ? "no region" : r.path} ${pct(num(r.share))}`).join(", ");
}

function nsText(v) {
  const n = num(v);
  return n === null ? "unavailable" : formatNumber(n / 1e9, "s");
}

// A finding is a Hotspot that carries much of the time (the largest, until
// FINDINGS_COVER of the sampled time, each at least FINDINGS_MIN_SHARE) or
// has a classification, as the terminal summary picks them (summary.c).
const FINDINGS_COVER = 0.8, FINDINGS_MIN_SHARE = 0.02;

function pickFindings(hs) {
  const out = [];
  let covered = 0;
  hs.forEach((h, i) => {
    const s = available(h.share) ? h.share.value : 0;
    if (out.length < MAX_FINDINGS && (h.classification || !out.length ||
        (covered < FINDINGS_COVER && s >= FINDINGS_MIN_SHARE))) out.push([h, i]);
    covered += s;
  });
  return out;
}

// What is unavailable for every finding is said once, above them.
function sharedGaps(picked) {
  const hs = picked.map(([h]) => h);
  const gap = k => hs.length > 1 && hs.every(h => !available(h[k]));
  return {achieved: gap("achieved") && gap("attainable"), dram: gap("dram_intensity"),
    reason: hs.length > 1 && hs.every(h => !h.classification && h.classification_reason === hs[0].classification_reason)
      ? hs[0].classification_reason : null};
}

function finding(h, i, gaps) {
  gaps = gaps || {};
  const ev = el("ul", {class: "evidence"});
  const shown = ["share"];
  const roofline = available(h.achieved) || available(h.attainable);
  if (roofline) {
    ev.append(el("li", {}, "achieved ", valueSpan(h.achieved), " of ", valueSpan(h.attainable),
      " attainable", available(h.envelope_fraction) ? [": ", valueSpan(h.envelope_fraction, true), " of the envelope"] : ""));
    shown.push("achieved", "attainable", "envelope_fraction");
  } else if (!gaps.achieved) {
    ev.append(el("li", {}, "achieved ", valueSpan(h.achieved)));
    shown.push("achieved");
  }
  if (!gaps.dram) {
    ev.append(el("li", {}, "DRAM intensity ", valueSpan(h.dram_intensity)));
    shown.push("dram_intensity");
  }
  if (h.classification === "imbalance" && available(h.imbalance)) {
    ev.append(el("li", {}, "most-loaded Locus carries ", valueSpan(h.imbalance), " the least-loaded"));
    shown.push("imbalance");
  }
  const line = hotLine(h);
  if (line)
    ev.append(el("li", {class: "hot-line"}, `line ${line.line}${line.file || h.source_file ? " of " + basename(line.file || h.source_file) : ""} holds ${pct(num(line.share))} of this Hotspot's time`));
  const inRegions = regionsText(h, 3);
  if (inRegions) ev.append(el("li", {class: "in-regions"}, "in " + inRegions));
  const down = downgradeReasons(h, shown);
  if (down.length) ev.append(el("li", {class: "downgraded"}, qualityMark("estimated"), "Downgraded to estimated: " + down.join("; ")));
  return el("li", {class: "finding"},
    el("div", {class: "finding-head"}, el("strong", {class: "hs-name"}, h.name), " ", resolutionLabel(h.resolution_level),
      " \u2014 ", valueSpan(h.share, true), " of the sampled time \u2014 ", classificationChip(h),
      h.classification || gaps.reason ? "" : el("span", {class: "muted"}, " " + (h.classification_reason || ""))),
    ev.children.length ? ev : null,
    el("a", {href: "#hotspot-" + i, "data-go": i, class: "go"}, roofline ? "Open the Hotspot and its roofline \u2192" : "Open the Hotspot \u2192"));
}

const NOT_SAMPLED = "no rank was sampled: the split between application and MPI time needs samples";

const RANK_COLUMNS = [
  {title: "Rank", num: true, cell: x => x.rank},
  {title: "Node", cell: x => x.node, avail: x => !!x.node, why: () => "no rank left its node name"},
  {title: "Collection", cell: x => x.sampled ? "sampled" : x.counted ? "counted" : "missing"},
  {title: "Threads", cell: x => x.helper_threads ? `${x.threads} + ${x.helper_threads} helper` : x.threads,
    avail: x => x.sampled && typeof x.threads === "number", why: () => "no rank was sampled"},
  {title: "Time", num: true, key: "time_ns", why: () => "no rank was sampled or counted"},
  {title: "Time from", cell: x => x.time_source, avail: x => !!x.time_source, why: () => "no rank was sampled or counted"},
  {title: "Application", num: true, key: "app_ns", why: () => NOT_SAMPLED},
  {title: "MPI", num: true, key: "mpi_ns", why: () => NOT_SAMPLED},
  {title: "MPI fraction", num: true, key: "mpi_fraction", pct: true, why: () => NOT_SAMPLED},
].map(c => c.key ? Object.assign({avail: x => num(x[c.key]) !== null,
  cell: x => num(x[c.key]) === null ? unavailSpan(x[c.key])
    : el("span", {title: [isValue(x[c.key]) ? x[c.key].quality : "", x[c.key].clock || "", x[c.key].reason || ""].filter(Boolean).join("; ")},
      c.pct ? pct(num(x[c.key])) : formatNumber(num(x[c.key]) / 1e9, "s"))}, c) : c);

// "4 ranks (4 sampled); ...", then the threads: application threads and the
// MPI runtime's helper threads, counted apart (docs/mpi.md).
function ranksHead(r) {
  const sampled = r.rows.filter(x => x.sampled).length;
  const imb = r.imbalance || {};
  // separate worlds (docs/mpi.md): never "N ranks", never an imbalance across them
  const sw = r.separate_worlds;
  const who = sw ? `${sw.text}, not one ${r.rows.length}-rank job (${sampled} sampled); imbalance across them not computed: ${imb.reason}`
    : available(imb) ? `${plural(r.rows.length, "rank")} (${sampled} sampled); busiest rank ${r.busiest_rank} at ${imb.value.toFixed(2)}x the mean`
    : `${plural(r.rows.length, "rank")} (${sampled} sampled); imbalance unavailable${imb.reason ? ": " + imb.reason : ""}`;
  const head = `${who}; MPI holds ` +
    `${available(r.mpi_fraction) ? pct(r.mpi_fraction.value) : "unavailable"} of the time` +
    (available(r.mpi_fraction) ? (r.mpi_fraction.source === "interposition" ? " (wall clock inside MPI calls)" : " (sampled CPU time)") : "");
  const help = r.helper_threads || {};
  const nThreads = typeof r.threads === "number" ? r.threads : sampled;
  const parts = [];
  if (nThreads > sampled) parts.push(`${plural(nThreads, "application thread")} over the ${sampled} sampled ranks`);
  if (help.count) parts.push(`${plural(help.count, "MPI runtime helper thread")} (progress, event loops${num(help.fraction) !== null ? ", " + pct(num(help.fraction)) + " of the sampled time" : ""}) seen beside them, not counted as application Loci`);
  return {head, imb, threads: parts.length ? el("p", {class: "muted", title: help.rule || ""}, "Threads: " + parts.join("; ") + ".") : null};
}

// Which clock each time column comes from (schema 6 "clock"): sampled CPU
// time beside wall-clock MPI time is said, never left to guess.
function clocksNote(cols, rows) {
  const byClock = new Map();
  for (const c of cols) {
    if (!c.key) continue;
    for (const x of rows) {
      const v = x[c.key];
      if (!available(v) || !v.clock) continue;
      if (!byClock.has(v.clock)) byClock.set(v.clock, new Set());
      byClock.get(v.clock).add(c.title);
    }
  }
  if (!byClock.size) return null;
  return el("p", {class: "muted clocks"}, "Clocks: " +
    [...byClock].map(([k, t]) => `${listText([...t])} from ${k}`).join("; ") + ".");
}

// The clock of a time column, for its header: "wall clock", "sampled CPU
// time" (schema 6 "clock"), one name when every row agrees.
function columnClock(c, rows) {
  if (!c.key) return null;
  const clocks = new Set(rows.map(x => x[c.key]).filter(v => available(v) && v.clock).map(v => v.clock));
  return clocks.size === 1 ? [...clocks][0] : clocks.size > 1 ? "mixed clocks" : null;
}

function ranksSection(r) {
  if (!r || !Array.isArray(r.rows) || !r.rows.length) return null;
  const {head, imb, threads} = ranksHead(r);
  const shownRows = r.rows.slice(0, MAX_RANK_ROWS);
  const {shown, gone} = splitColumns(RANK_COLUMNS, r.rows);
  const rows = shownRows.map(x => el("tr", {class: x.rank === r.busiest_rank ? "busiest" : ""},
    shown.map(c => el("td", {class: c.num ? "num" : null},
      c.avail && !c.avail(x) ? el("span", {class: "unavail"}, "unavailable") : c.cell(x)))));
  return el("section", {class: "ranks"}, el("h3", {}, "Ranks"),
    el("p", {}, head, " ", qualityBadge(qualityOf(imb), reasonTitle(imb)),
      imb.basis && !r.separate_worlds ? el("span", {class: "muted"}, " measured on " + imb.basis) : null,
      imb.quality === "estimated" && imb.reason && available(imb)
        ? el("span", {class: "val q-estimated"}, ` \u2014 the busiest rank's ${imb.value.toFixed(2)}x is downgraded to estimated: ${imb.reason}`) : null),
    threads,
    el("div", {class: "table-wrap"}, el("table", {class: "grid-table"},
      el("thead", {}, el("tr", {}, shown.map(c => {
        const clock = columnClock(c, shownRows);
        return el("th", {scope: "col", class: c.num ? "num" : null}, c.title,
          clock ? [el("br"), el("span", {class: "clock"}, clock + (c.pct ? "" : ", per rank"))] : null);
      }))),
      el("tbody", {}, rows))),
    goneColumnsNote(gone, r.rows, "rank"), clocksNote(shown, shownRows),
    r.rows.length > MAX_RANK_ROWS ? el("p", {class: "muted"}, `\u2026 and ${r.rows.length - MAX_RANK_ROWS} more ranks not shown`) : null);
}

// "0-3, 8, 10-11": a node's ranks, consecutive runs joined.
function rankRanges(ranks) {
  const out = [];
  for (let i = 0; i < ranks.length;) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j] + 1) j++;
    out.push(j > i ? `${ranks[i]}\u2013${ranks[j]}` : String(ranks[i]));
    i = j + 1;
  }
  return out.join(", ");
}

// Nodes as Loci (node > rank > thread): each node's ranks and the sum of
// their times, the busiest node against the mean node.
function nodesSection(r) {
  const n = r && r.nodes;
  if (!n || !Array.isArray(n.rows) || n.rows.length < 2) return null;
  const imb = n.imbalance || {};
  // each node's Machine and the Ceilings its ranks are placed against (the
  // manifest's nodes: the launch node's Machine, its own cached profile, or
  // the launch node's borrowed, estimated)
  const machines = n.rows.some(x => Array.isArray(x.machines) && x.machines.length);
  const from = {launch: "the launch node's Machine", own: "its own cached profile", borrowed: "borrowed from the launch node"};
  const machineCells = x => {
    const ms = Array.isArray(x.machines) ? x.machines : [];
    if (!ms.length) return [el("td", {}, "not recorded"), el("td", {}), el("td", {}), el("td", {})];
    const m = ms[0], c = m.ceilings || {};
    const more = ms.length > 1 ? el("span", {class: "muted"}, ` (+${ms.length - 1} more Machine${ms.length > 2 ? "s" : ""} on this node)`) : null;
    return [el("td", {title: m.cpu_model || ""}, (m.identity || "unknown") + (m.visible_cores ? `, ${m.visible_cores} of ${m.logical_cores || "?"} core${m.logical_cores === 1 ? "" : "s"}` : ""), more),
      el("td", {class: "num"}, c.flops_dp ? valueSpan(c.flops_dp) : "unavailable"),
      el("td", {class: "num"}, c.dram_bandwidth ? valueSpan(c.dram_bandwidth) : "unavailable"),
      el("td", {}, m.ceilings_source === "borrowed" ? [from.borrowed, " ", qualityBadge("estimated", m.reason || "")]
        : from[m.ceilings_source] || m.ceilings_source)];
  };
  const rows = n.rows.slice(0, MAX_RANK_ROWS).map(x => el("tr", {class: x.node === imb.busiest_node ? "busiest" : "", "data-node": x.node},
    el("td", {}, x.node), el("td", {class: "num"}, x.ranks.length), el("td", {}, rankRanges(x.ranks)),
    el("td", {class: "num"}, valueSpan(x.value_ns)), el("td", {class: "num"}, valueSpan(x.time_ns)),
    machines ? machineCells(x) : null));
  const head = num(imb.value) !== null
    ? [`busiest node ${imb.busiest_node} at ${num(imb.value).toFixed(2)}x the mean node `, qualityBadge(imb.quality, imb.reason || ""),
      imb.basis ? el("span", {class: "muted"}, " on the ranks' " + imb.basis) : null]
    : [`node imbalance unavailable: ${imb.reason || "no node time"}`];
  return el("section", {class: "nodes"}, el("h3", {}, "Nodes"),
    el("p", {}, head),
    el("div", {class: "table-wrap"}, el("table", {class: "grid-table"},
      el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "Node"), el("th", {scope: "col", class: "num"}, "Ranks"),
        el("th", {scope: "col"}, "Rank numbers"),
        el("th", {scope: "col", class: "num"}, "Time", el("br"), el("span", {class: "clock"}, "sum of the node's ranks (imbalance basis)")),
        el("th", {scope: "col", class: "num"}, "Sampled time", el("br"), el("span", {class: "clock"}, "sampled CPU time, summed")),
        machines ? [el("th", {scope: "col"}, "Machine"), el("th", {scope: "col", class: "num"}, "flops_dp Ceiling"),
          el("th", {scope: "col", class: "num"}, "dram_bandwidth Ceiling"), el("th", {scope: "col"}, "Ceilings from")] : null)),
      el("tbody", {}, rows))),
    n.rows.length > MAX_RANK_ROWS ? el("p", {class: "muted"}, `\u2026 and ${n.rows.length - MAX_RANK_ROWS} more nodes not shown`) : null);
}

const MAX_REGION_ROWS = 12;

// Regions from the scope_profiler traces, by inclusive time summed over
// threads and ranks; the busiest rank against the mean when several ranks.
function regionsSection(regions) {
  if (!Array.isArray(regions) || !regions.length) return null;
  const multi = regions.some(r => r.ranks);
  // off the CPU inside the exclusive time (context switches on the traces' clock)
  const off = regions.some(r => r.exclusive_offcpu_ns && num(r.exclusive_offcpu_ns) !== null);
  const rows = regions.slice(0, MAX_REGION_ROWS).map(r => el("tr", {},
    el("td", {}, el("span", {class: "region-path"}, r.path)), el("td", {class: "num"}, r.calls),
    el("td", {class: "num"}, nsText(r.inclusive_ns)), el("td", {class: "num"}, nsText(r.exclusive_ns)),
    off ? el("td", {class: "num"}, nsText(r.exclusive_offcpu_ns)) : null,
    multi ? el("td", {class: "num"}, r.ranks && num(r.ranks.imbalance) !== null ? `${num(r.ranks.imbalance).toFixed(2)}x (${plural(r.ranks.count, "rank")})` : "") : null));
  const head = ["Region (call path)", "Calls", "Inclusive", "Exclusive"].concat(off ? ["Exclusive off the CPU"] : [])
    .concat(multi ? ["Busiest rank / mean"] : []);
  return el("section", {class: "regions"}, el("h3", {}, "Regions"),
    el("p", {class: "muted"}, "From the scope_profiler region traces: wall time per call path, summed over threads and ranks."),
    el("table", {class: "grid-table"}, el("thead", {}, el("tr", {}, head.map(t => el("th", {scope: "col"}, t)))),
      el("tbody", {}, rows)),
    regions.length > MAX_REGION_ROWS ? el("p", {class: "muted"}, `\u2026 and ${regions.length - MAX_REGION_ROWS} more call paths`) : null);
}

function doesNotSay(payload) {
  const items = [];
  const others = payload.others, unres = payload.unresolved;
  if (others && available(others.share) && others.share.value > 0.005)
    items.push(`${pct(others.share.value)} of the sampled time is in ${plural(others.count, "Hotspot")} below the floor of ${floorText(payload)}, aggregated as "others".`);
  if (unres && available(unres.share) && unres.share.value > 0)
    items.push(`${pct(unres.share.value)} of the sampled time is in code left unresolved (module+offset, no function name)` +
      (Array.isArray(unres.modules) && unres.modules.length ? ": " + unres.modules.slice(0, 3).map(m =>
        `${m.module} ${pct(m.share.value)}${m.runtime ? " (" + m.runtime + ")" : ""}`).join(", ") +
        `; ${unres.modules[0].remedy}` : "") + ".");
  const hs = payload.hotspots || [];
  const lacks = (what) => hs.some((h) => h.dram_intensity && (h.dram_intensity.reason || "").includes(`no ${what} raw counter`));
  const noFlops = lacks("flops_dp"), noDram = lacks("dram_bytes");
  if (noFlops || noDram)
    items.push(`How many ${noFlops ? "FLOPs" : "DRAM bytes"} each Hotspot moves: this Run has no ${noFlops ? "FLOP" : "DRAM"} counter (none on this CPU or for its microarchitecture; \`nunatak doctor\` shows which counters the machine offers).`);
  const c = ceilingsOf(payload);
  if (!c.flops_dp || !c.dram_bandwidth)
    items.push("Where Hotspots sit on the roofline: the Machine carries no flops_dp or dram_bandwidth Ceiling.");
  for (const name of ["flops_dp", "dram_bandwidth"])
    if (c[name] && c[name].quality === "estimated")
      items.push(`The ${name} Ceiling is estimated: ${c[name].reason || "no reason recorded"}.`);
  const cov = payload.coverage || {};
  for (const k of ["samples", "seconds"])
    if (!available(cov[k])) items.push(`Sampled ${k}: unavailable (${whyAbsent(cov[k])}).`);
  const r = payload.ranks;
  if (r && Array.isArray(r.unsampled) && r.unsampled.length)
    items.push(`Ranks ${r.unsampled.join(", ")} were counted, not sampled: their Hotspots are never extrapolated.`);
  if (r && Array.isArray(r.missing) && r.missing.length)
    items.push(`Ranks ${r.missing.join(", ")} left no data.`);
  const list = el("ul", {class: "not-say"}, items.map(t => el("li", {}, t)));
  for (const d of payload.degradations || [])
    list.append(el("li", {class: "degradation"}, el("span", {class: "deg-name"}, "degraded [" + d.name + "]"),
      ": " + d.message, el("span", {class: "remedy"}, " \u2014 remedy: " + d.remedy)));
  if (!list.children.length) list.append(el("li", {}, "Nothing was left out of this Run's measurements."));
  return el("section", {class: "does-not-say"}, el("h3", {}, "What this report does not say"), list);
}

function synthesis(payload) {
  const hs = payload.hotspots || [];
  const picked = pickFindings(hs);
  const gaps = sharedGaps(picked);
  const said = [];
  const roofline = runRooflineSection(payload);
  // The roofline's own sentence already gives the same reason: said once.
  const saidByRoofline = roofline && gaps.reason && roofline.classList.contains("no-run-roofline") &&
    roofline.textContent.includes(gaps.reason);
  if (gaps.reason && !saidByRoofline) said.push("No roofline placement for any Hotspot: " + gaps.reason + ".");
  if (gaps.achieved && gaps.dram) said.push("Achieved FLOP rate and DRAM intensity are unavailable for every Hotspot.");
  else if (gaps.achieved) said.push("Achieved FLOP rate is unavailable for every Hotspot.");
  else if (gaps.dram) said.push("DRAM intensity is unavailable for every Hotspot.");
  const shared = said.length ? el("p", {class: "muted shared-gaps"}, said.join(" ")) : null;
  const findings = el("ol", {class: "findings"}, picked.map(([h, i]) => finding(h, i, gaps)));
  let overflow = null;
  if (hs.length > picked.length) {
    const shown = new Set(picked.map(([, i]) => i));
    const restHs = hs.filter((h, i) => !shown.has(i));
    const rest = restHs.every(h => available(h.share)) ? restHs.reduce((s, h) => s + h.share.value, 0) : null;
    overflow = el("p", {class: "muted"}, `\u2026 and ${plural(hs.length - picked.length, "Hotspot")} above the floor, holding ${rest === null ? "an unavailable share" : pct(rest)} of the sampled time (see the inventory).`);
  }
  return el("section", {class: "level level1", id: "synthesis"},
    el("h1", {class: "headline"}, headline(payload)),
    el("p", {class: "coverage"}, coverageSentence(payload.coverage || {}, payload.ranks)),
    roofline,
    hs.length ? el("h2", {}, "Findings") : null, shared, findings, overflow,
    ranksSection(payload.ranks), nodesSection(payload.ranks), mpiSection(payload.ranks, networkCeilingsNote(payload)), regionsSection(payload.regions), doesNotSay(payload));
}
