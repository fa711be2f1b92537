// Debrief page: the Print button (no inline handlers: the site's CSP forbids them).
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-print]");
    if (button) { window.print(); }
  });
})();
