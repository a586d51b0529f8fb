// The practice coach on the page (docs/learning.md): the one-line verdict on your last move and,
// at the end of a coached game, the review of your three worst moves. It reads the state line's
// "coach" and "review" keys; app.js calls boardctlCoach.render(state) after its own rendering.
"use strict";

(function () {
  function box() {
    let el = document.getElementById("coach");
    if (el) return el;
    el = document.createElement("div");
    el.id = "coach";
    el.setAttribute("aria-live", "polite");
    el.innerHTML = '<p id="coach-line" hidden></p>' +
      '<div id="coach-review" hidden><h3>Review: your three worst moves</h3><ol></ol></div>';
    const status = document.getElementById("status");
    if (status && status.parentNode) status.parentNode.insertBefore(el, status.nextSibling);
    else document.body.appendChild(el);
    return el;
  }

  function render(state) {
    const root = box();
    const line = root.querySelector("#coach-line");
    const verdict = state.coach;
    if (verdict) {
      line.textContent = "Coach: " + verdict.text + ". Better: " + verdict.best_san +
        " (" + (verdict.loss / 100).toFixed(1) + " pawns)";
      line.dataset.category = verdict.category;
      line.hidden = false;
    } else {
      line.textContent = "";
      delete line.dataset.category;
      line.hidden = true;
    }
    const review = root.querySelector("#coach-review");
    const list = review.querySelector("ol");
    list.textContent = "";
    if (Array.isArray(state.review)) {
      for (const v of state.review) {
        const li = document.createElement("li");
        li.textContent = v.number + " " + v.san + v.nag + " " + v.text + "; better was " + v.best_san;
        li.dataset.category = v.category;
        list.appendChild(li);
      }
      if (!state.review.length) {
        const li = document.createElement("li");
        li.textContent = "No move lost a pawn or more. Well played.";
        list.appendChild(li);
      }
      review.hidden = false;
    } else {
      review.hidden = true;
    }
  }

  window.boardctlCoach = { render };
})();
