// The For the Crown web board (docs/server.md, "The web client"): the 8x8 board with its units, both
// Barracks, the Hand and piles, the Supply, the Stock, the card reference and the "How to play" panel,
// the log and the AI's last turn; a board module with the contract of every game's board,
// ``render(view, actions, ctx)``. Everything drawn comes from the view the server sends (the human's
// observation, the legal actions and their fields) and from the card catalog (GET /api/catalog):
// nothing here decides what is legal. Every server string is put into the page with textContent.
import { $, api, clear, h, showError, squareName, turnLabel, waitingText, who as whoIs } from "./dom.js";
import { glyphSVG, SIDE_NAMES } from "./glyphs.js";
import { initHowTo, linkRules, showUnitHow } from "./howto.js";

/** The module draws its whole page (its three columns) in ``ctx.root``, not in the shell's panel. */
export const page = true;
/** The player's tools offer "Download what I know" (GET /api/games/{id}/knowledge) for this game. */
export const knowledge = true;

/** The module's own state: the card catalog; the unit or Barracks chip chosen
 *  (``{type: "unit", square} | {type: "barracks", token}``), cleared by each new version; the view
 *  drawn, whether the shell waits for an answer (``busy``) and the shell's ``ctx``. */
const ui = { catalog: { units: {}, cards: {} }, catalogLoad: null, selected: null, id: null, version: null,
  view: null, busy: false, ctx: null, popReady: false };

/** The shell draws the view again (a selection changed). */
const redraw = () => ui.ctx && ui.ctx.rerender();

/** Play action ``id`` (through the shell, which sends it and draws the answer). */
function send(id) {
  closeChooser();
  ui.selected = null;
  ui.ctx.sendAction(id);
}

/** The card and unit catalog (GET /api/catalog), loaded once; the board is drawn again with it. */
function loadCatalog() {
  if (ui.catalogLoad) return;
  ui.catalogLoad = api("GET", "/api/catalog").then((data) => {
    for (const u of data.units) ui.catalog.units[u.token] = u;
    for (const c of data.cards) ui.catalog.cards[c.name] = c;
  }).catch((exc) => showError(`catalog: ${exc.message}`)).then(() => {
    ui.legendFor = null;
    redraw();
  });
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

const unitName = (token) => (ui.catalog.units[token] ? ui.catalog.units[token].name : token);

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
  const card = ui.catalog.cards[name];
  if (!card) return name;
  const cost = costText(card);
  const lines = (card.effects || []).map((e) => `${effectLabel(e)}: ${e.text || e.kind}`);
  return [`${name}${cost ? ` (${cost})` : ""}`, ...lines].join("\n");
}

/** The same as cardTip, as elements: a heading (name, cost) and one line per effect. */
function cardInfo(name, headingTag = "strong") {
  const card = ui.catalog.cards[name];
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

function renderStatus(view) {
  const status = $("#status");
  const you = SIDE_NAMES[view.human];
  const mover = SIDE_NAMES[view.to_move];
  let text;
  if (view.status === "over") text = "Game over";
  else if (view.thinking) text = "The AI is thinking\u2026";       // also while our request waits for its answer
  else if (ui.busy) text = "Sending\u2026";
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
  const sel = ui.selected;
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
  const sel = ui.selected;
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
  const view = ui.view;
  if (!view || !view.your_turn || ui.busy) return;
  const actions = view.actions;
  const sel = ui.selected;
  let matching = [];
  if (sel && sel.type === "unit") matching = actions.filter((a) => isMove(a) && a.fields.origin === sel.square && a.fields.dest === sq);
  else if (sel && sel.type === "barracks") matching = actions.filter((a) => isDeploy(a) && a.fields.unit === sel.token && a.fields.dest === sq);
  if (!matching.length) matching = actions.filter((a) => a.fields.type === "square" && a.fields.square === sq);
  if (matching.length === 1) return send(matching[0].id);
  if (matching.length > 1) return openChooser(matching, event, "Choose");
  // Select (or unselect) a unit with orders.
  const hasOrders = actions.some((a) => isMove(a) && a.fields.origin === sq);
  ui.selected = hasOrders && !(sel && sel.type === "unit" && sel.square === sq) ? { type: "unit", square: sq } : null;
  closeChooser();
  redraw();
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
      const selected = side === you && ui.selected && ui.selected.type === "barracks" && ui.selected.token === token;
      const chip = h("button", {
        type: "button",
        class: `unit-chip${can ? " deployable" : ""}${selected ? " selected" : ""}`,
        disabled: !can,
        title: `${unitName(token)} \u00d7${n}${can ? " (click, then a highlighted square to deploy)" : ""}`,
        dataset: { token },
        onclick: can
          ? () => {
              ui.selected = selected ? null : { type: "barracks", token };
              closeChooser();
              redraw();
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
        onclick: () => send(a.id),
      });
      if (kind === "unit") button.append(glyphSVG(a.fields.unit, view.human, unitName(a.fields.unit)));
      button.append(a.text);
      group.append(button);
    }
    box.append(group);
  }
  if (!actions.length) {
    box.append(h("p", { class: "idle" }, view.status === "over" ? "The game is over." : view.thinking ? "The AI is thinking\u2026" : ui.busy ? "\u2026" : "Nothing to decide now."));
  }
  const hasBoard = orderActions.length > 0;
  $("#order-list").hidden = !hasBoard;
  if (hasBoard) {
    $("#order-list summary").textContent = `Orders as a list (${orderActions.length}): or click a unit on the board`;
    for (const a of orderActions) {
      orderBox.append(h("button", { type: "button", class: `action kind-${kindOf(a)}`, dataset: { actionId: String(a.id), kind: kindOf(a) }, onclick: () => send(a.id) }, a.text));
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
      onclick: matching.length ? (event) => (matching.length === 1 ? send(matching[0].id) : openChooser(matching, event, name)) : null,
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
      onclick: matching.length ? (event) => (matching.length === 1 ? send(matching[0].id) : openChooser(matching, event, item.name)) : null,
    });
    row.append(h("td", {}, item.name), h("td", { class: "num" }, String(item.cost)), h("td", { class: "num" }, String(item.left)));
    body.append(row);
  }
}

/** The Card reference panel: every card of this game's Supply, then the starting cards in play. */
function renderCardReference(view) {
  const list = $("#card-ref-list");
  const starters = view.starters || [];
  const key = JSON.stringify([view.id, view.supply.map((item) => item.name), starters, Object.keys(ui.catalog.cards).length]);
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
  const u = ui.catalog.units[token];
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

function renderLegend() {
  const grid = clear($("#legend-grid"));
  const tokens = Object.keys(ui.catalog.units);
  for (const token of tokens) {
    const u = ui.catalog.units[token];
    const title = `${u.name} (${token})${u.cylindrical ? ", cylindrical" : ""}; moves ${u.moves}; ${u.classes.join(", ")}`;
    grid.append(h("button", { type: "button", class: "legend-item", title: `${title}\nclick: where it may go`, dataset: { token }, onclick: () => showUnitHow(token) },
      glyphSVG(token, 0, u.name), glyphSVG(token, 1, u.name), h("span", {}, `${token} ${u.name}`)));
  }
}

// -- the chooser (promotions and other several-actions clicks) ---------------------------------
function openChooser(actions, event, heading) {
  const chooser = $("#chooser");
  clear(chooser).append(h("div", { class: "chooser-title" }, heading));
  const side = ui.view ? ui.view.human : 0;
  for (const a of actions) {
    const b = h("button", { type: "button", class: `action kind-${kindOf(a)}`, dataset: { actionId: String(a.id), kind: kindOf(a), ...(a.fields.card ? { card: a.fields.card } : {}) }, onclick: () => send(a.id) });
    // A promotion: show the unit it becomes.
    const token = isOrder(a) ? a.fields.promotion : null;
    if (token) {
      b.append(glyphSVG(token, side, unitName(token)), `${unitName(token)} (${a.text})`);
    } else {
      b.append(a.text);
    }
    chooser.append(b);
  }
  chooser.append(h("button", { type: "button", class: "cancel", onclick: () => { closeChooser(); ui.selected = null; redraw(); } }, "Cancel"));
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

// -- the page -----------------------------------------------------------------------------------
/** The page's columns, built once into ``root`` (the shell empties it when another module drew there). */
function layout(root) {
  if (root.querySelector("#layout")) return;
  ui.legendFor = null;
  const counter = (label, id) => h("div", {}, h("dt", {}, label), h("dd", { id }, "-"));
  clear(root).append(h("main", { id: "layout" },
    h("section", { id: "board-column" },
      h("div", { class: "barracks-row", id: "barracks-top" }),
      h("div", { id: "board-wrap" }, h("div", { id: "board", role: "grid", "aria-label": "board" }), h("div", { id: "chooser", hidden: true })),
      h("div", { class: "barracks-row", id: "barracks-bottom" }),
      h("details", { id: "legend" }, h("summary", {}, "Unit legend ", h("span", { class: "ref-note" }, "(click a unit: where it may go)")),
        h("div", { id: "legend-grid" })),
      h("details", { class: "panel how-to", id: "ftc-how" }, h("summary", {}, h("h2", {}, "How to play")), h("div", { id: "ftc-how-body" }))),
    h("section", { id: "side-column" },
      h("div", { class: "panel", id: "status-panel" },
        h("div", { id: "status" }),
        h("ol", { id: "phases" }),
        h("dl", { id: "counters" }, counter("Gold", "gold"), counter("Orders", "orders"), counter("Actions", "actions-left"), counter("Buys", "buys")),
        h("div", { id: "prompt" }),
        h("div", { id: "actions" }),
        h("details", { id: "order-list" }, h("summary", {}, "Orders as a list"), h("div", { id: "order-buttons" }))),
      h("div", { class: "panel", id: "hand-panel" }, h("h2", {}, "Your hand"), h("div", { id: "hand", class: "cards" }), h("div", { id: "you-piles", class: "piles" })),
      h("div", { class: "panel", id: "opponent-panel" }, h("h2", {}, "Opponent"), h("div", { id: "opp-piles", class: "piles" })),
      h("div", { class: "panel", id: "ai-panel" }, h("h2", {}, "AI's last turn"), h("ol", { id: "ai-last-turn" }))),
    h("section", { id: "info-column" },
      h("div", { class: "panel" }, h("h2", {}, "Supply"),
        h("table", { id: "supply" }, h("thead", {}, h("tr", {}, h("th", {}, "Card"), h("th", {}, "Cost"), h("th", {}, "Left"))), h("tbody")),
        h("div", { id: "trash-box", class: "piles" })),
      h("details", { class: "panel how-to", id: "card-ref" }, h("summary", {}, h("h2", {}, "Card reference")),
        h("p", { class: "ref-note" }, "What every card of this game does. Tap or hover a card's name anywhere for the same."),
        h("div", { id: "card-ref-list" })),
      h("div", { class: "panel" }, h("h2", {}, "Stock"), h("div", { id: "stock", class: "stock-grid" })),
      h("div", { class: "panel", id: "log-panel" }, h("h2", {}, "Game log"), h("ol", { id: "log" })))));
}

/** The Unit legend and the "How to play" panel, once the catalog is known (again for a new page). */
function renderReference() {
  const grid = $("#legend-grid");
  if (ui.legendFor === grid || !Object.keys(ui.catalog.units).length) return;
  ui.legendFor = grid;
  renderLegend();
  initHowTo(ui.catalog);
}

/** The card pop-over's box (on the page, outside the board, so that it outlives a redraw) and its
 *  listeners, once. */
function initPop() {
  if (ui.popReady) return;
  ui.popReady = true;
  if (!$("#card-pop")) document.body.append(h("div", { id: "card-pop", hidden: true }));
  initCardPop();
}

/** Draw a For the Crown view into ``ctx.root`` (the board module contract, docs/server.md "The web
 *  client"): ``actions``, the human's legal actions now (none while busy or watching); ``ctx``:
 *  {root, sendAction(id), rerender(), tools, busy} (``tools``: the shell's player tools, placed in
 *  the status panel; ``busy``: the shell waits for the server's answer). */
export function render(view, actions, ctx) {
  ui.ctx = ctx;
  ui.view = view;
  ui.busy = !!ctx.busy;
  if (ui.id !== view.id || ui.version !== view.version || !view.your_turn) {     // a new decision
    ui.selected = null;
    closeChooser();
    ui.id = view.id;
    ui.version = view.version;
  }
  initPop();
  layout(ctx.root);
  loadCatalog();
  renderReference();
  quietCardPop();
  const home = $("#status-panel");
  if (ctx.tools && ctx.tools[0].parentNode !== home) $("#order-list").after(...ctx.tools);
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
}

/** Forget a half-made choice (Escape): the card pop-over, the chooser, the unit or chip chosen.
 *  True when something was chosen (the shell draws the view again). */
export function clearSelection() {
  hideCardPop();
  closeChooser();
  const had = ui.selected !== null;
  ui.selected = null;
  return had;
}

/** Mark the squares of the AI's hint (its action's ``fields``: an order's origin and destination, a
 *  square chosen); its buttons are marked by the shell. */
export function showHint(fields) {
  for (const sq of [fields.origin, fields.dest, fields.square]) {
    if (sq !== null && sq !== undefined) {
      const cell = document.querySelector(`#board .sq[data-square="${sq}"]`);
      if (cell) cell.classList.add("hinted");
    }
  }
}
