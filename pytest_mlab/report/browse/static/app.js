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
  if (window.MLAB_EXPORT) return exported(path, params);  // export.js: the answers as files
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
// Steps and tokens as the terminal writes them (report/format.py's count).
const count = (x) => (has(x) ? (x >= 100 || x === Math.floor(x) ? Math.round(x).toLocaleString("en-US") : x.toFixed(1)) : "-");
const general = (x) => (has(x) ? String(Number(x.toPrecision(6))) : "-");
const interval = (r) => `[${pct(r[0])}, ${pct(r[1])}]`;
const unreproduced = (f) => (f.unreproduced ? ` (${f.unreproduced} unreproduced)` : "");
const plural = (n, word, many) => `${n} ${n === 1 ? word : many || `${word}s`}`;
// Where trials errored, the errors beside the rate and the rate again with each error a
// failed trial (the terminal's "success w/ errors"): rates over the trials that ran alone
// flatter a run whose infrastructure failed. No interval where no trial ran.
const withErrors = (f) => (f.errors ? ` +${plural(f.errors, "error")} (${f.passed}/${f.ran + f.errors} w/ errors)` : "");
const success = (f) => `${f.passed}/${f.ran}${f.interval ? ` ${interval(f.interval)}` : ""}${unreproduced(f)}${withErrors(f)}`;
function duration(seconds) {
  if (!has(seconds)) return "-";
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(Math.round(seconds) / 60);
  const secs = Math.round(seconds) % 60;
  return minutes < 60 ? `${minutes}m${String(secs).padStart(2, "0")}s` : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}
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

function containmentNote(found) {
  const said = found.length ? found.map((c) => el("span", { class: c.weak ? "weak" : null }, c.text, " ")) : "not known until a trial has its result";
  return el("p", { class: "note", id: "containment" }, "containment: ", said);
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
  if (!data.llm_calls.length || data.model_calls) return null; // each call is shown under its step
  return [el("h2", {}, `LLM calls (${data.llm_calls_total})`), table(["call", "step", "model", "tokens in", "tokens out", "cost"],
    data.llm_calls.map((c) => el("tr", {}, td(c.call), td(c.step), td(c.model), td(c.tokens_in, "num"), td(c.tokens_out, "num"), td(money(c.cost), "num"))), { id: "calls" })];
}

async function trialView(params) {
  const [key, i] = [params.get("run"), params.get("i")];
  const data = await api("trial", { run: key, i });
  const r = data.record;
  const list = el("div", { id: "steps" });
  const { shown, more, load } = pager("steps", (n, total) => `showing ${n} of ${plural(total, "step")}`, async (start) => {
    const page = await api("steps", { run: key, i, start, count: STEP_PAGE });
    list.append(...page.steps.map(stepBlock));
    if (page.cut) list.append(el("p", { class: "note", id: "steps-cut" }, page.cut));
    await showCalls({ run: key, i }, list, page, data.model_calls);
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
    el("h2", {}, "Steps"), trialSearch(list), shown, list, more);
  trialKeys(key, i, data.trials);
  await load();
}

async function pairView(params) {
  const sides = [{ run: params.get("run"), i: params.get("i") }, { run: params.get("run2"), i: params.get("i2") }];
  const details = await Promise.all(sides.map((s) => api("trial", s)));
  const grid = el("div", { class: "pair", id: "pair-steps" });
  // Both trials' steps from the same line on, in rows by step number.
  const { shown, more, load } = pager("pair", (n, total) => `steps 1–${n} of ${plural(total, "step")}`, async (start) => {
    const pages = await Promise.all(sides.map((s) => api("steps", { ...s, start, count: STEP_PAGE })));
    const byStep = pages.map((p) => new Map(p.steps.map((s) => [s.step, s])));
    const numbers = [...new Set(pages.flatMap((p) => p.steps.map((s) => s.step)))].sort((a, b) => a - b);
    for (const n of numbers) for (const side of byStep) grid.append(side.has(n) ? stepBlock(side.get(n)) : el("div", { class: "missing" }, `no step ${n}`));
    return [Math.max(...pages.map((p) => p.steps.length)), Math.max(...pages.map((p) => p.total))];
  });
  const head = details.map((d) => el("div", { class: "side" }, el("h2", {}, link(hashOf("trial", { run: d.run, i: d.index }), `${d.record.agent} trial ${d.record.trial}`)),
    el("div", { class: outcomeClass(d.record.outcome) }, `${d.record.outcome}: ${d.record.message}`),
    el("div", {}, `score ${general(d.record.score)}, improvement ${signed(d.record.improvement)}, ${plural(d.record.steps, "step")}, ${money(d.record.cost)}`)));
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
