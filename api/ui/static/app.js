/* houkai dashboard: a small hand-written single-page app over the REST API.
 *
 * No build step, no dependencies. Every datum comes from the same REST routes any
 * client uses, with the pasted token as a bearer header (kept in sessionStorage,
 * never in a URL). Write buttons are only drawn for read-write tokens; the server
 * refuses writes from read-only tokens anyway. Plots and the link graph are SVG.
 */
(function () {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";
  const BASE = location.pathname.replace(/\/ui\/?$/, "");
  const TYPES = (document.body.dataset.types || "").split(",").filter(Boolean);
  const TOKEN_KEY = "houkai.token";
  const COLLECTION_KEY = "houkai.collection";
  const POLL_MS = 1000;

  const state = {
    token: sessionStorage.getItem(TOKEN_KEY),
    collection: sessionStorage.getItem(COLLECTION_KEY),
    me: null,
    timer: null,
    seq: 0,
  };

  // ------------------------------------------------------------------ helpers
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    setAttrs(el, attrs);
    append(el, children);
    return el;
  }

  function s(tag, attrs, ...children) {
    const el = document.createElementNS(SVG_NS, tag);
    setAttrs(el, attrs);
    append(el, children);
    return el;
  }

  function setAttrs(el, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2), value);
      } else if (key === "text") {
        el.textContent = value;
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
  }

  function append(el, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  function fmtTime(ts) {
    if (!ts) return "—";
    const d = new Date(ts * 1000);
    return d.toISOString().replace("T", " ").slice(0, 19);
  }

  function fmtNum(n, digits) {
    if (n === null || n === undefined || Number.isNaN(n)) return "—";
    if (typeof n !== "number") return String(n);
    return n.toLocaleString("en-US", { maximumFractionDigits: digits === undefined ? 2 : digits });
  }

  function fmtBytes(n) {
    if (!n && n !== 0) return "—";
    const units = ["B", "KiB", "MiB", "GiB"];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i += 1; }
    return `${fmtNum(n, 1)} ${units[i]}`;
  }

  function short(id) { return String(id || "").slice(0, 8); }

  function toast(message, bad) {
    const el = document.getElementById("toast");
    el.textContent = message;
    el.className = "show" + (bad ? " bad" : "");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { el.className = ""; }, bad ? 6000 : 3000);
  }

  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(method, path, opts) {
    const { body, query, scoped = true } = opts || {};
    let url = BASE + (scoped && state.collection
      ? "/c/" + encodeURIComponent(state.collection) : "") + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) {
        if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
      }
      if ([...params].length) url += "?" + params.toString();
    }
    const headers = { Accept: "application/json" };
    if (state.token) headers.Authorization = "Bearer " + state.token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(url, {
      method, headers, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (response.status === 401) {
      showLogin(state.token ? "The token was refused; paste a valid one." : "");
      throw new ApiError(401, (data && data.error) || "unauthorized");
    }
    if (!response.ok) {
      throw new ApiError(response.status, (data && data.error) || response.statusText);
    }
    return data;
  }

  function canWrite() { return !!state.me && !state.me.read_only; }

  /** A button for a write; read-only tokens get nothing at all. */
  function writeButton(label, onclick, extra) {
    if (!canWrite()) return null;
    const cls = "write" + (extra && extra.cls ? " " + extra.cls : "");
    const btn = h("button", { type: "button", class: cls, id: extra && extra.id }, label);
    btn.addEventListener("click", async (event) => {
      event.preventDefault();
      btn.disabled = true;
      try { await onclick(event); } catch (err) { reportError(err); } finally { btn.disabled = false; }
    });
    return btn;
  }

  function reportError(err) {
    if (err && err.status === 401) return;
    toast(err && err.message ? err.message : String(err), true);
  }

  function card(title, ...children) {
    return h("section", { class: "card" }, title ? h("h2", {}, title) : null, ...children);
  }

  function parseHash() {
    const raw = location.hash.replace(/^#\/?/, "");
    const [path, qs] = raw.split("?");
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    return { view: parts[0] || "search", arg: parts[1], query: new URLSearchParams(qs || "") };
  }

  function go(hash) { if (location.hash === hash) route(); else location.hash = hash; }

  // ------------------------------------------------------------------ charts
  function barChart(items, opts) {
    const o = Object.assign({ width: 420, barH: 22, unit: "", digits: 0 }, opts || {});
    const labelW = o.labelW || 110;
    const valueW = 70;
    const max = o.max || Math.max(1, ...items.map((d) => d.value || 0));
    const height = Math.max(1, items.length) * (o.barH + 6) + 4;
    const span = o.width - labelW - valueW;
    const svg = s("svg", { class: "chart", viewBox: `0 0 ${o.width} ${height}`,
      role: "img", "aria-label": o.label || "bar chart" });
    items.forEach((d, i) => {
      const y = 2 + i * (o.barH + 6);
      const w = Math.max(d.value ? 2 : 0, (span * (d.value || 0)) / max);
      svg.append(
        s("text", { x: labelW - 6, y: y + o.barH * 0.7, "text-anchor": "end" }, d.label),
        s("rect", { class: "bar" + (d.alt ? " alt" : ""), x: labelW, y, width: w, height: o.barH, rx: 3 },
          s("title", {}, `${d.label}: ${fmtNum(d.value, o.digits)}${o.unit}`)),
        s("text", { x: labelW + w + 5, y: y + o.barH * 0.7 }, fmtNum(d.value, o.digits) + o.unit),
      );
    });
    return svg;
  }

  function columnChart(items, opts) {
    const o = Object.assign({ width: 420, height: 180, unit: "", digits: 0 }, opts || {});
    const pad = { l: 8, r: 8, t: 18, b: 28 };
    const max = Math.max(1, ...items.map((d) => d.value || 0));
    const slot = (o.width - pad.l - pad.r) / Math.max(1, items.length);
    const inner = o.height - pad.t - pad.b;
    const svg = s("svg", { class: "chart", viewBox: `0 0 ${o.width} ${o.height}`,
      role: "img", "aria-label": o.label || "column chart" });
    svg.append(s("line", { class: "axis", x1: pad.l, x2: o.width - pad.r,
      y1: o.height - pad.b, y2: o.height - pad.b }));
    items.forEach((d, i) => {
      const bh = Math.max(d.value ? 2 : 0, (inner * (d.value || 0)) / max);
      const x = pad.l + i * slot + slot * 0.15;
      const y = o.height - pad.b - bh;
      svg.append(
        s("rect", { class: "bar" + (d.alt ? " alt" : ""), x, y, width: slot * 0.7, height: bh, rx: 3 },
          s("title", {}, `${d.label}: ${fmtNum(d.value, o.digits)}${o.unit}`)),
        s("text", { x: x + slot * 0.35, y: y - 4, "text-anchor": "middle" },
          fmtNum(d.value, o.digits) + o.unit),
        s("text", { x: x + slot * 0.35, y: o.height - pad.b + 15, "text-anchor": "middle" }, d.label),
      );
    });
    return svg;
  }

  function lineChart(points, opts) {
    const o = Object.assign({ width: 420, height: 190 }, opts || {});
    const pad = { l: 44, r: 10, t: 10, b: 26 };
    const svg = s("svg", { class: "chart", viewBox: `0 0 ${o.width} ${o.height}`,
      role: "img", "aria-label": o.label || "line chart" });
    if (!points.length) {
      svg.append(s("text", { x: o.width / 2, y: o.height / 2, "text-anchor": "middle" }, "no data yet"));
      return svg;
    }
    const xs = points.map((p) => p.x);
    const ys = points.map((p) => p.y);
    const x0 = Math.min(...xs);
    const x1 = Math.max(...xs) === x0 ? x0 + 1 : Math.max(...xs);
    const y1 = Math.max(1, ...ys);
    const X = (x) => pad.l + ((x - x0) / (x1 - x0)) * (o.width - pad.l - pad.r);
    const Y = (y) => o.height - pad.b - (y / y1) * (o.height - pad.t - pad.b);
    const d = points.map((p, i) => `${i ? "L" : "M"}${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" ");
    const base = o.height - pad.b;
    svg.append(
      s("line", { class: "axis", x1: pad.l, x2: o.width - pad.r, y1: base, y2: base }),
      s("line", { class: "axis", x1: pad.l, x2: pad.l, y1: pad.t, y2: base }),
      s("path", { class: "area", d: `${d} L${X(points[points.length - 1].x).toFixed(1)},${base} L${X(points[0].x).toFixed(1)},${base} Z` }),
      s("path", { class: "line", d }),
      s("text", { x: pad.l - 4, y: pad.t + 8, "text-anchor": "end" }, fmtNum(y1, 0)),
      s("text", { x: pad.l - 4, y: base, "text-anchor": "end" }, "0"),
      s("text", { x: pad.l, y: o.height - 6 }, o.xfmt ? o.xfmt(x0) : x0),
      s("text", { x: o.width - pad.r, y: o.height - 6, "text-anchor": "end" }, o.xfmt ? o.xfmt(x1) : x1),
    );
    for (const p of points.length <= 60 ? points : []) {
      svg.append(s("circle", { cx: X(p.x), cy: Y(p.y), r: 2.5, class: "bar" },
        s("title", {}, `${o.xfmt ? o.xfmt(p.x) : p.x}: ${fmtNum(p.y, 0)}`)));
    }
    return svg;
  }

  // The rows sum to the score and every hit of a list shares one scale (explain.js).
  function explainBars(explain, scale) {
    const rows = window.houkaiExplain.explainRows(explain);
    if (!rows.length) return null;
    const full = scale || window.houkaiExplain.explainScale([explain]);
    return h("div", { class: "explain", "aria-label": "score breakdown", "data-scale": String(full) },
      rows.map(([name, value]) => [
        h("span", { class: "name" }, name),
        h("span", { class: "track" }, h("span", {
          class: "fill" + (value < 0 ? " neg" : ""),
          style: `display:block;width:${Math.min(100, (100 * Math.abs(value)) / full)}%`,
        })),
        h("span", { class: "num" }, fmtNum(value, 3)),
      ]));
  }

  // ------------------------------------------------------------------ views
  function memoryRow(m, extra) {
    return h("li", { class: "result", "data-id": m.id },
      h("a", { class: "open", href: "#/m/" + encodeURIComponent(m.id) }, m.text),
      h("div", { class: "meta" },
        extra && extra.score !== undefined ? h("span", { class: "score" }, "score " + fmtNum(extra.score, 3)) : null,
        m.decay_score !== undefined ? h("span", {}, "decay " + fmtNum(m.decay_score, 3)) : null,
        h("span", { class: "badge" }, m.type),
        h("span", {}, "importance " + fmtNum(m.importance, 2)),
        h("span", {}, fmtTime(m.created_at)),
        m.source ? h("span", {}, "source " + m.source) : null,
        m.superseded_by ? h("span", { class: "badge bad" }, "superseded") : null,
        m.state && m.state !== "ready" ? h("span", { class: "badge" }, m.state) : null,
        (m.tags || []).length ? h("span", { class: "chips" }, m.tags.map((t) => h("span", { class: "chip" }, t))) : null,
      ),
      extra && extra.explain ? explainBars(extra.explain, extra.scale) : null);
  }

  function typeSelect(id, value) {
    return h("select", { id, name: "type" }, h("option", { value: "" }, "any type"),
      TYPES.map((t) => h("option", { value: t, selected: t === value }, t)));
  }

  async function viewSearch(root, query) {
    const q = query.get("q") || "";
    const field = (name, label, input) => h("label", {}, label, input);
    const form = h("form", { id: "search-form", class: "card", role: "search" },
      h("div", { class: "row" },
        h("input", { type: "search", id: "q", name: "q", placeholder: "Search memories…", value: q, "aria-label": "Query" }),
        h("select", { id: "mode", name: "mode", "aria-label": "Mode" },
          ["hybrid", "semantic"].map((m) => h("option", { value: m, selected: m === (query.get("mode") || "hybrid") }, m))),
        h("button", { type: "submit", id: "search-button" }, "Search")),
      h("details", { open: ["type", "tag", "source", "min_importance", "since", "until"].some((k) => query.get(k)) },
        h("summary", { class: "muted" }, "Filters"),
        h("div", { class: "row" },
          field("type", "Type", typeSelect("f-type", query.get("type"))),
          field("tag", "Tag", h("input", { id: "f-tag", name: "tag", value: query.get("tag") || "" })),
          field("source", "Source", h("input", { id: "f-source", name: "source", value: query.get("source") || "" })),
          field("min_importance", "Min importance", h("input", { id: "f-imp", name: "min_importance", type: "number", min: 0, max: 1, step: 0.05, value: query.get("min_importance") || "" })),
          field("since", "Since", h("input", { id: "f-since", name: "since", type: "date", value: query.get("since") || "" })),
          field("until", "Until", h("input", { id: "f-until", name: "until", type: "date", value: query.get("until") || "" })),
          field("k", "Results", h("input", { id: "f-k", name: "k", type: "number", min: 1, max: 100, value: query.get("k") || "10" })))));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const params = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (v) params.set(k, v);
      go("#/search?" + params.toString());
    });
    const results = h("section", { class: "card", id: "search-results" });
    root.append(form, results);
    if (!q) {
      results.append(h("p", { class: "muted" }, "Type a query: results show their score and how each signal contributed."));
      return;
    }
    results.append(h("p", { class: "muted" }, "Searching…"));
    const params = { query: q, explain: true, k: query.get("k") || 10, mode: query.get("mode") || "hybrid" };
    for (const k of ["type", "tag", "source", "min_importance", "since", "until"]) {
      if (query.get(k)) params[k] = query.get(k);
    }
    if (params.until && /^\d{4}-\d{2}-\d{2}$/.test(params.until)) params.until += "T23:59:59";
    const started = performance.now();
    const data = await api("GET", "/recall", { query: params });
    const scale = window.houkaiExplain.explainScale(data.results.map((m) => m.explain));
    results.replaceChildren(
      h("h2", {}, `${data.results.length} result${data.results.length === 1 ? "" : "s"}`,
        h("span", { class: "muted" }, ` · ${fmtNum(performance.now() - started, 0)} ms`)),
      data.results.length
        ? h("ol", { class: "results", id: "results" }, data.results.map((m) => memoryRow(m, { score: m.score, explain: m.explain, scale })))
        : h("p", { class: "muted" }, "Nothing matched."));
  }

  async function viewBrowse(root, query) {
    const sort = query.get("sort") || "created";
    const type = query.get("type") || "";
    const tag = query.get("tag") || "";
    const after = query.get("after") || "";
    const link = (changes) => {
      const p = new URLSearchParams({ sort, type, tag });
      for (const [k, v] of Object.entries(changes)) p.set(k, v);
      for (const [k, v] of [...p]) if (!v) p.delete(k);
      return "#/browse?" + p.toString();
    };
    const facets = card(null,
      h("div", { class: "row" },
        h("label", {}, "Order",
          h("select", { id: "browse-sort", onchange: (e) => go(link({ sort: e.target.value, after: "" })) },
            [["created", "newest first"], ["importance", "importance"], ["decay", "decay score"]].map(([v, l]) =>
              h("option", { value: v, selected: v === sort }, l))))),
      h("h3", {}, "Type"),
      h("div", { class: "chips", id: "type-facets" },
        h("a", { class: "chip" + (type ? "" : " on"), href: link({ type: "", after: "" }) }, "all")),
      h("h3", {}, "Tags"),
      h("div", { class: "chips", id: "tag-facets" },
        tag ? h("a", { class: "chip on", href: link({ tag: "", after: "" }) }, `${tag} ✕`) : null));
    const heading = h("h2", {}, after ? "Later page" : "Memories");
    const list = h("section", { class: "card" }, heading);
    root.append(h("div", { class: "grid browse" }, facets, list));
    const seq = state.seq;
    const page = await api("GET", "/browse", { query: { sort, type, tag, after, limit: 25 } });
    // The facets (collection-wide counts, cached server-side) arrive on their own, asked
    // for after the page so their queries never delay it: the page never waits for them.
    if (seq === state.seq) api("GET", "/facets").then((f) => {
      if (seq !== state.seq) return;
      heading.textContent = `${fmtNum(f.active, 0)} active memories` + (after ? " · later page" : "");
      document.getElementById("type-facets").append(...Object.entries(f.by_type || {}).map(([t, n]) =>
        h("a", { class: "chip" + (t === type ? " on" : ""), href: link({ type: t, after: "" }) }, `${t} ${fmtNum(n, 0)}`)));
      document.getElementById("tag-facets").append(...Object.entries(f.top_tags || {}).filter(([t]) => t !== tag).map(([t, n]) =>
        h("a", { class: "chip", href: link({ tag: t, after: "" }) }, `${t} ${fmtNum(n, 0)}`)));
      facets.dataset.ready = "1";
    }).catch(reportError);
    list.append(
      page.memories.length
        ? h("ol", { class: "results", id: "browse-list" }, page.memories.map((m) => memoryRow(m)))
        : h("p", { class: "muted" }, "No memories here yet."),
      h("div", { class: "pager" },
        after ? h("a", { href: link({ after: "" }) }, "« first page") : h("span"),
        page.next ? h("a", { id: "next-page", href: link({ after: page.next }) }, "next page »") : h("span", { class: "muted" }, "end")));
  }

  /** Nodes and typed edges among a memory and its neighbours (each node carries its out-links). */
  function linkGraph(center, neighbours) {
    const nodes = new Map([[center.id, center]]);
    for (const n of neighbours) if (!nodes.has(n.id)) nodes.set(n.id, n);
    const edges = [];
    const seen = new Set();
    for (const n of nodes.values()) {
      for (const link of n.links || []) {
        const key = `${n.id}|${link.to}|${link.rel}`;
        if (nodes.has(link.to) && !seen.has(key)) { seen.add(key); edges.push({ src: n.id, dst: link.to, rel: link.rel }); }
      }
    }
    return { nodes: [...nodes.values()], edges };
  }

  function drawGraph(centerId, sub) {
    const nodes = new Map((sub.nodes || []).map((n) => [n.id, n]));
    const adj = new Map();
    for (const e of sub.edges || []) {
      if (!adj.has(e.src)) adj.set(e.src, []);
      if (!adj.has(e.dst)) adj.set(e.dst, []);
      adj.get(e.src).push(e.dst);
      adj.get(e.dst).push(e.src);
    }
    const ring = new Map([[centerId, 0]]);
    const queue = [centerId];
    while (queue.length) {
      const id = queue.shift();
      for (const next of adj.get(id) || []) {
        if (!ring.has(next) && ring.get(id) < 2) { ring.set(next, ring.get(id) + 1); queue.push(next); }
      }
    }
    const W = 420, H = 280, cx = W / 2, cy = H / 2;
    const pos = new Map([[centerId, [cx, cy]]]);
    for (const level of [1, 2]) {
      const ids = [...ring].filter(([, r]) => r === level).map(([id]) => id);
      const radius = level === 1 ? 75 : 125;
      ids.forEach((id, i) => {
        const a = (2 * Math.PI * i) / ids.length - Math.PI / 2 + (level === 2 ? 0.3 : 0);
        pos.set(id, [cx + radius * Math.cos(a) * 1.25, cy + radius * Math.sin(a) * 0.8]);
      });
    }
    const svg = s("svg", { class: "graph", id: "link-graph", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": "linked memories" });
    for (const e of sub.edges || []) {
      const a = pos.get(e.src), b = pos.get(e.dst);
      if (!a || !b) continue;
      svg.append(s("line", { class: "edge", x1: a[0], y1: a[1], x2: b[0], y2: b[1] }),
        s("text", { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 - 3, "text-anchor": "middle", class: "muted" }, e.rel));
    }
    for (const [id, [x, y]] of pos) {
      const n = nodes.get(id) || { id, text: id };
      const r = ring.get(id);
      const g = s("g", { class: "node" + (r === 0 ? " center" : r === 2 ? " ring2" : ""), "data-id": id, tabindex: 0,
        onclick: () => go("#/m/" + encodeURIComponent(id)) },
        s("circle", { cx: x, cy: y, r: r === 0 ? 12 : 9 }),
        s("text", { x, y: y + (r === 0 ? 26 : 21), "text-anchor": "middle" },
          (n.text || "").length > 22 ? n.text.slice(0, 21) + "…" : n.text),
        s("title", {}, n.text));
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter") go("#/m/" + encodeURIComponent(id)); });
      svg.append(g);
    }
    return svg;
  }

  async function viewMemory(root, id) {
    const [m, hist, near] = await Promise.all([
      api("GET", "/memories/" + encodeURIComponent(id)),
      api("GET", "/memories/" + encodeURIComponent(id) + "/history"),
      api("GET", "/memories/" + encodeURIComponent(id) + "/neighbors", { query: { direction: "both", depth: 2 } }),
    ]);
    const sub = linkGraph(m, near.neighbors || []);
    const reload = () => route();
    const fields = [
      ["id", m.id], ["type", m.type], ["tags", (m.tags || []).join(", ") || "—"],
      ["importance", fmtNum(m.importance, 3)], ["source", m.source || "—"],
      ["created", fmtTime(m.created_at)], ["last accessed", fmtTime(m.last_accessed)],
      ["recalled", fmtNum(m.access_count, 0) + "×"], ["polarity", m.polarity], ["state", m.state],
      ["expires", m.expires_at ? fmtTime(m.expires_at) : "never"],
      ...["user_id", "agent_id"].filter((k) => m[k]).map((k) => [k.replace("_id", ""), m[k]]),
      ...(m.session_id ? [["session", h("a", { href: "#/sessions/" + encodeURIComponent(m.session_id) }, m.session_id)]] : []),
      ...(m.message_ids ? [["messages", m.message_ids.join(", ")]] : []),
    ];
    const editor = h("form", { id: "edit-form", hidden: true },
      h("label", { for: "edit-text" }, "Text"),
      h("textarea", { id: "edit-text" }, m.text),
      h("div", { class: "row" },
        h("label", {}, "Importance", h("input", { id: "edit-importance", type: "number", min: 0, max: 1, step: 0.05, value: m.importance })),
        h("label", {}, "Tags (comma-separated)", h("input", { id: "edit-tags", value: (m.tags || []).join(", ") })),
        writeButton("Save", async () => {
          const tags = document.getElementById("edit-tags").value.split(",").map((t) => t.trim()).filter(Boolean);
          await api("PATCH", "/memories/" + encodeURIComponent(m.id), { body: {
            text: document.getElementById("edit-text").value,
            importance: Number(document.getElementById("edit-importance").value),
            tags,
          } });
          toast("Saved");
          reload();
        }, { id: "edit-save" })));
    const actions = h("div", { class: "actions" },
      writeButton("Edit", () => { editor.hidden = !editor.hidden; }, { id: "edit", cls: "ghost" }),
      m.superseded_by
        ? writeButton("Restore", async () => {
          await api("POST", "/restore", { body: { memory_id: m.id } }); toast("Restored"); reload();
        }, { id: "restore" })
        : writeButton("Supersede…", async () => {
          const newId = prompt("Id of the memory that replaces this one:");
          if (!newId) return;
          await api("POST", "/supersede", { body: { old_id: m.id, new_id: newId.trim() } });
          toast("Superseded"); reload();
        }, { id: "supersede", cls: "ghost" }),
      writeButton("Forget", async () => {
        if (!confirm("Delete this memory? (The journal keeps it; undo brings it back.)")) return;
        await api("DELETE", "/memories/" + encodeURIComponent(m.id));
        toast("Forgotten"); go("#/browse");
      }, { id: "forget", cls: "danger" }));
    const neighbours = (sub.edges || []).filter((e) => e.src === m.id || e.dst === m.id);
    const byId = new Map((sub.nodes || []).map((n) => [n.id, n]));
    const history = (hist.history || []).slice().reverse();
    root.append(
      h("div", { class: "grid" },
        card(null,
          m.superseded_by ? h("p", { class: "badge bad" }, "superseded by ",
            h("a", { href: "#/m/" + encodeURIComponent(m.superseded_by), style: "color:#fff" }, short(m.superseded_by))) : null,
          h("p", { class: "memtext", id: "memory-text" }, m.text),
          h("dl", { class: "fields" }, fields.map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])),
          actions, editor),
        card("Links",
          neighbours.length ? drawGraph(m.id, sub) : h("p", { class: "muted" }, "No links yet."),
          h("ul", { class: "plain", id: "links" }, neighbours.map((e) => {
            const other = e.src === m.id ? e.dst : e.src;
            const arrow = e.src === m.id ? "→" : "←";
            return h("li", { "data-id": other }, `${arrow} ${e.rel} `,
              h("a", { href: "#/m/" + encodeURIComponent(other) }, (byId.get(other) || {}).text || short(other)));
          })))),
      card("History",
        h("ol", { class: "timeline", id: "history" }, history.map((e) => h("li", { "data-op": e.op },
          h("span", { class: "when muted" }, fmtTime(e.ts)),
          h("span", {}, h("span", { class: "op" }, e.op), h("span", { class: "muted" }, " by " + e.actor)),
          e.entry_id ? writeButton("Undo", async () => {
            await api("POST", "/undo", { body: { entry_id: e.entry_id } });
            toast("Undone: " + e.op); reload();
          }, { cls: "ghost undo" }) : h("span"),
          h("span", { class: "summary" }, e.summary || ""))))));
  }

  function progressBar(job) {
    const total = Math.max(1, job.total || 0);
    const pct = Math.min(100, Math.round((100 * (job.processed || 0)) / total));
    const failedPct = Math.min(100, (100 * (job.failed || 0)) / total);
    return h("div", { class: "progress", title: `${pct}%` },
      h("div", { class: "fill", style: `width:${pct - failedPct}%;float:left` }),
      h("div", { class: "fill failed", style: `width:${failedPct}%;float:left` }));
  }

  async function viewPipeline(root) {
    const jobsBody = h("tbody", { id: "jobs" });
    const detail = h("div", { id: "job-detail" });
    const queues = h("div", { id: "queues" });
    const workers = h("ul", { class: "plain", id: "workers" });
    const schedule = h("tbody", { id: "schedule" });
    const tickResult = h("p", { class: "muted", id: "tick-result" });
    let selected = null;
    const force = h("input", { type: "checkbox", id: "tick-force" });
    const ingestText = h("textarea", { id: "ingest-text", placeholder: "Paste a document; it is chunked into memories by the workers." });
    const ingestSource = h("input", { id: "ingest-source", placeholder: "source (optional)" });
    const ingestCard = canWrite() ? card("Ingest a document", ingestText,
      h("div", { class: "row" }, ingestSource,
        writeButton("Start ingest", async () => {
          const text = ingestText.value.trim();
          if (!text) { toast("Paste some text first", true); return; }
          const doc = { text };
          if (ingestSource.value.trim()) doc.source = ingestSource.value.trim();
          const res = await api("POST", "/ingest", { body: { documents: [doc] } });
          selected = res.job_id;
          toast(`Ingest job ${short(res.job_id)} started: ${res.total} chunk(s)`);
          ingestText.value = "";
          await refresh();
        }, { id: "ingest-start" }))) : null;
    root.append(
      h("div", { class: "grid" },
        card("Queues", queues),
        card("Workers", workers),
        ingestCard),
      card("Jobs", h("div", { class: "scroll" }, h("table", {},
        h("thead", {}, h("tr", {}, ["job", "kind", "state", "progress", "done", "failed", "rate/s", "ETA"].map((c, i) =>
          h("th", { class: i === 1 || i === 6 ? "hide-narrow" : null }, c)))),
        jobsBody)), detail),
      card("Maintenance", h("p", { class: "muted", id: "beat" }), h("div", { class: "scroll" }, h("table", {},
        h("thead", {}, h("tr", {}, ["job", "every", "last run", "result", "next run"].map((c) => h("th", {}, c)))),
        schedule)),
      canWrite() ? h("div", { class: "actions" },
        h("label", {}, force, " force (run every enabled job, due or not)"),
        writeButton("Run a tick", async () => {
          const res = await api("POST", "/maintenance/tick", { body: { force: force.checked } });
          tickResult.textContent = res.summary || "tick done";
          await refresh();
        }, { id: "run-tick" })) : null,
      tickResult));

    async function showDetail(jobId) {
      const job = await api("GET", "/jobs/" + encodeURIComponent(jobId));
      const errors = job.errors || [];
      detail.replaceChildren(h("h3", {}, `Job ${job.id}`),
        h("p", { class: "muted" }, `${job.kind} · ${job.state} · ${job.processed || 0}/${job.total} processed · created ${fmtTime(job.created_at)}`),
        errors.length ? h("ul", { class: "plain", id: "job-errors" }, errors.slice(0, 50).map((e) =>
          h("li", {}, h("a", { href: "#/m/" + encodeURIComponent(e.id || "") }, short(e.id)), " ", h("span", { class: "error" }, e.error || JSON.stringify(e)))))
          : h("p", { class: "muted" }, "No failed items."),
        job.failed ? writeButton(`Retry ${job.failed} failed`, async () => {
          const res = await api("POST", `/jobs/${encodeURIComponent(job.id)}/retry`);
          toast(`Re-queued ${res.requeued}`); await refresh();
        }, { id: "retry" }) : null);
    }

    async function refresh() {
      const seq = state.seq;
      const [status, jobs] = await Promise.all([
        api("GET", "/pipeline"), api("GET", "/jobs", { query: { limit: 15 } })]);
      if (seq !== state.seq) return;
      queues.replaceChildren(status.server_wide === false
        ? h("p", { class: "muted" }, "The queues are shared by every collection: hidden from a collection-scoped token.")
        : Object.keys(status.queues).length
        ? barChart(Object.entries(status.queues).map(([label, value]) => ({ label, value })), { label: "queue depths", unit: " msg" })
        : h("p", { class: "muted" }, "Celery is not installed: writes embed inline."),
      h("p", { class: "muted" }, `pipeline mode: ${status.pipeline_mode}`));
      workers.replaceChildren(...(status.workers.length ? status.workers.map((w) => h("li", {},
        h("span", { class: "dot" + (w.alive ? " on" : "") }), w.name, h("span", { class: "muted" }, ` · seen ${fmtTime(w.last_seen)}`)))
        : [h("li", { class: "muted" }, status.server_wide === false
          ? `${fmtNum(status.workers_alive, 0)} worker(s) alive (names hidden from a collection-scoped token).`
          : "No embedding worker has reported in.")]));
      jobsBody.replaceChildren(...jobs.jobs.map((j) => {
        const processed = (j.done || 0) + (j.failed || 0) + (j.rejected || 0) + (j.skipped || 0);
        j.processed = processed;
        const pct = j.total ? Math.round((100 * processed) / j.total) : 100;
        const row = h("tr", { "data-job": j.id, class: j.id === selected ? "selected" : null, style: "cursor:pointer" },
          h("td", {}, h("a", { href: "#/pipeline", onclick: (e) => { e.preventDefault(); selected = j.id; showDetail(j.id).catch(reportError); } }, short(j.id))),
          h("td", { class: "hide-narrow" }, j.kind),
          h("td", {}, h("span", { class: "badge" + (j.state === "done" ? " ok" : j.state === "failed" ? " bad" : "") }, j.state)),
          h("td", {}, progressBar(j), h("span", { class: "pct" }, `${pct}%`)),
          h("td", {}, `${processed}/${j.total}`),
          h("td", { class: j.failed ? "error" : "" }, j.failed || 0),
          h("td", { class: "hide-narrow" }, fmtNum(j.rate, 1)),
          h("td", {}, j.eta_seconds === null || j.eta_seconds === undefined ? "—" : `${Math.round(j.eta_seconds)}s`));
        return row;
      }));
      if (!jobs.jobs.length) jobsBody.append(h("tr", {}, h("td", { colspan: 8, class: "muted" }, "No jobs yet.")));
      const maint = status.maintenance || { jobs: {} };
      const beat = document.getElementById("beat");
      if (beat) {
        beat.textContent = maint.beat_every_seconds
          ? `Beat triggers a tick every ${fmtNum(maint.beat_every_seconds, 0)} s; each job runs when due.`
          : "No beat schedule (Celery is not installed).";
      }
      schedule.replaceChildren(...Object.entries(maint.jobs).map(([name, j]) => h("tr", { "data-maint": name },
        h("td", {}, name), h("td", {}, j.every || "off"), h("td", {}, fmtTime(j.last_run)),
        h("td", { class: j.last_error ? "error" : "" }, j.last_error ? j.last_error : j.last_run ? `${j.last_count} item(s) in ${fmtNum(j.last_duration, 2)}s` : "—"),
        h("td", {}, j.enabled ? fmtTime(j.next_due) : "disabled"))));
      if (selected && detail.childElementCount) await showDetail(selected);
    }

    await refresh();
    // Poll after each answer (never overlapping requests on a slow server) until the view changes.
    const seq = state.seq;
    const loop = async () => {
      try { await refresh(); } catch (err) { reportError(err); }
      if (seq === state.seq && state.me) state.timer = setTimeout(loop, POLL_MS);
    };
    state.timer = setTimeout(loop, POLL_MS);
  }

  // The collection-wide figures come from /overview and /growth, stale-while-revalidate:
  // right after a write they are the last ones computed (shown "as of" their time) while
  // the server recounts in the background; the view asks again until they are current.
  // The last findability check (maintenance job or `houkai findable`): the share of a sample
  // of memories that recall returns for their own text, and that the HNSW graph finds by
  // their own vector (what it missed was re-inserted).
  function findabilityCard(f) {
    if (f.sampled === undefined) {
      return card("Findability", h("p", { class: "muted", id: "findability" },
        "Not checked yet: the maintenance job checks every few hours; `houkai findable` checks now."));
    }
    const pct = (v) => (v === undefined ? 0 : 100 * v);
    return card("Findability (last check)", barChart([
      { label: "own text, recall k=5", value: pct(f.own_text) },
      ...(f.own_word == null ? [] : [{ label: "own word, hybrid k=5", value: pct(f.own_word) }]),
      { label: "own vector, graph k=10", value: pct(f.own_vector), alt: true },
    ], { label: "share of sampled memories found", unit: " %", digits: 1, max: 100, labelW: 170 }),
    h("p", { class: f.ok ? "muted" : "error", id: "findability" },
      `${fmtNum(f.sampled, 0)} memories asked ${fmtTime(f.checked_at)} UTC · ` +
      `${fmtNum((f.repaired || 0) + (f.unrepaired || 0), 0)} re-inserted into the graph · ` +
      (f.ok ? "all found" : "BELOW the threshold: run `houkai findable`")));
  }

  // Tokens and cost of LLM extraction (conversations → memories), per provider: what the
  // collection's sessions have spent so far (/metrics "extraction").
  function extractionCard(x) {
    const rows = Object.entries(x.providers || {});
    if (!rows.length) {
      return card("LLM extraction", h("p", { class: "muted", id: "extraction-usage" },
        "No LLM calls yet: the rules extractor spends no tokens."));
    }
    return card("LLM extraction (tokens by provider)", barChart(rows.flatMap(([name, r]) => [
      { label: `${name} in`, value: r.input_tokens || 0 },
      { label: `${name} out`, value: r.output_tokens || 0, alt: true }]),
    { label: "LLM tokens by provider", labelW: 140 }),
    h("p", { class: "muted", id: "extraction-usage" },
      `${fmtNum(x.calls, 0)} calls · $${fmtNum(x.cost_usd || 0, 4)} (` +
      rows.map(([name, r]) => `${name} $${fmtNum(r.cost_usd || 0, 4)}`).join(", ") + ")"));
  }

  async function viewHealth(root) {
    const seq = state.seq;
    const load = () => Promise.all([
      api("GET", "/overview"), api("GET", "/growth", { query: { bucket: "day" } }), api("GET", "/metrics")]);
    const draw = ([stats, growth, metrics]) => {
      const health = stats.health || {};
      const lat = metrics.recall_latency_ms || {};
      const day = (t) => new Date(t * 1000).toISOString().slice(0, 10);
      const stale = stats.stale || growth.stale;
      const asOf = (stats.as_of && growth.as_of) ? Math.min(stats.as_of, growth.as_of) : NaN;
      root.replaceChildren(
        h("p", { class: "asof muted", id: "health-asof", "data-stale": stale ? "1" : "0" },
          Number.isFinite(asOf) ? `Figures as of ${fmtTime(asOf)} UTC` : "Counting this collection's figures for the first time",
          stale ? " · updating in the background…" : " · current"),
        h("div", { class: "grid" },
          card("Memories per type", barChart(Object.entries(stats.by_type || {}).map(([label, value]) => ({ label, value })),
            { label: "memories per type" })),
          card("State", barChart([
            { label: "active", value: stats.active }, { label: "superseded", value: stats.superseded, alt: true },
            { label: "expired", value: stats.expired, alt: true }, { label: "pending", value: stats.pending, alt: true },
            { label: "failed", value: stats.failed, alt: true }], { label: "memories by state" })),
          card("Growth (total memories by day)", lineChart((growth.series || []).map((p) => ({ x: p.t, y: p.total })),
            { xfmt: day, label: "growth over time" })),
          card("Decay health (score histogram)", columnChart(Object.entries(health.decay_histogram || {}).map(([label, value]) =>
            ({ label, value })), { label: "decay score histogram" }),
            h("p", { class: "muted" }, `${fmtNum(health.at_risk_count, 0)} below the prune line (${health.min_score}) · ${fmtNum(health.never_recalled_count, 0)} never recalled`)),
          card("Recall latency (last " + fmtNum(lat.window, 0) + " recalls)", columnChart(
            ["p50", "p95", "p99", "max"].map((k) => ({ label: k, value: lat[k] || 0, alt: k === "max" })),
            { unit: " ms", digits: 1, label: "recall latency percentiles" })),
          findabilityCard(metrics.findability || {}),
          extractionCard(metrics.extraction || {}),
          card("Redis memory", barChart([
            { label: "bytes/memory", value: growth.redis.bytes_per_memory || 0 },
          ], { label: "redis bytes per memory", unit: " B" }),
          h("p", { class: "muted" }, growth.redis.scope === "token"
            ? `${fmtNum(growth.redis.memories_in_redis, 0)} memories in this token's collections (Redis-wide figures are hidden from a collection-scoped token)`
            : `${fmtBytes(growth.redis.used_memory)} used by ${fmtNum(growth.redis.memories_in_redis, 0)} memories in this Redis`))));
      return stale;
    };
    let tries = 0;
    const loop = async () => {
      let stale = false;
      try { stale = draw(await load()); } catch (err) { reportError(err); }
      tries += 1;
      if (stale && tries < 60 && seq === state.seq && state.me) state.timer = setTimeout(loop, POLL_MS);
    };
    if (draw(await load()) && seq === state.seq) state.timer = setTimeout(loop, POLL_MS);
  }

  // ------------------------------------------------------------------ sessions
  /** #/sessions: the collection's conversations; #/sessions/<id>: one session's window
   * (what each message became), its running summary and the memories it is shown with. */
  async function viewSessions(root, query, id) {
    if (id) return viewSession(root, id);
    const data = await api("GET", "/sessions", { query: { limit: 200 } });
    const rows = data.sessions || [];
    root.append(card("Sessions",
      rows.length ? h("div", { class: "scroll" }, h("table", { id: "sessions" },
        h("thead", {}, h("tr", {}, ["session", "user", "agent", "active", "messages", "pending", "memories"].map((c) => h("th", {}, c)))),
        h("tbody", {}, rows.map((x) => h("tr", {},
          h("td", {}, h("a", { class: "open", href: "#/sessions/" + encodeURIComponent(x.session_id) }, x.session_id)),
          h("td", {}, x.user_id || "—"), h("td", {}, x.agent_id || "—"),
          h("td", {}, fmtTime(x.updated_at)), h("td", {}, fmtNum(x.messages_total, 0)),
          h("td", {}, fmtNum(x.pending, 0)), h("td", {}, fmtNum(x.memories, 0)))))))
        : h("p", { class: "muted", id: "no-sessions" }, "No sessions yet: POST /sessions/<id>/messages adds one.")));
  }

  async function viewSession(root, id) {
    const path = "/sessions/" + encodeURIComponent(id);
    const data = await api("GET", path, { query: { budget: 4000 } });
    const info = data.session || {};
    const became = (m) => {
      if (!m.extracted) return h("span", { class: "muted" }, "pending");
      if (!m.became || !m.became.length) return h("span", { class: "muted" }, "nothing kept");
      return m.became.map((e) => h("div", { class: "became" },
        h("span", { class: "badge" }, e.action), " ",
        h("a", { href: "#/m/" + encodeURIComponent(e.id) }, short(e.id)),
        e.supersedes ? h("span", { class: "muted" }, " supersedes " + short(e.supersedes)) : null,
        " ", h("span", { class: "muted" }, e.text || "")));
    };
    root.append(
      h("p", {}, h("a", { href: "#/sessions" }, "← all sessions")),
      card("Session " + id,
        h("p", { class: "muted" }, `user ${data.user_id || "—"} · agent ${data.agent_id || "—"} · `
          + `${fmtNum(info.messages_total, 0)} messages · ${fmtNum(data.pending, 0)} pending extraction · `
          + `${fmtNum(info.memories, 0)} memories`),
        h("div", { class: "row" },
          writeButton("Extract now", async () => {
            const res = await api("POST", path + "/extract");
            toast(res.queued ? "Extraction queued" : `Extracted: ${res.added || 0} added, ${res.updated || 0} updated`);
            route();
          }, { id: "session-extract" }),
          writeButton("Delete session", async () => {
            if (!window.confirm(`Delete session ${id}? Its memories stay.`)) return;
            await api("DELETE", path); toast("Session deleted"); go("#/sessions");
          }, { id: "session-delete", cls: "danger" }))),
      card("Summary", h("pre", { id: "session-summary", class: "wrap" }, data.summary || "(nothing has left the window yet)")),
      card("Window", h("div", { class: "scroll" }, h("table", { id: "session-window" },
        h("thead", {}, h("tr", {}, ["message", "role", "content", "became"].map((c) => h("th", {}, c)))),
        h("tbody", {}, (data.window || []).map((m) => h("tr", { "data-message": m.id },
          h("td", {}, short(m.id)), h("td", {}, m.role + (m.name ? ` (${m.name})` : "")),
          h("td", {}, m.content), h("td", {}, became(m)))))))),
      card("Relevant memories", (data.memories || []).length
        ? h("ul", { class: "plain" }, data.memories.map((m) => h("li", {},
          h("a", { href: "#/m/" + encodeURIComponent(m.id) }, m.text))))
        : h("p", { class: "muted" }, "none")));
  }

  // ------------------------------------------------------------------ shell
  const VIEWS = { search: viewSearch, browse: viewBrowse, m: viewMemory, pipeline: viewPipeline, health: viewHealth, sessions: viewSessions };

  async function route() {
    if (!state.me) return;
    clearTimeout(state.timer);
    state.timer = null;
    state.seq += 1;
    const seq = state.seq;
    const { view, arg, query } = parseHash();
    const render = VIEWS[view] || viewSearch;
    for (const a of document.querySelectorAll("#nav a")) {
      a.classList.toggle("active", a.dataset.view === view || (view === "m" && a.dataset.view === "browse"));
    }
    const root = h("div", { class: "view-" + view, "data-view": view });
    document.getElementById("view").replaceChildren(root);
    try {
      await (view === "m" ? render(root, arg) : render(root, query, arg));
    } catch (err) {
      if (seq !== state.seq) return;
      if (err && err.status === 401) return;
      root.append(card("Could not load this view", h("p", { class: "error", id: "view-error" }, err.message || String(err))));
    }
    if (seq === state.seq) root.dataset.ready = "1";
  }

  async function loadCollections() {
    const select = document.getElementById("collection");
    const data = await api("GET", "/collections", { scoped: false });
    let names = data.collections.map((c) => c.name);
    if (!names.length && state.me.collections) names = state.me.collections.slice();
    const fallback = (data.collections.find((c) => c.default) || {}).name || names[0] || null;
    if (!state.collection || !names.includes(state.collection)) state.collection = fallback;
    if (state.collection) sessionStorage.setItem(COLLECTION_KEY, state.collection);
    select.replaceChildren(...names.map((n) => {
      const row = data.collections.find((c) => c.name === n);
      return h("option", { value: n, selected: n === state.collection },
        row && row.count !== null && row.count !== undefined ? `${n} (${fmtNum(row.count, 0)})` : n);
    }));
    select.hidden = names.length === 0;
  }

  function showLogin(message) {
    state.me = null;
    clearTimeout(state.timer);
    document.getElementById("session").hidden = true;
    document.getElementById("login").hidden = false;
    document.getElementById("login-error").textContent = message || "";
    document.getElementById("token").focus();
  }

  // The collection-wide figures (Health, the facets) are kept server-side once counted and
  // then served at once; only a collection never counted before makes a view wait for the
  // count. So ask for them once per tab and collection, in the background, after the
  // first view is drawn.
  function warmUp() {
    const key = "houkai.warm." + (state.collection || "");
    if (sessionStorage.getItem(key)) return;
    sessionStorage.setItem(key, "1");
    setTimeout(() => {
      api("GET", "/overview").catch(() => {});
      api("GET", "/growth", { query: { bucket: "day" } }).catch(() => {});
    }, 1500);
  }

  async function start() {
    try {
      state.me = await api("GET", "/whoami", { scoped: false });
    } catch (err) {
      if (err.status !== 401) document.getElementById("login-error").textContent = err.message;
      return false;
    }
    document.getElementById("login").hidden = true;
    const badge = document.getElementById("mode-badge");
    badge.textContent = state.me.read_only ? "read-only" : state.me.auth ? "read-write" : "no auth";
    badge.className = "badge" + (state.me.read_only ? " ro" : "");
    document.body.classList.toggle("read-only", !!state.me.read_only);
    document.getElementById("logout").hidden = !state.me.auth;
    await loadCollections();
    document.getElementById("session").hidden = false;
    await route();
    warmUp();
    return true;
  }

  document.getElementById("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = document.getElementById("token");
    state.token = input.value.trim();
    sessionStorage.setItem(TOKEN_KEY, state.token);
    input.value = "";
    const ok = await start().catch((err) => { reportError(err); return false; });
    if (!ok) {
      sessionStorage.removeItem(TOKEN_KEY);
      state.token = null;
      showLogin("That token was refused.");
    }
  });
  document.getElementById("logout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(COLLECTION_KEY);
    state.token = null;
    state.collection = null;
    document.getElementById("view").replaceChildren();
    showLogin("Logged out.");
  });
  document.getElementById("collection").addEventListener("change", (event) => {
    state.collection = event.target.value;
    sessionStorage.setItem(COLLECTION_KEY, state.collection);
    go(location.hash.startsWith("#/m/") ? "#/browse" : location.hash || "#/search");
    warmUp();
  });
  window.addEventListener("hashchange", () => { route(); });

  start().then((ok) => { if (!ok && !state.me) showLogin(state.token ? "That token was refused." : ""); })
    .catch(reportError);
})();
