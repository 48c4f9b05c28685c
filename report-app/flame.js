// SPDX-License-Identifier: BSD-3-Clause
// The flame graph (an icicle: callers above their callees) of the payload's
// "flame" tree: the sampled call stacks merged over Loci, or the Hotspots
// alone (under their regions) when the Run has no stacks. Click a frame to
// zoom into it; the path above zooms back out. Drawn with positioned
// elements, no canvas and nothing fetched.

const FLAME_ROW = 18;        // px per depth
const FLAME_MIN_WIDTH = 0.002; // frames narrower than this share of the view are not drawn
const FLAME_LABEL_WIDTH = 0.03;

function flameColor(name) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `hsl(${20 + h % 40}, ${60 + h % 25}%, ${55 + h % 15}%)`;
}

function flamePct(x) {
  return (100 * x).toFixed(1) + "%";
}

function flameSection(payload) {
  const f = payload.flame;
  if (!f || !f.root || !(f.root.v > 0)) return null;
  const total = f.root.v;
  const box = el("div", {class: "flame-box", id: "flame-box"});
  const crumbs = el("nav", {class: "flame-crumbs", "aria-label": "zoom path"});
  let path = [f.root];
  const sorted = n => (n.c || []).slice().sort((a, b) => b.v - a.v || (a.n < b.n ? -1 : 1));
  const render = () => {
    const focus = path[path.length - 1];
    crumbs.replaceChildren(...path.flatMap((n, i) => [
      i ? el("span", {class: "muted"}, " \u203a ") : null,
      el("button", {class: "flame-crumb", type: "button", "data-depth": i,
        onclick: () => { path = path.slice(0, i + 1); render(); }}, n.n)]).filter(Boolean));
    const nodes = [];
    let depthMax = 0;
    const place = (node, trail, depth, x0, w) => {
      if (w < FLAME_MIN_WIDTH) return;
      depthMax = Math.max(depthMax, depth);
      const share = node.v / total;
      const d = el("div", {class: "flame-node", "data-name": node.n, "data-share": share.toFixed(4),
        "data-view": w.toFixed(4), tabindex: 0,
        style: `left:${(100 * x0).toFixed(3)}%;width:${(100 * w).toFixed(3)}%;` +
          `top:${depth * FLAME_ROW}px;background:${flameColor(node.n)}`,
        title: `${node.n}\n${flamePct(share)} of all sampled ${f.time_base}` +
          (depth && path.length > 1 ? `, ${flamePct(w)} of ${focus.n}` : "")},
        w >= FLAME_LABEL_WIDTH ? node.n : "");
      const go = () => { if (depth) { path = path.concat(trail.slice(1)); render(); } };
      d.addEventListener("click", ev => { ev.stopPropagation(); go(); });
      d.addEventListener("keydown", ev => { if (ev.key === "Enter") go(); });
      nodes.push(d);
      let x = x0;
      for (const c of sorted(node)) {
        const cw = node.v > 0 ? w * c.v / node.v : 0;
        place(c, trail.concat([c]), depth + 1, x, cw);
        x += cw;
      }
    };
    place(focus, [focus], 0, 0, 1);
    box.style.height = `${(depthMax + 1) * FLAME_ROW}px`;
    box.replaceChildren(...nodes);
  };
  render();
  const what = f.from_stacks
    ? "The sampled call stacks, callers above their callees, merged over every Locus."
    : (f.with_regions
      ? "This Run has no call stacks: its Hotspots under the regions they were sampled in."
      : "This Run has no call stacks: its Hotspots only (`nunatak run --call-graph fp` or `dwarf` records them).");
  return el("section", {class: "level flame", id: "flame"},
    el("h2", {}, "Flame graph"),
    el("p", {class: "muted"}, what, " Width is ", f.time_base, " time; click a frame to zoom in, the path to zoom out."),
    crumbs, box);
}
