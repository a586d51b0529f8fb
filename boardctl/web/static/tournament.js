// The tournament panel: the same controls as `boardctl tournament new|next|standings`, the
// standings with Buchholz and Sonneborn-Berger, and the crosstable. Talks to /api/tournament*.
"use strict";

(function () {
  const PIN_HEADER = "X-Boardctl-Pin";

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const child of children) node.append(child);
    return node;
  }

  function build() {
    const section = el("section", { id: "tournament", "aria-label": "Tournament" });
    section.innerHTML = `
      <h2>Tournament</h2>
      <form id="t-new-form">
        <label>Players <input id="t-players" type="number" min="2" max="64" value="8" size="3"></label>
        <label>Format <select id="t-format"><option value="round-robin">round robin</option>
          <option value="swiss">Swiss</option></select></label>
        <label>Rounds <input id="t-rounds" type="number" min="1" max="63" size="3" placeholder="auto"></label>
        <label>Clock <input id="t-tc" value="15+10" size="6" pattern="[0-9]{1,3}\\+[0-9]{1,3}"></label>
        <button type="submit" id="t-new">New tournament</button>
      </form>
      <p>
        <button type="button" id="t-next">Next game</button>
        <button type="button" id="t-standings">Standings</button>
        <span id="t-status" role="status"></span>
      </p>
      <div id="t-round"></div>
      <table id="t-table"><thead><tr><th>Rk</th><th>Name</th><th>Elo</th><th>Pts</th><th>Bhz</th><th>SB</th></tr></thead>
        <tbody></tbody></table>
      <table id="t-cross"></table>`;
    (document.querySelector("main") || document.body).append(section);
    return section;
  }

  async function call(path, body) {
    const init = body === undefined ? {} : {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    };
    const pin = localStorage.getItem("boardctl-pin");
    if (pin && init.headers) init.headers[PIN_HEADER] = pin;
    const res = await fetch(path, init);
    const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
    return data;
  }

  function status(text) {
    document.getElementById("t-status").textContent = text;
  }

  function fmt(x) {
    return Number.isInteger(x) ? String(x) : x.toFixed(x * 2 === Math.round(x * 2) ? 1 : 2);
  }

  // While the characters' games of the round are still being played (the background runner),
  // your next game cannot start: Next game waits, disabled, and the page looks again often.
  const POLL_MS = 10000;
  const POLL_BUSY_MS = 2000;
  let timer = null;

  function isBusy(t, playing) {
    return Boolean(t) && !t.finished && !t.next && t.waiting > 0 && playing !== false;
  }

  function showNext(t, playing) {
    const button = document.getElementById("t-next");
    const busy = isBusy(t, playing);
    button.disabled = Boolean(t && t.finished) || busy;
    button.dataset.state = !t ? "none" : t.finished ? "finished" : busy ? "waiting" : "ready";
    button.title = busy ? "the characters are still playing this round" : "";
    button.setAttribute("aria-busy", String(busy));
  }

  function show(t, rating, playing) {
    showNext(t, playing);
    const round = document.getElementById("t-round");
    const body = document.querySelector("#t-table tbody");
    const cross = document.getElementById("t-cross");
    round.replaceChildren();
    body.replaceChildren();
    cross.replaceChildren();
    if (!t) {
      status(rating ? `No tournament yet. Your rating: ${rating.value}` : "No tournament yet.");
      return;
    }
    const you = rating ? ` Your rating: ${rating.value}.` : "";
    const state = t.finished ? "finished" : `round ${t.round} of ${t.rounds}`;
    let next = "";
    if (t.next) next = ` Next: ${t.next.color} against ${t.next.opponent} (${t.next.rating}).`;
    else if (t.waiting && playing !== false) {
      next = ` Round ${t.round} is being played: ${t.waiting} game(s) between characters still going;` +
        " Next game opens when they are done.";
    } else if (t.waiting) next = ` Waiting for ${t.waiting} game(s) between characters: Next game starts them.`;
    else if (!t.finished) next = " Round done: Next game pairs the next round.";
    status(`${t.format}, ${state}, ${t.time_control}.${next}${you}`);
    const list = el("ul", { class: "t-pairings" });
    for (const p of t.pairings) {
      const text = p.black === null ? `${p.white}: bye` : `${p.white} – ${p.black}: ${p.result || "…"}`;
      list.append(el("li", { text }));
    }
    round.append(el("h3", { text: `Round ${t.round}` }), list);
    for (const s of t.standings) {
      const row = el("tr", s.name && t.players[s.number - 1].is_user ? { class: "t-you" } : {});
      for (const v of [s.rank, s.name, s.rating, fmt(s.points), fmt(s.buchholz), fmt(s.sonneborn_berger)]) {
        row.append(el("td", { text: String(v) }));
      }
      body.append(row);
    }
    const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "Name" }));
    t.players.forEach((_, j) => head.append(el("th", { text: String(j + 1) })));
    cross.append(el("caption", { text: "Crosstable" }), head);
    t.crosstable.forEach((cells, i) => {
      const row = el("tr", {}, el("td", { text: String(i + 1) }), el("td", { text: t.players[i].name }));
      for (const c of cells) row.append(el("td", { text: c }));
      cross.append(row);
    });
  }

  async function refresh() {
    let busy = false;
    try {
      const data = await call("/api/tournament");
      show(data.tournament, data.rating, data.playing);
      busy = isBusy(data.tournament, data.playing);
    } catch (err) {
      status(err.message);
    }
    clearTimeout(timer);
    timer = setTimeout(refresh, busy ? POLL_BUSY_MS : POLL_MS);
  }

  function start() {
    build();
    document.getElementById("t-new-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = {
        players: Number(document.getElementById("t-players").value),
        format: document.getElementById("t-format").value,
        time_control: document.getElementById("t-tc").value.trim(),
      };
      const rounds = document.getElementById("t-rounds").value;
      if (rounds) body.rounds = Number(rounds);
      try {
        await call("/api/tournament/new", body);
        await refresh();
      } catch (err) {
        status(err.message);
      }
    });
    document.getElementById("t-next").addEventListener("click", async () => {
      try {
        const data = await call("/api/tournament/next", {});
        await refresh();
        if (!data.started && !data.tournament.finished) status(document.getElementById("t-status").textContent + " (not started yet)");
      } catch (err) {
        status(err.message);
      }
    });
    document.getElementById("t-standings").addEventListener("click", refresh);
    refresh();
  }

  if (window.BOARDCTL_NETWORK_PAGE) return; // a phone's or a spectator's page (network.js)
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
