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
  // remembered; the fragments the updates after it change are collected
  // from the mutations the morphs make (a morph touches only what differs,
  // so a mutation inside a fragment is a change to it), and once its
  // transcript entry is in, the most telling change is scrolled into sight
  // and flashed. A lesson step that points at an element (lesson.js
  // refocus) has the last word. (Comparing each fragment's outerHTML
  // before and after, as this once did, serialised the whole view twice a
  // command: a fifth of the page's time while a 12-partition cluster
  // played.)
  let pending = null; // { changes: Map(key → {records}), entries, line }
  let last = null; // what the last command changed, for tests and curious learners
  let observer = null;
  function commandSent(line) {
    // The previous command's flash ends: its class must not read as a change.
    for (const el of document.querySelectorAll("#cluster-view .just-changed")) el.classList.remove("just-changed");
    // What happened before the command belongs to the one before it.
    if (observer) afterUpdate(observer.takeRecords());
    pending = { changes: new Map(), entries: 0, line: line || "" };
  }
  document.addEventListener("submit", (ev) => {
    if (ev.target.id === "console") commandSent(document.getElementById("command")?.value);
  }, true);
  document.addEventListener("click", (ev) => {
    const c = ev.target.closest("[data-command]");
    if (c && document.body.dataset.ready === "true") commandSent(c.dataset.command);
  }, true);

  // The classes the page itself puts on the view's elements (this file's
  // flash, the lesson's highlight) are not the cluster's changes.
  const pageClasses = new Set(["just-changed", "lesson-focus"]);
  const serverClasses = (s) => (s || "").split(/\s+/).filter((c) => c && !pageClasses.has(c)).sort().join(" ");
  function pageOnly(r) {
    return r.type === "attributes" && r.attributeName === "class" &&
      serverClasses(r.oldValue) === serverClasses(r.target.getAttribute("class"));
  }

  // noteChanges adds the fragments records touched to pending.changes: the
  // fragment around each mutated node and the fragments around that one (a
  // partition's change is its topic's too), and every fragment in a node
  // added whole. records says a fragment's own record strip changed.
  function noteChanges(records) {
    const mark = (f, records) => {
      if (!f.closest("#cluster-view")) return;
      const key = f.dataset.fragment;
      const was = pending.changes.get(key);
      pending.changes.set(key, { records: records || (was ? was.records : false) });
    };
    for (const r of records) {
      if (r.type === "childList") {
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue;
          if (n.matches("[data-fragment]")) mark(n, true);
          for (const f of n.querySelectorAll("[data-fragment]")) mark(f, true);
        }
      }
      if (pageOnly(r)) continue;
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!el) continue;
      const strip = el.closest(".records");
      for (let f = el.closest("[data-fragment]"); f; f = f.parentElement && f.parentElement.closest("[data-fragment]")) {
        mark(f, !!strip && strip.closest("[data-fragment]") === f);
      }
    }
  }

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

  // changedFragments are the fragments changed since the command, most
  // telling first. Time passes in most commands, so several partitions
  // may change at once (an ISR shrinking everywhere): among them, those
  // of the topic the command names, then those whose records changed.
  function changedFragments(changes, line) {
    const words = new Set(line.split(/[\s=]+/));
    // "produce orders ... partition=2" names orders/2.
    const p = /(?:^|\s)partition=(\d+)/.exec(line);
    if (p) for (const w of [...words]) words.add(w + "/" + p[1]);
    const folded = collapsed();
    const changed = [];
    for (const el of document.querySelectorAll("#cluster-view [data-fragment]")) {
      const key = el.dataset.fragment;
      const change = changes.get(key);
      if (!change || rank(key) < 0 || folded.has(key)) continue;
      const topic = key.startsWith("topic/") ? key.split("/")[1] : "";
      const partition = el.dataset.partition || "";
      const named = words.has(partition) ? 0 : words.has(topic) ? 1 : 2;
      const records = change.records ? 0 : 1;
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

  // afterUpdate follows the page's changes: it notes what changed for the
  // pending command and leaves everything that reads the layout (the
  // strips' widths, where the change is) to the next frame, once for all
  // the updates before it. Read here, in the update's task, each read
  // forced a layout of the page that the frame then did again.
  let frameAsked = false;
  function afterUpdate(records) {
    if (pending) {
      noteChanges(records);
      for (const r of records) {
        if (r.target.id === "transcript") pending.entries += [...r.addedNodes].filter((n) => n.nodeType === 1).length;
      }
    }
    if (!frameAsked) {
      frameAsked = true;
      requestAnimationFrame(beforeFrame);
    }
  }

  function beforeFrame() {
    frameAsked = false;
    syncControls();
    keepStripsAtTheirEnd();
    if (!pending || pending.entries === 0) return;
    const changed = changedFragments(pending.changes, pending.line);
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
      observer = new MutationObserver(afterUpdate);
      observer.observe(ws, { childList: true, subtree: true, attributes: true, attributeOldValue: true, characterData: true });
    }
    syncControls();
    keepStripsAtTheirEnd();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();

  globalThis.loglabLayout = { collapsed: () => [...collapsed()], lastChange: () => last };
})();
