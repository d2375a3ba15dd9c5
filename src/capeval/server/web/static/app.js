// Column sorting for tables with class "sortable", and status polling on a submission page.
(function () {
  "use strict";
  function sortTable(table, index, type, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute("aria-sort") === "descending" ? 1 : -1;
    if (!th.hasAttribute("aria-sort") && type === "text") { dir = 1; }
    rows.sort(function (a, b) {
      var x = a.cells[index].getAttribute("data-value") || "";
      var y = b.cells[index].getAttribute("data-value") || "";
      if (type === "number") {
        var fx = x === "" ? -Infinity : parseFloat(x);
        var fy = y === "" ? -Infinity : parseFloat(y);
        return dir * (fx - fy);
      }
      return dir * x.localeCompare(y);
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function initSorting() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      if (!table.tHead) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
        var type = th.getAttribute("data-type");
        if (!type) { return; }
        th.classList.add("sort-handle");
        th.addEventListener("click", function () { sortTable(table, index, type, th); });
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
  document.addEventListener("DOMContentLoaded", function () { initSorting(); pollStatus(); });
})();
