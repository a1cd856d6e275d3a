// Runs side by side: a column per run, a row per task x agent x llm, each run's group tested
// against the reference run's same group. Loaded before app.js, whose helpers it calls.
"use strict";

// The change as the terminal's comparison table writes it (its own text, from the server).
function testLine(name, t) {
  if (t && t.judged_apart) return el("div", { class: "test" }, `${name} not compared: judged by other rules (${t.judged_apart})`);
  if (!t || !has(t.p)) return null;
  return el("div", { class: "test" }, `${name} ${t.delta_text}, p=${t.p_text} (${t.test}${t.paired ? ", paired" : ""})`);
}

function passLine(cell) {
  const a = cell.attempts.find((x) => x.k === cell.k);
  return a ? `pass@${a.k} ${pct(a.pass_at_k)}, pass^${a.k} ${pct(a.pass_hat_k)}, best-of-${a.k} ${signed(a.best_of_k)}` : null;
}

function trialLinks(cell, column) {
  return el("div", { class: "trials" }, cell.trial_list.map((t) => link(hashOf("trial", { run: column.run, i: t.index }),
    `t${t.trial} ${t.success ? "✓" : t.outcome === "error" ? "!" : "✗"}`,
    { class: outcomeClass(t.outcome), title: `${t.outcome}${t.ended_by ? `, ended by ${t.ended_by}` : ""}` })));
}

// Against the reference: its trial of the same number where there is one, else its first.
function pairLink(cell, column, refCell, refColumn) {
  const mine = cell.trial_list[0];
  const theirs = refCell.trial_list.find((t) => t.trial === mine.trial) || refCell.trial_list[0];
  return link(hashOf("pair", { run: refColumn.run, i: theirs.index, run2: column.run, i2: mine.index }),
    `t${theirs.trial} and t${mine.trial} side by side`, { class: "pair-link" });
}

function versus(cell, column, refCell, refColumn) {
  if (!refCell) return el("div", { class: "note untested" }, `not tested: the reference run ${refColumn.run_id} did not run this task x agent x llm`);
  return [testLine("success", cell.tests && cell.tests.success), testLine("improvement", cell.tests && cell.tests.improvement),
    el("div", {}, pairLink(cell, column, refCell, refColumn))];
}

function compareCell(cell, column, isRef, refCell, refColumn) {
  if (!cell) return el("td", { class: "cell missing note" }, `not in ${column.run_id}: this run did not run this task x agent x llm`);
  return el("td", { class: isRef ? "cell reference" : "cell" }, el("div", { class: "success" }, `success ${success(cell)}`),
    el("div", { class: "errors" }, plural(cell.errors, "error")),
    el("div", {}, `improvement ${signed(cell.mean_improvement)}`), el("div", {}, `cost ${money(cell.mean_cost)}`),
    el("div", {}, `steps ${num(cell.mean_steps)}`),
    has(cell.mean_normalised) ? el("div", { class: "normalised" }, `normalised ${num(cell.mean_normalised, 2)}`) : null,
    cell.attempts.length > 1 ? el("div", { class: "attempts" }, passLine(cell)) : null,
    isRef ? el("div", { class: "note" }, "the reference") : versus(cell, column, refCell, refColumn),
    trialLinks(cell, column));
}

function columnHead(column, isRef) {
  const contained = column.containment.map((c) => (c.weak ? `${c.short} (weak)` : c.short)).join(", ");
  return `${isRef ? "(reference) " : ""}${column.run_id}${column.saved ? ` · saved ${column.saved}` : ""} · ${column.started.replace("T", " ").slice(0, 16)} · ${contained}`;
}

async function compareView(params) {
  const runs = params.get("runs");
  const data = await api("compare", { runs, ...(params.get("ref") ? { ref: params.get("ref") } : {}) });
  const ref = data.reference;
  const pick = el("select", { id: "reference", onchange: () => { location.hash = hashOf("compare", { runs, ref: pick.value }); } },
    data.columns.map((c, i) => el("option", { value: c.run, selected: i === ref ? "selected" : null }, c.run_id)));
  const headers = ["task · agent · llm", ...data.columns.map((c, i) => columnHead(c, i === ref))];
  const rows = data.rows.map((row) => el("tr", { "data-task": row.task, "data-agent": row.agent },
    td(`${row.task} · ${row.agent}${row.llm ? ` · ${row.llm}` : ""}`, "group"),
    row.cells.map((c, i) => {
      const cell = compareCell(c, data.columns[i], i === ref, row.cells[ref], data.columns[ref]);
      cell.setAttribute("data-head", headers[i + 1]);  // its run, where a phone shows no header row
      return cell;
    })));
  show(el("h1", {}, "Runs side by side"),
    el("p", {}, "Each run's task x agent x llm is tested against the same one in the reference run: ", pick),
    el("p", { class: "note" }, "p: one-sided exact test that the run did worse than the reference (the gate's tests; paired where the trial numbers match). "
      + "Changes read as in the terminal's comparison: success in points of the rate (-62% is 62 points lower), improvement in points of improvement."),
    data.containment_apart.map((line) => el("p", { class: "weak containment-apart" }, line)),
    table(headers, rows, { id: "comparison" }));
}
