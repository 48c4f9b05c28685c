// SPDX-License-Identifier: BSD-3-Clause
// Where the wall time went (top of the page): the Run's wall, on-CPU and
// off-CPU time (blocked, preempted) from the kernel's context switches, the
// threads' budgets, and the off-CPU Hotspots: the blocking functions with
// their cause, beside the CPU Hotspots below. Every share names its base.

const MAX_TIME_THREADS = 32;

function timeBar(cpu, blocked, preempted, total) {
  const part = (v, cls, label) => v > 0 ? el("span", {class: "tb-part " + cls,
    style: `width:${(100 * v / total).toFixed(2)}%`, title: `${label}: ${formatNumber(v / 1e9, "s")} (${pct(v / total)} of wall time)`}) : null;
  return el("div", {class: "tb-bar"}, part(cpu, "tb-cpu", "on CPU"), part(blocked, "tb-blocked", "blocked"),
    part(preempted, "tb-preempted", "preempted (runnable, waiting for a CPU)"));
}

// The threads' budgets; under MPI the runtime's helper threads are marked
// and listed after the application's (they are outside the totals above).
function timeThreads(tb) {
  const byOff = (a, b) => (num(b.offcpu_ns) || 0) - (num(a.offcpu_ns) || 0);
  const all = tb.loci || [], roles = all.some(r => r.helper), names = all.some(r => r.name);
  const rows = all.filter(r => !r.helper).sort(byOff).concat(all.filter(r => r.helper).sort(byOff)).slice(0, MAX_TIME_THREADS);
  if (rows.length < 2) return null;
  return el("table", {class: "tb-threads"},
    el("thead", {}, el("tr", {}, el("th", {}, "rank"), el("th", {}, "thread"), names ? el("th", {}, "name") : null, roles ? el("th", {}, "role") : null, el("th", {class: "num"}, "wall"),
      el("th", {class: "num"}, "on CPU"), el("th", {class: "num"}, "off CPU (of the thread's wall time)"), el("th", {}, ""))),
    el("tbody", {}, rows.map(r => {
      const w = num(r.wall_ns), c = num(r.cpu_ns) || 0, o = num(r.offcpu_ns) || 0, p = num(r.preempted_ns) || 0;
      return el("tr", {class: r.helper ? "muted tb-helper" : ""}, el("td", {class: "num"}, r.rank < 0 ? "\u2013" : r.rank), el("td", {class: "num"}, r.thread),
        names ? el("td", {class: "tb-name", title: r.name ? "the thread's name (comm) as the kernel last reported it" : "no name recorded for this thread"},
          r.name ? el("code", {}, r.name) : "\u2013") : null,
        roles ? el("td", {title: r.helper ? (tb.helper_threads || {}).rule || "" : ""}, r.helper ? "MPI runtime helper (not in the totals)" : "application") : null,
        el("td", {class: "num"}, nsText(r.wall_ns)), el("td", {class: "num"}, nsText(r.cpu_ns)),
        el("td", {class: "num"}, nsText(r.offcpu_ns), w ? " (" + pct(o / w) + ")" : ""),
        el("td", {class: "tb-mini"}, w ? timeBar(c, o - p, p, w) : null));
    })));
}

// "8 MPI runtime helper threads (2 per rank): ...; not counted above".
function helperThreads(tb) {
  const h = tb.helper_threads;
  if (!h || !h.count) return null;
  const per = h.per_rank_min === h.per_rank_max ? `${h.per_rank_min} per rank`
    : `${h.per_rank_min} to ${h.per_rank_max} per rank over ${h.ranks} ranks`;
  const t = num(h.thread_time_ns), off = num(h.offcpu_ns), top = (h.offcpu_hotspots || [])[0];
  return el("p", {class: "tb-helpers", title: "rule: " + h.rule},
    `${plural(h.count, "MPI runtime helper thread")} (${per}: progress, event loops): ${nsText(h.thread_time_ns)} of thread time, on CPU ${nsText(h.cpu_ns)}, off CPU ${nsText(h.offcpu_ns)}` +
    (t ? ` (${pct(off / t)} of their thread time)` : ""),
    top ? [", blocked mostly in ", el("code", {}, top.name), ` (${top.cause}, ${off ? pct(num(top.time_ns) / off) : "unavailable"} of their off-CPU time)`] : null,
    "; not counted above: the totals, shares and off-CPU Hotspots are the application's threads.");
}

function offcpuTable(hs, total) {
  if (!hs || !hs.length) return null;
  return el("table", {class: "tb-offcpu"},
    el("thead", {}, el("tr", {}, el("th", {}, "off-CPU Hotspot"), el("th", {}, "cause"),
      el("th", {class: "num"}, "time"), el("th", {class: "num"}, "of off-CPU time"), el("th", {class: "num"}, "intervals"))),
    el("tbody", {}, hs.map(h => el("tr", {class: h.attributed ? "" : "muted"},
      el("td", {}, h.attributed ? el("code", {}, h.name) : h.name), el("td", {}, h.cause),
      el("td", {class: "num"}, nsText(h.time_ns), " ", qualityBadge(qualityOf(h.time_ns))),
      el("td", {class: "num"}, total ? pct(num(h.time_ns) / total) : "unavailable"),
      el("td", {class: "num"}, h.attributed ? h.intervals : "\u2013")))));
}

// OpenMP regions: per thread, work and wait at the barrier (of the thread's
// time in the region).
function openmpTable(o) {
  if (!o || !o.regions || !o.regions.length) return null;
  const where = r => r.file && r.line ? basename(r.file) + ":" + r.line : r.name;
  return el("div", {class: "tb-openmp"}, el("h3", {}, "OpenMP regions (" + o.runtime + ")"),
    el("p", {class: "muted"}, o.method || ""),
    o.regions.map(r => el("table", {},
      el("thead", {}, el("tr", {}, el("th", {}, el("code", {}, where(r)), " ", el("span", {class: "muted"}, r.name)),
        el("th", {class: "num"}, "work"), el("th", {class: "num"}, "wait"), el("th", {class: "num"}, "wait (of the thread's time in the region)"))),
      el("tbody", {}, (r.threads || []).map(t => {
        const w = num(t.work_ns) || 0, q = num(t.wait_ns) || 0;
        return el("tr", {}, el("td", {}, (t.rank !== undefined ? "rank " + t.rank + ", " : "") + "thread " + t.thread,
            el("span", {class: "muted"}, " (tid " + t.tid + ")"), t.name ? [" ", el("code", {}, t.name)] : null),
          el("td", {class: "num"}, nsText(t.work_ns)), el("td", {class: "num"}, nsText(t.wait_ns), " ", qualityBadge(qualityOf(t.wait_ns), t.wait_ns.reason || "")),
          el("td", {class: "num"}, w + q > 0 ? pct(q / (w + q)) : "unavailable"));
      })))),
    ranksOpenmp(o.ranks));
}

// Under MPI, rank x thread: a rank's threads waiting at OpenMP barriers
// against the rank waiting in MPI.
function ranksOpenmp(ranks) {
  if (!Array.isArray(ranks) || !ranks.length) return null;
  return el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, "rank"),
      el("th", {class: "num"}, "threads' OpenMP wait (of their region time)"),
      el("th", {class: "num"}, "MPI wait (of the rank's wall time)"))),
    el("tbody", {}, ranks.map(r => {
      const t = num(r.threads_time_ns), w = num(r.threads_wait_ns), m = num(r.mpi_time_ns), wall = num(r.mpi_wall_ns);
      return el("tr", {}, el("td", {}, "rank " + r.rank),
        el("td", {class: "num"}, t ? pct(w / t) : "unavailable"),
        el("td", {class: "num"}, m !== null && wall ? pct(m / wall) : "unavailable", " ",
          qualityBadge(qualityOf(r.mpi_time_ns), r.mpi_time_ns.reason || "")));
    })));
}

// Counting-only MPI ranks: their time per rank from perf stat, never per
// thread (the row says why).
function countedRanks(tb) {
  const rows = tb.counted_ranks || [];
  if (!rows.length) return null;
  return el("div", {class: "tb-counted"},
    el("h3", {}, "Counting-only ranks (perf stat)"),
    el("p", {class: "muted"}, "Per rank, not per thread: " + (rows[0].threads_reason || "") +
      (tb.counted_ranks_total > rows.length ? `. ${rows.length} of the ${tb.counted_ranks_total} counting-only ranks: ${tb.counted_ranks_rule || ""}.` : "")),
    el("table", {class: "tb-threads"},
      el("thead", {}, el("tr", {}, el("th", {}, "rank"), el("th", {class: "num"}, "wall"),
        el("th", {class: "num"}, "on CPU (all its threads)"), el("th", {class: "num"}, "off CPU (of the rank's wall time)"))),
      el("tbody", {}, rows.map(r => {
        const w = num(r.wall_ns), o = num(r.offcpu_ns);
        return el("tr", {}, el("td", {class: "num"}, r.rank),
          el("td", {class: "num"}, w === null ? unavailSpan(r.wall_ns) : nsText(r.wall_ns)),
          el("td", {class: "num"}, num(r.cpu_ns) === null ? unavailSpan(r.cpu_ns) : nsText(r.cpu_ns)),
          el("td", {class: "num"}, o === null ? unavailSpan(r.offcpu_ns) : [nsText(r.offcpu_ns), w ? " (" + pct(o / w) + ")" : ""],
            " ", qualityBadge(qualityOf(r.offcpu_ns), r.offcpu_ns.reason || "")));
      }))));
}

// The Run took the stacks of blocking switch-outs only: the preempted time
// without one (sched_yield, a preemption of user code), said, never dropped.
function unstackedNote(tb) {
  const u = tb.preempted_unstacked_ns;
  if (!u || num(u) === null || !(num(u) > 0)) return null;
  return el("p", {class: "muted tb-unstacked"}, nsText(u), " ", qualityBadge(qualityOf(u), u.clock || ""),
    " of the preempted time after sched_yield or a preemption of user code: no call stack taken, by design (the stacks of blocking switch-outs only).");
}

function timeSection(payload) {
  const tb = payload.time_budget;
  if (!tb) return null;
  const wall = num(tb.wall_ns), cpu = num(tb.cpu_ns), off = num(tb.offcpu_ns), pre = num(tb.preempted_ns) || 0;
  const head = el("h2", {}, "Where the wall time went");
  if (cpu === null || off === null)
    return el("section", {class: "time-budget", id: "time-budget"}, head,
      el("p", {}, "Wall time ", wall === null ? unavailSpan(tb.wall_ns) : nsText(tb.wall_ns), " ", qualityBadge(qualityOf(tb.wall_ns), tb.wall_ns && tb.wall_ns.reason || ""),
        "; on-CPU and off-CPU time ", unavailSpan(tb.cpu_ns), "."), countedRanks(tb));
  const threads = (tb.loci || []).filter(r => !r.helper).length, base = cpu + off;
  const app = tb.helper_threads ? "application threads" : "threads";
  const text = threads > 1
    ? `Wall ${nsText(tb.wall_ns)} over ${threads} ${app} (${formatNumber(base / 1e9, "s")} of thread time): on CPU ${nsText(tb.cpu_ns)} (${pct(cpu / base)} of the threads' wall time), off CPU ${nsText(tb.offcpu_ns)} (${pct(off / base)}).`
    : `Wall ${nsText(tb.wall_ns)}: on CPU ${nsText(tb.cpu_ns)} (${pct(cpu / base)} of wall time), off CPU ${nsText(tb.offcpu_ns)} (${pct(off / base)} of wall time).`;
  return el("section", {class: "time-budget", id: "time-budget"}, head,
    el("p", {}, text, " ", qualityBadge(qualityOf(tb.offcpu_ns), tb.offcpu_ns.clock || ""),
      el("span", {class: "muted"}, ` ${tb.mechanism}; the CPU Hotspots below share the sampled CPU time only.`)),
    timeBar(cpu, off - pre, pre, base),
    el("p", {class: "tb-legend muted"}, el("span", {class: "tb-key tb-cpu"}), " on CPU ",
      el("span", {class: "tb-key tb-blocked"}), " blocked ", el("span", {class: "tb-key tb-preempted"}), " preempted"),
    unstackedNote(tb), helperThreads(tb), offcpuTable(payload.offcpu_hotspots, off), openmpTable(payload.openmp), timeThreads(tb),
    countedRanks(tb));
}
