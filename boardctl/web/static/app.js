// boardctl web page: renders the daemon's state lines and sends actions over one WebSocket.
// No framework and no build step: the Pi may be offline.
"use strict";

// Board shapes, as boardctl/core/geometry.py has them: square (point) s is rank * files + file,
// files named a.., ranks counted from firstRank. The state line's "variant" picks one (absent: chess).
const FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz";
const GEOMETRIES = {
  chess: { name: "chess", files: 8, ranks: 8, firstRank: 1, sides: ["white", "black"] },
  xiangqi: { name: "xiangqi", files: 9, ranks: 10, firstRank: 0, sides: ["red", "black"] },
};
for (const g of Object.values(GEOMETRIES)) g.points = g.files * g.ranks;
const GLYPHS = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
// Xiangqi pieces: FEN letters (h/e are other programs' names for the horse and the elephant).
const XQ_KIND = { k: "k", a: "a", b: "e", e: "e", n: "h", h: "h", r: "r", c: "c", p: "p" };
const XQ_CHARS = {
  red: { k: "帥", a: "仕", e: "相", h: "傌", r: "俥", c: "炮", p: "兵" },
  black: { k: "將", a: "士", e: "象", h: "馬", r: "車", c: "砲", p: "卒" },
};
const XQ_LETTERS = { k: "K", a: "A", e: "E", h: "H", r: "R", c: "C", p: "P" };
const XQ_NAMES = { k: "general", a: "advisor", e: "elephant", h: "horse", r: "chariot", c: "cannon", p: "soldier" };
// The looks a user may choose for xiangqi pieces, remembered in this browser.
const XQ_SKINS = { traditional: "Traditional (characters)", western: "Western letters (R H E A K C P)" };
const XQ_COLOURS = { classic: "Red and black on wood", "red-blue": "Red and blue", solid: "Solid discs (white on red and black)" };
// The engine's four levels and their Chinese names (engine/levels.py CHINESE_NAMES).
const LEVELS = [["beginner", "初级"], ["intermediate", "中级"], ["advanced", "高级"], ["master", "大师"]];
// Milliseconds between lifting a captured piece and placing the capturing one (> the brush time).
const CAPTURE_PAUSE_MS = 250;
// A second click on Resign within this time resigns; the first only asks.
const RESIGN_CONFIRM_MS = 5000;
// The LED colours and what they mean (the colours are the CSS's, [data-led~=…]).
const LEGEND = [
  ["engine-move", "the engine's move: make it on the board"],
  ["hint", "the hint"],
  ["lifted", "a piece in the hand"],
  ["legal-moves", "where the lifted piece may go"],
  ["touch-move", "touch-move: this piece must move"],
  ["illegal-move", "an illegal move: put it back"],
  ["castling-rook-first", "rook touched before the king"],
  ["mismatch", "set this square as the game has it (a new game's set-up too)"],
  ["takeback", "a move taken back: restore these squares"],
  ["promotion", "promotion: choose the new piece"],
  ["which-capture", "which piece was taken? lift the capturer from its square and put it back"],
  ["check", "the king in check"],
  ["blunder", "a blunder warning"],
  ["draw-offer", "a draw is offered"],
  ["result", "the game is over"],
  ["storage", "the game cannot be saved (disk full or read-only): it is kept in memory"],
  ["remote-move", "your opponent's move (another board, a phone): make it on the board"],
  ["coach", "the coach's better move (your move lost a pawn or more)"],
  ["lesson-move", "the lesson's move: make it on the board"],
  ["lesson-wrong", "not the lesson's move: put it back; the right one is lit"],
  ["step-move", "the replayed game's move"],
  ["must-vary", "this side must vary its repeated moves (必须变着) or lose"],
  ["app", "lit by an app over ChessLink (boardctl link)"],
];
// The xiangqi rulings' words, which the state line's warning and termination carry (docs/xiangqi-rules.md):
// listed here so that scripts/make_cjk_font.py puts their characters in the page's font.
// 长将 长杀 长捉 一将一杀 一将一捉 一杀一捉 将杀捉交替 数将一闲 数杀一闲 数捉一闲 必须变着 判负 双方不变作和 自然限着作和 回合
// Tones (Hz, seconds) for each kind of sound; WebAudio makes them, no sound files needed.
const TONES = {
  move: [[660, 0.07]],
  capture: [[440, 0.05], [330, 0.09]],
  check: [[880, 0.06], [0, 0.03], [880, 0.06]],
  castle: [[587, 0.06], [784, 0.08]],
  engine: [[988, 0.05]],
  end: [[523, 0.12], [659, 0.12], [784, 0.25]],
  illegal: [[220, 0.12], [0, 0.04], [220, 0.12]],
};

const app = {
  ws: null,
  state: null,
  nextId: 1,
  pending: new Map(), // id -> {resolve, reject}
  flipped: null,      // null: follow the game (the human's colour), else the user's choice
  carried: {},        // square -> piece letter the user dropped there (sensed, not yet in the game)
  pinRequired: false,
  stateReceivedAt: 0,
  lastRender: 0,
  localFen: null,     // without occupancy in the state: the position localDelta applies to
  localDelta: {},     // square -> occupied, this page's accepted events since localFen
  muted: false,
  audio: null,        // the AudioContext, made on the first user gesture
  sounds: [],         // kinds of the sounds played (for tests: what was heard)
  resignArmed: 0,     // timer id while Resign waits for its confirmation
  promoChoice: null,  // the piece pre-selected on this page, until the next move
  promoNeeded: null,
  noticeHidden: null, // the notice text the user closed
  viewer: null,       // {game, ply, flipped} while a past game is shown
  skin: "traditional", // xiangqi pieces: a key of XQ_SKINS (remembered in localStorage)
  colours: "classic",  // xiangqi piece colours: a key of XQ_COLOURS (remembered in localStorage)
  notation: "chinese", // xiangqi moves: "chinese" (炮二平五, the default) or "wxf" (C2.5); remembered
  renderHooks: [],    // functions(state, prev) of the other page scripts (lessons.js), after each render
};
window.boardctl = app; // for tests and the benchmark

// -- small helpers ----------------------------------------------------------------------------

function $(sel) { return document.querySelector(sel); }

function showError(message) {
  const box = $("#error");
  if (!message) { box.hidden = true; box.textContent = ""; return; }
  box.textContent = message;
  box.hidden = false;
}

// The board's shape: the state line's "variant", else (an older server, a past game's record)
// a FEN with ten ranks is xiangqi, anything else chess.
function geometryOf(variant, fen) {
  if (variant && GEOMETRIES[variant]) return GEOMETRIES[variant];
  const rows = typeof fen === "string" ? fen.split(" ")[0].split("/").length : 0;
  return rows === 10 ? GEOMETRIES.xiangqi : GEOMETRIES.chess;
}
function stateGeometry(state) { return geometryOf(state && state.variant, state && state.fen); }

// FEN placement -> {square name: piece letter}; the first row is the highest rank.
function parseFenPlacement(fen, geo = GEOMETRIES.chess) {
  const pieces = {};
  const rows = (fen || "").split(" ")[0].split("/");
  if (rows.length !== geo.ranks) return pieces;
  rows.forEach((row, i) => {
    const rank = geo.ranks - 1 - i;
    let file = 0;
    for (const run of row.match(/[0-9]+|[^0-9]/g) || []) {
      if (/^[0-9]+$/.test(run)) { file += Number(run); continue; }
      if (file < geo.files) pieces[squareName(geo, rank * geo.files + file)] = run;
      file += 1;
    }
  });
  return pieces;
}

function squareIndex(geo, name) {
  return FILE_LETTERS.indexOf(name[0]) + geo.files * (Number(name.slice(1)) - geo.firstRank);
}
function squareName(geo, i) { return FILE_LETTERS[i % geo.files] + (Math.floor(i / geo.files) + geo.firstRank); }

function occupiedSet(state, pieces) {
  // The sensors' view, when the daemon reports it; otherwise the game position plus this page's
  // own lift/place events since the position last changed (so a dropped piece shows at once).
  const geo = stateGeometry(state);
  const occ = state.occupancy ?? state.occupied ?? null;
  if (occ === null || occ === undefined) {
    if (state.fen !== app.localFen) { app.localFen = state.fen; app.localDelta = {}; }
    const set = new Set(Object.keys(pieces));
    for (const [sq, present] of Object.entries(app.localDelta)) present ? set.add(sq) : set.delete(sq);
    return set;
  }
  if (Array.isArray(occ)) return new Set(occ);
  let bits;
  try { bits = typeof occ === "string" ? BigInt("0x" + occ.replace(/^0x/, "")) : BigInt(occ); }
  catch (e) { return new Set(Object.keys(pieces)); }
  const set = new Set();
  for (let sq = 0; sq < geo.points; sq++) {
    if ((bits >> BigInt(sq)) & 1n) set.add(squareName(geo, sq));
  }
  return set;
}

function formatClock(seconds) {
  if (seconds === null || seconds === undefined || !isFinite(seconds)) return "";
  const s = Math.max(0, seconds);
  const m = Math.floor(s / 60);
  const rest = s - 60 * m;
  return s < 20 ? `${m}:${rest.toFixed(1).padStart(4, "0")}` : `${m}:${String(Math.floor(rest)).padStart(2, "0")}`;
}

function formatEval(ev) {
  if (ev === null || ev === undefined || ev === "") return "–";
  if (typeof ev === "number") return (ev > 0 ? "+" : "") + (ev / 100).toFixed(2);
  if (typeof ev === "object") {
    if (ev.mate !== undefined && ev.mate !== null) return `mate in ${Math.abs(ev.mate)}` + (ev.mate < 0 ? " (against)" : "");
    if (ev.cp !== undefined && ev.cp !== null) return formatEval(ev.cp);
    return JSON.stringify(ev);
  }
  return String(ev);
}

// White's share of the evaluation bar, 0-100 (Lichess's curve: +3 pawns is about 75 %).
function evalPercent(ev) {
  if (!ev || typeof ev !== "object") return 50;
  if (ev.mate !== undefined && ev.mate !== null) return ev.mate > 0 ? 100 : 0;
  if (typeof ev.cp !== "number") return 50;
  const win = 2 / (1 + Math.exp(-0.00368208 * ev.cp)) - 1;
  return Math.max(0, Math.min(100, 50 + 50 * win));
}

function humanColor(state) {
  const c = state.color ?? state.human ?? null;
  return c === "black" || c === "white" || c === "red" ? c : null;
}

function capitalised(word) { return word ? word[0].toUpperCase() + word.slice(1) : word; }

function isOver(state) { return Boolean(state.result && state.result !== "*"); }

// Squares on the page are *physical* (the board's wiring), like events and LEDs; the FEN is
// logical. With the board turned round (orientation "flipped") logical square s sits on
// points - 1 - s (63 - s in chess, 89 - s in xiangqi).
function isRotated(state) { return state.orientation === "flipped"; }

function toPhysical(state, name) {
  if (!isRotated(state)) return name;
  const geo = stateGeometry(state);
  return squareName(geo, geo.points - 1 - squareIndex(geo, name));
}

function physicalPieces(state) {
  const logical = parseFenPlacement(state.fen, stateGeometry(state));
  if (!isRotated(state)) return logical;
  const out = {};
  for (const [sq, piece] of Object.entries(logical)) out[toPhysical(state, sq)] = piece;
  return out;
}

// Whether to draw the last rank at the bottom: the human playing Black from the normal side looks
// at the board from Black's side. A turned-round board already puts Black on the wiring's first ranks.
function isFlipped(state) {
  if (app.flipped !== null) return app.flipped;
  return humanColor(state) === "black" && !isRotated(state);
}

// -- boards (the live one and the viewer's) ------------------------------------------------------

const SVG_NS = "http://www.w3.org/2000/svg";

// The xiangqi board's lines, in units of one point's cell (a point sits at a cell's centre):
// nine files and ten ranks, the river across the middle, the palaces' diagonals, and the marks
// where the cannons and soldiers start. It looks the same turned round, so it never flips.
function xiangqiLines() {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "xq-lines");
  svg.setAttribute("viewBox", "0 0 9 10");
  svg.setAttribute("aria-hidden", "true");
  const add = (parent, tag, attrs, text) => {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text) el.textContent = text;
    parent.appendChild(el);
    return el;
  };
  const grid = add(svg, "g", { class: "grid" });
  add(grid, "rect", { class: "frame", x: 0.32, y: 0.32, width: 8.36, height: 9.36 });
  for (let r = 0; r < 10; r++) add(grid, "line", { x1: 0.5, y1: r + 0.5, x2: 8.5, y2: r + 0.5 });
  for (let c = 0; c < 9; c++) {
    if (c === 0 || c === 8) add(grid, "line", { x1: c + 0.5, y1: 0.5, x2: c + 0.5, y2: 9.5 });
    else {
      add(grid, "line", { x1: c + 0.5, y1: 0.5, x2: c + 0.5, y2: 4.5 });
      add(grid, "line", { x1: c + 0.5, y1: 5.5, x2: c + 0.5, y2: 9.5 });
    }
  }
  for (const top of [0, 7]) {
    const palace = add(svg, "g", { class: "palace", "data-part": "palace" });
    add(palace, "line", { x1: 3.5, y1: top + 0.5, x2: 5.5, y2: top + 2.5 });
    add(palace, "line", { x1: 5.5, y1: top + 0.5, x2: 3.5, y2: top + 2.5 });
  }
  const marks = add(svg, "g", { class: "marks" });
  const d = 0.08, l = 0.16;
  const starts = [[1, 2], [7, 2], [1, 7], [7, 7], ...[0, 2, 4, 6, 8].flatMap((c) => [[c, 3], [c, 6]])];
  for (const [c, r] of starts) {
    const x = c + 0.5, y = r + 0.5;
    for (const sx of [-1, 1]) {
      if ((c === 0 && sx < 0) || (c === 8 && sx > 0)) continue;
      for (const sy of [-1, 1]) {
        const px = x + sx * d, py = y + sy * d;
        add(marks, "polyline", { points: `${px + sx * l},${py} ${px},${py} ${px},${py + sy * l}` });
      }
    }
  }
  const river = add(svg, "g", { class: "river", "data-part": "river" });
  add(river, "text", { x: 2.5, y: 5, lang: "zh-Hant" }, "楚 河");
  add(river, "text", { x: 6.5, y: 5, lang: "zh-Hant" }, "漢 界");
  return svg;
}

// Builds the cells of ``geo`` in ``board`` (nothing to do when it already has them).
function buildBoard(board, geo = GEOMETRIES.chess) {
  if (board.cells && board.dataset.variant === geo.name) return;
  board.textContent = "";
  board.classList.toggle("xiangqi", geo.name === "xiangqi");
  board.dataset.variant = geo.name;
  board.dataset.flipped = "";
  if (geo.name === "xiangqi") board.appendChild(xiangqiLines());
  board.cells = [];
  for (let i = 0; i < geo.points; i++) {
    const el = document.createElement("div");
    el.className = geo.name === "xiangqi" ? "point" : "square";
    board.appendChild(el);
    board.cells.push(el);
  }
  board.geo = geo;
  layoutBoard(board, false);
}

function layoutBoard(board, flipped) {
  const geo = board.geo;
  const cells = board.cells;
  const xq = geo.name === "xiangqi";
  for (let i = 0; i < geo.points; i++) {
    const row = Math.floor(i / geo.files), col = i % geo.files;
    const file = flipped ? geo.files - 1 - col : col;
    const rankIndex = flipped ? row : geo.ranks - 1 - row;
    const rank = rankIndex + geo.firstRank;
    const name = FILE_LETTERS[file] + rank;
    const el = cells[i];
    if (el.dataset.square === name) continue;
    el.dataset.square = name;
    el.className = xq ? "point" : "square " + ((file + rank) % 2 === 0 ? "light" : "dark");
    el.textContent = "";
    el.dataset.piece = "";
    // Coordinates as on a printed board: files along the bottom row, ranks up the left column.
    const bottom = row === geo.ranks - 1, left = col === 0;
    if (bottom || left) {
      const coord = document.createElement("span");
      coord.className = "coord";
      coord.textContent = (bottom ? FILE_LETTERS[file] : "") + (left ? String(rank) : "");
      el.appendChild(coord);
    }
  }
  board.dataset.flipped = String(flipped);
}

// The xiangqi piece kind (k a e h r c p) of a FEN letter, or null.
function xqKind(letter) { return XQ_KIND[(letter || "").toLowerCase()] || null; }

// A piece as the page draws it: a chess figurine, or a round xiangqi disc in the chosen skin.
function pieceLook(letter, geo) {
  if (letter === "?") return { cls: "piece u" + (geo.name === "xiangqi" ? " xq" : ""), text: "●" };
  const upper = letter === letter.toUpperCase();
  if (geo.name !== "xiangqi") return { cls: "piece " + (upper ? "w" : "b"), text: GLYPHS[letter.toLowerCase()] || letter };
  const kind = xqKind(letter);
  const side = upper ? "red" : "black";
  const text = !kind ? letter : app.skin === "western" ? XQ_LETTERS[kind] : XQ_CHARS[side][kind];
  return { cls: `piece xq ${side}`, text, kind, title: kind ? `${side} ${XQ_NAMES[kind]}` : "" };
}

function setPiece(el, letter, geo = GEOMETRIES.chess) {
  const look = letter ? letter + (geo.name === "xiangqi" ? "/" + app.skin : "") : "";
  if ((el.dataset.look || "") === look && (el.dataset.piece || "") === (letter || "")) return; // unchanged: leave the DOM alone
  let piece = el.querySelector(".piece");
  el.dataset.look = look;
  if (!letter) { if (piece) piece.remove(); el.dataset.piece = ""; return; }
  if (!piece) { piece = document.createElement("span"); el.appendChild(piece); }
  const p = pieceLook(letter, geo);
  piece.className = p.cls;
  piece.textContent = p.text;
  if (p.kind) piece.dataset.kind = p.kind; else delete piece.dataset.kind;
  if (p.title) piece.title = p.title; else piece.removeAttribute("title");
  el.dataset.piece = letter;
}

function markSquares(board, cls, squares) {
  for (const el of board.cells || []) el.classList.toggle(cls, squares.has(el.dataset.square));
}

function lastMoveSquares(uci) {
  const m = typeof uci === "string" ? /^([a-z][0-9]+)([a-z][0-9]+)/.exec(uci) : null;
  return m ? [m[1], m[2]] : [];
}

// The body says which game is shown, so the style and the side column can follow it.
function applyVariant(geo) {
  if (document.body.dataset.variant === geo.name) return;
  document.body.dataset.variant = geo.name;
  $("#board").setAttribute("aria-label", geo.name === "xiangqi" ? "xiangqi board" : "chess board");
  $("#xq-look").hidden = geo.name !== "xiangqi";
  $("#promotion").hidden = geo.name === "xiangqi";
  const eval_ = $("#eval-bar");
  eval_.setAttribute("aria-label", `evaluation, ${capitalised(geo.sides[0])}'s share`);
  // The new-game form: the sides' names, and the levels (with their Chinese names in xiangqi).
  const select = $('#new-game-form select[name="color"]');
  select.options[0].value = geo.sides[0];
  select.options[0].textContent = capitalised(geo.sides[0]);
  fillLevels(geo);
  $("#fen-input").placeholder = geo.name === "xiangqi"
    ? "rnbakabnr/9/1c5c1/p1p1p1p1p/9/… w - - 0 1" : "rnbqkbnr/pppppppp/8/8/… w KQkq - 0 1";
}

function fillLevels(geo) {
  const list = $("#levels");
  const xq = geo.name === "xiangqi";
  for (const opt of list.querySelectorAll("option")) {
    const zh = LEVELS.find(([en]) => en === opt.value);
    if (zh) opt.label = xq ? `${zh[1]} ${zh[0]}` : "";
    if (!xq && zh) opt.removeAttribute("label");
  }
  const box = $("#level-choices");
  box.hidden = !xq;
  box.textContent = "";
  for (const [en, zh] of LEVELS) {
    const btn = document.createElement("button");
    btn.type = "button";
    btn.dataset.level = en;
    btn.title = en;
    btn.innerHTML = xq ? `<span class="zh" lang="zh-Hans"></span> <small></small>` : "<small></small>";
    if (xq) btn.querySelector(".zh").textContent = zh;
    btn.querySelector("small").textContent = en;
    btn.addEventListener("click", () => { $('#new-game-form input[name="level"]').value = en; });
    box.appendChild(btn);
  }
}

// A level as the page shows it: with its Chinese name in xiangqi ("中级 intermediate").
function levelText(level, geo) {
  const zh = LEVELS.find(([en]) => en === level);
  return geo.name === "xiangqi" && zh ? `${zh[1]} ${level}` : level;
}

function renderBoard(state) {
  const board = $("#board");
  const geo = stateGeometry(state);
  applyVariant(geo);
  buildBoard(board, geo);
  const flipped = isFlipped(state);
  layoutBoard(board, flipped);
  const pieces = physicalPieces(state);
  const sensed = occupiedSet(state, pieces);
  for (const sq of Object.keys(app.carried)) {
    if (!sensed.has(sq) || pieces[sq] === app.carried[sq]) delete app.carried[sq];
  }
  const leds = {};
  for (const led of state.leds || []) (leds[led.square] ||= []).push(led.why);
  for (const el of board.cells) {
    const sq = el.dataset.square;
    const inGame = pieces[sq];
    const isSensed = sensed.has(sq);
    let letter = null;
    let cls = "";
    if (isSensed && app.carried[sq]) { letter = app.carried[sq]; cls = inGame === letter ? "" : "extra"; }
    else if (isSensed && inGame) letter = inGame;
    else if (isSensed) { letter = "?"; cls = "extra unknown-piece"; }
    else if (inGame) { letter = inGame; cls = "lifted"; }
    setPiece(el, letter, geo);
    el.classList.toggle("lifted", cls.includes("lifted"));
    el.classList.toggle("extra", cls.includes("extra"));
    el.classList.toggle("unknown-piece", cls.includes("unknown-piece"));
    el.classList.toggle("occupied", isSensed);
    const whys = leds[sq];
    if (whys) { el.dataset.led = whys.join(" "); el.classList.add("led"); }
    else if (el.dataset.led) { delete el.dataset.led; el.classList.remove("led"); }
  }
  const moves = state.moves || [];
  const last = lastMoveSquares(moves[moves.length - 1]).map((sq) => toPhysical(state, sq));
  markSquares(board, "last-move", new Set(last));
  markSquares(board, "in-check", new Set(state.check ? [toPhysical(state, state.check)] : []));
}

// -- the rest of the page -----------------------------------------------------------------------

function renderClocks(state) {
  const clock = state.clock || state.clocks || null;
  const [first, second] = stateGeometry(state).sides;
  const blackBelow = isFlipped(state) !== isRotated(state);
  const top = blackBelow ? first : second, bottom = blackBelow ? second : first;
  for (const [id, color] of [["#clock-top", top], ["#clock-bottom", bottom]]) {
    const box = $(id);
    box.querySelector(".name").textContent = color === humanColor(state) ? `${color} (you)` : color;
    box.dataset.color = color;
    if (!clock) { box.querySelector(".time").textContent = ""; box.classList.remove("running", "low"); continue; }
    // Xiangqi's clocks are "red"/"black"; a daemon that names Red's clock "white" is read alike.
    const key = color in clock || color !== "red" ? color : "white";
    const running = clock.running === key;
    let left = clock[key];
    if (running && left !== undefined) left -= (performance.now() - app.stateReceivedAt) / 1000;
    box.querySelector(".time").textContent = formatClock(left);
    box.classList.toggle("running", running);
    box.classList.toggle("low", running && left < 20);
  }
}

// One numbered row per full move: "1." then White's move then Black's ("…" when Black began).
function fillMoveList(list, sanMoves, startFen, marked) {
  const fen = startFen || "";
  const blackFirst = fen.split(" ")[1] === "b";
  const cells = blackFirst && sanMoves.length ? [null, ...sanMoves] : sanMoves.slice();
  const startNumber = Number(fen.split(" ")[5] || 1) || 1;
  list.textContent = "";
  for (let i = 0; i < cells.length; i += 2) {
    const li = document.createElement("li");
    const num = document.createElement("b");
    num.className = "num";
    num.textContent = `${startNumber + i / 2}.`;
    li.appendChild(num);
    for (const j of [i, i + 1]) {
      if (j >= cells.length) break;
      const span = document.createElement("span");
      span.className = "move";
      if (cells[j] === null) { span.textContent = "…"; span.classList.add("empty"); }
      else {
        span.textContent = cells[j];
        span.dataset.ply = String(blackFirst ? j : j + 1);
        if (j === marked) span.classList.add(list.id === "moves" ? "last" : "current");
      }
      li.appendChild(span);
    }
    list.appendChild(li);
  }
  return blackFirst ? 1 : 0;
}

// Who makes the move lit for this board: the engine, or in a network game the friend by name.
function moverName(state) {
  return state.mode === "network" ? (state.opponent || "Your friend") : "Engine";
}

// A network game's opponent and whether their board is connected, in words.
function networkText(state) {
  if (state.mode !== "network" || !state.network) return "";
  const who = state.opponent || "Your friend";
  if (state.network.connected) return `Playing ${who} over the network (connected).`;
  if (state.network.role === "host" && !state.network.joined) return `Waiting for ${who} to join with the invitation.`;
  return `${who}'s board is not connected: it rejoins by itself.`;
}

// Whether a xiangqi game's moves are shown in Chinese (炮二平五), as the page does by default.
function xiangqiChinese(state) {
  return stateGeometry(state).name === "xiangqi" && app.notation === "chinese";
}

function renderMoves(state) {
  const list = $("#moves");
  // The moves as the server names them (SAN, or WXF in xiangqi) when it names them all, else as
  // played (engine coordinates).
  const played = state.moves || [];
  const named = xiangqiChinese(state) && Array.isArray(state.san_chinese) ? state.san_chinese : state.san;
  const moves = Array.isArray(named) && named.length === played.length ? named : played;
  const offset = (state.start_fen || "").split(" ")[1] === "b" ? 1 : 0;
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  fillMoveList(list, moves, state.start_fen || state.initial_fen || "", moves.length - 1 + offset);
  list.dataset.count = String(moves.length);
  if (atBottom || moves.length !== app.lastMoveCount) list.scrollTop = list.scrollHeight;
}

function restoreLit(state) {
  const codes = ["setup", "mismatch", "takeback", "illegal-move", "touch-move", "castling-rook-first"];
  return (state.leds || []).some((l) => codes.includes(l.why));
}

function renderPromotion(state) {
  const open = (state.leds || []).some((l) => l.why === "promotion") || Boolean(state.promotion);
  // Shown while the side to move can promote (to pre-select) or the window is open; otherwise
  // folded away, one click from a pre-selection.
  const needed = !isOver(state) && (open || Boolean(state.can_promote));
  const box = $("#promotion");
  if (needed !== app.promoNeeded) { box.open = needed; app.promoNeeded = needed; }
  box.dataset.needed = String(needed);
  box.classList.toggle("active", open);
  for (const btn of box.querySelectorAll("button")) btn.classList.toggle("chosen", btn.dataset.piece === app.promoChoice);
  $("#promotion-choice").textContent = app.promoChoice ? GLYPHS[app.promoChoice] : "";
  return open;
}

function renderInfo(state) {
  const opening = state.opening;
  let text = "–";
  if (typeof opening === "string" && opening) text = opening;
  else if (opening && typeof opening === "object") text = [opening.eco, opening.name].filter(Boolean).join(" ");
  $("#opening").textContent = text;
  const game = [];
  if (state.mode === "record") game.push("recording two players");
  else if (state.mode === "play" && state.opponent) game.push(`you play ${humanColor(state) || "?"} against ${state.opponent}`);
  else if (state.mode === "play") game.push(`you play ${humanColor(state) || "?"} against the engine` + (state.level ? ` (${levelText(state.level, stateGeometry(state))})` : ""));
  if (state.clock && state.time_control) game.push(state.time_control);
  $("#game-info").textContent = game.join(", ") || "–";

  const book = Boolean(state.book);
  const ev = state.eval ?? state.score;
  $("#eval").textContent = book ? "book" : formatEval(ev);
  $("#eval").classList.toggle("book", book);
  $("#eval").title = book ? "the engine played from its opening book: no search, no score" : "";
  const pct = book || ev === null || ev === undefined ? 50 : evalPercent(ev);
  const bar = $("#eval-bar");
  $("#eval-fill").style.height = `${pct}%`;
  bar.setAttribute("aria-valuenow", String(Math.round(pct)));
  bar.dataset.flipped = String(isFlipped(state) !== isRotated(state));
  bar.title = book ? "book" : formatEval(ev);
  bar.classList.toggle("off", state.mode !== "play"); // no engine, no evaluation
  $("#eval-bar-label").textContent = book ? "book" : "";
  $("#pv").textContent = state.pv || "–";
  // Recording two players: no engine, so no evaluation, line or hint to show.
  for (const id of ["#eval", "#pv", "#hint"]) {
    const dd = $(id);
    dd.hidden = state.mode === "record";
    dd.previousElementSibling.hidden = state.mode === "record";
  }

  const hint = (xiangqiChinese(state) && state.hint_chinese) || state.hint_san || state.hint;
  $("#hint").textContent = hint ? (typeof hint === "object" ? (hint.san || hint.uci || JSON.stringify(hint)) : hint) : "–";
  $("#result").textContent = (state.result || "*") + (state.termination ? ` (${state.termination})` : "");
  const promoting = renderPromotion(state);

  const parts = [];
  const over = isOver(state);
  if (over) parts.push(`Game over: ${state.result}` + (state.termination ? ` (${state.termination}).` : "."));
  else if (state.pending) parts.push(`${moverName(state)} plays ${(xiangqiChinese(state) && state.pending_chinese) || state.pending_san || state.pending}: make the move on the board.`);
  else if (state.thinking && state.matching === false) parts.push("The engine moves once the pieces are set up.");
  else if (state.thinking) parts.push("Engine is thinking…");
  else if (state.fen) {
    const sides = stateGeometry(state).sides;
    const side = state.fen.split(" ")[1] === "w" ? sides[0] : sides[1];
    parts.push(capitalised(side) + " to move" + (side === humanColor(state) ? " (you)." : "."));
  }
  // While a promotion is open the tracker is not "matching" either, but nothing needs setting up.
  // A move half made (castling's king without its rook) lights nothing: say what is left to do.
  const hintText = state.board_hint || "";
  const partial = /^Complete /.test(hintText);
  const lit = restoreLit(state);
  const needsSetup = state.matching === false && !promoting && !partial && (lit || Boolean(hintText));
  if (promoting) parts.push("Choose the new piece (or swap it on the square).");
  else if (state.matching === false && hintText) parts.push(hintText);
  else if (needsSetup) parts.push("Set the board up as the lit squares show.");
  const clock = state.clock;
  if (clock && !over && clock.running === null && state.matching === false) parts.push("The clocks start once the pieces are set up.");
  if (state.draw_offer) parts.push("A draw is offered.");
  const network = networkText(state);
  if (network) parts.push(network);
  // The tracker's own mismatch list says what the board hint says, in terser words.
  const sameAsHint = Boolean(hintText) && /: mismatch: /.test(state.warning || "");
  if (state.warning && !sameAsHint && !(over && /^game over/i.test(state.warning))) parts.push(state.warning);
  if (state.message) parts.push(state.message);
  $("#status").textContent = parts.join(" ");
  $("#setup-board").hidden = !needsSetup;
}

function renderNotice(state) {
  const text = state.notice || "";
  const box = $("#notice");
  $("#notice-text").textContent = text;
  box.hidden = !text || app.noticeHidden === text;
}

// -- sounds --------------------------------------------------------------------------------------

function unlockAudio() {
  if (app.audio || app.muted) { if (app.audio && app.audio.state === "suspended") app.audio.resume(); return; }
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (Ctx) app.audio = new Ctx();
}

function playSound(kind) {
  if (app.muted || !TONES[kind]) return;
  unlockAudio();
  const ctx = app.audio;
  if (!ctx) return;
  let t = ctx.currentTime + 0.01;
  for (const [freq, dur] of TONES[kind]) {
    if (freq > 0) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.25, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + dur);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + dur + 0.02);
    }
    t += dur;
  }
  app.sounds.push(kind);
}
app.playSound = playSound;

function moveSoundKind(san) {
  if (!san) return "move";
  if (/[+#]$/.test(san)) return "check";
  if (san.startsWith("O-O")) return "castle";
  if (san.includes("x")) return "capture";
  return "move";
}

function soundsFor(prev, state) {
  if (!prev || prev.game !== state.game) return; // the first line, or another game: no sound
  const before = (prev.moves || []).length, after = (state.moves || []).length;
  if (!isOver(prev) && isOver(state)) playSound("end");
  else if (after === before + 1) {
    const geo = stateGeometry(state);
    if (geo.name === "chess") playSound(moveSoundKind((state.san || [])[after - 1]));
    else {
      // Xiangqi's moves are coordinates: a check is the state's, a capture one piece fewer.
      const count = (fen) => Object.keys(parseFenPlacement(fen, geo)).length;
      playSound(state.check ? "check" : count(state.fen) < count(prev.fen) ? "capture" : "move");
    }
  }
  else if (state.pending && state.pending !== prev.pending) playSound("engine");
  else if (state.warning && state.warning !== prev.warning && /illegal|touch-move/.test(state.warning)) playSound("illegal");
}

function setMuted(muted) {
  app.muted = muted;
  localStorage.setItem("boardctl-muted", muted ? "1" : "0");
  const btn = $("#sound");
  btn.setAttribute("aria-pressed", String(!muted));
  btn.querySelector(".icon").textContent = muted ? "✕" : "♪";
  btn.querySelector(".label").textContent = muted ? "Sound off" : "Sound on";
}

// -- rendering a state line ------------------------------------------------------------------------

function render(state) {
  const prev = app.state;
  app.state = state;
  app.stateReceivedAt = performance.now();
  // The tracker forgets a pre-selected promotion piece after a move and in a new game.
  if (prev && ((prev.moves || []).length !== (state.moves || []).length || prev.game !== state.game
      || prev.start_fen !== state.start_fen)) app.promoChoice = null;
  renderBoard(state);
  renderMoves(state);
  renderInfo(state);
  renderClocks(state);
  renderNotice(state);
  soundsFor(prev, state);
  if (window.boardctlCoach) window.boardctlCoach.render(state); // coach.js
  app.lastMoveCount = (state.moves || []).length;
  app.lastRender = performance.now();
  document.body.dataset.moves = String((state.moves || []).length);
  for (const hook of app.renderHooks || []) hook(state, prev); // panels of their own files
}

app.render = render;

// -- connection and actions ---------------------------------------------------------------------

function connect() {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  const ws = new WebSocket(url);
  app.ws = ws;
  ws.onopen = () => {
    $("#connection").textContent = "connected";
    $("#connection").className = "ok";
    $("#connection").dataset.connected = "true";
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if ("reply" in msg) {
      const waiter = app.pending.get(msg.reply);
      app.pending.delete(msg.reply);
      if (msg.error) {
        showError(msg.error);
        if (msg.pin === "required") showPinForm(true);
        if (waiter) waiter.reject(new Error(msg.error));
      } else {
        if (waiter) waiter.resolve(msg);
      }
      return;
    }
    if ("fen" in msg) render(msg);
  };
  ws.onclose = () => {
    $("#connection").textContent = "disconnected, retrying…";
    $("#connection").className = "bad";
    $("#connection").dataset.connected = "false";
    for (const waiter of app.pending.values()) waiter.reject(new Error("connection lost"));
    app.pending.clear();
    setTimeout(connect, 1000);
  };
}

function send(action) {
  // Returns a promise settled by the server's reply.
  return new Promise((resolve, reject) => {
    if (!app.ws || app.ws.readyState !== WebSocket.OPEN) { reject(new Error("not connected")); return; }
    const id = app.nextId++;
    const msg = { id, action };
    const pin = localStorage.getItem("boardctl-pin");
    if (pin) msg.pin = pin;
    app.pending.set(id, { resolve, reject });
    app.ws.send(JSON.stringify(msg));
  });
}
app.send = send;

function act(action) {
  showError("");
  return send(action).catch((err) => { showError(err.message); throw err; });
}

function squareEvent(square, occupied) {
  return act({ event: { square, occupied } }).then((reply) => {
    const st = app.state;
    if (st && (st.occupancy ?? st.occupied ?? null) === null) {
      app.localDelta[square] = occupied;
      render(st);
    }
    return reply;
  });
}

// -- the virtual board: pointer drag makes lift and place events ----------------------------------

function squareAt(x, y) {
  const el = document.elementFromPoint(x, y);
  return el ? el.closest("[data-square]") : null;
}

function setupDrag() {
  const board = $("#board");
  let drag = null;

  board.addEventListener("pointerdown", (ev) => {
    const el = ev.target.closest("[data-square]");
    if (!el || ev.button !== 0) return;
    unlockAudio();
    const letter = el.dataset.piece;
    if (!letter || !el.classList.contains("occupied")) return; // nothing there to pick up
    ev.preventDefault();
    const ghost = document.createElement("span");
    const look = pieceLook(letter, board.geo);
    ghost.id = "drag-ghost";
    ghost.className = look.cls;
    ghost.textContent = look.text;
    ghost.style.left = ev.clientX + "px";
    ghost.style.top = ev.clientY + "px";
    document.body.appendChild(ghost);
    drag = { from: el.dataset.square, letter, ghost, pointerId: ev.pointerId };
    delete app.carried[drag.from];
    squareEvent(drag.from, false).catch(() => {});
  });

  window.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    drag.ghost.style.left = ev.clientX + "px";
    drag.ghost.style.top = ev.clientY + "px";
  });

  const finish = (ev, cancelled) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    d.ghost.remove();
    const target = cancelled ? null : squareAt(ev.clientX, ev.clientY);
    if (!target || !board.contains(target)) return; // dropped off the board: the piece is taken off
    const to = target.dataset.square;
    const chain = [];
    if (to !== d.from && target.classList.contains("occupied")) {
      // A capture: the captured piece comes off first, and stays off longer than a brush
      // (docs/events.md), as it would under real hands; then the capturing piece goes down.
      chain.push(() => squareEvent(to, false));
      chain.push(() => new Promise((resolve) => setTimeout(resolve, CAPTURE_PAUSE_MS)));
    }
    chain.push(() => squareEvent(to, true));
    app.carried[to] = d.letter === "?" ? undefined : d.letter;
    if (app.carried[to] === undefined) delete app.carried[to];
    chain.reduce((p, f) => p.then(f), Promise.resolve()).catch(() => {});
  };
  window.addEventListener("pointerup", (ev) => finish(ev, false));
  window.addEventListener("pointercancel", (ev) => finish(ev, true));

  board.addEventListener("dblclick", (ev) => {
    const el = ev.target.closest("[data-square]");
    if (el && !el.classList.contains("occupied")) squareEvent(el.dataset.square, true).catch(() => {});
  });
}

// The virtual board's hands: lift every piece the game does not have and place every missing one
// (a new game, a takeback, a FEN set-up). These are ordinary sensor events, one square at a time.
async function setupBoard() {
  const st = app.state;
  if (!st) return;
  const want = new Set(Object.keys(physicalPieces(st)));
  const have = occupiedSet(st, physicalPieces(st));
  app.carried = {};
  for (const sq of have) if (!want.has(sq)) await squareEvent(sq, false);
  for (const sq of want) if (!have.has(sq)) await squareEvent(sq, true);
}
app.setupBoard = setupBoard;

// -- resign: a second click confirms ---------------------------------------------------------------

function disarmResign() {
  clearTimeout(app.resignArmed);
  app.resignArmed = 0;
  const btn = $("#resign");
  btn.classList.remove("armed");
  btn.textContent = "Resign";
  $("#resign-cancel").hidden = true;
}

function clickResign() {
  if (!app.resignArmed) {
    const btn = $("#resign");
    btn.classList.add("armed");
    btn.textContent = "Really resign?";
    $("#resign-cancel").hidden = false;
    app.resignArmed = setTimeout(disarmResign, RESIGN_CONFIRM_MS);
    return;
  }
  disarmResign();
  act({ button: "resign" }).catch(() => {});
}

// -- past games and the viewer ----------------------------------------------------------------------

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error(`cannot read ${file.name}`));
    reader.readAsText(file);
  });
}

async function loadGames() {
  const body = $("#games");
  try {
    const res = await fetch("/api/games");
    const data = await res.json();
    body.textContent = "";
    for (const g of data.games || []) {
      const tr = document.createElement("tr");
      tr.dataset.name = g.name;
      // Xiangqi's first player is Red (the server's "red", when it names it).
      const cells = [g.date || "", `${g.red || g.white || "?"} – ${g.black || "?"}`, g.result || "", g.opening || ""];
      cells.forEach((text, i) => {
        const td = document.createElement("td");
        td.textContent = text;
        if (i === 3) td.className = "col-opening";
        tr.appendChild(td);
      });
      const td = document.createElement("td");
      const view = document.createElement("button");
      view.type = "button";
      view.className = "view-game";
      view.textContent = "View";
      view.addEventListener("click", () => openViewer(g.name).catch((err) => showError(err.message)));
      const a = document.createElement("a");
      a.href = "/api/games/" + encodeURIComponent(g.name);
      a.download = g.name;
      a.textContent = "PGN";
      td.append(view, " ", a);
      tr.appendChild(td);
      body.appendChild(tr);
    }
    if (!body.children.length) body.innerHTML = "<tr><td colspan=5>No saved games yet.</td></tr>";
  } catch (err) {
    showError(`cannot list past games: ${err.message}`);
  }
}

async function openViewer(name) {
  const res = await fetch("/api/games/" + encodeURIComponent(name.replace(/\.pgn$/, ".json")));
  const game = await res.json();
  if (!res.ok) throw new Error(game.error || `cannot open ${name}`);
  const h = game.headers || {};
  // Seen from the human's side, as it was played.
  const first = h.Red !== undefined ? h.Red : h.White;
  app.viewer = { game, ply: game.san.length, flipped: h.Black === "Human" && first !== "Human" };
  $("#viewer-title").textContent = `${first || "?"} – ${h.Black || "?"}, ${h.Date || "?"}: ${game.result}`;
  $("#viewer-pgn").href = "/api/games/" + encodeURIComponent(name);
  $("#viewer-pgn").download = name;
  const slider = $("#viewer-slider");
  slider.max = String(game.san.length);
  fillMoveList($("#viewer-moves"), game.san, game.start_fen, -1);
  const dialog = $("#viewer");
  if (!dialog.open) dialog.showModal();
  showPly(game.san.length);
  slider.focus();
}
app.openViewer = openViewer;

function showPly(ply) {
  const v = app.viewer;
  if (!v) return;
  const n = v.game.san.length;
  v.ply = Math.max(0, Math.min(n, ply));
  const board = $("#viewer-board");
  const geo = geometryOf(v.game.variant, v.game.start_fen);
  buildBoard(board, geo);
  layoutBoard(board, v.flipped);
  const pieces = parseFenPlacement(v.game.fens[v.ply], geo);
  for (const el of board.cells) setPiece(el, pieces[el.dataset.square] || null, geo);
  markSquares(board, "last-move", new Set(v.ply > 0 ? lastMoveSquares(v.game.moves[v.ply - 1]) : []));
  const fen = v.game.fens[v.ply];
  $("#viewer-slider").value = String(v.ply);
  const offset = v.game.start_fen.split(" ")[1] === "b" ? 1 : 0;
  const number = Number(v.game.start_fen.split(" ")[5] || 1) + Math.floor((v.ply - 1 + offset) / 2);
  const whiteMoved = (v.ply - 1 + offset) % 2 === 0;
  $("#viewer-ply").textContent = v.ply === 0 ? `Start position (${n} moves)`
    : `${number}${whiteMoved ? "." : "…"} ${v.game.san[v.ply - 1]} (move ${v.ply} of ${n})`;
  for (const span of $("#viewer-moves").querySelectorAll(".move[data-ply]")) {
    span.classList.toggle("current", Number(span.dataset.ply) === v.ply);
  }
  const current = $("#viewer-moves .move.current");
  if (current) current.scrollIntoView({ block: "nearest" });
  board.dataset.fen = fen;
}
app.showPly = showPly;

function setupViewer() {
  // The viewer's board is built when a game is opened and emptied when it closes, so the page's
  // only squares (points) are the live board's while no past game is shown.
  const step = (d) => () => app.viewer && showPly(app.viewer.ply + d);
  $("#viewer-first").addEventListener("click", () => showPly(0));
  $("#viewer-prev").addEventListener("click", step(-1));
  $("#viewer-next").addEventListener("click", step(1));
  $("#viewer-last").addEventListener("click", () => app.viewer && showPly(app.viewer.game.san.length));
  $("#viewer-slider").addEventListener("input", (ev) => showPly(Number(ev.target.value)));
  $("#viewer-flip").addEventListener("click", () => { if (app.viewer) { app.viewer.flipped = !app.viewer.flipped; showPly(app.viewer.ply); } });
  $("#viewer-close").addEventListener("click", () => $("#viewer").close());
  $("#viewer").addEventListener("close", () => {
    app.viewer = null;
    const board = $("#viewer-board");
    board.textContent = "";
    board.cells = null;
  });
  $("#viewer-moves").addEventListener("click", (ev) => {
    const span = ev.target.closest(".move[data-ply]");
    if (span) showPly(Number(span.dataset.ply));
  });
  $("#viewer").addEventListener("keydown", (ev) => {
    if (!app.viewer) return;
    const keys = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 };
    if (ev.key in keys) { showPly(app.viewer.ply + keys[ev.key]); ev.preventDefault(); }
    else if (ev.key === "Home") { showPly(0); ev.preventDefault(); }
    else if (ev.key === "End") { showPly(app.viewer.game.san.length); ev.preventDefault(); }
  });
}

// -- forms and buttons --------------------------------------------------------------------------

function showPinForm(show) {
  const form = $("#pin-form");
  form.hidden = !show;
  if (show) $("#pin").value = localStorage.getItem("boardctl-pin") || "";
}

function buildLegend() {
  const list = $("#legend-list");
  for (const [code, text] of LEGEND) {
    const li = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.dataset.led = code;
    const label = document.createElement("span");
    label.textContent = text;
    li.append(swatch, label);
    li.dataset.code = code;
    list.appendChild(li);
  }
}

// The xiangqi pieces' look: characters or letters, and their colours; remembered in this browser.
function setLook(skin, colours) {
  app.skin = skin in XQ_SKINS ? skin : "traditional";
  app.colours = colours in XQ_COLOURS ? colours : "classic";
  localStorage.setItem("boardctl-xq-skin", app.skin);
  localStorage.setItem("boardctl-xq-colours", app.colours);
  document.body.dataset.skin = app.skin;
  document.body.dataset.colours = app.colours;
  $("#xq-skin").value = app.skin;
  $("#xq-colours").value = app.colours;
  if (app.state) renderBoard(app.state);
  if (app.viewer) showPly(app.viewer.ply);
}
app.setLook = setLook;

// How a xiangqi game's moves are written on the page: Chinese by default, or WXF; remembered.
function setNotation(notation) {
  app.notation = notation === "wxf" ? "wxf" : "chinese";
  localStorage.setItem("boardctl-xq-notation", app.notation);
  $("#xq-notation").value = app.notation;
  if (app.state) render(app.state);
}

function setupLook() {
  for (const [id, table] of [["#xq-skin", XQ_SKINS], ["#xq-colours", XQ_COLOURS]]) {
    const select = $(id);
    for (const [value, text] of Object.entries(table)) {
      const opt = document.createElement("option");
      opt.value = value;
      opt.textContent = text;
      select.appendChild(opt);
    }
  }
  $("#xq-skin").addEventListener("change", (ev) => setLook(ev.target.value, app.colours));
  $("#xq-colours").addEventListener("change", (ev) => setLook(app.skin, ev.target.value));
  setLook(localStorage.getItem("boardctl-xq-skin"), localStorage.getItem("boardctl-xq-colours"));
  $("#xq-notation").addEventListener("change", (ev) => setNotation(ev.target.value));
  setNotation(localStorage.getItem("boardctl-xq-notation"));
}

function setupControls() {
  for (const btn of document.querySelectorAll("[data-button]")) {
    btn.addEventListener("click", () => {
      unlockAudio();
      if (btn.dataset.button === "resign") { clickResign(); return; }
      if (btn.dataset.piece) { app.promoChoice = btn.dataset.piece; if (app.state) renderPromotion(app.state); }
      act({ button: btn.dataset.button }).catch(() => {});
    });
  }
  $("#resign-cancel").addEventListener("click", disarmResign);
  $("#setup-board").addEventListener("click", () => setupBoard().catch(() => {}));
  $("#flip").addEventListener("click", () => {
    app.flipped = !(app.state ? isFlipped(app.state) : false);
    if (app.state) render(app.state);
  });
  $("#sound").addEventListener("click", () => { setMuted(!app.muted); if (!app.muted) { unlockAudio(); playSound("move"); } });
  $("#notice-close").addEventListener("click", () => { app.noticeHidden = $("#notice-text").textContent; $("#notice").hidden = true; });
  $("#notice-new").addEventListener("click", () => {
    const details = $("#new-game");
    details.open = true;
    details.scrollIntoView({ block: "nearest" });
    details.querySelector("select, input").focus();
  });
  $("#pin-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const pin = $("#pin").value.trim();
    if (!/^[0-9]{4,12}$/.test(pin)) { showError("The PIN is 4 to 12 digits (run 'boardctl pin' on the board's computer)."); return; }
    localStorage.setItem("boardctl-pin", pin);
    showError("");
  });
  $("#new-game-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const form = ev.target;
    const params = {};
    for (const name of ["color", "level", "time-control", "fen"]) {
      const value = form.elements[name].value.trim();
      if (value) params[name] = value;
    }
    if (!params["time-control"]) params["time-control"] = "";
    const file = form.elements["pgn-file"].files[0];
    try {
      if (file) {
        if (params.fen) throw new Error("Give either a FEN or a PGN file, not both.");
        if (file.size > 60000) throw new Error(`${file.name} is too large for a PGN of one game.`);
        params.pgn = await readFile(file);
        // A binary file's text grows when escaped as JSON; the board takes 64 KiB a message.
        if (new TextEncoder().encode(JSON.stringify(params)).length > 60000) {
          throw new Error(`${file.name} is too large for a PGN of one game (or not a text file).`);
        }
      }
      await act({ "new-game": params });
      app.carried = {};
      form.closest("details").open = false;
    } catch (err) {
      showError(err.message);
    }
  });
  $("#past-games").addEventListener("toggle", (ev) => { if (ev.target.open) loadGames(); });
  document.addEventListener("keydown", unlockAudio, { once: true });
}

async function init() {
  if (window.BOARDCTL_NETWORK_PAGE) return;  // network.js shows a phone's or a spectator's page instead
  buildBoard($("#board"));
  applyVariant(GEOMETRIES.chess);
  setupLook();
  setupViewer();
  buildLegend();
  setupDrag();
  setupControls();
  setMuted(localStorage.getItem("boardctl-muted") === "1");
  try {
    const info = await (await fetch("/api/info")).json();
    app.pinRequired = Boolean(info.pin_required);
    // A server that names its game in /api/info gets the right board before the first state line.
    if (!app.state && info.variant && GEOMETRIES[info.variant]) {
      applyVariant(GEOMETRIES[info.variant]);
      buildBoard($("#board"), GEOMETRIES[info.variant]);
    }
    showPinForm(app.pinRequired);
  } catch (err) {
    showError(`cannot reach the board: ${err.message}`);
  }
  connect();
  setInterval(() => { if (app.state) renderClocks(app.state); }, 200);
}

document.addEventListener("DOMContentLoaded", init);
