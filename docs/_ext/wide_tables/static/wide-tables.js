/* A table wider than its box (Furo's .table-wrapper, which scrolls sideways): a hint above it,
   and the classes wide-tables.css draws the rest from: "overflows" while it is wider, "at-end"
   once it is scrolled to its last column. */
(function () {
  function mark(box) {
    var wider = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("overflows", wider);
    box.classList.toggle("at-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
    var hint = box.previousElementSibling;
    if (!hint || !hint.classList.contains("table-hint")) {
      if (!wider) return;
      hint = document.createElement("p");
      hint.className = "table-hint";
      hint.textContent = "The table scrolls sideways \u2192";
      box.parentNode.insertBefore(hint, box);
    }
    hint.hidden = !wider;
  }
  function markAll() {
    document.querySelectorAll("article .table-wrapper").forEach(mark);
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("article .table-wrapper").forEach(function (box) {
      box.addEventListener("scroll", function () { mark(box); }, { passive: true });
    });
    markAll();
    window.addEventListener("resize", markAll);
  });
  window.addEventListener("load", markAll);  /* fonts and images can change the widths */
})();
