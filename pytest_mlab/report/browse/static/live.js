// A run in progress: its trials' latest steps, asked for every 2 s while its page shows.
// Each ask carries the last answer's token, so an unchanged run answers with the token
// alone. When the run finishes the page is drawn again from its final results, and the
// asking stops; so it does when the run's session is found gone, its trials left in view
// at their last steps. Loaded before app.js, whose helpers it calls; record text is set as text.
"use strict";

const LIVE_POLL_MS = 2000;
let liveTimer = null;

function liveElapsed(t, data, received) {
  if (!has(t.started)) return null;
  if (t.done || data.state === "stopped") return t.elapsed;
  return data.now - t.started + (Date.now() / 1000 - received);
}

function liveNote(data) {
  if (data.state === "stopped") {
    return el("p", { class: "stopped", id: "live-note" }, `stopped: ${plural(data.running, "trial")} cut off at the step shown, ${data.finished} finished; `
      + "its session ended before the run did (a run again with --mlab-resume finishes it)");
  }
  return el("p", { class: "running", id: "live-note" }, `running: ${plural(data.running, "trial")} under way, ${data.finished} finished; `
    + "steps appear as they land, and the tables below fill in when the run ends");
}

function liveTable(data, received) {
  const cut = data.state === "stopped" ? "stopped" : "running";
  const rows = data.trials.map((t) => el("tr", { "data-trial": t.trial, "data-step": t.step },
    td(t.trial), td(t.done ? t.outcome || "done" : cut, t.done ? outcomeClass(t.outcome) : cut),
    td(`${t.step} of ${t.max_steps}`, "num steps"), td(t.action, "action"), td(count(t.tokens), "num"),
    td(money(t.cost), "num"), td(duration(liveElapsed(t, data, received)), "num elapsed")));
  return [liveNote(data),
    table(["trial", "state", "steps so far", "last action", "tokens", "cost", "elapsed"], rows, { id: "live-trials" })];
}

// ``panel`` is emptied and left alone when the run is not live at the first answer.
function watchLive(key, panel) {
  if (window.MLAB_EXPORT) return null;  // an export is a still picture
  if (liveTimer) clearTimeout(liveTimer);
  let token = "";
  let data = null;
  let received = 0;
  let first = true;
  async function tick() {
    liveTimer = null;
    if (!panel.isConnected) return;  // the page moved on
    let answer;
    try {
      answer = await api("live", { run: key, since: token });
    } catch (error) {  // the server gone for a moment, say: ask again later
      panel.setAttribute("data-error", String(error.message || error));
      liveTimer = setTimeout(tick, LIVE_POLL_MS);
      return;
    }
    if (!panel.isConnected) return;
    token = answer.token;
    if (!answer.unchanged) [data, received] = [answer, Date.now() / 1000];
    if (!data.live) {
      // Drawn again from the run's records; a stopped run keeps its cut-off trials in view.
      if (!first) return route();
      panel.setAttribute("data-state", data.state === "stopped" ? "stopped" : "finished");
      if (data.state === "stopped") panel.replaceChildren(...liveTable(data, received));
      return;
    }
    first = false;
    panel.setAttribute("data-state", "live");
    panel.setAttribute("data-token", token);
    panel.replaceChildren(...liveTable(data, received));
    liveTimer = setTimeout(tick, LIVE_POLL_MS);
  }
  return tick();
}
