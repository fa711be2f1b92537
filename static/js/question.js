// Question page: countdown, Ctrl/Cmd+Enter submit, and a local copy of the draft as a second
// safety net behind the server autosave (closed tab, lost connection). Plain JS, no build.
(function () {
  "use strict";

  function fmt(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  // One countdown per question. The deadline is fixed the first time the question's timer is
  // seen (now + the server's remaining seconds: the client clock may be off) and kept across
  // htmx swaps, so autosaves, polls and re-rendered forms never move it or repeat a warning.
  var timerInterval = null;
  var timerEl = null;
  var countdown = null; // {question, endsAt, warned, over}
  function startTimer() {
    var timer = document.getElementById("timer");
    if (timer && timer === timerEl) return; // still the same element: its clock is running
    if (timerInterval) { clearInterval(timerInterval); timerInterval = null; }
    timerEl = timer;
    if (!timer || timer.dataset.remaining === "") return;
    var clock = document.getElementById("timer-clock");
    var note = document.getElementById("timer-note");
    var announcer = document.getElementById("timer-announcer");
    var question = timer.dataset.question || location.pathname;
    if (!countdown || countdown.question !== question) {
      countdown = { question: question, endsAt: Date.now() + Number(timer.dataset.remaining) * 1000,
                    warned: false, over: false };
    }
    var state = countdown;
    function tick() {
      var left = (state.endsAt - Date.now()) / 1000;
      clock.textContent = fmt(left);
      if (left <= 60 && left > 0) {
        timer.classList.add("low");
        if (!state.warned) {
          state.warned = true;
          if (announcer) announcer.textContent = "One minute left.";
        }
      }
      if (left <= 0) {
        timer.classList.add("overtime");
        note.textContent = "Time's up. You can still submit; the answer will be marked overtime.";
        if (!state.over) {
          state.over = true;
          if (announcer) announcer.textContent = "Time's up. You can still submit; it will be marked overtime.";
        }
      }
    }
    tick();
    timerInterval = setInterval(tick, 1000);
  }

  function storageGet(key) {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  function storageSet(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* full or blocked */ }
  }

  function setupAnswerBox() {
    var box = document.getElementById("answer-text");
    if (!box || box.dataset.ready) return;
    box.dataset.ready = "1";
    var key = box.dataset.storageKey;
    var status = document.getElementById("draft-status");
    var counter = document.getElementById("char-count");
    var max = Number(box.dataset.maxChars || 0);
    var serverSavedAt = Number(box.dataset.savedAt || 0);

    function count() {
      if (!counter || !max) return;
      var n = box.value.length;
      counter.textContent = n.toLocaleString() + " / " + max.toLocaleString();
      counter.classList.toggle("over", n > max);
    }

    // Restore a local copy newer than the server's draft (typed while offline, tab closed).
    var local = storageGet(key);
    if (local && local.text && local.text !== box.value && local.at > serverSavedAt) {
      box.value = local.text;
      if (status) status.textContent = "Restored unsaved text from this browser.";
      if (window.htmx) htmx.trigger(box, "draft-save");
    }
    count();

    box.addEventListener("input", function () {
      storageSet(key, { text: box.value, at: Date.now() });
      count();
    });
    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        var form = box.form;
        if (form.requestSubmit) form.requestSubmit(document.getElementById("submit-answer"));
        else form.submit();
      }
    });
    // The autosave and the "Save draft" button send the same request and report the same way.
    [box, document.getElementById("save-draft")].forEach(function (elt) {
      if (!elt) return;
      elt.addEventListener("htmx:sendError", function () {
        if (status) status.textContent = "Not saved: no connection. Your text is kept in this browser.";
      });
      elt.addEventListener("htmx:responseError", function () {
        if (status) status.textContent = "Not saved (server error). Your text is kept in this browser.";
      });
    });
    window.addEventListener("online", function () {
      if (window.htmx && document.body.contains(box)) htmx.trigger(box, "draft-save");
    });
    var form = box.form;
    // The submit carries the text, so once it is on its way no autosave follows it (the click
    // on Submit blurs the box, which would otherwise fire one at the same moment). The server
    // treats a late draft as a no-op too; this just spares the request.
    form.addEventListener("htmx:beforeRequest", function (event) {
      if (event.target === form) form.dataset.submitting = "1";
    });
    form.addEventListener("htmx:afterRequest", function (event) {
      if (event.target === form && !event.detail.successful) delete form.dataset.submitting;
    });
    [box, document.getElementById("save-draft")].forEach(function (elt) {
      if (!elt) return;
      elt.addEventListener("htmx:confirm", function (event) {
        if (form.dataset.submitting) event.preventDefault();
      });
    });
    form.addEventListener("htmx:sendError", function (event) {
      if (event.target !== form) return;
      var error = document.getElementById("submit-error");
      if (error) {
        error.hidden = false;
        error.textContent = "Could not reach the server. Your answer is still here; try again.";
      }
    });
  }

  function followUpShortcut() {
    var box = document.getElementById("follow-up-text");
    if (!box || box.dataset.ready) return;
    box.dataset.ready = "1";
    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        box.form.requestSubmit ? box.form.requestSubmit() : box.form.submit();
      }
    });
  }

  function clearSubmittedDraft() {
    var results = document.getElementById("results");
    if (results && results.dataset.clearDraft) {
      try { localStorage.removeItem(results.dataset.clearDraft); } catch (e) { /* ignore */ }
    }
  }

  // Scenario and constraints: folded on a phone so the answer box is on the first screen,
  // open where there is room. (No inline script: the page is under a strict CSP.)
  var WIDE = "(min-width: 48rem)";
  function contextDisclosure() {
    var details = document.getElementById("question-context");
    if (!details || details.dataset.ready) return;
    details.dataset.ready = "1";
    if (window.matchMedia && window.matchMedia(WIDE).matches) details.open = true;
  }

  function init() {
    contextDisclosure();
    startTimer();
    setupAnswerBox();
    followUpShortcut();
    clearSubmittedDraft();
  }

  document.addEventListener("DOMContentLoaded", function () {
    init();
    var autofocus = document.querySelector("[data-autofocus]");
    if (autofocus && location.hash === "#results") autofocus.focus();
  });

  // Every swap may bring a new answer box, follow-up form or results; init() only sets up what
  // is new (the timer restarts only when a new #timer element came in with #question-body).
  document.addEventListener("htmx:afterSwap", function (event) {
    init();
    var target = event.detail.target;
    if (target && (target.id === "question-body" || event.detail.elt.id === "question-body")) {
      // Move focus to what changed: the error next to the box, or the results heading.
      var focusable = document.querySelector("#question-body [data-autofocus]");
      if (focusable) focusable.focus();
    }
  });
})();
