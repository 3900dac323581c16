/* Pulse graph viewer. Every memory string is inserted with textContent / createTextNode, never
 * as HTML. The data comes from <script type="application/json" id="pulse-data">, or on a
 * locked page from unlock.js (#pulse-sealed, decrypted in the browser).
 * API: window.pulseViewer (see the README of resources/viewer or docs/benchmarks_viewer.md). */
(function () {
  "use strict";

  var DOMAIN_COLORS = {
    real: "#3b7dd8", fiction_content: "#e0674a", fiction_meta: "#cc79a7", meta_authorial: "#23a37f"
  };
  var DOMAIN_NAMES = {
    real: "Real life", fiction_content: "Fiction · content", fiction_meta: "Fiction · meta",
    meta_authorial: "Authorial"
  };
  // every domain colour also has its letter, drawn in the node (colour is never alone)
  var DOMAIN_LETTERS = { real: "R", fiction_content: "F", fiction_meta: "M", meta_authorial: "A" };
  // a pinned axiom is what a person calls a core wound (the class beside it, as in the app)
  var CLASS_NAMES = {
    axiom: "core wound · axiom", self_model: "self model", user_model: "user model",
    operational: "operational", hypothesis: "hypothesis"
  };
  // shape by kind (all shapes draw their label below, so size stays the salience)
  var SHAPES = {
    person: "dot", fictional_character: "dot", fictionalized_self: "dot",
    ai_entity: "hexagon", ai_persona: "hexagon", place: "square", project: "diamond",
    event_series: "diamond", org: "triangle", community: "triangle", product: "triangleDown",
    thing: "triangleDown", skill: "star", concept: "hexagon", narrative_device: "star",
    safety_boundary: "triangle", event: "dot"
  };
  var GLYPHS = { dot: "●", hexagon: "⬢", square: "■", diamond: "◆", triangle: "▲", triangleDown: "▼", star: "★" };

  var viewer = window.pulseViewer = window.pulseViewer || {};
  viewer.ready = false;
  viewer.drawnAt = null;
  viewer.error = null;
  viewer.timings = { scriptStart: performance.now() };
  if (typeof viewer.onSelect !== "function") viewer.onSelect = null;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(n) { return Number(n).toLocaleString("en-US"); }
  function clip(text, n) { text = String(text == null ? "" : text); return text.length > n ? text.slice(0, n - 1) + "…" : text; }
  function hexToRgb(hex) {
    var v = parseInt(hex.slice(1), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  function rgba(hex, a) { var c = hexToRgb(hex); return "rgba(" + c[0] + "," + c[1] + "," + c[2] + "," + a + ")"; }
  function mix(hex, t) {   // toward white by t
    var c = hexToRgb(hex).map(function (x) { return Math.round(x + (255 - x) * t); });
    return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")";
  }
  function domainColor(d) { return DOMAIN_COLORS[d] || "#7a8594"; }
  function domainName(d) { return DOMAIN_NAMES[d] || String(d); }

  var status = $("status");
  // A locked page (pulse export-html --lock) holds only ciphertext in #pulse-sealed: unlock.js
  // asks for the passphrase, decrypts with WebCrypto and hands the data to start().
  var sealedData = $("pulse-sealed");
  if (sealedData && typeof window.pulseUnlock === "function") {
    status.textContent = "Locked: enter the passphrase.";
    window.pulseUnlock(sealedData, start);
    return;
  }
  var parsed;
  try {
    parsed = JSON.parse($("pulse-data").textContent);
  } catch (err) {
    viewer.error = "data: " + err;
    status.textContent = "This file's data could not be read.";
    return;
  }
  start(parsed);

  function start(data) {
  if (typeof vis === "undefined" || !vis.Network) {
    viewer.error = "vis-network missing";
    status.textContent = "The graph library did not load.";
    return;
  }
  var meta = data.meta || {};
  var large = !!meta.large;
  var DOMAINS = (meta.domains || Object.keys(DOMAIN_COLORS)).slice();
  var KINDS = (meta.kinds || []).slice();
  var CLASSES = (meta.belief_classes || Object.keys(CLASS_NAMES)).slice();
  var EVENTS = data.events || {};
  var OBS = data.observations || {};
  $("title").textContent = meta.title || "Pulse";
  $("title").title = meta.title || "";
  document.title = (meta.title || "Pulse") + " · graph";

  // -- index ---------------------------------------------------------------------------------
  var nodeById = new Map();
  var nodeIndex = new Map();
  data.nodes.forEach(function (n, i) { nodeById.set(n.id, n); nodeIndex.set(n.id, i); });
  var adjacency = new Map();
  data.edges.forEach(function (e, i) {
    [e[0], e[1]].forEach(function (end) {
      var list = adjacency.get(end);
      if (!list) adjacency.set(end, (list = []));
      list.push(i);
    });
  });
  var domainCounts = {};
  data.nodes.forEach(function (n) { domainCounts[n.domain] = (domainCounts[n.domain] || 0) + 1; });

  // -- vis data ------------------------------------------------------------------------------
  var groups = {};
  DOMAINS.concat(Object.keys(DOMAIN_COLORS)).forEach(function (d) {
    var c = domainColor(d);
    groups[d + "|entity"] = {
      color: { background: c, border: mix(c, -0.0), highlight: { background: c, border: "#111820" },
               hover: { background: c, border: "#111820" } }
    };
    groups[d + "|event"] = {
      color: { background: mix(c, 0.78), border: c, highlight: { background: mix(c, 0.5), border: "#111820" },
               hover: { background: mix(c, 0.6), border: c } },
      borderWidth: 1.5
    };
  });

  var visible = new Uint8Array(data.nodes.length).fill(1);
  var labelText = new Map();
  var visNodes = data.nodes.map(function (n) {
    var isEvent = n.type === "event";
    var size = isEvent ? 4 + 7 * (n.size || 0) : 8 + 20 * (n.size || 0);
    var node = {
      id: n.id, x: n.x, y: n.y, group: n.domain + "|" + n.type, shape: SHAPES[n.kind] || "dot",
      size: size, domain: n.domain, kind: n.kind
    };
    if (!isEvent) labelText.set(n.id, clip(n.label, 40));   // drawn by drawLabels()
    if (n.kind === "safety_boundary") node.borderWidth = 3;
    if (n.kind === "fictional_character" || n.kind === "fictionalized_self") node.shapeProperties = { borderDashes: [3, 2] };
    if (n.is_self) { node.borderWidth = 3; }
    if (isEvent && n.user_flag) { node.borderWidth = 3; }
    return node;
  });
  var EDGE_STYLE = {
    relation: { color: "#7d8797", opacity: 0.55 },
    mention: { color: "#aab3c0", opacity: 0.35 },
    chain: { color: "#d08a2c", opacity: 0.5 }
  };
  var visEdges = data.edges.map(function (e, i) {
    var style = EDGE_STYLE[e[2]] || EDGE_STYLE.relation;
    var s = Number(e[4]) || 0;
    var edge = {
      id: "e" + i, from: e[0], to: e[1],
      width: e[2] === "mention" ? 0.6 : e[2] === "chain" ? 0.5 + 1.5 * s : 0.6 + 3.2 * s
    };
    if (e[2] !== "relation") edge.color = { color: style.color, opacity: style.opacity, highlight: "#1f2733", hover: "#1f2733" };
    if (e[2] === "chain") edge.arrows = { to: { enabled: true, scaleFactor: 0.5 } };
    return edge;
  });
  viewer.timings.dataReady = performance.now();

  var nodes = new vis.DataSet(visNodes);
  var edges = new vis.DataSet(visEdges);
  var container = $("graph");
  var options = {
    autoResize: true,
    groups: groups,
    layout: { improvedLayout: false, randomSeed: 7 },
    physics: {
      enabled: false, solver: "forceAtlas2Based",
      forceAtlas2Based: { gravitationalConstant: -40, springLength: 80, springConstant: 0.06, avoidOverlap: 0.3 },
      stabilization: { enabled: true, iterations: 200, fit: false }
    },
    interaction: {
      hover: !large, tooltipDelay: 120, hideEdgesOnDrag: large, hideEdgesOnZoom: large,
      multiselect: false, navigationButtons: false, keyboard: false, selectConnectedEdges: true
    },
    nodes: {
      borderWidth: 1.2,
      font: { size: 17, face: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", color: "#1f2733",
              strokeWidth: 4, strokeColor: "rgba(255,255,255,0.92)" },
      scaling: { label: { drawThreshold: large ? 9 : 4 } }
    },
    edges: {
      smooth: large ? false : { enabled: true, type: "continuous", roundness: 0.2 },
      selectionWidth: 1.5, hoverWidth: 0.5,
      color: { color: EDGE_STYLE.relation.color, opacity: EDGE_STYLE.relation.opacity, highlight: "#1f2733", hover: "#1f2733" }
    }
  };

  status.textContent = data.nodes.length > 3000 ? "Drawing " + fmt(data.nodes.length) + " nodes…" : "";
  var network = new vis.Network(container, { nodes: nodes, edges: edges }, options);
  viewer.network = network;
  viewer.timings.networkCreated = performance.now();

  // -- domain zones (convex hulls) -------------------------------------------------------------
  var hullCache = null;
  var clustered = {};
  function cross(o, a, b) { return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]); }
  function convexHull(points) {
    if (points.length < 3) return points.slice();
    points.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var lower = [], upper = [], i;
    for (i = 0; i < points.length; i++) {
      while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], points[i]) <= 0) lower.pop();
      lower.push(points[i]);
    }
    for (i = points.length - 1; i >= 0; i--) {
      while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], points[i]) <= 0) upper.pop();
      upper.push(points[i]);
    }
    upper.pop(); lower.pop();
    return lower.concat(upper);
  }
  function paddedHull(points, pad) {
    var hull = convexHull(points), out = [];
    hull.forEach(function (p) {
      for (var k = 0; k < 12; k++) {
        var a = (k / 12) * Math.PI * 2;
        out.push([p[0] + Math.cos(a) * pad, p[1] + Math.sin(a) * pad]);
      }
    });
    return convexHull(out);
  }
  function computeHulls() {
    var byDomain = {};
    var body = network.body.nodes;
    for (var i = 0; i < data.nodes.length; i++) {
      if (!visible[i]) continue;
      var n = data.nodes[i];
      if (clustered[n.domain]) continue;
      var b = body[n.id];
      if (!b) continue;
      (byDomain[n.domain] = byDomain[n.domain] || []).push([b.x, b.y]);
    }
    var hulls = [];
    Object.keys(byDomain).forEach(function (d) {
      var pts = byDomain[d];
      var hull = paddedHull(pts, large ? 60 : 38);
      var top = hull.reduce(function (m, p) { return p[1] < m[1] ? p : m; }, hull[0]);
      var sx = 0; hull.forEach(function (p) { sx += p[0]; });
      hulls.push({ domain: d, points: hull, top: top, cx: sx / hull.length, count: pts.length });
    });
    return hulls;
  }
  function invalidateHulls() { hullCache = null; }
  network.on("beforeDrawing", function (ctx) {
    if (!hullCache || (physicsOn && !large)) hullCache = computeHulls();
    var scale = network.getScale();
    hullCache.forEach(function (h) {
      var c = domainColor(h.domain);
      ctx.save();
      ctx.beginPath();
      h.points.forEach(function (p, i) { if (i) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]); });
      ctx.closePath();
      ctx.fillStyle = rgba(c, 0.09);
      ctx.fill();
      ctx.lineJoin = "round";
      ctx.lineWidth = Math.max(1.5, 1.5 / scale);
      ctx.strokeStyle = rgba(c, 0.45);
      ctx.setLineDash([8 / Math.max(scale, 0.2), 5 / Math.max(scale, 0.2)]);
      ctx.stroke();
      ctx.setLineDash([]);
      var size = Math.max(18, 13 / scale);
      ctx.font = "600 " + size + "px system-ui, -apple-system, Segoe UI, Roboto, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "bottom";
      ctx.fillStyle = rgba(c, 0.9);
      ctx.fillText(domainName(h.domain), h.cx, h.top[1] - 6 / Math.max(scale, 0.2));
      ctx.restore();
    });
  });
  network.on("dragEnd", invalidateHulls);

  // -- first draw ----------------------------------------------------------------------------
  var physicsOn = false;
  network.once("afterDrawing", function () {
    if (!viewer.initFitted) {
      fitGraph();                          // the whole graph, clear of the legend
      // the names are laid out by this same drawing, after this handler: fit again once their
      // widths are known, so a long name centred on a node near the legend clears it too
      setTimeout(function () { if (!viewer.initFitted && lastLabels.length) fitGraph(); }, 0);
    }
    viewer.drawnAt = performance.now();
    viewer.timings.drawn = viewer.drawnAt;
    viewer.ready = true;
    // an empty canvas alone reads as a broken page
    status.textContent = data.nodes.length ? "" : "This memory is empty: nothing to show yet.";
    viewer.firstDrawVisible = visibleCount;   // what the first frame showed
    notifyBridge("viewerReady", { nodes: data.nodes.length, edges: data.edges.length, drawnAt: viewer.drawnAt,
                                  visible: visibleCount });
  });

  // -- visibility: search + filters ----------------------------------------------------------
  var filters = { domain: new Set(DOMAINS), kind: new Set(KINDS), cls: new Set(CLASSES) };
  var searchText = "";
  var haystack = null;
  // time range (the desktop timeline's brush): event nodes outside [start, end] are hidden
  var timeRange = { start: null, end: null };
  function toMs(text) {
    if (text === null || text === undefined || text === "") return null;
    var s = String(text).trim();
    // a timestamp without an offset is UTC (as in the core); JS would read it as local time
    if (/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s)) s += "Z";
    var ms = Date.parse(s.replace(" ", "T"));
    return isNaN(ms) ? null : ms;
  }
  var nodeTs = null;
  function eventMs(i) {
    if (!nodeTs) {
      nodeTs = data.nodes.map(function (n) {
        if (n.type !== "event") return null;
        var ts = n.ts != null ? n.ts : (EVENTS[n.id] && EVENTS[n.id].ts);
        return toMs(ts);
      });
    }
    return nodeTs[i];
  }
  function buildHaystack() {
    haystack = data.nodes.map(function (n) {
      var parts = [n.label, n.kind, n.key || ""];
      (n.aliases || []).forEach(function (a) { parts.push(a); });
      if (n.description) parts.push(n.description);
      (n.facts || []).forEach(function (f) { parts.push(f.text); });
      if (n.type === "event" && EVENTS[n.id]) parts.push(EVENTS[n.id].description || "");
      return parts.join("\n").toLowerCase();
    });
  }
  function passes(i) {
    var n = data.nodes[i];
    if (!filters.domain.has(n.domain)) return false;
    if (!filters.kind.has(n.kind)) return false;
    if (n.type === "event" && (timeRange.start !== null || timeRange.end !== null)) {
      var t = eventMs(i);
      if (t === null) return false;
      if (timeRange.start !== null && t < timeRange.start) return false;
      if (timeRange.end !== null && t > timeRange.end) return false;
    }
    if (filters.cls.size < CLASSES.length) {
      var ok = false, b = n.beliefs || [];
      for (var k = 0; k < b.length; k++) if (filters.cls.has(b[k])) { ok = true; break; }
      if (!ok) return false;
    }
    if (allowedSet && !allowedSet.has(n.id)) return false;
    // a search keeps what it found and the nodes joined to it (a person and their events,
    // relations); what it found is highlighted
    if (searchHood && !searchHood.has(n.id)) return false;
    if (hostHood && !hostHood.has(n.id)) return false;
    return true;
  }
  // what the host app allows (its own filter), and what its search matched
  var allowedSet = null, hostHood = null, hostMatches = null;
  var searchHood = null, searchMatches = null;
  function neighbourhood(ids) {
    var out = new Set(ids);
    ids.forEach(function (id) {
      (adjacency.get(id) || []).forEach(function (k) { var e = data.edges[k]; out.add(e[0]); out.add(e[1]); });
    });
    return out;
  }
  function searchMatchIds(text) {
    if (!haystack) buildHaystack();
    var words = text.split(/\s+/).filter(Boolean), out = [];
    for (var i = 0; i < data.nodes.length; i++) {
      var ok = true;
      for (var w = 0; w < words.length; w++) if (haystack[i].indexOf(words[w]) < 0) { ok = false; break; }
      if (ok) out.push(data.nodes[i].id);
    }
    return out;
  }
  // highlighted nodes: a glow and a thicker border, undone when the search changes
  var highlighted = new Set();
  var baseBorder = new Map(visNodes.map(function (n) { return [n.id, n.borderWidth]; }));
  function updateHighlight() {
    var want = new Set();
    [hostMatches, searchMatches].forEach(function (list) { (list || []).forEach(function (id) { want.add(id); }); });
    var changes = [];
    highlighted.forEach(function (id) {
      if (!want.has(id)) changes.push({ id: id, shadow: { enabled: false }, borderWidth: baseBorder.get(id) });
    });
    want.forEach(function (id) {
      if (!highlighted.has(id) && nodeById.has(id)) {
        changes.push({ id: id, borderWidth: 4,
                       shadow: { enabled: true, color: "rgba(79,111,224,0.9)", size: 24, x: 0, y: 0 } });
      }
    });
    highlighted = want;
    if (changes.length) nodes.update(changes);
  }
  var visibleCount = data.nodes.length;
  function applyVisibility() {
    var changes = [], count = 0;
    for (var i = 0; i < data.nodes.length; i++) {
      var v = passes(i) ? 1 : 0;
      count += v;
      if (v !== visible[i]) { visible[i] = v; changes.push({ id: data.nodes[i].id, hidden: !v }); }
    }
    visibleCount = count;
    if (Object.keys(clustered).length) {
      changes.forEach(function (c) { if (clustered[nodeById.get(c.id).domain]) c.hidden = true; });
      if (changes.length) nodes.update(changes);
      rebuildClusterMarks();
    } else if (changes.length) nodes.update(changes);
    invalidateHulls();
    updateCount();
    updateFilterMarks();
    network.redraw();
    return count;
  }
  function updateCount() {
    $("count").textContent = visibleCount === data.nodes.length
      ? fmt(data.nodes.length) + (data.nodes.length === 1 ? " node" : " nodes")
      : fmt(visibleCount) + " of " + fmt(data.nodes.length) + " shown";
  }

  // -- filter menus ---------------------------------------------------------------------------
  function buildFilter(boxId, values, set, labelOf, swatchOf) {
    var box = $(boxId).querySelector(".options");
    var all = el("label", "all");
    var allBox = el("input"); allBox.type = "checkbox"; allBox.checked = true;
    all.appendChild(allBox); all.appendChild(document.createTextNode("All"));
    box.appendChild(all);
    var boxes = [];
    values.forEach(function (v) {
      var row = el("label");
      var cb = el("input"); cb.type = "checkbox"; cb.checked = set.has(v); cb.value = v;
      cb.addEventListener("change", function () {
        if (cb.checked) set.add(v); else set.delete(v);
        allBox.checked = set.size === values.length;
        applyVisibility();
      });
      row.appendChild(cb);
      if (swatchOf) { var sw = el("span", "swatch"); sw.style.background = swatchOf(v); row.appendChild(sw); }
      row.appendChild(document.createTextNode(labelOf(v)));
      box.appendChild(row);
      boxes.push(cb);
    });
    allBox.addEventListener("change", function () {
      boxes.forEach(function (cb) { cb.checked = allBox.checked; if (allBox.checked) set.add(cb.value); else set.delete(cb.value); });
      applyVisibility();
    });
    return function sync() {
      boxes.forEach(function (cb) { cb.checked = set.has(cb.value); });
      allBox.checked = set.size === values.length;
    };
  }
  var syncDomain = buildFilter("filter-domain", DOMAINS, filters.domain,
    function (d) { return domainName(d) + " (" + fmt(domainCounts[d] || 0) + ")"; }, domainColor);
  var syncKind = buildFilter("filter-kind", KINDS, filters.kind, function (k) { return k.replace(/_/g, " "); });
  var syncClass = buildFilter("filter-class", CLASSES, filters.cls, function (c) { return CLASS_NAMES[c] || c; });
  function updateFilterMarks() {
    $("filter-domain").classList.toggle("active", filters.domain.size < DOMAINS.length);
    $("filter-kind").classList.toggle("active", filters.kind.size < KINDS.length);
    $("filter-class").classList.toggle("active", filters.cls.size < CLASSES.length);
  }
  document.addEventListener("click", function (ev) {   // one open menu at a time
    document.querySelectorAll("details.filter[open]").forEach(function (d) {
      if (!d.contains(ev.target)) d.open = false;
    });
  });

  // -- search ---------------------------------------------------------------------------------
  var searchTimer = null;
  $("search").addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { setSearch($("search").value); }, large ? 300 : 120);
  });
  function setSearch(text) {
    searchText = String(text || "").trim().toLowerCase();
    searchMatches = searchText ? searchMatchIds(searchText) : null;
    searchHood = searchMatches ? neighbourhood(searchMatches) : null;
    updateHighlight();
    var count = applyVisibility();
    if (searchMatches && count) fitVisible();
    return count;
  }

  // -- clustering: one summary node per domain (our own, not vis clustering: fast at 20k) ----
  function nodeHidden(i) { return !visible[i] || !!clustered[data.nodes[i].domain]; }
  function syncHidden(domainsTouched) {
    var changes = [];
    for (var i = 0; i < data.nodes.length; i++) {
      if (domainsTouched && !domainsTouched[data.nodes[i].domain]) continue;
      changes.push({ id: data.nodes[i].id, hidden: nodeHidden(i) });
    }
    if (changes.length) nodes.update(changes);
  }
  function rebuildClusterMarks() {
    var ids = nodes.get({ filter: function (n) { return n.kind === "cluster"; }, fields: ["id"] })
      .map(function (n) { return n.id; });
    if (ids.length) nodes.remove(ids);
    var cedges = edges.get({ filter: function (e) { return e.cluster === true; }, fields: ["id"] })
      .map(function (e) { return e.id; });
    if (cedges.length) edges.remove(cedges);
    var stats = {};
    for (var i = 0; i < data.nodes.length; i++) {
      var n = data.nodes[i];
      if (!visible[i] || !clustered[n.domain]) continue;
      var st = stats[n.domain] || (stats[n.domain] = { count: 0, x: 0, y: 0 });
      st.count++; st.x += n.x; st.y += n.y;
    }
    var add = [];
    Object.keys(stats).forEach(function (d) {
      var st = stats[d], c = domainColor(d);
      add.push({
        id: "cluster:" + d, x: st.x / st.count, y: st.y / st.count, kind: "cluster", domain: d,
        clusterLabel: domainName(d) + " (" + fmt(st.count) + ")", shape: "dot",
        size: 18 + 7 * Math.log(st.count + 1), borderWidth: 2,
        color: { background: mix(c, 0.35), border: c, highlight: { background: mix(c, 0.2), border: "#111820" } }
      });
    });
    if (add.length) nodes.add(add);
    // summary edges: how many links join two zones (or a zone and a node outside any cluster)
    var links = {};
    data.edges.forEach(function (e) {
      var a = nodeIndex.get(e[0]), b = nodeIndex.get(e[1]);
      if (!visible[a] || !visible[b]) return;
      var da = data.nodes[a].domain, db = data.nodes[b].domain;
      var ea = clustered[da] ? "cluster:" + da : e[0], eb = clustered[db] ? "cluster:" + db : e[1];
      if (ea === eb || (ea === e[0] && eb === e[1])) return;
      var key = ea < eb ? ea + "\u0000" + eb : eb + "\u0000" + ea;
      links[key] = (links[key] || 0) + 1;
    });
    var addEdges = Object.keys(links).map(function (key, i) {
      var ends = key.split("\u0000");
      return { id: "cluster-edge:" + i, from: ends[0], to: ends[1], cluster: true,
               width: Math.min(12, 1 + Math.log(links[key] + 1)),
               color: { color: "#8792a2", opacity: 0.6 }, title: undefined };
    });
    if (addEdges.length) edges.add(addEdges);
  }
  function clusterByDomain() {
    DOMAINS.forEach(function (d) {
      var count = 0;
      for (var i = 0; i < data.nodes.length; i++) if (visible[i] && data.nodes[i].domain === d) count++;
      if (count >= 2) clustered[d] = true;
    });
    syncHidden(null);
    rebuildClusterMarks();
    invalidateHulls();
  }
  function openClusters(only) {
    var touched = {};
    Object.keys(clustered).forEach(function (d) {
      if (only && d !== only) return;
      touched[d] = true;
      delete clustered[d];
    });
    syncHidden(touched);
    rebuildClusterMarks();
    $("cluster").checked = Object.keys(clustered).length > 0;
    invalidateHulls();
  }
  $("cluster").addEventListener("change", function () { viewer.setClustered($("cluster").checked); });

  // -- physics (small graphs only) --------------------------------------------------------------
  if (meta.physics) {
    $("physics-toggle").hidden = false;
    $("physics").addEventListener("change", function () {
      physicsOn = $("physics").checked;
      network.setOptions({ physics: { enabled: physicsOn } });
      invalidateHulls();
    });
    network.on("stabilized", invalidateHulls);
  }
  // Fit, then keep the legend's corner free: a node under the legend can be neither read nor
  // clicked. The view shrinks toward the graph's top only as far as it must (a label hangs
  // below its node, hence the wider margin above the legend).
  function fitGraph(opts) {
    opts = opts || {};
    var from = { position: network.getViewPosition(), scale: network.getScale() };
    network.fit(Object.assign({}, opts, { animation: false }));
    var box = $("legend"), W = container.clientWidth, H = container.clientHeight;
    var s0 = network.getScale(), c0 = network.getViewPosition(), view = { scale: s0, c: c0 };
    if (box && !box.hidden && box.offsetHeight && box.offsetHeight < H * 0.4) {
      var lr = box.getBoundingClientRect(), cr = container.getBoundingClientRect();
      var zone = { left: lr.left - cr.left - 14, right: lr.right - cr.left + 14,
                   top: lr.top - cr.top - 30, bottom: lr.bottom - cr.top };
      var pos = network.getPositions(opts.nodes || viewer.visibleNodeIds());
      var pts = Object.keys(pos).map(function (k) { return pos[k]; });
      var top = pts.reduce(function (m, p) { return Math.min(m, p.y); }, Infinity);
      var least = Math.max(0.5, zone.top / H);         // at most: the graph above the legend
      for (var k = 0; k <= 12 && pts.length; k++) {
        var s = s0 * (1 - k * (1 - least) / 12);
        var c = { x: c0.x, y: top - (top - c0.y) * s0 / s };   // the graph's top stays put
        var covered = pts.some(function (p) {
          var x = (p.x - c.x) * s + W / 2, y = (p.y - c.y) * s + H / 2;
          return x > zone.left && x < zone.right && y > zone.top && y < zone.bottom;
        }) || lastLabels.some(function (l) {   // a long name centred on its node reaches far
          var b = network.body.nodes[l.id];
          if (!b) return false;
          var x = (b.x - c.x) * s + W / 2, y = (b.y - c.y) * s + H / 2;
          var below = y + (b.options.size || 8) * s + 2;
          return x + l.w / 2 > lr.left - cr.left - 4 && x - l.w / 2 < lr.right - cr.left + 4 &&
                 below + l.h > lr.top - cr.top - 4 && below < lr.bottom - cr.top;
        });
        view = { scale: s, c: c };
        if (!covered) break;
      }
    }
    if (opts.animation) network.moveTo({ position: from.position, scale: from.scale, animation: false });
    if (view.scale !== s0 || opts.animation) {
      network.moveTo({ position: view.c, scale: view.scale, animation: opts.animation || false });
    }
  }
  viewer.fitGraph = fitGraph;
  $("fit").addEventListener("click", function () { fitGraph({ animation: { duration: 300 } }); });

  // -- legend ---------------------------------------------------------------------------------
  (function legend() {
    var box = $("legend");
    if (!data.nodes.length) { box.hidden = true; return; }   // else an empty box
    var row = el("div", "row");
    DOMAINS.forEach(function (d) {
      if (!domainCounts[d]) return;
      var item = el("span", "item");
      var sw = el("span", "swatch", DOMAIN_LETTERS[d] || ""); sw.style.background = domainColor(d);
      item.appendChild(sw); item.appendChild(document.createTextNode(domainName(d)));
      row.appendChild(item);
    });
    box.appendChild(row);
    var shapes = el("div", "row"), seen = {};
    KINDS.forEach(function (k) {
      var shape = SHAPES[k] || "dot";
      var key = k === "event" ? "event" : shape;
      var item = seen[key];
      if (!item) {
        item = el("span", "item");
        item.appendChild(el("span", "glyph", k === "event" ? "○" : GLYPHS[shape]));
        item.appendChild(el("span", "names"));
        seen[key] = item;
        shapes.appendChild(item);
      }
      var names = item.querySelector(".names");
      names.textContent = (names.textContent ? names.textContent + ", " : "") + k.replace(/_/g, " ");
    });
    box.appendChild(shapes);
  })();

  // -- tooltip (plain text) ----------------------------------------------------------------------
  var tooltip = $("tooltip");
  network.on("hoverNode", function (p) {
    var n = nodeById.get(p.node);
    var text;
    if (n) {
      text = (n.type === "event" ? (EVENTS[n.id] || {}).title || n.label : n.label) + "\n" +
        n.kind.replace(/_/g, " ") + " · " + domainName(n.domain) + (n.type === "event" && n.ts ? " · " + String(n.ts).slice(0, 10) : "");
    } else if (String(p.node).indexOf("cluster:") === 0) {
      text = "Click to open this zone";
    } else return;
    tooltip.textContent = clip(text, 400);
    tooltip.hidden = false;
    var x = p.pointer.DOM.x + 14, y = p.pointer.DOM.y + 14;
    var w = container.clientWidth;
    tooltip.style.left = Math.min(x, w - 350) + "px";
    tooltip.style.top = y + "px";
  });
  network.on("blurNode", function () { tooltip.hidden = true; });
  network.on("dragStart", function () { tooltip.hidden = true; });

  // -- side panel -------------------------------------------------------------------------------
  var panel = $("panel"), panelBody = $("panel-body");
  $("panel-close").addEventListener("click", function () {
    panel.hidden = true; network.unselectAll(); viewer.selected = null;
  });
  function section(title) { panelBody.appendChild(el("h3", null, title)); var ul = el("ul"); panelBody.appendChild(ul); return ul; }
  function link(text, id) {
    var b = el("button", "link", text); b.type = "button";
    b.addEventListener("click", function () { viewer.select(id, { focus: true }); });
    return b;
  }
  function chip(text, cls) { return el("span", "chip" + (cls ? " " + cls : ""), text); }
  function domainChip(d) { var c = chip(domainName(d), "domain"); c.style.background = domainColor(d); return c; }
  function labelOf(id) {
    var n = nodeById.get(id);
    if (n) return n.type === "event" ? ((EVENTS[id] || {}).title || n.label) : n.label;
    if (EVENTS[id]) return EVENTS[id].title;
    return id;
  }
  function observationsSection(id) {
    if (meta.redacted) {
      panelBody.appendChild(el("h3", null, "Observations"));
      panelBody.appendChild(el("p", "note", "Observation text is redacted in this export."));
      return;
    }
    var texts = OBS[id] || [];
    if (!texts.length) return;
    panelBody.appendChild(el("h3", null, texts.length > 1 ? "Observations" : "Observation"));
    texts.forEach(function (t) { panelBody.appendChild(el("blockquote", null, t)); });
  }
  function showEntity(n) {
    panelBody.appendChild(el("h2", null, n.label));
    var sub = el("div", "sub");
    sub.appendChild(chip(n.kind.replace(/_/g, " ")));
    sub.appendChild(domainChip(n.domain));
    sub.appendChild(chip("salience " + Number(n.salience).toFixed(2)));
    if (n.is_self) sub.appendChild(chip("self"));
    panelBody.appendChild(sub);
    if (n.aliases && n.aliases.length) panelBody.appendChild(el("p", "note", "also: " + n.aliases.join(", ")));
    if (n.description) panelBody.appendChild(el("p", null, n.description));
    if (n.facts && n.facts.length) {
      var ul = section("Facts (" + n.facts.length + ")");
      n.facts.forEach(function (f) {
        var li = el("li");
        li.appendChild(el("div", "fact", f.text));
        li.appendChild(el("div", "meta", (CLASS_NAMES[f.belief_class] || f.belief_class) + " · confidence " +
          Number(f.confidence).toFixed(2) + (f.domain !== n.domain ? " · " + domainName(f.domain) : "") + (f.verified ? " · verified" : "")));
        ul.appendChild(li);
      });
    }
    var evs = (n.events || []).filter(function (id) { return EVENTS[id]; });
    if (evs.length) {
      var eu = section("Events (" + evs.length + ")");
      evs.slice(0, 200).forEach(function (id) {
        var ev = EVENTS[id], li = el("li");
        li.appendChild(link(ev.title, id));
        li.appendChild(el("div", "meta", String(ev.ts || "").slice(0, 10) + " · " + (CLASS_NAMES[ev.belief_class] || ev.belief_class) +
          (ev.user_flag ? " · anchor" : "") + (ev.emotion ? " · " + ev.emotion.name : "")));
        eu.appendChild(li);
      });
      if (evs.length > 200) eu.appendChild(el("li", "note", "… and " + fmt(evs.length - 200) + " more"));
    }
    var rels = (adjacency.get(n.id) || []).map(function (i) { return data.edges[i]; })
      .filter(function (e) { return e[2] === "relation"; });
    if (rels.length) {
      var ru = section("Relations (" + rels.length + ")");
      rels.slice(0, 300).forEach(function (e) {
        var out = e[0] === n.id, other = out ? e[1] : e[0], li = el("li");
        li.appendChild(document.createTextNode((out ? "→ " : "← ") + e[3] + " "));
        li.appendChild(link(labelOf(other), other));
        li.appendChild(el("span", "meta", " · strength " + Number(e[4]).toFixed(2)));
        ru.appendChild(li);
      });
    }
    observationsSection(n.id);
  }
  function showEvent(id) {
    var ev = EVENTS[id] || {}, n = nodeById.get(id) || {};
    panelBody.appendChild(el("h2", null, ev.title || n.label || id));
    var sub = el("div", "sub");
    sub.appendChild(chip("event"));
    sub.appendChild(domainChip(ev.domain || n.domain));
    sub.appendChild(chip(CLASS_NAMES[ev.belief_class] || ev.belief_class || ""));
    if (ev.user_flag) sub.appendChild(chip("anchor"));
    if (ev.archivable === false) sub.appendChild(chip("pinned"));
    panelBody.appendChild(sub);
    var facts = [String(ev.ts || "").replace("T", " ").replace("Z", " UTC")];
    if (ev.confidence_floor) facts.push("floor " + Number(ev.confidence_floor).toFixed(2));
    if (ev.sentiment_label) facts.push(ev.sentiment_label);
    if (ev.emotion) facts.push(ev.emotion.name + " " + Number(ev.emotion.value).toFixed(2));
    if (ev.provenance) facts.push(ev.provenance.replace(/_/g, " "));
    panelBody.appendChild(el("p", "note", facts.join(" · ")));
    if (ev.description) panelBody.appendChild(el("p", null, ev.description));
    if (ev.entities && ev.entities.length) {
      var ul = section("Entities (" + ev.entities.length + ")");
      ev.entities.forEach(function (eid) { var li = el("li"); li.appendChild(link(labelOf(eid), eid)); ul.appendChild(li); });
    }
    var chain = (adjacency.get(id) || []).map(function (i) { return data.edges[i]; })
      .filter(function (e) { return e[2] === "chain"; });
    if (chain.length) {
      var cu = section("Chain");
      chain.forEach(function (e) {
        var parent = e[1] === id, other = parent ? e[0] : e[1], li = el("li");
        li.appendChild(document.createTextNode((parent ? "after " : "led to ") ));
        li.appendChild(link(labelOf(other), other));
        li.appendChild(el("span", "meta", " · " + e[3] + " " + Number(e[4]).toFixed(2)));
        cu.appendChild(li);
      });
    }
    observationsSection(id);
  }
  var panelAllowed = true;
  function showPanel(id) {
    if (!panelAllowed) { panel.hidden = true; return; }
    panelBody.replaceChildren();
    var n = nodeById.get(id);
    if (n && n.type === "entity") showEntity(n); else showEvent(id);
    panel.hidden = false;
    panel.scrollTop = 0;
  }
  function describe(id) {
    var n = nodeById.get(id) || {}, ev = EVENTS[id];
    return { id: id, type: n.type || (ev ? "event" : null), key: n.key || (ev && ev.key) || null,
             dbId: Number(String(id).split(":")[1]) || null, label: labelOf(id), kind: n.kind || "event",
             domain: n.domain || (ev && ev.domain) || null };
  }

  // -- selection ------------------------------------------------------------------------------
  function select(id, opts) {
    opts = opts || {};
    id = String(id);
    if (!nodeById.has(id) && !EVENTS[id]) return false;
    if (nodeById.has(id)) {
      var domain = nodeById.get(id).domain;
      if (clustered[domain]) openClusters(domain);
      if (visible[nodeIndex.get(id)]) {
        network.selectNodes([id]);
        if (opts.focus) network.focus(id, { scale: Math.max(network.getScale(), large ? 1.0 : 1.1), animation: { duration: 350 } });
      } else {
        network.unselectAll();
      }
    }
    viewer.selected = id;
    showPanel(id);
    var info = describe(id);
    if (opts.notify !== false) {
      if (typeof viewer.onSelect === "function") { try { viewer.onSelect(info); } catch (e) { /* host hook */ } }
      notifyBridge("nodeClicked", info);
    }
    return true;
  }
  network.on("click", function (p) {
    tooltip.hidden = true;
    if (p.nodes && p.nodes.length) {
      var id = String(p.nodes[0]);
      if (id.indexOf("cluster:") === 0) { openClusters(id.slice(8)); return; }
      select(id, { focus: false });
    }
  });

  // -- shift-drag from one event to another: ask the host to link them (cause → effect) -------
  // Captured before vis-network sees the pointer, so the node does not move and the view does
  // not pan; a dashed line follows the pointer until the button is released.
  var linkDrag = null;
  viewer.lastLinkRequest = null;
  function pointerAt(ev) {
    var rect = container.getBoundingClientRect();
    return { x: ev.clientX - rect.left, y: ev.clientY - rect.top };
  }
  container.addEventListener("pointerdown", function (ev) {
    if (!ev.shiftKey || ev.button !== 0) return;
    var at = pointerAt(ev), id = network.getNodeAt(at);
    if (id === undefined || String(id).indexOf("ev:") !== 0) return;
    ev.preventDefault(); ev.stopPropagation();
    linkDrag = { from: String(id), at: at };
    tooltip.hidden = true;
    status.textContent = "Drop on the event it led to";
  }, true);
  window.addEventListener("pointermove", function (ev) {
    if (!linkDrag) return;
    ev.preventDefault(); ev.stopPropagation();
    linkDrag.at = pointerAt(ev);
    network.redraw();
  }, true);
  window.addEventListener("pointerup", function (ev) {
    if (!linkDrag) return;
    ev.preventDefault(); ev.stopPropagation();
    var from = linkDrag.from, to = network.getNodeAt(pointerAt(ev));
    linkDrag = null;
    status.textContent = "";
    network.redraw();
    if (to === undefined || String(to) === from) return;
    if (String(to).indexOf("ev:") !== 0) { status.textContent = "A cause → effect link joins two events"; return; }
    viewer.lastLinkRequest = { from: from, to: String(to) };
    if (typeof viewer.onLink === "function") { try { viewer.onLink(viewer.lastLinkRequest); } catch (e) { /* host hook */ } }
    notifyBridge("linkRequested", viewer.lastLinkRequest);
  }, true);
  network.on("afterDrawing", function (ctx) {
    if (!linkDrag) return;
    var a = network.getPosition(linkDrag.from), b = network.DOMtoCanvas(linkDrag.at);
    ctx.save();
    ctx.strokeStyle = "#d08a2c"; ctx.lineWidth = 2 / Math.max(network.getScale(), 0.2);
    ctx.setLineDash([6, 4]);
    ctx.beginPath(); ctx.moveTo(a.x, a.y); ctx.lineTo(b.x, b.y); ctx.stroke();
    ctx.restore();
  });

  // -- labels: readable at any zoom, the ones that would overlap left out ------------------------
  // vis-network scales its labels with the zoom (about 7 px at Fit for a few hundred nodes);
  // these are drawn at LABEL_PX or more on screen, most salient first, skipping any label that
  // would overlap one already placed.
  var LABEL_PX = 12, LABEL_MAX_PX = 18, LABEL_FONT = "system-ui, -apple-system, Segoe UI, Roboto, sans-serif";
  var labelWidths = new Map(), lastLabels = [];
  function labelWidth(ctx, text) {      // at 100 px, scaled: measureText is slow on big graphs
    var w = labelWidths.get(text);
    if (w === undefined) {
      ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.font = "100px " + LABEL_FONT;
      w = ctx.measureText(text).width / 100; ctx.restore();
      labelWidths.set(text, w);
    }
    return w;
  }
  function labelCandidates() {
    var out = [], sel = new Set(network.getSelectedNodes().map(String));
    labelText.forEach(function (text, id) {
      var i = nodeIndex.get(id);
      if (i === undefined || nodeHidden(i)) return;
      var n = data.nodes[i];
      out.push({ id: id, text: text, rank: (sel.has(id) ? 4 : 0) + (highlighted.has(id) ? 2 : 0) +
                 (n.is_self ? 1 : 0) + (n.size || 0) });
    });
    nodes.get({ filter: function (n) { return n.kind === "cluster"; } }).forEach(function (n) {
      out.push({ id: n.id, text: n.clusterLabel, rank: 10, bold: true });
    });
    sel.forEach(function (id) {     // a selected event is named too
      if (!labelText.has(id) && nodeById.has(id) && !nodeHidden(nodeIndex.get(id))) {
        out.push({ id: id, text: clip(labelOf(id), 40), rank: 5 });
      }
    });
    return out.sort(function (a, b) { return b.rank - a.rank; });
  }
  var lastLettered = 0;
  function drawLabels(ctx) {
    var scale = network.getScale(), px = Math.max(LABEL_PX, Math.min(LABEL_MAX_PX, 17 * scale));
    var rect = container.getBoundingClientRect(), grid = new Map(), CELL = 64, placed = [];
    function cells(b, add) {
      for (var gx = Math.floor(b.x / CELL); gx <= Math.floor((b.x + b.w) / CELL); gx++) {
        for (var gy = Math.floor(b.y / CELL); gy <= Math.floor((b.y + b.h) / CELL); gy++) {
          var key = gx + "," + gy, list = grid.get(key);
          if (add) { if (!list) grid.set(key, (list = [])); list.push(b); }
          else if (list) {
            for (var k = 0; k < list.length; k++) {
              var o = list[k];
              if (b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h) return true;
            }
          }
        }
      }
      return false;
    }
    var body = network.body.nodes;
    labelCandidates().forEach(function (c) {
      if (placed.length >= 600) return;
      var b = body[c.id];
      if (!b) return;
      var at = network.canvasToDOM({ x: b.x, y: b.y });
      var size = (c.bold ? px + 2 : px), w = labelWidth(ctx, c.text) * size + 6, h = size + 4;
      var radius = (b.options.size || 8) * scale;
      var box = { x: at.x - w / 2, y: at.y + radius + 2, w: w, h: h };
      if (box.x + box.w < 0 || box.y + box.h < 0 || box.x > rect.width || box.y > rect.height) return;
      if (cells(box, false)) return;
      cells(box, true);
      placed.push({ id: c.id, text: c.text, x: box.x, y: box.y, w: w, h: h, px: size });
    });
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    var ratio = (network.canvas && network.canvas.pixelRatio) || window.devicePixelRatio || 1;
    ctx.scale(ratio, ratio);
    ctx.textAlign = "center"; ctx.textBaseline = "top"; ctx.lineJoin = "round";
    // the domain's letter inside every node big enough to hold it
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    var letterPx = 0, lettered = 0, drawn = new Set(network.body.nodeIndices);  // not clustered
    for (var i = 0; i < data.nodes.length; i++) {
      if (!visible[i] || !drawn.has(data.nodes[i].id)) continue;
      var n = data.nodes[i], nb = body[n.id], letter = DOMAIN_LETTERS[n.domain];
      if (!nb || !letter) continue;
      var r = (nb.options.size || 8) * scale;
      if (r < 6) continue;
      var p = network.canvasToDOM({ x: nb.x, y: nb.y });
      if (p.x < -r || p.y < -r || p.x > rect.width + r || p.y > rect.height + r) continue;
      var lp = Math.round(Math.min(18, r * 1.1));
      if (lp !== letterPx) { ctx.font = "700 " + lp + "px " + LABEL_FONT; letterPx = lp; }
      ctx.fillStyle = n.type === "event" ? "#1f2733" : "#ffffff";
      ctx.fillText(letter, p.x, p.y + 0.5);
      lettered++;
    }
    lastLettered = lettered;
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    placed.forEach(function (l) {
      ctx.font = (l.px > px ? "600 " : "") + l.px + "px " + LABEL_FONT;
      ctx.lineWidth = 4; ctx.strokeStyle = "rgba(255,255,255,0.92)";
      ctx.strokeText(l.text, l.x + l.w / 2, l.y + 2);
      ctx.fillStyle = "#1f2733";
      ctx.fillText(l.text, l.x + l.w / 2, l.y + 2);
    });
    ctx.restore();
    lastLabels = placed;
  }
  network.on("afterDrawing", drawLabels);

  // -- Qt bridge (QWebChannel), desktop app only ----------------------------------------------
  var bridge = null;
  function notifyBridge(method, payload) {
    if (bridge && typeof bridge[method] === "function") {
      try { bridge[method](JSON.stringify(payload)); } catch (e) { /* ignore */ }
    }
  }
  function attachChannel() {
    /* global QWebChannel, qt */
    new QWebChannel(qt.webChannelTransport, function (channel) {
      var b = channel.objects.bridge;
      if (!b) return;
      bridge = b;
      viewer.bridge = b;
      if (b.focusNode && b.focusNode.connect) b.focusNode.connect(function (id) { select(String(id), { focus: true, notify: false }); });
      if (b.searchRequested && b.searchRequested.connect) b.searchRequested.connect(function (t) { viewer.search(String(t)); });
      if (b.domainsRequested && b.domainsRequested.connect) b.domainsRequested.connect(function (json) {
        try { viewer.setDomainFilter(JSON.parse(json)); } catch (e) { /* ignore */ }
      });
      if (viewer.ready) notifyBridge("viewerReady", { nodes: data.nodes.length, edges: data.edges.length, drawnAt: viewer.drawnAt,
                                                     visible: viewer.firstDrawVisible });
    });
  }
  if (window.qt && window.qt.webChannelTransport) {
    if (typeof window.QWebChannel === "function") attachChannel();
    else {
      var s = document.createElement("script");
      s.src = "qrc:///qtwebchannel/qwebchannel.js";
      s.onload = attachChannel;
      document.head.appendChild(s);
    }
  }

  // -- public API -----------------------------------------------------------------------------
  viewer.nodeCount = function () { return data.nodes.length; };
  viewer.edgeCount = function () { return data.edges.length; };
  viewer.visibleNodeCount = function () { return visibleCount; };
  viewer.visibleNodeIds = function () {
    var out = [];
    for (var i = 0; i < data.nodes.length; i++) if (visible[i]) out.push(data.nodes[i].id);
    return out;
  };
  viewer.select = function (id, opts) { return select(id, opts || { focus: true }); };
  viewer.search = function (text) { $("search").value = String(text || ""); return setSearch(text); };
  function setFilter(set, values, all, sync) {
    set.clear();
    (values && values.length ? values : all).forEach(function (v) { if (all.indexOf(v) >= 0) set.add(v); });
    sync();
    return applyVisibility();
  }
  viewer.setDomainFilter = function (list) { return setFilter(filters.domain, list, DOMAINS, syncDomain); };
  viewer.setKindFilter = function (list) { return setFilter(filters.kind, list, KINDS, syncKind); };
  viewer.setClassFilter = function (list) { return setFilter(filters.cls, list, CLASSES, syncClass); };
  // The host app's filter: `allowed` (node ids, or null for all) and `highlight` (what its search
  // matched, or null): shown are the allowed nodes — with a highlight, only those matched and
  // their neighbours.
  viewer.applyFilter = function (spec) {
    spec = spec || {};
    allowedSet = Array.isArray(spec.allowed) ? new Set(spec.allowed.map(String)) : null;
    hostMatches = Array.isArray(spec.highlight) ? spec.highlight.map(String) : null;
    hostHood = hostMatches ? neighbourhood(hostMatches) : null;
    updateHighlight();
    var count = applyVisibility();
    if (hostMatches && count) fitVisible();
    return count;
  };
  function fitVisible() {       // a search shows what it found, and what is next to it
    var ids = viewer.visibleNodeIds();
    if (ids.length && ids.length < data.nodes.length) {
      fitGraph({ nodes: ids, animation: large ? false : { duration: 300 } });
    }
  }
  viewer.highlightedIds = function () { return Array.from(highlighted).sort(); };
  viewer.setTimeRange = function (start, end) {
    var a = toMs(start), b = toMs(end);
    if (a !== null && b !== null && a > b) { var t = a; a = b; b = t; }
    timeRange.start = a; timeRange.end = b;
    return applyVisibility();
  };
  viewer.timeRange = function () {
    return { start: timeRange.start === null ? null : new Date(timeRange.start).toISOString(),
             end: timeRange.end === null ? null : new Date(timeRange.end).toISOString() };
  };
  viewer.setPanelVisible = function (on) {
    on = !!on;
    panelAllowed = on;
    document.body.classList.toggle("no-panel", !on);
    if (!on) panel.hidden = true;
    else if (viewer.selected) showPanel(viewer.selected);
    return on;
  };
  viewer.setClustered = function (on) {
    openClusters();
    if (on) clusterByDomain();
    // the box says what the graph shows (openClusters above unticks it: tick it after)
    $("cluster").checked = Object.keys(clustered).length > 0;
    network.redraw();
    return Object.keys(clustered).length;
  };
  viewer.domPosition = function (id) {
    var pos = network.getPosition(id);
    var dom = network.canvasToDOM(pos);
    var rect = container.getBoundingClientRect();
    return { x: dom.x + rect.left, y: dom.y + rect.top };
  };
  viewer.fit = function () { fitGraph(); };
  // the labels drawn last: [{id, text, x, y, w, h, px}] in page pixels (tests, tools)
  viewer.labelLayout = function () { return lastLabels.slice(); };
  // how many nodes carry their domain's letter in the last drawing
  viewer.letteredCount = function () { return lastLettered; };
  viewer.isClustered = function (domain) { return !!clustered[domain]; };
  viewer.panelText = function () { return panel.hidden ? "" : panelBody.textContent; };
  viewer.panelVisible = function () { return panelAllowed && !panel.hidden; };

  // A host may set window.pulseViewerInit before the page runs (the desktop app does, so an
  // edit that rebuilds the page never flashes the unfiltered graph):
  // {filter: applyFilter's spec, timeRange: [start, end], panel: false}
  var init = window.pulseViewerInit;
  if (init && typeof init === "object") {
    if (init.panel === false) viewer.setPanelVisible(false);
    if (Array.isArray(init.timeRange)) viewer.setTimeRange(init.timeRange[0], init.timeRange[1]);
    if (init.filter) {
      allowedSet = Array.isArray(init.filter.allowed) ? new Set(init.filter.allowed.map(String)) : null;
      hostMatches = Array.isArray(init.filter.highlight) ? init.filter.highlight.map(String) : null;
      hostHood = hostMatches ? neighbourhood(hostMatches) : null;
      updateHighlight();
      applyVisibility();
      var ids = viewer.visibleNodeIds();
      if (hostMatches && ids.length && ids.length < data.nodes.length) {
        fitGraph({ nodes: ids, animation: false });
        viewer.initFitted = true;
      }
    }
    viewer.initApplied = true;
  }
  // the search box's hint, whole or short: a cut-off "Search names, facts, eve" reads as broken
  var searchBox = $("search"), longHint = searchBox.placeholder;
  function fitSearchHint() {
    var ctx = document.createElement("canvas").getContext("2d");
    ctx.font = getComputedStyle(searchBox).font;
    // Chromium clips a search field's placeholder about 15 px before its padding (the clear
    // button keeps its place even while the field is empty)
    var style = getComputedStyle(searchBox);
    var room = searchBox.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
    searchBox.placeholder = ctx.measureText(longHint).width <= room ? longHint : "Search…";
  }
  window.addEventListener("resize", fitSearchHint);
  // the box also changes width when the toolbar's other parts do (the node count, fonts)
  if (typeof ResizeObserver === "function") new ResizeObserver(fitSearchHint).observe(searchBox);
  fitSearchHint();
  updateCount();
  }
})();
