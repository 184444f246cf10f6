// animate.js moves the network diagram's messages between steps. app.js
// calls before() ahead of each update it morphs into the page and after()
// once it is in: each message sent since sets off from its sender along
// its link to where it now is; each one no longer in flight goes on to its
// receiver (or, dropped, fades where it was); one that stayed in flight
// but whose arrow moved slides to its new place. The learner picks the
// speed (#anim-speed, outside the view, kept in localStorage); 0 turns it
// off, and so does a system asking for reduced motion until the learner
// turns it on here. After each update it reports what it moved in a
// loglab:animated event ({ moved, speed, ms }: ms is how long the update
// took to land, the morph included, for the e2e tests to print).
"use strict";

(() => {
  const KEY = "loglab-anim-speed";
  const SPEEDS = ["0", "0.25", "0.5", "1", "2", "4"];
  // A move at ×1: long enough to follow with the eye, short enough that a
  // learner stepping quickly is not kept waiting.
  const BASE_MS = 700;
  const reduced = matchMedia("(prefers-reduced-motion: reduce)");
  const select = document.getElementById("anim-speed");

  function stored() {
    try { return localStorage.getItem(KEY); } catch (_) { return null; }
  }
  function chosen() {
    const s = stored();
    if (SPEEDS.includes(s)) return s;
    return reduced.matches ? "0" : "1";
  }

  let speed = chosen();
  function show() {
    document.body.dataset.animSpeed = speed;
    if (select) select.value = speed;
  }
  show();
  if (select) {
    select.addEventListener("change", () => {
      speed = SPEEDS.includes(select.value) ? select.value : "1";
      try { localStorage.setItem(KEY, speed); } catch (_) { /* kept for this page only */ }
      show();
      if (speed === "0") stopAll();
    });
  }
  reduced.addEventListener("change", () => {
    if (!SPEEDS.includes(stored())) { speed = chosen(); show(); }
  });
  // An <option> holds text only, not web.T's two spans: the "off" one
  // follows the page's language here.
  function translate(lang) {
    for (const o of select ? select.querySelectorAll("option[data-en]") : []) {
      o.textContent = (lang === "zh" ? o.dataset.zh : o.dataset.en) || o.dataset.en;
    }
  }
  translate(document.documentElement.dataset.lang);
  document.addEventListener("loglab:lang", (ev) => translate(ev.detail));

  // moves are the animations running, by the element they move.
  const moves = new Map();

  // stopAll ends every move at once, where it was going: the next update
  // starts from the diagram at rest.
  function stopAll() {
    for (const [el, anim] of moves) {
      anim.cancel();
      if (el.classList.contains("ghost")) el.remove();
      else el.classList.remove("moving");
    }
    moves.clear();
  }

  function diagram() {
    return document.querySelector("#cluster-view #network svg.diagram");
  }

  const key = (g) => `${g.dataset.from}\u2192${g.dataset.to}`;
  // A message is its id in the engine (the packet's data-message-id): the
  // arrow of a link draws its newest message in flight, which may be
  // another one after an update.
  const message = (g) => {
    const packet = g.querySelector(":scope > .packet");
    return `${g.dataset.kind}#${(packet && packet.dataset.messageId) || ""}`;
  };
  const point = (c) => ({ x: Number(c.getAttribute("cx")), y: Number(c.getAttribute("cy")) });

  // curve is the path's point at t in [0, 1]. The diagram draws each arrow
  // as one quadratic curve ("M s Q c e", web/diagram.go): evaluated here,
  // since the browser's getPointAtLength costs a fraction of a millisecond
  // a call, which over a busy diagram would delay the update. Any other
  // shape is measured by the browser.
  function curve(path) {
    const d = (path.getAttribute("d") || "").trim();
    const n = d.match(/-?[\d.]+/g);
    if (n && n.length === 6 && /^M[^A-Za-z]*Q[^A-Za-z]*$/.test(d)) {
      const [sx, sy, cx, cy, ex, ey] = n.map(Number);
      return (t) => {
        const u = 1 - t;
        return { x: u * u * sx + 2 * u * t * cx + t * t * ex, y: u * u * sy + 2 * u * t * cy + t * t * ey };
      };
    }
    const total = path.getTotalLength();
    return (t) => {
      const p = path.getPointAtLength(total * t);
      return { x: p.x, y: p.y };
    };
  }

  // along is the curve of path between the point nearest to at and its
  // start (towards 0) or its end (towards 1), as points at even steps.
  function along(path, at, towards) {
    const c = curve(path);
    let nearest = 0;
    let best = Infinity;
    for (let i = 0; i <= 50; i++) {
      const p = c(i / 50);
      const d = Math.hypot(p.x - at.x, p.y - at.y);
      if (d < best) { best = d; nearest = i / 50; }
    }
    const from = towards === 0 ? 0 : nearest;
    const to = towards === 0 ? nearest : 1;
    const pts = [];
    for (let i = 0; i <= 12; i++) pts.push(c(from + ((to - from) * i) / 12));
    return pts;
  }

  // snapshot is every message in flight on the diagram before an update,
  // and the rest of its way.
  function snapshot(svg) {
    const was = new Map();
    for (const g of svg.querySelectorAll("g.link")) {
      const packet = g.querySelector(":scope > .packet");
      const path = g.querySelector(":scope > path");
      if (!packet || !path) continue;
      const at = point(packet);
      was.set(key(g), { message: message(g), at, rest: along(path, at, 1) });
    }
    return was;
  }

  // slide moves el through points, given relative to origin, and leaves it
  // at origin (or, a ghost, removes it).
  function slide(el, points, origin, ms, fade) {
    const frames = points.map((p) => ({ transform: `translate(${p.x - origin.x}px, ${p.y - origin.y}px)` }));
    if (fade) frames[frames.length - 1].opacity = 0;
    el.classList.add("moving");
    const anim = el.animate(frames, { duration: ms, easing: "ease-in-out", fill: fade ? "forwards" : "none" });
    anim.id = "loglab-move";
    moves.set(el, anim);
    anim.finished.then(() => {
      if (moves.get(el) !== anim) return;
      moves.delete(el);
      if (el.classList.contains("ghost")) el.remove();
      else el.classList.remove("moving");
    }, () => { /* cancelled by stopAll, which tidied up */ });
  }

  // ghost draws a message that left the diagram's arrows finishing its way.
  function ghost(svg, old, fate, ms) {
    const links = svg.querySelector("g.links");
    if (!links) return;
    const c = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    c.setAttribute("class", "packet ghost");
    c.setAttribute("cx", "0");
    c.setAttribute("cy", "0");
    c.setAttribute("r", "6");
    links.appendChild(c);
    // Dropped by the network: it fades where it was.
    const points = fate === "dropped" ? [old.at, old.at] : old.rest;
    slide(c, points, { x: 0, y: 0 }, ms, true);
  }

  // move works out every move first and starts them after: starting an
  // animation invalidates the page's style, and measuring a path after it
  // would make the browser recompute the whole page's style once per link.
  function move(was) {
    const svg = diagram();
    if (!svg) return 0;
    const ms = BASE_MS / Number(speed);
    const plans = [];
    const inFlight = new Map();
    const fates = new Map();
    for (const g of svg.querySelectorAll("g.link")) {
      fates.set(key(g), g.dataset.fate);
      const packet = g.querySelector(":scope > .packet");
      const path = g.querySelector(":scope > path");
      if (!packet || !path) continue;
      inFlight.set(key(g), message(g));
      const old = was.get(key(g));
      const at = point(packet);
      if (old && old.message === message(g)) {
        // Still in flight: it moves only if its arrow did.
        if (Math.hypot(old.at.x - at.x, old.at.y - at.y) > 0.5) plans.push(() => slide(packet, [old.at, at], at, ms));
        continue;
      }
      const from = along(path, at, 0);
      plans.push(() => slide(packet, from, at, ms));
    }
    for (const [k, old] of was) {
      if (inFlight.get(k) === old.message) continue;
      plans.push(() => ghost(svg, old, fates.get(k), ms));
    }
    for (const start of plans) start();
    return plans.length;
  }

  function report(moved, since) {
    const ms = performance.now() - since;
    document.dispatchEvent(new CustomEvent("loglab:animated", { detail: { moved, speed: Number(speed), ms } }));
  }

  function before() {
    const since = performance.now();
    stopAll();
    const svg = speed === "0" ? null : diagram();
    const was = svg ? snapshot(svg) : null;
    return { after: () => report(was ? move(was) : 0, since) };
  }

  globalThis.loglabAnimate = { before };
})();
