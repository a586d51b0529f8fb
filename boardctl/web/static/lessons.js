// boardctl web page: the opening lesson panel (state key "lesson") and the replay panel with its
// slider (state key "step"). Both only read state lines and press the board's own buttons
// (hint forward, takeback back, new-game), so the page does nothing the board cannot.
"use strict";

(() => {
  const app = window.boardctl;

  function el(tag, attrs = {}, text = "") {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text) node.textContent = text;
    return node;
  }

  function panel(id, title) {
    let box = document.getElementById(id);
    if (box) return box;
    box = el("section", { id, class: "guide-panel", "aria-label": title });
    const status = document.getElementById("status");
    status.parentNode.insertBefore(box, status.nextSibling);
    return box;
  }

  function press(button) {
    return app.send({ button });
  }

  // -- lessons ---------------------------------------------------------------------------------

  function renderLesson(lesson) {
    const box = panel("lesson", "opening lesson");
    if (!box.dataset.built) {
      box.dataset.built = "1";
      box.append(
        el("h2", { id: "lesson-title" }),
        el("p", { id: "lesson-line", class: "lesson-line" }),
        el("p", { id: "lesson-next", class: "lesson-next" }),
        el("p", { id: "lesson-note", class: "lesson-note", "aria-live": "polite" }),
        el("p", { id: "lesson-wrong", class: "lesson-wrong", role: "alert" }),
        el("p", { id: "lesson-score", class: "lesson-score" }),
      );
      const buttons = el("div", { class: "buttons" });
      const show = el("button", { type: "button", id: "lesson-show" }, "Show my move");
      show.addEventListener("click", () => press("hint").catch(() => {}));
      const again = el("button", { type: "button", id: "lesson-again" }, "Another line");
      again.addEventListener("click", () => press("new-game").catch(() => {}));
      buttons.append(show, again);
      box.append(buttons);
    }
    box.hidden = false;
    box.dataset.mode = lesson.mode;
    box.dataset.ended = String(Boolean(lesson.ended));
    const mode = lesson.mode === "quiz" ? "quiz" : "guided";
    document.getElementById("lesson-title").textContent = `${lesson.title} (${lesson.eco}) · ${mode}, you play ${lesson.color}`;
    document.getElementById("lesson-line").textContent =
      `${lesson.line} · move ${Math.min(lesson.ply, lesson.plies)} of ${lesson.plies}`;
    let next = "";
    if (lesson.ended) next = "The line is over.";
    else if (lesson.your_turn && lesson.next) next = `Your move: ${lesson.next.san}` + (lesson.next_note ? ` — ${lesson.next_note}` : "");
    else if (lesson.your_turn) next = "Your move (quiz: no hint).";
    else next = "The other side's move is lit: make it on the board.";
    document.getElementById("lesson-next").textContent = next;
    document.getElementById("lesson-note").textContent = lesson.note ? `Last move: ${lesson.note}` : "";
    const wrong = lesson.wrong ? `Not the lesson's move: put it back. The lesson plays ${lesson.wrong.right}.` : "";
    document.getElementById("lesson-wrong").textContent = wrong;
    const s = lesson.score;
    document.getElementById("lesson-score").textContent =
      `${s.first_try} of ${s.moves} right at the first try` + (s.moves ? ` (${s.percent} %)` : "") +
      `, ${s.mistakes} wrong ${s.mistakes === 1 ? "try" : "tries"}`;
    document.getElementById("lesson-show").hidden = Boolean(lesson.ended) || !lesson.your_turn;
  }

  // -- replay: the slider steps by the board's buttons --------------------------------------------

  const stepper = { busy: false, target: null };

  async function stepTo(target) {
    stepper.target = target;
    if (stepper.busy) return;
    stepper.busy = true;
    try {
      for (let guard = 0; guard < 2000; guard++) {
        const step = app.state && app.state.step;
        if (!step || stepper.target === null || step.ply === stepper.target) break;
        const before = step.ply;
        await press(step.ply < stepper.target ? "hint" : "takeback");
        // The state line that answers the press may come just after the reply: wait for it.
        for (let ms = 0; ms < 3000 && app.state.step && app.state.step.ply === before; ms += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        if (!app.state.step || app.state.step.ply === before) break; // refused (pieces to set up first)
      }
    } catch (err) {
      // the connection went: the next state line shows where the replay is
    } finally {
      stepper.busy = false;
    }
  }

  function renderStep(step) {
    const box = panel("step", "replay");
    if (!box.dataset.built) {
      box.dataset.built = "1";
      const nav = el("div", { class: "buttons step-nav" });
      const back = el("button", { type: "button", id: "step-back", title: "back (the takeback button)" }, "‹ Back");
      const fwd = el("button", { type: "button", id: "step-forward", title: "forward (the hint button)" }, "Forward ›");
      const slider = el("input", { type: "range", id: "step-slider", min: "0", max: "0", value: "0", "aria-label": "replay move" });
      back.addEventListener("click", () => { stepper.target = null; press("takeback").catch(() => {}); });
      fwd.addEventListener("click", () => { stepper.target = null; press("hint").catch(() => {}); });
      slider.addEventListener("input", (ev) => stepTo(Number(ev.target.value)));
      nav.append(back, slider, fwd);
      box.append(el("h2", { id: "step-title" }), el("p", { id: "step-ply" }), nav,
        el("p", { id: "step-comment", class: "lesson-note", "aria-live": "polite" }),
        el("ol", { id: "step-moves", class: "step-moves" }));
    }
    box.hidden = false;
    box.dataset.watch = String(Boolean(step.watch));
    const h = step.headers || {};
    const players = [h.White || h.Red, h.Black].filter(Boolean).join(" – ");
    const where = [h.Event, h.Date].filter(Boolean).join(", ");
    document.getElementById("step-title").textContent = `Replay: ${players || step.source}` + (where ? ` (${where})` : "");
    const next = step.ply < step.plies ? (step.watch || step.next ? ` · next ${step.sans[step.ply]}` : " · hint shows the next move") : " · the end";
    document.getElementById("step-ply").textContent = `Move ${step.ply} of ${step.plies}` + next;
    document.getElementById("step-comment").textContent = step.comment || "";
    const slider = document.getElementById("step-slider");
    slider.max = String(step.plies);
    if (stepper.target === null || !stepper.busy) slider.value = String(step.ply);
    // Made on the board, moves go one at a time: the slider shows where the game is.
    slider.disabled = !step.watch;
    const list = document.getElementById("step-moves");
    if (list.dataset.count !== String(step.sans.length)) {
      list.textContent = "";
      step.sans.forEach((san, i) => {
        const item = el("li", { "data-ply": String(i + 1) }, (i % 2 === 0 ? `${i / 2 + 1}. ` : "") + san);
        if (step.watch) item.addEventListener("click", () => stepTo(i + 1));
        list.append(item);
      });
      list.dataset.count = String(step.sans.length);
    }
    for (const item of list.children) item.classList.toggle("current", Number(item.dataset.ply) === step.ply);
  }

  function render(state) {
    const lesson = document.getElementById("lesson");
    if (state.lesson) renderLesson(state.lesson);
    else if (lesson) lesson.hidden = true;
    const step = document.getElementById("step");
    if (state.step) renderStep(state.step);
    else if (step) step.hidden = true;
  }

  // -- starting a lesson or a replay from the page -----------------------------------------------

  // The lessons boardctl ships (boardctl/data/lessons), as `boardctl learn` names them.
  const LESSONS = [
    ["italian", "Italian Game"], ["evans", "Evans Gambit"], ["two-knights", "Two Knights Defence"],
    ["hungarian", "Hungarian Defence"], ["three-knights", "Three Knights Opening"],
    ["four-knights", "Four Knights Game"], ["spanish", "Ruy Lopez"], ["philidor", "Philidor Defence"],
    ["petrov", "Petrov Defence"],
  ];

  function buildStarter() {
    const box = el("details", { id: "learn" });
    box.append(el("summary", {}, "Lessons and replays"));
    const lesson = el("form", { id: "lesson-form", class: "buttons" });
    const pick = el("select", { name: "lesson", "aria-label": "opening lesson" });
    for (const [key, title] of LESSONS) pick.append(el("option", { value: key }, title));
    const color = el("select", { name: "color", "aria-label": "your colour" });
    color.append(el("option", { value: "white" }, "White"), el("option", { value: "black" }, "Black"));
    const quiz = el("input", { type: "checkbox", name: "quiz" });
    const quizLabel = el("label", {}, " quiz");
    quizLabel.prepend(quiz);
    lesson.append(pick, color, quizLabel, el("button", { type: "submit" }, "Start lesson"));
    lesson.addEventListener("submit", (ev) => {
      ev.preventDefault();
      app.send({ lesson: { name: pick.value, color: color.value, quiz: quiz.checked } }).catch(() => {});
    });
    const replay = el("form", { id: "step-form", class: "buttons" });
    const file = el("input", { type: "file", name: "record", accept: ".pgn,application/x-chess-pgn,text/plain", "aria-label": "game to replay" });
    const watch = el("input", { type: "checkbox", name: "watch", checked: "" });
    const watchLabel = el("label", {}, " only watch");
    watchLabel.prepend(watch);
    replay.append(file, watchLabel, el("button", { type: "submit" }, "Replay"));
    replay.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      if (!file.files.length) return;
      const record = await file.files[0].text();
      app.send({ step: { record, watch: watch.checked } }).catch(() => {});
    });
    const intro = el("p", {}, "An opening lesson on the board:");
    const chessOnly = el("p", { id: "lesson-chess-only", class: "note", hidden: "" },
      "The opening lessons are chess only (boardctl learn teaches chess openings); a xiangqi game can be replayed below.");
    box.append(intro, lesson, chessOnly,
      el("p", {}, "Replay a game (PGN) on the board; hint steps forward, takeback back:"), replay);
    const games = document.getElementById("past-games");
    games.parentNode.insertBefore(box, games);
    // The lessons and their White/Black list are chess's: a xiangqi page says so instead.
    const follow = () => {
      const xiangqi = document.body.dataset.variant === "xiangqi";
      intro.hidden = lesson.hidden = xiangqi;
      lesson.style.display = xiangqi ? "none" : "";  // .buttons is a flex box: hidden alone does not hide it
      chessOnly.hidden = !xiangqi;
    };
    follow();
    new MutationObserver(follow).observe(document.body, { attributes: true, attributeFilter: ["data-variant"] });
  }

  if (window.BOARDCTL_NETWORK_PAGE) {
    // a phone's or a spectator's page (network.js): no lesson or replay starters
  } else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", buildStarter);
  else buildStarter();

  app.renderHooks.push(render);
  app.stepTo = stepTo; // for tests
})();
