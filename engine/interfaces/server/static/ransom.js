// The King's Ransom web board (docs/server.md, "King's Ransom"): a 3 x 6 arena of cards, the two
// Hands, Decks and Discard piles, the turn's steps (flip, move, promote, play) as clicks. Everything
// drawn comes from the view the server sends (the human's observation and legal actions); server
// strings go into the page as text only.
import { $, clear, h, seatTag, turnLabel, waitingText, who as whoIs } from "./dom.js";
import { glyphSVG } from "./glyphs.js";

const KR_SIDES = ["Red", "Blue"];

/** The seat drawn at the bottom: the human's, Red's for a spectator (``view.watching``). */
const seatAtBottom = (view) => (view.watching ? 0 : view.human);
const KR_COLOURS = ["#d64541", "#3b78e7"];
const NAMES = { K: "King", Q: "Queen", R: "Rook", B: "Bishop", N: "Knight", I: "Prince", P: "Pawn" };
const MOVES = [
  ["K", "one square in any direction. Lose it and you lose the game."],
  ["Q", "any distance in a straight line or diagonally."],
  ["R", "any distance in a straight line."],
  ["B", "any distance diagonally."],
  ["N", "an L-shaped leap over anything in the way."],
  ["I", "one square in any direction, like the King, but it may be captured."],
  ["P", "one square forward to an empty square; captures one square diagonally forward; on the far row it may be exchanged for a card of your Discard pile."],
];
const STEPS = ["flip", "move", "promote", "play", "draw"];
const FILES = "abc";

// What the player has picked in a step that takes two clicks: {type: "card", square} (a face-up
// card to move) or {type: "hand", token} (a card of the Hand to play). Reset at every new version.
const kr = { selected: null, version: null, id: null };

const upper = (token) => (token || "").toUpperCase();
const cardName = (token) => NAMES[upper(token)] || token;

/** The glyph of a card token in its owner's colour (the Prince has its own glyph, key "prince"). */
function cardGlyph(token, owner, size) {
  const t = upper(token);
  const svg = glyphSVG(t === "I" ? "prince" : t, KR_COLOURS[owner], cardName(t));
  if (size) svg.setAttribute("class", `glyph ${size}`);
  return svg;
}

/** A card as drawn: face up (glyph, name), or a card back (with the owner's peek corner when the
 *  viewer may see what it is). */
function cardFace(entry, viewer, over) {
  const { owner, card } = entry;
  if (entry.face_down) {
    const back = h("div", { class: `kr-card back owner-${owner}`, title: card ? `face down: ${cardName(card)}` : "a face-down card" },
      h("span", { class: "kr-back-emblem" }, "\u265a"));
    if (card) {
      back.classList.add(owner === viewer ? "peek" : "revealed");
      back.append(h("span", { class: "kr-peek", title: owner === viewer ? "only you can see this" : "revealed at the end" },
        cardGlyph(card, owner, "mini"), upper(card)));
    }
    return back;
  }
  return h("div", { class: `kr-card face owner-${owner}`, title: cardName(card), dataset: { token: upper(card) } },
    h("span", { class: "kr-corner" }, upper(card)), cardGlyph(card, owner), h("span", { class: "kr-name" }, cardName(card)));
}

function squaresTopDown(human) {
  // Rows top to bottom: Red (0) sees rank 6 on top and files a-c; Blue sees the arena turned round.
  const rows = [];
  for (let r = 0; r < 6; r++) {
    const rank = human === 0 ? 6 - r : r + 1;
    const files = human === 0 ? [0, 1, 2] : [2, 1, 0];
    rows.push(files.map((f) => `${FILES[f]}${rank}`));
  }
  return rows;
}

function aiTouched(view) {
  const out = new Set();
  for (const e of view.ai_last_turn || []) {
    const f = e.fields || {};
    for (const sq of [f.square, f.from, f.to]) if (sq) out.add(sq);
  }
  return out;
}

/** The legal clicks of the moment: per square and per Hand card, what a click does. */
function clicks(view, actions) {
  const sel = kr.selected;
  const out = { squares: new Map(), hand: new Map(), discard: null, promote: [] };
  const phase = view.phase;
  for (const a of actions) {
    const f = a.fields;
    if (f.kind === "flip") out.squares.set(f.square, { kind: "flip", action: a });
    else if (f.kind === "move") {
      if (sel && sel.type === "card" && sel.square === f.from) out.squares.set(f.to, { kind: "dest", action: a });
      else if (!out.squares.has(f.from)) out.squares.set(f.from, { kind: "movable" });
    } else if (f.kind === "promote") out.promote.push(a);
    else if (f.kind === "play" || f.kind === "discard") {
      out.hand.set(upper(f.card), true);
      if (sel && sel.type === "hand" && upper(f.card) === sel.token) {
        if (f.kind === "discard") out.discard = a;
        else out.squares.set(f.square, { kind: "target", action: a });
      }
    }
  }
  if (phase === "move" && sel && sel.type === "card") out.squares.set(sel.square, { kind: "selected" });
  return out;
}

function select(next, ctx) {
  kr.selected = next;
  ctx.rerender();
}

function renderBoard(view, actions, ctx) {
  const obs = view.observation;
  const board = clear($("#kr-board"));
  const cards = new Map(obs.arena.map((c) => [c.square, c]));
  const can = clicks(view, actions);
  const touched = aiTouched(view);
  const over = view.status === "over";
  const rows = squaresTopDown(seatAtBottom(view));
  rows.forEach((row, r) => {
    const rank = row[0].slice(1);
    board.append(h("div", { class: "label rank" }, rank));
    row.forEach((sq, c) => {
      const card = cards.get(sq);
      const half = +sq.slice(1) <= 3 ? 0 : 1;
      const click = can.squares.get(sq);
      const cls = ["kr-sq", `half-${half}`, (r + c) % 2 ? "dark" : "light", card ? "occupied" : "empty"];
      if (touched.has(sq)) cls.push("ai-moved");
      if (click) {
        cls.push(click.kind);
        if (click.kind !== "selected") cls.push("legal");
        if (click.kind === "dest" && card && card.owner !== view.human) cls.push("capture");
        if (click.kind === "target" && card) cls.push("replace");
      }
      const attrs = { class: cls.join(" "), role: "gridcell", dataset: { square: sq } };
      if (click && click.action) attrs.dataset.actionId = String(click.action.id);
      if (click) {
        attrs.onclick = () => {
          if (click.action) ctx.sendAction(click.action.id);
          else if (click.kind === "movable") select({ type: "card", square: sq }, ctx);
          else if (click.kind === "selected") select(null, ctx);
        };
        attrs.title = click.action ? click.action.text : click.kind === "movable" ? "move this card" : "cancel";
      }
      const cell = h("div", attrs);
      if (card) cell.append(cardFace(card, view.human, over));
      if (click && (click.kind === "dest" || click.kind === "target") && !card) cell.append(h("span", { class: "kr-marker" }));
      board.append(cell);
    });
  });
  board.append(h("div", { class: "label" }));
  for (const sq of rows[0]) board.append(h("div", { class: "label file" }, sq[0]));
}

function pileOf(tokens, owner, label, cls) {
  const pile = h("div", { class: `kr-pile ${cls}` }, h("span", { class: "kr-pile-label" }, label));
  const row = h("div", { class: "kr-pile-cards" });
  if (!tokens.length) row.append(h("span", { class: "empty-note" }, "empty"));
  for (const t of tokens) row.append(h("span", { class: `kr-mini owner-${owner}`, title: cardName(t) }, cardGlyph(t, owner, "mini")));
  pile.append(row);
  return pile;
}

function renderTray(node, view, side, actions, ctx) {
  const obs = view.observation;
  const you = side === view.human;
  const can = clicks(view, actions);
  const tray = clear(node);
  tray.className = `kr-tray owner-${side}`;
  tray.append(h("div", { class: "kr-tray-head" },
    h("span", { class: `side-dot kr-dot owner-${side}` }),
    h("strong", {}, `${KR_SIDES[side]}${seatTag(view, side)}`),
    side === obs.to_move && view.status !== "over" ? h("span", { class: "kr-to-move" }, "to move") : null));
  // The Hand: the human's own cards face up (clickable in the play step); the AI's as backs.
  const hand = h("div", { class: "kr-hand", id: you ? "kr-hand" : "kr-opp-hand" });
  if (you) {
    obs.hand.forEach((t, i) => {
      const token = upper(t);
      const legal = can.hand.has(token);
      const selected = kr.selected && kr.selected.type === "hand" && kr.selected.index === i;
      const el = h("button", {
        type: "button", class: `kr-hand-card${legal ? " legal" : ""}${selected ? " selected" : ""}`, disabled: !legal,
        title: legal ? `play your ${cardName(token)}` : cardName(token), dataset: { token, index: String(i) },
        onclick: () => select(selected ? null : { type: "hand", token, index: i }, ctx),
      }, cardFace({ owner: side, face_down: false, card: token }, view.human));
      hand.append(el);
    });
    if (!obs.hand.length) hand.append(h("span", { class: "empty-note" }, "no cards in your Hand"));
  } else if (Array.isArray(obs.hands) || Array.isArray(obs.opponent_hand)) {
    // Once the game is over every Hand is shown (a spectator's observation: ``hands``).
    const shown = Array.isArray(obs.hands) ? obs.hands[side] : obs.opponent_hand;
    // The game is over: the AI's Hand is shown face up.
    shown.forEach((t) => hand.append(h("div", { class: "kr-hand-card", title: cardName(upper(t)) },
      cardFace({ owner: side, face_down: false, card: upper(t) }, view.human))));
    if (!shown.length) hand.append(h("span", { class: "empty-note" }, "no cards in Hand"));
  } else {
    for (let i = 0; i < obs.hand_sizes[side]; i++) hand.append(h("div", { class: "kr-hand-card" }, cardFace({ owner: side, face_down: true, card: null }, view.human)));
    if (!obs.hand_sizes[side]) hand.append(h("span", { class: "empty-note" }, "no cards in Hand"));
  }
  const deck = h("div", { class: "kr-deck", title: `${obs.deck_sizes[side]} cards in the Deck` },
    obs.deck_sizes[side] ? h("div", { class: `kr-card back owner-${side} small` }, h("span", { class: "kr-back-emblem" }, "\u265a")) : h("div", { class: "kr-card empty small" }),
    h("span", { class: "kr-count" }, `Deck ${obs.deck_sizes[side]}`));
  tray.append(h("div", { class: "kr-tray-body" },
    h("div", { class: "kr-hand-box" }, h("span", { class: "kr-pile-label" }, `Hand ${obs.hand_sizes[side]}`), hand),
    deck,
    pileOf(obs.discards[side], side, "Discard", "kr-discard")));
}

function renderStatus(view) {
  const obs = view.observation;
  const status = $("#kr-status");
  const mover = KR_SIDES[obs.to_move];
  let text;
  if (view.status === "over") text = "Game over";
  else if (view.thinking) text = "The AI is thinking\u2026";
  else if (view.your_turn) text = `Your decision (${KR_SIDES[view.human]})`;
  else text = waitingText(view, KR_SIDES, 1 - view.human);
  clear(status).append(h("span", { class: `side-dot kr-dot owner-${obs.to_move}`, title: `${mover} to move` }), h("strong", {}, text),
    turnLabel(view.turn, view.status !== "over" && obs.to_move !== view.deciding ? mover : null, "kr-turn"));
  status.className = view.thinking ? "thinking" : view.your_turn ? "yours" : "";
  const check = $("#kr-check");
  // obs.check: the player whose King is in check (announced when a Move step ends), or null.
  check.hidden = !(obs.check !== null && obs.check !== undefined && view.status !== "over");
  check.textContent = view.watching ? `Check! ${KR_SIDES[obs.check]}'s King is threatened.`
    : obs.check === view.human ? "Check! Your King is threatened." : "Check! The AI's King is threatened.";
  const steps = clear($("#kr-steps"));
  for (const step of STEPS) {
    steps.append(h("li", { class: step === view.phase && view.status !== "over" ? "current" : "", dataset: { step } }, step));
  }
}

function promptText(view) {
  if (view.status === "over" || !view.your_turn) return "";
  const sel = kr.selected;
  switch (view.phase) {
    case "flip": return "Flip: click one of your highlighted face-down cards to turn it face up.";
    case "move":
      return sel && sel.type === "card"
        ? `Move: click a highlighted square for your ${cardName((view.observation.arena.find((c) => c.square === sel.square) || {}).card)} (red: a capture), or the card again to choose another.`
        : "Move: click one of your highlighted face-up cards.";
    case "promote": return "Promote: your Pawn reached the far row. Exchange it for a card of your Discard pile, or keep it.";
    case "play":
      return sel && sel.type === "hand"
        ? `Play: click a highlighted square of your half for your ${cardName(sel.token)}; it goes face down.`
        : "Play: click a card of your Hand (below the arena) to play it face down.";
    default: return view.prompt || "";
  }
}

function renderChoices(view, actions, ctx) {
  $("#kr-prompt").textContent = promptText(view);
  const box = clear($("#kr-choices"));
  const can = clicks(view, actions);
  for (const a of can.promote) {
    const token = a.fields.card;
    const b = h("button", { type: "button", class: "action kr-choice legal", dataset: { actionId: String(a.id) }, onclick: () => ctx.sendAction(a.id) });
    if (token) b.append(cardGlyph(token, view.human, "mini"), `Exchange for the ${cardName(token)}`);
    else b.append("Keep the Pawn");
    box.append(b);
  }
  if (can.discard) {
    const a = can.discard;
    box.append(h("button", { type: "button", class: "action kr-choice legal kind-discard", dataset: { actionId: String(a.id) }, onclick: () => ctx.sendAction(a.id) },
      `Discard the ${cardName(a.fields.card)} (your half is full)`));
  }
  if (kr.selected && view.your_turn) {
    box.append(h("button", { type: "button", class: "action kr-cancel", onclick: () => select(null, ctx) }, "Cancel"));
  }
}

function entryLine(entry, view, withWho) {
  const who = whoIs(view, entry.player, KR_SIDES);
  const cls = entry.player === null || entry.player === undefined ? "system" : `owner-${entry.player}`;
  return h("li", { class: cls }, withWho ? h("span", { class: "log-turn" }, `T${entry.turn}`) : null,
    withWho && who ? h("span", { class: "log-who" }, who) : null, h("span", { class: "log-text" }, entry.text));
}

function renderLogs(view) {
  const last = clear($("#kr-ai-last-turn"));
  for (const e of view.ai_last_turn || []) last.append(entryLine(e, view, false));
  if (!(view.ai_last_turn || []).length) last.append(h("li", { class: "empty-note" }, view.thinking ? "thinking\u2026" : "nothing yet"));
  const log = $("#kr-log");
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  clear(log);
  for (const e of view.log || []) log.append(entryLine(e, view, true));
  if (atBottom || !log.dataset.scrolled) {
    log.scrollTop = log.scrollHeight;
    log.dataset.scrolled = "1";
  }
}

function renderRules(view) {
  const list = $("#kr-rules-list");
  if (list.childElementCount) return;
  for (const [t, text] of MOVES) list.append(h("li", {}, cardGlyph(t, view.human, "mini"), h("strong", {}, cardName(t)), ` \u2014 ${text}`));
  list.append(h("li", { class: "kr-rule-note" }, "Each turn: flip one of your face-down cards, move a face-up card, play a card from your Hand face down on your half, draw. Capture the enemy King (or checkmate it) to win."));
  list.append(h("li", { class: "kr-rule-note" }, h("a", { href: "/rules/kings-ransom", target: "_blank", rel: "noopener", id: "kr-rules-link" }, "The complete rules of King's Ransom"), " (a new tab)."));
}

/** The module draws its whole page (its three columns) in ``ctx.root``, not in the shell's panel. */
export const page = true;

/** The page's columns, built once into ``root`` (the shell empties it when another module drew there). */
function layout(root) {
  if (root.querySelector("#kr-layout")) return;
  clear(root).append(h("main", { id: "kr-layout" },
    h("section", { id: "kr-board-column" },
      h("div", { class: "kr-tray", id: "kr-tray-top" }),
      h("div", { id: "kr-board-wrap" }, h("div", { id: "kr-board", role: "grid", "aria-label": "King's Ransom arena" })),
      h("div", { class: "kr-tray", id: "kr-tray-bottom" })),
    h("section", { id: "kr-side-column" },
      h("div", { class: "panel", id: "kr-status-panel" },
        h("div", { id: "kr-status" }),
        h("div", { id: "kr-check", role: "status", hidden: true }, "Check!"),
        h("ol", { id: "kr-steps" }),
        h("div", { id: "kr-prompt" }),
        h("div", { id: "kr-choices" }),
        h("div", { id: "kr-tools" })),
      h("div", { class: "panel", id: "kr-ai-panel" }, h("h2", {}, "AI's last turn"), h("ol", { id: "kr-ai-last-turn" })),
      h("details", { class: "panel how-to", id: "kr-rules" },
        h("summary", {}, h("h2", {}, "How the cards move")), h("ul", { id: "kr-rules-list" }))),
    h("section", { id: "kr-info-column" },
      h("div", { class: "panel", id: "kr-log-panel" }, h("h2", {}, "Game log"), h("ol", { id: "kr-log" })))));
}

/** Draw a King's Ransom view into ``ctx.root`` (the board module contract, docs/server.md "The web
 *  client"): ``actions``, the human's legal actions now (none while busy); ``ctx``: {root,
 *  sendAction(id), rerender(), tools} (``tools``: the shell's player tools, placed in the status panel). */
export function render(view, actions, ctx) {
  layout(ctx.root);
  if (kr.id !== view.id || kr.version !== view.version || !view.your_turn) {
    kr.selected = null;
    kr.id = view.id;
    kr.version = view.version;
  }
  const bottom = seatAtBottom(view);
  const home = $("#kr-tools");
  if (ctx.tools && ctx.tools[0].parentNode !== home) home.append(...ctx.tools);
  renderStatus(view);
  renderBoard(view, actions, ctx);
  renderTray($("#kr-tray-top"), view, 1 - bottom, actions, ctx);
  renderTray($("#kr-tray-bottom"), view, bottom, actions, ctx);
  renderChoices(view, actions, ctx);
  renderLogs(view);
  renderRules(view);
}

/** Forget a half-made choice (Escape). */
export function clearSelection() {
  kr.selected = null;
}

/** Mark the squares and the Hand card of the AI's hint (its action's ``fields``). */
export function showHint(fields) {
  for (const sq of [fields.from, fields.to, fields.square]) {
    const cell = sq ? document.querySelector(`#kr-board .kr-sq[data-square="${sq}"]`) : null;
    if (cell) cell.classList.add("hinted");
  }
  if (fields.kind === "play" || fields.kind === "discard") {
    const card = document.querySelector(`#kr-hand [data-token="${fields.card}"]`);
    if (card) card.classList.add("hinted");
  }
}
