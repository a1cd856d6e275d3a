// A trial's model calls under its steps, folded; the search over what the page holds;
// and the keys that move between steps (j, k) and trials ([, ]). Every text of a call is
// agent or model text: it is set through el() (textContent) only, never as HTML.
"use strict";

const CALL_NOTE = "Texts longer than 20,000 characters are clipped to their head and tail.";

function callHead(call) {
  const parts = [`#${call.call} ${call.role} ${call.model}`, `${count(call.tokens_in)} in / ${count(call.tokens_out)} out`,
    money(call.cost), `${num(call.seconds, 2)} s`];
  if (call.cached) parts.push("cached");
  if (call.error) parts.push("failed");
  return parts.join(" · ");
}

function messageBlock(message) {
  const calls = message.tool_calls.map((c) => `${c.name}(${c.arguments})`).join("\n");
  return el("div", { class: "message" }, el("div", { class: "msg-role" }, message.role || "message"),
    message.content ? el("pre", { class: "msg" }, message.content) : null,
    calls ? el("pre", { class: "msg tool-calls" }, calls) : null);
}

function callBlock(call, where, open) {
  const whole = el("button", { class: "whole-call", onclick: async () => {
    whole.disabled = true;
    block.replaceWith(callBlock(await api("call", { ...where, n: call.index }), where, true));
  } }, "Show the whole call");
  const block = el("details", { class: `call${call.error ? " failed" : ""}`, "data-call": call.index, open: open || null },
    el("summary", {}, callHead(call)),
    el("div", { class: "usage" }, `model ${call.answered_by || call.model}${call.via ? `, via ${call.via}` : ""}${call.tools.length ? `; tools: ${call.tools.join(", ")}` : ""}`),
    call.error ? el("pre", { class: "traceback call-error" }, call.error) : null,
    el("div", {}, `Prompt (${plural(call.messages.length, "message")})`), call.messages.map(messageBlock),
    el("div", {}, "Reply"),
    call.reply ? messageBlock({ role: "assistant", content: call.reply.text, tool_calls: call.reply.tool_calls }) : el("div", { class: "note" }, "no reply"),
    call.clipped ? el("p", { class: "note" }, CALL_NOTE, " ", whole) : null);
  return block;
}

// The calls of a page of steps, put under each step; a trial's calls past its last step
// (a call that failed and ended it) go in a block of their own at the end.
async function showCalls(where, list, page, modelCalls) {
  if (!modelCalls || (!page.steps.length && page.start)) return;
  const done = page.start + page.steps.length >= page.total;
  const query = { ...where, first: page.start === 0 ? 0 : page.steps[0].step };
  if (!done) query.last = page.steps[page.steps.length - 1].step;
  for (let start = 0; start !== null;) {
    const found = await api("calls", { ...query, start });
    for (const call of found.calls) callHolder(list, call.step).append(callBlock(call, where));
    start = found.next;
  }
}

function callHolder(list, step) {
  const owner = list.querySelector(`.step[data-step="${step}"]`) || list.querySelector(".step.after-steps")
    || list.appendChild(el("div", { class: "step after-steps", "data-step": "after" }, el("h3", {}, "Model calls after the last step")));
  return owner.querySelector(":scope > .calls") || owner.appendChild(el("div", { class: "calls" }, el("div", {}, "Model calls")));
}

function unmark(root) {
  for (const mark of root.querySelectorAll("mark")) mark.replaceWith(document.createTextNode(mark.textContent));
  root.normalize();
}

function mark(root, query) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const hits = [];
  for (let node = walker.nextNode(); node && hits.length < 2000; node = walker.nextNode()) {
    if (node.nodeValue.toLowerCase().includes(query)) hits.push(node);
  }
  for (const node of hits) {
    const [text, lower, parts] = [node.nodeValue, node.nodeValue.toLowerCase(), []];
    let at = 0;
    for (let found = lower.indexOf(query); found !== -1; found = lower.indexOf(query, at)) {
      parts.push(text.slice(at, found), el("mark", {}, text.slice(found, found + query.length)));
      at = found + query.length;
    }
    node.replaceWith(...parts, text.slice(at));
  }
}

// Steps and calls the page has loaded, filtered to those holding the words; a step shows
// if it or one of its calls does, a call only if it does itself.
function searchSteps(list, query, said) {
  unmark(list);
  const q = query.trim().toLowerCase();
  const steps = [...list.querySelectorAll(".step")];
  let shown = 0;
  for (const step of steps) {
    const calls = [...step.querySelectorAll(".call")];
    for (const call of calls) call.hidden = Boolean(q) && !call.textContent.toLowerCase().includes(q);
    step.hidden = Boolean(q) && !step.textContent.toLowerCase().includes(q);
    if (!step.hidden && !step.classList.contains("after-steps")) shown += 1;
  }
  if (q) mark(list, q);
  const loaded = steps.filter((s) => !s.classList.contains("after-steps")).length;
  said.textContent = q ? `${shown} of ${plural(loaded, "loaded step")} match` : "";
}

function trialSearch(list) {
  const said = el("span", { class: "note", id: "search-said" });
  let timer = null;
  const box = el("input", { type: "search", id: "trial-search", placeholder: "Search steps and model calls",
    "aria-label": "Search steps and model calls", oninput: () => {
      clearTimeout(timer);
      timer = setTimeout(() => searchSteps(list, box.value, said), 150);
    } });
  return el("div", { class: "filters" }, box, said, el("span", { class: "note" }, "keys: j/k step, [/] trial"));
}

let trialNav = null;

function trialKeys(run, i, trials) {
  trialNav = { run, i: Number(i), trials };
}

function moveStep(by) {
  const steps = [...document.querySelectorAll("#steps .step")].filter((s) => !s.hidden);
  if (!steps.length) return;
  const at = steps.findIndex((s) => s.classList.contains("current"));
  const next = at === -1 ? (by > 0 ? 0 : steps.length - 1) : at + by;
  if (next >= steps.length) {
    const more = document.getElementById("more-steps");
    if (more && !more.hidden) more.click();
    return;
  }
  if (next < 0) return;
  if (at !== -1) steps[at].classList.remove("current");
  steps[next].classList.add("current");
  steps[next].setAttribute("tabindex", "-1");
  steps[next].focus({ preventScroll: true });
  steps[next].scrollIntoView({ block: "start" });
}

window.addEventListener("keydown", (event) => {
  if (!trialNav || !location.hash.startsWith("#/trial?") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  if (event.key === "j" || event.key === "k") moveStep(event.key === "j" ? 1 : -1);
  else if ((event.key === "[" && trialNav.i > 0) || (event.key === "]" && trialNav.i + 1 < trialNav.trials)) {
    location.hash = hashOf("trial", { run: trialNav.run, i: trialNav.i + (event.key === "]" ? 1 : -1) });
  }
});
