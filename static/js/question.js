// Question page: countdown, Ctrl/Cmd+Enter submit, and a local copy of the draft as a second
// safety net behind the server autosave (closed tab, lost connection). Plain JS, no build.
(function () {
  "use strict";

  function fmt(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  var timerInterval = null;
  function startTimer() {
    if (timerInterval) { clearInterval(timerInterval); timerInterval = null; }
    var timer = document.getElementById("timer");
    if (!timer || timer.dataset.remaining === "") return;
    var clock = document.getElementById("timer-clock");
    var note = document.getElementById("timer-note");
    var announcer = document.getElementById("timer-announcer");
    // Count from page load with the server's remaining seconds: the client clock may be off.
    var endsAt = Date.now() + Number(timer.dataset.remaining) * 1000;
    var warned = false, over = false;
    function tick() {
      var left = (endsAt - Date.now()) / 1000;
      clock.textContent = fmt(left);
      if (!warned && left <= 60 && left > 0) {
        warned = true;
        timer.classList.add("low");
        if (announcer) announcer.textContent = "One minute left.";
      }
      if (!over && left <= 0) {
        over = true;
        timer.classList.add("overtime");
        note.textContent = "Time's up. You can still submit; the answer will be marked overtime.";
        if (announcer) announcer.textContent = "Time's up. You can still submit; it will be marked overtime.";
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
    box.addEventListener("htmx:sendError", function () {
      if (status) status.textContent = "Not saved: no connection. Your text is kept in this browser.";
    });
    box.addEventListener("htmx:responseError", function () {
      if (status) status.textContent = "Not saved (server error). Your text is kept in this browser.";
    });
    window.addEventListener("online", function () {
      if (window.htmx && document.body.contains(box)) htmx.trigger(box, "draft-save");
    });
    var form = box.form;
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

  function init() {
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

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target && (target.id === "question-body" || event.detail.elt.id === "question-body")) {
      init();
      // Move focus to what changed: the error next to the box, or the results heading.
      var focusable = document.querySelector("#question-body [data-autofocus]");
      if (focusable) focusable.focus();
    } else {
      init();
    }
  });
})();
