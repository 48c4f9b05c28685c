// SPDX-License-Identifier: BSD-3-Clause
// Entry point of the report page: reads the payload embedded in the
// JSON script element with id "nunatak-payload", draws the top bar
// and level 1, then level 2 (inventory) or level 3 (one Hotspot's detail)
// after the location hash: "#hotspot-N" opens the detail, anything else the
// inventory, so the browser's back button works and a detail can be linked
// ("#provenance" opens the provenance drawer).

const PAYLOAD_SCHEMA = 6; // schema 5 (bare shares and times) is still drawn: util.js num()

function readPayload() {
  const node = document.getElementById("nunatak-payload");
  if (!node) throw new Error("this page holds no report payload");
  const p = JSON.parse(node.textContent);
  if (!p || p.name !== "nunatak-report") throw new Error("the embedded JSON is not a nunatak report payload");
  return p;
}

function hotspotFromHash(payload) {
  const m = /^#hotspot-(\d+)$/.exec(location.hash);
  if (!m) return -1;
  const i = Number(m[1]);
  return i < (payload.hotspots || []).length ? i : -1;
}

function start() {
  const app = document.getElementById("app");
  let payload;
  try {
    payload = readPayload();
  } catch (err) {
    app.append(el("div", {class: "fatal"}, "This report cannot be drawn: " + err.message + "."));
    return;
  }
  document.title = "nunatak \u00b7 " + ((payload.run && payload.run.name) || "report");
  try {
    draw(app, payload);
  } catch (err) {
    app.replaceChildren(el("div", {class: "fatal"}, "This report could not be drawn (" + err.message +
      "). Its data is intact: the JSON in this file, as `nunatak report --json` prints it."));
  }
}

function draw(app, payload) {
  const state = {sortKey: "bar", sortDesc: true, filter: "all"};
  const lower = el("div", {id: "lower"});
  let drawerNode = null;
  const toggleDrawer = () => {
    drawerNode.hidden = !drawerNode.hidden;
    document.body.classList.toggle("drawer-open", !drawerNode.hidden);
  };
  const closeDrawer = () => { drawerNode.hidden = true; document.body.classList.remove("drawer-open"); };
  const toInventory = () => { location.hash = "inventory"; };
  const renderLower = () => {
    const i = hotspotFromHash(payload);
    try {
      lower.replaceChildren(i >= 0 ? detail(payload, i, toInventory)
        : inventory(payload, state, renderLower));
    } catch (err) {
      lower.replaceChildren(el("div", {class: "fatal"}, "This part could not be drawn: " + err.message + "."));
    }
  };
  drawerNode = drawer(payload, closeDrawer);
  const notes = [];
  if (payload.schema !== PAYLOAD_SCHEMA && payload.schema !== 5)
    notes.push(el("p", {class: "fatal"}, `This page was built for payload schema ${PAYLOAD_SCHEMA}; this payload is schema ${payload.schema}: some parts may be missing.`));
  app.append(topBar(payload, toggleDrawer), drawerNode,
    el("main", {}, notes, timeSection(payload), synthesis(payload), lower, flameSection(payload)),
    el("footer", {}, "Written by nunatak. Quality: ", qualityBadge("measured"), " ", qualityBadge("estimated"), " ",
      qualityBadge("unavailable"), ". Absent values read \u201cunavailable\u201d, never 0. This page makes no network request."));
  renderLower();
  if (location.hash === "#provenance") toggleDrawer();
  window.addEventListener("hashchange", () => {
    renderLower();
    lower.scrollIntoView({block: "start"});
  });
  app.addEventListener("click", ev => {
    const go = ev.target.closest("[data-go]");
    if (!go || ev.target.closest("button.sort, button.chip")) return;
    ev.preventDefault();
    location.hash = "hotspot-" + go.getAttribute("data-go");
  });
  app.addEventListener("keydown", ev => {
    const row = ev.target.closest && ev.target.closest("tr[data-go]");
    if (row && (ev.key === "Enter" || ev.key === " ")) {
      ev.preventDefault();
      location.hash = "hotspot-" + row.getAttribute("data-go");
    }
  });
  document.addEventListener("keydown", ev => {
    if (ev.key !== "Escape") return;
    if (!drawerNode.hidden) closeDrawer();
    else if (hotspotFromHash(payload) >= 0) toInventory();
  });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
