// The analysis board (docs/server.md, "The analysis board"): set up any position, step through a
// game record with its evaluation graph, and watch the engine's board search deepen live.
// Plain ES module, no build step; every server string goes into the page as text.
import { glyphSVG, SIDE_NAMES, COLOURS } from "./glyphs.js";
import { $, h, svg, clear, squareName, api, showError } from "./dom.js";

const START_TEXT = "startpos";
const TOKEN_KEY_PREFIX = "ftc.token.";

const app = {
  catalog: {},          // token -> unit
  tokens: [],           // catalog order
  pos: null,            // the server's description of the position shown (POST /api/analysis/position)
  units: new Map(),     // square -> {token, colour}: the editor's board
  barracks: [{}, {}],   // per colour: token -> count
  flip: false,
  armed: null,          // a palette unit to place by clicking squares: {token, colour}
  ws: null,
  limits: null,
  engineOn: false,      // analyse every position shown (until Stop)
  searchId: null,       // the search whose messages are shown
  lines: [],
  lastMove: null,       // {origin, dest} of the game move leading here
  walk: null,           // a loaded game: {moves, boards, board_at, evaluations, result, place}
  boardCache: new Map(),
};

// -- small helpers -------------------------------------------------------------------------------
const unitName = (token) => (app.catalog[token] ? app.catalog[token].name : token);
/** A unit's token in position text: Blue's as in the catalog, Yellow's in lower case ("~b"). */
const tokenText = (token, colour) => (colour === 0 ? token : token.toLowerCase());

// -- the position -----------------------------------------------------------------------------------
/** The editor's position as text (RULINGS A3), keeping the clocks and the stock/promote fields of
 * the position it was made from; status flags are dropped once the board is edited. */
function editorText() {
  const ranks = [];
  for (let r = 7; r >= 0; r--) {
    let row = "";
    let empty = 0;
    for (let f = 0; f < 8; f++) {
      const u = app.units.get(r * 8 + f);
      if (!u) {
        empty += 1;
        continue;
      }
      if (empty) row += String(empty);
      empty = 0;
      row += tokenText(u.token, u.colour);
    }
    if (empty) row += String(empty);
    ranks.push(row);
  }
  let barracks = "";
  for (const colour of [0, 1]) {
    for (const token of app.tokens) barracks += tokenText(token, colour).repeat(app.barracks[colour][token] || 0);
  }
  const fields = app.pos ? app.pos.position.split(/\s+/) : [];
  const clocks = fields.length >= 6 ? fields.slice(4, 6) : ["0", "1"];
  const extras = fields.slice(6).filter((f) => !f.startsWith("status:"));
  return [ranks.join("/") + (barracks ? `[${barracks}]` : ""), $("#side").value, "-", "-", ...clocks, ...extras].join(" ");
}

/** Show the position the server read from ``text``; false (and the server's message shown) when it
 * refused it: the board stays as it was. */
async function setPosition(text, { lastMove = null, keepWalk = false } = {}) {
  // Answers can come back out of order (two quick edits): only the latest request's is shown.
  // body[data-position=pending] while an answer is awaited: it rewrites the position text box.
  const asked = (app.positionRequest = (app.positionRequest || 0) + 1);
  document.body.dataset.position = "pending";
  let pos;
  try {
    pos = await api("POST", "/api/analysis/position", { text, compass: $("#compass").checked });
  } catch (exc) {
    if (asked !== app.positionRequest) return false;
    document.body.dataset.position = "shown";
    showError(`position: ${exc.detail || exc.message}`);
    renderAll();
    return false;
  }
  if (asked !== app.positionRequest) return false;
  document.body.dataset.position = "shown";
  showError(null);
  app.pos = pos;
  app.units = new Map(pos.units.map((u) => [u.square, { token: u.token, colour: u.colour }]));
  app.barracks = [{ ...pos.barracks[0] }, { ...pos.barracks[1] }];
  app.lastMove = lastMove;
  if (!keepWalk && app.walk) markPlace(null);
  $("#side").value = pos.side;
  $("#position-text").value = pos.position;
  const info = pos.over ? "the game is over: a side has no Sovereign (C2)" : `${SIDE_NAMES[pos.side === "w" ? 0 : 1]} to move, ${pos.orders} orders`;
  $("#position-info").textContent = info;
  app.lines = [];
  app.shownScore = null;
  renderEvalBar(null);
  renderAll();
  if (app.engineOn && $("#follow").checked) analyzeSoon();
  return true;
}

function edit(change) {
  change();
  setPosition(editorText());
}

// -- the board ----------------------------------------------------------------------------------
function boardRows() {
  const rows = [];
  for (let r = 0; r < 8; r++) {
    const rank = app.flip ? r : 7 - r;
    const row = [];
    for (let f = 0; f < 8; f++) row.push(rank * 8 + (app.flip ? 7 - f : f));
    rows.push(row);
  }
  return rows;
}

function dragData(event) {
  try {
    return JSON.parse(event.dataTransfer.getData("text/plain"));
  } catch (exc) {
    return null;
  }
}

function startDrag(event, item) {
  event.dataTransfer.setData("text/plain", JSON.stringify(item));
  event.dataTransfer.effectAllowed = "move";
  app.dragging = item;
}

/** What a drag from ``item`` takes away from where it came from (a palette unit is never used up). */
function takeFrom(item) {
  if (item.from === "square") app.units.delete(item.square);
  if (item.from === "barracks") {
    const n = (app.barracks[item.colour][item.token] || 0) - 1;
    if (n > 0) app.barracks[item.colour][item.token] = n;
    else delete app.barracks[item.colour][item.token];
  }
}

function dropOnSquare(sq, item) {
  if (!item || !item.token) return;
  if (item.from === "square" && item.square === sq) return;
  edit(() => {
    takeFrom(item);
    app.units.set(sq, { token: item.token, colour: item.colour });
  });
}

function dropOnBarracks(colour, item) {
  if (!item || !item.token) return;
  if (item.from === "barracks" && item.colour === colour) return;
  edit(() => {
    takeFrom(item);
    app.barracks[colour][item.token] = (app.barracks[colour][item.token] || 0) + 1;
  });
}

function removeFrom(item) {
  edit(() => takeFrom(item));
}

function renderBoard() {
  const board = clear($("#board"));
  const files = app.flip ? "hgfedcba" : "abcdefgh";
  const last = app.lastMove;
  boardRows().forEach((row, r) => {
    board.append(h("div", { class: "label rank" }, String(app.flip ? r + 1 : 8 - r)));
    for (const sq of row) {
      const name = squareName(sq);
      const light = (Math.floor(sq / 8) + (sq % 8)) % 2 === 1;
      const unit = app.units.get(sq);
      const cls = ["sq", light ? "light" : "dark", unit ? "occupied" : "empty"];
      if (last && (last.origin === sq || last.dest === sq)) cls.push("last-move");
      const cell = h("div", {
        class: cls.join(" "),
        role: "gridcell",
        dataset: { square: String(sq), name },
        title: unit ? `${name}: ${SIDE_NAMES[unit.colour]} ${unitName(unit.token)}` : name,
        ondragover: (event) => event.preventDefault(),
        ondrop: (event) => {
          event.preventDefault();
          const item = dragData(event);
          app.dragging = null;
          dropOnSquare(sq, item);
        },
        onclick: () => {
          if (app.armed) dropOnSquare(sq, { from: "palette", ...app.armed });
        },
        oncontextmenu: (event) => {
          event.preventDefault();
          if (app.units.has(sq)) removeFrom({ from: "square", square: sq });
        },
      });
      if (unit) {
        const item = { from: "square", square: sq, token: unit.token, colour: unit.colour };
        const holder = h("div", {
          class: "unit",
          draggable: "true",
          dataset: { token: unit.token, colour: String(unit.colour) },
          ondragstart: (event) => startDrag(event, item),
          ondragend: (event) => {
            // Dropped off the board (nowhere that takes it): the unit is removed.
            if (event.dataTransfer.dropEffect === "none" && app.dragging) removeFrom(item);
            app.dragging = null;
          },
        });
        holder.append(glyphSVG(unit.token, unit.colour, `${SIDE_NAMES[unit.colour]} ${unitName(unit.token)}`));
        cell.append(holder);
      }
      board.append(cell);
    }
  });
  board.append(h("div", { class: "label" }));
  for (const f of files) board.append(h("div", { class: "label file" }, f));
}

function renderBarracks() {
  const rows = app.flip ? [["#barracks-top", 0], ["#barracks-bottom", 1]] : [["#barracks-top", 1], ["#barracks-bottom", 0]];
  for (const [sel, colour] of rows) {
    const row = clear($(sel));
    row.dataset.colour = String(colour);
    row.ondragover = (event) => event.preventDefault();
    row.ondrop = (event) => {
      event.preventDefault();
      const item = dragData(event);
      app.dragging = null;
      dropOnBarracks(colour, item);
    };
    row.append(h("span", { class: "row-label" }, `${SIDE_NAMES[colour]}'s Barracks`));
    const counts = app.barracks[colour];
    const tokens = app.tokens.filter((t) => counts[t]);
    if (!tokens.length) row.append(h("span", { class: "empty-note" }, "empty: drop units here"));
    for (const token of tokens) {
      const item = { from: "barracks", colour, token };
      row.append(h("span", {
        class: "unit-chip",
        draggable: "true",
        title: `${SIDE_NAMES[colour]} ${unitName(token)} \u00d7${counts[token]} (right-click: remove one)`,
        dataset: { token, colour: String(colour) },
        ondragstart: (event) => startDrag(event, item),
        ondragend: (event) => {
          if (event.dataTransfer.dropEffect === "none" && app.dragging) removeFrom(item);
          app.dragging = null;
        },
        oncontextmenu: (event) => {
          event.preventDefault();
          removeFrom(item);
        },
      }, glyphSVG(token, colour, unitName(token)), h("span", { class: "count" }, `\u00d7${counts[token]}`)));
    }
  }
}

function renderPalette() {
  for (const colour of [0, 1]) {
    const box = clear($(`#palette-${colour}`));
    box.append(h("span", { class: "row-label" }, SIDE_NAMES[colour]));
    for (const token of app.tokens) {
      const armed = app.armed && app.armed.token === token && app.armed.colour === colour;
      box.append(h("span", {
        class: `unit-chip palette-unit${armed ? " selected" : ""}`,
        draggable: "true",
        title: `${SIDE_NAMES[colour]} ${unitName(token)} (${token}): drag onto the board, or click and then click squares`,
        dataset: { token, colour: String(colour) },
        ondragstart: (event) => startDrag(event, { from: "palette", token, colour }),
        onclick: () => {
          app.armed = armed ? null : { token, colour };
          renderPalette();
        },
      }, glyphSVG(token, colour, unitName(token))));
    }
  }
}

// -- the engine's lines: arrows, evaluation bar, list ---------------------------------------------
function squareCentre(sq) {
  const file = sq % 8;
  const rank = Math.floor(sq / 8);
  const col = app.flip ? 7 - file : file;
  const row = app.flip ? rank : 7 - rank;
  return [col + 0.5, row + 0.5];
}

function renderArrows() {
  const layer = clear($("#arrows"));
  layer.setAttribute("viewBox", "0 0 8 8");
  const defs = svg("defs");
  for (const [id, colour] of [["head-best", "#0b7285"], ["head-other", "#495057"]]) {
    const marker = svg("marker", { id, viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M0 0 L10 5 L0 10 z", fill: colour }));
    defs.append(marker);
  }
  layer.append(defs);
  const shown = app.lines.filter((l) => l.dest !== null && l.dest !== undefined);
  const labels = [];           // [text element, x, y] by rank, best first
  // Worst first, so the best arrow is drawn on top.
  shown.map((line, rank) => ({ line, rank })).reverse().forEach(({ line, rank }) => {
    const best = rank === 0;
    const colour = best ? "#0b7285" : "#495057";
    const group = svg("g", { class: `arrow${best ? " best" : ""}`, "data-order": line.order, opacity: best ? 0.9 : 0.55 });
    const [x2, y2] = squareCentre(line.dest);
    if (line.origin === null) {
      // A deploy from the Barracks: a ring on the square with the unit's token.
      group.append(svg("circle", { cx: x2, cy: y2, r: 0.36, fill: "none", stroke: colour, "stroke-width": best ? 0.12 : 0.07 }));
    } else {
      const [x1, y1] = squareCentre(line.origin);
      const width = best ? 0.16 : 0.09;
      const segment = (ax, ay, bx, by, head) => {
        const len = Math.hypot(bx - ax, by - ay) || 1;
        const back = head ? 0.25 : 0;          // stop short of the centre, under the arrowhead
        group.append(svg("line", {
          x1: ax, y1: ay, x2: bx - ((bx - ax) / len) * back, y2: by - ((by - ay) / len) * back,
          stroke: colour, "stroke-width": width, "stroke-linecap": "round",
          "marker-end": head ? `url(#${best ? "head-best" : "head-other"})` : null,
        }));
      };
      // A unit that moves cylindrically (Compass mode, or an expansion unit) and goes more than half
      // the board sideways went round the a/h edge (the order is the same either way): drawn so.
      const round = ($("#compass").checked || (line.unit || "").startsWith("~")) && Math.abs(x2 - x1) > 4;
      if (round) {
        const dx = x2 > x1 ? x2 - x1 - 8 : x2 - x1 + 8;
        const edge = dx < 0 ? 0 : 8;
        const yEdge = y1 + ((y2 - y1) * (edge - x1)) / dx;
        segment(x1, y1, edge, yEdge, false);
        segment(8 - edge, yEdge, x2, y2, true);
        group.setAttribute("data-round", "1");
      } else {
        segment(x1, y1, x2, y2, true);
      }
    }
    const label = svg("text", { x: x2, y: y2 - 0.3, "text-anchor": "middle", "font-size": best ? 0.3 : 0.24, class: "arrow-label" });
    label.textContent = line.blue_text;
    group.append(label);
    layer.append(group);
    labels[rank] = [label, x2, y2];
  });
  placeLabels(labels);
}

// Where a score label may go round its arrow's destination (board squares; y grows downwards): above
// the square's centre first, then below, the sides, and further out.
const LABEL_SPOTS = [[0, -0.3], [0, 0.42], [-0.5, 0.06], [0.5, 0.06], [0, -0.62], [0, 0.74], [-0.5, -0.3], [0.5, -0.3],
  [-0.5, 0.42], [0.5, 0.42], [0, -0.94], [0, 1.06]];
const LABEL_GAP = 0.05;

/** Place the score labels, the best line's first, each at the first spot round its destination where
 *  it overlaps no label placed before it (with a small gap) and stays on the board; if no spot is free,
 *  the first one. Measured with getBBox, so the labels' real widths count. */
function placeLabels(labels) {
  const placed = [];
  const overlaps = (a, b) => a.x < b.x + b.width + LABEL_GAP && b.x < a.x + a.width + LABEL_GAP
    && a.y < b.y + b.height + LABEL_GAP && b.y < a.y + a.height + LABEL_GAP;
  for (const entry of labels) {
    if (!entry) continue;
    const [label, x, y] = entry;
    let chosen = null;
    for (const [dx, dy] of LABEL_SPOTS) {
      label.setAttribute("x", x + dx);
      label.setAttribute("y", y + dy);
      let box = label.getBBox();
      // Keep it on the board: shift sideways back inside, and skip a spot above or below the board.
      const shift = box.x < 0 ? -box.x : box.x + box.width > 8 ? 8 - box.x - box.width : 0;
      if (shift) {
        label.setAttribute("x", x + dx + shift);
        box = label.getBBox();
      }
      if (box.y < 0 || box.y + box.height > 8) continue;
      const spot = { x: box.x, y: box.y, width: box.width, height: box.height, at: [x + dx + shift, y + dy] };
      if (!chosen) chosen = spot;
      if (!placed.some((other) => overlaps(spot, other))) {
        chosen = spot;
        break;
      }
    }
    if (!chosen) continue;
    label.setAttribute("x", chosen.at[0]);
    label.setAttribute("y", chosen.at[1]);
    placed.push(chosen);
  }
}

function evalFraction(message) {
  if (message.mate) return message.blue > 0 ? 1 : 0;
  return 0.5 + 0.5 * Math.tanh(message.blue / 100 / 4);
}

function renderEvalBar(message) {
  const bar = $("#eval-bar");
  const fill = $("#eval-fill");
  const text = $("#eval-text");
  bar.classList.toggle("flipped", app.flip);
  if (!message) {
    fill.style.height = "50%";
    text.textContent = "-";
    bar.dataset.score = "";
    return;
  }
  fill.style.height = `${(evalFraction(message) * 100).toFixed(1)}%`;
  text.textContent = message.blue_text;
  bar.dataset.score = message.blue_text;
  bar.title = `${message.blue_text} for Blue (${message.mate ? "a forced Sovereign capture" : "points"}), depth ${message.depth}`;
}

function renderLines() {
  const list = clear($("#lines"));
  for (const line of app.lines) {
    list.append(h("li", { dataset: { order: line.order } },
      h("span", { class: "line-score" }, line.blue_text),
      h("span", { class: "line-pv" }, line.pv.join(" "))));
  }
}

function renderAll() {
  renderBoard();
  renderBarracks();
  renderArrows();
  renderLines();
}

// -- the engine's socket -------------------------------------------------------------------------------
function setConn(up) {
  const conn = $("#conn");
  conn.className = up ? "up" : "down";
  conn.textContent = up ? "engine" : "offline";
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/api/analysis/ws`);
  app.ws = ws;
  ws.onopen = () => setConn(true);
  ws.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (exc) {
      return;
    }
    onMessage(message);
  };
  ws.onclose = (event) => {
    setConn(false);
    setAnalysing(false);
    if (event.code === 4429) showError(`engine: ${event.reason || "too many analysis sockets"}`);
    if (app.ws === ws) setTimeout(() => { if (app.ws === ws) connect(); }, 3000);
  };
}

function setAnalysing(running) {
  document.body.dataset.analysis = running ? "running" : (app.lines.length ? "done" : "idle");
  $("#stop").disabled = !running;
}

function onMessage(m) {
  if (m.type === "hello") {
    app.limits = m.limits;
    app.searchId = null;
    $("#depth").max = String(m.limits.max_depth);
    $("#seconds").max = String(m.limits.max_seconds);
    $("#top").max = String(m.limits.max_top);
    if (app.engineOn) analyze();
    return;
  }
  if (m.type === "error") {
    showError(`engine: ${m.error}`);               // a refused message leaves the running search as it was
    if (m.id !== null && m.id === app.searchId) setAnalysing(false);
    return;
  }
  // The socket's searches are numbered in the order they were asked for: show the latest only.
  if (m.type === "started") app.searchId = m.id;
  if (m.id !== app.searchId) return;
  if (m.type === "started") {
    $("#search-info").textContent = `searching ${m.orders} orders\u2026`;
    $("#evaluation-info").textContent = `evaluation: ${m.evaluation}`;
    setAnalysing(true);
  } else if (m.type === "depth" || m.type === "done") {
    app.lines = m.lines;
    renderArrows();
    renderLines();
    app.shownScore = m;
    renderEvalBar(m);
    const state = m.type === "done" ? (m.stopped ? "stopped" : "finished") : "searching";
    $("#search-info").textContent = `${state}: depth ${m.depth} (selective ${m.seldepth}), ${m.nodes.toLocaleString()} nodes, ${m.nps.toLocaleString()} nodes/s, ${m.seconds.toFixed(2)} s`;
    document.body.dataset.depth = String(m.depth);
    if (m.type === "done") {
      setAnalysing(false);
      if (!m.lines.length) $("#search-info").textContent = "no legal order: the game is over";
    }
  }
}

function numberField(sel) {
  const value = $(sel).value.trim();
  return value === "" ? null : Number(value);
}

function analyze() {
  clearTimeout(app.soon);
  app.engineOn = true;
  if (!app.pos) return;
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) {
    showError("engine: not connected yet; it starts when the socket is up");
    return;
  }
  const message = { type: "analyze", position: app.pos.position, compass: $("#compass").checked, top: numberField("#top") ?? 3 };
  const depth = numberField("#depth");
  const seconds = numberField("#seconds");
  if (depth !== null) message.depth = depth;
  if (seconds !== null) message.seconds = seconds;
  if ($("#evaluation").value) message.eval = $("#evaluation").value;
  app.ws.send(JSON.stringify(message));
}

/** Analyse once changes pause (stepping through a game with a held arrow key sends one search). */
function analyzeSoon() {
  clearTimeout(app.soon);
  app.soon = setTimeout(analyze, 150);
}

function stop() {
  app.engineOn = false;
  clearTimeout(app.soon);
  if (app.ws && app.ws.readyState === WebSocket.OPEN) app.ws.send(JSON.stringify({ type: "stop" }));
}

// -- game records -------------------------------------------------------------------------------------
async function loadRecord(record) {
  let walk;
  try {
    walk = await api("POST", "/api/analysis/record", record);
  } catch (exc) {
    showError(`record: ${exc.detail || exc.message}`);
    return;
  }
  showError(null);
  walk.place = walk.moves.length;
  app.walk = walk;
  app.boardCache.clear();
  $("#walk-panel").hidden = false;
  const r = walk.result;
  const SIDES = ["Blue", "Yellow"];
  $("#walk-title").textContent = walk.view
    ? `Position view (${walk.variant}) from ${SIDES[walk.view.seat]}'s seat, turn ${walk.view.turn}` +
      (walk.view.to_move === null ? `: ${r.over}` : `, ${SIDES[walk.view.to_move]} to decide`)
    : `Game (${walk.variant}): ${r.over || "not over"}, ${r.turns} turns`;
  renderMoves();
  renderGraph();
  await goTo(walk.place);
}

function readRecordText(text) {
  let record;
  try {
    record = JSON.parse(text);
  } catch (exc) {
    showError(`record: not JSON (${exc.message})`);
    return;
  }
  loadRecord(record);
}

async function goTo(place) {
  const walk = app.walk;
  if (!walk) return;
  place = Math.max(0, Math.min(walk.moves.length, place));
  walk.place = place;
  const move = place > 0 ? walk.moves[place - 1] : null;
  const f = move && move.fields && move.fields.type === "order" ? move.fields : null;
  await setPosition(walk.boards[walk.board_at[place]], { lastMove: f ? { origin: f.origin, dest: f.dest } : null, keepWalk: true });
  markPlace(place);
}

function markPlace(place) {
  const walk = app.walk;
  if (!walk) return;
  if (place === null) {
    $("#nav-place").textContent = "(edited)";
  } else {
    const move = place > 0 ? walk.moves[place - 1] : null;
    $("#nav-place").textContent = `${place}/${walk.moves.length}${move ? ` \u00b7 turn ${move.turn}` : " \u00b7 start"}`;
  }
  document.body.dataset.place = place === null ? "" : String(place);
  for (const li of document.querySelectorAll("#moves li")) li.classList.toggle("current", Number(li.dataset.place) === place);
  const current = document.querySelector("#moves li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
  const marker = $("#eval-graph .place");
  if (marker && place !== null) {
    const x = graphX(place);
    marker.setAttribute("x1", x);
    marker.setAttribute("x2", x);
  }
}

function renderMoves() {
  const list = clear($("#moves"));
  app.walk.moves.forEach((move, i) => {
    list.append(h("li", { class: `side-${move.player}`, dataset: { place: String(i + 1) }, onclick: () => goTo(i + 1) },
      h("span", { class: "log-turn" }, String(move.turn)),
      h("span", { class: "log-who" }, SIDE_NAMES[move.player].slice(0, 1)),
      h("span", {}, move.text)));
  });
}

const GRAPH_W = 300;
const GRAPH_H = 120;
const graphX = (place) => (app.walk.moves.length ? (place / app.walk.moves.length) * (GRAPH_W - 10) + 5 : 5);

function renderGraph() {
  const graph = clear($("#eval-graph"));
  const points = app.walk.evaluations;
  const span = Math.max(1, ...points.map((p) => Math.abs(p.blue)));
  const y = (v) => GRAPH_H / 2 - (v / span) * (GRAPH_H / 2 - 8);
  graph.append(svg("line", { x1: 0, y1: GRAPH_H / 2, x2: GRAPH_W, y2: GRAPH_H / 2, class: "axis" }));
  graph.append(svg("polyline", { points: points.map((p) => `${graphX(p.move)},${y(p.blue)}`).join(" "), class: "curve" }));
  graph.append(svg("line", { x1: graphX(app.walk.place), x2: graphX(app.walk.place), y1: 0, y2: GRAPH_H, class: "place" }));
  for (const p of points) {
    const dot = svg("circle", { cx: graphX(p.move), cy: y(p.blue), r: 3.5, class: `eval-point ${p.blue >= 0 ? "blue" : "yellow"}`, "data-move": p.move });
    const title = svg("title");
    title.textContent = `turn ${p.turn}: ${p.blue >= 0 ? "+" : ""}${p.blue.toFixed(2)} for Blue`;
    dot.append(title);
    dot.addEventListener("click", () => goTo(p.move));
    graph.append(dot);
  }
}

async function listMyGames() {
  const list = clear($("#my-games-list"));
  let ids = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(TOKEN_KEY_PREFIX)) ids.push(key.slice(TOKEN_KEY_PREFIX.length));
    }
  } catch (exc) {
    ids = [];
  }
  if (!ids.length) {
    list.append(h("li", { class: "empty-note" }, "no game was played in this browser"));
    return;
  }
  for (const id of ids.slice(0, 30)) {
    const token = localStorage.getItem(TOKEN_KEY_PREFIX + id);
    const item = h("li", { dataset: { game: id } }, h("span", {}, `${id.slice(0, 8)}\u2026 `));
    list.append(item);
    try {
      const view = await api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, token);
      if (view.status === "over") {
        item.append(h("span", { class: "muted" }, `${view.over} `),
          h("button", { type: "button", class: "load-game", onclick: () => loadMyGame(id, token) }, "Load"));
      } else {
        // In play: its record (every hidden card) opens only when it is over; what you may know now
        // (the knowledge download, served on your decision) opens as its one board.
        item.append(h("span", { class: "muted" }, "in play "),
          h("button", { type: "button", class: "load-view", title: "the board of what you may know now (its record opens when the game is over)",
                        onclick: () => loadMyView(id, token) }, "Load what I know"));
      }
    } catch (exc) {
      item.append(h("span", { class: "muted" }, exc.status === 404 ? "unknown to this server" : exc.message));
    }
  }
}

async function loadMyGame(id, token) {
  try {
    loadRecord(await api("GET", `/api/games/${encodeURIComponent(id)}/record`, undefined, token));
  } catch (exc) {
    showError(`game ${id}: ${exc.detail || exc.message}`);
  }
}

async function loadMyView(id, token) {
  try {
    loadRecord(await api("GET", `/api/games/${encodeURIComponent(id)}/knowledge`, undefined, token));
  } catch (exc) {
    showError(`game ${id}: ${exc.detail || exc.message}`);
  }
}

// -- start ----------------------------------------------------------------------------------------------
async function loadCatalog() {
  try {
    const data = await api("GET", "/api/catalog");
    for (const u of data.units) app.catalog[u.token] = u;
    app.tokens = data.units.map((u) => u.token);
  } catch (exc) {
    showError(`catalog: ${exc.message}`);
  }
}

function wire() {
  $("#start-position").onclick = () => setPosition(START_TEXT);
  $("#crown-position").onclick = () => setPosition("crown");
  $("#empty-position").onclick = () => setPosition("8/8/8/8/8/8/8/8 w - - 0 1");
  $("#flip").onclick = () => {
    app.flip = !app.flip;
    renderAll();
    renderEvalBar(app.shownScore);
  };
  $("#side").onchange = () => setPosition(editorText());
  $("#compass").onchange = () => setPosition(editorText());
  $("#evaluation").onchange = () => { if (app.engineOn) analyze(); };
  $("#load-text").onclick = () => setPosition($("#position-text").value.trim());
  $("#analyze").onclick = analyze;
  $("#stop").onclick = stop;
  $("#record-file").onchange = async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    if (app.limits && file.size > app.limits.record_bytes) {
      showError(`record: the file has ${file.size} bytes; at most ${app.limits.record_bytes} are read`);
      return;
    }
    readRecordText(await file.text());
  };
  $("#load-record").onclick = () => readRecordText($("#record-text").value);
  $("#my-games").addEventListener("toggle", () => { if ($("#my-games").open) listMyGames(); });
  $("#nav-first").onclick = () => goTo(0);
  $("#nav-prev").onclick = () => goTo((app.walk?.place ?? 0) - 1);
  $("#nav-next").onclick = () => goTo((app.walk?.place ?? 0) + 1);
  $("#nav-last").onclick = () => goTo(app.walk ? app.walk.moves.length : 0);
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    if (event.key === "Escape" && app.armed) {
      app.armed = null;
      renderPalette();
    }
    if (!app.walk) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves) goTo(app.walk.place + moves[event.key]);
    if (event.key === "Home") goTo(0);
    if (event.key === "End") goTo(app.walk.moves.length);
  });
  // A drag that ends anywhere but a square or a Barracks removes a unit taken from the board.
  document.addEventListener("dragover", (event) => event.preventDefault());
  document.addEventListener("drop", (event) => {
    if (event.target.closest("#board .sq, .drop-barracks")) return;
    event.preventDefault();
    const item = app.dragging || dragData(event);
    app.dragging = null;
    if (item && item.from !== "palette") removeFrom(item);
  });
}

async function main() {
  document.body.dataset.ready = "0";
  wire();
  await loadCatalog();
  renderPalette();
  renderEvalBar(null);
  setConn(false);
  connect();
  await setPosition(START_TEXT);
  document.body.dataset.ready = "1";
}

main();
