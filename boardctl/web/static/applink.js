// App mode (boardctl/chesslink, docs/chesslink.md): the board answers chess apps that speak the
// Millennium ChessLink protocol. The button shows and switches the state lines' "app_mode"; it
// is hidden where the daemon offers no switch (no "app_mode" key: boardctl link, a network game,
// xiangqi). The only hooks are this file's <script> tag in index.html and app.renderHooks.
"use strict";

(() => {
  const app = window.boardctl;

  function show(state) {
    const button = document.getElementById("app-mode");
    if (!button) return;
    const mode = state.app_mode;
    button.hidden = !mode;
    if (!mode) return;
    button.setAttribute("aria-pressed", String(Boolean(mode.on)));
    button.textContent = mode.on ? `App mode: on (${mode.address || mode.transport})` : "App mode";
    button.title = mode.on
      ? "Chess apps that support Millennium ChessLink boards follow this board and light its LEDs; click to stop"
      : `Let chess apps that support Millennium ChessLink boards use this board (${mode.transport})`;
  }

  function setup() {
    const button = document.getElementById("app-mode");
    if (!button) return;
    button.addEventListener("click", () => {
      const on = Boolean(app.state && app.state.app_mode && app.state.app_mode.on);
      app.send({ "app-mode": !on }).catch(() => {});
    });
    if (app.state) show(app.state);
  }

  app.renderHooks = app.renderHooks || [];
  app.renderHooks.push(show);
  if (window.BOARDCTL_NETWORK_PAGE) return; // a phone's or a spectator's page (network.js)
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
