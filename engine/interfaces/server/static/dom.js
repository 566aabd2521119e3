// Small DOM and API helpers shared by the game page (app.js) and the analysis board (analysis.js).
// Server strings go in as text nodes, never as HTML.

export const $ = (sel) => document.querySelector(sel);

/** Create an element: h("div", {class: "x", onclick: fn}, "text", child, ...). Strings are text. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (v === true) node.setAttribute(k, "");
    else node.setAttribute(k, String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const SVGNS = "http://www.w3.org/2000/svg";

/** Create an SVG element with attributes: svg("line", {x1: 0, ...}). */
export function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export const squareName = (sq) => "abcdefgh"[sq % 8] + (Math.floor(sq / 8) + 1);

/** JSON from the API; a failed answer throws an Error with the server's detail text and ``status``. */
export async function api(method, path, body, token) {
  const init = { method, headers: {} };
  if (token) init.headers["authorization"] = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (exc) {
    throw new Error(`cannot reach the server: ${exc.message}`);
  }
  let data = null;
  try {
    data = await response.json();
  } catch (exc) {
    data = null;
  }
  if (!response.ok) {
    let detail = data && data.detail !== undefined ? data.detail : response.statusText;
    if (typeof detail !== "string") {
      detail = Array.isArray(detail)
        ? detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ")
        : JSON.stringify(detail);
    }
    const err = new Error(`${response.status}: ${detail}`);
    err.status = response.status;
    err.detail = detail;
    throw err;
  }
  return data;
}

/** Show ``message`` in the page's #error box with a dismiss button; null hides the box. */
export function showError(message) {
  const box = $("#error");
  if (!message) {
    box.hidden = true;
    clear(box);
    return;
  }
  clear(box).append(h("span", {}, message), h("button", { type: "button", class: "close", title: "dismiss", onclick: () => showError(null) }, "\u00d7"));
  box.hidden = false;
}

/** The turn's number as a label of its own (never wrapped, no leading separator), naming whose turn
 *  it is only when someone else decides now (a choice during the other player's turn). */
export function turnLabel(turn, mover, id) {
  return h("span", { class: "turn", id, title: `turn ${turn}${mover ? `, ${mover}'s turn` : ""}` }, `Turn ${turn}${mover ? ` (${mover}'s)` : ""}`);
}

/** Who ``player`` (a seat, or null: nobody) is to the viewer of ``view``: "" for nobody; "You" or "AI"
 *  to a seat's player; the seat's name (``names``) to a spectator (``view.watching``). */
export function who(view, player, names) {
  if (player === null || player === undefined) return "";
  if (view.watching) return names[player] ?? `seat ${player}`;
  if (player === view.human) return "You";
  return seatKind(view, player) === "ai" ? "AI" : names[player] ?? `seat ${player}`;
}

/** What a seat's label adds for the viewer of ``view``: " (you)", " (AI)", " (bot)", nothing for a
 *  friend's seat or a spectator. */
export function seatTag(view, player) {
  if (view.watching) return "";
  if (player === view.human) return " (you)";
  const kind = seatKind(view, player);
  return kind === "ai" ? " (AI)" : kind === "bot" ? " (bot)" : "";
}

/** The kind of seat ``player`` of ``view`` ("human", "ai" or "bot"; docs/server.md "Seats, invitations
 *  and bots"); "ai" for a view without seats. */
export function seatKind(view, player) {
  const seat = view && view.seating ? view.seating[player] : null;
  return seat ? seat.kind : "ai";
}

/** The status line when the viewer does not decide: a spectator reads who decides ("Watching: ..."),
 *  a seat's player that the AI (``names[ai]``) does. */
export function waitingText(view, names, ai) {
  if (view.watching) return `Watching: ${names[view.deciding] ?? "nobody"} to decide`;
  if (seatKind(view, view.deciding) !== "ai") return `Waiting for ${names[view.deciding] ?? `seat ${view.deciding}`}`;
  return `Waiting for the AI (${names[ai]})`;
}

/** The note a board shows under what it draws when that is the project's PROVISIONAL choice (the
 *  view's ``provisional``, from the game's web piece: ``title``, ``text``, ``edit`` (how to load one's
 *  own) and ``links`` to the rules pages); null when the view has none. Only links into this site. */
export function provisionalNote(note) {
  if (!note) return null;
  const links = (note.links || []).filter((l) => typeof l.href === "string" && l.href.startsWith("/"))
    .flatMap((l, i) => [i ? ", " : "", h("a", { href: l.href, target: "_blank", rel: "noopener" }, l.text)]);
  return h("aside", { class: "provisional-note", id: "provisional-note", role: "note" },
    h("strong", {}, note.title), " ", note.text, " ", note.edit, links.length ? [" See ", ...links, "."] : null);
}
