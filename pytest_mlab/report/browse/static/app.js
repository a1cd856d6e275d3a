// The run browser's page. Every text from a record is agent text: it is set with
// textContent (through el() and text nodes) only, never as HTML.
"use strict";

const app = document.getElementById("app");
const STEP_PAGE = 20;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, params) {
  const response = await fetch(`/api/${path}?${new URLSearchParams(params).toString()}`);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

const has = (x) => x !== null && x !== undefined;
const pct = (x) => (has(x) ? `${(x * 100).toFixed(0)}%` : "-");
const signed = (x) => (has(x) ? `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%` : "-");
const money = (x) => (has(x) ? `$${x.toFixed(4)}` : "-");
const num = (x, d = 1) => (has(x) ? Number(x).toFixed(d) : "-");
const general = (x) => (has(x) ? String(Number(x.toPrecision(6))) : "-");
const interval = (r) => `[${pct(r[0])}, ${pct(r[1])}]`;
const unreproduced = (f) => (f.unreproduced ? ` (${f.unreproduced} unreproduced)` : "");
// Where trials errored, the rate again with each error a failed trial: rates over the
// trials that ran alone flatter a run whose infrastructure failed.
const withErrors = (f) => (f.errors ? ` · ${f.passed}/${f.ran + f.errors} with ${f.errors} error${f.errors === 1 ? "" : "s"}` : "");
const success = (f) => `${f.passed}/${f.ran} ${interval(f.interval)}${unreproduced(f)}${withErrors(f)}`;
const outcomeClass = (o) => (o === "error" ? "error-outcome" : o);
const link = (hash, text, attrs) => el("a", { href: hash, ...(attrs || {}) }, text);
const hashOf = (view, params) => `#/${view}?${new URLSearchParams(params).toString()}`;

function table(headers, rows, attrs) {
  const body = rows instanceof Node ? rows : el("tbody", {}, rows);
  return el("div", { class: "scroll" }, el("table", attrs || {}, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))), body));
}

function td(content, cls) { return el("td", cls ? { class: cls } : {}, content); }

function show(...children) {
  app.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== ""));
}

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
  const words = [run.run_id, run.folder, ...run.agents, ...run.models, ...run.tasks].join(" ").toLowerCase();
  if (search && !words.includes(search)) return false;
  return wanted.every((w) => !w) || run.facets.some((facet) => wanted.every((w, column) => !w || facet[column] === w));
}

function runRow(run, refresh) {
  if (run.unreadable) {
    return el("tr", { class: "unreadable", "data-key": run.key }, td(""), td(run.folder),
      el("td", { colspan: 8 }, `unreadable: ${run.unreadable}`));
  }
  const box = el("input", { type: "checkbox", class: "pick", "data-key": run.key,
    checked: selected.has(run.key) ? "checked" : null,
    onchange: (e) => { e.target.checked ? selected.add(run.key) : selected.delete(run.key); refresh(); } });
  return el("tr", { "data-key": run.key }, td(box), td(link(hashOf("run", { run: run.key }), run.run_id)),
    td(run.started.replace("T", " ").slice(0, 19)), td(run.agents.join(", ")), td(run.models.join(", ") || "-"),
    td(`${run.tasks.length}: ${run.tasks.slice(0, 6).join(", ")}${run.tasks.length > 6 ? ", …" : ""}`),
    td(success(run), "num success"),
    td(money(run.cost), "num"), td(run.complete ? "complete" : "incomplete"), containmentCell(run.containment));
}

function containmentCell(found) {
  return el("td", { class: "containment" }, found.map((c) => el("span", { class: c.weak ? "weak" : null, title: c.text }, c.weak ? `${c.short} (weak)` : c.short)));
}

function containmentNote(found) {
  return el("p", { class: "note", id: "containment" }, "containment: ", found.map((c) => el("span", { class: c.weak ? "weak" : null }, c.text, " ")));
}

async function runsView() {
  const data = await api("runs", {});
  const body = el("tbody", {});
  const count = el("span", { class: "note", id: "shown" });
  // The oldest run first: the others are tested against it, as the gate tests a run against its baseline.
  const started = new Map(data.runs.map((r) => [r.key, r.started || ""]));
  const keys = () => [...selected].filter((k) => started.has(k)).sort((a, b) => started.get(a).localeCompare(started.get(b)));
  const compare = el("button", { id: "compare", onclick: () => { location.hash = hashOf("compare", { runs: keys().join(",") }); } });
  const { bar, search, selects } = filterBar(data.runs, () => render());
  function render() {
    const wanted = selects.map((s) => s.value);
    const shown = data.runs.filter((r) => runMatches(r, search.value.trim().toLowerCase(), wanted));
    body.replaceChildren(...shown.map((r) => runRow(r, render)));
    count.textContent = `${shown.length} of ${data.runs.length} runs`;
    compare.textContent = `Compare selected (${keys().length})`;
    compare.disabled = keys().length < 2;
  }
  const headers = ["", "run", "started", "agents", "models", "tasks", "success k/n [95% interval]", "cost", "complete", "containment"];
  show(el("h1", {}, "Runs"), el("p", { class: "note" }, `in ${data.roots.join(", ")}`),
    bar, el("p", {}, count, " ", compare), table(headers, body, { id: "runs" }));
  render();
}

function attemptsCells(group, k) {
  const a = group.attempts.find((x) => x.k === k) || {};
  return [td(pct(a.pass_at_k), "num"), td(pct(a.pass_hat_k), "num"), td(signed(a.best_of_k), "num")];
}

function trialRows(data, key) {
  return data.trials.map((t) => el("tr", {}, td(link(hashOf("trial", { run: key, i: t.index }), `#${t.index}`)),
    td(t.task), td(t.agent), td(t.llm || "-"), td(t.trial, "num"),
    td(t.unreproduced ? `${t.outcome}, unreproduced` : t.outcome, outcomeClass(t.outcome)),
    td(general(t.score), "num"), td(signed(t.improvement), "num"), td(t.steps, "num"), td(money(t.cost), "num"),
    td(t.error_class || "")));
}

async function runView(params) {
  const key = params.get("run");
  const data = await api("run", { run: key });
  const k = el("input", { type: "number", id: "k", min: 1, max: 10, value: 2, onchange: () => drawGroups() });
  const groups = el("div", {});
  function drawGroups() {
    const kk = Number(k.value);
    groups.replaceChildren(table(["task", "agent", "llm", "success k/n [95%]", "mean improvement", "mean normalised",
      `pass@${kk}`, `pass^${kk}`, `best-of-${kk} improvement`, "mean cost", "mean steps"],
    data.groups.map((g) => el("tr", {}, td(g.task), td(g.agent), td(g.llm || "-"), td(success(g), "num"),
      td(signed(g.mean_improvement), "num"), td(num(g.mean_normalised, 2), "num"), attemptsCells(g, kk),
      td(money(g.mean_cost), "num"), td(num(g.mean_steps), "num"))), { id: "groups" }));
  }
  const body = el("tbody", {}, trialRows(data, key));
  const more = el("button", { id: "more-trials", onclick: async () => {
    const next = await api("run", { run: key, offset: data.offset + data.page * ++pages });
    body.append(...trialRows(next, key));
    more.hidden = next.offset + next.trials.length >= next.total;
  } }, "More trials");
  let pages = 0;
  more.hidden = data.trials.length >= data.total;
  drawGroups();
  show(el("h1", {}, `Run ${data.info.run_id}`),
    el("p", { class: "note" }, `${data.info.started} – ${data.info.finished}; ${data.total} trials; ${data.info.complete ? "complete" : "incomplete"}`),
    containmentNote(data.containment),
    el("h2", {}, "Per task, agent and LLM"), el("p", {}, "k for pass@k, pass^k, best-of-k: ", k), groups,
    el("h2", {}, "Per agent over the suite"), table(["agent", "llm", "mean normalised score", "tasks in it", "tasks without one"],
      data.agents.map((a) => el("tr", {}, td(a.agent), td(a.llm || "-"), td(num(a.mean_normalised, 3), "num"), td(a.tasks, "num"),
        td(a.tasks_without.join(", ") || "-"))), { id: "agents" }),
    el("h2", {}, "Trials"), table(["trial", "task", "agent", "llm", "#", "outcome", "score", "improvement", "steps", "cost", "error class"],
      body, { id: "trials" }), more);
}

function testLine(name, t) {
  if (t && t.judged_apart) return el("div", { class: "test" }, `${name} not compared: judged by other rules (${t.judged_apart})`);
  if (!t || !has(t.p)) return null;
  const delta = name === "success" ? `${t.delta >= 0 ? "+" : ""}${(t.delta * 100).toFixed(0)} pp` : signed(t.delta);
  return el("div", { class: "test" }, `${name} ${delta}, p=${t.p.toPrecision(2)} (${t.test}${t.paired ? ", paired" : ""})`);
}

function passLine(a) {
  return `pass@${a.k} ${pct(a.pass_at_k)}, pass^${a.k} ${pct(a.pass_hat_k)}, best-of-${a.k} ${signed(a.best_of_k)}`;
}

function compareCell(cell, series) {
  if (!cell) return td("not run", "note");
  return el("td", { class: "cell" }, el("div", { class: "success" }, `success ${success(cell)}`),
    el("div", {}, `improvement ${signed(cell.mean_improvement)}`), el("div", {}, `cost ${money(cell.mean_cost)}`),
    el("div", {}, `steps ${num(cell.mean_steps)}`),
    has(cell.mean_normalised) ? el("div", { class: "normalised" }, `normalised ${num(cell.mean_normalised, 2)}`) : null,
    cell.attempts.length > 1 ? el("div", { class: "attempts" }, passLine(cell.attempts[cell.attempts.length - 1])) : null,
    testLine("success", cell.tests && cell.tests.success),
    testLine("improvement", cell.tests && cell.tests.improvement),
    el("div", { class: "trials" }, cell.trial_list.map((t) => link(hashOf("trial", { run: series.run, i: t.index }),
      `t${t.trial} ${t.success ? "✓" : t.outcome === "error" ? "!" : "✗"}`, { class: outcomeClass(t.outcome) }))));
}

async function compareView(params) {
  const data = await api("compare", { runs: params.get("runs") });
  const headers = ["task", ...data.series.map((s, i) => `${i ? "" : "(first) "}${s.run_id} · ${s.agent}${s.llm ? ` · ${s.llm}` : ""} · ${s.containment.map((c) => c.weak ? `${c.short} (weak)` : c.short).join(", ")}`), ""];
  const rows = data.rows.map((row) => {
    const both = row.cells.map((c, i) => c && { run: data.series[i].run, i: c.trial_list[0].index }).filter(Boolean);
    const pair = both.length >= 2 ? link(hashOf("pair", { run: both[0].run, i: both[0].i, run2: both[1].run, i2: both[1].i }), "first trials side by side", { class: "pair-link" }) : "";
    return el("tr", { "data-task": row.task }, td(row.task), row.cells.map((c, i) => compareCell(c, data.series[i])), td(pair));
  });
  show(el("h1", {}, "Runs side by side"),
    el("p", { class: "note" }, "p: one-sided exact test that the column did worse than the first, the oldest run (the gate's tests; paired where the trial numbers match)."),
    data.containment_apart.map((line) => el("p", { class: "weak containment-apart" }, line)),
    table(headers, rows, { id: "comparison" }));
}

function scoreChart(record, thresholdScore) {
  const points = record.step_scores.filter((s) => has(s.score));
  if (!points.length) return null;
  const NS = "http://www.w3.org/2000/svg";
  const svg = (tag, attrs, text) => {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text) n.textContent = text;
    return n;
  };
  const [w, h, pad] = [640, 220, 40];
  const ys = points.map((p) => p.score).concat([thresholdScore, record.baseline_mean].filter(has));
  const [lo, hi, last] = [Math.min(...ys), Math.max(...ys), Math.max(...points.map((p) => p.step), 1)];
  const span = hi - lo || 1;
  const x = (s) => pad + (s / last) * (w - 2 * pad);
  const y = (v) => h - pad - ((v - lo) / span) * (h - 2 * pad);
  const chart = svg("svg", { class: "chart", id: "score-chart", width: w, height: h, viewBox: `0 0 ${w} ${h}` });
  chart.append(svg("text", { x: pad, y: 14 }, `${record.metric} over steps (${record.direction} is better)`));
  if (has(record.baseline_mean)) chart.append(svg("line", { class: "baseline", x1: pad, x2: w - pad, y1: y(record.baseline_mean), y2: y(record.baseline_mean) }));
  if (has(thresholdScore)) chart.append(svg("line", { class: "threshold", id: "threshold-line", x1: pad, x2: w - pad, y1: y(thresholdScore), y2: y(thresholdScore) }),
    svg("text", { x: w - pad - 150, y: y(thresholdScore) - 4 }, `threshold ${general(thresholdScore)}`));
  chart.append(svg("polyline", { class: "line", points: points.map((p) => `${x(p.step)},${y(p.score)}`).join(" ") }));
  for (const p of points) chart.append(svg("circle", { class: "point", cx: x(p.step), cy: y(p.score), r: 3 }));
  chart.append(svg("text", { x: pad, y: h - 8 }, "step 0"), svg("text", { x: w - pad - 40, y: h - 8 }, `step ${last}`));
  chart.append(svg("text", { x: 2, y: y(hi) + 4 }, general(hi)), svg("text", { x: 2, y: y(lo) }, general(lo)));
  return chart;
}

// Steps a page at a time; a second click while a page loads is ignored.
function pager(id, label, fetchPage) {
  const state = { next: 0, busy: false };
  const shown = el("span", { class: "note", id: `${id}-shown` });
  const more = el("button", { id: `more-${id}`, onclick: () => load() }, "More steps");
  async function load() {
    if (state.busy) return;
    state.busy = true;
    const [count, total] = await fetchPage(state.next).finally(() => { state.busy = false; });
    state.next += count;
    shown.textContent = label(state.next, total);
    more.hidden = state.next >= total || !count;
  }
  return { shown, more, load };
}

function diffBlock(change) {
  const pre = el("pre", { class: "diff" }, change.diff.replace(/\n$/, "").split("\n").map((line) => el("span", {
    class: line.startsWith("+++") || line.startsWith("---") ? "file" : { "+": "add", "-": "del", "@": "hunk" }[line[0]] || "" }, `${line}\n`)));
  return el("div", {}, el("div", {}, `${change.kind} ${change.path}${change.note ? ` (${change.note})` : ""}`), change.diff ? pre : null);
}

function stepBlock(step) {
  const usage = step.llm_calls || step.tokens_in || step.cost
    ? `${step.llm_calls} LLM calls, ${step.tokens_in} tokens in, ${step.tokens_out} out, ${money(step.cost)}` : "no LLM use";
  return el("div", { class: "step", "data-step": step.step },
    el("h3", {}, `Step ${step.step}: ${step.action}`),
    el("div", { class: "usage" }, `${num(step.seconds)} s${has(step.exit_code) ? `, exit ${step.exit_code}` : ""}; ${usage}`),
    has(step.thought) ? [el("div", {}, "Thought"), el("pre", { class: "thought" }, step.thought)] : null,
    Object.keys(step.args).length ? [el("div", {}, "Action input"), el("pre", { class: "args" }, Object.entries(step.args).map(([k, v]) => `${k}: ${v}`).join("\n"))] : null,
    el("div", {}, "Observation"), el("pre", { class: "observation" }, step.observation),
    step.changes.length ? [el("div", {}, "Files changed"), step.changes.map(diffBlock)] : null,
    step.changes_note ? el("div", { class: "note" }, step.changes_note) : null);
}

function facts(data) {
  const r = data.record;
  const rows = [["outcome", r.outcome], ["message", r.message], ["score", `${general(r.score)} (${r.metric}, ${r.direction} is better)`],
    ["baseline", `${general(r.baseline_mean)} ± ${general(r.baseline_sd)} (n=${r.baseline_n ?? "-"})`],
    ["threshold", `${signed(r.threshold)} → score ${general(data.threshold_score)}`], ["improvement", signed(r.improvement)],
    ["normalised score", num(data.normalised, 3)],
    ["reproduced score", r.reproduced_score == null && !r.unreproduced ? "-" : `${general(r.reproduced_score)}${r.unreproduced ? " (unreproduced)" : ""}`],
    ["ended by", r.ended_by || "-"], ["error class", r.error_class || "-"],
    ["steps", r.steps], ["seconds", num(r.seconds)], ["tokens", `${r.tokens_in} in, ${r.tokens_out} out`], ["cost", money(r.cost)],
    ["containment", data.containment],
    ["rule flags", r.flags.length ? r.flags.map((f) => `${f.check} at ${f.step === null ? "the trial" : `step ${f.step}`}: ${f.sentence}`).join("; ") : "none"]];
  return el("table", { class: "facts", id: "facts" }, el("tbody", {}, rows.map(([k, v]) => el("tr", { "data-fact": k }, td(k), td(String(v))))));
}

function callsTable(data) {
  if (!data.llm_calls.length) return null;
  return [el("h2", {}, `LLM calls (${data.llm_calls_total})`), table(["call", "step", "model", "tokens in", "tokens out", "cost"],
    data.llm_calls.map((c) => el("tr", {}, td(c.call), td(c.step), td(c.model), td(c.tokens_in, "num"), td(c.tokens_out, "num"), td(money(c.cost), "num"))), { id: "calls" })];
}

async function trialView(params) {
  const [key, i] = [params.get("run"), params.get("i")];
  const data = await api("trial", { run: key, i });
  const r = data.record;
  const list = el("div", { id: "steps" });
  const { shown, more, load } = pager("steps", (n, total) => `showing ${n} of ${total} steps`, async (start) => {
    const page = await api("steps", { run: key, i, start, count: STEP_PAGE });
    list.append(...page.steps.map(stepBlock));
    return [page.steps.length, page.total];
  });
  const others = data.siblings.filter((s) => s.index !== data.index);
  const pick = el("select", { id: "pair-with" }, others.map((s) => el("option", { value: s.index }, `#${s.index} ${s.agent}${s.llm ? ` ${s.llm}` : ""} trial ${s.trial} (${s.outcome})`)));
  const pairButton = el("button", { id: "pair", onclick: () => { location.hash = hashOf("pair", { run: key, i, run2: key, i2: pick.value }); } }, "Side by side");
  show(el("h1", {}, `${r.task} · ${r.agent}${r.llm ? ` · ${r.llm}` : ""} · trial ${r.trial}`),
    el("p", {}, link(hashOf("run", { run: key }), `run ${data.run_id}`), " ", el("span", { class: outcomeClass(r.outcome) }, r.outcome)),
    facts(data), r.outcome === "error" ? [el("h2", {}, "The harness's error"), el("pre", { class: "traceback", id: "harness-error" }, `${r.error_class || "error"}: ${r.message}`)] : null,
    data.traceback ? [el("h2", {}, "Traceback"), el("pre", { class: "traceback", id: "traceback" }, data.traceback)] : null,
    scoreChart(r, data.threshold_score), callsTable(data),
    others.length ? el("p", {}, "Compare with another trial of this task: ", pick, " ", pairButton) : null,
    el("h2", {}, "Steps"), shown, list, more);
  await load();
}

async function pairView(params) {
  const sides = [{ run: params.get("run"), i: params.get("i") }, { run: params.get("run2"), i: params.get("i2") }];
  const details = await Promise.all(sides.map((s) => api("trial", s)));
  const grid = el("div", { class: "pair", id: "pair-steps" });
  // Both trials' steps from the same line on, in rows by step number.
  const { shown, more, load } = pager("pair", (n, total) => `steps 1–${n} of ${total}`, async (start) => {
    const pages = await Promise.all(sides.map((s) => api("steps", { ...s, start, count: STEP_PAGE })));
    const byStep = pages.map((p) => new Map(p.steps.map((s) => [s.step, s])));
    const numbers = [...new Set(pages.flatMap((p) => p.steps.map((s) => s.step)))].sort((a, b) => a - b);
    for (const n of numbers) for (const side of byStep) grid.append(side.has(n) ? stepBlock(side.get(n)) : el("div", { class: "missing" }, `no step ${n}`));
    return [Math.max(...pages.map((p) => p.steps.length)), Math.max(...pages.map((p) => p.total))];
  });
  const head = details.map((d) => el("div", { class: "side" }, el("h2", {}, link(hashOf("trial", { run: d.run, i: d.index }), `${d.record.agent} trial ${d.record.trial}`)),
    el("div", { class: outcomeClass(d.record.outcome) }, `${d.record.outcome}: ${d.record.message}`),
    el("div", {}, `score ${general(d.record.score)}, improvement ${signed(d.record.improvement)}, ${d.record.steps} steps, ${money(d.record.cost)}`)));
  show(el("h1", {}, `${details[0].record.task}: two trials side by side`), el("div", { class: "pair", id: "pair-head" }, head), shown, grid, more);
  await load();
}

const VIEWS = { "": runsView, run: runView, compare: compareView, trial: trialView, pair: pairView };

async function route() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  const view = VIEWS[path] || runsView;
  document.getElementById("where").textContent = path || "runs";
  app.removeAttribute("data-ready");
  app.replaceChildren(el("p", { class: "note" }, "Loading…"));
  try {
    await view(new URLSearchParams(query || ""));
    app.setAttribute("data-ready", path || "runs");
  } catch (error) {
    show(el("p", { class: "error", id: "error" }, String(error.message || error)));
  }
}

window.addEventListener("hashchange", route);
route();
