// The page's "Invite a friend" on a play/record/demo daemon (boardctl/network/page_invite.py):
// POST /api/invite switches this board into hosting a network game; the box shows the address,
// the one-time code, the join command, the phone and spectator links. A host's own page
// (boardctl host) has network.js's Invite instead: there /api/invite does not exist.
"use strict";

(() => {
  const PIN_HEADER = "X-Boardctl-Pin";

  function el(tag, attrs = {}, text = "") {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text) node.textContent = text;
    return node;
  }

  // LAN mode: the invitation (its code is the guest's seat) comes only with the PIN. A PIN the
  // board refused is not sent again with the polls (each wrong one counts towards the lockout).
  let pinRefused = false;

  async function call(method) {
    const init = { method, headers: {} };
    const pin = localStorage.getItem("boardctl-pin");
    const withPin = Boolean(pin) && (method === "POST" || !pinRefused);
    if (withPin) init.headers[PIN_HEADER] = pin;
    if (method === "POST") {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify({ color: document.getElementById("invite-color").value });
    }
    const res = await fetch("/api/invite", init);
    if (withPin) pinRefused = res.status === 403;
    if (withPin && res.status === 403 && method === "GET") return call("GET"); // again, without it
    const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
    return data;
  }

  function show(box, data) {
    const invite = data.invite;
    box.hidden = !invite;
    if (!invite) return;
    const base = `${location.protocol}//${location.host}/`;
    const code = invite.code || "";
    const local = /\/\/(127\.|\[::1\]|localhost)/.test(invite.address);
    // A used code opens nothing: no ?play= link then, only the words.
    const phone = code
      ? el("a", { href: `${base}?play=${code}`, id: "invite-start-phone" }, `${base}?play=${code}`)
      : el("span", { id: "invite-start-phone-used" }, "the code is used (the other board has joined)");
    const watch = el("a", { href: `${base}?watch`, id: "invite-start-watch" }, `${base}?watch`);
    const rows = [
      el("p", { id: "invite-start-address" }, `Address: ${invite.address}`),
      el("p", { id: "invite-start-code" }, code ? `Code: ${code}` : "Code: used (the other board has joined)"),
      el("p", { id: "invite-start-join" }, `Another board: boardctl join ${invite.address} --code ${code || "(used)"}`),
      el("p", {}, "A phone: "),
      el("p", {}, "Spectators: "),
    ];
    rows[3].append(phone);
    rows[4].append(watch);
    if (!code) rows.push(newCodeButton(box, "invite-start-new-code", (d) => show(box, d)));
    if (local) {
      rows.push(el("p", { id: "invite-start-lan", class: "note" },
        `This page is only open on this machine. For a board or phone on your network, start with ${data.command}` +
        " (or boardctl demo --host 0.0.0.0; the page then asks for the PIN)."));
    }
    box.replaceChildren(el("h2", {}, "Invitation"), ...rows);
  }

  // A used code can be replaced: the seat gets a new one-time code, and the board that joined
  // with the old one is let go (a lost phone, a seat for another board). A second click within
  // 5 s confirms, as leaving a game does.
  function newCodeButton(box, id, done) {
    const button = el("button", { type: "button", id, title: "A new one-time code for the other seat" }, "New code");
    let armed = 0;
    button.addEventListener("click", async () => {
      if (Date.now() - armed > 5000) {
        armed = Date.now();
        button.textContent = "Really? The board that joined is let go";
        return;
      }
      armed = 0;
      const headers = { "Content-Type": "application/json" };
      const pin = localStorage.getItem("boardctl-pin");
      if (pin) headers[PIN_HEADER] = pin;
      const res = await fetch("/api/invite/new-code", { method: "POST", headers, body: "{}" });
      const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
      if (!res.ok) {
        box.append(el("p", { role: "alert", id: `${id}-error` }, data.error || `HTTP ${res.status}`));
        return;
      }
      done(data);
    });
    return el("p", {}, "").appendChild(button).parentNode;
  }
  window.boardctlNewCodeButton = newCodeButton;

  // The colours offered: the game's two sides (as the server names them) and random.
  function fillColours(select) {
    const sides = document.body.dataset.variant === "xiangqi" ? ["red", "black"] : ["white", "black"];
    const wanted = [...sides, "random"];
    if ([...select.options].map((o) => o.value).join() === wanted.join()) return;
    const index = Math.max(0, select.selectedIndex);
    select.replaceChildren(...wanted.map((c) => el("option", { value: c }, c)));
    select.selectedIndex = index;
  }

  async function setUp() {
    if (window.BOARDCTL_NETWORK_PAGE) return; // a phone's or a spectator's page
    const controls = document.getElementById("controls");
    if (!controls) return;
    let data;
    try { data = await call("GET"); } catch { return; } // not offered here (a host's or guest's page)
    if (!data.available) return;
    const color = el("select", { id: "invite-color", "aria-label": "Your colour in the invited game" });
    fillColours(color);
    // The game's own sides: red and black in xiangqi (the page learns its game from the first state).
    new MutationObserver(() => fillColours(color)).observe(document.body, { attributes: true, attributeFilter: ["data-variant"] });
    const button = el("button", { type: "button", id: "invite-start",
      title: "Host a game for a friend's board or phone (as boardctl host does)" }, "Invite a friend");
    const box = el("section", { id: "invite-start-box", "aria-label": "Invitation", hidden: "" });
    controls.append(button, color);
    controls.after(box);
    show(box, data);
    let armed = 0;  // when a first click asked to confirm leaving the game under way
    button.addEventListener("click", async () => {
      const s = typeof app !== "undefined" ? app.state : null;
      const underWay = s && s.mode !== "network" && (s.result || "*") === "*" && (s.moves || []).length > 0;
      if (underWay && Date.now() - armed > 5000) {
        armed = Date.now();
        box.hidden = false;
        box.replaceChildren(el("p", { role: "alert", id: "invite-start-confirm" },
          `This leaves the game under way (${s.moves.length} half-moves; it stays saved, unfinished). ` +
          "Press Invite a friend again within 5 s to invite anyway."));
        return;
      }
      armed = 0;
      try {
        show(box, await call("POST"));
        box.hidden = false;
      } catch (err) {
        box.hidden = false;
        box.replaceChildren(el("p", { role: "alert", id: "invite-start-error" }, String(err.message || err)));
      }
    });
    // The code is shown until used; hosting ends with the page's next new game, lesson or replay.
    setInterval(() => { call("GET").then((d) => { if (!d.hosting || !box.hidden) show(box, d); }).catch(() => {}); }, 3000);
  }

  document.addEventListener("DOMContentLoaded", setUp);
})();
