/* pytest-toolcall HTML report: the item browser.
 *
 * The samples arrive as JSON in #toolcall-data. The list shows one page of rows at a time and a detail
 * pane is built only for the item clicked, so 10,000 items cost one JSON.parse and one page of layout.
 * Every value from the report is model output or file content: it is only ever put into the page with
 * textContent (or as an <option> value), never as markup.
 */
(function () {
  "use strict";

  var PAGE_SIZE = 100;
  var data = JSON.parse(document.getElementById("toolcall-data").textContent);
  var samples = data.samples || [];
  var index = data.index || [];
  var regressed = new Set(data.regressed || []);
  var fixed = new Set(data.fixed || []);

  // Fields the detail pane shows in their own sections; any other field is listed under "other fields".
  var HEAD_FIELDS = ["nodeid", "benchmark", "lang", "category", "id", "repeat", "outcome", "score", "process",
    "failure_kind", "latency_s", "from_store", "usage", "ceiling", "turns", "force_quit", "mode"];
  var REASON_FIELDS = ["message", "error", "error_type", "reason", "reason_kind", "validation_reason"];
  var MESSAGE_FIELDS = ["messages", "request", "explanation"];
  var OUTPUT_FIELDS = ["output", "finish_reason"];
  var CALL_FIELDS = ["calls", "decoded", "decoded_calls", "tool_calls", "process_calls"];
  var EXPECTED_FIELDS = ["expected", "expect", "ground_truth", "should_call_tool"];
  var TRANSCRIPT_FIELDS = ["transcript", "dialog", "dialogue", "end_state"];
  var SHOWN = new Set([].concat(HEAD_FIELDS, REASON_FIELDS, MESSAGE_FIELDS, OUTPUT_FIELDS, CALL_FIELDS,
    EXPECTED_FIELDS, TRANSCRIPT_FIELDS, ["steps"]));

  var el = function (id) { return document.getElementById(id); };
  var fBlock = el("f-block"), fCategory = el("f-category"), fOutcome = el("f-outcome"), fKind = el("f-kind");
  var fCompare = el("f-compare"), fSearch = el("f-search");
  var rowsBody = el("item-rows"), detail = el("detail");

  var filtered = [];   // indexes into samples that pass the filters
  var page = 0;
  var selected = -1;
  var lowerIds = null; // built on first search only

  function str(value) { return value === null || value === undefined ? "" : String(value); }
  function blockOf(i) { return str(index[i] && index[i][0]); }
  function kindOf(i) { return str(index[i] && index[i][1]); }

  function make(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  function fillSelect(select, values) {
    var keep = select.value;
    while (select.options.length > 1) select.remove(1);
    values.forEach(function (v) {
      var option = document.createElement("option");
      option.value = v;
      option.textContent = v;
      select.appendChild(option);
    });
    select.value = values.indexOf(keep) >= 0 ? keep : "";
  }

  function distinct(getter, only) {
    var seen = new Set();
    for (var i = 0; i < samples.length; i++) {
      if (only && !only(i)) continue;
      var v = getter(i);
      if (v !== "") seen.add(v);
    }
    return Array.from(seen).sort();
  }

  function refreshCategories() {
    var block = fBlock.value;
    fillSelect(fCategory, distinct(function (i) { return str(samples[i].category); },
      block ? function (i) { return blockOf(i) === block; } : null));
  }

  function applyFilters() {
    var block = fBlock.value, category = fCategory.value, outcome = fOutcome.value, kind = fKind.value;
    var compare = fCompare.value, needle = fSearch.value.trim().toLowerCase();
    if (needle && lowerIds === null) {
      lowerIds = samples.map(function (s) { return (str(s.nodeid) + "\n" + str(s.id)).toLowerCase(); });
    }
    filtered = [];
    for (var i = 0; i < samples.length; i++) {
      var s = samples[i];
      if (block && blockOf(i) !== block) continue;
      if (category && str(s.category) !== category) continue;
      if (outcome && str(s.outcome) !== outcome) continue;
      if (kind && kindOf(i) !== kind) continue;
      if (compare === "regressed" && !regressed.has(s.nodeid)) continue;
      if (compare === "fixed" && !fixed.has(s.nodeid)) continue;
      if (needle && lowerIds[i].indexOf(needle) < 0) continue;
      filtered.push(i);
    }
    sortRows();
    page = 0;
    renderPage();
  }

  // --- sorting: a click on a column's heading sorts by it, a second click reverses ---

  var COLUMNS = [
    function (i) { return str(samples[i].outcome); },
    function (i) { return str(samples[i].nodeid); },
    function (i) { return str(samples[i].category); },
    kindOf,
    function (i) { return typeof samples[i].score === "number" ? samples[i].score : -1; }
  ];
  var sortColumn = -1, sortDescending = false;

  function sortRows() {
    if (sortColumn < 0) return;
    var key = COLUMNS[sortColumn], sign = sortDescending ? -1 : 1;
    var keys = new Map(filtered.map(function (i) { return [i, key(i)]; }));
    filtered.sort(function (a, b) {
      var x = keys.get(a), y = keys.get(b);
      return (x < y ? -1 : x > y ? 1 : a - b) * sign;  // ties keep the report's order
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("#item-table thead th"), function (th, column) {
    th.classList.add("sortable");
    th.addEventListener("click", function () {
      sortDescending = sortColumn === column ? !sortDescending : false;
      sortColumn = column;
      document.querySelectorAll("#item-table thead th").forEach(function (h, c) {
        h.dataset.sort = c === column ? (sortDescending ? "descending" : "ascending") : "";
      });
      sortRows();
      page = 0;
      renderPage();
    });
  });

  function pageCount() { return Math.max(1, Math.ceil(filtered.length / PAGE_SIZE)); }

  function renderPage() {
    page = Math.min(Math.max(page, 0), pageCount() - 1);
    var start = page * PAGE_SIZE, end = Math.min(filtered.length, start + PAGE_SIZE);
    var fragment = document.createDocumentFragment();
    for (var p = start; p < end; p++) {
      var i = filtered[p], s = samples[i];
      var tr = document.createElement("tr");
      tr.dataset.index = String(i);
      tr.tabIndex = 0;  // reachable with the keyboard; Enter opens it
      if (i === selected) tr.className = "selected";
      tr.appendChild(make("td", str(s.outcome), "outcome o-" + str(s.outcome).replace(/[^a-z_]/gi, "")));
      tr.appendChild(make("td", str(s.nodeid), "nodeid"));
      tr.appendChild(make("td", str(s.category)));
      tr.appendChild(make("td", kindOf(i)));
      tr.appendChild(make("td", typeof s.score === "number" ? number(s.score) : "", "num"));
      fragment.appendChild(tr);
    }
    rowsBody.replaceChildren(fragment);
    el("count").textContent = filtered.length + " of " + samples.length + " items";
    el("p-info").textContent = "page " + (page + 1) + " of " + pageCount();
    el("p-prev").disabled = el("p-first").disabled = page === 0;
    el("p-next").disabled = el("p-last").disabled = page >= pageCount() - 1;
  }

  // --- detail pane, built on click only ---

  function pretty(value) {
    if (typeof value === "string") return value;
    try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
  }

  function present(value) {
    return value !== undefined && value !== null && value !== "" &&
      !(Array.isArray(value) && value.length === 0);
  }

  function section(title, nodes) {
    detail.appendChild(make("h3", title));
    nodes.forEach(function (n) { detail.appendChild(n); });
  }

  function pre(value) { return make("pre", pretty(value)); }

  // A measured number as people read it (0.653, 12.5); anything else as it is.
  function number(value) {
    if (typeof value !== "number" || !isFinite(value) || Number.isInteger(value)) return String(value);
    return String(Number(value.toPrecision(Math.abs(value) < 1 ? 3 : 4)));
  }

  // A call's arguments as an object when they are JSON text (the API sends them so), else as they are.
  function readableCalls(calls) {
    if (!Array.isArray(calls)) return calls;
    return calls.map(function (c) {
      if (!c || typeof c !== "object") return c;
      var fn = c["function"] && typeof c["function"] === "object" ? c["function"] : c;
      var args = fn.arguments;
      if (typeof args === "string") { try { args = JSON.parse(args); } catch (e) { /* kept as text */ } }
      return fn.name === undefined ? c : { name: fn.name, arguments: args };
    });
  }

  function collapsible(title, nodes) {
    var box = make("details", null, "fold");
    box.appendChild(make("summary", title));
    nodes.forEach(function (n) { box.appendChild(n); });
    return box;
  }

  // One message of a conversation: who speaks, what they say, the calls they make and what ran.
  function messageNodes(m) {
    var out = [];
    var box = make("div", null, "msg msg-" + str(m.role).replace(/[^a-z_]/gi, ""));
    box.appendChild(make("div", str(m.role) + (m.name ? " (" + m.name + ")" : ""), "msg-role"));
    if (present(m.content)) box.appendChild(pre(m.content));
    if (present(m.tool_calls)) box.appendChild(pre(readableCalls(m.tool_calls)));
    if (present(m.calls)) box.appendChild(pre(m.calls));
    if (present(m.tool_call_id)) box.appendChild(make("div", "tool_call_id: " + str(m.tool_call_id), "msg-role"));
    out.push(box);
    return out;
  }

  // Two messages alike but for their call ids (which differ on every call) are the same message.
  function sameMessage(a, b) {
    var ids = function (key, value) { return key === "id" || key === "tool_call_id" ? undefined : value; };
    return JSON.stringify(a, ids) === JSON.stringify(b, ids);
  }

  // A dialogue stuck in a loop (the same message, or the same pair, again and again) is shown once,
  // with how often it repeated.
  function conversation(messages) {
    var out = [];
    var i = 0;
    while (i < messages.length) {
      var period = 1, times = 1;
      for (var p = 1; p <= 2; p++) {
        var t = 1;
        while (i + (t + 1) * p <= messages.length &&
          messages.slice(i + t * p, i + (t + 1) * p).every(function (m, k) { return sameMessage(m, messages[i + k]); })) t++;
        if (t >= 3) { period = p; times = t; break; }
      }
      for (var k = 0; k < period; k++) {
        var m = messages[i + k];
        if (m === null || typeof m !== "object") out.push(pre(m)); else out = out.concat(messageNodes(m));
      }
      if (times > 1) out.push(make("p", "… the same " + period + " message(s) " + (times - 1) + " more time(s)", "loop"));
      i += period * times;
    }
    return out;
  }

  // A run of identical values (an agent answering the same thing turn after turn) is shown once, with
  // how often it repeated.
  function folded(values) {
    var out = [];
    for (var i = 0; i < values.length;) {
      var j = i + 1;
      while (j < values.length && JSON.stringify(values[j]) === JSON.stringify(values[i])) j++;
      out.push(pre(values[i]));
      if (j - i > 1) out.push(make("p", "… the same " + (j - i - 1) + " more time(s)", "loop"));
      i = j;
    }
    return out;
  }

  function keyTable(s, keys) {
    var table = make("table", null, "kv");
    keys.forEach(function (k) {
      if (!present(s[k])) return;
      var tr = document.createElement("tr");
      tr.appendChild(make("th", k));
      tr.appendChild(make("td", typeof s[k] === "object" ? JSON.stringify(s[k]) : number(s[k])));
      table.appendChild(tr);
    });
    return table;
  }

  function messagesView(messages) {
    if (Array.isArray(messages)) return conversation(messages);
    if (messages && typeof messages === "object" && Array.isArray(messages.messages)) {
      // A request: its conversation, then its tools folded (they are long and rarely the point).
      var out = conversation(messages.messages);
      var tools = messages.tools;
      if (present(tools)) out.push(collapsible((Array.isArray(tools) ? tools.length : "") + " tool(s)", [pre(tools)]));
      return out;
    }
    return [pre(messages)];
  }

  function stepsView(steps) {
    if (!Array.isArray(steps)) return [pre(steps)];
    var keys = [];
    steps.forEach(function (st) {
      if (st && typeof st === "object") Object.keys(st).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
    });
    if (!keys.length) return [pre(steps)];
    var table = make("table", null, "steps");
    var head = document.createElement("tr");
    keys.forEach(function (k) { head.appendChild(make("th", k)); });
    table.appendChild(head);
    steps.forEach(function (st) {
      var tr = document.createElement("tr");
      keys.forEach(function (k) {
        var td = document.createElement("td");
        var v = st && typeof st === "object" ? st[k] : undefined;
        if (present(v)) td.appendChild(typeof v === "string" && v.length < 60 ? document.createTextNode(v) : pre(v));
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    return [table];
  }

  function fieldSections(s, keys, title) {
    keys.forEach(function (k) {
      var value = k === "tool_calls" ? readableCalls(s[k]) : s[k];
      if (present(s[k])) section(k === title ? k : title + " — " + k, [pre(value)]);
    });
  }

  function showDetail(i) {
    selected = i;
    var s = samples[i];
    Array.prototype.forEach.call(rowsBody.children, function (tr) {
      tr.classList.toggle("selected", tr.dataset.index === String(i));
    });
    detail.replaceChildren();
    // The address names the item, so a link to the report can point at it (see the end of this file).
    if (history.replaceState) history.replaceState(null, "", "#item=" + encodeURIComponent(str(s.nodeid)));
    detail.appendChild(make("h3", "item"));
    detail.appendChild(make("p", str(s.nodeid), "detail-nodeid"));
    var head = keyTable(s, HEAD_FIELDS.filter(function (k) { return k !== "nodeid"; }));
    var kind = kindOf(i);
    if (kind && !present(s.failure_kind)) {
      var tr = document.createElement("tr");
      tr.appendChild(make("th", "failure kind"));
      tr.appendChild(make("td", kind));
      head.appendChild(tr);
    }
    if (regressed.has(s.nodeid) || fixed.has(s.nodeid)) {
      var tr2 = document.createElement("tr");
      tr2.appendChild(make("th", "against baseline"));
      tr2.appendChild(make("td", regressed.has(s.nodeid) ? "regressed (pass → fail)" : "fixed (fail → pass)"));
      head.appendChild(tr2);
    }
    detail.appendChild(head);
    var reasons = REASON_FIELDS.filter(function (k) { return present(s[k]); });
    if (reasons.length) section("verdict", [keyTable(s, reasons)]);
    if (present(s.explanation)) section("why it failed", [pre(s.explanation)]);
    ["messages", "request"].forEach(function (k) { if (present(s[k])) section(k, messagesView(s[k])); });
    if (present(s.output)) {
      if (Array.isArray(s.output)) {
        section("output (" + s.output.length + " turns)", folded(s.output));
      } else {
        section("output", [pre(s.output)]);
      }
    }
    if (present(s.finish_reason)) detail.appendChild(make("p", "finish_reason: " + str(s.finish_reason), "msg-role"));
    fieldSections(s, CALL_FIELDS, "calls");
    fieldSections(s, EXPECTED_FIELDS, "expected");
    if (present(s.steps)) section("steps", stepsView(s.steps));
    TRANSCRIPT_FIELDS.forEach(function (k) {
      if (!present(s[k])) return;
      // A transcript that is a list of chat messages reads better as a dialogue than as JSON.
      var dialogue = Array.isArray(s[k]) && s[k].every(function (m) { return m && typeof m === "object" && "role" in m; });
      section(k === "transcript" ? k : "transcript — " + k, dialogue ? messagesView(s[k]) : [pre(s[k])]);
    });
    var rest = {};
    var any = false;
    Object.keys(s).forEach(function (k) { if (!SHOWN.has(k)) { rest[k] = s[k]; any = true; } });
    if (any) section("other fields", [pre(rest)]);
  }

  function showNodeid(nodeid) {
    // Search for it even when it is not in this run (a baseline's unit that did not run): the empty list
    // then says so.
    fBlock.value = ""; fOutcome.value = ""; fKind.value = ""; fCompare.value = "";
    fSearch.value = nodeid;
    refreshCategories();
    fCategory.value = "";
    applyFilters();
    for (var i = 0; i < samples.length; i++) {
      if (samples[i].nodeid === nodeid) {
        showDetail(i);
        return;
      }
    }
  }

  // --- wiring ---

  fillSelect(fBlock, distinct(blockOf));
  refreshCategories();
  fillSelect(fOutcome, distinct(function (i) { return str(samples[i].outcome); }));
  fillSelect(fKind, distinct(kindOf));

  fBlock.addEventListener("change", function () { refreshCategories(); applyFilters(); });
  [fCategory, fOutcome, fKind, fCompare].forEach(function (s) { s.addEventListener("change", applyFilters); });
  var timer = null;
  fSearch.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(applyFilters, 120);
  });
  el("f-reset").addEventListener("click", function () {
    fBlock.value = ""; fOutcome.value = ""; fKind.value = ""; fCompare.value = ""; fSearch.value = "";
    refreshCategories();
    fCategory.value = "";
    applyFilters();
  });
  el("p-first").addEventListener("click", function () { page = 0; renderPage(); });
  el("p-prev").addEventListener("click", function () { page -= 1; renderPage(); });
  el("p-next").addEventListener("click", function () { page += 1; renderPage(); });
  el("p-last").addEventListener("click", function () { page = pageCount() - 1; renderPage(); });
  rowsBody.addEventListener("click", function (event) {
    var tr = event.target.closest("tr");
    if (tr && tr.dataset.index !== undefined) showDetail(Number(tr.dataset.index));
  });
  rowsBody.addEventListener("keydown", function (event) {
    var tr = event.target.closest("tr");
    if (event.key === "Enter" && tr && tr.dataset.index !== undefined) showDetail(Number(tr.dataset.index));
  });
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a.kind-link, a.item-link");
    if (!link) return;
    // Scroll by hand rather than follow href="#items": the address should name the item, not the section.
    event.preventDefault();
    el("items").scrollIntoView();
    if (link.classList.contains("item-link")) {
      showNodeid(link.dataset.nodeid);
    } else {
      fOutcome.value = ""; fCompare.value = ""; fSearch.value = "";
      fBlock.value = link.dataset.block;
      refreshCategories();
      fCategory.value = "";
      fKind.value = link.dataset.kind;
      applyFilters();
    }
  });

  applyFilters();
  if (location.hash.indexOf("#item=") === 0) {
    try { showNodeid(decodeURIComponent(location.hash.slice(6))); } catch (e) { /* a malformed address */ }
  }
  document.body.dataset.ready = "true";
})();
