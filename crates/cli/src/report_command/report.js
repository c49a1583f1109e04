// agentctx report: sorting and filtering of tables, and request bodies loaded on demand.
// Plain script, no framework, no network: a body is a file beside its page, added as a
// <script> when its request is expanded (a page opened from disk may not fetch files).
"use strict";

(function () {
  // Sorting: a click (or Enter) on a header sorts its table by that column; again reverses.
  // Cells carry their sort key in data-v; numeric columns say data-type="num".
  function sortBy(table, th) {
    var headers = Array.prototype.slice.call(th.parentNode.children);
    var column = headers.indexOf(th);
    var numeric = th.getAttribute("data-type") === "num";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, index) {
      var cell = row.cells[column];
      var raw = cell ? (cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent) : "";
      return { row: row, key: numeric ? parseFloat(raw) || 0 : raw.toLowerCase(), index: index };
    });
    keyed.sort(function (a, b) {
      var order = a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index;
      return ascending ? order : -order;
    });
    var fragment = document.createDocumentFragment();
    keyed.forEach(function (entry) { fragment.appendChild(entry.row); });
    body.appendChild(fragment);
  }

  function setUpSorting(table) {
    var head = table.tHead;
    if (!head) { return; }
    Array.prototype.forEach.call(head.rows[0].cells, function (th) {
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortBy(table, th);
        }
      });
    });
  }

  // Filtering: every word typed must appear in the row's text.
  function setUpFilter(table) {
    var input = document.getElementById(table.getAttribute("data-filter"));
    var shown = document.getElementById("shown");
    if (!input) { return; }
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    function apply() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var count = 0;
      rows.forEach(function (row, index) {
        var match = words.every(function (word) { return texts[index].indexOf(word) !== -1; });
        row.hidden = !match;
        if (match) { count += 1; }
      });
      if (shown) { shown.textContent = count + " of " + rows.length + " sessions"; }
    }
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(apply, 60);
    });
    apply();
  }

  // Request bodies: agentctxBody(n, body) is what each body file calls.
  window.agentctxBody = function (request, body) {
    var pre = document.getElementById("body-" + request);
    if (pre) { pre.textContent = JSON.stringify(body, null, 2); }
  };

  function setUpBodies() {
    Array.prototype.forEach.call(document.querySelectorAll("button.body"), function (button) {
      button.addEventListener("click", function () {
        var request = button.getAttribute("data-request");
        var pre = document.getElementById("body-" + request);
        if (!pre) { return; }
        var row = pre.closest("tr");
        var open = button.getAttribute("aria-expanded") === "true";
        button.setAttribute("aria-expanded", open ? "false" : "true");
        button.textContent = open ? "show" : "hide";
        row.hidden = open;
        if (!open && !pre.getAttribute("data-loading")) {
          pre.setAttribute("data-loading", "1");
          pre.textContent = "loading…";
          var script = document.createElement("script");
          script.src = button.getAttribute("data-src");
          script.onerror = function () { pre.textContent = "the body file " + script.src + " could not be read"; };
          document.head.appendChild(script);
        }
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      setUpSorting(table);
      if (table.hasAttribute("data-filter")) { setUpFilter(table); }
    });
    setUpBodies();
  });
})();
