// The generic web board (docs/server.md, "Any registered game"): the board of a game whose registry
// entry gives no module of its own. It draws the human's observation as a readable table (nested
// objects and lists as rows, a list of strings as lines) and the legal actions as buttons; the log
// lists what happened. Nothing here knows a game: every part comes from the view (engine/games/view.py).

import { clear, h, seatKind } from "./dom.js";

/** A readable element for one observed value: a table of an object, lines of a list of strings,
 *  a list of anything else, the text of a scalar. */
function valueNode(value) {
  if (value === null || value === undefined) return h("span", { class: "muted" }, "\u2014");
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === "string")) {
      return h("pre", { class: "generic-lines" }, value.join("\n"));
    }
    return h("ol", { class: "generic-list" }, ...value.map((v) => h("li", {}, valueNode(v))));
  }
  if (typeof value === "object") {
    return h("table", { class: "generic-table" },
      h("tbody", {}, ...Object.entries(value).map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, valueNode(v))))));
  }
  return h("span", {}, String(value));
}

/** Draw ``view`` into ``root``: the observation, the actions (buttons calling ``ctx.sendAction``
 *  with an action id), the log. ``actions``: the human's legal actions now (empty when it is not
 *  their decision). */
export function render(view, actions, ctx) {
  const root = clear(ctx.root);
  root.append(...[
    h("h3", {}, view.watching ? "What everyone sees (watching)" : "What you see"),
    h("div", { id: "generic-observation" }, valueNode(view.observation)),
    view.watching ? null : h("h3", {}, "Your choices"),
    view.watching ? null : h("div", { id: "generic-actions" }, ...(actions.length
      ? actions.map((a) => h("button", { type: "button", class: "generic-action", dataset: { actionId: String(a.id) },
        title: a.fields ? JSON.stringify(a.fields) : a.text, onclick: () => ctx.sendAction(a.id) }, a.text))
      : [h("span", { class: "muted" }, view.status === "over" ? "the game is over"
        : seatKind(view, view.deciding) === "ai" ? "waiting for the AI" : `waiting for ${view.players[view.deciding] ?? `seat ${view.deciding}`}`)])),
    h("h3", {}, "Game log"),
    h("ol", { id: "generic-log" }, ...view.log.map((e) => h("li", {},
      `${e.player === null || e.player === undefined ? "" : `${view.players[e.player]}: `}${e.text}`))),
  ].filter((node) => node !== null));
}
