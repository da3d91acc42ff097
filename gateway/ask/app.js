// LoopGate Ask page: asks POST /v1/query/stream and shows its server-sent events as they come
// (route decision, each step, the answer with numbered citations); a citation opens the viewer
// (POST /v1/view/citation; PDF pages from GET /v1/view/page.png, fetched with the API key and
// shown as a blob). No build step, no library: EventSource cannot POST, so the stream is read
// with fetch() and parsed by the WHATWG event-stream rules (fields "event" and "data", events
// ended by a blank line). Every question of a conversation carries the conversation's
// `session_id` ("ask-" + a random UUID, new on each page load and on "new conversation", which
// also forgets the old one: DELETE /v1/sessions/{id}), so follow-ups are rewritten from the
// server's session memory (earlier questions, facts given, what was read); the earlier turns
// also go as `history`, used only when that memory is gone (expired, or kept in a restarted
// process when Redis was down).
// Test hooks: <body data-state="idle|streaming|done|error">, #viewer[data-ready="1"] once the
// viewer drew its highlight.
"use strict";

const $ = (id) => document.getElementById(id);
const KEY = "loopgate-key"; // shared with the dashboard: the key is entered once per session
let apiKey = sessionStorage.getItem(KEY) || "";
let history = []; // [{role, content}], oldest first
let sessionId = newSessionId();
let busy = false;

class AuthNeeded extends Error {}

function newSessionId() {
  const id = (crypto.randomUUID ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""));
  document.body.dataset.session = "ask-" + id;
  return "ask-" + id;
}

function headers(json) {
  const h = json ? { "Content-Type": "application/json" } : {};
  if (apiKey) h.Authorization = "Bearer " + apiKey;
  return h;
}

function setStatus(text, error) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

async function check(resp) {
  if (resp.status === 401 || resp.status === 403) {
    $("keyform").hidden = false;
    let msg = "API key needed";
    try { msg = (await resp.json()).error.message; } catch (_) { /* keep the default */ }
    throw new AuthNeeded(msg);
  }
  if (!resp.ok) {
    let msg = "HTTP " + resp.status;
    try { msg = (await resp.json()).error.message || msg; } catch (_) { /* not JSON */ }
    throw new Error(msg);
  }
  return resp;
}

// ---- server-sent events over fetch ------------------------------------------------------------
async function* readEvents(resp) {
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let event = "message";
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    buf += decoder.decode(value || new Uint8Array(), { stream: !done });
    let m;
    while ((m = /\r\n|\r|\n/.exec(buf)) !== null) {
      const line = buf.slice(0, m.index);
      buf = buf.slice(m.index + m[0].length);
      if (line === "") {
        if (data.length) yield { event, data: data.join("\n") };
        event = "message";
        data = [];
      } else if (!line.startsWith(":")) {
        const at = line.indexOf(":");
        const field = at < 0 ? line : line.slice(0, at);
        let val = at < 0 ? "" : line.slice(at + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "event") event = val;
        else if (field === "data") data.push(val);
      }
    }
    if (done) return;
  }
}

// ---- one question ------------------------------------------------------------------------------
function where(c) {
  const page = (p, label) => (label && label !== String(p) ? `p. ${label} (PDF page ${p})` : `p.${p}`);
  const [a, b] = c.lines || [0, 0];
  if (c.page_end && c.page_end !== c.page) {
    return `${page(c.page, c.page_label)} line ${a} – ${page(c.page_end, c.page_end_label)} line ${b}`;
  }
  return `${page(c.page, c.page_label)} | ${a === b ? "line " + a : "lines " + a + "-" + b}`;
}

function citeItem(c, n, turn) {
  const li = document.createElement("li");
  li.value = n;
  const a = document.createElement("a");
  a.className = "cite";
  a.dataset.n = String(n);
  a.textContent = c.path;
  a.addEventListener("click", () => openViewer(c, turn.collection, li));
  const loc = document.createElement("span");
  loc.className = "loc";
  const section = (c.section_path || []).join(" › ");
  loc.textContent = " · " + (section ? section + " · " : "") + where(c);
  const q = document.createElement("q");
  q.textContent = c.quote;
  li.append(a, loc, q);
  return li;
}

function showAnswer(el, body, turn) {
  // a follow-up read as a standalone question: say how (the stream's answer event carries it
  // in the route record only)
  const rewritten = body.rewritten_question || (body.route || {}).rewritten_question;
  if (rewritten) {
    const rw = document.createElement("div");
    rw.className = "rewritten";
    rw.textContent = "read as: “" + rewritten + "”";
    el.querySelector(".route").append(rw);
  }
  const ans = el.querySelector(".answer");
  ans.textContent = "";
  ans.classList.toggle("notfound", !body.found);
  // footnote markers [n] in a model-written answer become links to citation n
  const parts = String(body.answer).split(/(\[\d{1,2}\])/);
  for (const part of parts) {
    const m = /^\[(\d{1,2})\]$/.exec(part);
    const c = m && body.citations[Number(m[1]) - 1];
    if (c) {
      const sup = document.createElement("sup");
      const a = document.createElement("a");
      a.textContent = part;
      a.addEventListener("click", () => el.querySelector(`.cites a[data-n="${m[1]}"]`).click());
      sup.append(a);
      ans.append(sup);
    } else {
      ans.append(document.createTextNode(part));
    }
  }
  const cites = el.querySelector(".cites");
  body.citations.forEach((c, i) => cites.append(citeItem(c, i + 1, turn)));
  const related = body.related || [];
  if (related.length) {
    const box = el.querySelector(".related");
    box.hidden = false;
    related.forEach((c, i) => box.querySelector("ol").append(citeItem(c, body.citations.length + i + 1, turn)));
  }
  const r = body.route || {};
  const total = (r.latency_ms || {}).total;
  const flags = (r.flags || []).filter((f) => f !== "degraded");
  el.querySelector(".meta").textContent = [
    r.final_path ? "path " + r.final_path : "", r.brain ? "brain " + r.brain : "",
    body.cached ? "from the answer cache" : "", total !== undefined ? Math.round(total) + " ms" : "",
    flags.length ? "flags: " + flags.join(", ") : "", r.trace_id ? "trace " + r.trace_id : "",
  ].filter(Boolean).join(" · ");
}

function showRoute(el, ev) {
  const box = el.querySelector(".route");
  const line = document.createElement("div");
  const b = document.createElement("b");
  b.className = ev.route;
  b.textContent = ev.route;
  const conf = typeof ev.confidence === "number" ? ` (RAG confidence ${ev.confidence.toFixed(2)})` : "";
  line.append("route ", b, " — " + (ev.reason || "") + conf);
  box.append(line);
}

function showStep(el, ev) {
  const li = document.createElement("li");
  li.textContent = ev.text || [ev.kind, ev.tool, ev.status].filter(Boolean).join(" ");
  if (ev.status === "error" || ev.status === "timeout") li.className = "error";
  el.querySelector(".steps").append(li);
}

async function ask(question) {
  const collection = $("collection").value.trim() || undefined;
  const mode = $("mode").value;
  const el = $("turn-tpl").content.firstElementChild.cloneNode(true);
  const turn = { collection };
  el.querySelector(".q").textContent = question;
  $("thread").append(el);
  el.scrollIntoView({ block: "nearest" });
  document.body.dataset.state = "streaming";
  setStatus("asking…");
  const t0 = performance.now();
  let final = null;
  try {
    const resp = await check(await fetch("/v1/query/stream", {
      method: "POST", headers: headers(true),
      body: JSON.stringify({ question, collection, mode, history, session_id: sessionId }),
    }));
    for await (const { event, data } of readEvents(resp)) {
      const ev = JSON.parse(data);
      if (event === "route") showRoute(el, ev);
      else if (event === "step") showStep(el, ev);
      else if (event === "answer") { final = ev; showAnswer(el, ev, turn); }
      else if (event === "error") throw new Error(ev.message || ev.code);
    }
    if (!final) throw new Error("the stream ended without an answer");
    history.push({ role: "user", content: question }, { role: "assistant", content: final.answer });
    history = history.slice(-50);
    setStatus(`answered in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    document.body.dataset.state = "done";
  } catch (err) {
    const ans = el.querySelector(".answer");
    ans.textContent = err.message;
    ans.className = "answer error";
    setStatus(err instanceof AuthNeeded ? "API key needed" : "failed", true);
    document.body.dataset.state = "error";
  }
}

// ---- the citation viewer -----------------------------------------------------------------------
let blobUrl = null;

async function openViewer(c, collection, li, page) {
  document.querySelectorAll(".cites li.active").forEach((x) => x.classList.remove("active"));
  li.classList.add("active");
  const viewer = $("viewer");
  viewer.hidden = false;
  viewer.dataset.ready = "0";
  $("vtitle").textContent = c.path;
  $("vnote").textContent = "loading…";
  $("vpages").textContent = "";
  $("vbody").textContent = "";
  try {
    const resp = await check(await fetch("/v1/view/citation", {
      method: "POST", headers: headers(true),
      body: JSON.stringify({ collection, citation: c, page: page || null }),
    }));
    const v = await resp.json();
    if (v.kind === "pdf") await drawPdf(v, c, collection, li);
    else drawText(v, c);
    viewer.dataset.ready = "1";
    viewer.dataset.kind = v.kind;
  } catch (err) {
    $("vnote").textContent = err.message;
    viewer.dataset.ready = "error";
  }
}

async function drawPdf(v, c, collection, li) {
  for (const p of v.pages) {
    if (v.pages.length < 2) break;
    const btn = document.createElement("button");
    btn.type = "button";
    btn.textContent = "p." + p;
    btn.className = p === v.page ? "on" : "";
    btn.addEventListener("click", () => openViewer(c, collection, li, p));
    $("vpages").append(btn);
  }
  const resp = await check(await fetch(v.image, { headers: headers(false) }));
  if (blobUrl) URL.revokeObjectURL(blobUrl);
  blobUrl = URL.createObjectURL(await resp.blob());
  const page = document.createElement("div");
  page.className = "page";
  const img = document.createElement("img");
  img.alt = `${v.path} page ${v.page}`;
  await new Promise((ok, fail) => { img.onload = ok; img.onerror = () => fail(new Error("page image failed")); img.src = blobUrl; });
  page.append(img);
  for (const [x0, y0, x1, y1] of v.boxes) {
    const hl = document.createElement("div");
    hl.className = "hl";
    const pad = 1.5; // points around the glyphs
    Object.assign(hl.style, {
      left: (100 * (x0 - pad)) / v.page_width + "%", top: (100 * (y0 - pad)) / v.page_height + "%",
      width: (100 * (x1 - x0 + 2 * pad)) / v.page_width + "%",
      height: (100 * (y1 - y0 + 2 * pad)) / v.page_height + "%",
    });
    hl.dataset.box = JSON.stringify([x0, y0, x1, y1]);
    page.append(hl);
  }
  page.dataset.pageWidth = String(v.page_width);
  page.dataset.pageHeight = String(v.page_height);
  $("vbody").append(page);
  $("vnote").textContent = `page ${v.page} of ${v.page_count} · ` + (v.boxes.length
    ? (v.exact ? "the quoted words are highlighted" : "the cited lines are highlighted (the quote's exact position is unknown)")
    : "the quote is not on this page");
  const first = page.querySelector(".hl");
  if (first) first.scrollIntoView({ block: "center" });
}

function drawText(v) {
  const src = document.createElement("div");
  src.className = "src";
  for (const ln of v.lines) {
    const row = document.createElement("div");
    const marked = ln.n >= v.marked[0] && ln.n <= v.marked[1];
    row.className = "ln" + (marked ? " marked" : "");
    row.dataset.n = String(ln.n);
    const no = document.createElement("span");
    no.className = "no";
    no.textContent = String(ln.n);
    const tx = document.createElement("span");
    tx.className = "tx";
    if (ln.mark) {
      const [a, b] = ln.mark;
      const mark = document.createElement("mark");
      mark.textContent = ln.text.slice(a, b);
      tx.append(ln.text.slice(0, a), mark, ln.text.slice(b));
    } else {
      tx.textContent = ln.text;
    }
    row.append(no, tx);
    src.append(row);
  }
  $("vbody").append(src);
  const shown = v.kind === "chunk" ? "the cited passage (this format is shown as indexed)" : `lines ${v.lines[0].n}-${v.lines[v.lines.length - 1].n} of ${v.total_lines}`;
  $("vnote").textContent = shown + " · " + (v.exact ? "the quote is marked" : "the cited lines are marked");
  const first = src.querySelector(".marked");
  if (first) first.scrollIntoView({ block: "center" });
}

// ---- wiring ------------------------------------------------------------------------------------
async function loadCollections() {
  try {
    const resp = await check(await fetch("/v1/view/collections", { headers: headers(false) }));
    const body = await resp.json();
    const list = $("collections");
    list.textContent = "";
    for (const name of body.collections) {
      const opt = document.createElement("option");
      opt.value = name;
      list.append(opt);
    }
    if (!$("collection").value) $("collection").value = body.default;
    setStatus(body.collections.length ? "" : "no collection yet: loopgate ingest DIR --collection NAME");
  } catch (err) {
    setStatus(err instanceof AuthNeeded ? "API key needed" : err.message, true);
  }
}

$("ask").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const question = $("question").value.trim();
  if (!question || busy) return;
  busy = true;
  $("send").disabled = true;
  try { await ask(question); } finally { busy = false; $("send").disabled = false; }
  if (document.body.dataset.state === "done") $("question").value = "";
  $("question").focus();
});
$("question").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); $("ask").requestSubmit(); }
});
$("reset").addEventListener("click", () => {
  const old = sessionId;
  history = [];
  sessionId = newSessionId();
  $("thread").textContent = "";
  $("viewer").hidden = true;
  setStatus("new conversation");
  // forget the old conversation's memory on the server (404 when it never got a turn)
  fetch("/v1/sessions/" + encodeURIComponent(old), { method: "DELETE", headers: headers(false) })
    .catch(() => { /* the memory expires at its TTL anyway */ });
});
$("vclose").addEventListener("click", () => { $("viewer").hidden = true; });
$("keyform").addEventListener("submit", (ev) => {
  ev.preventDefault();
  apiKey = $("key").value.trim();
  sessionStorage.setItem(KEY, apiKey);
  $("keyform").hidden = true;
  loadCollections();
});
loadCollections();
