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
  function snapshot() {
    const m = new Map();
    for (const el of document.querySelectorAll("#cluster-view [data-fragment]")) m.set(el.dataset.fragment, el.outerHTML);
    return m;
  }
  function commandSent() { pending = { before: snapshot(), entries: 0 }; }
  document.addEventListener("submit", (ev) => { if (ev.target.id === "console") commandSent(); }, true);
  document.addEventListener("click", (ev) => {
    if (ev.target.closest("[data-command]") && document.body.dataset.ready === "true") commandSent();
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

  function changedFragments(before) {
    const changed = [];
    for (const el of document.querySelectorAll("#cluster-view [data-fragment]")) {
      const key = el.dataset.fragment;
      if (rank(key) < 0 || collapsed().has(key)) continue;
      if (before.get(key) !== el.outerHTML) changed.push({ key, el, rank: rank(key) });
    }
    // A changed partition changes its topic too: the partition says more.
    const parts = new Set(changed.filter((c) => c.rank === 2).map((c) => c.key.replace(/\/\d+$/, "")));
    return changed.filter((c) => !(c.rank === 3 && parts.has(c.key))).sort((a, b) => a.rank - b.rank);
  }

  function inSight(el) {
    const r = el.getBoundingClientRect();
    const column = el.closest(".cluster");
    const top = column && column.scrollHeight > column.clientHeight ? Math.max(0, column.getBoundingClientRect().top) : 0;
    return r.top >= top && r.top < window.innerHeight - 40;
  }

  function bringIntoSight(changed) {
    const best = changed.filter((c) => c.rank === changed[0].rank);
    const first = best[0].el;
    if (!inSight(first)) {
      const tall = first.getBoundingClientRect().height > window.innerHeight * 0.6;
      first.scrollIntoView({ block: tall ? "start" : "center", inline: "nearest" });
    }
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
    const changed = changedFragments(pending.before);
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

  globalThis.loglabLayout = { collapsed: () => [...collapsed()] };
})();
