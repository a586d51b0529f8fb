// The opponents with a character (boardctl/learning/characters.py): each one's initials, rating,
// style and profile, and a button that starts a new game against it. Each character plays one
// game (chess or xiangqi): the page lists those of the game on its board. The panel is built here; the
// only hooks are this file's <script> tag in index.html and app.renderHooks in app.js.
"use strict";

(() => {
  const STYLE_COLOURS = {
    "attacker": "#c0392b",
    "gambiteer": "#d35400",
    "solid defender": "#2c3e50",
    "positional player": "#27ae60",
    "endgame grinder": "#8e44ad",
    "materialist": "#b7950b",
    "beginner who blunders": "#7f8c8d",
  };
  const chars = { list: [], current: null };

  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (key === "dataset") Object.assign(node.dataset, value);
      else if (key in node) node[key] = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  function avatar(c) {
    const badge = el("span", { className: "char-initials", title: c.style, "aria-hidden": "true" }, c.initials);
    badge.style.background = STYLE_COLOURS[c.style] || "#555";
    return badge;
  }

  function colour() {
    const select = document.querySelector('#new-game-form select[name="color"]');
    return select ? select.value : "white";
  }

  function start(c) {
    const action = { "new-game": { opponent: c ? c.id : "", color: colour() } };
    return app.send(action).catch((err) => showError(err.message));
  }

  function card(c) {
    const play = el("button", { type: "button", className: "char-play", dataset: { character: c.id } }, "Play");
    play.addEventListener("click", () => start(c));
    return el("li", { className: "char", dataset: { character: c.id, style: c.style, game: c.game || "chess" } },
      avatar(c),
      el("span", { className: "char-text" },
        el("strong", { className: "char-name" }, c.name), " ",
        el("span", { className: "char-rating" }, String(c.rating)), " · ",
        el("em", { className: "char-style" }, c.style),
        el("br"),
        el("span", { className: "char-profile" }, c.profile),
        el("br"),
        el("small", { className: "char-openings" }, "Plays: " + c.openings.join(", "))),
      play);
  }

  function panel() {
    const plain = el("button", { type: "button", id: "char-plain" }, "Plain engine");
    plain.addEventListener("click", () => start(null));
    return el("details", { id: "characters" },
      el("summary", {}, "Opponents"),
      el("p", { id: "char-current", className: "help" }, ""),
      el("p", { id: "char-intro", className: "help" }, "Start a game against a character: its rating, style and openings. ",
        "The colour is the New game form's. ", plain),
      el("p", { id: "char-none", className: "note", hidden: true }, ""),
      el("ul", { id: "char-list", className: "char-list" }));
  }

  function showCurrent(state) {
    chars.current = state.opponent || null;
    const line = document.querySelector("#char-current");
    if (!line) return;
    // The characters of the board's game only: a chess character cannot play xiangqi, nor the other way.
    const game = state.variant || document.body.dataset.variant || "chess";
    let shown = 0;
    document.querySelectorAll("#char-list .char").forEach((item) => {
      item.hidden = item.dataset.game !== game;
      if (!item.hidden) shown += 1;
    });
    const none = document.querySelector("#char-none");
    none.hidden = shown > 0 || !chars.list.length;
    none.textContent = `No character plays ${game} yet: the engine plays at the New game form's level.`;
    document.querySelector("#char-intro").hidden = shown === 0;
    line.textContent = chars.current ? `You play against ${chars.current}.` : "You play against the plain engine.";
    document.querySelectorAll("#char-list .char").forEach((item) => {
      const c = chars.list.find((x) => x.id === item.dataset.character);
      item.dataset.current = String(Boolean(c && chars.current === `${c.name} (${c.rating})`));
    });
  }

  async function load() {
    const side = document.querySelector("#side");
    if (!side || document.querySelector("#characters")) return;
    const node = panel();
    const anchor = document.querySelector("#new-game");
    if (anchor) anchor.after(node); else side.append(node);
    try {
      const reply = await fetch("/api/characters");
      if (!reply.ok) throw new Error(`characters: HTTP ${reply.status}`);
      chars.list = (await reply.json()).characters;
    } catch (err) {
      node.querySelector("#char-list").append(el("li", {}, `The characters could not be loaded (${err.message}).`));
      return;
    }
    node.querySelector("#char-list").append(...chars.list.map(card));
    node.dataset.loaded = String(chars.list.length);
    if (app.state) showCurrent(app.state);
  }

  app.renderHooks = app.renderHooks || [];
  app.renderHooks.push(showCurrent);
  app.characters = chars;
  if (window.BOARDCTL_NETWORK_PAGE) return; // a phone's or a spectator's page (network.js)
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
