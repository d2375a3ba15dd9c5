// Sortable tables (buttons in the headers, missing values last), column pickers, and status
// polling on a submission page.
(function () {
  "use strict";
  function cellValue(row, index) {
    var cell = row.cells[index];
    return cell ? (cell.getAttribute("data-value") || "") : "";
  }
  function sortTable(table, index, type, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var current = th.getAttribute("aria-sort");
    var dir;
    if (current === "descending") { dir = 1; }
    else if (current === "ascending") { dir = -1; }
    else { dir = type === "text" ? 1 : -1; }
    if (th.classList.contains("rank") && current !== "ascending") { dir = 1; }
    rows.sort(function (a, b) {
      var x = cellValue(a, index);
      var y = cellValue(b, index);
      if (type === "number") {
        var fx = parseFloat(x);
        var fy = parseFloat(y);
        var mx = x === "" || isNaN(fx);
        var my = y === "" || isNaN(fy);
        if (mx || my) { return mx === my ? 0 : (mx ? 1 : -1); }  // missing and NaN last, both ways
        return dir * (fx - fy);
      }
      return dir * x.localeCompare(y);
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
      if (c.hasAttribute("aria-sort")) { c.setAttribute("aria-sort", "none"); }
    });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function initSorting() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      if (!table.tHead) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
        var type = th.getAttribute("data-type");
        if (!type) { return; }
        var button = th.querySelector("button.sort");
        if (!button) {
          button = document.createElement("button");
          button.type = "button";
          button.className = "sort";
          while (th.firstChild) { button.appendChild(th.firstChild); }
          th.appendChild(button);
        }
        if (!th.hasAttribute("aria-sort")) { th.setAttribute("aria-sort", "none"); }
        button.addEventListener("click", function () { sortTable(table, index, type, th); });
      });
    });
  }
  function initPickers() {
    document.querySelectorAll("details.column-picker").forEach(function (picker) {
      var table = document.getElementById(picker.getAttribute("data-table"));
      if (!table) { return; }
      picker.querySelectorAll("input[data-col]").forEach(function (box) {
        box.addEventListener("change", function () {
          var col = box.getAttribute("data-col");
          table.querySelectorAll("th[data-col], td[data-col]").forEach(function (cell) {
            if (cell.getAttribute("data-col") === col) { cell.hidden = !box.checked; }
          });
        });
      });
    });
  }
  function initConfirm() {
    document.querySelectorAll("form[data-confirm]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); }
      });
    });
  }
  function pollStatus() {
    var el = document.getElementById("status");
    if (!el || el.getAttribute("data-poll") !== "yes") { return; }
    var id = el.getAttribute("data-submission");
    var timer = setInterval(function () {
      fetch("/api/v1/submissions/" + id, { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (s) {
          el.textContent = s.status;
          el.className = "status-" + s.status;
          if (s.status !== "queued" && s.status !== "running") { clearInterval(timer); window.location.reload(); }
        });
    }, 1000);
  }
  document.addEventListener("DOMContentLoaded", function () { initSorting(); initPickers(); initConfirm(); pollStatus(); });
})();
