// The Crownfall web board (docs/crownfall.md, "The web board"): the map as SVG regions placed by the
// view's drawing data (engine/crownfall/web.py), with each region's owner, Banners, Tower and role,
// Anchor, Archmages, Ward, Garrison and Shield; the ley networks as links; the seats with their three
// tracks, mana and reserves; the Omen and Objectives; the human's legal actions; the log, oldest
// first, with each battle explained term by term; the view's note that the map is PROVISIONAL.
//
// A click on the map only selects (issue 39): a region's actions become buttons, and the regions a
// March from it can reach (a Banner's or the Archmage's) light up; a click on a lit region then
// Marches there (the second click of a move, as a piece is moved). A button plays its action, but an
// action that spends mana (the view's ``mana``) or ends the turn first asks to be confirmed, and
// Cancel sends nothing. Every choice comes from the view's actions, their fields, labels and prices:
// nothing is recomputed here. Server strings go in as text nodes only.

import { clear, h, provisionalNote, seatKind, seatTag, svg, who as whoIs } from "./dom.js";

const ROLE_LETTER = { stronghold: "S", sanctum: "N", watchtower: "W", beacon: "B" };
const TRACK_NAMES = { crown: "Crown", arcana: "Arcana", dominion: "Dominion" };
/** The module's own selection (cleared by each new view): the region chosen (``region``), the
 *  region its Marches start from (``from``) and the action waiting for its confirmation (``confirm``). */
const ui = { from: null, region: null, confirm: null, version: null };

const seatClass = (p) => (p === null || p === undefined || p < 0 ? "cf-none" : `cf-seat-${p}`);

/** The region an action goes to (its "to", else its "region"), and the one a March starts from (a
 *  Banner's or the Archmage's). */
const targetOf = (a) => (a.fields && (a.fields.to || a.fields.region)) || null;
const isMarch = (a) => !!a.fields && (a.fields.kind === "march-banner" || a.fields.kind === "march-mage");
const sourceOf = (a) => (isMarch(a) ? a.fields.from : null);
/** What a button says: the view's label (the text without the seat), else the text. */
const labelOf = (a) => a.label || a.text;
/** An action that must be confirmed: it spends mana, or it ends the turn. */
const asks = (a) => (a.mana || 0) > 0 || a.fields.kind === "end";
/** Ending the turn comes last wherever actions are listed. */
const endLast = (list) => [...list.filter((a) => a.fields.kind !== "end"), ...list.filter((a) => a.fields.kind === "end")];

/** Draw ``view`` into ``ctx.root``: ``actions`` are the human's legal actions now (empty when it is
 *  not their decision); ``ctx.sendAction(id)`` plays one. */
export function render(view, actions, ctx) {
  if (ui.version !== view.version || !actions.length) {
    ui.from = null;
    ui.region = null;
    ui.confirm = null;
    ui.version = view.version;
  }
  const root = clear(ctx.root);
  const redraw = () => render(view, actions, ctx);
  root.append(h("div", { class: "cf-root", dataset: { round: String(view.turn) } },
    h("div", { class: "cf-top" }, roundBox(view), omenBox(view), objectivesBox(view)),
    h("div", { class: "cf-main" },
      h("div", { class: "cf-map-column" }, mapSVG(view, actions, ctx, redraw), legend(), provisionalNote(view.provisional)),
      h("div", { class: "cf-side" }, choicesBox(view, actions, ctx, redraw), seatsBox(view), spellsBox(view))),
    logBox(view)));
  const log = root.querySelector("#cf-log");
  if (log) log.scrollTop = log.scrollHeight;            // the newest entry, at the bottom
}

// -- the round, the Omen, the Objectives --------------------------------------------------------
function roundBox(view) {
  const obs = view.observation;
  const mover = view.to_move === null || view.to_move === undefined ? null : view.players[view.to_move];
  return h("div", { class: "cf-card cf-round" },
    h("strong", {}, `Round ${obs.round} of ${view.rounds}`),
    h("span", {}, view.status === "over" ? "game over" : mover ? `${mover} to decide${obs.stage === "turn" && obs.current === view.to_move ? `, ${obs.actions_left} action(s) left` : ""}` : ""),
    h("span", { class: "cf-goal" }, `Win: ${view.tracks.threshold} in ${view.tracks.to_win} tracks at a round's end`));
}

function omenBox(view) {
  const omen = view.omen;
  return h("div", { class: "cf-card cf-omen", id: "cf-omen", dataset: { omen: omen ? omen.key : "" } },
    h("span", { class: "cf-label" }, "Omen"),
    omen ? h("strong", {}, omen.name) : h("span", { class: "muted" }, "none yet"),
    omen ? h("span", { class: "cf-text" }, omen.text) : null);
}

function objectivesBox(view) {
  return h("div", { class: "cf-card cf-objectives", id: "cf-objectives" },
    h("span", { class: "cf-label" }, "Objectives (one Crown for meeting any)"),
    h("ul", {}, ...view.objectives.map((o) => h("li", { dataset: { objective: o.key } },
      h("strong", {}, o.name), " ", h("span", { class: "cf-text" }, o.text), " ",
      ...o.met_by.map((p) => h("span", { class: `cf-chip ${seatClass(p)}`, title: `${view.players[p]} meets it now` }, view.players[p]))))));
}

// -- the map ------------------------------------------------------------------------------------
function mapSVG(view, actions, ctx, redraw) {
  const board = view.board;
  const obs = view.observation;
  const regions = new Map(obs.regions.map((r) => [r.key, r]));
  const centre = new Map(board.regions.map((r) => [r.key, r]));
  const targets = new Map();                  // region -> actions going there
  const sources = new Map();                  // region -> March actions starting there
  for (const a of actions) {
    const t = targetOf(a);
    if (t) targets.set(t, [...(targets.get(t) || []), a]);
    const s = sourceOf(a);
    if (s) sources.set(s, [...(sources.get(s) || []), a]);
  }
  const root = svg("svg", { viewBox: `0 0 ${board.size} ${board.size}`, class: "cf-map", id: "cf-map", role: "img",
    "aria-label": "the map of Crownfall" });
  const cells = svg("g", { class: "cf-cells" });
  const lines = svg("g", { class: "cf-adjacency" });
  const ley = svg("g", { class: "cf-ley" });
  const pieces = svg("g", { class: "cf-pieces" });
  root.append(cells, lines, ley, pieces);
  for (const [a, b] of board.edges) {
    const p = centre.get(a), q = centre.get(b);
    lines.append(svg("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: "cf-edge" }));
  }
  // Ley networks: each player's active networks as links between their adjacent regions.
  obs.players.forEach((player, p) => {
    for (const network of player.networks) {
      const inside = new Set(network);
      for (const [a, b] of board.edges) {
        if (!inside.has(a) || !inside.has(b)) continue;
        const s = centre.get(a), t = centre.get(b);
        const dx = (p - 1.5) * 0.6;
        ley.append(svg("line", { x1: s.x + dx, y1: s.y + dx, x2: t.x + dx, y2: t.y + dx, class: `cf-link ${seatClass(p)}`,
          dataset: { link: `${a}|${b}` } }));
      }
    }
  });
  const fromMoves = ui.from ? (sources.get(ui.from) || []) : [];
  for (const place of board.regions) {
    const r = regions.get(place.key);
    const goes = targets.get(place.key) || [];
    const marchTo = fromMoves.filter((a) => a.fields.to === place.key);
    const legal = goes.length > 0 || sources.has(place.key) || marchTo.length > 0;
    const classes = ["cf-region", `cf-ring-${place.ring}`, seatClass(r.owner)];
    if (place.ruin) classes.push("cf-ruin");
    if (legal) classes.push("legal");
    if (ui.from === place.key) classes.push("cf-from");
    if (marchTo.length) classes.push("cf-march-target");
    if (ui.region === place.key) classes.push("cf-picked");
    const cell = svg("polygon", { points: place.cell.map((pt) => pt.join(",")).join(" "), class: classes.join(" "),
      "data-region": place.key, "data-owner": String(r.owner), "data-occupant": String(occupant(r)),
      "data-cx": place.x, "data-cy": place.y });
    const title = svg("title", {});
    title.textContent = regionTitle(view, place, r);
    cell.append(title);
    if (legal) cell.addEventListener("click", () => clickRegion(place.key, targets, sources, ctx, redraw));
    cells.append(cell);
    pieces.append(regionPieces(view, place, r));
  }
  return root;
}

/** The player whose pieces stand in a region (Banner, Tower or Archmage), else -1. */
function occupant(r) {
  if (r.owner >= 0) return r.owner;
  return r.archmages.length ? r.archmages[0] : -1;
}

function regionTitle(view, place, r) {
  const parts = [`${place.name} (${place.ring === "keep" ? "the Keep" : `${place.ring} ring`}${place.ruin ? ", Ruin" : ""})`];
  parts.push(r.owner >= 0 ? `controlled by ${view.players[r.owner]}` : "uncontrolled");
  if (r.banners) parts.push(`${r.banners} Banner(s)`);
  if (r.tower) parts.push(`${view.players[r.tower.owner]}'s Tower${r.tower.role ? ` (${r.tower.role})` : " (Home Tower, no role)"}${r.tower.damaged ? ", Damaged" : ""}`);
  if (r.anchor >= 0) parts.push(`${view.players[r.anchor]}'s Anchor`);
  for (const p of r.archmages) parts.push(`${view.players[p]}'s Archmage`);
  if (r.ward) parts.push(`${view.players[r.ward[0]]}'s Ward`);
  if (r.garrison) parts.push(`${view.players[r.garrison[0]]}'s Phantom Garrison`);
  if (r.shield >= 0) parts.push(`${view.players[r.shield]}'s Ley Shield`);
  if (r.scorched) parts.push("scorched this turn");
  if (r.watchtower_spent) parts.push("its Watchtower has supported a battle this round");
  parts.push(`adjacent: ${place.adjacent.join(", ")}`);
  return parts.join("; ");
}

function regionPieces(view, place, r) {
  const g = svg("g", { class: "cf-region-pieces", "data-pieces": place.key });
  const { x, y } = place;
  const name = svg("text", { x, y: y - 4.2, class: "cf-name" });
  name.textContent = place.name;
  g.append(name);
  if (place.ring === "keep") g.append(label(x, y - 7.4, "\u265b", "cf-keep-mark"));
  if (place.ruin) g.append(label(x - 7, y - 7, "\u25c6", "cf-ruin-mark"));
  if (r.tower) {
    const t = r.tower;
    g.append(svg("rect", { x: x - 8, y: y - 2.2, width: 4.4, height: 4.4, rx: 0.6,
      class: `cf-tower ${seatClass(t.owner)}${t.damaged ? " cf-damaged" : ""}`, "data-role": t.role || "home" }));
    g.append(label(x - 5.8, y + 1.1, t.role ? ROLE_LETTER[t.role] : "H", "cf-role"));
  }
  if (r.banners) {
    g.append(svg("path", { d: `M ${x - 1.6} ${y + 2.4} L ${x - 1.6} ${y - 2.4} L ${x + 1.8} ${y - 1.2} L ${x - 1.6} ${y}`,
      class: `cf-banner ${seatClass(r.owner)}` }));
    g.append(label(x + 2.4, y + 2.2, String(r.banners), "cf-count"));
  }
  r.archmages.forEach((p, i) => {
    g.append(svg("circle", { cx: x + 5.6 + i * 2.6, cy: y, r: 1.7, class: `cf-mage ${seatClass(p)}` }));
  });
  const marks = [];
  if (r.anchor >= 0) marks.push(["\u2693", `cf-anchor ${seatClass(r.anchor)}`]);
  if (r.ward) marks.push(["W", `cf-ward ${seatClass(r.ward[0])}`]);
  if (r.garrison) marks.push(["G", `cf-garrison ${seatClass(r.garrison[0])}`]);
  if (r.shield >= 0) marks.push(["L", `cf-shield ${seatClass(r.shield)}`]);
  if (r.scorched) marks.push(["*", "cf-scorched"]);
  marks.forEach(([text, cls], i) => g.append(label(x - (marks.length - 1) * 1.6 + i * 3.2, y + 5.6, text, cls)));
  return g;
}

function label(x, y, text, cls) {
  const t = svg("text", { x, y, class: cls });
  t.textContent = text;
  return t;
}

/** A click on a legal region. With a March's start chosen, a click on a region it reaches Marches
 *  there (asking first when the step spends mana; a choice between a Banner and the Archmage is left
 *  to the buttons). Otherwise the click selects the region (a second click on it lets it go): its
 *  actions become buttons, the regions its Marches reach light up. Nothing else is ever sent. */
function clickRegion(key, targets, sources, ctx, redraw) {
  ui.confirm = null;
  if (ui.from && ui.from !== key) {
    const moves = (sources.get(ui.from) || []).filter((a) => a.fields.to === key);
    if (moves.length === 1 && !asks(moves[0])) {
      ctx.sendAction(moves[0].id);
      return;
    }
    if (moves.length) {
      ui.region = key;
      if (moves.length === 1) ui.confirm = moves[0].id;
      redraw();
      return;
    }
  }
  if (ui.region === key) {
    ui.from = null;
    ui.region = null;
  } else {
    ui.from = sources.has(key) ? key : null;
    ui.region = key;
  }
  redraw();
}

// -- the choices --------------------------------------------------------------------------------
const KIND_LABEL = { end: "End", stop: "Stop", "march-banner": "March a Banner", "march-mage": "March the Archmage",
  step: "Go on", raise: "Raise a Banner", fortify: "Fortify", anchor: "Anchor", research: "Research", cast: "Cast",
  place: "Place the Archmage" };

function choicesBox(view, actions, ctx, redraw) {
  const box = h("div", { class: "cf-card cf-choices", id: "cf-choices" });
  if (!actions.length) {
    box.append(h("span", { class: "muted" }, view.status === "over" ? "The game is over." : view.watching ? `Watching: ${view.players[view.deciding] ?? "nobody"} to decide.`
      : view.thinking ? "The AI is thinking\u2026" : seatKind(view, view.deciding) === "ai" ? "Waiting for the AI."
      : `Waiting for ${view.players[view.deciding] ?? `seat ${view.deciding}`}.`));
    return box;
  }
  box.append(h("p", { class: "cf-prompt" }, view.prompt || "your decision"));
  // A button plays its action, or, for one that spends mana or ends the turn, asks first.
  const choose = (a) => {
    if (asks(a)) {
      ui.confirm = a.id;
      redraw();
    } else {
      ctx.sendAction(a.id);
    }
  };
  const button = (a) => h("button", { type: "button", class: `cf-action cf-kind-${a.fields.kind}${a.id === ui.confirm ? " cf-asking" : ""}`,
    title: a.text, dataset: { actionId: String(a.id), kind: a.fields.kind }, onclick: () => choose(a) }, labelOf(a));
  const pending = ui.confirm === null ? null : actions.find((a) => a.id === ui.confirm);
  if (pending) box.append(confirmBox(view, pending, ctx, redraw));
  // The chosen region's actions: all that go there (from any region, but a March of a Banner only
  // from the chosen start); the Marches from it are on the map.
  if (ui.region) {
    const here = actions.filter((a) => targetOf(a) === ui.region && !(a.fields.kind === "march-banner" && ui.from && a.fields.from !== ui.from));
    const outgoing = ui.from ? actions.filter((a) => sourceOf(a) === ui.from) : [];
    box.append(h("div", { class: "cf-here", id: "cf-here", dataset: { region: ui.region } },
      h("strong", {}, regionName(view, ui.region)),
      outgoing.length ? h("p", { class: "cf-hint" }, `Click a lit region to March from here (${outgoing.length} way(s)).`) : null,
      ...endLast(here).map(button),
      h("button", { type: "button", class: "cf-cancel", onclick: () => { ui.from = null; ui.region = null; ui.confirm = null; redraw(); } }, "Cancel")));
  } else {
    box.append(h("p", { class: "cf-hint" }, "Click a lit region to see what you can do there."));
  }
  // What names no region: stopping a March, Research, Blink; ending the turn last.
  const plain = endLast(actions.filter((a) => !targetOf(a) && !sourceOf(a)));
  box.append(h("div", { class: "cf-plain", id: "cf-plain" }, ...plain.map(button)));
  // Every choice as a list, by kind (ending the turn last).
  const groups = new Map();
  for (const a of endLast(actions)) groups.set(a.fields.kind, [...(groups.get(a.fields.kind) || []), a]);
  box.append(h("details", { class: "cf-all", id: "cf-all" }, h("summary", {}, `All ${actions.length} choices`),
    ...[...groups.entries()].map(([kind, list]) => h("div", { class: "cf-group" },
      h("span", { class: "cf-label" }, KIND_LABEL[kind] || kind), ...list.map(button)))));
  return box;
}

/** The question before an action that spends mana or ends the turn: what it does, what it costs,
 *  Confirm (plays it) and Cancel (sends nothing). */
function confirmBox(view, a, ctx, redraw) {
  const obs = view.observation;
  const cost = a.fields.kind === "end"
    ? (obs.stage === "turn" && obs.current === view.human ? `Your turn ends with ${obs.actions_left} action(s) left.` : "Your turn ends.")
    : `It spends ${a.mana} mana (you have ${obs.players[view.human].mana}).`;
  return h("div", { class: "cf-confirm", id: "cf-confirm", role: "alertdialog", "aria-label": "confirm the action" },
    h("strong", {}, `${labelOf(a)}?`), " ", h("span", {}, cost), " ",
    h("button", { type: "button", id: "cf-confirm-yes", class: "cf-confirm-yes", dataset: { confirms: String(a.id) },
      onclick: () => { ui.confirm = null; ctx.sendAction(a.id); } }, "Confirm"),
    h("button", { type: "button", class: "cf-cancel", onclick: () => { ui.confirm = null; redraw(); } }, "Cancel"));
}

function regionName(view, key) {
  const place = view.board.regions.find((r) => r.key === key);
  return place ? place.name : key;
}

// -- the seats ----------------------------------------------------------------------------------
function seatsBox(view) {
  const obs = view.observation;
  const threshold = view.tracks.threshold;
  return h("div", { class: "cf-card cf-seats", id: "cf-seats" }, ...obs.players.map((player, p) => {
    const seat = view.seats[p];
    return h("div", { class: `cf-seat ${seatClass(p)}${p === view.to_move ? " cf-deciding" : ""}`, dataset: { seat: String(p) } },
      h("div", { class: "cf-seat-head" }, h("span", { class: `cf-swatch ${seatClass(p)}` }),
        h("strong", {}, `${player.seat}${seatTag(view, p)}`),
        h("span", { title: seat.house_text }, ` ${seat.house_name}`)),
      h("div", { class: "cf-tracks" }, ...view.tracks.names.map((t) => h("div", { class: "cf-track", dataset: { track: t } },
        h("span", { class: "cf-track-name" }, TRACK_NAMES[t] || t),
        h("span", { class: "cf-pips" }, ...Array.from({ length: Math.max(threshold, player[t]) }, (_, i) =>
          h("span", { class: `cf-pip${i < player[t] ? " on" : ""}${i === threshold - 1 ? " goal" : ""}` }))),
        h("span", { class: "cf-track-value" }, String(player[t]))))),
      h("div", { class: "cf-facts" },
        fact("Mana", player.mana, `next Income: ${seat.income.total}`),
        fact("Reserve", `${player.reserve.banners}B ${player.reserve.towers}T ${player.reserve.anchors}A`, "Banners, Towers, Anchors"),
        fact("Networks", player.networks.length, `${seat.network_nodes} node(s) in the largest`),
        fact("Realm", seat.realm, "regions in the largest connected group"),
        fact("Spells", Object.entries(player.spells).filter(([, v]) => v).map(([k, v]) => `${k} ${"I".repeat(v)}`).join(", ") || "none", "schools researched")),
      player.archmage ? null : h("div", { class: "cf-note" }, "Archmage out until the round's end"));
  }));
}

function fact(name, value, title) {
  return h("span", { class: "cf-fact", title }, h("span", { class: "cf-label" }, name), " ", String(value));
}

function spellsBox(view) {
  return h("details", { class: "cf-card cf-spells" }, h("summary", {}, "Spells"),
    h("table", {}, h("tbody", {}, ...view.spells.map((s) => h("tr", {},
      h("td", {}, `${s.school} ${"I".repeat(s.level)}`), h("td", {}, h("strong", {}, s.name)), h("td", {}, `${s.cost} mana`),
      h("td", { class: "cf-text" }, s.text))))));
}

function legend() {
  return h("p", { class: "cf-legend" },
    "\u265b the Keep \u00b7 \u25c6 Ruin \u00b7 flag: Banners (count) \u00b7 square: Tower (S Stronghold, N Sanctum, W Watchtower, ",
    "B Beacon, H Home Tower; dashed: Damaged) \u00b7 circle: Archmage \u00b7 \u2693 Anchor \u00b7 W Ward \u00b7 G Garrison \u00b7 ",
    "L Ley Shield \u00b7 * scorched \u00b7 coloured links: ley networks \u00b7 grey lines: adjacency");
}

// -- the log ------------------------------------------------------------------------------------
function logBox(view) {
  // Oldest first, as every game's log (the list scrolls to its newest entry).
  return h("div", { class: "cf-card cf-log-box" }, h("h3", {}, "Game log"),
    h("ol", { class: "cf-log", id: "cf-log" }, ...view.log.map((e) => h("li", { class: seatClass(e.player) },
      h("span", { class: "cf-log-round" }, e.turn ? `R${e.turn}` : ""),
      h("span", {}, e.player === null || e.player === undefined ? e.text : `${whoIs(view, e.player, view.players)}: ${e.label || e.text}`),
      ...(e.events || []).map((ev) => (ev.kind === "battle" ? battleBox(view, ev) : h("div", { class: `cf-event cf-${ev.kind}` }, ev.text)))))));
}

/** A battle, term by term: both sides' strength, the totals, the winner. */
function battleBox(view, b) {
  const row = (term, side) => {
    const t = b[side].terms.find((x) => x.term === term);
    return t ? [h("td", { class: "cf-num" }, String(t.value)), h("td", { class: "cf-note" }, t.note)] : [h("td", {}, ""), h("td", {}, "")];
  };
  const names = [];
  for (const side of ["attack", "defense"]) for (const t of b[side].terms) if (!names.some((n) => n[0] === t.term)) names.push([t.term, t.name]);
  return h("div", { class: "cf-battle", dataset: { region: b.region, winner: String(b.winner) } },
    h("p", {}, b.text),
    h("table", { class: "cf-battle-terms" },
      h("thead", {}, h("tr", {}, h("th", {}, "term"),
        h("th", { colspan: "2" }, `attack (${view.players[b.attacker]})`), h("th", { colspan: "2" }, `defence (${view.players[b.defender]})`))),
      h("tbody", {}, ...names.map(([term, name]) => h("tr", { dataset: { term } }, h("th", {}, name), ...row(term, "attack"), ...row(term, "defense"))),
        h("tr", { class: "cf-total" }, h("th", {}, "total"),
          h("td", { class: "cf-num", dataset: { side: "attack" } }, String(b.attack.total)), h("td", {}, ""),
          h("td", { class: "cf-num", dataset: { side: "defense" } }, String(b.defense.total)), h("td", {}, "")))));
}
