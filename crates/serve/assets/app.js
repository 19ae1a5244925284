// huarong serve: the page. Plain JavaScript and SVG; every answer comes from the JSON API
// (docs/SERVE.md). The position lives in the URL's hash, so a link shares it.
"use strict";

const CELL = 64;
const GAP = 4;
const COLOURS = ["#d9534f", "#5b8fd6", "#5cb85c", "#e0a030", "#9b59b6", "#1abc9c",
  "#e67e22", "#7f8c8d", "#c0392b", "#2c3e50", "#16a085", "#8e44ad"];
const SVG = "http://www.w3.org/2000/svg";

const $ = (id) => document.getElementById(id);
let ask = {};          // what names the position: {layout} | {puzzle, position} | {text, position}
let metric = null;     // null: the server's default
let current = null;    // the last /api/position answer
let selected = null;   // the piece whose destinations are shown
let hinted = null;     // the hinted move's position
let path = null;       // the solution being played: positions
let step = 0;
let timer = null;

function query(a) {
  const p = new URLSearchParams();
  for (const k of ["layout", "puzzle", "position", "metric"]) if (a[k]) p.set(k, a[k]);
  return p.toString();
}

async function api(kind, a) {
  const full = Object.assign({}, a, metric ? { metric } : {});
  const res = a.text
    ? await fetch(`/api/${kind}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(full) })
    : await fetch(`/api/${kind}?${query(full)}`);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function hashOf(a) {
  const p = new URLSearchParams();
  for (const k of ["layout", "puzzle", "text", "position"]) if (a[k]) p.set(k, a[k]);
  if (metric) p.set("metric", metric);
  return "#" + p.toString();
}

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const a = {};
  for (const k of ["layout", "puzzle", "text", "position"]) if (p.get(k)) a[k] = p.get(k);
  metric = p.get("metric");
  return a;
}

// Moves to `a` (keeping the puzzle), shows it and records it in the URL.
async function go(a, keepPath) {
  if (!keepPath) stopPath();
  ask = a;
  history.replaceState(null, "", hashOf(a));
  await show();
}

// The same puzzle, another position.
function positionAsk(position) {
  if (ask.layout !== undefined) return { layout: position };
  const a = Object.assign({}, ask);
  a.position = position;
  return a;
}

async function show() {
  $("error").textContent = "";
  try {
    current = await api("position", ask);
  } catch (e) {
    $("error").textContent = e.message;
    return;
  }
  selected = null;
  hinted = null;
  metric = current.metric;
  history.replaceState(null, "", hashOf(ask));
  drawMetrics();
  drawStatus();
  drawBoard();
  drawMoves();
}

function drawMetrics() {
  const sel = $("metric");
  sel.innerHTML = "";
  for (const m of current.metrics) {
    const o = document.createElement("option");
    o.value = m; o.textContent = m; o.selected = m === current.metric;
    sel.appendChild(o);
  }
}

function drawStatus() {
  const d = current.distance;
  const el = $("distance");
  el.dataset.distance = d === null ? "" : String(d);
  el.textContent = d === null ? "∞" : String(d);
  $("verdict").textContent = current.goal
    ? "— solved: this is a goal position"
    : d === null
      ? "— unsolvable: no goal is reachable from this position"
      : `move${d === 1 ? "" : "s"} to the goal (${current.metric} metric)`;
  const c = current.component;
  const comp = $("component");
  comp.innerHTML = "";
  comp.append(`Component: ${c.size.toLocaleString()} positions. `);
  const a = document.createElement("a");
  a.id = "farthest";
  a.href = hashOf(positionAsk(c.farthest));
  a.textContent = c.farthest_distance === null
    ? "a representative position"
    : `its farthest position (${c.farthest_distance} moves)`;
  a.onclick = (e) => { e.preventDefault(); go(positionAsk(c.farthest)); };
  comp.append(a);
  // dnomd343/klotski's names of a Huarong Dao position (pasting either loads it too).
  const codes = current.codes || {};
  $("codes").textContent = codes.common_code
    ? `CommonCode ${codes.common_code} · ShortCode ${codes.short_code}`
    : "";
  const s = current.source;
  $("source").textContent = s.tables !== undefined
    ? `Distances from the tables in ${s.tables}`
    : `No tables hold this space: its component was explored now (${s.explored.toLocaleString()} positions).`;
  $("progress").textContent = path ? `${step} / ${path.length - 1}` : "";
  $("back").disabled = !path || step === 0;
  $("step").disabled = !path || step === path.length - 1;
  $("playpause").disabled = !path;
  $("hint").disabled = !(d > 0);
  $("solve").disabled = !(d > 0) && !path;
}

function el(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function drawBoard() {
  const p = current.picture;
  const svg = $("board");
  svg.innerHTML = "";
  svg.setAttribute("width", p.cols * CELL + 2 * GAP);
  svg.setAttribute("height", p.rows * CELL + 2 * GAP + 8);
  svg.dataset.position = current.position;
  const at = (r, c) => (r < 0 || c < 0 || r >= p.rows || c >= p.cols) ? -3 : p.cells[r * p.cols + c];
  svg.appendChild(el("rect", { x: 0, y: 0, width: p.cols * CELL + 2 * GAP, height: p.rows * CELL + 2 * GAP, fill: "#3b2f2f", rx: 6 }));
  if (p.exit) {
    svg.appendChild(el("rect", { x: GAP + p.exit[0] * CELL, y: p.rows * CELL + GAP, width: (p.exit[1] - p.exit[0]) * CELL, height: GAP + 8, fill: "#f6f4ef" }));
  }
  svg.appendChild(el("rect", { x: GAP, y: GAP, width: p.cols * CELL, height: p.rows * CELL, fill: "#efe6d2" }));
  const cellRect = (r, c, same, attrs) => {
    const x0 = c * CELL + (same(r, c - 1) ? 0 : GAP), x1 = (c + 1) * CELL - (same(r, c + 1) ? 0 : GAP);
    const y0 = r * CELL + (same(r - 1, c) ? 0 : GAP), y1 = (r + 1) * CELL - (same(r + 1, c) ? 0 : GAP);
    return el("rect", Object.assign({ x: x0 + GAP, y: y0 + GAP, width: x1 - x0, height: y1 - y0 }, attrs));
  };
  for (let r = 0; r < p.rows; r++) {
    for (let c = 0; c < p.cols; c++) {
      const k = at(r, c);
      if (k === -2) {
        svg.appendChild(el("rect", { x: c * CELL + GAP, y: r * CELL + GAP, width: CELL, height: CELL, fill: "#555" }));
      } else if (k >= 0) {
        const look = p.pieces[k];
        const rect = cellRect(r, c, (rr, cc) => at(rr, cc) === k, {
          class: "piece" + (selected === k ? " selected" : ""),
          fill: COLOURS[look.class % COLOURS.length],
          "data-piece": k,
        });
        svg.appendChild(rect);
      }
    }
  }
  // Labels after every cell, so no cell of a piece covers its label.
  p.pieces.forEach((look, k) => {
    const cells = [];
    p.cells.forEach((v, i) => { if (v === k) cells.push(i); });
    if (!cells.length) return;
    const rs = cells.map((i) => Math.floor(i / p.cols)), cs = cells.map((i) => i % p.cols);
    const box = cells.length === (Math.max(...rs) - Math.min(...rs) + 1) * (Math.max(...cs) - Math.min(...cs) + 1);
    const cx = box ? (Math.min(...cs) + Math.max(...cs) + 1) / 2 : cs[0] + 0.5;
    const cy = box ? (Math.min(...rs) + Math.max(...rs) + 1) / 2 : rs[0] + 0.5;
    const t = el("text", { x: cx * CELL + GAP, y: cy * CELL + GAP + 7, "text-anchor": "middle", "font-size": 22, fill: "#fff" });
    t.textContent = look.label;
    svg.appendChild(t);
  });
  // Destinations of the selected piece (or the hinted move), coloured by what they lead to.
  const shown = current.moves.filter((m) => (selected !== null && m.piece === selected) || m.position === hinted);
  for (const m of shown) {
    const set = new Set(m.cells);
    const same = (rr, cc) => rr >= 0 && cc >= 0 && rr < p.rows && cc < p.cols && set.has(rr * p.cols + cc);
    const g = el("g", { class: "ghost-move", "data-position": m.position });
    for (const i of m.cells) {
      g.appendChild(cellRect(Math.floor(i / p.cols), i % p.cols, same, { class: "ghost " + m.change, "data-position": m.position }));
    }
    const i = m.cells[0];
    const t = el("text", { x: (i % p.cols + 0.5) * CELL + GAP, y: (Math.floor(i / p.cols) + 0.5) * CELL + GAP + 6, "text-anchor": "middle", "font-size": 18, fill: "#222" });
    t.textContent = m.distance === null ? "∞" : String(m.distance);
    g.appendChild(t);
    svg.appendChild(g);
  }
}

function describe(m) {
  if (m.piece === null || m.piece === undefined) return m.position;
  const p = current.picture;
  const at = (i) => `${Math.floor(i / p.cols)},${i % p.cols}`;
  const from = p.cells.indexOf(m.piece);
  return `${p.pieces[m.piece].label} ${at(from)} → ${at(m.cells[0])}`;
}

function drawMoves() {
  const ol = $("moves");
  ol.innerHTML = "";
  for (const m of current.moves) {
    const li = document.createElement("li");
    li.className = m.change + (m.position === hinted ? " hinted" : "");
    li.dataset.position = m.position;
    li.dataset.distance = m.distance === null ? "" : String(m.distance);
    li.textContent = `${describe(m)}   ${m.distance === null ? "∞" : m.distance} (${m.change})`;
    li.onclick = () => go(positionAsk(m.position));
    ol.appendChild(li);
  }
}

$("board").addEventListener("click", (e) => {
  if (!current) return;
  const t = e.target;
  if (t.dataset && t.dataset.position) {
    go(positionAsk(t.dataset.position));
    return;
  }
  if (t.dataset && t.dataset.piece !== undefined) {
    const k = Number(t.dataset.piece);
    const moves = current.moves.filter((m) => m.piece === k);
    if (moves.length === 1) {
      go(positionAsk(moves[0].position));
    } else {
      selected = moves.length ? k : null;
      $("error").textContent = moves.length ? "" : "That piece cannot move.";
      drawBoard();
    }
  }
});

$("hint").onclick = () => {
  if (!current || !(current.distance > 0)) return;
  const best = current.moves.find((m) => m.distance === current.distance - 1);
  hinted = best ? best.position : null;
  selected = null;
  drawBoard();
  drawMoves();
};

$("solve").onclick = async () => {
  $("error").textContent = "";
  try {
    const s = await api("solve", ask);
    if (!s.solvable) { $("error").textContent = "No goal is reachable from this position."; return; }
    path = s.path.map((p) => p.position);
    step = 0;
    drawStatus();
  } catch (e) {
    $("error").textContent = e.message;
  }
};

function stopPath() {
  if (timer) clearInterval(timer);
  timer = null;
  path = null;
  $("playpause").textContent = "Play";
}

async function toStep(i) {
  step = i;
  await go(positionAsk(path[step]), true);
}

$("step").onclick = () => { if (path && step < path.length - 1) toStep(step + 1); };
$("back").onclick = () => { if (path && step > 0) toStep(step - 1); };
$("playpause").onclick = () => {
  if (!path) return;
  if (timer) { clearInterval(timer); timer = null; $("playpause").textContent = "Play"; return; }
  $("playpause").textContent = "Pause";
  timer = setInterval(async () => {
    if (step >= path.length - 1) { clearInterval(timer); timer = null; $("playpause").textContent = "Play"; return; }
    await toStep(step + 1);
  }, 350);
};

$("metric").onchange = () => { metric = $("metric").value; stopPath(); show(); };

$("choice").onchange = () => {
  const v = $("choice").value;
  if (v.startsWith("layout:")) go({ layout: v.slice(7) });
  else if (v.startsWith("puzzle:")) go({ puzzle: v.slice(7) });
};

$("load").onclick = () => {
  const text = $("pasted").value.trim();
  if (!text) return;
  // A puzzle file has a board; anything else is a layout.
  go(/board\s*=/.test(text) ? { text } : { layout: text });
};

// The puzzles view: the puzzle databases of the table folders (GET /api/puzzles), each row a
// link to its position.
const SHOWN = 50;

async function drawPuzzles() {
  const p = new URLSearchParams({ limit: String(SHOWN) });
  if ($("db-metric").value) p.set("metric", $("db-metric").value);
  if ($("db-set").value) p.set("piece_set", $("db-set").value);
  const body = await (await fetch(`/api/puzzles?${p}`)).json();
  const list = $("db-rows");
  list.replaceChildren();
  let matching = 0;
  for (const d of body.databases) {
    const col = (name) => d.columns.indexOf(name);
    matching += d.matching;
    for (const r of d.rows) {
      const m = r[col("metric")];
      const a = document.createElement("a");
      a.href = "#" + new URLSearchParams({ layout: r[col("layout")], metric: m }).toString();
      a.textContent = `${r[col("moves")]} (${m}) ${r[col("piece_set")]} ${r[col("layout")]}`;
      a.className = "puzzle";
      const li = document.createElement("li");
      li.appendChild(a);
      list.appendChild(li);
    }
  }
  $("db-count").textContent = matching > SHOWN
    ? `${matching} puzzles; the first ${SHOWN} shown`
    : `${matching} puzzles`;
}

async function startPuzzles(cat) {
  if (!cat.databases || !cat.databases.length) return;
  const body = await (await fetch("/api/puzzles?limit=0")).json();
  const fill = (sel, values, all) => {
    const o = document.createElement("option");
    o.value = "";
    o.textContent = all;
    sel.appendChild(o);
    for (const v of values) {
      const x = document.createElement("option");
      x.value = v;
      x.textContent = v;
      sel.appendChild(x);
    }
  };
  const union = (key) => [...new Set(body.databases.flatMap((d) => d[key]))];
  fill($("db-metric"), union("metrics"), "every metric");
  fill($("db-set"), union("piece_sets"), "every piece set");
  $("db-metric").onchange = drawPuzzles;
  $("db-set").onchange = drawPuzzles;
  $("puzzles").hidden = false;
  await drawPuzzles();
}

async function start() {
  const cat = await (await fetch("/api/catalog")).json();
  const sel = $("choice");
  const group = (label) => { const g = document.createElement("optgroup"); g.label = label; sel.appendChild(g); return g; };
  const option = (g, value, text) => { const o = document.createElement("option"); o.value = value; o.textContent = text; g.appendChild(o); };
  const named = group("Named layouts");
  for (const n of cat.named) option(named, "layout:" + n.layout, `${n.name}  ${n.layout}`);
  const files = group("Puzzle files");
  for (const p of cat.puzzles) option(files, "puzzle:" + p.id, p.name);
  const a = readHash();
  const first = cat.named.length ? { layout: cat.named[0].layout } : cat.puzzles.length ? { puzzle: cat.puzzles[0].id } : null;
  const chosen = Object.keys(a).length ? a : first;
  if (chosen) await go(chosen);
  await startPuzzles(cat);
}

window.addEventListener("hashchange", () => { const a = readHash(); if (Object.keys(a).length) go(a); });
start();
