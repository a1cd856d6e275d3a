// The run browser's tables: the runs, one run's groups and trials, runs side by side.
// Loaded before app.js, whose helpers (el, td, table, success, ...) these call. Every text
// from a record is set as text (el() and text nodes), never as HTML.
"use strict";

const selected = new Set();

function facetOptions(runs, column) {
  return [...new Set(runs.flatMap((r) => (r.facets || []).map((f) => f[column])).filter(Boolean))].sort();
}

function filterBar(runs, onChange) {
  const names = ["task", "agent", "model", "outcome", "error class"];
  const selects = names.map((name, column) => el("select", { id: `f-${name.replace(" ", "-")}`, onchange: onChange },
    el("option", { value: "" }, `any ${name}`), facetOptions(runs, column).map((v) => el("option", { value: v }, v))));
  const search = el("input", { type: "search", id: "search", placeholder: "search runs, tasks, agents", oninput: onChange });
  return { bar: el("div", { class: "filters" }, search, selects), search, selects };
}

function runMatches(run, search, wanted) {
  if (run.unreadable) return !wanted.some((w) => w) && (!search || run.folder.toLowerCase().includes(search));
  const words = [run.run_id, run.folder, run.saved || "", ...run.agents, ...run.models, ...run.tasks].join(" ").toLowerCase();
  if (search && !words.includes(search)) return false;
  return wanted.every((w) => !w) || run.facets.some((facet) => wanted.every((w, column) => !w || facet[column] === w));
}

// One line per agent x llm: a run's agents are never pooled into one rate.
function groupLines(run) {
  if (!run.groups.length) return el("div", { class: "group-rate" }, "no trials");
  return run.groups.map((g) => el("div", { class: "group-rate" }, `${g.agent}${g.llm ? `/${g.llm}` : ""}: ${success(g)}`));
}

function runRow(run, refresh) {
  if (run.unreadable) {
    return el("tr", { class: "unreadable", "data-key": run.key }, td(""), td(run.folder),
      el("td", { colspan: 9 }, `unreadable: ${run.unreadable}`));
  }
  const box = el("input", { type: "checkbox", class: "pick", "data-key": run.key,
    checked: selected.has(run.key) ? "checked" : null,
    onchange: (e) => { e.target.checked ? selected.add(run.key) : selected.delete(run.key); refresh(); } });
  const saved = run.saved ? `${run.saved}${run.gate_baseline ? " (the gate's baseline)" : ""}` : "-";
  // Success, errors and cost beside the run's name: on a phone they are the columns in view.
  return el("tr", { "data-key": run.key }, td(box), td(link(hashOf("run", { run: run.key }), run.run_id)),
    td(groupLines(run), "success"), td(run.errors, `num errors${run.errors ? " error-outcome" : ""}`),
    td(money(run.cost), "num cost"), td(run.started.replace("T", " ").slice(0, 19)), td(duration(run.seconds), "num duration"),
    td(`${plural(run.tasks.length, "task")}: ${run.tasks.slice(0, 6).join(", ")}${run.tasks.length > 6 ? ", …" : ""}`),
    td(saved, "saved"), td(runState(run), run.state), containmentCell(run.containment));
}

// Under way, stopped (its session gone before it finished), or finished with every trial or not.
function runState(run) {
  return run.state || (run.complete ? "complete" : "incomplete");
}

// The run's times and state in words; a run not finished has no end time to show.
function runSpan(data) {
  const started = data.info.started.replace("T", " ");
  if (data.state === "running") return `started ${started}, still running`;
  if (data.state === "stopped") return `started ${started}, stopped: its session ended before the run finished`;
  return `${started} – ${data.info.finished.replace("T", " ")}; ${data.info.complete ? "complete" : "incomplete"}`;
}

// Each cell named by its column, for a phone, where a run is a card with no header row.
function labelled(row, headers) {
  if (!row.classList.contains("unreadable")) [...row.cells].forEach((cell, i) => { if (headers[i]) cell.setAttribute("data-label", headers[i]); });
  return row;
}

function containmentCell(found) {
  return el("td", { class: "containment" }, found.map((c) => el("span", { class: c.weak ? "weak" : null, title: c.text }, c.weak ? `${c.short} (weak)` : c.short)));
}

async function runsView() {
  const data = await api("runs", {});
  const body = el("tbody", {});
  const count = el("span", { class: "note", id: "shown" });
  // In the order they were checked: the first is the reference the others are tested against.
  const keys = () => [...selected].filter((k) => data.runs.some((r) => r.key === k));
  const compare = el("button", { id: "compare", onclick: () => { location.hash = hashOf("compare", { runs: keys().join(",") }); } });
  const headers = ["", "run", "success per agent: k/n [95% interval]", "errors", "cost", "started", "duration", "tasks", "saved as", "state", "containment"];
  const { bar, search, selects } = filterBar(data.runs, () => render());
  function render() {
    const wanted = selects.map((s) => s.value);
    const shown = data.runs.filter((r) => runMatches(r, search.value.trim().toLowerCase(), wanted));
    body.replaceChildren(...shown.map((r) => labelled(runRow(r, render), headers)));
    count.textContent = `${shown.length} of ${plural(data.runs.length, "run")}`;
    compare.textContent = `Compare selected (${keys().length})`;
    compare.disabled = keys().length < 2;
  }
  show(el("h1", {}, "Runs"), el("p", { class: "note" }, `in ${data.roots.join(", ")}`),
    bar, el("p", {}, count, " ", compare), table(headers, body, { id: "runs" }));
  render();
}

// k as asked, but never more than the trials that ran; the cell says where it was cut.
function kOf(group, asked) {
  const n = group.ran;
  if (!n) return { k: null, text: "no trial ran" };
  if (!asked) return { k: n, text: `${n}` };
  return asked > n ? { k: n, text: `${n} (k=${asked} > ${plural(n, "trial")} that ran)`, clamped: true } : { k: asked, text: `${asked}` };
}

function groupRow(g, asked) {
  const { k, text, clamped } = kOf(g, asked);
  const a = g.attempts.find((x) => x.k === k) || {};
  return el("tr", {}, td(g.task), td(g.agent), td(g.llm || "-"), td(success(g), "num success"),
    td(g.errors, "num errors"), td(`${g.passed}/${g.ran + g.errors}`, "num"),
    td(signed(g.mean_improvement), "num"), td(num(g.mean_normalised, 2), "num"),
    td(text, clamped ? "num k clamped" : "num k"), td(pct(a.pass_at_k), "num"), td(pct(a.pass_hat_k), "num"),
    td(signed(a.best_of_k), "num"), td(pct(g.errors ? a.pass_at_k_with_errors : a.pass_at_k), "num"),
    td(money(g.mean_cost), "num"), td(count(g.mean_steps), "num"));
}

function trialRows(trials, key) {
  return trials.map((t) => el("tr", {}, td(link(hashOf("trial", { run: key, i: t.index }), `#${t.index}`)),
    td(t.task), td(t.agent), td(t.llm || "-"), td(t.trial, "num"),
    td(t.unreproduced ? `${t.outcome}, unreproduced` : t.outcome, outcomeClass(t.outcome)), td(t.ended_by || "-", "ended-by"),
    el("td", { class: "message", title: t.message_full }, t.message || "-"),
    td(general(t.score), "num"), td(signed(t.improvement), "num"), td(t.steps, "num"), td(money(t.cost), "num"),
    td(t.error_class || "")));
}

function trialFilter(id, name, values) {
  return el("select", { id }, el("option", { value: "" }, `any ${name}`), values.filter(Boolean).map((v) => el("option", { value: v }, v)));
}

function trialList(data, key) {
  const body = el("tbody", {});
  const shown = el("span", { class: "note", id: "trials-shown" });
  const outcome = trialFilter("f-trial-outcome", "outcome", data.outcomes);
  const endedBy = trialFilter("f-trial-ended-by", "ended by", data.ended_by);
  let next = 0;
  const more = el("button", { id: "more-trials", onclick: () => load(false) }, "More trials");
  async function load(fresh) {
    const filters = Object.fromEntries([["outcome", outcome.value], ["ended_by", endedBy.value]].filter(([, v]) => v));
    const page = fresh && next === 0 && !outcome.value && !endedBy.value ? data : await api("run", { run: key, offset: fresh ? 0 : next, ...filters });
    if (fresh) body.replaceChildren();
    body.append(...trialRows(page.trials, key));
    next = page.offset + page.trials.length;
    more.hidden = next >= page.total;
    shown.textContent = `${plural(page.total, "trial")} of ${page.all}${filters.outcome || filters.ended_by ? " (filtered)" : ""}`;
  }
  for (const select of [outcome, endedBy]) select.addEventListener("change", () => { next = 0; load(true); });
  load(true);
  return [el("div", { class: "filters" }, outcome, endedBy, shown),
    table(["trial", "task", "agent", "llm", "#", "outcome", "ended by", "message", "score", "improvement", "steps", "cost", "error class"],
      body, { id: "trials" }), more];
}

// The run's two charts: report.html's own SVG, loaded as images, so the record text in them
// is never read as this page's markup. In an export, the files export.py wrote beside.
function chartSource(key, name) {
  const params = { name, run: key };
  if (window.MLAB_EXPORT) return exportFile(exportKey("chart", params)).replace(/\.js$/, ".svg");
  return `/api/chart?${new URLSearchParams(params).toString()}`;
}

function runCharts(key) {
  const charts = { success: "Success rate per task and agent, with trials that errored marked",
    improvement: "Improvement over the baseline per task and agent, with trials that errored marked" };
  return el("div", { class: "charts", id: "charts" }, Object.entries(charts).map(([name, alt]) =>
    el("div", { class: "chart-box" }, el("img", { src: chartSource(key, name), alt, id: `chart-${name}` }))));
}

async function runView(params) {
  const key = params.get("run");
  const data = await api("run", { run: key });
  const k = el("input", { type: "number", id: "k", min: 1, placeholder: "n", onchange: () => drawGroups() });
  const groups = el("div", {});
  function drawGroups() {
    const asked = Math.floor(Number(k.value)) || null;
    groups.replaceChildren(table(["task", "agent", "llm", "success k/n [95%]", "errors", "success w/ errors", "mean improvement",
      "mean normalised", "k", "pass@k", "pass^k", "best-of-k improvement", "pass@k w/ errors", "mean cost", "mean steps"],
    data.groups.map((g) => groupRow(g, asked)), { id: "groups" }));
  }
  drawGroups();
  const live = el("div", { id: "live" });
  show(el("h1", {}, `Run ${data.info.run_id}`), live,
    el("p", { class: "note", id: "run-span" }, `${runSpan(data)}; ${plural(data.all, "trial")}`),
    containmentNote(data.containment),
    el("h2", {}, "Per task, agent and LLM"),
    el("p", {}, "k for pass@k, pass^k, best-of-k (empty: each group's n, the trials that ran, as the terminal and report.html have it): ", k), groups,
    el("h2", {}, "Charts"), data.all ? runCharts(key) : el("p", { class: "note", id: "charts" }, "No trial has a result yet: the charts draw those that have."),
    el("h2", {}, "Per agent over the suite"), table(["agent", "llm", "mean normalised score", "tasks in it", "tasks without one"],
      data.agents.map((a) => el("tr", {}, td(a.agent), td(a.llm || "-"), td(num(a.mean_normalised, 3), "num"), td(a.tasks, "num"),
        td(a.tasks_without.join(", ") || "-"))), { id: "agents" }),
    el("h2", {}, "Trials"), trialList(data, key));
  watchLive(key, live);
}
