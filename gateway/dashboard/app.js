// LoopGate ops dashboard: fetches /v1/stats and /v1/routes, draws with plotly.js (served by the
// gateway from the installed plotly package). No build step. Each chart <div> gets
// data-points="N" (data points drawn) and <body> gets data-ready="1" once everything rendered,
// which the headless-browser test reads.
"use strict";

const PATH_COLOURS = {
  cache: "#2e9e5b", rag: "#2f6fdb", loop: "#8a4fd6", fallback_rag: "#e08a1e",
  rag_degraded: "#d9534f", degraded: "#b02a2a", legacy: "#7b8494", shadow: "#9aa3b2",
};
const PLOT_CONFIG = { displayModeBar: false, responsive: true };
const BASE_LAYOUT = {
  margin: { l: 48, r: 12, t: 8, b: 40 }, height: 280, paper_bgcolor: "#fff", plot_bgcolor: "#fff",
  legend: { orientation: "h", y: -0.2 },
  font: { size: 12, family: 'system-ui, "Noto Sans CJK SC", "WenQuanYi Micro Hei", sans-serif' },
};
const $ = (id) => document.getElementById(id);
let apiKey = sessionStorage.getItem("loopgate-key") || "";
let timer = null;

class AuthNeeded extends Error {}

async function getJSON(url) {
  const headers = apiKey ? { Authorization: "Bearer " + apiKey } : {};
  const resp = await fetch(url, { headers, cache: "no-store" });
  if (resp.status === 401 || resp.status === 403) throw new AuthNeeded(resp.status + " — API key needed");
  if (!resp.ok) throw new Error(url + " → HTTP " + resp.status);
  return resp.json();
}

const pct = (x) => (x === null || x === undefined ? "–" : (100 * x).toFixed(1) + " %");
const ms = (x) => (x === null || x === undefined ? "–" : x < 10 ? x.toFixed(2) : x.toFixed(0));
const when = (ts) => new Date(ts * 1000).toLocaleTimeString();
const colour = (path) => PATH_COLOURS[path] || "#5b6475";

function draw(id, traces, layout, points) {
  const el = $(id);
  const extra = points > 0 ? {} : {
    annotations: [{ text: "no data yet", showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5,
                    font: { size: 15, color: "#8a93a3" } }],
    xaxis: { visible: false }, yaxis: { visible: false },
  };
  Plotly.react(el, traces, Object.assign({}, BASE_LAYOUT, layout, extra), PLOT_CONFIG);
  el.dataset.points = String(points);
}

function countNonZero(arrays) {
  return arrays.reduce((n, a) => n + a.filter((v) => v !== null && v !== 0).length, 0);
}

function renderKpis(t) {
  $("k-requests").textContent = t.requests;
  $("k-cache").textContent = pct(t.cache_hit_rate);
  $("k-escalation").textContent = pct(t.escalation_rate);
  $("k-fallback").textContent = pct(t.fallback_rate);
  $("k-timeouts").textContent = pct(t.timeout_rate);
  $("k-notfound").textContent = pct(t.not_found_rate);
}

function renderProcess(p) {
  if (!p) return;
  $("k-sufficiency").textContent = p.sufficiency ? p.sufficiency.p50.toFixed(2) : "–";
  $("k-rewritten").textContent = pct(p.rewrite_rate);
  $("k-parts").textContent = pct(p.in_parts_rate);
  $("k-conflicts").textContent = p.conflicts;
}

function renderMix(s) {
  const x = s.route_mix.t.map((v) => new Date(v * 1000));
  const series = s.route_mix.series;
  const traces = Object.keys(series).map((path) => ({
    type: "bar", name: path, x, y: series[path], marker: { color: colour(path) },
  }));
  draw("chart-mix", traces, { barmode: "stack", yaxis: { title: { text: "requests" } } },
       countNonZero(Object.values(series)));
}

function renderRates(s) {
  const x = s.rates.t.map((v) => new Date(v * 1000));
  const line = (name, y, color) => ({ type: "scatter", mode: "lines+markers", connectgaps: true,
                                      name, x, y, line: { color } });
  const traces = [line("escalation", s.rates.escalation, "#8a4fd6"),
                  line("fallback", s.rates.fallback, "#e08a1e"),
                  line("cache hit", s.rates.cache_hit, "#2e9e5b")];
  const points = [s.rates.escalation, s.rates.fallback, s.rates.cache_hit]
    .reduce((n, a) => n + a.filter((v) => v !== null).length, 0);
  draw("chart-rates", traces, { yaxis: { tickformat: ".0%", range: [0, 1.05] } }, points);
}

function renderPercentiles(id, table) {
  const names = Object.keys(table);
  const traces = ["p50", "p95"].map((q, i) => ({
    type: "bar", name: q, x: names, y: names.map((n) => table[n][q]),
    marker: { color: i ? "#f0a35e" : "#2f6fdb" },
    hovertemplate: "%{x} " + q + ": %{y:.1f} ms<extra></extra>",
  }));
  draw(id, traces, { barmode: "group", yaxis: { title: { text: "ms" }, type: "log" } }, names.length);
}

function renderCounts(id, counts, name, color, xTitle) {
  const keys = Object.keys(counts);
  draw(id, [{ type: "bar", name, x: keys, y: keys.map((k) => counts[k]), marker: { color } }],
       { xaxis: { title: { text: xTitle }, type: "category" }, yaxis: { title: { text: "requests" } } },
       keys.length);
}

function fillTable(id, records) {
  const body = $(id).querySelector("tbody");
  body.replaceChildren();
  if (!records.length) {
    const tr = body.insertRow();
    const td = tr.insertCell();
    td.colSpan = 8; td.className = "empty"; td.textContent = "none";
    return;
  }
  for (const r of records) {
    const tr = body.insertRow();
    const cells = [when(r.ts), r.collection, r.question,
                   r.confidence === null ? "–" : r.confidence.toFixed(3), r.final_path,
                   r.reason || (r.cache_hit ? "answer cache hit" : ""), r.brain,
                   ms(r.latency_ms ? r.latency_ms.total : null)];
    cells.forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text === undefined || text === null ? "" : String(text);
      if (i === 2) td.className = "q";
    });
    tr.dataset.trace = r.trace_id;
    tr.addEventListener("click", () => {
      $("record").textContent = JSON.stringify(r, null, 2);
      $("record").dataset.shown = "user";
    });
  }
}

async function refresh() {
  const win = $("window").value;
  const qs = win ? "?window_s=" + win : "";
  try {
    const [stats, recent] = await Promise.all([
      getJSON("/v1/stats" + qs), getJSON("/v1/routes?limit=20" + (win ? "&since=" + (Date.now() / 1000 - win) : "")),
    ]);
    renderKpis(stats.totals);
    renderProcess(stats.process);
    renderMix(stats);
    renderRates(stats);
    renderPercentiles("chart-latency", stats.latency_ms);
    renderPercentiles("chart-stages", stats.stage_latency_ms);
    renderCounts("chart-timeouts", stats.timeouts_by_tool, "timeouts", "#d9534f", "tool / stage");
    renderCounts("chart-steps", stats.loop_steps, "requests", "#8a4fd6", "LoopAgent turns");
    $("low-threshold").textContent = "(RAG confidence < " + stats.low_confidence.threshold + ")";
    fillTable("low", stats.low_confidence.records);
    fillTable("recent", recent.records);
    const first = stats.low_confidence.records[0] || recent.records[0];
    if ($("record").dataset.shown !== "user" && first) {
      $("record").textContent = JSON.stringify(first, null, 2);
    }
    const log = stats.route_log || {};
    $("status").textContent = stats.totals.requests + " records · " + (log.backend || "?") +
      (log.available === false ? " (unavailable: local records only)" : "") +
      " · updated " + new Date().toLocaleTimeString();
    $("status").className = log.available === false ? "error" : "";
    document.body.dataset.requests = String(stats.totals.requests);
    document.body.dataset.ready = "1";
  } catch (err) {
    $("status").textContent = String(err.message || err);
    $("status").className = "error";
    if (err instanceof AuthNeeded) $("keyform").hidden = false;
    document.body.dataset.ready = "error";
  }
}

function schedule() {
  if (timer) clearInterval(timer);
  timer = $("auto").checked ? setInterval(refresh, 10000) : null;
}

$("window").addEventListener("change", refresh);
$("reload").addEventListener("click", refresh);
$("auto").addEventListener("change", schedule);
$("keyform").addEventListener("submit", (ev) => {
  ev.preventDefault();
  apiKey = $("key").value.trim();
  sessionStorage.setItem("loopgate-key", apiKey);
  $("keyform").hidden = true;
  refresh();
});
schedule();
refresh();
