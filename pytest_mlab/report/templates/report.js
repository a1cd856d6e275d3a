(function () {
  "use strict";
  var root = document.documentElement;
  window.addEventListener("error", function (event) {
    root.setAttribute("data-mlab-errors", (root.getAttribute("data-mlab-errors") || "") +
      event.message + "; ");
  });
  // Trials shown in full, then those listed by their record alone (a large run's).
  var trials = Array.prototype.slice.call(document.querySelectorAll("details.trial, tr.trial-row"));
  var shown = document.getElementById("shown");
  var buttons = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));

  function filter(outcome) {
    var count = 0;
    trials.forEach(function (trial) {
      var show = outcome === "all" || trial.getAttribute("data-outcome") === outcome;
      trial.hidden = !show;
      if (show) { count += 1; }
    });
    shown.textContent = count + " of " + trials.length + " trials shown";
    buttons.forEach(function (button) {
      button.classList.toggle("active", button.getAttribute("data-filter") === outcome);
    });
  }

  function setOpen(open) {
    trials.forEach(function (trial) {
      if (!trial.hidden && trial.tagName === "DETAILS") { trial.open = open; }
    });
  }

  function sortKey(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) { return cell.textContent.trim().toLowerCase(); }
    var value = parseFloat(raw);
    return isNaN(value) ? -Infinity : value;
  }

  function sortBy(th) {
    var table = th.closest("table");
    var body = table.tBodies[0];
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var ascending = th.getAttribute("data-order") !== "asc";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortKey(a.cells[index]), y = sortKey(b.cells[index]);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? order : -order;
    });
    Array.prototype.forEach.call(table.querySelectorAll("th"), function (other) {
      other.removeAttribute("data-order");
    });
    th.setAttribute("data-order", ascending ? "asc" : "desc");
    rows.forEach(function (row) { body.appendChild(row); });
  }

  buttons.forEach(function (button) {
    button.addEventListener("click", function () { filter(button.getAttribute("data-filter")); });
  });
  document.getElementById("expand").addEventListener("click", function () { setOpen(true); });
  document.getElementById("collapse").addEventListener("click", function () { setOpen(false); });
  Array.prototype.forEach.call(document.querySelectorAll("table.results th"), function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  if (location.hash) {
    var target = document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") { target.open = true; }
    if (target && target.tagName === "TR") {
      target.closest("details").open = true;
      target.scrollIntoView();
    }
  }
  filter("all");
  root.setAttribute("data-mlab-ready", "yes");
})();
