// The Crusade & Conquer web board (docs/server.md, "Crusade & Conquer"): the 8x8 board with its
// castles' floors shaded by level and each side's X marked, the pieces, the fallen pieces, check and
// the end of the game, the last move, the log and a "how the pieces move" panel, and the view's note
// that the castle plan is PROVISIONAL (how to load one's own, links to the rules). Everything drawn
// comes from the view (engine/crusade/web.py): the levels and X squares are the catalog's data
// (PROVISIONAL, an owner may edit them), a piece's legal targets are its legal actions' fields; this
// module computes no rule. Server strings go into the page as text only.
import { clear, h, provisionalNote, seatTag, waitingText, who as whoIs } from "./dom.js";
import { glyphSVG } from "./glyphs.js";

/** The sides' colours: Blue, Red. */
const COLOURS = ["#3b78e7", "#d64541"];
/** The glyph of a token where it differs from For the Crown's unit of the same letter. */
const GLYPH_KEYS = { D: "dragon", F: "flag-bearer" };
const FILES = "abcdefghijklmnop";

// What the player has picked: the square of a piece to move (``selected``) and, on a Pawn's move to
// the far rank, the move waiting for its promotion choice (``pending``). Reset at every new version.
const cc = { id: null, version: null, selected: null, pending: null, last: null, howOpen: true };

const pieceGlyph = (token, owner, name, cls) => {
  const svg = glyphSVG(GLYPH_KEYS[token] || token, COLOURS[owner] || "#c8c8c8", name);
  if (cls) svg.setAttribute("class", `glyph ${cls}`);
  return svg;
};

function rerender() {
  if (cc.last) render(...cc.last);
}

/** The human's moves by origin square: from -> to -> [actions] (several on a promotion). */
function movesByOrigin(actions) {
  const out = new Map();
  for (const a of actions) {
    const f = a.fields || {};
    if (f.kind !== "move") continue;
    if (!out.has(f.from)) out.set(f.from, new Map());
    const targets = out.get(f.from);
    if (!targets.has(f.to)) targets.set(f.to, []);
    targets.get(f.to).push(a);
  }
  return out;
}

/** The board's squares, top row first, as the human sees it: Blue has rank 1 at the bottom, Red the
 *  board turned round. */
function rows(board, human) {
  const out = [];
  for (let i = 0; i < board.ranks; i++) {
    const rank = human === 1 ? i : board.ranks - 1 - i;
    const files = [...Array(board.files).keys()];
    if (human === 1) files.reverse();
    out.push(files.map((f) => `${FILES[f]}${rank + 1}`));
  }
  return out;
}

function choose(view, origin, dest, choices, ctx) {
  if (choices.length === 1 && !choices[0].fields.promotion) {
    ctx.sendAction(choices[0].id);
    return;
  }
  cc.pending = { from: origin, to: dest };
  rerender();
}

function renderBoard(view, actions, ctx) {
  const board = view.board;
  const moves = movesByOrigin(actions);
  const pieces = new Map(view.pieces.map((p) => [p.square, p]));
  const xOwner = new Map(board.x.map((sq, owner) => [sq, owner]));
  const last = view.last_move;
  const targets = cc.selected ? moves.get(cc.selected) || new Map() : new Map();
  const grid = h("div", { id: "cc-board", role: "grid", "aria-label": "Crusade & Conquer board" });
  // The board's size is data: set through the CSSOM (the page's policy allows no inline style attribute).
  grid.style.gridTemplateColumns = `22px repeat(${board.files}, var(--cc-sq))`;
  grid.style.gridTemplateRows = `repeat(${board.ranks}, var(--cc-sq)) 22px`;
  const order = rows(board, view.watching ? 0 : view.human);
  order.forEach((row, r) => {
    grid.append(h("div", { class: "cc-label rank" }, row[0].slice(1)));
    row.forEach((sq, c) => {
      const level = board.heights[sq] ?? 0;
      const piece = pieces.get(sq);
      const cls = ["cc-sq", `level-${level}`, (r + c) % 2 ? "dark" : "light"];
      const attrs = { role: "gridcell", dataset: { square: sq, level: String(level) } };
      if (xOwner.has(sq)) cls.push("x-square", `x-owner-${xOwner.get(sq)}`);
      if (last && sq === last.from) cls.push("last-from");
      if (last && sq === last.to) cls.push("last-to");
      if (piece && piece.token === "K" && view.check === piece.owner) cls.push("in-check");
      const title = [`${sq}: ${board.levels[level] ?? `level ${level}`}`];
      if (xOwner.has(sq)) title.push(`${view.players[xOwner.get(sq)]}'s X`);
      if (piece) title.push(`${view.players[piece.owner]} ${piece.name}`);
      const choices = targets.get(sq);
      if (sq === cc.selected) {
        cls.push("selected");
        attrs.onclick = () => { cc.selected = null; cc.pending = null; rerender(); };
      } else if (choices) {
        cls.push("target", "legal");
        if (choices.some((a) => a.fields.capture)) cls.push("capture");
        if (choices.some((a) => a.fields.promotion)) cls.push("promotion");
        if (choices.length === 1) attrs.dataset.actionId = String(choices[0].id);
        title.push(choices.length > 1 ? `${cc.selected}-${sq}: choose the promotion` : choices[0].text);
        attrs.onclick = () => choose(view, cc.selected, sq, choices, ctx);
      } else if (moves.has(sq)) {
        cls.push("movable", "legal");
        attrs.onclick = () => { cc.selected = sq; cc.pending = null; rerender(); };
      } else if (cc.selected) {
        attrs.onclick = () => { cc.selected = null; rerender(); };
      }
      attrs.class = cls.join(" ");
      attrs.title = title.join(" \u00b7 ");
      const cell = h("div", attrs);
      if (level) cell.append(h("span", { class: "cc-level" }, String(level)));
      if (xOwner.has(sq)) cell.append(h("span", { class: "cc-x" }, "\u2715"), h("span", { class: "cc-x-badge" }, "X"));
      if (piece) {
        cell.append(h("span", { class: `cc-piece owner-${piece.owner}`, dataset: { token: piece.token, owner: String(piece.owner) } },
          pieceGlyph(piece.token, piece.owner, `${view.players[piece.owner]} ${piece.name}`)));
      }
      if (choices && !piece) cell.append(h("span", { class: "cc-dot" }));
      grid.append(cell);
    });
  });
  grid.append(h("div", { class: "cc-label" }));
  for (const sq of order[0]) grid.append(h("div", { class: "cc-label file" }, sq[0]));
  const wrap = h("div", { id: "cc-board-wrap" }, grid);
  const dialog = promotionDialog(view, moves, ctx);
  if (dialog) wrap.append(dialog);
  return wrap;
}

/** The promotion choice (RULINGS H5): each fallen type the Pawn may be exchanged for, or keeping it. */
function promotionDialog(view, moves, ctx) {
  const p = cc.pending;
  if (!p) return null;
  const choices = (moves.get(p.from) || new Map()).get(p.to);
  if (!choices) {
    cc.pending = null;
    return null;
  }
  const names = new Map(view.how.pieces.map((x) => [x.token, x.name]));
  const revive = choices.filter((a) => a.fields.promotion && a.fields.promotion !== a.fields.piece);
  const keep = choices.filter((a) => !revive.includes(a));
  const box = h("div", { id: "cc-promotion", class: "cc-dialog", role: "dialog", "aria-label": "promotion" },
    h("h3", {}, `Your Pawn reaches ${p.to}`),
    h("p", { class: "cc-note" }, revive.length
      ? "Exchange it for one of your fallen pieces, or keep it as a Pawn that no longer moves."
      : "None of your pieces has fallen: the Pawn stays a Pawn and no longer moves."));
  for (const a of revive) {
    const t = a.fields.promotion;
    box.append(h("button", { type: "button", class: "cc-promo legal", dataset: { actionId: String(a.id), promotion: t },
      onclick: () => { cc.pending = null; ctx.sendAction(a.id); } }, pieceGlyph(t, view.human, names.get(t), "mini"), `Bring back the ${names.get(t) || t}`));
  }
  for (const a of keep) {
    box.append(h("button", { type: "button", class: "cc-promo legal keep", dataset: { actionId: String(a.id), promotion: a.fields.promotion || "" },
      onclick: () => { cc.pending = null; ctx.sendAction(a.id); } }, pieceGlyph("P", view.human, "Pawn", "mini"), "Keep the Pawn"));
  }
  box.append(h("button", { type: "button", class: "cc-cancel", onclick: () => { cc.pending = null; cc.selected = null; rerender(); } }, "Cancel"));
  return box;
}

function statusLine(view) {
  const you = view.players[view.human];
  let text;
  let cls = "";
  if (view.status === "over") {
    const how = { checkmate: "Checkmate", stalemate: "Stalemate", "x-win": "A Flag Bearer on the X", plies: "Draw",
      repetition: "Draw", resigned: "Resignation" }[view.end] || "Game over";
    text = `${how}: ${view.over}`;
    cls = view.winner === null || view.winner === undefined ? "draw" : view.watching ? "watched" : view.winner === view.human ? "won" : "lost";
  } else if (view.thinking) {
    text = "The AI is thinking\u2026";
  } else if (view.your_turn) {
    text = cc.selected ? `Your move (${you}): click a highlighted square for the piece on ${cc.selected}, or another piece.`
      : `Your move (${you}): click one of your highlighted pieces.`;
    cls = "yours";
  } else {
    text = waitingText(view, view.players, 1 - view.human);
  }
  const line = h("div", { id: "cc-status", class: cls, dataset: { end: view.end || "" } },
    h("span", { class: `cc-dot-side owner-${view.to_move ?? view.human}` }), h("strong", {}, text));
  const check = view.check !== null && view.check !== undefined && view.status !== "over"
    ? h("div", { id: "cc-check", role: "status" }, view.watching ? `Check! ${view.players[view.check]}'s King is attacked.`
      : view.check === view.human ? "Check! Your King is attacked." : "Check! The AI's King is attacked.")
    : null;
  return h("div", { class: "cc-status-box" }, line, check);
}

function fallenTray(view, side) {
  const list = view.fallen[side] || [];
  const tray = h("div", { class: `cc-fallen owner-${side}`, id: `cc-fallen-${side}` },
    h("span", { class: "cc-tray-label" }, `${view.players[side]}'s fallen${seatTag(view, side)}`));
  if (!list.length) tray.append(h("span", { class: "empty-note" }, "none"));
  for (const f of list) {
    tray.append(h("span", { class: "cc-fallen-piece", title: `${f.name} x${f.count}`, dataset: { token: f.token } },
      pieceGlyph(f.token, side, f.name, "mini"), f.count > 1 ? `\u00d7${f.count}` : null));
  }
  return tray;
}

function legend(view) {
  const board = view.board;
  const items = board.levels.map((name, level) => h("li", {},
    h("span", { class: `cc-swatch cc-sq level-${level} light` }, level ? h("span", { class: "cc-level" }, String(level)) : null), `${level}: ${name}`));
  board.x.forEach((sq, owner) => items.push(h("li", {},
    h("span", { class: `cc-swatch cc-sq x-square x-owner-${owner} light` }, h("span", { class: "cc-x" }, "\u2715")), `${view.players[owner]}'s X (${sq})`)));
  items.push(h("li", {}, h("span", { class: "cc-swatch cc-sq last-to light" }), "the last move"));
  items.push(h("li", {}, h("span", { class: "cc-swatch cc-sq target light" }, h("span", { class: "cc-dot" })), "a legal target"));
  return h("ul", { id: "cc-legend", "aria-label": "legend" }, ...items);
}

function logPanel(view) {
  const list = h("ol", { id: "cc-log" });
  for (const e of view.log || []) {
    const f = e.fields || {};
    const system = e.player === null || e.player === undefined;
    const who = whoIs(view, e.player, view.players);
    const li = h("li", { class: system ? "system" : `owner-${e.player}` });
    if (!system && e.move) {
      // The chess move number the server gives (engine/crusade/web.py move_number): Blue's "1.", Red's "1\u2026".
      li.append(h("span", { class: "log-turn" }, `${e.move}${e.player === 0 ? "." : "\u2026"}`));
    }
    if (who) li.append(h("span", { class: "log-who" }, who));
    if (f.piece) li.append(pieceGlyph(f.piece, e.player, f.piece, "mini"));
    li.append(h("span", { class: "log-text" }, e.text));
    if (f.capture) li.append(h("span", { class: "log-capture" }, ` takes ${f.capture}`));
    list.append(li);
  }
  if (!(view.log || []).length) list.append(h("li", { class: "empty-note" }, "no move yet"));
  return h("div", { class: "panel", id: "cc-log-panel" }, h("h2", {}, "Game log"), list);
}

function howPanel(view) {
  const how = view.how;
  const rulings = (list) => list.map((r, i) => [i ? ", " : " (", h("a", { href: r.href, target: "_blank", rel: "noopener" }, r.id), i === list.length - 1 ? ")" : ""]);
  const items = how.pieces.map((p) => h("li", { dataset: { token: p.token } }, pieceGlyph(p.token, view.human, p.name, "mini"),
    h("strong", {}, p.name), ` \u2014 ${p.text}`, ...rulings(p.rulings)));
  for (const n of how.notes) items.push(h("li", { class: "cc-rule-note" }, n.text, ...rulings(n.rulings)));
  items.push(h("li", { class: "cc-rule-note" }, h("a", { href: how.rules, target: "_blank", rel: "noopener", id: "cc-rules-link" }, "The complete rules"), " (a new tab)."));
  const details = h("details", { class: "panel how-to", id: "cc-how" }, h("summary", {}, h("h2", {}, "How the pieces move")), h("ul", { id: "cc-how-list" }, ...items));
  details.open = cc.howOpen;
  details.addEventListener("toggle", () => { cc.howOpen = details.open; });
  return details;
}

/** Draw a Crusade & Conquer view into ``ctx.root``. ``actions``: the human's legal actions now (none
 *  while busy); ``ctx``: {sendAction(id), root}. */
export function render(view, actions, ctx) {
  if (cc.id !== view.id || cc.version !== view.version || !view.your_turn || !actions.length) {
    cc.selected = null;
    cc.pending = null;
    cc.id = view.id;
    cc.version = view.version;
  }
  cc.last = [view, actions, ctx];
  const bottom = view.watching ? 0 : view.human;       // a spectator sees Blue at the bottom
  const root = clear(ctx.root);
  root.append(h("div", { class: "cc-root", dataset: { human: String(bottom), watching: String(!!view.watching) } },
    h("div", { class: "cc-board-column" }, statusLine(view), fallenTray(view, 1 - bottom), renderBoard(view, actions, ctx),
      fallenTray(view, bottom), legend(view), provisionalNote(view.provisional)),
    h("div", { class: "cc-side-column" }, logPanel(view), howPanel(view))));
  const log = root.querySelector("#cc-log");
  if (log) log.scrollTop = log.scrollHeight;
}
