// boardctl online (docs/online.md): the Lichess game's line in the page's header, from the state
// line's "online" key: the game (a link to it on Lichess), the opponent and whether the stream is up.
"use strict";

(function () {
  const app = window.boardctl;
  if (!app) return;

  function badge() {
    let el = document.getElementById("online");
    if (!el) {
      el = document.createElement("span");
      el.id = "online";
      el.hidden = true;
      const top = document.getElementById("top");
      const spacer = top && top.querySelector(".spacer");
      if (top) top.insertBefore(el, spacer);
    }
    return el;
  }

  function renderOnline(state) {
    const el = badge();
    const online = state && state.online;
    if (!online) { el.hidden = true; return; }
    el.hidden = false;
    el.textContent = "";
    const link = document.createElement("a");
    link.href = online.url;
    link.target = "_blank";
    link.rel = "noopener";
    link.textContent = "Lichess " + online.game;
    const who = " · " + (online.rated ? "rated" : "casual") + " vs " + online.opponent
      + (online.rating ? " (" + online.rating + ")" : "");
    el.append(link, document.createTextNode(who));
    el.className = online.connected ? "ok" : "bad";
    el.dataset.connected = String(online.connected);
    el.title = online.connected ? "following the game on Lichess" : "reconnecting to Lichess…";
  }

  app.renderHooks = [...(app.renderHooks || []), renderOnline];
  if (app.state) renderOnline(app.state);
})();
