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
      `${s.first_try} of ${s.moves} right at the first try` + (s.moves ? ` (${s.percent} %)` : "") + `, ${s.mistakes} wrong`;
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
      box.append(el("h2", { id: "step-title" }), el("p", { id: "step-ply" }), nav, el("ol", { id: "step-moves", class: "step-moves" }));
    }
    box.hidden = false;
    box.dataset.watch = String(Boolean(step.watch));
    const h = step.headers || {};
    const players = [h.White || h.Red, h.Black].filter(Boolean).join(" – ");
    const where = [h.Event, h.Date].filter(Boolean).join(", ");
    document.getElementById("step-title").textContent = `Replay: ${players || step.source}` + (where ? ` (${where})` : "");
    const next = step.ply < step.plies ? (step.watch || step.next ? ` · next ${step.sans[step.ply]}` : " · hint shows the next move") : " · the end";
    document.getElementById("step-ply").textContent = `Move ${step.ply} of ${step.plies}` + next;
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

  app.renderHooks.push(render);
  app.stepTo = stepTo; // for tests
})();
