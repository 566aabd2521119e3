// The web client's shell (docs/server.md, "The web client"): the page, its menus, the new-game form,
// the sockets, seats, clocks and the player's tools. It names no game: each view names its game and
// the board module that draws it (``render(view, actions, ctx)``), and the form is built from the
// registry (GET /api/games/kinds). Plain ES module, no build step; every server string is put into
// the page with textContent (never innerHTML).
import { $, api, clear, h, seatKind, seatTag, showError } from "./dom.js";
import { closeReview, openReview, reviewedGame } from "./review.js";

/** A view drawn by its board module (every view names its game and module, engine/games/view.py). */
const isGeneric = (view) => !!view && typeof view.module === "string";
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

/** The home page lists every registered game (GET /api/games/kinds): a card and a Game menu option
 *  each, in the registry's order; the registry's default game is chosen first. */
async function loadKinds() {
  let answer;
  try {
    answer = await api("GET", "/api/games/kinds");
  } catch (exc) {
    showError(`cannot list the games of this server: ${exc.message}`);
    return;
  }
  app.kinds = new Map(answer.games.map((k) => [k.name, k]));
  if (!app.view) render();           // the hub's title counts the games
  const select = clear($("#new-game select[name=game]"));
  const cards = clear($("#games-intro"));
  for (const kind of answer.games) {
    select.append(h("option", { value: kind.name, title: kind.description, dataset: { kind: kind.name, module: kind.module } }, kind.title));
    cards.append(h("div", { class: "game-card", dataset: { game: kind.name, kind: kind.name } },
      h("button", { type: "button", class: "game-intro", title: "choose this game", onclick: () => { select.value = kind.name; chooseGame(); } },
        h("strong", {}, kind.title), h("span", { class: "game-line" }, kind.description)),
      kind.docs ? h("a", { class: "rules-link", href: kind.docs, target: "_blank", rel: "noopener" }, `Rules of ${kind.title}`) : null));
  }
  if (app.kinds.has(answer.default)) select.value = answer.default;
  $("#start").disabled = false;
  chooseGame();
}

const COUNT_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

/** The home page's title: the hub and how many games it plays (once the registry has answered). */
function hubTitle() {
  const count = app.kinds.size;
  return count ? `ftc-engine: ${COUNT_WORDS[count] ?? count} games` : "ftc-engine";
}

/** What a saved game's line says: its game (or the game of its variant), the human's seat, the turn. */
function savedWhat(g) {
  const named = app.kinds.get(g.variant);            // the summary names the game, or one of its variants
  const kind = named || [...app.kinds.values()].find((k) => k.variants.includes(g.variant));
  const seats = kind ? kind.seats : [];
  return `${named ? named.title : g.variant}, you play ${seats[g.human] ?? `seat ${g.human}`}, turn ${g.turn}`;
}

/** The registered game chosen in the form (null until the registry has answered). */
function chosenKind() {
  const option = $("#new-game select[name=game]").selectedOptions[0];
  return option ? app.kinds.get(option.value) || null : null;
}

// -- state ------------------------------------------------------------------------------------
const app = {
  gameId: null,
  view: null,
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
  const kind = chosenKind();
  if (!kind) return;
  const data = new FormData($("#new-game"));
  const body = { game: kind.name, ai: opponentAI(String(data.get("game-bot") || ""), String(data.get("budget") || "")) };
  const seat = data.get("human");
  body.human = seat === "random" ? Math.floor(Math.random() * seatCount(kind)) : parseInt(seat, 10);
  Object.assign(body, gameFormValues(kind));          // the game's own fields (a "human" among them wins)
  const clock = clockControl(String(data.get("clock") || ""));
  if (clock) body.clock = clock;
  if (data.get("friends")) {
    // Every other seat is a friend's: the answer holds an invitation link for each.
    const players = (body.options && body.options.players) || kind.players[0];
    body.seats = Array.from({ length: players }, (_, i) => ({ kind: i === body.human ? "creator" : "human" }));
  }
  showError(null);
  setBusy(true);
  $("#start").disabled = true;
  const aiFirst = body.human !== firstSeat(kind);
  $("#game-label").textContent = aiFirst ? "Creating the game; the AI moves first\u2026" : "Creating the game\u2026";
  try {
    const view = await api("POST", "/api/games", body);
    keepToken(view.id, view.token);
    delete view.token;
    if (view.invites) keepInvites(view.id, view.invites);
    delete view.invites;
    delete view.bots;
    app.gameId = view.id;
    app.view = null;
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
    if (app.board && typeof app.board.clearSelection === "function") app.board.clearSelection();
  }
  app.view = view;
  // The "Analysis board" link opens the analysis of this game (the view names it; no game is named here).
  $("#analysis-link").href = `/analysis?game=${encodeURIComponent(view.game)}`;
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
  const view = app.view;
  const generic = isGeneric(view);
  if (!generic) $("#board-page").hidden = $("#generic-layout").hidden = true;
  const title = view ? view.title : null;
  $("#topbar h1").textContent = title ?? hubTitle();
  document.title = title ? `${title} - ftc-engine` : hubTitle();
  $("#resign").disabled = !view || view.status === "over" || app.busy || !!view.watching;
  $("#resign").hidden = !!(view && view.watching);
  $("#player-tools").hidden = !!(view && view.watching);      // hints, saves, downloads: a seat's
  // The review panel (review.js) shows a finished game's review: closed once another game is shown.
  if (reviewedGame() && (!view || view.id !== reviewedGame() || view.status !== "over")) closeReview();
  if (!view) return;
  $("#game-label").textContent = view.watching ? `game ${view.id} \u00b7 watching (read-only)`
    : `game ${view.id} \u00b7 you play ${sidesOf(view)[view.human]}`;
  const actions = view.your_turn && !app.busy && !view.watching ? view.actions : [];
  renderBoardModule(view, actions);
  renderGameOver(view);
}

/** A game drawn by its board module (docs/server.md, "The web client"): the module's
 *  ``render(view, actions, ctx)`` once it is loaded. A module that exports ``page = true`` draws the
 *  whole page in ``#board-page`` (emptied when another module drew there); any other draws its board
 *  in the shell's panel, whose status line says whose decision it is. ``ctx``: ``root`` (where to
 *  draw), ``sendAction(id)``, ``rerender()`` (the shell draws the view again), ``tools`` (the
 *  player's tools, hint, save and record, which a whole-page module places in its own panel) and
 *  ``busy`` (the shell waits for the server's answer to an action). A module may also export
 *  ``clearSelection()`` (Escape, a new view; true: it had one, draw again), ``showHint(fields)`` (mark
 *  the hint's action on its board) and ``knowledge = true`` (it offers "Download what I know"). */
function renderBoardModule(view, actions) {
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
    const tools = [$("#player-tools"), $("#hint-box"), $("#save-box")];
    if (page && root.dataset.module !== view.module) {
      if (root.contains(tools[0])) $("#generic-tools").append(...tools);     // the tools outlive the page
      clear(root).dataset.module = view.module;
    }
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
    mod.render(view, actions, { sendAction, rerender: render, root, tools, busy: app.busy });
    app.drawn = view;
    updateBodyState();
    renderPlayerTools(view);
  });
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
    h("button", { type: "button", class: "review", id: "review-button", title: "each decision's loss against the engine's best choice",
      onclick: () => openReview(view.id, view.watching ? null : gameToken(view.id), !!view.watching) }, "Review"),
    h("button", { type: "button", onclick: () => showNewGameForm(true) }, "New game"),
  );
  banner.hidden = false;
}


// -- new game form -----------------------------------------------------------------------------
function showNewGameForm(show) {
  $("#new-game").hidden = !show;
  $("#new-game-cancel").hidden = !app.view;
  if (show) updateBodyState();
}

/** The seats the form offers a game: its fewest players' (a game's own form may offer more). */
const seatCount = (kind) => kind.players[0];

/** The choices of the game's own fields chosen now, each with its field (for what a choice changes:
 *  the seats' labels and who moves first). */
function chosenChoices(kind) {
  const out = [];
  for (const field of kind.form || []) {
    const select = $(`#game-form select[data-field="${CSS.escape(field.name)}"]`);
    if (field.choices && select) out.push(field.choices[parseInt(select.value, 10)]);
  }
  return out;
}

/** The seat that moves first in the game as chosen (a choice's ``first``; else seat 0). */
function firstSeat(kind) {
  const choice = chosenChoices(kind).find((c) => Number.isInteger(c.first));
  return choice ? choice.first : 0;
}

/** The seat menu's entries: a choice's own ``seats`` (label and note), else the game's seats with
 *  the first to move marked. */
function seatEntries(kind) {
  const own = chosenChoices(kind).find((c) => Array.isArray(c.seats));
  if (own) return own.seats;
  const first = firstSeat(kind);
  return kind.seats.slice(0, seatCount(kind)).map((name, i) => ({
    label: i === first ? `${name} (moves first)` : name,
    note: i === first ? "you move first" : "the AI moves first",
  }));
}

/** The AI of the form's Opponent menu: a level ("level:NAME") or a player by its spec, with the
 *  budget given (a count: iterations, or plies for a depth search) added to its spec. */
function opponentAI(opponent, budget) {
  if (opponent.startsWith("level:")) return { level: opponent.slice(6) };
  const count = parseInt(budget, 10);
  return { spec: count > 0 ? `${opponent}:${count}` : opponent };
}

/** The lines under the form's menus: what the chosen game, seat and opponent are (the labels' titles
 *  and each choice's title say more); the game's own fields have their choices' notes. */
function updateFieldNotes() {
  const kind = chosenKind();
  if (!kind) return;
  const note = (name, text) => {
    const node = $(`#new-game .field-note[data-for="${CSS.escape(name)}"]`);
    if (node) node.textContent = text || "";
  };
  note("game", kind.description);
  const human = $("#new-game select[name=human]");
  const entries = seatEntries(kind);
  entries.forEach((entry, i) => { if (human.options[i]) human.options[i].textContent = entry.label; });
  note("human", human.value === "random" ? "a coin toss decides" : (entries[parseInt(human.value, 10)] || {}).note);
  for (const field of kind.form || []) {
    const select = $(`#game-form select[data-field="${CSS.escape(field.name)}"]`);
    note(field.name, select ? field.choices[parseInt(select.value, 10)].note : field.note);
  }
  const opponent = $("#new-game select[name=game-bot]").value;
  const level = opponent.startsWith("level:") ? opponent.slice(6) : null;
  const spec = level ? kind.ai_levels[level] : opponent;
  const words = (kind.bot_labels && kind.bot_labels[spec]) || spec;
  note("game-bot", level ? `the ${level} level: ${words}` : `${words}, with the budget below`);
  $("#budget-field").hidden = !!level || !opponent;
  const game = kind.name;
  document.querySelectorAll("#games-intro .game-card").forEach((card) => card.classList.toggle("chosen", card.dataset.game === game));
}

/** The form for the chosen game (GET /api/games/kinds): its own fields, its seats and its AI (its
 *  levels first, then its players by name). */
function chooseGame() {
  const kind = chosenKind();
  if (!kind) return;
  renderGameForm(kind);
  const human = $("#new-game select[name=human]");
  const keep = human.value;
  clear(human).append(...seatEntries(kind).map((entry, i) => h("option", { value: String(i) }, entry.label)),
    h("option", { value: "random" }, "Random"));
  human.value = [...human.options].some((o) => o.value === keep) ? keep : "0";
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
}

/** A game's own fields of the new-game form (its registry ``WebBoard.form``, GET /api/games/kinds):
 *  a menu each (``choices``: JSON values, each with its label, title and note) or a number
 *  (``number``: its min, max and placeholder; empty: not sent); a game whose form has ``human``
 *  replaces the seat menu. */
function renderGameForm(kind) {
  const box = clear($("#game-form"));
  const fields = kind.form || [];
  $("#human-field").hidden = fields.some((f) => f.name === "human");
  for (const field of fields) {
    const name = `game-option-${field.name}`;
    const input = field.choices
      ? h("select", { name, dataset: { field: field.name }, onchange: updateFieldNotes },
        ...field.choices.map((c, i) => h("option", { value: String(i), title: c.title || null }, c.label)))
      : h("input", { name, type: "number", dataset: { field: field.name }, min: field.number.min ?? null,
        max: field.number.max ?? null, placeholder: field.number.placeholder ?? null });
    box.append(h("label", { title: field.title || "" }, field.label, input,
      h("small", { class: "field-note", dataset: { for: field.name } })));
  }
}

/** The fields of the new game's body itself (NewGame, engine/interfaces/server/app.py); a game's other
 *  fields go in its ``options``. */
const BODY_FIELDS = new Set(["human", "variant", "supply", "seed"]);

/** The chosen values of a game's own form fields: the body's own (``human``, ``variant``, ...) and
 *  ``options`` (a menu's null, an empty number: left out). */
function gameFormValues(kind) {
  const out = { options: {} };
  for (const field of kind.form || []) {
    const input = $(`#game-form [data-field="${CSS.escape(field.name)}"]`);
    const value = field.choices ? field.choices[parseInt(input.value, 10)].value
      : input.value === "" ? null : parseInt(input.value, 10);
    if (value === null) continue;
    if (BODY_FIELDS.has(field.name)) out[field.name] = value;
    else out.options[field.name] = value;
  }
  if (!Object.keys(out.options).length) delete out.options;
  return out;
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
  $("#start").disabled = true;                 // until the registry has answered (loadKinds)
  $("#new-game select[name=game]").addEventListener("change", chooseGame);
  document.querySelectorAll("#new-game select").forEach((select) => select.addEventListener("change", updateFieldNotes));
  loadKinds();
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      // The board forgets a half-made choice; it says whether it had one (then it is drawn again).
      if (app.board && typeof app.board.clearSelection === "function" && app.board.clearSelection() === true) render();
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
  setBusy(false);
  render();
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
  $("#knowledge-button").hidden = !(app.board && app.board.knowledge === true);   // a module says it offers one
  $("#record-button").hidden = view.status !== "over";
  if (app.hint && (app.hint.id !== view.id || app.hint.version !== view.version)) clearHint();
  const hint = app.hint;
  document.querySelectorAll(".hinted").forEach((node) => node.classList.remove("hinted"));
  if (!hint) return;
  document.querySelectorAll(`[data-action-id="${hint.action}"]`).forEach((node) => node.classList.add("hinted"));
  if (app.board && typeof app.board.showHint === "function") app.board.showHint(hint.fields || {});
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
