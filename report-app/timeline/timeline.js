// SPDX-License-Identifier: BSD-3-Clause
// Flame chart of region calls: one band per rank and lane on one time axis.
// DATA = {run, lanes:[{label, s:[start ns], d:[duration ns], z:[depth], r:[region]}],
//         names:[...], kept, dropped}. Wheel zooms, drag pans, hover shows a call.
(function () {
  "use strict";
  const ROW = 16, GAP = 10, LABEL = 130;
  const cv = document.getElementById("chart"), tip = document.getElementById("tip");
  const ctx = cv.getContext("2d");
  // Bidi controls in a name would reorder it on the canvas: shown as marks
  // (docs/security.md), like util.js showBidi() on the report page.
  const bidi = function (t) {
    return String(t).replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, function (c) {
      return "\u2039U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "\u203a";
    });
  };
  DATA.names = DATA.names.map(bidi);
  DATA.run = bidi(DATA.run);
  DATA.lanes.forEach(function (l) { l.label = bidi(l.label); });
  document.getElementById("title").textContent = "Timeline of " + DATA.run;
  let tmax = 1, top = 22;
  const bands = DATA.lanes.map(function (l) {
    let depth = 0;
    for (let i = 0; i < l.s.length; i++) {
      depth = Math.max(depth, l.z[i]);
      tmax = Math.max(tmax, l.s[i] + l.d[i]);
    }
    const b = {lane: l, y: top, h: (l.s.length ? depth + 1 : 1) * ROW};
    top += b.h + GAP;
    return b;
  });
  const note = DATA.kept + " calls" + (DATA.dropped ? " drawn; " + DATA.dropped +
    " shorter calls omitted (raise --max-calls to draw them)" : "") +
    ". Wheel: zoom, drag: pan, double-click: reset.";
  document.getElementById("note").textContent = note;
  let t0 = 0, t1 = tmax;
  function color(r) {
    let h = 0;
    const s = DATA.names[r] || "";
    for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
    return "hsl(" + (h % 360) + ",60%," + (62 + (h >> 9) % 14) + "%)";
  }
  function fmt(ns) {
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + " us";
    return ns + " ns";
  }
  function xOf(t, w) { return LABEL + (t - t0) / (t1 - t0) * (w - LABEL); }
  function draw() {
    const dpr = window.devicePixelRatio || 1, w = cv.clientWidth;
    cv.width = w * dpr; cv.height = top * dpr; cv.style.height = top + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, top);
    ctx.font = "11px system-ui,sans-serif"; ctx.textBaseline = "middle";
    ctx.fillStyle = "#555";
    for (let k = 0; k <= 8; k++) {
      const t = t0 + (t1 - t0) * k / 8, x = xOf(t, w);
      ctx.fillRect(x, 14, 1, top); ctx.fillText(fmt(t), x + 2, 7);
    }
    bands.forEach(function (b) {
      const l = b.lane;
      ctx.fillStyle = "#222"; ctx.fillText(l.label, 4, b.y + ROW / 2);
      for (let i = 0; i < l.s.length; i++) {
        const s = l.s[i], e = s + l.d[i];
        if (e < t0 || s > t1) continue;
        const x0 = Math.max(LABEL, xOf(s, w)), x1 = Math.min(w, xOf(e, w));
        const y = b.y + l.z[i] * ROW;
        ctx.fillStyle = color(l.r[i]);
        ctx.fillRect(x0, y, Math.max(1, x1 - x0 - 0.5), ROW - 1);
        if (x1 - x0 > 30) {
          ctx.save(); ctx.beginPath(); ctx.rect(x0, y, x1 - x0, ROW); ctx.clip();
          ctx.fillStyle = "#111"; ctx.fillText(DATA.names[l.r[i]], x0 + 3, y + ROW / 2);
          ctx.restore();
        }
      }
    });
  }
  function hit(mx, my) {
    const w = cv.clientWidth;
    for (const b of bands) {
      if (my < b.y || my >= b.y + b.h) continue;
      const l = b.lane, depth = Math.floor((my - b.y) / ROW);
      for (let i = 0; i < l.s.length; i++)
        if (l.z[i] === depth && xOf(l.s[i], w) <= mx && mx <= xOf(l.s[i] + l.d[i], w))
          return {l: l, i: i};
    }
    return null;
  }
  let drag = null;
  cv.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    const w = cv.clientWidth, f = ev.deltaY > 0 ? 1.25 : 0.8;
    const tm = t0 + (Math.max(LABEL, ev.offsetX) - LABEL) / (w - LABEL) * (t1 - t0);
    t0 = tm - (tm - t0) * f; t1 = tm + (t1 - tm) * f;
    if (t1 - t0 < 10) t1 = t0 + 10;
    draw();
  }, {passive: false});
  cv.addEventListener("mousedown", function (ev) { drag = {x: ev.clientX, t0: t0, t1: t1}; });
  window.addEventListener("mouseup", function () { drag = null; });
  cv.addEventListener("dblclick", function () { t0 = 0; t1 = tmax; draw(); });
  cv.addEventListener("mousemove", function (ev) {
    if (drag) {
      const dt = (ev.clientX - drag.x) / (cv.clientWidth - LABEL) * (drag.t1 - drag.t0);
      t0 = drag.t0 - dt; t1 = drag.t1 - dt; draw(); return;
    }
    const h = hit(ev.offsetX, ev.offsetY);
    if (!h) { tip.style.display = "none"; return; }
    tip.textContent = DATA.names[h.l.r[h.i]] + "\n" + h.l.label + "\nstart " +
      fmt(h.l.s[h.i]) + "\nduration " + fmt(h.l.d[h.i]);
    tip.style.left = (ev.offsetX + 12) + "px"; tip.style.top = (ev.offsetY + 12) + "px";
    tip.style.display = "block";
  });
  window.addEventListener("resize", draw);
  draw();
})();
