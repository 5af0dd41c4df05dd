// memreuse memory viewer. Plain JavaScript and SVG, no build step. Data comes embedded
// (`plan --emit html`) or from the daemon (`memreuse view`), which pushes a server-sent event
// per revision so the page follows the files as they change.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PLOT_H = 300;
const LEFT = 70;
const RIGHT = 16;
const TOP = 14;
const AXIS_H = 34;
// Every tile stays visible however far out the view is: at least this many pixels each way.
const MIN_PX = 2;

const embedded = JSON.parse(document.getElementById("memreuse-data").textContent);
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";

const state = {
  live: embedded === null,
  files: [],
  revision: null,
  sort: { key: "name", asc: true },
  filter: "",
  showEmpty: false, // list the functions without tiles (orchestration, _spmd) too
  selected: null, // "path::name"
  doc: null,
  shown: null, // the document as the current plan numbers its statements
  variant: "pypto",
  tile: null, // "space/name" of the clicked tile
  picks: [], // up to two {space, name}
  view: null, // {x0, x1}: visible statements, shared by every space of the function
  spaces: [], // per drawn space: {svg, tiles, update}
  explainSeq: 0,
};

// ---- data access -------------------------------------------------------------------------

function api(path, query) {
  const q = new URLSearchParams(Object.assign({ token }, query || {}));
  return fetch(`api/${path}?${q}`).then((r) => {
    if (!r.ok) return r.text().then((t) => { throw new Error(`${r.status} ${t}`); });
    return r.json();
  });
}

function loadFiles() {
  if (!state.live) return Promise.resolve({ files: embedded.files, revision: null });
  return api("files");
}

// The daemon's own plan comes first (it is memoized); the other variants are planned on
// request, so they follow once the page has drawn.
function loadFunction(key) {
  const [path, name] = splitKey(key);
  if (!state.live) return Promise.resolve(resolveAliases(embedded.functions[key] || null));
  return api("function", { path, name, variants: "pypto" }).then(resolveAliases).catch(() => null);
}

// A variant whose plan is another's is sent as that variant's name (PyPTO's exact plan where
// nothing was repaired is the repaired one): point it at that plan.
function resolveAliases(doc) {
  if (!doc) return doc;
  for (const [variant, plan] of Object.entries(doc.plans)) {
    if (typeof plan === "string") doc.plans[variant] = doc.plans[plan] || null;
  }
  return doc;
}

function loadOtherVariants(key, doc) {
  if (!state.live || !doc) return Promise.resolve();
  const [path, name] = splitKey(key);
  return api("function", { path, name, variants: "exact,dsa" }).then((more) => {
    if (state.selected !== key || state.doc !== doc) return;
    Object.assign(doc.plans, more.plans);
    resolveAliases(doc);
    renderDetail();
  }).catch(() => {});
}

function splitKey(key) {
  const at = key.lastIndexOf("::");
  return [key.slice(0, at), key.slice(at + 2)];
}

// ---- the list ----------------------------------------------------------------------------

function rows() {
  const out = [];
  for (const file of state.files) {
    if (file.status === "skipped") continue;
    const fns = file.functions.map((f) => ({
      key: `${file.path}::${f.name}`,
      path: file.path,
      name: f.name,
      status: f.status,
      footprint: f.footprint,
      lower_bound: f.lower_bound,
      capacity: Math.max(0, ...f.spaces.map((s) => s.capacity)),
      repairs: f.repairs,
      errors: f.errors,
      spaces: f.spaces,
    }));
    out.push({ file, fns });
  }
  return out;
}

// Sorted by name the list is grouped by file; sorted by a figure it is one list over the
// whole tree (the largest footprints first, say), each row naming its file.
function renderList() {
  const body = document.querySelector("#functions tbody");
  body.textContent = "";
  const needle = state.filter.toLowerCase();
  const { key, asc } = state.sort;
  const order = (a, b) => {
    const x = a[key], y = b[key];
    const c = typeof x === "string" ? x.localeCompare(y) : x - y;
    return (asc ? c : -c) || a.key.localeCompare(b.key);
  };
  const functionRow = (f, withPath) => {
    const tr = el("tr", { class: "function" + (f.status === "failed" ? " failed" : "") });
    tr.dataset.key = f.key;
    const spaces = f.spaces.map((s) => `${s.space}: ${bytes(s.footprint)} of ${s.capacity ? bytes(s.capacity) : "?"}`).join("\n");
    const name = el("td", { class: "name", title: `${f.key}\n${spaces}` }, f.name);
    if (withPath) name.append(el("div", { class: "path" }, f.path));
    tr.append(
      name,
      el("td", { class: "num" }, f.status === "failed" ? "no plan" : bytes(f.footprint)),
      el("td", { class: "num" }, bytes(f.lower_bound)),
      el("td", { class: "num" }, f.capacity ? bytes(f.capacity) : "?"),
      el("td", { class: "num" }, String(f.repairs)),
      el("td", { class: "num" }, String(f.errors)),
    );
    if (f.key === state.selected) tr.classList.add("selected");
    tr.addEventListener("click", () => select(f.key));
    return tr;
  };
  const fileRow = (file) => {
    const head = el("tr", { class: "file" + (file.status === "failed" ? " failed" : "") });
    const cell = el("td", { colspan: 6, title: file.path }, file.path);
    if (file.diagnostics.length) cell.append(` — no plan (${file.diagnostics.length} ${file.diagnostics.length === 1 ? "error" : "errors"})`);
    head.append(cell);
    head.dataset.path = file.path;
    head.addEventListener("click", () => { if (file.diagnostics.length) select(`${file.path}::`); });
    return head;
  };
  // A function without tiles that planned cleanly has nothing to show: folded unless asked.
  const empty = (f) => f.status !== "failed" && !f.repairs && !f.errors && f.spaces.every((s) => !s.tiles);
  const groups = rows();
  const folded = groups.reduce((n, g) => n + g.fns.filter(empty).length, 0);
  document.getElementById("empty-count").textContent = `(${folded})`;
  if (!state.showEmpty) for (const g of groups) g.fns = g.fns.filter((f) => !empty(f));
  if (key === "name") {
    for (const { file, fns } of groups) {
      const shown = fns.filter((f) => !needle || f.key.toLowerCase().includes(needle));
      const fileMatches = !needle || file.path.toLowerCase().includes(needle);
      if (!shown.length && !(fileMatches && file.diagnostics.length)) continue;
      body.append(fileRow(file));
      for (const f of shown.sort(order)) body.append(functionRow(f, false));
    }
  } else {
    for (const { file } of groups) {
      if (file.diagnostics.length && (!needle || file.path.toLowerCase().includes(needle))) body.append(fileRow(file));
    }
    const all = groups.flatMap((g) => g.fns).filter((f) => !needle || f.key.toLowerCase().includes(needle));
    for (const f of all.sort(order)) body.append(functionRow(f, true));
  }
  for (const th of document.querySelectorAll("#functions th")) {
    th.classList.toggle("sorted", th.dataset.sort === key);
    th.classList.toggle("asc", th.dataset.sort === key && asc);
  }
}

function setStatus() {
  const n = state.files.reduce((sum, f) => sum + f.functions.length, 0);
  const where = state.live ? `live, revision ${state.revision}` : "saved page";
  document.getElementById("status").textContent = `${state.files.length} files, ${n} functions · ${where}`;
}

// ---- selection ---------------------------------------------------------------------------

function select(key) {
  if (key !== state.selected) {
    state.selected = key;
    state.tile = null;
    state.picks = [];
    state.view = null;
    history.replaceState(null, "", `${location.pathname}${location.search}#${encodeURIComponent(key)}`);
  }
  for (const tr of document.querySelectorAll("tr.function")) tr.classList.toggle("selected", tr.dataset.key === key);
  return refreshDetail();
}

// `pending`: the selected function's document, already asked for.
function refreshDetail(pending) {
  const key = state.selected;
  if (!key) return Promise.resolve();
  const [path, name] = splitKey(key);
  const file = state.files.find((f) => f.path === path);
  if (file && file.diagnostics.length) {
    state.doc = null;
    renderFileFailure(file, name);
    return Promise.resolve();
  }
  return (pending || loadFunction(key)).then((doc) => {
    if (state.selected !== key) return;
    // Keep the variant shown while its plan is being made.
    if (doc && state.doc && state.doc.path === doc.path && state.doc.function === doc.function) {
      for (const [v, plan] of Object.entries(state.doc.plans)) if (!(v in doc.plans)) doc.plans[v] = plan;
    }
    state.doc = doc;
    renderDetail();
    loadOtherVariants(key, doc);
  });
}

// ---- the detail --------------------------------------------------------------------------

function renderFileFailure(file, name) {
  const detail = document.getElementById("detail");
  detail.textContent = "";
  detail.append(el("h2", {}, name ? `${name} — ${file.path}` : file.path));
  const unread = file.diagnostics.every((d) => d.line === null);
  const why = unread ? "This file cannot be read" : "This file does not parse";
  detail.append(el("div", { class: "figures" }, `${why}: no plan until it does. The page updates when it changes.`));
  detail.append(diagnosticsBox(file.path, file.diagnostics, "diagnostics file-errors"));
}

function diagnosticsBox(path, list, cls) {
  const box = el("div", { class: cls });
  for (const d of list) {
    const where = d.line ? `${path}:${d.line}:${d.col}: ` : "";
    const item = el("div", { class: "diagnostic" }, `${where}${d.severity}[${d.code}]: ${d.message}`);
    if (d.source_line !== undefined && d.source_line !== null) {
      item.append(`\n  ${d.line} | ${d.source_line}\n  ${" ".repeat(String(d.line).length)} | ${" ".repeat(Math.max(0, d.col - 1))}^`);
    }
    if (d.hint) item.append(`\n  hint: ${d.hint}`);
    box.append(item);
  }
  return box;
}

function currentPlan() {
  return state.doc && state.doc.plans[state.variant];
}

function renderDetail() {
  const started = performance.now();
  const detail = document.getElementById("detail");
  detail.textContent = "";
  state.spaces = [];
  hideTooltip();
  const doc = state.doc;
  if (!doc) {
    detail.append(el("div", { id: "placeholder" }, `${state.selected}: not found (renamed or removed?)`));
    return;
  }
  for (const input of document.querySelectorAll("input[name=variant]")) {
    const plan = doc.plans[input.value];
    input.checked = input.value === state.variant;
    // A variant still being planned is not disabled: it is drawn when it arrives.
    input.parentElement.classList.toggle("disabled", !!plan && plan.status !== "planned");
    input.parentElement.classList.toggle("loading", !plan);
  }
  const plan = currentPlan();
  detail.append(el("h2", {}, `${doc.function} — ${doc.path}`));
  const differs = plansDiffer(doc.plans.pypto, doc.plans.exact);
  const figures = el("div", { class: "figures" });
  if (plan && plan.status === "planned") {
    figures.append(`${plan.spaces.length} memory spaces · ${plan.repairs.length} repairs of PyPTO's plan · ${plan.statements.length} statements (x: source line, y: address)`);
  }
  if (differs) figures.append(el("span", { class: "differs" }, " · exact and repaired plans differ (tiles placed differently are outlined orange)"));
  detail.append(figures);
  if (!plan) {
    detail.append(el("div", { class: "figures" }, `The ${state.variant} plan is being made…`));
    return;
  }
  if (plan.status !== "planned") {
    detail.append(el("div", { class: "figures" }, `No ${state.variant} plan for this function (${plan.failure} failed):`));
    detail.append(diagnosticsBox(doc.path, plan ? plan.diagnostics : [], "diagnostics"));
    return;
  }
  // Repairs add statements: each plan says where its own statements are.
  const shown = Object.assign({}, doc, { statements: plan.statements, loops: plan.loops, ifs: plan.ifs });
  state.shown = shown;
  if (plan.repairs.length) detail.append(diagnosticsBox(doc.path, plan.repairs, "diagnostics warnings"));
  if (plan.diagnostics.length) detail.append(diagnosticsBox(doc.path, plan.diagnostics, "diagnostics warnings"));
  const n = Math.max(1, shown.statements.length, ...plan.spaces.flatMap((s) => s.tiles.map((t) => t.end)));
  if (!state.view || state.view.x1 > n) state.view = { x0: 0, x1: n };
  for (const space of plan.spaces) drawSpace(detail, shown, space, n);
  restoreSelection();
  const ms = performance.now() - started;
  detail.dataset.renderMs = ms.toFixed(2);
}

// The tiles of `space` that PyPTO's exact plan and the repaired one place differently (another
// buffer or other bytes), or that only one of them has (a repair's copy), when one of the two
// is shown.
function placedElsewhere(doc, space) {
  const other = { pypto: "exact", exact: "pypto" }[state.variant];
  const plan = other && doc.plans[other];
  const out = new Set();
  if (!plan || plan.status !== "planned") return out;
  const there = plan.spaces.find((x) => x.space === space.space);
  if (!there) return out;
  const where = (sp, t) => `${sp.buffers[t.buffer].base}@${t.offset}+${t.size}`;
  const placed = new Map(there.tiles.map((t) => [t.name, where(there, t)]));
  for (const t of space.tiles) {
    const at = placed.get(t.name);
    if (at !== where(space, t)) out.add(t.name);
  }
  return out;
}

function plansDiffer(a, b) {
  if (!a || !b || a.status !== "planned" || b.status !== "planned") return false;
  const key = (p) => JSON.stringify(p.spaces.map((s) => s.buffers.map((x) => [x.base, x.offset, x.members])));
  return key(a) !== key(b);
}

// Which tiles of one buffer are live together from the two arms of one `if` (legal only
// because the arms exclude each other): those are drawn hatched, each in its half.
function exclusiveArms(space) {
  const byBuffer = new Map();
  for (const t of space.tiles) {
    if (!t.arms.length) continue;
    if (!byBuffer.has(t.buffer)) byBuffer.set(t.buffer, []);
    byBuffer.get(t.buffer).push(t);
  }
  // The arm of the innermost `if` whose two arms hold `a` and `b` apart, if any.
  const apart = (a, b) => {
    for (const [i, arm] of a.arms) {
      if (b.arms.some(([j, other]) => j === i && other !== arm)) return arm;
    }
    return undefined;
  };
  const out = new Map();
  for (const tiles of byBuffer.values()) {
    for (const a of tiles) {
      for (const b of tiles) {
        const arm = a.def < b.end && b.def < a.end ? apart(a, b) : undefined;
        if (arm !== undefined) out.set(a, arm);
      }
    }
  }
  return out;
}

function drawSpace(parent, doc, space, n) {
  const width = Math.max(480, parent.clientWidth - 30);
  const plotW = width - LEFT - RIGHT;
  const height = TOP + PLOT_H + AXIS_H;
  const box = el("div", { class: "space" });
  box.dataset.space = space.space;
  const peak = Math.max(0, ...space.live.bytes);
  // One address scale for every plan of this space, so switching plans compares like with like.
  const topOf = (sp) => Math.max(1, sp.footprint, sp.lower_bound, ...sp.live.bytes, ...sp.buffers.map((b) => b.offset + b.size));
  const same = Object.values(doc.plans).filter((p) => p && p.status === "planned").flatMap((p) => p.spaces.filter((x) => x.space === space.space));
  const top = Math.max(topOf(space), ...same.map(topOf));
  // A capacity far above the plan would squash it: then the capacity line sits at the top.
  const capacityShown = space.capacity > 0 && space.capacity <= top * 2;
  const yMax = (capacityShown ? Math.max(top, space.capacity) : top) * 1.06;
  const capText = space.capacity > 0 ? bytes(space.capacity) : "unknown";
  box.append(el("h3", {}, `${space.space}: footprint ${bytes(space.footprint)} · lower bound ${bytes(space.lower_bound)} · capacity ${capText} · ${space.tiles.length} tiles in ${space.buffers.length} buffers`));
  const svg = svgEl("svg", { width, height, viewBox: `0 0 ${width} ${height}` });
  svg.dataset.space = space.space;
  box.append(svg);
  const defs = svgEl("defs");
  const pattern = svgEl("pattern", { id: `hatch-${space.space}`, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
  pattern.append(svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#000", "stroke-width": 1.4, "stroke-opacity": 0.45 }));
  defs.append(pattern);
  const clip = svgEl("clipPath", { id: `clip-${space.space}` });
  clip.append(svgEl("rect", { x: LEFT, y: TOP, width: plotW, height: PLOT_H }));
  defs.append(clip);
  svg.append(defs);
  svg.append(svgEl("rect", { x: LEFT, y: TOP, width: plotW, height: PLOT_H, fill: "#fbfbfb", stroke: "#888" }));
  const clipped = svgEl("g", { "clip-path": `url(#clip-${space.space})` });
  svg.append(clipped);
  // Tiles, loops and the curve sit in one group laid out at one scale (`laidK` pixels per
  // statement): panning moves the group, zooming scales it until the tiles are laid out
  // again at the new scale (when the zoom settles), so a frame touches one attribute.
  const plot = svgEl("g");
  clipped.append(plot);
  const axis = svgEl("g", { class: "axis" });
  svg.append(axis);

  const y = (b) => TOP + PLOT_H - (b / yMax) * PLOT_H;
  const loops = doc.loops.map((l) => {
    const r = svgEl("rect", { class: "loop", y: TOP, height: PLOT_H });
    r.append(svgEl("title", {}, `loop body: statements ${l.first}..${l.last}${l.line ? `, from line ${l.line}` : ""}`));
    plot.append(r);
    const label = svgEl("text", { class: "loop-label", y: TOP + 10 }, l.line ? `loop L${l.line}` : "loop");
    plot.append(label);
    return { l, r, label };
  });
  const exclusive = exclusiveArms(space);
  const moved = placedElsewhere(doc, space);
  const tiles = space.tiles.map((t) => {
    const rect = svgEl("rect", { class: "tile", fill: space.buffers[t.buffer].colour });
    rect.dataset.tile = t.name;
    rect.dataset.buffer = space.buffers[t.buffer].base;
    if (moved.has(t.name)) rect.classList.add("differs");
    const half = exclusive.get(t);
    let hatch = null;
    if (half !== undefined) {
      rect.classList.add("exclusive");
      rect.dataset.arm = half === 0 ? "then" : "else";
    }
    plot.append(rect);
    if (half !== undefined) {
      hatch = svgEl("rect", { class: "hatch", fill: `url(#hatch-${space.space})` });
      plot.append(hatch);
    }
    // Bytes drawn: the then arm's tile in the lower half of the range, the else arm's above.
    let lo = t.offset, hi = t.offset + t.size;
    if (half !== undefined) {
      const mid = t.offset + t.size / 2;
      if (half === 0) hi = mid; else lo = mid;
    }
    const y0 = y(hi), y1 = y(lo);
    let h = y1 - y0, yy = y0;
    if (h < MIN_PX) { yy = y0 - (MIN_PX - h) / 2; h = MIN_PX; }
    rect.setAttribute("y", yy.toFixed(2));
    rect.setAttribute("height", h.toFixed(2));
    if (hatch) { hatch.setAttribute("y", yy.toFixed(2)); hatch.setAttribute("height", h.toFixed(2)); }
    return { t, rect, hatch };
  });
  const live = svgEl("polyline", { class: "live" });
  plot.append(live);
  const lines = [];
  const hline = (cls, bytesAt, label) => {
    const yy = y(bytesAt);
    const line = svgEl("line", { class: cls, x1: LEFT, x2: LEFT + plotW, y1: yy, y2: yy });
    line.append(svgEl("title", {}, label));
    svg.append(line);
    const text = svgEl("text", { x: LEFT + plotW - 4, y: yy - 3, "text-anchor": "end", "font-size": 10, fill: cls === "capacity" ? "#d62728" : "#15803d" }, label);
    svg.append(text);
    lines.push(line);
  };
  hline("bound", space.lower_bound, `lower bound ${bytes(space.lower_bound)}`);
  if (space.capacity > 0) {
    if (capacityShown) hline("capacity", space.capacity, `capacity ${bytes(space.capacity)}`);
    else {
      const text = svgEl("text", { class: "capacity-note", x: LEFT + plotW - 4, y: TOP + 12, "text-anchor": "end", "font-size": 10, fill: "#d62728" }, `capacity ${bytes(space.capacity)} (above the view)`);
      svg.append(text);
    }
  }
  // Address ticks.
  let step = 1;
  while (step * 8 < yMax) step *= 2;
  for (let b = 0; b <= yMax; b += step) {
    axis.append(svgEl("line", { x1: LEFT - 4, x2: LEFT, y1: y(b), y2: y(b) }));
    axis.append(svgEl("text", { x: LEFT - 6, y: y(b) + 3, "text-anchor": "end" }, bytes(b)));
  }
  axis.append(svgEl("text", { x: 12, y: TOP + PLOT_H / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${TOP + PLOT_H / 2})` }, "address"));
  const xticks = svgEl("g");
  axis.append(xticks);
  axis.append(svgEl("text", { x: LEFT + plotW / 2, y: TOP + PLOT_H + 30, "text-anchor": "middle" }, "source line (statement)"));

  const drawn = { space, svg, tiles, plotW, laidK: null, relayout: null };
  // Puts every tile, loop and the curve at `k` pixels per statement from statement 0.
  const layout = (k) => {
    drawn.laidK = k;
    for (const { t, rect, hatch } of tiles) {
      let a = t.def * k, w = (t.end - t.def) * k;
      if (w < MIN_PX) { a -= (MIN_PX - w) / 2; w = MIN_PX; }
      rect.setAttribute("x", a.toFixed(2));
      rect.setAttribute("width", w.toFixed(2));
      if (hatch) { hatch.setAttribute("x", a.toFixed(2)); hatch.setAttribute("width", w.toFixed(2)); }
    }
    for (const { l, r, label } of loops) {
      r.setAttribute("x", (l.first * k).toFixed(2));
      r.setAttribute("width", Math.max(1, (l.last + 1 - l.first) * k).toFixed(2));
      label.setAttribute("x", (l.first * k + 2).toFixed(2));
    }
    const pts = [];
    const from = space.live.from;
    let prev = null;
    for (let i = 0; i < space.live.bytes.length; i++) {
      const v = space.live.bytes[i];
      const xs = ((from + i) * k).toFixed(1);
      if (prev !== null && prev !== v) pts.push(`${xs},${y(prev).toFixed(1)}`);
      if (prev !== v) pts.push(`${xs},${y(v).toFixed(1)}`);
      prev = v;
    }
    if (prev !== null) pts.push(`${((from + space.live.bytes.length) * k).toFixed(1)},${y(prev).toFixed(1)}`);
    live.setAttribute("points", pts.join(" "));
  };
  drawn.update = (settled) => {
    const { x0, x1 } = state.view;
    const k = plotW / (x1 - x0);
    if (drawn.laidK === null || settled) layout(k);
    else if (Math.abs(k / drawn.laidK - 1) > 1e-9) {
      clearTimeout(drawn.relayout);
      drawn.relayout = setTimeout(() => { drawn.update(true); }, 150);
    }
    const scale = k / drawn.laidK;
    plot.setAttribute("transform", `translate(${(LEFT - x0 * k).toFixed(2)},0) scale(${scale.toFixed(6)},1)`);
    const x = (s) => LEFT + (s - x0) * k;
    xticks.textContent = "";
    const span = x1 - x0;
    let tick = 1;
    for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]) {
      tick = m;
      if (span / m <= plotW / 70) break;
    }
    for (let s = Math.ceil(x0 / tick) * tick; s <= x1; s += tick) {
      const line = doc.statements[s];
      xticks.append(svgEl("line", { x1: x(s), x2: x(s), y1: TOP + PLOT_H, y2: TOP + PLOT_H + 4 }));
      xticks.append(svgEl("text", { x: x(s), y: TOP + PLOT_H + 15, "text-anchor": "middle" }, line ? `L${line}` : `#${s}`));
    }
  };
  drawn.update();
  interact(drawn, doc, space, n);
  state.spaces.push(drawn);

  const legend = el("div", { class: "legend" });
  legend.append(
    el("span", {}, swatch("#000"), `live bytes (peak ${bytes(peak)})`),
    el("span", {}, swatch("#15803d"), "lower bound"),
    el("span", {}, swatch("#d62728"), "capacity"),
    el("span", {}, "shaded: loop bodies · hatched: tiles of the two arms of one if (never live together)"),
  );
  box.append(legend);
  parent.append(box);
}

function swatch(colour) {
  const s = el("span", { class: "swatch" });
  s.style.borderColor = colour;
  return s;
}

// A pan in progress: where it started, in which timeline. The window's listeners are added
// once (`start`), not per drawing.
let dragging = null;

function dragMove(e) {
  const d = dragging;
  if (!d) return;
  const dx = e.clientX - d.x;
  if (Math.abs(dx) > 3) { d.moved = true; d.svg.classList.add("dragging"); }
  if (!d.moved) return;
  const per = (d.view.x1 - d.view.x0) / d.plotW;
  panTo(d.view.x0 - dx * per, d.view.x1 - dx * per, d.n);
}

function dragEnd() {
  if (!dragging) return;
  dragging.svg.classList.remove("dragging");
  // The click that ends a drag is not a click on a tile.
  setTimeout(() => { dragging = null; }, 0);
}

// Wheel: zoom around the pointer; drag: pan. Both redraw only the changed attributes.
function interact(drawn, doc, space, n) {
  const { svg, plotW } = drawn;
  const toStatement = (clientX) => {
    const r = svg.getBoundingClientRect();
    const { x0, x1 } = state.view;
    return x0 + ((clientX - r.left - LEFT) / plotW) * (x1 - x0);
  };
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const at = toStatement(e.clientX);
    zoomAt(at, e.deltaY > 0 ? 1.25 : 0.8, n);
  }, { passive: false });
  svg.addEventListener("mousedown", (e) => {
    dragging = { svg, plotW, n, x: e.clientX, view: Object.assign({}, state.view), moved: false };
  });
  svg.addEventListener("mouseover", (e) => {
    const rect = e.target.closest && e.target.closest("rect.tile");
    if (rect) showTooltip(e, doc, space, rect.dataset.tile);
  });
  svg.addEventListener("mousemove", (e) => {
    const rect = e.target.closest && e.target.closest("rect.tile");
    if (rect) showTooltip(e, doc, space, rect.dataset.tile); else hideTooltip();
  });
  svg.addEventListener("mouseleave", hideTooltip);
  svg.addEventListener("click", (e) => {
    if (dragging && dragging.moved) return;
    const rect = e.target.closest && e.target.closest("rect.tile");
    if (rect) clickTile(doc, space, rect.dataset.tile);
  });
}

function zoomAt(at, factor, n) {
  const { x0, x1 } = state.view;
  const span = Math.min(n, Math.max(2, (x1 - x0) * factor));
  const left = at - ((at - x0) / (x1 - x0)) * span;
  panTo(left, left + span, n);
}

function panTo(x0, x1, n) {
  const span = x1 - x0;
  if (x0 < 0) { x0 = 0; x1 = span; }
  if (x1 > n) { x1 = n; x0 = Math.max(0, n - span); }
  state.view = { x0, x1 };
  for (const d of state.spaces) d.update();
}

function findTile(space, name) {
  return space.tiles.find((t) => t.name === name);
}

function lineOf(doc, statement) {
  return doc.statements[statement];
}

function describe(doc, space, t) {
  const buffer = space.buffers[t.buffer];
  const type = doc.types[t.name];
  const others = buffer.members.filter((m) => m !== t.name);
  const defLine = lineOf(doc, t.def), lastLine = lineOf(doc, t.last);
  return {
    title: t.name,
    lines: [
      `${bytes(t.size)} (${t.size} B)${type ? ` · ${type.dtype}[${type.shape.join(", ")}]` : ""}`,
      defLine ? `live over lines ${defLine}–${lastLine || "?"}` : `live over statements ${t.def}..${t.last}`,
      `buffer ${buffer.base}: bytes [${t.offset}, ${t.offset + t.size}) of ${bytes(buffer.size)} at ${buffer.offset}${buffer.pinned ? ", pinned" : ""}`,
      others.length ? `shares it with: ${others.slice(0, 12).join(", ")}${others.length > 12 ? ` … (${others.length} in all)` : ""}` : "alone on its buffer",
      t.arms.length ? `defined in the ${t.arms[0][1] === 0 ? "then" : "else"} arm of the if at line ${doc.ifs[t.arms[0][0]].line}` : "",
    ].filter(Boolean),
  };
}

function showTooltip(e, doc, space, name) {
  const t = findTile(space, name);
  if (!t) return;
  const tip = document.getElementById("tooltip");
  const d = describe(doc, space, t);
  tip.textContent = "";
  tip.append(el("b", {}, d.title));
  for (const line of d.lines) tip.append(el("div", {}, line));
  tip.hidden = false;
  tip.dataset.tile = name;
  const x = Math.min(e.clientX + 14, window.innerWidth - 430);
  tip.style.left = `${Math.max(0, x)}px`;
  tip.style.top = `${e.clientY + 14}px`;
}

function hideTooltip() {
  const tip = document.getElementById("tooltip");
  tip.hidden = true;
  delete tip.dataset.tile;
}

function clickTile(doc, space, name) {
  state.tile = `${space.space}/${name}`;
  if (!state.picks.some((p) => p.name === name && p.space === space.space)) {
    state.picks.push({ space: space.space, name });
    if (state.picks.length > 2) state.picks.shift();
  }
  restoreSelection();
  if (state.picks.length === 2) explainPicks();
}

// Marks the clicked tile, its buffer's members and the picks, and fills the side panel;
// called after every redraw so the selection survives live updates.
function restoreSelection() {
  const doc = state.shown;
  const info = document.getElementById("tile-info");
  const source = document.getElementById("source");
  let found = null;
  for (const d of state.spaces) {
    const [sp, name] = state.tile ? [state.tile.slice(0, state.tile.indexOf("/")), state.tile.slice(state.tile.indexOf("/") + 1)] : [null, null];
    const t = d.space.space === sp ? findTile(d.space, name) : null;
    if (t) found = { d, t };
    const base = t ? d.space.buffers[t.buffer].base : null;
    for (const { t: other, rect } of d.tiles) {
      rect.classList.toggle("selected", !!t && other === t);
      rect.classList.toggle("member", !!t && other !== t && rect.dataset.buffer === base);
      rect.classList.toggle("dim", !!t && rect.dataset.buffer !== base);
      rect.classList.toggle("picked", state.picks.some((p) => p.space === d.space.space && p.name === other.name));
    }
  }
  if (!found) {
    info.textContent = state.tile ? `${state.tile.slice(state.tile.indexOf("/") + 1)} is not in this plan.` : "Click a tile: its source line and its buffer's other members.";
    info.className = "muted";
    source.textContent = "";
    return;
  }
  const { d, t } = found;
  const desc = describe(doc, d.space, t);
  info.className = "";
  info.textContent = "";
  info.append(el("b", {}, desc.title));
  for (const line of desc.lines) info.append(el("div", {}, line));
  source.textContent = "";
  const defLine = lineOf(doc, t.def), lastLine = lineOf(doc, t.last);
  const first = doc.source.first_line;
  if (!defLine) return;
  const from = Math.max(first, defLine - 4), to = Math.min(first + doc.source.lines.length - 1, defLine + 4);
  const show = (a, b) => {
    for (let n = a; n <= b; n++) {
      const text = `${String(n).padStart(5)}  ${doc.source.lines[n - first] ?? ""}\n`;
      const cls = n === defLine ? "hl" : n === lastLine ? "hl-last" : null;
      source.append(cls ? el("span", { class: cls }, text) : text);
    }
  };
  show(from, to);
  if (lastLine && lastLine > to) {
    source.append("  ...\n");
    show(Math.max(to + 1, lastLine - 1), Math.min(first + doc.source.lines.length - 1, lastLine + 1));
  }
  const sourceLine = source.querySelector(".hl");
  if (sourceLine) sourceLine.dataset.line = String(defLine);
}

function explainPicks() {
  const [a, b] = state.picks;
  const box = document.getElementById("explain");
  box.className = "";
  box.textContent = "";
  box.append(el("div", {}, `${a.name} and ${b.name}:`));
  const [path, name] = splitKey(state.selected);
  if (!state.live) {
    box.append(el("div", { class: "muted" }, "This saved page has no server to ask; run:"));
    box.append(el("pre", {}, `memreuse explain ${path}::${name} ${a.name} ${b.name}`));
    return;
  }
  const seq = ++state.explainSeq;
  box.append(el("div", { class: "muted" }, "asking the daemon…"));
  api("explain", { path, name, a: a.name, b: b.name, variant: state.variant }).then((answer) => {
    if (seq !== state.explainSeq) return;
    box.textContent = "";
    box.append(el("div", {}, `${a.name} and ${b.name}:`));
    const verdict = (answer.text || "").split("\n").find((l) => /^(kept apart|no gate|they never share|they are one)/.test(l));
    if (verdict) box.append(el("div", { class: "verdict" }, verdict));
    box.append(el("pre", { class: answer.failed ? "failed" : "" }, (answer.text || "") + (answer.diagnostics || "")));
    box.dataset.pair = `${a.name} ${b.name}`;
  }).catch((err) => {
    if (seq !== state.explainSeq) return;
    box.textContent = `cannot explain: ${err.message}`;
  });
}

// ---- helpers -----------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function bytes(b) {
  if (b === null || b === undefined) return "?";
  if (b >= 1 << 20 && b % (1 << 10) === 0) return `${+(b / (1 << 20)).toFixed(2)} MiB`;
  if (b >= 1024) return `${+(b / 1024).toFixed(1)} KiB`;
  return `${b} B`;
}

// ---- start -------------------------------------------------------------------------------

// The list and the shown function's document are asked for at once.
function refreshAll() {
  const key = state.selected;
  const pending = key && !key.endsWith("::") ? loadFunction(key) : null;
  return loadFiles().then((answer) => {
    state.files = answer.files;
    state.revision = answer.revision;
    renderList();
    setStatus();
    return refreshDetail(state.selected === key ? pending : null);
  });
}

function start() {
  window.addEventListener("mousemove", dragMove);
  window.addEventListener("mouseup", dragEnd);
  document.getElementById("filter").addEventListener("input", (e) => { state.filter = e.target.value; renderList(); });
  document.getElementById("show-empty").addEventListener("change", (e) => { state.showEmpty = e.target.checked; renderList(); });
  for (const th of document.querySelectorAll("#functions th")) {
    th.addEventListener("click", () => {
      const key = th.dataset.sort;
      state.sort = { key, asc: state.sort.key === key ? !state.sort.asc : key === "name" };
      renderList();
    });
  }
  for (const input of document.querySelectorAll("input[name=variant]")) {
    input.addEventListener("change", () => { state.variant = input.value; renderDetail(); });
  }
  const wanted = decodeURIComponent(location.hash.slice(1));
  refreshAll().then(() => {
    if (!state.selected) {
      const first = rows().flatMap((r) => r.fns)[0];
      const key = wanted && (wanted.includes("::") ? wanted : null);
      // `memreuse view PATH`: the first function of that file, or of the first file below
      // that directory.
      const inPath = (f) => f.path === wanted || f.path.startsWith(`${wanted.replace(/\/$/, "")}/`);
      const broken = wanted && state.files.find((f) => f.path === wanted && f.diagnostics.length);
      const match = key || (wanted ? (rows().flatMap((r) => r.fns).find(inPath) || {}).key : null) || (broken ? `${broken.path}::` : null);
      if (match || first) return select(match || first.key);
    }
  }).then(() => { document.body.dataset.ready = "1"; }).catch((err) => {
    document.getElementById("status").textContent = `cannot load: ${err.message}`;
    document.body.dataset.ready = "error";
  });
  if (state.live) {
    const events = new EventSource(`api/events?${new URLSearchParams({ token })}`);
    events.addEventListener("revision", (e) => {
      const revision = JSON.parse(e.data).revision;
      if (revision === state.revision) return;
      refreshAll().then(() => { document.body.dataset.updates = String((+document.body.dataset.updates || 0) + 1); });
    });
    events.onerror = () => { document.getElementById("status").textContent = "disconnected from the daemon (retrying)"; };
  }
}

// For tests and measurements from the browser: what is drawn, and timed redraws.
window.memreuseViewer = {
  state,
  select,
  renderDetail,
  zoomAt,
  panTo,
  // Lays every tile out again at the current zoom (what the page does once a zoom settles).
  relayout: () => { for (const d of state.spaces) d.update(true); },
};

start();
