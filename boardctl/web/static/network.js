// Board to board over the network (docs/network-protocol.md), in the page:
// - on a host's page: an "Invite" button showing the address, the code and the phone/spectator links;
// - "/?play=CODE": a phone as the second board, playing the virtual board against the host's
//   physical one over /net (the code once, then the token kept in this browser);
// - "/?watch": a read-only spectator page of the game (the daemon's state lines over /ws).
"use strict";

(() => {
  const params = new URLSearchParams(location.search);
  const mode = params.has("play") ? "play" : params.has("watch") ? "watch" : null;
  const CHESS = { files: "abcdefgh", ranks: 8, first: 1 };
  const XIANGQI = { files: "abcdefghi", ranks: 10, first: 0 };
  const GLYPHS = {
    K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟",
  };
  const XQ_GLYPHS = {
    K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵",
    k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒",
  };
  if (mode) window.BOARDCTL_NETWORK_PAGE = mode;

  const el = (tag, attrs = {}, text = "") => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text) node.textContent = text;
    return node;
  };
  const wsUrl = (path) => (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  const clockText = (s) => {
    if (s == null) return "–";
    const t = Math.max(0, s);
    const m = Math.floor(t / 60);
    const sec = Math.floor(t % 60);
    return `${m}:${String(sec).padStart(2, "0")}`;
  };

  // The position of a FEN as {square name: piece letter}, in the game's own square names.
  function placement(fen, geo) {
    const out = {};
    const rows = (fen || "").split(" ")[0].split("/");
    rows.forEach((row, i) => {
      const rank = geo.first + geo.ranks - 1 - i;
      let file = 0;
      for (const ch of row) {
        if (/[0-9]/.test(ch)) file += Number(ch);
        else { out[geo.files[file] + rank] = ch; file += 1; }
      }
    });
    return out;
  }

  // A page of its own: the board, clocks, status, and (phone) the buttons.
  function buildPage(title) {
    document.title = `boardctl – ${title}`;
    document.body.replaceChildren();
    const page = el("main", { id: "net-page", "data-mode": mode });
    page.append(el("h1", {}, title), el("p", { id: "net-status", "aria-live": "polite" }, "connecting…"));
    page.append(el("div", { class: "clock", id: "net-clock-top" }));
    page.append(el("div", { id: "net-board", class: "net-board", "aria-label": "board" }));
    page.append(el("div", { class: "clock", id: "net-clock-bottom" }));
    page.append(el("p", { id: "net-moves" }));
    page.append(el("p", { id: "net-offer", hidden: "" }));
    document.body.append(page);
    const style = el("style");
    style.textContent = `
      #net-page { max-width: 36rem; margin: 0 auto; font-family: sans-serif; }
      .net-board { display: grid; gap: 0; border: 2px solid #444; user-select: none; }
      .net-board button { aspect-ratio: 1; font-size: min(7vw, 2.2rem); border: 0; padding: 0; background: #eed; }
      .net-board button.dark { background: #9b7; }
      .net-board button.selected { outline: 3px solid #06f; outline-offset: -3px; }
      .net-board button.last { box-shadow: inset 0 0 0 3px #00c878; }
      #net-page .clock { font-size: 1.4rem; margin: .3rem 0; }
      #net-page .clock.running { font-weight: bold; }`;
    document.head.append(style);
    return page;
  }

  function drawBoard(state, geo, flipped, onClick, selected, last) {
    const board = document.getElementById("net-board");
    board.style.gridTemplateColumns = `repeat(${geo.files.length}, 1fr)`;
    const pieces = placement(state.fen, geo);
    const glyphs = geo === XIANGQI ? XQ_GLYPHS : GLYPHS;
    const squares = [];
    for (let r = geo.ranks - 1; r >= 0; r -= 1) {
      for (let f = 0; f < geo.files.length; f += 1) squares.push(geo.files[f] + (r + geo.first));
    }
    if (flipped) squares.reverse();
    board.replaceChildren(...squares.map((name) => {
      const file = geo.files.indexOf(name[0]);
      const rank = Number(name.slice(1)) - geo.first;
      const piece = pieces[name];
      const b = el("button", { type: "button", "data-square": name, "aria-label": `${name} ${piece || "empty"}` },
        piece ? glyphs[piece] || piece : "");
      if (piece) b.dataset.piece = piece;
      if ((file + rank) % 2 === 0) b.classList.add("dark");
      if (name === selected) b.classList.add("selected");
      if (last && (name === last.slice(0, 2) || name === last.slice(2, 4))) b.classList.add("last");
      if (onClick) b.addEventListener("click", () => onClick(name, piece));
      return b;
    }));
  }

  function drawClocks(remaining, running, bottom, top, since) {
    for (const [id, colour] of [["net-clock-bottom", bottom], ["net-clock-top", top]]) {
      const node = document.getElementById(id);
      if (!remaining || remaining[colour] == null) { node.textContent = `${colour}`; continue; }
      let left = remaining[colour];
      if (running === colour) left -= (performance.now() - since) / 1000;
      node.textContent = `${colour}: ${clockText(left)}`;
      node.classList.toggle("running", running === colour);
    }
  }

  // -- the phone as the second board ------------------------------------------------------------

  function playPage() {
    const code = (params.get("play") || "").trim().toUpperCase();
    const key = "boardctl-net-token:" + location.host;
    // The local page's promotion buttons (index.html), kept before the page is rebuilt and reused:
    // a pawn reaching the last rank waits for the phone player's choice of piece.
    const promo = document.getElementById("promotion");
    const page = buildPage("Play the board");
    const buttons = el("div", { class: "buttons", id: "net-controls" });
    for (const [kind, label] of [["draw", "Offer draw"], ["takeback", "Ask takeback"], ["resign", "Resign"],
      ["claim", "Claim draw"], ["rematch", "Rematch"], ["accept", "Accept"], ["decline", "Decline"]]) {
      const b = el("button", { type: "button", "data-request": kind }, label);
      b.addEventListener("click", () => send({ type: "request", kind }));
      buttons.append(b);
    }
    page.append(buttons);
    if (promo) {
      promo.hidden = true;
      promo.open = true;
      page.append(promo);
      for (const b of promo.querySelectorAll("[data-piece]")) {
        b.addEventListener("click", () => choosePiece(b.dataset.piece));
      }
    }
    const status = document.getElementById("net-status");
    const net = { ws: null, state: null, color: null, variant: "chess", selected: null, since: 0, delay: 500,
      promoting: null, offer: null };

    function send(msg) {
      if (net.ws && net.ws.readyState === WebSocket.OPEN) net.ws.send(JSON.stringify(msg));
    }
    const geo = () => (net.variant === "xiangqi" ? XIANGQI : CHESS);
    const myTurn = () => {
      if (!net.state || net.state.result !== "*") return false;
      const white = net.state.fen.split(" ")[1] === "w";
      return (net.color === "black") !== white;
    };

    function render() {
      const s = net.state;
      if (!s) return;
      const flipped = net.color === "black";
      const names = net.variant === "xiangqi" ? ["red", "black"] : ["white", "black"];
      const mine = net.color;
      const theirs = mine === names[0] ? names[1] : names[0];
      drawBoard(s, geo(), flipped, clickSquare, net.selected, s.moves[s.moves.length - 1]);
      drawClocks(s.remaining, s.running, mine, theirs, net.since);
      // The moves by name (SAN; WXF in xiangqi) when the host sends them, else as coordinates.
      const listed = Array.isArray(s.san) && s.san.length === s.moves.length ? s.san : s.moves;
      document.getElementById("net-moves").textContent = listed.join(" ");
      if (s.result !== "*") status.textContent = `Game over: ${s.result} (${s.termination})`;
      else status.textContent = myTurn() ? `Your move (${mine})` : `Waiting for the board (${theirs})`;
      page.dataset.turn = myTurn() ? "mine" : "theirs";
      showButtons(s.result !== "*");
    }

    // Only the buttons that mean something now: the game's during it (no claim in xiangqi, whose
    // draws rule themselves), Rematch after the result, Accept and Decline while an offer waits.
    function showButtons(over) {
      for (const b of buttons.querySelectorAll("[data-request]")) {
        const kind = b.dataset.request;
        if (kind === "rematch") b.hidden = !over || net.offer === "rematch";
        else if (kind === "accept" || kind === "decline") b.hidden = !net.offer;
        else b.hidden = over || (kind === "claim" && net.variant === "xiangqi");
      }
    }

    function clickSquare(name, piece) {
      if (!myTurn()) return;
      const own = piece && ((net.color === "black") === (piece === piece.toLowerCase()));
      if (own) { net.selected = name; render(); return; }
      if (!net.selected) return;
      let uci = net.selected + name;
      const moving = placement(net.state.fen, geo())[net.selected];
      net.selected = null;
      if (net.variant === "chess" && (moving === "P" && name.endsWith("8") || moving === "p" && name.endsWith("1"))) {
        if (promo) {  // the player chooses the new piece
          net.promoting = uci;
          promo.hidden = false;
          promo.open = true;
          render();
          status.textContent = "Choose the new piece";
          return;
        }
        uci += "q";
      }
      send({ type: "move", ply: net.state.moves.length, uci });
      render();
    }

    function choosePiece(piece) {
      if (!net.promoting || !/^[qrbn]$/.test(piece || "")) return;
      const uci = net.promoting + piece;
      net.promoting = null;
      promo.hidden = true;
      send({ type: "move", ply: net.state.moves.length, uci });
      render();
    }

    function connect() {
      const token = localStorage.getItem(key);
      const ws = new WebSocket(wsUrl("/net"));
      net.ws = ws;
      ws.addEventListener("open", () => {
        const hello = { type: "hello", version: 1, variant: net.variant };
        if (token) hello.token = token; else hello.code = code;
        ws.send(JSON.stringify(hello));
      });
      ws.addEventListener("message", (ev) => {
        let msg;
        try { msg = JSON.parse(ev.data); } catch { return; }
        if (msg.type === "welcome") {
          localStorage.setItem(key, msg.token);
          net.color = msg.color;
          net.variant = msg.variant;
          net.delay = 500;
          page.dataset.connected = "true";
        } else if (msg.type === "state") {
          if (net.state && msg.moves.length !== net.state.moves.length && promo) { net.promoting = null; promo.hidden = true; }
          if (!net.state || msg.moves.length !== net.state.moves.length || msg.result !== net.state.result) net.offer = null;
          net.state = msg;
          net.since = performance.now();
          document.getElementById("net-offer").hidden = !net.offer;
          render();
        } else if (msg.type === "request") {
          const offer = document.getElementById("net-offer");
          offer.hidden = false;
          net.offer = msg.kind === "decline" ? null : msg.kind;
          if (net.state) render();
          offer.textContent = msg.kind === "decline" ? "Your opponent declined."
            : `Your opponent ${msg.kind === "draw" ? "offers a draw" : msg.kind === "takeback" ? "asks for a takeback"
              : msg.kind === "rematch" ? "offers a rematch (colours swapped)" : msg.kind}.`;
        } else if (msg.type === "error") {
          status.textContent = msg.message;
          if (msg.fatal && token && /token/.test(msg.message)) localStorage.removeItem(key);
          if (msg.fatal) net.fatal = true;
        }
      });
      ws.addEventListener("close", () => {
        page.dataset.connected = "false";
        if (net.fatal) return;
        setTimeout(connect, net.delay);
        net.delay = Math.min(5000, net.delay * 2);
      });
    }
    fetch("/api/info").then((r) => r.json()).then((info) => { net.variant = info.variant || "chess"; })
      .catch(() => {}).finally(connect);
    setInterval(() => { if (net.state) drawClocks(net.state.remaining, net.state.running, net.color,
      net.color === "black" ? (net.variant === "xiangqi" ? "red" : "white") : "black", net.since); }, 250);
  }

  // -- spectators -------------------------------------------------------------------------------

  function watchPage() {
    const page = buildPage("Watch the game");
    page.dataset.readonly = "true";
    const status = document.getElementById("net-status");
    let state = null;
    let since = 0;
    function render() {
      const geo = state.variant === "xiangqi" ? XIANGQI : CHESS;
      const names = state.variant === "xiangqi" ? ["red", "black"] : ["white", "black"];
      drawBoard(state, geo, false, null, null, state.moves[state.moves.length - 1]);
      const remaining = state.clock ? { [names[0]]: state.clock[names[0]], [names[1]]: state.clock[names[1]] } : null;
      drawClocks(remaining, state.clock && state.clock.running, names[0], names[1], since);
      document.getElementById("net-moves").textContent = (state.san || state.moves).join(" ");
      status.textContent = state.result !== "*" ? `Game over: ${state.result} (${state.termination || ""})`
        : `${state.turn} to move`;
    }
    function connect() {
      const ws = new WebSocket(wsUrl("/ws"));
      ws.addEventListener("message", (ev) => {
        let line;
        try { line = JSON.parse(ev.data); } catch { return; }
        if (!line.fen) return;
        state = line;
        since = performance.now();
        render();
      });
      ws.addEventListener("close", () => setTimeout(connect, 1000));
    }
    connect();
    setInterval(() => { if (state) render(); }, 500);
  }

  // -- the host's page: Invite ------------------------------------------------------------------

  function inviteButton() {
    const controls = document.getElementById("controls");
    if (!controls) return;
    const button = el("button", { type: "button", id: "invite", hidden: "" }, "Invite");
    const box = el("div", { id: "invite-box", hidden: "" });
    controls.append(button);
    controls.after(box);
    const show = (invite) => {
      const base = `${location.protocol}//${location.host}/`;
      box.replaceChildren(
        el("p", {}, `Another board: boardctl join ${invite.address} --code ${invite.code || "(used)"}` +
          (invite.fingerprint ? ` --fingerprint ${invite.fingerprint}` : "")),
        el("p", {}, "A phone: "), el("p", {}, "Spectators: "),
      );
      // A used code opens nothing: no ?play= link then, only the words.
      const phone = invite.code
        ? el("a", { href: `${base}?play=${invite.code}`, id: "invite-phone" }, `${base}?play=${invite.code}`)
        : el("span", { id: "invite-phone-used" }, "the code is used (the other board has joined)");
      const watch = el("a", { href: `${base}?watch`, id: "invite-watch" }, `${base}?watch`);
      box.children[1].append(phone);
      box.children[2].append(watch);
      if (!invite.code && window.boardctlNewCodeButton) {  // invite.js: a new code for the seat
        box.append(window.boardctlNewCodeButton(box, "invite-new-code", (d) => { if (d.invite) show(d.invite); }));
      }
    };
    // LAN mode: the invitation (its code is the guest's seat) comes only with the PIN. A hosting
    // board's page asks again with the stored PIN, and whenever a PIN is entered; never in a loop
    // and never on another daemon's page (a wrong PIN counts towards the lockout).
    // Where the page's own "Invite a friend" (invite.js) shows the invitation: one button, not two.
    const pageInvite = fetch("/api/invite").then((r) => (r.ok ? r.json() : null)).catch(() => null);
    let hosting = false;
    const poll = (withPin) => {
      const pin = withPin ? localStorage.getItem("boardctl-pin") : null;
      Promise.all([fetch("/api/state", pin ? { headers: { "X-Boardctl-Pin": pin } } : {}).then((r) => r.json()),
        pageInvite]).then(([state, own]) => {
        if (state.invite && own && own.available) return;
        if (state.invite) {
          button.hidden = false;
          button.onclick = () => { show(state.invite); box.hidden = !box.hidden; };
        } else if (!withPin && state.network && state.network.role === "host") {
          hosting = true;
          if (localStorage.getItem("boardctl-pin")) poll(true);
        }
      }).catch(() => {});
    };
    poll(false);
    const pinForm = document.getElementById("pin-form");
    if (pinForm) pinForm.addEventListener("submit", () => { if (hosting) setTimeout(() => poll(true), 0); });
  }

  if (mode === "play") document.addEventListener("DOMContentLoaded", playPage);
  else if (mode === "watch") document.addEventListener("DOMContentLoaded", watchPage);
  else document.addEventListener("DOMContentLoaded", inviteButton);
})();
