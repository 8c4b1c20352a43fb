// The locschedd dashboard: polls /status, /machine-queues, /machines and /metrics once a
// second and draws them (each tenant queue's share against its guarantee from the
// locsched_queue_* gauges). No libraries, nothing loaded from elsewhere.
"use strict";

const POLL_MS = 1000;
const HISTORY = 300;  // points kept in the charts (five minutes at one a second)
const history = { t: [], running: [], queued: [], completion: [], locality: {}, queues: {} };
let last = null;  // the previous poll's completion sum and count, and starts per level
const COLOURS = ["#3b7dd8", "#d0662c", "#2c9c6a", "#8a4fc7", "#b8a22c"];

function $(id) { return document.getElementById(id); }

function setText(id, value) {
  const el = $(id);
  if (el) el.textContent = value;
}

function fmt(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return "-";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return v.toLocaleString("en-US");
  return v.toFixed(digits === undefined ? 3 : digits);
}

function duration(s) {
  if (s < 120) return Math.round(s) + " s";
  if (s < 7200) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

// Prometheus text into {name: [{labels: {...}, value}]}.
function parseMetrics(text) {
  const out = {};
  for (const line of text.split("\n")) {
    if (!line || line[0] === "#") continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/);
    if (!m) continue;
    const labels = {};
    if (m[3]) for (const l of m[3].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    (out[m[1]] = out[m[1]] || []).push({ labels, value: parseFloat(m[4]) });
  }
  return out;
}

function one(metrics, name) {
  const s = metrics[name];
  return s && s.length ? s[0].value : NaN;
}

async function getJson(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}

async function getText(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.text();
}

function showStatus(s) {
  setText("policy", "policy " + s.policy);
  setText("uptime", "up " + duration(s.uptime_s));
  setText("machines-up", fmt(s.machines.up));
  setText("machines-draining", fmt(s.machines.draining));
  setText("machines-down", fmt(s.machines.down));
  setText("machines-lost", fmt(s.machines.lost));
  setText("slots-busy", fmt(s.slots.busy));
  setText("slots-total", fmt(s.slots.total));
  for (const k of ["running", "queued", "blocked", "done"]) setText("tasks-" + k, fmt(s.tasks[k]));
  for (const k of ["live", "done", "failed", "cancelled"]) setText("jobs-" + k, fmt(s.jobs[k]));
  setText("requests-rate", fmt(s.daemon.requests_per_s, 1));
  setText("clients", fmt(s.daemon.clients));
  showHa(s.ha);
  showRates(s);
}

// High-availability mode only: this instance's role, the active and the active's epoch.
function showHa(ha) {
  const tag = $("ha");
  tag.hidden = !ha;
  if (!ha) return;
  tag.dataset.role = ha.role;
  tag.textContent = ha.role === "active"
    ? "active " + ha.instance + " · epoch " + fmt(ha.epoch)
    : ha.role + " " + ha.instance + " · the active is " + (ha.active || "not known yet");
}

// The policy, every field of the learnt rates, and the LP and rebalance summaries.
function showRates(s) {
  const rows = [["policy", s.policy]];
  for (const [k, v] of Object.entries(s.rates || {})) rows.push(["rates." + k, v]);
  if (s.lp) {
    for (const k of ["solves", "interval_s", "capacity_load"])
      if (k in s.lp) rows.push(["lp." + k, s.lp[k]]);
  }
  if (s.rebalance && "runs" in s.rebalance) rows.push(["rebalance.runs", s.rebalance.runs]);
  const table = $("rates");
  table.replaceChildren(...rows.map(([k, v]) => {
    const tr = document.createElement("tr");
    const a = document.createElement("td"), b = document.createElement("td");
    a.textContent = k;
    b.textContent = fmt(typeof v === "object" && v !== null ? JSON.stringify(v) : v);
    tr.append(a, b);
    return tr;
  }));
}

// One bar per level of locsched_tasks_started_total{locality=...}, in the order served.
function showLocality(metrics) {
  const series = metrics["locsched_tasks_started_total"] || [];
  const total = series.reduce((a, s) => a + s.value, 0);
  $("locality").replaceChildren(...series.map((s) => {
    const share = total ? s.value / total : 0;
    const bar = document.createElement("div");
    bar.className = "bar";
    bar.dataset.level = s.labels.locality;
    bar.innerHTML = '<span class="label"></span><span class="track"><span class="fill"></span>' +
      '</span><span class="value"></span>';
    bar.querySelector(".label").textContent = s.labels.locality;
    bar.querySelector(".fill").style.width = (100 * share).toFixed(1) + "%";
    bar.querySelector(".value").textContent =
      fmt(s.value) + " (" + (100 * share).toFixed(1) + "%)";
    return bar;
  }));
  const info = (metrics["locsched_build_info"] || [])[0];
  if (info) setText("version", "version " + info.labels.version);
}

function sizeCanvas(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(w * ratio)) {
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  return { ctx, w, h };
}

// Machines as cells, in the daemon's order; colour by local queue length.
function showHeatmap(machines) {
  const canvas = $("heatmap");
  const n = machines.length;
  const cols = Math.max(1, Math.ceil(Math.sqrt(n * 8)));
  const rows = Math.max(1, Math.ceil(n / cols));
  canvas.style.height = Math.min(320, Math.max(40, rows * 18)) + "px";
  const { ctx, w, h } = sizeCanvas(canvas);
  const cw = w / cols, ch = h / rows;
  const max = Math.max(1, ...machines.map((m) => m.local_queue));
  machines.forEach((m, i) => {
    const x = (i % cols) * cw, y = Math.floor(i / cols) * ch;
    const f = m.local_queue / max;
    ctx.fillStyle = m.state === "lost" ? "#c0392b" : !m.up ? "#b8bcc6"
      : `rgb(${Math.round(232 - 200 * f)}, ${Math.round(240 - 160 * f)}, ${Math.round(255 - 120 * f)})`;
    ctx.fillRect(x + 1, y + 1, cw - 2, ch - 2);
    if (m.draining) {
      ctx.strokeStyle = "#d08a2c";
      ctx.beginPath();
      ctx.moveTo(x + 1, y + ch - 1);
      ctx.lineTo(x + cw - 1, y + 1);
      ctx.stroke();
    }
  });
  const longest = machines.reduce((a, m) => (m.local_queue > a.local_queue ? m : a),
    { local_queue: -1, machine: "-" });
  setText("heatmap-legend", n + " machines; longest local queue " +
    (longest.local_queue < 0 ? "-" : longest.local_queue + " on " + longest.machine));
}

// Line chart of the series over history.t; each series is [values, colour, label, dashed].
function drawChart(id, series) {
  const { ctx, w, h } = sizeCanvas($(id));
  const values = series.flatMap((s) => s[0].filter((v) => Number.isFinite(v)));
  const max = Math.max(1, ...values);
  const left = 48, bottom = h - 18, top = 8, n = history.t.length;
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = "#6b7385";
  ctx.strokeStyle = "#e3e5ea";
  for (let i = 0; i <= 4; ++i) {
    const y = bottom - (bottom - top) * i / 4;
    ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(w, y); ctx.stroke();
    ctx.fillText(fmt(max * i / 4, max < 10 ? 1 : 0), 2, y + 4);
  }
  if (n > 1) ctx.fillText(duration(history.t[n - 1] - history.t[0]) + " shown", left, h - 4);
  let lx = w - 10;
  for (const [data, colour, label, dashed] of series.slice().reverse()) {
    ctx.strokeStyle = colour;
    ctx.lineWidth = 2;
    ctx.setLineDash(dashed ? [5, 4] : []);
    ctx.beginPath();
    let pen = false;
    data.forEach((v, i) => {
      if (!Number.isFinite(v)) { pen = false; return; }
      const x = left + (w - left - 4) * (n > 1 ? i / (n - 1) : 1);
      const y = bottom - (bottom - top) * v / max;
      if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      pen = true;
    });
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.lineWidth = 1;
    ctx.fillStyle = colour;
    if (!label) continue;
    const tw = ctx.measureText(label).width;
    lx -= tw;
    ctx.fillText(label, lx, top + 10);
    lx -= 14;
  }
}

function record(status, metrics) {
  const sum = one(metrics, "locsched_job_completion_time_seconds_sum");
  const count = one(metrics, "locsched_job_completion_time_seconds_count");
  let mean = NaN;
  if (last && count > last.count) mean = (sum - last.sum) / (count - last.count);
  last = { sum, count, starts: last ? last.starts : {} };
  history.t.push(Date.now() / 1000);  // the browser's clock: one point per poll
  history.running.push(status.tasks.running);
  history.queued.push(status.tasks.queued);
  history.completion.push(mean);
  recordLocality(metrics);
  recordQueues(metrics);
  if (history.t.length > HISTORY) {
    for (const k of ["t", "running", "queued", "completion"]) history[k].shift();
    for (const k in history.locality) history.locality[k].shift();
    for (const k in history.queues) {
      history.queues[k].share.shift();
      history.queues[k].guarantee.shift();
    }
  }
  setText("completion-count", fmt(count));
  setText("completion-mean", count > 0 ? fmt(sum / count, 2) : "-");
  drawChart("tasks-chart", [[history.running, "#3b7dd8", "running"],
    [history.queued, "#d0662c", "queued"]]);
  drawChart("completion-chart", [[history.completion, "#2c9c6a", "mean seconds"]]);
  drawChart("queues-chart", Object.keys(history.queues).flatMap((q, i) => [
    [history.queues[q].share, COLOURS[i % COLOURS.length], q],
    [history.queues[q].guarantee, COLOURS[i % COLOURS.length], "", true]]));
  drawChart("locality-chart", Object.keys(history.locality).map((level, i) =>
    [history.locality[level], COLOURS[i % COLOURS.length], level]));
}

// Per tenant queue, its share of the cluster's slots in use and its guarantee (per cent),
// from the locsched_queue_* gauges; a queue seen for the first time gets series of its own.
function recordQueues(metrics) {
  const n = history.t.length;
  const guarantee = {};
  for (const s of metrics["locsched_queue_guaranteed_ratio"] || [])
    guarantee[s.labels.queue] = 100 * s.value;
  const share = {};
  for (const s of metrics["locsched_queue_share_ratio"] || []) share[s.labels.queue] = 100 * s.value;
  for (const q of Object.keys(share))
    if (!history.queues[q])
      history.queues[q] = { share: new Array(n - 1).fill(NaN), guarantee: new Array(n - 1).fill(NaN) };
  for (const q of Object.keys(history.queues)) {
    history.queues[q].share.push(q in share ? share[q] : NaN);
    history.queues[q].guarantee.push(q in guarantee ? guarantee[q] : NaN);
  }
  setText("queues-legend", Object.keys(share).length + " queues; " +
    Object.keys(share).map((q) => q + " " + share[q].toFixed(1) + "% of " +
      (guarantee[q] || 0).toFixed(1) + "%").join(", "));
}

// Per level, its share (per cent) of the tasks started since the previous poll; a level
// seen for the first time gets a series of its own.
function recordLocality(metrics) {
  const series = metrics["locsched_tasks_started_total"] || [];
  const now = {};
  for (const s of series) now[s.labels.locality] = s.value;
  const before = last.starts;
  const started = Object.keys(now).reduce((a, k) => a + now[k] - (before[k] || 0), 0);
  const n = history.t.length;
  for (const level of Object.keys(now)) {
    if (!history.locality[level]) history.locality[level] = new Array(n - 1).fill(NaN);
    const share = Object.keys(before).length && started > 0
      ? 100 * (now[level] - (before[level] || 0)) / started : NaN;
    history.locality[level].push(share);
  }
  for (const level of Object.keys(history.locality))
    if (!(level in now)) history.locality[level].push(NaN);
  last.starts = now;
}

async function poll() {
  try {
    const [status, machineQueues, machines, text] = await Promise.all([
      getJson("/status"), getJson("/machine-queues"), getJson("/machines"), getText("/metrics")]);
    const metrics = parseMetrics(text);
    showStatus(status);
    setText("remote-queue", fmt(machineQueues.remote));
    showLocality(metrics);
    showHeatmap(machines.machines);
    record(status, metrics);
    setText("state", "live");
    $("state").className = "tag";
    document.body.dataset.polls = String(Number(document.body.dataset.polls) + 1);
  } catch (e) {
    setText("state", "no answer: " + e.message);
    $("state").className = "tag stale";
  }
  setTimeout(poll, POLL_MS);
}

poll();
