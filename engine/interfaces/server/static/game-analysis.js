// The record board (docs/server.md, "The analysis board"): a saved game or record of the game the
// page's ?game= names, loaded as one seat saw it, stepped through, each point drawn by the game's own
// board module (render(view, actions, ctx)) and analysed live over /api/analysis/game-ws by the game's
// own analysis. The engine's choices come ranked with values and lines; a choice that names squares
// or regions (the game's analysis pieces say which data attribute: "mark") is drawn over the board.
// A game whose analysis pieces read a position text offers a box to paste one (loaded as a single
// point), and a loaded record's Review button opens its review for the seat (review.js draws it).
// This page computes no rule and names no game: everything comes from /api/analysis/games.
import { $, api, clear, h, showError, svg } from "./dom.js";
import { closeReview, openReviewOf } from "./review.js";

const ga = { game: null, info: null, loaded: null, decision: 1, module: null, ws: null, choices: null };

async function boardModule(name) {
  try {
    return await import(`./${name}`);
  } catch (exc) {
    return null;
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/api/analysis/game-ws`);
  ga.ws = ws;
  ws.onopen = () => { $("#conn").textContent = "engine"; };
  ws.onclose = () => { $("#conn").textContent = "no engine"; ga.ws = null; };
  ws.onmessage = (event) => onMessage(JSON.parse(event.data));
}

function onMessage(msg) {
  if (msg.type === "started") {
    document.body.dataset.analysis = "running";
    $("#search-info").textContent = `analysing decision ${msg.decision} (${msg.name}) for ${msg.seconds} s`;
  } else if (msg.type === "done") {
    if (msg.decision !== ga.decision) return;
    ga.choices = msg;
    showChoices(msg);
    document.body.dataset.analysis = "done";
  } else if (msg.type === "stopped") {
    document.body.dataset.analysis = "stopped";
    $("#search-info").textContent = "stopped";
  } else if (msg.type === "error") {
    showError(msg.error);
    document.body.dataset.analysis = "error";
  }
}

function analyse() {
  if (!ga.loaded || !ga.ws || ga.ws.readyState !== WebSocket.OPEN) return;
  clearChoices();
  if (ga.decision > ga.loaded.decisions) {
    $("#search-info").textContent = "the game's end: nothing to decide";
    return;
  }
  ga.ws.send(JSON.stringify({ type: "analyze", id: ga.loaded.id, decision: ga.decision,
                              seconds: Number($("#seconds").value) || 1, top: Number($("#top").value) || 3 }));
}

function stop() {
  if (ga.ws && ga.ws.readyState === WebSocket.OPEN) ga.ws.send(JSON.stringify({ type: "stop" }));
}

function clearChoices() {
  ga.choices = null;
  clear($("#choices"));
  clear($("#ga-arrows"));
  for (const el of document.querySelectorAll(".analysis-best")) el.classList.remove("analysis-best");
}

function showChoices(msg) {
  clear($("#choices"));
  $("#search-info").textContent = msg.over ? String(msg.over) : (msg.info || "");
  msg.choices.forEach((c, i) => {
    $("#choices").append(h("li", { dataset: { text: c.text }, class: i === 0 ? "best" : "" },
      h("strong", {}, c.value_text), " ", c.text, " ", h("span", { class: "line" }, (c.line || []).join(" "))));
  });
  const text = msg.value_text || "-";
  $("#eval-text").textContent = text;
  $("#eval-bar").dataset.score = text;
  const value = typeof msg.value === "number" ? msg.value : 0;
  $("#eval-fill").style.height = `${Math.round(50 + 50 * Math.tanh(value / 3))}%`;
  drawMarks(msg.choices);
}

function markElement(name) {
  const mark = ga.loaded && ga.loaded.mark;
  if (!mark) return null;
  const attr = `data-${mark}`;
  return [...$("#ga-board").querySelectorAll(`[${attr}]`)].find((el) => el.getAttribute(attr) === name) || null;
}

function drawMarks(choices) {
  const layer = clear($("#ga-arrows"));
  const box = $("#ga-board-wrap").getBoundingClientRect();
  layer.setAttribute("viewBox", `0 0 ${box.width} ${box.height}`);
  const centre = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left - box.left + r.width / 2, r.top - box.top + r.height / 2];
  };
  choices.forEach((c, i) => {
    if (c.arrow) {
      const [from, to] = c.arrow.map(markElement);
      if (!from || !to) return;
      const [x1, y1] = centre(from);
      const [x2, y2] = centre(to);
      layer.append(svg("line", { x1, y1, x2, y2, class: i === 0 ? "best" : "", "data-choice": c.text }));
    }
    if (i === 0) for (const name of c.highlight || []) markElement(name)?.classList.add("analysis-best");
  });
}

async function showPoint(decision) {
  const loaded = ga.loaded;
  const last = loaded.last;
  ga.decision = Math.max(1, Math.min(last, decision));
  const answer = await api("POST", "/api/analysis/game-point", { id: loaded.id, decision: ga.decision });
  if (ga.module) ga.module.render(answer.view, [], { root: $("#ga-board"), sendAction: () => {}, rerender: () => {}, tools: null, busy: true });
  else clear($("#ga-board")).append(h("pre", {}, JSON.stringify(answer.view.observation ?? answer.view, null, 1)));
  $("#place").textContent = loaded.position ? "the position"
    : ga.decision === last ? `end (${loaded.points.length} decisions)` : `decision ${ga.decision} of ${loaded.points.length}`;
  document.body.dataset.place = String(ga.decision);
  for (const li of $("#moves").children) li.classList.toggle("here", Number(li.dataset.decision) === ga.decision);
  drawGraph();
  analyse();
}

function drawGraph() {
  const graph = clear($("#eval-graph"));
  const points = (ga.loaded && ga.loaded.graph) || [];
  if (!points.length) return;
  const max = Math.max(1, ...points.map((p) => Math.abs(p.value)));
  const x = (i) => (300 * i) / Math.max(1, points.length - 1);
  const y = (v) => 60 - (55 * v) / max;
  graph.append(svg("line", { x1: 0, y1: 60, x2: 300, y2: 60, class: "axis" }));
  graph.append(svg("polyline", { class: "curve", points: points.map((p, i) => `${x(i)},${y(p.value)}`).join(" ") }));
  const here = Math.min(ga.decision, points.length) - 1;
  graph.append(svg("line", { x1: x(here), y1: 0, x2: x(here), y2: 120, class: "place" }));
}

async function loadRecord(text) {
  let record;
  try {
    record = JSON.parse(text);
  } catch (exc) {
    showError(`the record is not JSON: ${exc.message}`);
    return;
  }
  await loaded(api("POST", "/api/analysis/game-record", { record, player: Number($("#seat").value), game: ga.game }));
}

async function loadPosition(text) {
  await loaded(api("POST", "/api/analysis/game-position", { game: ga.game, text, player: Number($("#seat").value) }));
}

/** Show what the server loaded (a record, or a position as one point), at its first point. */
async function loaded(request) {
  try {
    ga.loaded = await request;
  } catch (exc) {
    showError(exc.detail || exc.message);
    return;
  }
  const loaded = ga.loaded;
  closeReview();
  $("#review-loaded").hidden = !loaded.review;
  $("#record-info").textContent = loaded.position ? `${loaded.title}: a position, seen as ${loaded.seats[loaded.player]}`
    : `${loaded.title}: ${loaded.points.length} decisions, seen as ${loaded.seats[loaded.player]}`;
  const moves = clear($("#moves"));
  for (const p of loaded.points) {
    moves.append(h("li", { dataset: { decision: String(p.decision) }, onclick: () => showPoint(p.decision) },
      `${p.turn}. ${p.name}: ${p.text}`));
  }
  document.body.dataset.loaded = loaded.position ? "position" : String(loaded.points.length);
  await showPoint(1);
}

/** The review of the loaded record for its seat (POST /api/analysis/game-review, asked again until done). */
function review() {
  const id = ga.loaded && ga.loaded.id;
  if (id) openReviewOf(id, () => api("POST", "/api/analysis/game-review", { id }));
}

async function start() {
  const params = new URLSearchParams(location.search);
  const games = await api("GET", "/api/analysis/games");
  ga.info = games.find((g) => g.name === params.get("game")) || games.find((g) => g.page === "record");
  ga.game = ga.info.name;
  document.title = `Analysis board - ${ga.info.title} - ftc-engine`;
  $("#game-title").textContent = ga.info.title;
  const seats = clear($("#seat"));
  ga.info.seats.forEach((name, i) => seats.append(h("option", { value: String(i) }, name)));
  ga.module = await boardModule(ga.info.module);
  $("#load-record").onclick = () => loadRecord($("#record-text").value);
  $("#position-panel").hidden = !ga.info.position;
  $("#position-text").placeholder = ga.info.position_hint || "";
  $("#load-position").onclick = () => loadPosition($("#position-text").value);
  $("#review-loaded").onclick = review;
  $("#record-file").onchange = async () => {
    const file = $("#record-file").files[0];
    if (file) loadRecord(await file.text());
  };
  $("#first").onclick = () => ga.loaded && showPoint(1);
  $("#prev").onclick = () => ga.loaded && showPoint(ga.decision - 1);
  $("#next").onclick = () => ga.loaded && showPoint(ga.decision + 1);
  $("#last").onclick = () => ga.loaded && showPoint(ga.loaded.last);
  $("#go").onclick = analyse;
  $("#stop").onclick = stop;
  connect();
  document.body.dataset.ready = "1";
}

start().catch((exc) => showError(exc.message));
