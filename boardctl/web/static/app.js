// boardctl web page: renders the daemon's state lines and sends actions over one WebSocket.
// No framework and no build step: the Pi may be offline.
"use strict";

const FILES = "abcdefgh";
const GLYPHS = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
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
];
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

function parseFenPlacement(fen) {
  const pieces = {};
  const rows = (fen || "").split(" ")[0].split("/");
  if (rows.length !== 8) return pieces;
  rows.forEach((row, i) => {
    const rank = 8 - i;
    let file = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) { file += Number(ch); continue; }
      pieces[FILES[file] + rank] = ch;
      file += 1;
    }
  });
  return pieces;
}

function squareIndex(name) { return FILES.indexOf(name[0]) + 8 * (Number(name[1]) - 1); }
function squareName(i) { return FILES[i % 8] + (Math.floor(i / 8) + 1); }

function occupiedSet(state, pieces) {
  // The sensors' view, when the daemon reports it; otherwise the game position plus this page's
  // own lift/place events since the position last changed (so a dropped piece shows at once).
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
  for (let sq = 0; sq < 64; sq++) {
    if ((bits >> BigInt(sq)) & 1n) set.add(squareName(sq));
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
  return c === "black" || c === "white" ? c : null;
}

function isOver(state) { return Boolean(state.result && state.result !== "*"); }

// Squares on the page are *physical* (the board's wiring), like events and LEDs; the FEN is
// logical. With the board turned round (orientation "flipped") logical square s sits on 63 - s.
function isRotated(state) { return state.orientation === "flipped"; }

function toPhysical(state, name) { return isRotated(state) ? squareName(63 - squareIndex(name)) : name; }

function physicalPieces(state) {
  const logical = parseFenPlacement(state.fen);
  if (!isRotated(state)) return logical;
  const out = {};
  for (const [sq, piece] of Object.entries(logical)) out[toPhysical(state, sq)] = piece;
  return out;
}

// Whether to draw rank 8 at the bottom: the human playing Black from the normal side looks at the
// board from rank 8. A turned-round board already puts Black on the wiring's ranks 1-2.
function isFlipped(state) {
  if (app.flipped !== null) return app.flipped;
  return humanColor(state) === "black" && !isRotated(state);
}

// -- boards (the live one and the viewer's) ------------------------------------------------------

function buildBoard(board) {
  board.textContent = "";
  for (let i = 0; i < 64; i++) {
    const el = document.createElement("div");
    el.className = "square";
    board.appendChild(el);
  }
  layoutBoard(board, false);
}

function layoutBoard(board, flipped) {
  const cells = board.children;
  for (let i = 0; i < 64; i++) {
    const row = Math.floor(i / 8), col = i % 8;
    const file = flipped ? 7 - col : col;
    const rank = flipped ? row + 1 : 8 - row;
    const name = FILES[file] + rank;
    const el = cells[i];
    if (el.dataset.square === name) continue;
    el.dataset.square = name;
    el.className = "square " + ((file + rank) % 2 === 0 ? "light" : "dark");
    el.textContent = "";
    el.dataset.piece = "";
    // Coordinates as on a printed board: files along the bottom row, ranks up the left column.
    const bottom = row === 7, left = col === 0;
    if (bottom || left) {
      const coord = document.createElement("span");
      coord.className = "coord";
      coord.textContent = (bottom ? FILES[file] : "") + (left ? String(rank) : "");
      el.appendChild(coord);
    }
  }
  board.dataset.flipped = String(flipped);
}

function setPiece(el, letter) {
  if ((el.dataset.piece || "") === (letter || "")) return; // unchanged: leave the DOM alone
  let piece = el.querySelector(".piece");
  if (!letter) { if (piece) piece.remove(); el.dataset.piece = ""; return; }
  if (!piece) { piece = document.createElement("span"); el.appendChild(piece); }
  const color = letter === "?" ? "u" : (letter === letter.toUpperCase() ? "w" : "b");
  piece.className = "piece " + color;
  piece.textContent = letter === "?" ? "●" : GLYPHS[letter.toLowerCase()];
  el.dataset.piece = letter;
}

function markSquares(board, cls, squares) {
  for (const el of board.children) el.classList.toggle(cls, squares.has(el.dataset.square));
}

function lastMoveSquares(uci) {
  if (typeof uci !== "string" || uci.length < 4) return [];
  return [uci.slice(0, 2), uci.slice(2, 4)];
}

function renderBoard(state) {
  const board = $("#board");
  const flipped = isFlipped(state);
  layoutBoard(board, flipped);
  const pieces = physicalPieces(state);
  const sensed = occupiedSet(state, pieces);
  for (const sq of Object.keys(app.carried)) {
    if (!sensed.has(sq) || pieces[sq] === app.carried[sq]) delete app.carried[sq];
  }
  const leds = {};
  for (const led of state.leds || []) (leds[led.square] ||= []).push(led.why);
  for (const el of board.children) {
    const sq = el.dataset.square;
    const inGame = pieces[sq];
    const isSensed = sensed.has(sq);
    let letter = null;
    let cls = "";
    if (isSensed && app.carried[sq]) { letter = app.carried[sq]; cls = inGame === letter ? "" : "extra"; }
    else if (isSensed && inGame) letter = inGame;
    else if (isSensed) { letter = "?"; cls = "extra unknown-piece"; }
    else if (inGame) { letter = inGame; cls = "lifted"; }
    setPiece(el, letter);
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
  const blackBelow = isFlipped(state) !== isRotated(state);
  const top = blackBelow ? "white" : "black", bottom = blackBelow ? "black" : "white";
  for (const [id, color] of [["#clock-top", top], ["#clock-bottom", bottom]]) {
    const box = $(id);
    box.querySelector(".name").textContent = color === humanColor(state) ? `${color} (you)` : color;
    box.dataset.color = color;
    if (!clock) { box.querySelector(".time").textContent = ""; box.classList.remove("running", "low"); continue; }
    let left = clock[color];
    if (clock.running === color && left !== undefined) left -= (performance.now() - app.stateReceivedAt) / 1000;
    box.querySelector(".time").textContent = formatClock(left);
    box.classList.toggle("running", clock.running === color);
    box.classList.toggle("low", clock.running === color && left < 20);
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

function renderMoves(state) {
  const list = $("#moves");
  const moves = state.san || state.moves || [];
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
  else if (state.mode === "play") game.push(`you play ${humanColor(state) || "?"} against the engine` + (state.level ? ` (${state.level})` : ""));
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

  const hint = state.hint_san || state.hint;
  $("#hint").textContent = hint ? (typeof hint === "object" ? (hint.san || hint.uci || JSON.stringify(hint)) : hint) : "–";
  $("#result").textContent = (state.result || "*") + (state.termination ? ` (${state.termination})` : "");
  const promoting = renderPromotion(state);

  const parts = [];
  const over = isOver(state);
  if (over) parts.push(`Game over: ${state.result}` + (state.termination ? ` (${state.termination}).` : "."));
  else if (state.pending) parts.push(`Engine plays ${state.pending_san || state.pending}: make the move on the board.`);
  else if (state.thinking && state.matching === false) parts.push("The engine moves once the pieces are set up.");
  else if (state.thinking) parts.push("Engine is thinking…");
  else if (state.fen) {
    const side = state.fen.split(" ")[1] === "w" ? "white" : "black";
    parts.push((side === "white" ? "White" : "Black") + " to move" + (side === humanColor(state) ? " (you)." : "."));
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
  else if (after === before + 1) playSound(moveSoundKind((state.san || [])[after - 1]));
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
  app.lastMoveCount = (state.moves || []).length;
  app.lastRender = performance.now();
  document.body.dataset.moves = String((state.moves || []).length);
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
    ghost.id = "drag-ghost";
    ghost.className = "piece " + (letter === "?" ? "u" : letter === letter.toUpperCase() ? "w" : "b");
    ghost.textContent = letter === "?" ? "●" : GLYPHS[letter.toLowerCase()];
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
      const cells = [g.date || "", `${g.white || "?"} – ${g.black || "?"}`, g.result || "", g.opening || ""];
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
  app.viewer = { game, ply: game.san.length, flipped: h.Black === "Human" && h.White !== "Human" };
  $("#viewer-title").textContent = `${h.White || "?"} – ${h.Black || "?"}, ${h.Date || "?"}: ${game.result}`;
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
  layoutBoard(board, v.flipped);
  const pieces = parseFenPlacement(v.game.fens[v.ply]);
  for (const el of board.children) setPiece(el, pieces[el.dataset.square] || null);
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
  buildBoard($("#viewer-board"));
  const step = (d) => () => app.viewer && showPly(app.viewer.ply + d);
  $("#viewer-first").addEventListener("click", () => showPly(0));
  $("#viewer-prev").addEventListener("click", step(-1));
  $("#viewer-next").addEventListener("click", step(1));
  $("#viewer-last").addEventListener("click", () => app.viewer && showPly(app.viewer.game.san.length));
  $("#viewer-slider").addEventListener("input", (ev) => showPly(Number(ev.target.value)));
  $("#viewer-flip").addEventListener("click", () => { if (app.viewer) { app.viewer.flipped = !app.viewer.flipped; showPly(app.viewer.ply); } });
  $("#viewer-close").addEventListener("click", () => $("#viewer").close());
  $("#viewer").addEventListener("close", () => { app.viewer = null; });
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
  buildBoard($("#board"));
  setupViewer();
  buildLegend();
  setupDrag();
  setupControls();
  setMuted(localStorage.getItem("boardctl-muted") === "1");
  try {
    const info = await (await fetch("/api/info")).json();
    app.pinRequired = Boolean(info.pin_required);
    showPinForm(app.pinRequired);
  } catch (err) {
    showError(`cannot reach the board: ${err.message}`);
  }
  connect();
  setInterval(() => { if (app.state) renderClocks(app.state); }, 200);
}

document.addEventListener("DOMContentLoaded", init);
