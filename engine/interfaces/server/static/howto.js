// For the Crown's "How to play" panel (docs/server.md, "The web board explains the game"): the turn's
// phases, how to win, and for every unit type where it may march and attack, drawn from the squares the
// engine generates for it alone on an empty board (GET /api/units/reach), flat and in Compass mode.
// The same <details class="panel how-to"> pattern as King's Ransom's "How the cards move" (ransom.js).
// Server strings go into the page as text only.
import { $, api, clear, h } from "./dom.js";
import { glyphSVG } from "./glyphs.js";

const RULES = "/rules/for-the-crown";

/** A link to a section of the rules page, in a new tab: rule("6.0") -> "(6.0)" linking #sec-6-0. */
export function ruleLink(number, text = number, page = RULES, anchor = `sec-${number.replace(".", "-")}`) {
  return h("a", { class: "rule-link", href: `${page}#${anchor}`, target: "_blank", rel: "noopener", title: `the rules, ${number}` }, text);
}

// A rule number in a card text: "(7.0)", "(cylindrical, 16.0)", "expansion 1.0". The expansion's
// own numbers ("expansion 1.0") have their own anchors (exp-N-M); every other number is a section of
// the rules page (the expansion's 16.0 and 17.0 included: sec-16-0).
const RULE_NUMBER = /(expansion )?\b(\d{1,2})\.(\d)\b/g;

/** A card text as nodes: text, with each rule number a link to its section of the rules page. */
export function linkRules(text) {
  const out = [];
  let last = 0;
  for (const match of text.matchAll(RULE_NUMBER)) {
    const [whole, expansion, major, minor] = match;
    if (match.index > last) out.push(text.slice(last, match.index));
    const number = `${major}.${minor}`;
    out.push(ruleLink(number, whole, RULES, `${expansion ? "exp" : "sec"}-${major}-${minor}`));
    last = match.index + whole.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// What each mark of a diagram means (the class of the square, the legend's words).
const MARKS = [
  ["march", "marches there (an empty square)"],
  ["attack", "attacks there (captures an enemy by moving onto it)"],
  ["both", "marches or attacks there"],
  ["shoot", "captures there without moving"],
  ["swap", "swaps places with a friendly unit there"],
];

const how = { catalog: null, reach: null, loading: null, token: null };

function phases() {
  const item = (name, number, ...text) => h("li", { dataset: { phase: name.toLowerCase() } }, h("strong", {}, name), " ", ruleLink(number, `(${number})`), ": ", ...text);
  return h("ol", { class: "how-phases" },
    item("Order", "6.0", "one order (more with \u201c+1 Order\u201d cards), and each unit at most one order a turn. An order marches a unit to an empty square, attacks an enemy unit (capturing it), deploys a unit from your Barracks onto your first rank (a Foot unit also the second), or plays a card for its order effect. A Foot unit that marches or attacks onto your eighth rank is promoted. Orders are optional."),
    item("Action", "7.0", "one action (more with \u201c+1 Action\u201d): play a card for its action effect. A training action puts new units into your Barracks and the card goes to the Trash."),
    item("Buy", "8.0", "play treasure cards for gold, then buy a card of the Supply (one buy, more with \u201c+1 Buy\u201d); bought cards go to your Discard pile."),
    item("Housekeeping", "9.0", "done for you: the cards you played or kept go to your Discard pile and you draw five new ones (the Discard pile is shuffled into a new Deck when the Deck runs out)."));
}

function intro() {
  return h("div", { class: "how-intro" },
    h("p", {}, "Each card has two effects; playing it uses one of them (", ruleLink("5.0", "5.0"), "). Click a highlighted unit, then a highlighted square, to give an order; the buttons beside the board play cards and end phases."),
    h("h3", {}, "A turn"), phases(),
    h("h3", {}, "How to win"),
    h("p", { class: "how-win" }, "At the end of any turn, a player with no Sovereign unit on the board (the King, the Anointed and the other units of the Sovereign class) loses (", ruleLink("10.0", "10.0"), "). There is no check: you may leave your King in danger, and lose it. The engine also ends long games as draws: 100 turns with no capture, training or deploy, a position repeated three times, or 500 turns (",
      ruleLink("C3", "ruling C3", "/rules/rulings", "ruling-C3"), ")."),
    h("p", {}, h("a", { href: RULES, target: "_blank", rel: "noopener", id: "how-rules-link" }, "The complete rules of For the Crown"), " (a new tab)."));
}

async function loadReach() {
  if (how.reach) return how.reach;
  if (!how.loading) {
    how.loading = api("GET", "/api/units/reach").then((data) => {
      how.reach = new Map(data.units.map((u) => [u.token, u]));
      return how.reach;
    }).finally(() => { how.loading = null; });
  }
  return how.loading;
}

/** The mark of every square of one diagram: square name -> march / attack / both / shoot / swap. */
export function diagramMarks(mode) {
  const marks = new Map();
  for (const sq of mode.march) marks.set(sq, "march");
  for (const sq of mode.attack) marks.set(sq, marks.has(sq) ? "both" : "attack");
  for (const sq of mode.shoot) marks.set(sq, "shoot");
  for (const sq of mode.swap) if (!marks.has(sq)) marks.set(sq, "swap");
  return marks;
}

/** One 8 x 8 diagram, Blue's side at the bottom (forward is up), the unit on its square. */
function diagram(unit, mode, kind, caption) {
  const marks = diagramMarks(mode);
  const grid = h("div", { class: "how-grid", role: "img", dataset: { mode: kind, square: mode.square },
    "aria-label": `${unit.name} on ${mode.square}: ${caption}` });
  for (let rank = 8; rank >= 1; rank--) {
    for (const file of "abcdefgh") {
      const sq = `${file}${rank}`;
      const dark = ("abcdefgh".indexOf(file) + rank) % 2 === 1 ? "light" : "dark";
      const mark = marks.get(sq);
      const cell = h("span", { class: `how-sq ${dark}${mark ? ` mark-${mark}` : ""}`, dataset: mark ? { square: sq, mark } : { square: sq }, title: mark ? `${sq}: ${MARKS.find((m) => m[0] === mark)[1]}` : sq });
      if (sq === mode.square) {
        cell.classList.add("origin");
        cell.append(glyphSVG(unit.token, 0, unit.name));
      }
      grid.append(cell);
    }
  }
  return h("figure", { class: "how-diagram" }, grid, h("figcaption", {}, linkRules(caption)));
}

function legend(modes) {
  const used = new Set();
  for (const mode of modes) for (const mark of diagramMarks(mode).values()) used.add(mark);
  const list = h("ul", { class: "how-legend" });
  for (const [mark, text] of MARKS) {
    if (used.has(mark)) list.append(h("li", {}, h("span", { class: `how-sq mark-${mark} key` }), text));
  }
  return list;
}

/** The second diagram: how the unit moves with the a- and h-files joined. An expansion unit always
 *  moves so (16.0); any other unit only when the Compass card (17.0) marches it, which never moves a
 *  Sovereign and never attacks: only its march squares are drawn, or a note says why there are none. */
function wrapped(unit, info) {
  if (unit.cylindrical) return { mode: unit.compass, caption: `from ${unit.compass.square}: past the a-file it comes back on the h-file` };
  if ((info.classes || []).includes("Sovereign")) return { note: "The Compass card (17.0) cannot march a Sovereign, so its files never wrap." };
  if (!unit.compass.march.length) return { note: "The Compass card (17.0) gives it no march: it has none of its own." };
  const march = { ...unit.compass, attack: [], shoot: [], swap: [] };
  return { mode: march, caption: `marched by the Compass card (17.0), from ${unit.compass.square}: files a and h join` };
}

function unitCard(unit) {
  const info = how.catalog.units[unit.token] || {};
  const stays = unit.flat.march.includes(unit.flat.square);
  const second = wrapped(unit, info);
  const anchor = `unit-${unit.name.toLowerCase().replace(/[^a-z]+/g, "-")}`;
  const box = h("div", { class: "how-unit", dataset: { token: unit.token } },
    h("div", { class: "how-unit-head" }, glyphSVG(unit.token, 0, unit.name),
      h("a", { href: `${RULES}#${anchor}`, target: "_blank", rel: "noopener", title: "its entry in the rules" }, h("strong", {}, `${unit.name} (${unit.token})`)),
      h("span", { class: "how-classes" }, (info.classes || []).join(", ") || "no class"),
      h("code", { class: "how-spec", title: "its movement spec (docs/movespec.md)" }, unit.moves)),
    h("div", { class: "how-diagrams" },
      diagram(unit, unit.flat, "flat", unit.cylindrical ? `from ${unit.flat.square}; its files always wrap round (16.0)` : `from ${unit.flat.square}, Blue's unit (forward is up)`),
      second.mode ? diagram(unit, second.mode, "compass", second.caption) : null),
    legend(second.mode ? [unit.flat, second.mode] : [unit.flat]));
  if (second.note) box.append(h("p", { class: "how-note" }, linkRules(second.note)));
  if (stays) box.append(h("p", { class: "how-note" }, "It may also end its move where it started (a null march): the ringed square."));
  if (unit.flat.swap.length) box.append(h("p", { class: "how-note" }, "It marches only by swapping places with one of your units, wherever it stands."));
  if (info.captured_to === "barracks") box.append(h("p", { class: "how-note" }, "When captured it goes back to its owner's Barracks, not the Stock."));
  if ((info.provisional || []).includes("moves")) box.append(h("p", { class: "how-note" }, "Its movement is the project's own choice (PROVISIONAL), not printed data."));
  return box;
}

async function renderUnit(token) {
  const box = clear($("#how-unit"));
  box.append(h("p", { class: "empty-note" }, "loading\u2026"));
  let reach;
  try {
    reach = await loadReach();
  } catch (exc) {
    clear(box).append(h("p", { class: "empty-note" }, `cannot load the units' moves: ${exc.message}`));
    return;
  }
  if (how.token !== token) return;              // another unit was chosen meanwhile
  const unit = reach.get(token);
  clear(box).append(unit ? unitCard(unit) : h("p", { class: "empty-note" }, `no unit ${token}`));
  document.querySelectorAll("#how-units .how-pick").forEach((b) => b.classList.toggle("selected", b.dataset.token === token));
}

/** Show ``token``'s moves in the panel: choose it, open the panel and bring it into view. */
export function showUnitHow(token) {
  const panel = $("#ftc-how");
  panel.open = true;
  how.token = token;
  renderUnit(token).then(() => $("#how-unit").scrollIntoView({ block: "nearest", behavior: "smooth" }));
}

/** Build the panel once the catalog is known: the texts, and a button per unit type. */
export function initHowTo(catalog) {
  how.catalog = catalog;
  const body = clear($("#ftc-how-body"));
  const picks = h("div", { id: "how-units", role: "toolbar", "aria-label": "unit types" });
  for (const [token, u] of Object.entries(catalog.units)) {
    picks.append(h("button", { type: "button", class: "how-pick", title: `${u.name} (${token})`, dataset: { token }, onclick: () => showUnitHow(token) }, glyphSVG(token, 0, u.name)));
  }
  body.append(intro(), h("h3", {}, "Where each unit may go"),
    h("p", { class: "ref-note" }, linkRules("Choose a unit (or click one in the Unit legend, or right-click / long-press a unit on the board). Squares as the engine generates them for the unit alone on an empty board. The expansion's units always wrap round the a- and h-files (16.0); the Compass card (17.0) marches any other unit so.")),
    picks, h("div", { id: "how-unit" }));
  const panel = $("#ftc-how");
  panel.addEventListener("toggle", () => {
    if (panel.open && !how.token) {
      how.token = Object.keys(catalog.units)[0];
      renderUnit(how.token);
    }
  });
}
