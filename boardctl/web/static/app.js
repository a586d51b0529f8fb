// boardctl web page: renders the daemon's state lines and sends actions over one WebSocket.
// No framework and no build step: the Pi may be offline.
"use strict";

const FILES = "abcdefgh";
const GLYPHS = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
// Milliseconds between lifting a captured piece and placing the capturing one (> the brush time).
const CAPTURE_PAUSE_MS = 250;

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
    if ((bits >> BigInt(sq)) & 1n) set.add(FILES[sq % 8] + (Math.floor(sq / 8) + 1));
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

function humanColor(state) {
  const c = state.color ?? state.human ?? null;
  return c === "black" || c === "white" ? c : null;
}

// Squares on the page are *physical* (the board's wiring), like events and LEDs; the FEN is
// logical. With the board turned round (orientation "flipped") logical square s sits on 63 - s.
function isRotated(state) { return state.orientation === "flipped"; }

function physicalPieces(state) {
  const logical = parseFenPlacement(state.fen);
  if (!isRotated(state)) return logical;
  const out = {};
  for (const [sq, piece] of Object.entries(logical)) {
    const i = 63 - (FILES.indexOf(sq[0]) + 8 * (Number(sq[1]) - 1));
    out[FILES[i % 8] + (Math.floor(i / 8) + 1)] = piece;
  }
  return out;
}

// Whether to draw rank 8 at the bottom: the human playing Black from the normal side looks at the
// board from rank 8. A turned-round board already puts Black on the wiring's ranks 1-2.
function isFlipped(state) {
  if (app.flipped !== null) return app.flipped;
  return humanColor(state) === "black" && !isRotated(state);
}

// -- the board --------------------------------------------------------------------------------

function buildBoard() {
  const board = $("#board");
  board.textContent = "";
  for (let i = 0; i < 64; i++) {
    const el = document.createElement("div");
    el.className = "square";
    board.appendChild(el);
  }
  layoutBoard(false);
}

function layoutBoard(flipped) {
  const cells = $("#board").children;
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
    const coord = document.createElement("span");
    coord.className = "coord";
    coord.textContent = name;
    el.appendChild(coord);
  }
  $("#board").dataset.flipped = String(flipped);
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

function renderBoard(state) {
  const flipped = isFlipped(state);
  layoutBoard(flipped);
  const pieces = physicalPieces(state);
  const sensed = occupiedSet(state, pieces);
  for (const sq of Object.keys(app.carried)) {
    if (!sensed.has(sq) || pieces[sq] === app.carried[sq]) delete app.carried[sq];
  }
  const leds = {};
  for (const led of state.leds || []) (leds[led.square] ||= []).push(led.why);
  for (const el of $("#board").children) {
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
    if (!clock) { box.querySelector(".time").textContent = ""; box.classList.remove("running"); continue; }
    let left = clock[color];
    if (clock.running === color && left !== undefined) left -= (performance.now() - app.stateReceivedAt) / 1000;
    box.querySelector(".time").textContent = formatClock(left);
    box.classList.toggle("running", clock.running === color);
  }
}

function renderMoves(state) {
  const list = $("#moves");
  const moves = state.san || state.moves || [];
  const fen = state.start_fen || state.initial_fen || "";
  const blackFirst = fen.split(" ")[1] === "b";
  const cells = blackFirst ? ["…", ...moves] : moves.slice();
  const startNumber = Number(fen.split(" ")[5] || 1);
  list.textContent = "";
  list.start = startNumber;
  for (let i = 0; i < cells.length; i += 2) {
    const li = document.createElement("li");
    for (const j of [i, i + 1]) {
      if (j >= cells.length) break;
      const span = document.createElement("span");
      span.textContent = cells[j];
      if (j === cells.length - 1) span.className = "last";
      li.appendChild(span);
    }
    list.appendChild(li);
  }
  list.dataset.count = String(moves.length);
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
  $("#eval").textContent = formatEval(state.eval ?? state.score);
  const hint = state.hint_san || state.hint;
  $("#hint").textContent = hint ? (typeof hint === "object" ? (hint.san || hint.uci || JSON.stringify(hint)) : hint) : "–";
  $("#result").textContent = (state.result || "*") + (state.termination ? ` (${state.termination})` : "");
  const promoting = (state.leds || []).some((l) => l.why === "promotion") || Boolean(state.promotion);
  $("#promotion").classList.toggle("active", promoting);

  const parts = [];
  if (state.result && state.result !== "*") parts.push(`Game over: ${state.result}` + (state.termination ? ` (${state.termination}).` : "."));
  else if (state.pending) parts.push(`Engine plays ${state.pending_san || state.pending}: make the move on the board.`);
  else if (state.thinking) parts.push("Engine is thinking…");
  else if (state.fen) parts.push((state.fen.split(" ")[1] === "w" ? "White" : "Black") + " to move.");
  // While a promotion is open the tracker is not "matching" either, but nothing needs setting up.
  const needsSetup = state.matching === false && !promoting;
  if (promoting) parts.push("Choose the new piece (or swap it on the square).");
  else if (needsSetup) parts.push("Set the board up as the lit squares show.");
  if (state.draw_offer) parts.push("A draw is offered.");
  const over = state.result && state.result !== "*";
  if (state.warning && !(over && /^game over/i.test(state.warning))) parts.push(state.warning);
  if (state.message) parts.push(state.message);
  $("#status").textContent = parts.join(" ");
  $("#setup-board").hidden = !needsSetup;
}

function render(state) {
  app.state = state;
  app.stateReceivedAt = performance.now();
  renderBoard(state);
  renderMoves(state);
  renderInfo(state);
  renderClocks(state);
  app.lastRender = performance.now();
  document.body.dataset.moves = String((state.moves || []).length);
}

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

// -- forms and buttons --------------------------------------------------------------------------

function showPinForm(show) {
  const form = $("#pin-form");
  form.hidden = !show;
  if (show) $("#pin").value = localStorage.getItem("boardctl-pin") || "";
}

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
      for (const key of ["date", "white", "black", "result", "opening"]) {
        const td = document.createElement("td");
        td.textContent = g[key] || "";
        tr.appendChild(td);
      }
      const td = document.createElement("td");
      const a = document.createElement("a");
      a.href = "/api/games/" + encodeURIComponent(g.name);
      a.download = g.name;
      a.textContent = "PGN";
      td.appendChild(a);
      tr.appendChild(td);
      body.appendChild(tr);
    }
    if (!body.children.length) body.innerHTML = "<tr><td colspan=6>No saved games yet.</td></tr>";
  } catch (err) {
    showError(`cannot list past games: ${err.message}`);
  }
}

function setupControls() {
  for (const btn of document.querySelectorAll("[data-button]")) {
    btn.addEventListener("click", () => act({ button: btn.dataset.button }).catch(() => {}));
  }
  $("#setup-board").addEventListener("click", () => setupBoard().catch(() => {}));
  $("#flip").addEventListener("click", () => {
    app.flipped = !(app.state ? isFlipped(app.state) : false);
    if (app.state) render(app.state);
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
}

async function init() {
  buildBoard();
  setupDrag();
  setupControls();
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
