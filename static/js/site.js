// Small behaviours the templates used to write inline (the CSP forbids inline handlers).
// Each is opt-in by a data attribute, and each page works without it.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-print]");
  if (button) window.print();
});
document.addEventListener("change", (event) => {
  const field = event.target.closest("[data-autosubmit]");
  if (field && field.form) field.form.requestSubmit();
});
// htmx does not swap error responses. The database-outage 503 (ops.outage) is retargeted to
// the page's #outage region and must be shown, or a failed Submit looks like nothing happened.
document.addEventListener("htmx:beforeSwap", (event) => {
  const xhr = event.detail.xhr;
  if (xhr.status === 503 && xhr.getResponseHeader("HX-Retarget") === "#outage") {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
document.addEventListener("htmx:afterSwap", (event) => {
  const region = event.detail.target;
  if (region && region.id === "outage") region.scrollIntoView({ block: "nearest" });
});
