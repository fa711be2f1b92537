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
