// The review of a finished game (docs/server.md "Game review"; the report is `ftc review --json`'s,
// docs/review.md): the shell's "Review" button opens this panel, and the record board's Review
// button (game-analysis.js) opens it for a loaded record (openReviewOf, with its own requests). It
// starts the review on the server (POST .../review), asks how far it is about once a second (GET) and draws each answer: per player
// the count of each label and the average loss, an evaluation graph (an SVG drawn here), and every
// decision with the move played, the values before and after it, the loss, the label, and the better
// choice with the engine's line. It names no game: seats, labels, values and texts are the report's.
// Every server string goes in as text (never HTML); nothing is styled inline (the page's policy).
import { $, api, clear, h, svg } from "./dom.js";

const LABELS = ["good", "inaccuracy", "mistake", "blunder"];
/** Milliseconds between two questions about a running review. */
const POLL_MS = 1000;
/** The graph's size in its own units (the SVG scales to the panel's width). */
const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 52, right: 12, top: 12, bottom: 26 };

/** The review shown now: {id, ask, timer}; null when the panel is closed. */
let current = null;

const reviewPath = (id, watching) => `/api/games/${encodeURIComponent(id)}${watching ? "/watch" : ""}/review`;

/** Decimals of the scale's numbers: none for a scale whose thresholds are whole and large
 *  (centi-points), two otherwise (a tree search's value, -1 .. +1). */
function digitsOf(scale) {
  return Number.isInteger(scale.inaccuracy) && scale.inaccuracy >= 10 ? 0 : 2;
}

function signed(value, digits) {
  const text = Math.abs(value).toFixed(digits);
  return `${value < 0 ? "\u2212" : "+"}${text}`;
}

/** Open the review of game ``id`` (a seat's ``token``, or a spectator's when ``watching``). */
export function openReview(id, token, watching = false) {
  const auth = watching ? undefined : token;
  return openReviewOf(id, (first) => api(first ? "POST" : "GET", reviewPath(id, watching), undefined, auth));
}

/** Open a review named ``id`` whose answers ``ask(first)`` fetches (``first``: the request that
 *  starts it; later ones ask how far it is). */
export async function openReviewOf(id, ask) {
  closeReview();
  const panel = $("#review-panel");
  current = { id, ask, timer: null };
  const mine = current;
  panel.hidden = false;
  clear(panel).append(heading(), h("p", { class: "review-status" }, "Starting the review\u2026"));
  panel.scrollIntoView({ block: "nearest" });
  try {
    show(mine, await ask(true));
  } catch (exc) {
    failed(mine, exc);
  }
}

/** Close the panel and stop asking about its review (the shell calls it when another game opens). */
export function closeReview() {
  if (current && current.timer) clearTimeout(current.timer);
  current = null;
  const panel = $("#review-panel");
  if (panel) {
    panel.hidden = true;
    clear(panel);
  }
}

/** The game the panel reviews, or null. */
export const reviewedGame = () => (current ? current.id : null);

function heading() {
  return h("h2", {}, "Review",
    h("button", { type: "button", class: "close", id: "review-close", title: "close", onclick: closeReview }, "\u00d7"));
}

function failed(mine, exc) {
  if (current !== mine) return;
  const panel = clear($("#review-panel"));
  panel.append(heading(), h("p", { class: "review-status review-error" }, `The review could not be made: ${exc.message}`));
}

async function poll(mine) {
  if (current !== mine) return;
  try {
    show(mine, await mine.ask(false));
  } catch (exc) {
    failed(mine, exc);
  }
}

/** Draw an answer; while the review runs, ask again in a second. */
function show(mine, report) {
  if (current !== mine) return;
  const panel = clear($("#review-panel"));
  panel.dataset.status = report.status;
  const digits = digitsOf(report.scale);
  let status = `${report.reviewed} of ${report.of} decisions reviewed`;
  if (report.status === "running") status += "\u2026";
  if (report.status === "failed") status += ` \u2014 ${report.error}`;
  if (report.skipped) status += ` (the first ${report.of}; ${report.skipped} more not reviewed: the server's limit)`;
  const scale = report.scale;
  panel.append(
    heading(),
    h("p", { class: `review-status${report.status === "failed" ? " review-error" : ""}` }, status),
    h("p", { class: "review-scale" },
      `Values in ${scale.unit}, for the player deciding; a loss from ${scale.inaccuracy} is an inaccuracy, from ` +
      `${scale.mistake} a mistake, from ${scale.blunder} a blunder. Budget: ${budget(report.settings)}.`),
    summaryTable(report, digits),
    graph(report),
    decisionsTable(report, digits),
  );
  if (report.status === "running") mine.timer = setTimeout(() => poll(mine), POLL_MS);
}

function budget(settings) {
  if (settings.iterations) return `${settings.iterations} iterations a decision, seed ${settings.seed}`;
  if (settings.depth) return `${settings.depth} ${settings.depth === 1 ? "ply" : "plies"} a decision, seed ${settings.seed}`;
  return `the game's default, seed ${settings.seed}`;
}

function summaryTable(report, digits) {
  const head = h("tr", {}, h("th", {}, "player"), h("th", {}, "decisions"),
    LABELS.map((label) => h("th", { class: `label-${label}` }, label)), h("th", {}, "average loss"));
  const rows = report.summary.map((s) => h("tr", { class: `review-player player-${s.player}`, dataset: { player: s.player } },
    h("td", {}, h("span", { class: `review-swatch player-${s.player}` }), s.seat), h("td", {}, s.decisions),
    LABELS.map((label) => h("td", { class: `label-${label}`, dataset: { label } }, s.counts[label])),
    h("td", {}, s.average_loss.toFixed(digits))));
  return h("table", { class: "review-summary" }, h("thead", {}, head), h("tbody", {}, rows));
}

/** The evaluation graph: each player's value before each of its decisions (the engine's best
 *  choice there, for that player), its mistakes and blunders marked at the value the move left.
 *  Values past the graph's bound (a forced result) are drawn at its edge. */
function graph(report) {
  const entries = report.decisions;
  const scale = report.scale;
  const values = entries.flatMap((e) => [e.value, e.played_value]).map(Math.abs);
  const cap = scale.blunder * 10 / 3;                     // +-1 for a tree search, +-1000 centi-points
  const bound = Math.max(scale.inaccuracy, Math.min(cap, Math.max(0, ...values))) || 1;
  const first = entries.length ? entries[0].decision : 1;
  const last = entries.length ? Math.max(first + 1, entries[entries.length - 1].decision) : 2;
  const x = (d) => PAD.left + (d - first) / (last - first) * (WIDTH - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (Math.max(-bound, Math.min(bound, v)) + bound) / (2 * bound)) * (HEIGHT - PAD.top - PAD.bottom);
  const root = svg("svg", { class: "review-graph", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": "evaluation graph: each player's value before each of its decisions" });
  const digits = digitsOf(scale);
  for (const v of [bound, 0, -bound]) {
    root.append(svg("line", { class: v === 0 ? "review-axis zero" : "review-axis", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v) }));
    const tick = svg("text", { class: "review-tick", x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end" });
    tick.textContent = v === 0 ? "0" : signed(v, digits);
    root.append(tick);
  }
  const caption = svg("text", { class: "review-tick", x: (PAD.left + WIDTH - PAD.right) / 2, y: HEIGHT - 6, "text-anchor": "middle" });
  caption.textContent = `decision (${first}\u2013${last})`;
  root.append(caption);
  for (const player of report.players) {
    const mine = entries.filter((e) => e.player === player);
    if (!mine.length) continue;
    const points = mine.map((e) => `${x(e.decision).toFixed(1)},${y(e.value).toFixed(1)}`).join(" ");
    root.append(svg("polyline", { class: `review-line player-${player}`, points }));
    for (const e of mine) {
      const dot = svg("circle", { class: `review-dot player-${player}`, cx: x(e.decision), cy: y(e.value), r: 2.5 });
      root.append(dot);
      if (e.label !== "mistake" && e.label !== "blunder") continue;
      const mark = e.label === "blunder"
        ? svg("path", { class: `review-mark blunder player-${player}`, d: cross(x(e.decision), y(e.played_value)) })
        : svg("circle", { class: `review-mark mistake player-${player}`, cx: x(e.decision), cy: y(e.played_value), r: 5 });
      mark.setAttribute("data-decision", String(e.decision));
      const title = svg("title");
      title.textContent = `${e.decision}. ${e.seat} ${e.played}: ${e.label} (loss ${e.loss.toFixed(digits)})`;
      mark.append(title);
      root.append(mark);
    }
  }
  return h("figure", { class: "review-figure" }, root,
    h("figcaption", {}, report.summary.map((s) => h("span", { class: "review-key" },
      h("span", { class: `review-swatch player-${s.player}` }), s.seat)),
    h("span", { class: "review-key" }, "\u25cb a mistake, \u00d7 a blunder, at the value the move left")));
}

function cross(cx, cy) {
  const r = 5;
  return `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}`;
}

function decisionsTable(report, digits) {
  const head = h("tr", {}, ["#", "turn", "player", "played", "before", "after", "loss", "label", "better, and the line"]
    .map((text) => h("th", {}, text)));
  const rows = report.decisions.map((e) => h("tr", { class: `review-decision label-${e.label}`, dataset: { decision: e.decision, label: e.label } },
    h("td", {}, e.decision), h("td", {}, e.turn), h("td", {}, h("span", { class: `review-swatch player-${e.player}` }), e.seat),
    h("td", { class: "review-move" }, e.played),
    h("td", { title: "the value of the engine's best choice here" }, signed(e.value, digits)),
    h("td", { title: "the value of the move played" }, signed(e.played_value, digits)),
    h("td", {}, e.loss.toFixed(digits)),
    h("td", {}, h("span", { class: `review-label label-${e.label}` }, e.label)),
    h("td", { class: "review-better" }, e.label === "good" ? "" : `${e.best}: ${e.line.join(" / ")}`)));
  return h("div", { class: "review-decisions" },
    h("table", {}, h("thead", {}, head), h("tbody", {}, rows)));
}
