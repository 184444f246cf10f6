// layout.js keeps the page's layout: projector mode, the panels the
// learner folded away, the record strips showing their newest offsets,
// and what the learner's last command changed brought into sight.
//
// Its state lives outside #cluster-view (on <html> and on .workspace) and
// in localStorage: the drivers replace or morph the cluster view after
// every command, and that must never undo what the learner chose.
"use strict";

(() => {
  const PROJECTOR = "loglab.layout.projector";
  const COLLAPSED = "loglab.layout.collapsed";
  const store = {
    get(k) { try { return localStorage.getItem(k); } catch { return null; } },
    set(k, v) { try { localStorage.setItem(k, v); } catch { /* private mode: not kept */ } },
  };
  const root = document.documentElement;
  root.dataset.projector = store.get(PROJECTOR) === "on" ? "on" : "off";

  const workspace = () => document.querySelector(".workspace");
  const collapsed = () => new Set((workspace()?.dataset.collapsed || "").split(" ").filter(Boolean));

  // syncControls makes the buttons say the state: the panels' own toggle
  // buttons arrive with every redraw, drawn open.
  function syncControls() {
    const folded = collapsed();
    for (const b of document.querySelectorAll("[data-panel-toggle]")) {
      const open = String(!folded.has(b.dataset.panelToggle));
      if (b.getAttribute("aria-expanded") !== open) b.setAttribute("aria-expanded", open);
    }
    const pressed = String(root.dataset.projector === "on");
    for (const b of document.querySelectorAll('[data-layout-toggle="projector"]')) {
      if (b.getAttribute("aria-pressed") !== pressed) b.setAttribute("aria-pressed", pressed);
    }
  }

  function setCollapsed(set) {
    const ws = workspace();
    if (!ws) return;
    const v = [...set].sort().join(" ");
    if (v) ws.dataset.collapsed = v; else delete ws.dataset.collapsed;
    store.set(COLLAPSED, v);
    syncControls();
  }

  document.addEventListener("click", (ev) => {
    const panel = ev.target.closest("[data-panel-toggle]");
    if (panel) {
      const set = collapsed();
      const key = panel.dataset.panelToggle;
      if (set.has(key)) set.delete(key); else set.add(key);
      setCollapsed(set);
      return;
    }
    if (ev.target.closest('[data-layout-toggle="projector"]')) {
      root.dataset.projector = root.dataset.projector === "on" ? "off" : "on";
      store.set(PROJECTOR, root.dataset.projector);
      syncControls();
    }
  });

  // --- the record strips: newest offsets in sight ---------------------
  // A strip scrolls when a partition holds more records than its width
  // shows. It opens at its end (the newest records, the HW, the LEO) and
  // stays there as records arrive, unless the learner scrolled it back.
  const scrolledBack = new WeakMap();
  document.addEventListener("scroll", (ev) => {
    const s = ev.target;
    if (s instanceof Element && s.matches(".records")) {
      scrolledBack.set(s, s.scrollLeft + s.clientWidth < s.scrollWidth - 2);
    }
  }, true);
  function keepStripsAtTheirEnd() {
    for (const s of document.querySelectorAll("#cluster-view .records")) {
      if (!scrolledBack.get(s) && s.scrollWidth > s.clientWidth) s.scrollLeft = s.scrollWidth;
    }
  }

  // --- what the last command changed ------------------------------------
  // The page's own command (typed, or a button carrying data-command) is
  // remembered with the view as it was; the first redraw after its
  // transcript entry is compared with it, fragment by fragment, and the
  // most telling change is scrolled into sight and flashed. A lesson step
  // that points at an element (lesson.js refocus) has the last word.
  let pending = null;
  let last = null; // what the last command changed, for tests and curious learners
  function snapshot() {
    const m = new Map();
    for (const el of document.querySelectorAll("#cluster-view [data-fragment]")) m.set(el.dataset.fragment, { html: el.outerHTML, records: recordsOf(el) });
    return m;
  }
  const recordsOf = (el) => el.querySelector(".records")?.outerHTML;
  function commandSent(line) {
    // The previous command's flash ends: its class must not read as a change.
    for (const el of document.querySelectorAll("#cluster-view .just-changed")) el.classList.remove("just-changed");
    pending = { before: snapshot(), entries: 0, line: line || "" };
  }
  document.addEventListener("submit", (ev) => {
    if (ev.target.id === "console") commandSent(document.getElementById("command")?.value);
  }, true);
  document.addEventListener("click", (ev) => {
    const c = ev.target.closest("[data-command]");
    if (c && document.body.dataset.ready === "true") commandSent(c.dataset.command);
  }, true);

  // rank orders the changed fragments: what the learner opened, what
  // broke, a partition, a topic, then the panels around them.
  function rank(key) {
    if (key.startsWith("inspector/")) return 0;
    if (key === "violations") return 1;
    if (/^topic\/.+\/\d+$/.test(key)) return 2;
    if (key.startsWith("topic/")) return 3;
    const panels = ["groups", "transactions", "network", "quorum"];
    return panels.includes(key) ? 4 + panels.indexOf(key) : -1;
  }

  // changedFragments are the fragments that differ from before, most
  // telling first. Time passes in most commands, so several partitions
  // may change at once (an ISR shrinking everywhere): among them, those
  // of the topic the command names, then those whose records changed.
  function changedFragments(before, line) {
    const words = new Set(line.split(/[\s=]+/));
    // "produce orders ... partition=2" names orders/2.
    const p = /(?:^|\s)partition=(\d+)/.exec(line);
    if (p) for (const w of [...words]) words.add(w + "/" + p[1]);
    const changed = [];
    for (const el of document.querySelectorAll("#cluster-view [data-fragment]")) {
      const key = el.dataset.fragment;
      if (rank(key) < 0 || collapsed().has(key)) continue;
      const was = before.get(key);
      if (was && was.html === el.outerHTML) continue;
      const topic = key.startsWith("topic/") ? key.split("/")[1] : "";
      const partition = el.dataset.partition || "";
      const named = words.has(partition) ? 0 : words.has(topic) ? 1 : 2;
      const records = !was || was.records !== recordsOf(el) ? 0 : 1;
      changed.push({ key, el, rank: rank(key), order: [rank(key), named, records] });
    }
    // A changed partition changes its topic too: the partition says more.
    const parts = new Set(changed.filter((c) => c.rank === 2).map((c) => c.key.replace(/\/\d+$/, "")));
    const cmp = (a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2];
    const out = changed.filter((c) => !(c.rank === 3 && parts.has(c.key)));
    out.sort(cmp); // stable: document order within equals
    return out.map((c) => ({ ...c, best: cmp(c, out[0]) === 0 }));
  }

  // inSight: the whole element is in sight, or, for one taller than the
  // window, its top is; below the sticky controls and inside the cluster
  // column when that scrolls on its own (a lesson's layout).
  function inSight(el) {
    const r = el.getBoundingClientRect();
    let top = 0, bottom = window.innerHeight;
    const column = el.closest(".cluster");
    if (column && column.scrollHeight > column.clientHeight) {
      const c = column.getBoundingClientRect();
      top = Math.max(top, c.top);
      bottom = Math.min(bottom, c.bottom);
    }
    const controls = document.querySelector("#cluster-view .controls");
    if (controls && getComputedStyle(controls).position === "sticky") top = Math.max(top, controls.getBoundingClientRect().bottom);
    if (r.height > bottom - top) return r.top >= top && r.top < bottom - 40;
    return r.top >= top && r.bottom <= bottom;
  }

  function bringIntoSight(changed) {
    const best = changed.filter((c) => c.best);
    const first = best[0].el;
    const scrolled = !inSight(first);
    if (scrolled) {
      const tall = first.getBoundingClientRect().height > window.innerHeight * 0.6;
      first.scrollIntoView({ block: tall ? "start" : "center", inline: "nearest" });
    }
    last = { keys: changed.map((c) => c.key), scrolled };
    for (const c of best.slice(0, 6)) {
      c.el.classList.remove("just-changed");
      void c.el.offsetWidth; // restart the flash on an element kept by a morph
      c.el.classList.add("just-changed");
      setTimeout(() => c.el.classList.remove("just-changed"), 1600);
    }
  }

  function afterUpdate(records) {
    syncControls();
    keepStripsAtTheirEnd();
    if (!pending) return;
    for (const r of records) {
      if (r.target.id === "transcript") pending.entries += [...r.addedNodes].filter((n) => n.nodeType === 1).length;
    }
    if (pending.entries === 0) return;
    const changed = changedFragments(pending.before, pending.line);
    if (changed.length) {
      if (!document.querySelector("#cluster-view .lesson-focus")) bringIntoSight(changed);
      pending = null;
    } else if (pending.entries > 1) {
      pending = null; // the command changed nothing drawn
    }
  }

  function start() {
    const ws = workspace();
    if (ws) {
      const kept = store.get(COLLAPSED);
      if (kept) ws.dataset.collapsed = kept;
      new MutationObserver(afterUpdate).observe(ws, {
        childList: true, subtree: true, attributes: true, attributeFilter: ["aria-expanded"],
      });
    }
    syncControls();
    keepStripsAtTheirEnd();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();

  globalThis.loglabLayout = { collapsed: () => [...collapsed()], lastChange: () => last };
})();
