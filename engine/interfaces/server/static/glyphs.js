// Unit glyphs for the web boards (For the Crown; King's Ransom's Prince; Crusade & Conquer's Dragon and Flag Bearer), as data: token -> list of shapes in a 100x100 box.
//
// A shape is {t: SVG tag, a: attributes, s: style}. Styles:
//   "fill"   the owner's colour with the dark outline (the default)
//   "dark"   solid outline colour (eyes, gates, holes)
//   "light"  white with a thin outline
//   "line"   a thick stroke in the owner's colour over a wider dark stroke (w: width, default 8)
//   "stroke" a dark stroke only (w: width, default 3)
// Expansion units (tokens starting with "~", cylindrical) get a small globe badge in the corner.

const star = (cx, cy, outer, inner, n, turn = -90) => {
  const pts = [];
  for (let i = 0; i < 2 * n; i++) {
    const r = i % 2 ? inner : outer;
    const ang = ((turn + (i * 180) / n) * Math.PI) / 180;
    pts.push(`${(cx + r * Math.cos(ang)).toFixed(1)},${(cy + r * Math.sin(ang)).toFixed(1)}`);
  }
  return { t: "polygon", a: { points: pts.join(" ") } };
};

const rays = (cx, cy, r1, r2, n, halfWidth) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    const a = (i * 2 * Math.PI) / n;
    const b = a + halfWidth, c = a - halfWidth;
    const p = (r, ang) => `${(cx + r * Math.cos(ang)).toFixed(1)},${(cy + r * Math.sin(ang)).toFixed(1)}`;
    out.push({ t: "polygon", a: { points: `${p(r1, b)} ${p(r2, a)} ${p(r1, c)}` } });
  }
  return out;
};

const path = (d, s = "fill", extra = {}) => ({ t: "path", a: { d, ...extra }, s });
const rect = (x, y, width, height, rx = 0, s = "fill") => ({ t: "rect", a: { x, y, width, height, rx }, s });
const circle = (cx, cy, r, s = "fill") => ({ t: "circle", a: { cx, cy, r }, s });
const ellipse = (cx, cy, rx, ry, s = "fill") => ({ t: "ellipse", a: { cx, cy, rx, ry }, s });
const line = (d, w = 8) => ({ t: "path", a: { d }, s: "line", w });
const stroke = (d, w = 3) => ({ t: "path", a: { d }, s: "stroke", w });

export const GLYPHS = {
  // King: a crown with a cross
  K: [
    path("M46 4h8v8h8v8h-8v12h-8v-12h-8v-8h8z"),
    path("M22 72 L14 34 L34 52 L50 30 L66 52 L86 34 L78 72 Z"),
    rect(20, 72, 60, 14, 3),
  ],
  // Queen: a five-pointed coronet with pearls
  Q: [
    path("M20 76 L10 32 L28 54 L31 24 L42 52 L50 18 L58 52 L69 24 L72 54 L90 32 L80 76 Z"),
    circle(10, 27, 6), circle(31, 19, 6), circle(50, 12, 6), circle(69, 19, 6), circle(90, 27, 6),
    rect(18, 76, 64, 12, 3),
  ],
  // Rook: a tower with battlements and a gate
  R: [
    path("M22 90 H78 V80 H69 L66 42 H75 V14 H64 V24 H56 V14 H44 V24 H36 V14 H25 V42 H34 L31 80 H22 Z"),
    path("M43 80 V64 Q50 54 57 64 V80 Z", "dark"),
  ],
  // Bishop: a mitre (the bishop's pointed hat) with its bands and the two lappets hanging below
  B: [
    path("M35 74 H45 L43 95 H37 Z"), path("M55 74 H65 L63 95 H57 Z"),
    path("M24 78 L22 42 C26 28 36 16 50 5 C64 16 74 28 78 42 L76 78 Z"),
    rect(44.5, 14, 11, 64, 2, "light"),
    rect(23, 58, 54, 10, 2, "light"),
  ],
  // Knight: a horse's head
  N: [
    path("M26 92 H80 C82 66 78 40 62 24 L60 10 L51 19 L44 9 L41 24 C29 31 18 46 16 58 C14 66 22 72 29 66 C35 61 40 59 48 56 C45 68 32 76 26 92 Z"),
    circle(40, 36, 4.5, "dark"),
    stroke("M62 30 C70 42 74 58 74 84", 2.5),
  ],
  // Pawn: the classic round-headed pawn
  P: [
    path("M34 86 H66 C66 72 58 60 57 46 H43 C42 60 34 72 34 86 Z"),
    rect(24, 82, 52, 10, 3),
    circle(50, 30, 15),
  ],
  // Acolyte: a candle
  A: [
    path("M50 6 C62 18 62 30 50 34 C38 30 38 18 50 6 Z"),
    rect(38, 38, 24, 44, 3),
    stroke("M50 34 V40", 3),
    path("M18 82 H82 L74 94 H26 Z"),
  ],
  // Anointed: a crown beneath a halo
  U: [
    { t: "ellipse", a: { cx: 50, cy: 20, rx: 25, ry: 9 }, s: "line", w: 7 },
    path("M22 88 L18 46 L36 62 L50 40 L64 62 L82 46 L78 88 Z"),
    circle(50, 70, 6, "dark"),
  ],
  // Banshee: a wailing ghost
  E: [
    path("M20 92 L20 42 C20 20 34 8 50 8 C66 8 80 20 80 42 L80 92 L70 82 L60 92 L50 82 L40 92 L30 82 Z"),
    ellipse(39, 38, 6, 9, "dark"), ellipse(61, 38, 6, 9, "dark"), ellipse(50, 64, 7, 11, "dark"),
  ],
  // Chancellor: a scroll
  C: [
    rect(26, 18, 48, 64, 0),
    rect(18, 10, 64, 14, 7), rect(18, 76, 64, 14, 7),
    rect(34, 34, 32, 5, 2, "dark"), rect(34, 46, 32, 5, 2, "dark"), rect(34, 58, 22, 5, 2, "dark"),
  ],
  // Charger: a lance with a pennant
  L: [
    path("M56 34 L90 44 L56 54 Z"),
    path("M50 4 L59 32 L55 32 L56 92 L44 92 L45 32 L41 32 Z"),
    path("M36 80 H64 L57 64 H43 Z"),
  ],
  // Dragoon: a horseshoe
  D: [
    path("M20 12 L20 50 C20 76 34 90 50 90 C66 90 80 76 80 50 L80 12 L61 12 L61 50 C61 62 57 70 50 70 C43 70 39 62 39 50 L39 12 Z"),
    circle(29.5, 26, 3.5, "dark"), circle(29.5, 44, 3.5, "dark"), circle(33, 62, 3.5, "dark"),
    circle(70.5, 26, 3.5, "dark"), circle(70.5, 44, 3.5, "dark"), circle(67, 62, 3.5, "dark"),
  ],
  // Gryphon: an eagle's head with a hooked beak and a lion's tufted ears, on a feathered neck
  G: [
    path("M34 94 C34 80 38 70 42 63 L32 60 C24 59 18 60 12 64 C8 54 12 40 22 33 C28 28 34 24 40 22 L42 5 L52 19 "
         + "L64 7 L66 25 C76 32 80 46 77 60 C75 70 79 82 88 94 L78 88 L74 94 L64 88 L58 94 L50 88 L44 94 Z"),
    circle(46, 37, 5, "dark"),
    stroke("M14 60 C22 54 30 53 40 52", 3),
    stroke("M40 30 C46 26 54 27 58 31", 3),
  ],
  // Hero: a star
  H: [star(50, 53, 46, 19, 5)],
  // Immortal: an ankh
  I: [
    { t: "ellipse", a: { cx: 50, cy: 26, rx: 14, ry: 18 }, s: "line", w: 10 },
    rect(16, 46, 68, 12, 4),
    path("M44 56 H56 L60 94 H40 Z"),
  ],
  // Monk: a hooded figure
  M: [
    path("M16 94 C16 62 24 30 50 8 C76 30 84 62 84 94 Z"),
    ellipse(50, 46, 13, 17, "dark"),
    stroke("M50 66 V94", 3),
  ],
  // Nightrider: a crescent moon and a star
  Z: [
    path("M58 8 C32 12 14 32 14 54 C14 78 36 94 60 92 C70 91 78 87 86 80 C60 82 42 66 42 46 C42 30 48 18 58 8 Z"),
    star(72, 34, 14, 6, 4),
  ],
  // Oracle: an eye with rays
  O: [
    line("M50 20 V6", 6), line("M28 24 L20 12", 6), line("M72 24 L80 12", 6),
    path("M6 56 C24 26 76 26 94 56 C76 86 24 86 6 56 Z"),
    circle(50, 56, 16, "dark"),
    circle(55, 51, 5, "light"),
  ],
  // Phantom: a domino mask
  F: [
    path("M6 38 C20 28 40 30 50 38 C60 30 80 28 94 38 C94 58 82 72 66 70 C58 68 54 62 50 58 C46 62 42 68 34 70 C18 72 6 58 6 38 Z"),
    ellipse(30, 48, 10, 6.5, "dark"), ellipse(70, 48, 10, 6.5, "dark"),
    line("M20 74 L14 90", 5), line("M80 74 L86 90", 5),
  ],
  // Sniper: a crosshair
  S: [
    { t: "circle", a: { cx: 50, cy: 50, r: 30 }, s: "line", w: 8 },
    line("M50 6 V32"), line("M50 68 V94"), line("M6 50 H32"), line("M68 50 H94"),
    circle(50, 50, 7),
  ],
  // Sphinx: a lion lying with its forepaws stretched out, a human head in a striped headcloth
  X: [
    path("M96 76 C100 66 96 58 88 60", "stroke", {}),
    path("M30 90 L30 62 C30 55 36 52 44 52 L74 52 C87 52 94 62 94 76 L94 90 Z"),
    rect(6, 80, 36, 10, 4),
    path("M18 62 L24 30 C25 18 33 11 42 11 C51 11 59 18 60 30 L66 62 Z"),
    ellipse(42, 32, 8.5, 11, "light"),
    rect(39, 43, 6, 12, 2, "dark"),
    stroke("M23 46 L31 47 M21 55 L32 56 M61 46 L53 47 M63 55 L52 56", 3),
    circle(38.5, 30, 2, "dark"), circle(45.5, 30, 2, "dark"),
  ],
  // Spy: a dagger
  Y: [
    path("M50 4 L59 20 L59 62 L41 62 L41 20 Z"),
    stroke("M50 14 V58", 2.5),
    rect(26, 60, 48, 10, 4),
    rect(44, 70, 12, 16, 2),
    circle(50, 90, 6),
  ],
  // Striker: a lightning bolt
  T: [{ t: "polygon", a: { points: "62,4 20,56 46,56 34,96 82,40 56,40 72,4" } }],
  // Warlord: a horned helmet
  W: [
    path("M30 48 C14 44 6 30 10 8 C16 24 26 32 38 36 Z"),
    path("M70 48 C86 44 94 30 90 8 C84 24 74 32 62 36 Z"),
    path("M24 70 C24 40 36 26 50 26 C64 26 76 40 76 70 Z"),
    rect(16, 66, 68, 12, 4),
    rect(45, 74, 10, 20, 2),
  ],

  // -- King's Ransom --
  // Prince (King's Ransom token I; drawn from this key): a small figure wearing a coronet, without the
  // King's cross, so the two never look alike
  prince: [
    path("M30 50 H70 L74 60 C70 68 64 72 64 80 H36 C36 72 30 68 26 60 Z"),
    path("M24 90 C24 80 32 76 50 76 C68 76 76 80 76 90 Z"),
    circle(50, 37, 12),
    path("M36 26 L34 10 L42 18 L50 6 L58 18 L66 10 L64 26 Z"),
    circle(50, 6, 3.5, "light"),
  ],

  // -- Crusade & Conquer (tokens D and F; drawn from these keys) --
  // Dragon: a winged dragon seen from the front, horned head raised, wings spread
  dragon: [
    path("M50 44 L8 18 L18 44 L4 50 L22 58 L14 70 L40 62 Z"),
    path("M50 44 L92 18 L82 44 L96 50 L78 58 L86 70 L60 62 Z"),
    path("M38 92 C34 74 38 56 44 46 H56 C62 56 66 74 62 92 Z"),
    path("M40 44 C38 30 42 20 50 18 C58 20 62 30 60 44 Z"),
    path("M42 22 L36 6 L47 18 Z"), path("M58 22 L64 6 L53 18 Z"),
    circle(45, 30, 3, "dark"), circle(55, 30, 3, "dark"),
    stroke("M44 70 H56 M43 78 H57", 2.5),
  ],
  // Flag Bearer: a swallow-tailed banner with a star on a tall pole, on its foot
  "flag-bearer": [
    line("M28 10 V86", 6),
    path("M32 12 H88 L76 30 L88 48 H32 Z"),
    { ...star(55, 30, 11, 4.5, 5), s: "light" },
    rect(16, 84, 26, 10, 3),
    circle(28, 8, 5),
  ],

  // -- The World is Round (cylindrical) --
  // Visionary: a sun
  "~B": [...rays(50, 54, 22, 42, 8, 0.22), circle(50, 54, 20), circle(50, 54, 6, "dark")],
  // Courier: a sealed letter
  "~P": [
    rect(8, 26, 84, 56, 5),
    stroke("M10 30 L50 60 L90 30", 4),
    circle(50, 60, 7, "dark"),
  ],
  // Raider: a bearded hand axe
  "~N": [
    rect(40, 8, 11, 86, 4),
    path("M50 14 C70 8 90 20 90 40 C90 58 80 68 68 72 C68 58 62 50 50 46 Z"),
  ],
  // Khan: a tall steppe hat with a fur brim and a tassel
  "~K": [
    path("M26 68 C28 42 38 22 50 10 C62 22 72 42 74 68 Z"),
    circle(50, 10, 6),
    stroke("M50 16 C46 30 44 48 44 64", 3),
    rect(14, 62, 72, 22, 11),
    stroke("M26 70 v8 M38 70 v8 M50 70 v8 M62 70 v8 M74 70 v8", 3.5),
  ],
  // Nomad: a tent
  "~Z": [
    line("M50 22 V6", 5),
    path("M6 90 C28 74 42 46 50 18 C58 46 72 74 94 90 Z"),
    path("M50 44 L38 90 H62 Z", "dark"),
  ],
  // Corsair: an anchor
  "~R": [
    { t: "circle", a: { cx: 50, cy: 15, r: 8 }, s: "line", w: 6 },
    line("M18 62 C22 82 36 90 50 90 C64 90 78 82 82 62", 8),
    rect(44, 24, 12, 64, 3),
    rect(28, 30, 44, 9, 4),
    { t: "polygon", a: { points: "8,66 18,48 28,66" } }, { t: "polygon", a: { points: "72,66 82,48 92,66" } },
  ],
  // Pilgrim: a scallop shell
  "~M": [
    path("M38 94 H62 L58 82 H42 Z"),
    path("M50 86 L16 50 C10 26 32 10 50 10 C68 10 90 26 84 50 Z"),
    stroke("M50 82 L22 42 M50 82 L34 22 M50 82 L50 16 M50 82 L66 22 M50 82 L78 42", 3),
  ],
  // Navigator: a compass rose
  "~G": [star(50, 52, 30, 9, 4, -45), star(50, 52, 46, 11, 4), circle(50, 52, 6, "dark")],
  // Outrider: a banner on a pole
  "~H": [
    path("M30 12 C46 4 58 22 86 12 L86 52 C58 62 46 44 30 52 Z"),
    rect(20, 6, 10, 90, 4),
    circle(25, 8, 6),
  ],
  // Vanguard: a shield with a chevron
  "~L": [
    path("M50 6 L88 18 C88 54 74 78 50 94 C26 78 12 54 12 18 Z"),
    { t: "polyline", a: { points: "26,58 50,38 74,58" }, s: "stroke", w: 9 },
  ],
};

export const COLOURS = ["#3b78e7", "#f4c430"];
export const OUTLINE = "#15171d";
export const SIDE_NAMES = ["Blue", "Yellow"];

const SVGNS = "http://www.w3.org/2000/svg";

function el(tag, attrs) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function addShape(svg, shape, colour) {
  const style = shape.s || "fill";
  const base = { ...shape.a, "stroke-linejoin": "round", "stroke-linecap": "round" };
  if (style === "line") {
    const w = shape.w || 8;
    svg.appendChild(el(shape.t, { ...base, fill: "none", stroke: OUTLINE, "stroke-width": w + 6 }));
    svg.appendChild(el(shape.t, { ...base, fill: "none", stroke: colour, "stroke-width": w }));
  } else if (style === "stroke") {
    svg.appendChild(el(shape.t, { ...base, fill: "none", stroke: OUTLINE, "stroke-width": shape.w || 3 }));
  } else if (style === "dark") {
    svg.appendChild(el(shape.t, { ...base, fill: OUTLINE, stroke: "none" }));
  } else if (style === "light") {
    svg.appendChild(el(shape.t, { ...base, fill: "#ffffff", stroke: OUTLINE, "stroke-width": 2 }));
  } else {
    svg.appendChild(el(shape.t, { ...base, fill: colour, stroke: OUTLINE, "stroke-width": 4 }));
  }
}

function addGlobe(svg) {
  const g = el("g", { class: "globe" });
  g.appendChild(el("circle", { cx: 85, cy: 85, r: 13, fill: "#d9f0ff", stroke: OUTLINE, "stroke-width": 3 }));
  g.appendChild(el("ellipse", { cx: 85, cy: 85, rx: 5.5, ry: 13, fill: "none", stroke: OUTLINE, "stroke-width": 2 }));
  g.appendChild(el("path", { d: "M72 85 H98", fill: "none", stroke: OUTLINE, "stroke-width": 2 }));
  svg.appendChild(g);
}

const cache = new Map();

/** An <svg> element for a unit token in a side's colour (0 Blue, 1 Yellow, a "#rrggbb" colour; other values: grey).
 *  `title` (e.g. the unit's name from /api/catalog) becomes the hover text. */
export function glyphSVG(token, colour, title) {
  const key = `${token}|${colour}`;
  let proto = cache.get(key);
  if (!proto) {
    const fillColour = colour === 0 || colour === 1 ? COLOURS[colour] : typeof colour === "string" && colour.startsWith("#") ? colour : "#c8c8c8";
    proto = el("svg", { viewBox: "0 0 100 100", class: "glyph", "data-token": token, "aria-hidden": "false", role: "img" });
    const shapes = GLYPHS[token];
    if (shapes) {
      for (const shape of shapes) addShape(proto, shape, fillColour);
    } else {
      // An unknown token: its letters in a disc, so it still shows.
      proto.appendChild(el("circle", { cx: 50, cy: 50, r: 40, fill: fillColour, stroke: OUTLINE, "stroke-width": 4 }));
      const text = el("text", { x: 50, y: 62, "text-anchor": "middle", "font-size": 34, "font-family": "sans-serif", fill: OUTLINE });
      text.textContent = token;
      proto.appendChild(text);
    }
    if (token.startsWith("~")) addGlobe(proto);
    cache.set(key, proto);
  }
  const svg = proto.cloneNode(true);
  if (title) {
    const t = document.createElementNS(SVGNS, "title");
    t.textContent = title;
    svg.insertBefore(t, svg.firstChild);
    svg.setAttribute("aria-label", title);
  }
  return svg;
}
