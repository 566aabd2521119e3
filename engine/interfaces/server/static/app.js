// The For the Crown web board: plain ES module, no build step. Every server string is put into the
// page with textContent (never innerHTML).
import { $, api, clear, h, seatKind, seatTag, showError, squareName, turnLabel, waitingText, who as whoIs } from "./dom.js";
import { glyphSVG, SIDE_NAMES } from "./glyphs.js";
import { initHowTo, linkRules, showUnitHow } from "./howto.js";

/** Whether this script itself draws the view's board (its module is the shell's own). */
const SHELL_MODULE = "app.js";
const shellDrawn = (view) => !!view && view.module === SHELL_MODULE;
/** A view drawn by a board module (every view names its game and module, engine/interfaces/server/app.py). */
const isGeneric = (view) => !!view && !shellDrawn(view) && typeof view.module === "string";
/** The seats' names of a view's game (every view names them). */
const sidesOf = (view) => view.players;

// -- the registered games (GET /api/games/kinds) and their board modules ------------------------
/** A board module's file name: a plain name under /static/ (nothing else is ever imported). */
const MODULE_RE = /^[a-z][a-z0-9_-]*\.js$/;
const boardModules = new Map();

/** The board module ``name`` (dynamic import of /static/<name>, cached); null when it fails. */
function boardModule(name) {
  if (!MODULE_RE.test(name)) return Promise.resolve(null);
  if (!boardModules.has(name)) boardModules.set(name, import(`./${name}`).catch(() => null));
  return boardModules.get(name);
}

/** The home page lists every registered game: the built-in ones have their cards and options in
 *  index.html (data-kind names them); every other one gets a card and an option from the registry. */
async function loadKinds() {
  let kinds;
  try {
    kinds = (await api("GET", "/api/games/kinds")).games;
  } catch (exc) {
    return;                      // the built-in games stay offered
  }
  app.kinds = new Map(kinds.map((k) => [k.name, k]));
  if (!app.view) render();           // the hub's title counts the games
  const select = $("#new-game select[name=game]");
  for (const kind of kinds) {
    if (document.querySelector(`#new-game option[data-kind="${CSS.escape(kind.name)}"]`)) continue;
    select.append(h("option", { value: kind.name, title: kind.description, dataset: { kind: kind.name, module: kind.module } }, kind.title));
    const card = h("div", { class: "game-card", dataset: { game: kind.name, kind: kind.name } },
      h("button", { type: "button", class: "game-intro", title: "choose this game", onclick: () => { select.value = kind.name; chooseGame(); } },
        h("strong", {}, kind.title), h("span", { class: "game-line" }, kind.description)),
      kind.docs ? h("a", { class: "rules-link", href: kind.docs, target: "_blank", rel: "noopener" }, `Rules of ${kind.title}`) : null);
    $("#games-intro").append(card);
  }
  chooseGame();
}

const COUNT_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

/** The home page's title: the hub and how many games it plays (once the registry has answered). */
function hubTitle() {
  const count = app.kinds.size;
  return count ? `ftc-engine: ${COUNT_WORDS[count] ?? count} games` : "ftc-engine";
}

/** What a saved game's line says: its game (or For the Crown's variant), the human's seat, the turn. */
function savedWhat(g) {
  const named = app.kinds.get(g.variant);            // the summary names the game, or one of its variants
  const kind = named || [...app.kinds.values()].find((k) => k.variants.includes(g.variant));
  const seats = kind ? kind.seats : [];
  return `${named ? named.title : g.variant}, you play ${seats[g.human] ?? `seat ${g.human}`}, turn ${g.turn}`;
}

/** The registered game chosen in the form when it is drawn by a board module of its own kind. */
function genericChosen() {
  const option = $("#new-game select[name=game]").selectedOptions[0];
  return option && option.dataset.module ? app.kinds.get(option.dataset.kind) : null;
}

// Every action, log entry and AI-turn entry carries its fields (docs/server.md): an order's kind, unit
// and squares, a card's name and, for a card choice, the zone it comes from (null: unknown).
const isOrder = (a) => a.fields.type === "order";
const isMove = (a) => isOrder(a) && a.fields.origin !== null;        // an order of a unit on the board
const isDeploy = (a) => isOrder(a) && a.fields.origin === null;
/** The kind shown and styled: an order's kind (march, attack, deploy, ...), else the choice's type. */
const kindOf = (a) => (isOrder(a) ? a.fields.order_kind : a.fields.type);
const FLAG_BADGES = {
  ordered: { text: "\u2713", cls: "ordered" },
  banned: { text: "\u2715", cls: "banned" },
  "immune until Blue's turn": { text: "I", cls: "immune" },
  "immune until Yellow's turn": { text: "I", cls: "immune" },
};
const PHASES = ["order", "action", "buy"];

// -- state ------------------------------------------------------------------------------------
const app = {
  catalog: { units: {}, cards: {} },
  gameId: null,
  view: null,
  selected: null, // {type: "unit", square} | {type: "barracks", token}
  ws: null,
  wsGame: null,
  busy: false,
  nudged: null,
  kinds: new Map(), // the registered games by name (GET /api/games/kinds)
};

// -- server ---------------------------------------------------------------------------------
// Each game's seat token lives in this browser's local storage (never in the URL, where logs and
// history would keep it), so a reload resumes the game and nobody else can open it.
const TOKEN_KEY = (id) => `ftc.token.${id}`;

function gameToken(id) {
  try {
    return localStorage.getItem(TOKEN_KEY(id));
  } catch (exc) {
    return null;
  }
}

function keepToken(id, token) {
  try {
    localStorage.setItem(TOKEN_KEY(id), token);
  } catch (exc) {
    console.error("cannot keep the game's token", exc);
  }
}


function setBusy(busy) {
  app.busy = busy;
  document.body.dataset.busy = busy ? "1" : "0";
  updateBodyState();
}

async function loadCatalog() {
  try {
    const data = await api("GET", "/api/catalog");
    for (const u of data.units) app.catalog.units[u.token] = u;
    for (const c of data.cards) app.catalog.cards[c.name] = c;
  } catch (exc) {
    showError(`catalog: ${exc.message}`);
  }
  renderLegend();
  initHowTo(app.catalog);
}

const unitName = (token) => (app.catalog.units[token] ? app.catalog.units[token].name : token);

// -- what a card does, in plain words (cards.toml's effect texts, from /api/catalog) ---------
const EFFECT_LABELS = {
  order: "Order", action: "Action", treasure: "Treasure", training: "Training",
  "alternate-order": "Alternate order", "alternative-action": "Alternative action",
};
const effectLabel = (e) => (EFFECT_LABELS[e.kind] || e.kind) + (e.count > 1 ? ` x${e.count}` : "");

/** The card's cost as shown: "cost 4" ("cost 4, provisional" when our own choice; starters have none). */
function costText(card) {
  if (card.cost === null || card.cost === undefined) return card.role === "starter" || card.role === "alt-starter" ? "starting card" : "";
  return `cost ${card.cost}${(card.provisional || []).includes("cost") ? ", provisional" : ""}`;
}

/** The card's name, cost and both effects in plain words, as text (one line each). */
function cardTip(name) {
  const card = app.catalog.cards[name];
  if (!card) return name;
  const cost = costText(card);
  const lines = (card.effects || []).map((e) => `${effectLabel(e)}: ${e.text || e.kind}`);
  return [`${name}${cost ? ` (${cost})` : ""}`, ...lines].join("\n");
}

/** The same as cardTip, as elements: a heading (name, cost) and one line per effect. */
function cardInfo(name, headingTag = "strong") {
  const card = app.catalog.cards[name];
  const box = h("div", { class: "card-info", dataset: { info: name } });
  const cost = card ? costText(card) : "";
  box.append(h("div", { class: "card-info-head" }, h(headingTag, { class: "card-info-name" }, name), cost ? h("span", { class: "card-info-cost" }, cost) : null));
  if (!card) return box;
  const list = h("ul", { class: "card-effects" });
  (card.effects || []).forEach((e, i) => {
    list.append(h("li", { dataset: { effect: String(i) } }, h("span", { class: `effect-kind kind-${e.kind}` }, effectLabel(e)), " ", h("span", { class: "effect-text" }, linkRules(e.text || ""))));
  });
  box.append(list);
  return box;
}

// -- the card popover: on hover (a mouse), on a tap or click of a card name that is not an action,
// and on a long press or right click of any card name (touch screens have no hover) -------------
// A hover shows a card only once the pointer itself has moved since the board was last drawn: a
// redraw that puts a card under a pointer at rest (the buy buttons where the treasures' button was)
// makes the browser report a pointerover, which is no wish to read that card, and its pop-over would
// cover the buttons below. ``x``, ``y``: where the pointer was last seen; ``restX``, ``restY``: where
// it was at the last redraw.
const pop = { pinned: false, anchor: null, moved: true, x: NaN, y: NaN, restX: NaN, restY: NaN };

/** The board is drawn anew: no hover pop-over until the pointer moves. */
function quietCardPop() {
  if (!pop.pinned) hideCardPop();      // its element is about to be replaced
  pop.moved = false;
  pop.restX = pop.x;
  pop.restY = pop.y;
}

function showCardPop(anchor, pinned) {
  const name = anchor.dataset.card;
  const box = $("#card-pop");
  clear(box).append(cardInfo(name));
  const hint = anchor.dataset.hint;
  if (hint) box.append(h("div", { class: "card-pop-hint" }, hint));
  if (pinned) box.append(h("button", { type: "button", class: "close", title: "close", "aria-label": "close", onclick: hideCardPop }, "\u00d7"));
  box.classList.toggle("pinned", pinned);
  box.setAttribute("role", pinned ? "dialog" : "tooltip");
  box.setAttribute("aria-label", name);
  box.hidden = false;
  pop.pinned = pinned;
  pop.anchor = anchor;
  // Below the name if it fits, else above; always inside the window.
  const r = anchor.getBoundingClientRect();
  const w = box.offsetWidth, ht = box.offsetHeight;
  const left = Math.max(4, Math.min(window.innerWidth - w - 4, r.left));
  const top = r.bottom + 6 + ht <= window.innerHeight ? r.bottom + 6 : Math.max(4, r.top - 6 - ht);
  box.style.left = `${left}px`;
  box.style.top = `${top}px`;
}

function hideCardPop() {
  const box = $("#card-pop");
  box.hidden = true;
  clear(box);
  pop.pinned = false;
  pop.anchor = null;
}

/** An element that names a card and is itself an action (a click plays, buys or chooses it). */
const isActionCard = (el) => el.classList.contains("clickable") || el.matches("button.action") || el.closest("#chooser") !== null;

function initCardPop() {
  const cardOf = (event) => (event.target instanceof Element ? event.target.closest("[data-card]") : null);
  const hover = (event) => {
    pop.x = event.clientX;
    pop.y = event.clientY;
    if (event.pointerType !== "mouse" && event.pointerType !== "pen") return;
    if (!pop.moved && (event.type !== "pointermove" || (event.clientX === pop.restX && event.clientY === pop.restY))) return;
    pop.moved = true;
    const el = cardOf(event);
    if (el && !pop.pinned && pop.anchor !== el) showCardPop(el, false);
  };
  document.addEventListener("pointerover", hover);
  document.addEventListener("pointermove", hover);
  document.addEventListener("pointerout", (event) => {
    const el = cardOf(event);
    if (el && !pop.pinned && pop.anchor === el && !(event.relatedTarget instanceof Node && el.contains(event.relatedTarget))) hideCardPop();
  });
  document.addEventListener("click", (event) => {
    const el = cardOf(event);
    if (el && !isActionCard(el)) {
      if (pop.pinned && pop.anchor === el) hideCardPop();
      else showCardPop(el, true);
      return;
    }
    if (el) quietCardPop();            // the card's action is on its way: its pop-over goes
    if (pop.pinned && !(event.target instanceof Node && $("#card-pop").contains(event.target))) hideCardPop();
  });
  document.addEventListener("contextmenu", (event) => {
    const el = cardOf(event);
    if (!el) return;
    event.preventDefault();
    showCardPop(el, true);
  });
}

// -- games ------------------------------------------------------------------------------------
function gameIdFromHash() {
  const match = /(?:^|[#&])game=([A-Za-z0-9_-]+)/.exec(location.hash);
  return match ? match[1] : null;
}

/** The game a ``#watch=ID`` address asks to watch (docs/server.md "Spectators"), or null. */
function watchIdFromHash() {
  const match = /(?:^|[#&])watch=([A-Za-z0-9_-]+)/.exec(location.hash);
  return match ? match[1] : null;
}

/** Watch a game: its public view (no token), kept live by the spectator socket; read-only. */
async function openWatch(id) {
  app.gameId = id;
  app.watching = true;
  app.view = null;
  app.selected = null;
  showNewGameForm(false);
  showError(null);
  try {
    applyView(await api("GET", `/api/games/${encodeURIComponent(id)}/watch`), true);
  } catch (exc) {
    showError(`cannot watch game ${id}: ${exc.message}`);
    return;
  }
  connect(id);
}

async function openGame(id) {
  app.watching = false;
  if (app.gameId !== id) {
    app.gameId = id;
    app.view = null;
    app.selected = null;
    app.nudged = null;
  }
  showError(null);
  try {
    const token = gameToken(id);
    if (!token) {
      const err = new Error("this browser holds no token for it (games are private to the browser that created them)");
      err.status = 404;
      throw err;
    }
    const view = await api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, token);
    applyView(view, true);
  } catch (exc) {
    showError(`cannot load game ${id}: ${exc.message}`);
    if (exc.status === 404 || exc.status === 401) {
      app.gameId = null;
      showNewGameForm(true);
    }
    return;
  }
  connect(id);
}

function connect(id) {
  if (app.ws && app.wsGame === id && app.ws.readyState <= 1) return;
  if (app.ws) {
    app.ws.onclose = null;
    app.ws.close();
  }
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const watching = !!app.watching;
  const ws = new WebSocket(`${proto}//${location.host}/api/games/${encodeURIComponent(id)}/${watching ? "watch/ws" : "ws"}`);
  app.ws = ws;
  app.wsGame = id;
  ws.onopen = () => {
    // The first message authenticates a seat's socket; a spectator's needs none.
    if (!watching) ws.send(JSON.stringify({ token: gameToken(id) }));
    setConn(true);
  };
  ws.onmessage = (event) => {
    try {
      applyView(JSON.parse(event.data));
    } catch (exc) {
      console.error(exc);
    }
  };
  ws.onclose = (event) => {
    setConn(false);
    if (watching && event.code === 4404) {
      showError(`game ${id} is no longer open to spectators`);
      return;
    }
    if (app.ws === ws && app.gameId === id) {
      setTimeout(() => {
        if (app.ws === ws && app.gameId === id) connect(id);
      }, 2000);
    }
  };
}

function setConn(up) {
  const conn = $("#conn");
  conn.className = up ? "up" : "down";
  conn.textContent = up ? "live" : "offline";
}

async function newGame(event) {
  event.preventDefault();
  const form = $("#new-game");
  const data = new FormData(form);
  const bot = data.get("bot");
  const level = data.get("level");
  const ai = level ? { level } : { bot };
  const iters = parseInt(data.get("iterations"), 10);
  if (!level && bot === "ismcts" && iters > 0) ai.iterations = iters;
  if (!level && bot === "alphabeta" && iters > 0) ai.depth = Math.min(iters, 8);
  const seat = data.get("human");
  const human = seat === "random" ? Math.floor(Math.random() * 2) : parseInt(seat, 10);
  const ransom = data.get("game") === "kings-ransom";
  const kind = genericChosen();
  const opponent = String(data.get("game-bot") || "");
  const gameAI = opponent.startsWith("level:") ? { level: opponent.slice(6) } : { spec: opponent };
  const body = kind ? { game: kind.name, human, ai: gameAI } : ransom ? { variant: "kings-ransom", human, ai } : { variant: data.get("variant"), supply: data.get("supply"), human, ai };
  if (kind && kind.form) Object.assign(body, gameFormValues(kind));
  const seed = data.get("seed");
  if (!ransom && !kind && seed !== null && seed !== "") body.seed = parseInt(seed, 10);
  const clock = clockControl(String(data.get("clock") || ""));
  if (clock) body.clock = clock;
  if (data.get("friends")) {
    // Every other seat is a friend's: the answer holds an invitation link for each.
    const players = kind ? (body.options && body.options.players) || kind.players[0] : 2;
    const mine = Number.isInteger(body.human) ? body.human : 0;
    body.seats = Array.from({ length: players }, (_, i) => ({ kind: i === mine ? "creator" : "human" }));
  }
  showError(null);
  setBusy(true);
  $("#start").disabled = true;
  const aiFirst = body.variant === "last-stand" ? body.human === 0 : body.human === 1;   // the Defender (Yellow) opens a Last Stand
  $("#status").textContent = aiFirst ? "Creating the game; the AI moves first\u2026" : "Creating the game\u2026";
  try {
    const view = await api("POST", "/api/games", body);
    keepToken(view.id, view.token);
    delete view.token;
    if (view.invites) keepInvites(view.id, view.invites);
    delete view.invites;
    delete view.bots;
    app.gameId = view.id;
    app.view = null;
    app.selected = null;
    history.replaceState(null, "", `#game=${view.id}`);
    showNewGameForm(false);
    applyView(view, true);
    connect(view.id);
  } catch (exc) {
    showError(`new game: ${exc.message}`);
  } finally {
    $("#start").disabled = false;
    setBusy(false);
  }
}

async function sendAction(actionId) {
  const view = app.view;
  if (!view || app.busy) return;
  closeChooser();
  app.selected = null;
  showError(null);
  setBusy(true);
  render();
  try {
    const next = await api("POST", `/api/games/${view.id}/actions`, { action: actionId, version: view.version }, gameToken(view.id));
    applyView(next, true);
  } catch (exc) {
    showError(exc.message);
    if (exc.status === 409) {
      try {
        applyView(await api("GET", `/api/games/${view.id}`, undefined, gameToken(view.id)), true);
      } catch (e) {
        /* keep the error shown */
      }
    }
  } finally {
    setBusy(false);
    render();
  }
}

async function resign() {
  const view = app.view;
  $("#resign-confirm").hidden = true;
  $("#resign").hidden = false;
  if (!view) return;
  setBusy(true);
  try {
    applyView(await api("POST", `/api/games/${view.id}/resign`, undefined, gameToken(view.id)), true);
  } catch (exc) {
    showError(exc.message);
  } finally {
    setBusy(false);
    render();
  }
}

async function nudgeAI() {
  const view = app.view;
  if (!view) return;
  app.nudged = `${view.id}:${view.version}`;
  try {
    applyView(await api("POST", `/api/games/${view.id}/ai`, undefined, gameToken(view.id)), true);
  } catch (exc) {
    if (exc.status !== 409) showError(exc.message);
  }
}

/** Take a view from the server (POST answer, GET or WebSocket push); older versions are ignored. */
function applyView(view, authoritative = false) {
  if (!view || view.id !== app.gameId) return;
  const current = app.view;
  if (current && !authoritative && view.version < current.version) return;
  if (current && authoritative && view.version < current.version) return;
  if (!current || view.version !== current.version || view.your_turn !== current.your_turn) {
    app.selected = null;
    closeChooser();
    if (app.board && typeof app.board.clearSelection === "function") app.board.clearSelection();
  }
  app.view = view;
  render();
  renderSeats(view);
  // A game whose AI is to decide but not thinking (e.g. after a server restart): let it move.
  if (!view.watching && view.status === "playing" && !view.your_turn && !view.thinking && !app.busy &&
      seatKind(view, view.deciding) === "ai" && app.nudged !== `${view.id}:${view.version}`) {
    setTimeout(() => {
      const v = app.view;
      if (v === view && !app.busy && !v.thinking && !v.your_turn && v.status === "playing") nudgeAI();
    }, 1500);
  }
}

// -- rendering --------------------------------------------------------------------------------
function updateBodyState() {
  const view = app.view;
  let state = "none";
  // A view its board module has not drawn yet (the module still loading) is not shown as playable.
  if (view && isGeneric(view) && app.drawn !== view) state = "loading";
  else if (view) {
    if (view.watching && view.status !== "over") state = "watching";
    else if (view.status === "over") state = "over";
    else if (view.thinking) state = "thinking";
    else if (view.your_turn) state = "your-turn";
    else state = "waiting";
  }
  document.body.dataset.state = state;
  document.body.dataset.version = view ? String(view.version) : "";
}

// -- clocks (docs/server.md "Clocks") -----------------------------------------------------------
/** The new-game form's time control ("300+3": base+increment seconds; "d3": days a turn; "": none). */
function clockControl(value) {
  if (value.startsWith("d")) return { days_per_turn: parseInt(value.slice(1), 10) };
  const [base, increment] = value.split("+").map((n) => parseInt(n, 10));
  return base > 0 ? { base, increment: increment || 0 } : null;
}

/** A clock's seconds as the strip shows them: h:mm:ss, m:ss, or days for a correspondence turn. */
function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "untimed";
  const s = Math.max(0, Math.ceil(seconds));
  if (s >= 86400) return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
  const hms = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return hms[0] ? `${hms[0]}:${pad(hms[1])}:${pad(hms[2])}` : `${hms[1]}:${pad(hms[2])}`;
}

/** Each player's clock in the top bar, from the view's ``clock`` (its seconds at the view's
 *  ``server_time``); the running one counts down locally from when the view arrived until the next
 *  push (the server's handover or flag replaces it). */
function renderClocks() {
  const view = app.view;
  const strip = $("#clocks");
  const clock = view && view.clock;
  strip.hidden = !clock;
  if (!clock) return;
  if (app.clockFor !== clock) {                      // a new view: count from its arrival
    app.clockFor = clock;
    app.clockSince = performance.now();
  }
  const elapsed = (performance.now() - app.clockSince) / 1000;
  const names = sidesOf(view);
  clear(strip);
  clock.remaining.forEach((left, player) => {
    const running = clock.running === player;
    const now = left === null ? null : running ? Math.max(0, left - elapsed) : left;
    const out = clock.out.includes(player);
    const classes = ["clock", running ? "running" : "", now !== null && now < 10 && running ? "low" : "", out ? "out" : ""];
    strip.append(h("span", { class: classes.filter(Boolean).join(" "), dataset: { player: String(player) },
      title: `${names[player] ?? `player ${player}`}${out ? ": ran out of time" : ""}` },
    `${names[player] ?? `P${player}`} ${clockText(now)}`));
  });
}
setInterval(renderClocks, 250);

function render() {
  updateBodyState();
  renderClocks();
  quietCardPop();
  const view = app.view;
  const generic = isGeneric(view);
  $("#layout").hidden = !view || generic;
  if (!generic) $("#board-page").hidden = $("#generic-layout").hidden = true;
  const title = view ? view.title : null;
  $("#topbar h1").textContent = title ?? hubTitle();
  document.title = title ? `${title} - ftc-engine` : hubTitle();
  $("#resign").disabled = !view || view.status === "over" || app.busy || !!view.watching;
  $("#resign").hidden = !!(view && view.watching);
  $("#player-tools").hidden = !!(view && view.watching);      // hints, saves, downloads: a seat's
  if (!view) return;
  $("#game-label").textContent = view.watching ? `game ${view.id} \u00b7 watching (read-only)`
    : `game ${view.id} \u00b7 you play ${sidesOf(view)[view.human]}`;
  const actions = view.your_turn && !app.busy && !view.watching ? view.actions : [];
  if (generic) {
    renderGenericGame(view, actions);
    renderGameOver(view);
    return;
  }
  app.board = null;
  placePlayerTools();
  renderStatus(view);
  renderBoard(view, actions);
  renderBarracks(view, actions);
  renderActions(view, actions);
  renderHand(view, actions);
  renderOpponent(view);
  renderSupply(view, actions);
  renderCardReference(view);
  renderStock(view);
  renderTrash(view);
  renderAILastTurn(view);
  renderLog(view);
  renderGameOver(view);
  renderPlayerTools(view);
}

/** A game drawn by its board module (docs/server.md, "The web client"): the module's
 *  ``render(view, actions, ctx)`` once it is loaded. A module that exports ``page = true`` draws the
 *  whole page in ``#board-page`` (emptied when another module drew there); any other draws its board
 *  in the shell's panel, whose status line says whose decision it is. ``ctx``: ``root`` (where to
 *  draw), ``sendAction(id)``, ``rerender()`` (the shell draws the view again) and ``tools`` (the
 *  player's tools, hint, save and record, which a whole-page module places in its own panel). */
function renderGenericGame(view, actions) {
  boardModule(view.module).then((mod) => {
    if (app.view !== view) return;               // a newer view is drawn meanwhile
    if (!mod || typeof mod.render !== "function") {
      showError(`the board module ${view.module} could not be loaded`);
      return;
    }
    app.board = mod;
    const page = mod.page === true;
    $("#board-page").hidden = !page;
    $("#generic-layout").hidden = page;
    let root = $("#board-page");
    if (page && root.dataset.module !== view.module) {
      clear(root).dataset.module = view.module;
    }
    const tools = [$("#player-tools"), $("#hint-box"), $("#save-box")];
    if (!page) {
      root = $("#generic-board");
      if (tools[0].parentNode !== $("#generic-tools")) $("#generic-tools").append(...tools);
      $("#generic-title").textContent = view.title;
      const status = view.status === "over" ? (view.over || "game over")
        : view.watching ? `watching: ${view.players[view.deciding] ?? "nobody"} to decide`
        : view.thinking ? "The AI is thinking\u2026" : view.your_turn ? (view.prompt || "your decision") : `${view.players[view.to_move] ?? "the AI"} to decide`;
      // The game's own words for where the game stands ("move 2", "round 1 of 6"), else its turn number.
      const when = view.turn_label || `turn ${view.turn}`;
      $("#generic-status").textContent = `${when} \u00b7 ${status}${view.ai_note ? ` (${view.ai_note})` : ""}`;
    }
    mod.render(view, actions, { sendAction, rerender: render, root, tools });
    app.drawn = view;
    updateBodyState();
    renderPlayerTools(view);
  });
}

function renderStatus(view) {
  const status = $("#status");
  const you = SIDE_NAMES[view.human];
  const mover = SIDE_NAMES[view.to_move];
  let text;
  if (view.status === "over") text = "Game over";
  else if (view.thinking) text = "The AI is thinking\u2026";       // also while our request waits for its answer
  else if (app.busy) text = "Sending\u2026";
  else if (view.your_turn) text = `Your decision (${you})`;
  else text = waitingText(view, SIDE_NAMES, 1 - view.human);
  clear(status).append(
    h("span", { class: `side-dot side-${view.to_move}`, title: `${mover} to move` }),
    h("strong", {}, text),
    turnLabel(view.turn, view.to_move !== (view.deciding ?? view.to_move) ? mover : null, "turn"),
  );
  status.className = view.thinking ? "thinking" : view.your_turn ? "yours" : "";
  const phases = clear($("#phases"));
  const list = PHASES.includes(view.phase) ? PHASES : [view.phase, ...PHASES];
  for (const phase of list) {
    phases.append(h("li", { class: phase === view.phase ? "current" : "", id: phase === view.phase ? "phase" : null, dataset: { phase } }, phase));
  }
  const c = view.counters || {};
  $("#gold").textContent = c.gold ?? "-";
  $("#orders").textContent = c.orders ?? "-";
  $("#actions-left").textContent = c.actions ?? "-";
  $("#buys").textContent = c.buys ?? "-";
  const discount = view.observation && view.observation.counters ? view.observation.counters.discount : 0;
  $("#prompt").textContent = (view.prompt || "") + (discount ? ` (discount ${discount})` : "");
  // A unit chosen on the board or in the Barracks: a link to how it moves.
  const sel = app.selected;
  const token = sel && sel.type === "unit" ? (view.units.find((u) => u.square === sel.square) || {}).token : sel && sel.type === "barracks" ? sel.token : null;
  if (token) $("#prompt").append(" ", h("button", { type: "button", class: "how-link", id: "unit-how", onclick: () => showUnitHow(token) }, `How does the ${unitName(token)} move?`));
}

function boardSquares(view) {
  // Rows top to bottom; from Blue's side rank 8 is on top, flipped when the human plays Yellow.
  const flip = view.human === 1;
  const rows = [];
  for (let r = 0; r < 8; r++) {
    const rank = flip ? r : 7 - r;
    const row = [];
    for (let f = 0; f < 8; f++) row.push(rank * 8 + (flip ? 7 - f : f));
    rows.push(row);
  }
  return rows;
}

/** The squares the AI's last turn touched: both squares of its orders, the squares it chose. */
function aiTouchedSquares(view) {
  const out = new Set();
  for (const entry of view.ai_last_turn || []) {
    const f = entry.fields;
    if (!f) continue;                       // a redacted pick, or an entry saved without fields
    for (const sq of f.type === "order" ? [f.origin, f.dest] : f.type === "square" ? [f.square] : []) {
      if (sq !== null && sq !== undefined) out.add(sq);
    }
  }
  return out;
}

function renderBoard(view, actions) {
  const board = clear($("#board"));
  const units = new Map(view.units.map((u) => [u.square, u]));
  const orders = actions.filter(isMove);
  const movable = new Set(orders.map((a) => a.fields.origin));
  const sel = app.selected;
  // Targets: {square -> [actions]}
  const targets = new Map();
  const addTarget = (sq, a) => {
    if (!targets.has(sq)) targets.set(sq, []);
    targets.get(sq).push(a);
  };
  if (sel && sel.type === "unit") for (const a of orders) if (a.fields.origin === sel.square) addTarget(a.fields.dest, a);
  if (sel && sel.type === "barracks") for (const a of actions) if (isDeploy(a) && a.fields.unit === sel.token) addTarget(a.fields.dest, a);
  const choices = new Map();
  for (const a of actions) {
    if (a.fields.type === "square" && a.fields.square !== null) {
      if (!choices.has(a.fields.square)) choices.set(a.fields.square, []);
      choices.get(a.fields.square).push(a);
    }
  }
  const touched = aiTouchedSquares(view);
  const flip = view.human === 1;
  const files = flip ? "hgfedcba" : "abcdefgh";
  boardSquares(view).forEach((row, r) => {
    const rank = flip ? r + 1 : 8 - r;
    board.append(h("div", { class: "label rank" }, String(rank)));
    for (const sq of row) {
      const name = squareName(sq);
      const light = (Math.floor(sq / 8) + (sq % 8)) % 2 === 1;
      const cls = ["sq", light ? "light" : "dark"];
      const unit = units.get(sq);
      const tgt = targets.get(sq);
      const choice = choices.get(sq);
      if (tgt) cls.push("target", `target-${kindOf(tgt[0])}`, unit ? "occupied" : "empty");
      if (choice) cls.push("choice");
      if (movable.has(sq)) cls.push("movable");
      if (sel && sel.type === "unit" && sel.square === sq) cls.push("selected");
      if (touched.has(sq)) cls.push("ai-moved");
      const clickable = tgt || choice || movable.has(sq);
      const cell = h("div", {
        class: cls.join(" "),
        role: "gridcell",
        dataset: { square: String(sq), name },
        title: unit ? `${name}: ${SIDE_NAMES[unit.colour]} ${unit.unit}${unit.flags.length ? " (" + unit.flags.join(", ") + ")" : ""}\nright-click or long-press: how it moves` : name,
        onclick: clickable ? (event) => clickSquare(sq, event) : null,
        // A right click (a long press on a touch screen) shows how the unit moves; it orders nothing.
        oncontextmenu: unit ? (event) => { event.preventDefault(); showUnitHow(unit.token); } : null,
      });
      if (unit) {
        const holder = h("div", { class: "unit", dataset: { token: unit.token, colour: String(unit.colour) } });
        holder.append(glyphSVG(unit.token, unit.colour, `${SIDE_NAMES[unit.colour]} ${unit.unit}`));
        const badges = h("div", { class: "badges" });
        for (const flag of unit.flags) {
          const b = FLAG_BADGES[flag] || { text: "?", cls: "other" };
          badges.append(h("span", { class: `badge ${b.cls}`, title: flag }, b.text));
        }
        holder.append(badges);
        cell.append(holder);
      }
      if (tgt) cell.append(h("span", { class: "marker" }));
      board.append(cell);
    }
  });
  board.append(h("div", { class: "label corner" }));
  for (const f of files) board.append(h("div", { class: "label file" }, f));
}

function clickSquare(sq, event) {
  const view = app.view;
  if (!view || !view.your_turn || app.busy) return;
  const actions = view.actions;
  const sel = app.selected;
  let matching = [];
  if (sel && sel.type === "unit") matching = actions.filter((a) => isMove(a) && a.fields.origin === sel.square && a.fields.dest === sq);
  else if (sel && sel.type === "barracks") matching = actions.filter((a) => isDeploy(a) && a.fields.unit === sel.token && a.fields.dest === sq);
  if (!matching.length) matching = actions.filter((a) => a.fields.type === "square" && a.fields.square === sq);
  if (matching.length === 1) return sendAction(matching[0].id);
  if (matching.length > 1) return openChooser(matching, event, "Choose");
  // Select (or unselect) a unit with orders.
  const hasOrders = actions.some((a) => isMove(a) && a.fields.origin === sq);
  app.selected = hasOrders && !(sel && sel.type === "unit" && sel.square === sq) ? { type: "unit", square: sq } : null;
  closeChooser();
  render();
}

function renderBarracks(view, actions) {
  const deployable = new Set(actions.filter(isDeploy).map((a) => a.fields.unit));
  const top = clear($("#barracks-top"));
  const bottom = clear($("#barracks-bottom"));
  const you = view.human;
  const fill = (node, side) => {
    node.append(h("span", { class: "row-label" }, `${side === you ? "Your" : "AI's"} Barracks (${SIDE_NAMES[side]})`));
    const row = h("div", { class: "units-row", id: `barracks-${side}`, dataset: { side: String(side) } });
    const entries = Object.entries(view.barracks[side] || {});
    if (!entries.length) row.append(h("span", { class: "empty-note" }, "empty"));
    for (const [token, n] of entries) {
      const can = side === you && deployable.has(token);
      // Only your own chip can be selected (the AI's chip of the same type is not).
      const selected = side === you && app.selected && app.selected.type === "barracks" && app.selected.token === token;
      const chip = h("button", {
        type: "button",
        class: `unit-chip${can ? " deployable" : ""}${selected ? " selected" : ""}`,
        disabled: !can,
        title: `${unitName(token)} \u00d7${n}${can ? " (click, then a highlighted square to deploy)" : ""}`,
        dataset: { token },
        onclick: can
          ? () => {
              app.selected = selected ? null : { type: "barracks", token };
              closeChooser();
              render();
            }
          : null,
      });
      chip.append(glyphSVG(token, side, unitName(token)), h("span", { class: "count" }, `\u00d7${n}`));
      row.append(chip);
    }
    node.append(row);
  };
  fill(top, 1 - you);
  fill(bottom, you);
}

function groupLabel(kind) {
  return { play: "Play", buy: "Buy", card: "Choose a card", square: "Choose a square", unit: "Choose a unit", yesno: "Answer", number: "Choose a number", done: "" }[kind] ?? kind;
}

function renderActions(view, actions) {
  const box = clear($("#actions"));
  const orderBox = clear($("#order-buttons"));
  const groups = new Map();
  const orderActions = [];
  for (const a of actions) {
    if (isOrder(a)) {
      orderActions.push(a);
      continue;
    }
    if (!groups.has(a.fields.type)) groups.set(a.fields.type, []);
    groups.get(a.fields.type).push(a);
  }
  const order = ["yesno", "number", "square", "unit", "card", "play", "buy", "done"];
  const kinds = [...groups.keys()].sort((a, b) => (order.indexOf(a) + 99) % 99 - (order.indexOf(b) + 99) % 99);
  for (const kind of kinds) {
    const group = h("div", { class: `action-group group-${kind}` });
    const label = groupLabel(kind);
    if (label) group.append(h("span", { class: "group-label" }, label));
    for (const a of groups.get(kind)) {
      const card = a.fields.card || null;
      const button = h("button", {
        type: "button",
        class: `action kind-${kind}`,
        dataset: card ? { actionId: String(a.id), kind, card, hint: `Click: ${a.text}` } : { actionId: String(a.id), kind },
        "aria-description": card ? cardTip(card) : null,
        onclick: () => sendAction(a.id),
      });
      if (kind === "unit") button.append(glyphSVG(a.fields.unit, view.human, unitName(a.fields.unit)));
      button.append(a.text);
      group.append(button);
    }
    box.append(group);
  }
  if (!actions.length) {
    box.append(h("p", { class: "idle" }, view.status === "over" ? "The game is over." : view.thinking ? "The AI is thinking\u2026" : app.busy ? "\u2026" : "Nothing to decide now."));
  }
  const hasBoard = orderActions.length > 0;
  $("#order-list").hidden = !hasBoard;
  if (hasBoard) {
    $("#order-list summary").textContent = `Orders as a list (${orderActions.length}): or click a unit on the board`;
    for (const a of orderActions) {
      orderBox.append(h("button", { type: "button", class: `action kind-${kindOf(a)}`, dataset: { actionId: String(a.id), kind: kindOf(a) }, onclick: () => sendAction(a.id) }, a.text));
    }
  }
}

/** A card's name that is not an action: a tap or click shows what it does (the card popover). */
function cardChip(name, cls = "card small") {
  if (!name) return h("span", { class: `${cls} unknown`, title: "not known to you" }, "?");
  return h("button", { type: "button", class: `${cls} info`, dataset: { card: name }, "aria-description": cardTip(name) }, name);
}

/** Where the cards of the pending card choice come from ("hand", "supply", ...), or null. */
function cardChoiceZone(actions) {
  const choice = actions.find((a) => a.fields.type === "card");
  return choice ? choice.fields.zone : null;
}

function renderHand(view, actions) {
  $("#hand-panel h2").textContent = view.watching ? `${SIDE_NAMES[0]}'s hand` : "Your hand";
  if (view.watching) {                     // a spectator: the seat's piles, its Hand by size only
    const seat = view.observation.seats[0];
    clear($("#hand")).append(h("span", { class: "empty-note" }, `${seat.hand_size} cards (hidden)`));
    clear($("#you-piles")).append(pile("Deck", seat.deck_size, null, "you-deck"), pileList("Discard", seat.discard, "you-discard"),
      pileList("Played", seat.played, "you-played"));
    return;
  }
  const you = (view.observation && view.observation.you) || {};
  const hand = clear($("#hand"));
  const zone = cardChoiceZone(actions);
  for (const name of you.hand || []) {
    // The card's plays, and the card choices the decision says come from the hand.
    const matching = actions.filter((a) => a.fields.card === name && (a.fields.type === "play" || (a.fields.type === "card" && zone === "hand")));
    const chip = h("button", {
      type: "button",
      // Not disabled when it is no action now: a tap still shows what the card does.
      class: `card${matching.length ? " clickable" : " info"}`,
      dataset: matching.length ? { card: name, hint: `Click: ${matching.map((a) => a.text).join(" / ")}` } : { card: name },
      "aria-description": cardTip(name),
      onclick: matching.length ? (event) => (matching.length === 1 ? sendAction(matching[0].id) : openChooser(matching, event, name)) : null,
    }, name);
    hand.append(chip);
  }
  if (!(you.hand || []).length) hand.append(h("span", { class: "empty-note" }, "no cards in hand"));
  const piles = clear($("#you-piles"));
  piles.append(
    pile("Deck", you.deck_size, you.deck_top && you.deck_top.length ? cardList("top:", you.deck_top) : null, "you-deck"),
    pileList("Discard", you.discard, "you-discard"),
    pileList("Played", you.played, "you-played"),
  );
}

function pile(label, count, extra, id) {
  return h("div", { class: "pile", id }, h("span", { class: "pile-label" }, label), h("span", { class: "pile-count" }, String(count ?? 0)), extra ? h("span", { class: "pile-extra" }, extra) : null);
}

/** "top: [card] [card]": a label and card chips (null: a card not known to you). */
function cardList(label, names) {
  return h("span", { class: "card-list" }, `${label} `, names.map((name) => cardChip(name)));
}

function pileList(label, cards, id) {
  const list = cards || [];
  const node = pile(label, list.length, null, id);
  const names = h("span", { class: "pile-cards" });
  for (const name of list) names.append(cardChip(name));
  node.append(names);
  return node;
}

function renderOpponent(view) {
  $("#opponent-panel h2").textContent = view.watching ? SIDE_NAMES[1] : "Opponent";
  const opp = (view.observation && (view.watching ? view.observation.seats[1] : view.observation.opponent)) || {};
  const piles = clear($("#opp-piles"));
  piles.append(
    pile("Hand", opp.hand_size, opp.hand_known && opp.hand_known.length ? cardList("known:", opp.hand_known) : null, "opp-hand"),
    pile("Deck", opp.deck_size, opp.deck_top && opp.deck_top.length ? cardList("top:", opp.deck_top) : null, "opp-deck"),
    pileList("Discard", opp.discard, "opp-discard"),
    pileList("Played", opp.played, "opp-played"),
  );
}

function renderSupply(view, actions) {
  const body = clear($("#supply tbody"));
  if (!view.supply.length) body.append(h("tr", {}, h("td", { colspan: "3", class: "empty-note" }, "no Supply in this game")));
  // A row is an action only for a buy, or for a card choice that takes its card from the Supply:
  // while a card is chosen from the Hand (or named, or from a Discard), only that zone is selectable.
  const zone = cardChoiceZone(actions);
  for (const item of view.supply) {
    const matching = actions.filter((a) => a.fields.card === item.name && (a.fields.type === "buy" || (a.fields.type === "card" && zone === "supply")));
    const row = h("tr", {
      class: `${matching.length ? "clickable" : ""}${item.left === 0 ? " empty" : ""}`,
      dataset: matching.length ? { card: item.name, hint: `Click: ${matching.map((a) => a.text).join(" / ")}` } : { card: item.name },
      "aria-description": cardTip(item.name),
      onclick: matching.length ? (event) => (matching.length === 1 ? sendAction(matching[0].id) : openChooser(matching, event, item.name)) : null,
    });
    row.append(h("td", {}, item.name), h("td", { class: "num" }, String(item.cost)), h("td", { class: "num" }, String(item.left)));
    body.append(row);
  }
}

/** The Card reference panel: every card of this game's Supply, then the starting cards in play. */
function renderCardReference(view) {
  const list = $("#card-ref-list");
  const starters = view.starters || [];
  const key = JSON.stringify([view.id, view.supply.map((item) => item.name), starters, Object.keys(app.catalog.cards).length]);
  if (list.dataset.key === key) return;          // unchanged: keep the panel (and its scroll) as it is
  list.dataset.key = key;
  clear(list);
  const section = (title, names, cls) => {
    if (!names.length) return;
    list.append(h("h3", {}, title));
    for (const name of names) list.append(h("div", { class: `card-ref-item ${cls}`, dataset: { ref: name } }, cardInfo(name, "span")));
  };
  section("Supply", view.supply.map((item) => item.name), "supply");
  section("Starting cards", starters, "starter");
  if (!view.supply.length && !starters.length) list.append(h("p", { class: "empty-note" }, "no cards in this game"));
}

function renderTrash(view) {
  const trash = (view.observation && view.observation.trash) || [];
  clear($("#trash-box")).append(pileList("Trash", trash, "trash"));
}

/** A unit type described for a hover: "Knight (N): Mounted" (+ cylindrical). */
function unitTitle(token) {
  const u = app.catalog.units[token];
  if (!u) return token;
  return `${u.name} (${token}): ${u.classes.join(", ") || "no class"}${u.cylindrical ? "; cylindrical" : ""}`;
}

function renderStock(view) {
  const stock = clear($("#stock"));
  for (const [token, n] of Object.entries(view.stock || {})) {
    const name = unitName(token);
    stock.append(h("span", { class: "unit-chip stock-unit", title: `${unitTitle(token)}; ${n} in the Stock`, dataset: { token } },
      glyphSVG(token, null, name), h("span", { class: "unit-name" }, name), h("span", { class: "count" }, String(n))));
  }
}

/** An entry's text with the card it names (its fields say which) as a card chip. */
function entryText(entry) {
  const name = entry.fields && entry.fields.card;
  const at = name ? entry.text.indexOf(name) : -1;
  if (at < 0) return [entry.text];
  return [entry.text.slice(0, at), cardChip(name, "card-ref"), entry.text.slice(at + name.length)];
}

function renderAILastTurn(view) {
  $("#ai-panel").hidden = !!view.watching;             // a seat's panel: a spectator reads the log
  const list = clear($("#ai-last-turn"));
  for (const entry of view.ai_last_turn || []) list.append(h("li", {}, entryText(entry)));
  if (!(view.ai_last_turn || []).length) list.append(h("li", { class: "empty-note" }, view.thinking ? "thinking\u2026" : "nothing yet"));
}

function renderLog(view) {
  const log = $("#log");
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  clear(log);
  for (const entry of view.log || []) {
    const who = whoIs(view, entry.player, SIDE_NAMES);
    const cls = entry.player === null || entry.player === undefined ? "system" : `side-${entry.player}`;
    log.append(h("li", { class: cls }, h("span", { class: "log-turn" }, `T${entry.turn}`), who ? h("span", { class: "log-who" }, who) : null, h("span", { class: "log-text" }, entryText(entry))));
  }
  if (atBottom || !log.dataset.scrolled) {
    log.scrollTop = log.scrollHeight;
    log.dataset.scrolled = "1";
  }
}

/** Save the finished game's record (it needs the token, so it is fetched, then offered as a file). */
async function downloadRecord(id, watching = false) {
  try {
    const record = watching ? await api("GET", `/api/games/${encodeURIComponent(id)}/watch/record`)
      : await api("GET", `/api/games/${encodeURIComponent(id)}/record`, undefined, gameToken(id));
    const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
    const link = h("a", { href: URL.createObjectURL(blob), download: `ftc-game-${id}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (exc) {
    showError(`game record: ${exc.message}`);
  }
}

function renderGameOver(view) {
  const banner = $("#gameover");
  if (view.status !== "over") {
    banner.hidden = true;
    return;
  }
  let head = "Draw";
  if (view.watching && Number.isInteger(view.winner)) head = `${sidesOf(view)[view.winner]} won`;
  else if (view.winner === view.human) head = "You won!";
  else if (Number.isInteger(view.winner)) head = `${sidesOf(view)[view.winner]}${seatTag(view, view.winner)} won`;
  banner.className = view.watching ? "watched" : view.winner === view.human ? "won" : view.winner === null || view.winner === undefined ? "draw" : "lost";
  clear(banner).append(
    h("strong", {}, head),
    h("span", {}, ` \u2014 ${view.over || "game over"}`),
    h("button", { type: "button", class: "record", onclick: () => downloadRecord(view.id, view.watching) }, "game record"),
    h("button", { type: "button", onclick: () => showNewGameForm(true) }, "New game"),
  );
  banner.hidden = false;
}

function renderLegend() {
  const grid = clear($("#legend-grid"));
  const tokens = Object.keys(app.catalog.units);
  for (const token of tokens) {
    const u = app.catalog.units[token];
    const title = `${u.name} (${token})${u.cylindrical ? ", cylindrical" : ""}; moves ${u.moves}; ${u.classes.join(", ")}`;
    grid.append(h("button", { type: "button", class: "legend-item", title: `${title}\nclick: where it may go`, dataset: { token }, onclick: () => showUnitHow(token) },
      glyphSVG(token, 0, u.name), glyphSVG(token, 1, u.name), h("span", {}, `${token} ${u.name}`)));
  }
}

// -- the chooser (promotions and other several-actions clicks) ---------------------------------
function openChooser(actions, event, heading) {
  const chooser = $("#chooser");
  clear(chooser).append(h("div", { class: "chooser-title" }, heading));
  const side = app.view ? app.view.human : 0;
  for (const a of actions) {
    const b = h("button", { type: "button", class: `action kind-${kindOf(a)}`, dataset: { actionId: String(a.id), kind: kindOf(a), ...(a.fields.card ? { card: a.fields.card } : {}) }, onclick: () => sendAction(a.id) });
    // A promotion: show the unit it becomes.
    const token = isOrder(a) ? a.fields.promotion : null;
    if (token) {
      b.append(glyphSVG(token, side, unitName(token)), `${unitName(token)} (${a.text})`);
    } else {
      b.append(a.text);
    }
    chooser.append(b);
  }
  chooser.append(h("button", { type: "button", class: "cancel", onclick: () => { closeChooser(); app.selected = null; render(); } }, "Cancel"));
  chooser.hidden = false;
  const wrap = $("#board-wrap").getBoundingClientRect();
  const x = event && event.clientX !== undefined ? event.clientX : wrap.left + wrap.width / 2;
  const y = event && event.clientY !== undefined ? event.clientY : wrap.top + wrap.height / 2;
  chooser.style.left = `${Math.max(4, Math.min(window.innerWidth - 240, x + 8))}px`;
  chooser.style.top = `${Math.max(4, Math.min(window.innerHeight - 40 - 34 * actions.length, y + 8))}px`;
}

function closeChooser() {
  const chooser = $("#chooser");
  if (chooser) {
    chooser.hidden = true;
    clear(chooser);
  }
}

// -- new game form -----------------------------------------------------------------------------
function showNewGameForm(show) {
  $("#new-game").hidden = !show;
  $("#new-game-cancel").hidden = !app.view;
  if (show) updateBodyState();
}

/** A line under each menu of the new-game form saying what its choice does (the labels' titles say
 *  what every choice does). */
const FIELD_NOTES = {
  game: { ftc: "cards and units on an 8x8 board", "kings-ransom": "face-down chess cards on a 3x6 arena" },
  variant: { standard: "the full card game", "point-buy": "no cards: buy an army, then one order a turn", "last-stand": "training: Yellow defends, without cards" },
  supply: { "first-game": "the rulebook's piles for a first game", random: "10 piles drawn at random" },
  human: { 0: "you move first", 1: "the AI moves first", random: "a coin toss decides" },
  // The Last Stand: the Defender (Yellow) moves first (11.5, ruling C21 for extra turns).
  "human-last-stand": { 0: "you attack; the AI defends and moves first", 1: "you defend and move first", random: "a coin toss decides" },
  level: { easy: "takes the best-looking choice now", normal: "searches 0.5 s a decision", strong: "searches 2 s a decision", "": "the AI and its budget below" },
  bot: { ismcts: "searches over the cards it cannot see", greedy: "the best-looking choice now", random: "any legal choice", alphabeta: "a chess search, Point-Buy only" },
};

function updateFieldNotes() {
  const lastStand = $("#new-game select[name=game]").value === "ftc" && $("#new-game select[name=variant]").value === "last-stand";
  for (const [name, notes] of Object.entries(FIELD_NOTES)) {
    if (name === "human-last-stand") continue;
    const select = $(`#new-game select[name=${name}]`);
    const note = $(`#new-game .field-note[data-for=${name}]`);
    const shown = name === "human" && lastStand ? FIELD_NOTES["human-last-stand"] : notes;
    if (select && note) note.textContent = shown[select.value] ?? "";
  }
  if (!ransomChosen() && !genericChosen()) {
    const seats = $("#new-game select[name=human]").options;
    seats[0].textContent = lastStand ? "Blue (attacks)" : "Blue (moves first)";
    seats[1].textContent = lastStand ? "Yellow (defends, moves first)" : "Yellow";
  }
  const game = $("#new-game select[name=game]").value;
  document.querySelectorAll("#games-intro .game-card").forEach((card) => card.classList.toggle("chosen", card.dataset.game === game));
}

/** The new-game form for the chosen game: King's Ransom has no variant, Supply or seed (its deal is
 *  the server's secret), Red and Blue seats, and no alpha-beta AI. */
function ransomChosen() {
  return $("#new-game select[name=game]").value === "kings-ransom";
}

function chooseGame() {
  const ransom = ransomChosen();
  const kind = genericChosen();
  document.querySelectorAll("#new-game .ftc-only").forEach((node) => { node.hidden = ransom || !!kind; });
  document.querySelectorAll("#new-game .levels-only").forEach((node) => { node.hidden = !!kind; });
  document.querySelectorAll("#new-game .generic-only").forEach((node) => { node.hidden = !kind; });
  const seats = $("#new-game select[name=human]").options;
  renderGameForm(kind);
  if (kind) {
    seats[0].textContent = `${kind.seats[0]} (moves first)`;
    seats[1].textContent = kind.seats[1];
    // The game's AI levels (level -> bot spec, GET /api/games/kinds) first, then its bots by name.
    const bots = clear($("#new-game select[name=game-bot]"));
    const levels = Object.entries(kind.ai_levels || {});
    // Each bot in words (the registry's labels); its spec stays the value and the hover title.
    const label = (spec) => (kind.bot_labels && kind.bot_labels[spec]) || spec;
    const botOptions = kind.bots.map((b) => h("option", { value: b, title: b }, label(b)));
    if (levels.length) {
      const levelOptions = levels.map(([level, spec]) => h("option", { value: `level:${level}`, title: spec },
        `${level[0].toUpperCase()}${level.slice(1)} (${label(spec)})`));
      levelOptions[Math.max(0, levels.findIndex(([level]) => level === "normal"))].selected = true;
      bots.append(h("optgroup", { label: "Levels" }, ...levelOptions), h("optgroup", { label: "Players by name" }, ...botOptions));
    } else {
      bots.append(...botOptions);
    }
    updateFieldNotes();
    return;
  }
  seats[0].textContent = ransom ? "Red (moves first)" : "Blue (moves first)";
  seats[1].textContent = ransom ? "Blue" : "Yellow";
  const bot = $("#new-game select[name=bot]");
  bot.querySelector("option[value=alphabeta]").hidden = ransom;
  if (ransom && bot.value === "alphabeta") bot.value = "ismcts";
  updateFieldNotes();
}

/** A game's own fields of the new-game form (its registry ``WebBoard.form``, GET /api/games/kinds):
 *  a menu each, whose choices are JSON values; a game whose form has ``human`` replaces the seat menu. */
function renderGameForm(kind) {
  const box = clear($("#game-form"));
  const fields = kind && kind.form ? kind.form : [];
  $("#human-field").hidden = fields.some((f) => f.name === "human");
  for (const field of fields) {
    box.append(h("label", { title: field.title || "" }, field.label,
      h("select", { name: `game-option-${field.name}`, dataset: { field: field.name } },
        ...field.choices.map((c, i) => h("option", { value: String(i) }, c.label)))));
  }
}

/** The chosen values of a game's own form fields: ``human`` (the seat) and ``options``. */
function gameFormValues(kind) {
  const out = { options: {} };
  for (const field of kind.form) {
    const select = $(`#game-form select[data-field="${CSS.escape(field.name)}"]`);
    const value = field.choices[parseInt(select.value, 10)].value;
    if (field.name === "human") out.human = value;
    else if (value !== null) out.options[field.name] = value;
  }
  return out;
}

/** The player's tools (hint, save, record) sit in the status panel of the game shown. */
function placePlayerTools() {
  const tools = [$("#player-tools"), $("#hint-box"), $("#save-box")];
  if (tools[0].parentNode === $("#status-panel")) return;
  $("#order-list").after(...tools);
}

function init() {
  $("#new-game").addEventListener("submit", newGame);
  $("#new-game-toggle").addEventListener("click", () => showNewGameForm($("#new-game").hidden));
  $("#new-game-cancel").addEventListener("click", () => showNewGameForm(false));
  $("#resign").addEventListener("click", () => {
    $("#resign-confirm").hidden = false;
    $("#resign").hidden = true;
  });
  $("#resign-no").addEventListener("click", () => {
    $("#resign-confirm").hidden = true;
    $("#resign").hidden = false;
  });
  $("#resign-yes").addEventListener("click", resign);
  const bot = $("#new-game select[name=bot]");
  const iters = $("#new-game input[name=iterations]");
  const level = $("#new-game select[name=level]");
  const custom = () => { bot.disabled = !!level.value; iters.disabled = !!level.value || !(bot.value === "ismcts" || bot.value === "alphabeta"); };
  level.addEventListener("change", custom);
  custom();
  $("#new-game select[name=game]").addEventListener("change", chooseGame);
  document.querySelectorAll("#new-game select").forEach((select) => select.addEventListener("change", updateFieldNotes));
  // A game's description chooses it in the Game menu.
  document.querySelectorAll("#games-intro .game-card").forEach((card) => card.querySelector("button.game-intro").addEventListener("click", () => {
    $("#new-game select[name=game]").value = card.dataset.game;
    chooseGame();
  }));
  chooseGame();
  loadKinds();
  bot.addEventListener("change", () => {
    iters.disabled = !(bot.value === "ismcts" || bot.value === "alphabeta");
    if (bot.value === "alphabeta" && +iters.value > 8) iters.value = 3;
    if (bot.value === "ismcts" && +iters.value <= 8) iters.value = 300;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      hideCardPop();
      if (app.board && typeof app.board.clearSelection === "function") app.board.clearSelection();
      closeChooser();
      if (app.selected) {
        app.selected = null;
        render();
      }
    }
  });
  window.addEventListener("hashchange", () => {
    const id = gameIdFromHash();
    const watched = watchIdFromHash();
    const invited = joinFromHash();
    if (invited) joinGame(invited.id, invited.code);
    else if (watched && (watched !== app.gameId || !app.watching)) openWatch(watched);
    else if (id && (id !== app.gameId || app.watching)) openGame(id);
  });
  initCardPop();
  setBusy(false);
  render();
  loadCatalog().then(() => app.view && render());
  initPlayerTools();
  const id = gameIdFromHash();
  const watched = watchIdFromHash();
  const invited = joinFromHash();
  if (invited) joinGame(invited.id, invited.code);
  else if (watched) openWatch(watched);
  else if (id) openGame(id);
  else showNewGameForm(true);
}

// -- seats: invitations, joining, rematches (docs/server.md "Seats, invitations and bots") -------
// The creator's answer holds an invitation code for each open seat; this browser keeps them beside
// the game's token (the server keeps only their hashes) to show the links until the seats are taken.
const INVITES_KEY = (id) => `ftc.invites.${id}`;

function keepInvites(id, invites) {
  try {
    localStorage.setItem(INVITES_KEY(id), JSON.stringify(invites));
  } catch (exc) {
    console.error("cannot keep the game's invitations", exc);
  }
}

function gameInvites(id) {
  try {
    const kept = JSON.parse(localStorage.getItem(INVITES_KEY(id)) || "[]");
    return Array.isArray(kept) ? kept : [];
  } catch (exc) {
    return [];
  }
}

/** The invitation a ``#join=ID.CODE`` address holds, or null. */
function joinFromHash() {
  const match = /(?:^|[#&])join=([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,128})/.exec(location.hash);
  return match ? { id: match[1], code: match[2] } : null;
}

/** Take the invited seat: the code leaves the address at once; the seat's token is kept as a
 *  created game's is, and the game opens from that seat. */
async function joinGame(id, code) {
  history.replaceState(null, "", location.pathname);
  showError(null);
  try {
    const seat = await api("POST", `/api/games/${encodeURIComponent(id)}/join`, { code });
    keepToken(id, seat.token);
    history.replaceState(null, "", `#game=${id}`);
    openGame(id);
  } catch (exc) {
    showError(`cannot join game ${id}: ${exc.message}`);
    showNewGameForm(true);
  }
}

/** The seats bar: who plays each seat, the creator's invitation links of open seats, and once the
 *  game is over the rematch (offer, who offered, the new game: the same token plays it). */
function renderSeats(view) {
  const bar = $("#seats-bar");
  if (!bar) return;
  clear(bar);
  const seating = view && !view.watching && view.seating ? view.seating : null;
  const others = seating ? seating.filter((s) => s.kind !== "ai" && s.seat !== view.seat) : [];
  const over = seating && view.status === "over";
  bar.hidden = !seating || (!others.length && !over);
  if (bar.hidden) return;
  const names = sidesOf(view);
  const invites = view.seat === view.creator ? gameInvites(view.id) : [];
  for (const s of seating) {
    const name = names[s.seat] ?? `seat ${s.seat}`;
    let what = s.seat === view.seat ? "you" : s.kind === "ai" ? "the AI" : s.kind === "bot" ? "a bot" : "a friend";
    const item = h("span", { class: "seat-item", dataset: { seat: String(s.seat) } }, `${name}: ${what}`);
    if (s.kind !== "ai" && s.seat !== view.seat && !s.taken) {
      const invite = invites.find((i) => i.seat === s.seat);
      item.append(" (open)");
      if (invite) {
        const link = `${location.origin}${invite.link}`;
        item.append(" ", h("input", { class: "invite-link", readonly: true, value: link, title: "send this link to the friend who plays this seat",
          onclick: (event) => event.target.select() }));
      }
    }
    bar.append(item);
  }
  if (!over) return;
  const rematch = view.rematch || { offered: [], game: null };
  if (rematch.game) {
    const token = gameToken(view.id);
    if (token && !gameToken(rematch.game)) keepToken(rematch.game, token);      // the same token plays it
    bar.append(h("a", { id: "rematch-link", href: `#game=${rematch.game}` }, "Open the rematch"));
    return;
  }
  const offered = rematch.offered.includes(view.seat);
  const waiting = seating.filter((s) => s.kind !== "ai" && !rematch.offered.includes(s.seat)).map((s) => names[s.seat] ?? `seat ${s.seat}`);
  bar.append(h("button", { type: "button", id: "rematch-button", disabled: offered || app.busy, onclick: offerRematch },
    offered ? `Rematch offered; waiting for ${waiting.join(", ")}` : rematch.offered.length ? "Accept the rematch" : "Offer a rematch"));
}

async function offerRematch() {
  const view = app.view;
  if (!view) return;
  try {
    const answer = await api("POST", `/api/games/${encodeURIComponent(view.id)}/rematch`, undefined, gameToken(view.id));
    if (app.view && app.view.id === view.id) {
      app.view = { ...app.view, rematch: answer.rematch, seating: answer.seating };
      renderSeats(app.view);
    }
  } catch (exc) {
    showError(`rematch: ${exc.message}`);
  }
}

// -- the player's tools: hint, save / saved games / open a saved game, download what I know ------
// (player_tools.py). A resume code is "<game id>.<token>": whoever holds it can play the game. A
// resume link carries it in the URL's fragment (#resume=...), which browsers never send to a
// server; the page stores it and removes it from the address at once.
const RESUME_RE = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{16,128})$/;

function savedGameIds() {
  const ids = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith("ftc.token.")) ids.push(key.slice("ftc.token.".length));
    }
  } catch (exc) {
    return [];
  }
  return ids;
}

function forgetToken(id) {
  try {
    localStorage.removeItem(TOKEN_KEY(id));
  } catch (exc) {
    console.error("cannot forget the game's token", exc);
  }
}

function resumeCode(id) {
  return `${id}.${gameToken(id)}`;
}

/** Keep the game of a resume code in this browser and open it; false (and a message) when malformed
 * or when the server does not know it. The server is asked first, so a link carrying a made-up token
 * never replaces the token this browser holds for that game. */
async function openResumeCode(code) {
  const match = RESUME_RE.exec((code || "").trim());
  if (!match) {
    showError("open saved game: a resume code is the game id, a dot and the token (as the Save button shows it)");
    return false;
  }
  let found = false;
  try {
    const answer = await api("POST", "/api/games/saved", { games: [{ id: match[1], token: match[2] }] });
    found = answer.games.length === 1 && answer.games[0].found === true;
  } catch (exc) {
    showError(`open saved game: ${exc.message}`);
    return false;
  }
  if (!found) {
    showError("open saved game: this resume code opens no game on this server (the token this browser holds, if any, is kept)");
    return false;
  }
  keepToken(match[1], match[2]);
  history.replaceState(null, "", `#game=${match[1]}`);
  showSavedGames(false);
  showNewGameForm(false);
  openGame(match[1]);
  return true;
}

function clearHint() {
  app.hint = null;
  const box = $("#hint-box");
  if (box) {
    box.hidden = true;
    clear(box);
  }
}

function renderPlayerTools(view) {
  const yours = view.your_turn && !app.busy && view.status === "playing";
  $("#hint-button").disabled = !yours || !!app.hinting;
  $("#knowledge-button").disabled = !(view.status === "over" || view.your_turn);
  $("#knowledge-button").hidden = isGeneric(view) && !(app.board && app.board.knowledge === true);   // a module says it offers one
  $("#record-button").hidden = view.status !== "over";
  if (app.hint && (app.hint.id !== view.id || app.hint.version !== view.version)) clearHint();
  const hint = app.hint;
  document.querySelectorAll(".hinted").forEach((node) => node.classList.remove("hinted"));
  if (!hint) return;
  document.querySelectorAll(`[data-action-id="${hint.action}"]`).forEach((node) => node.classList.add("hinted"));
  const f = hint.fields || {};
  if (isGeneric(view)) {
    if (app.board && typeof app.board.showHint === "function") app.board.showHint(f);
    return;
  }
  for (const sq of [f.origin, f.dest, f.square]) {
    if (sq !== null && sq !== undefined) {
      const cell = document.querySelector(`#board .sq[data-square="${sq}"]`);
      if (cell) cell.classList.add("hinted");
    }
  }
}

/** What each ``source`` of a hint means (engine/search/ismcts.py, SearchStats.source; ai.py's fallback). */
const HINT_SOURCES = {
  plan: "the first step of the AI's planned line for your whole turn (every card, order and draw of this turn searched)",
  win: "a line that wins the game this turn",
  search: "the AI's tree search over what you cannot see (its most visited choice)",
  prior: "the AI's rule of thumb for this kind of decision (buying: what a card is worth)",
  greedy: "the quick greedy bot's choice (the full AI could not answer in time)",
  alphabeta: "the AI's alpha-beta search (its best move in the hint's time)",
};

async function askHint() {
  const view = app.view;
  if (!view || !view.your_turn || app.hinting) return;
  app.hinting = true;
  clearHint();
  const box = $("#hint-box");
  clear(box).append(h("span", {}, "The AI is thinking about your move\u2026"));
  box.hidden = false;
  render();
  try {
    const hint = await api("POST", `/api/games/${view.id}/hint`, undefined, gameToken(view.id));
    app.hint = { ...hint, id: view.id };
    const why = HINT_SOURCES[hint.source] || hint.source;
    clear(box).append(h("strong", {}, "Hint: "), h("span", { id: "hint-text" }, hint.text),
      h("span", { class: "hint-source", dataset: { source: hint.source }, title: `how the AI chose it: ${hint.source}` }, ` \u2014 ${why}`));
    if (hint.alternatives.length > 1) {
      const list = h("ol", { class: "hint-alternatives" });
      for (const alt of hint.alternatives) list.append(h("li", {}, `${alt.text} \u2014 ${Math.round(alt.share * 100)}%`));
      box.append(list);
    }
    box.hidden = false;
  } catch (exc) {
    clearHint();
    showError(`hint: ${exc.message}`);
  } finally {
    app.hinting = false;
    render();
  }
}

function showSaveBox() {
  const view = app.view;
  const box = $("#save-box");
  if (!view || !box.hidden) {
    box.hidden = true;
    return;
  }
  const code = resumeCode(view.id);
  const link = `${location.origin}${location.pathname}#resume=${code}`;
  const input = h("input", { id: "resume-code-out", readonly: "", value: code, size: 40, onclick: (e) => e.target.select() });
  clear(box).append(
    h("p", {}, "The game is saved on the server after every move. Keep this resume code (or link) to open it in another browser; whoever holds it can play the game."),
    h("label", {}, "Resume code ", input),
    h("button", { type: "button", onclick: () => navigator.clipboard && navigator.clipboard.writeText(code) }, "Copy"),
    h("p", {}, h("a", { id: "resume-link", href: link }, "resume link")),
  );
  box.hidden = false;
}

async function downloadKnowledge() {
  const view = app.view;
  if (!view) return;
  try {
    const doc = await api("GET", `/api/games/${encodeURIComponent(view.id)}/knowledge`, undefined, gameToken(view.id));
    const blob = new Blob([JSON.stringify(doc)], { type: "application/json" });
    const link = h("a", { href: URL.createObjectURL(blob), download: `ftc-${view.id}-turn${view.turn}.view.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (exc) {
    showError(`download: ${exc.message}`);
  }
}

function showSavedGames(show) {
  $("#saved-games").hidden = !show;
  if (show) refreshSavedGames();
}

async function refreshSavedGames() {
  const list = clear($("#saved-list"));
  const ids = savedGameIds();
  if (!ids.length) {
    list.append(h("li", { class: "idle" }, "No saved games in this browser."));
    return;
  }
  const games = [];
  try {
    for (let i = 0; i < ids.length; i += 50) {
      const chunk = ids.slice(i, i + 50).map((id) => ({ id, token: gameToken(id) }));
      games.push(...(await api("POST", "/api/games/saved", { games: chunk })).games);
    }
  } catch (exc) {
    list.append(h("li", { class: "idle" }, `cannot list the saved games: ${exc.message}`));
    return;
  }
  games.sort((a, b) => (b.updated || 0) - (a.updated || 0));
  for (const g of games) {
    const row = h("li", { class: `saved-game ${g.found ? g.status : "missing"}`, dataset: { gameId: g.id } });
    if (!g.found) {
      row.append(h("span", {}, `${g.id}: not on this server`),
        h("button", { type: "button", class: "forget", onclick: () => { forgetToken(g.id); refreshSavedGames(); } }, "Forget"));
      list.append(row);
      continue;
    }
    const when = g.updated ? new Date(g.updated * 1000).toLocaleString() : "";
    const state = g.status === "over" ? `over: ${g.over}` : g.your_turn ? "in progress, your move" : "in progress, another seat's move";
    row.append(
      h("span", { class: "saved-what" }, savedWhat(g)),
      h("span", { class: "saved-state" }, ` \u00b7 ${state}`),
      h("span", { class: "saved-when" }, ` \u00b7 last played ${when}`),
      h("button", { type: "button", class: "resume", onclick: () => { showSavedGames(false); showNewGameForm(false); history.replaceState(null, "", `#game=${g.id}`); openGame(g.id); } }, "Resume"),
      h("button", { type: "button", class: "delete", onclick: () => deleteSavedGame(g.id) }, "Delete"),
    );
    list.append(row);
  }
}

async function deleteSavedGame(id) {
  if (!window.confirm(`Delete game ${id} for good?`)) return;
  try {
    await api("DELETE", `/api/games/${encodeURIComponent(id)}`, undefined, gameToken(id));
  } catch (exc) {
    if (exc.status !== 404) {
      showError(`delete: ${exc.message}`);
      return;
    }
  }
  forgetToken(id);
  if (app.gameId === id) {
    app.gameId = null;
    app.view = null;
    history.replaceState(null, "", location.pathname);
    render();
  }
  refreshSavedGames();
}

function initPlayerTools() {
  app.hint = null;
  app.hinting = false;
  $("#hint-button").addEventListener("click", askHint);
  $("#save-button").addEventListener("click", showSaveBox);
  $("#knowledge-button").addEventListener("click", downloadKnowledge);
  $("#record-button").addEventListener("click", () => app.view && downloadRecord(app.view.id));
  $("#saved-toggle").addEventListener("click", () => showSavedGames($("#saved-games").hidden));
  $("#saved-close").addEventListener("click", () => showSavedGames(false));
  $("#resume-form").addEventListener("submit", (event) => {
    event.preventDefault();
    openResumeCode($("#resume-code").value).then((opened) => { if (opened) $("#resume-code").value = ""; });
  });
  // A resume link: the code is in the fragment; keep it and take it out of the address at once
  // (when the page loads with it, and when it is followed from this very page).
  const resumeFromAddress = () => {
    const match = /(?:^|[#&])resume=([^&]+)/.exec(location.hash);
    if (match) {
      history.replaceState(null, "", location.pathname);
      openResumeCode(decodeURIComponent(match[1]));
    }
  };
  window.addEventListener("hashchange", resumeFromAddress);
  resumeFromAddress();
}

init();
