// app.js is the only JavaScript loglab needs. It connects the console to the
// page's driver — the engine compiled to WASM in the browser lab, or the
// server's live cluster over a websocket — and applies the HTML fragments
// both drivers answer with: a transcript entry and the new cluster view,
// whole or as the fragments of it that changed.
"use strict";

(() => {
  const mode = document.body.dataset.mode;
  const form = document.getElementById("console");
  const input = document.getElementById("command");
  const transcript = document.getElementById("transcript");
  const status = document.getElementById("status");
  if (!form) return; // pages without a console (the index) need nothing
  // A live page's viewer who may not drive its cluster (the server says so
  // in data-can-drive) watches: the console stays disabled, as the server
  // drew it with a note saying who runs commands here, and the view's
  // command buttons are hidden by the page's CSS.
  const canDrive = document.querySelector("[data-can-drive]")?.dataset.canDrive !== "false";

  const lessons = globalThis.loglabLessons;
  let player = null; // the lesson player, on pages that have its panel

  // applyUpdate is the one way the page changes: morph in the whole cluster
  // view (view), then each fragment of it that changed (fragments, each
  // morphed in by its data-fragment key), and append the transcript entries;
  // clear (a lesson rebuilt its lab, or a snapshot) empties the transcript
  // first. Both drivers mostly send fragments, and the whole view when the
  // panels shown changed. It returns false when a fragment has no place on the page:
  // the page no longer shows what the server built on, and must resync.
  function applyUpdate(update) {
    let whole = true;
    // Morphed, not swapped: the nodes of the view stay, so a scrolled
    // strip, a focused button and the animations keep going, and only what
    // changed is touched (idiomorph, static/vendor/). animate.js looks at
    // the messages before and moves them after.
    const changes = update.view || (update.fragments && update.fragments.length);
    const motion = changes && globalThis.loglabAnimate ? globalThis.loglabAnimate.before() : null;
    // What the page, not the server, put on an element (the lesson step's
    // highlight) is carried over rather than stripped and put back. The
    // morph calls it for every node it compares, so only while a
    // highlight is on the page.
    const keepPageState = (from, to) => {
      if (from.nodeType === Node.ELEMENT_NODE && from.classList.contains("lesson-focus")) to.classList.add("lesson-focus");
      return true;
    };
    const keepFocus = !!(changes && document.querySelector(".lesson-focus"));
    const options = { morphStyle: "outerHTML" };
    if (keepFocus) options.callbacks = { beforeNodeMorphed: keepPageState };
    // morph.js walks what kept its shape and leaves the rest to
    // idiomorph. Without the morphing library (static/vendor is built by
    // `make static-deps`) the page still works, redrawing what changed whole.
    const morph = globalThis.loglabMorph
      ? (el, html) => globalThis.loglabMorph(el, html, keepFocus)
      : globalThis.Idiomorph
        ? (el, html) => Idiomorph.morph(el, html, options)
        : (el, html) => { el.outerHTML = html; };
    if (update.view) {
      morph(document.getElementById("cluster-view"), update.view);
    }
    for (const f of update.fragments || []) {
      const el = document.querySelector(`#cluster-view [data-fragment="${CSS.escape(f.key)}"]`);
      if (!el) { whole = false; continue; }
      morph(el, f.html);
    }
    if (update.clear) transcript.innerHTML = "";
    if (update.entry) {
      transcript.insertAdjacentHTML("beforeend", update.entry);
      scrollTranscriptToEnd();
    }
    if (motion) motion.after();
    // refocus moves the highlight to the step's element, should that be
    // another one now, and scrolls it into view.
    if (player && changes) player.refocus(true);
    return whole;
  }

  // The transcript shows its newest entry from the next frame on. Its
  // height, read in the update's task, forced a layout of the whole page
  // there, which the frame then did again: once an update while playing.
  let scrollAsked = false;
  function scrollTranscriptToEnd() {
    if (scrollAsked) return;
    scrollAsked = true;
    requestAnimationFrame(() => {
      scrollAsked = false;
      transcript.scrollTop = transcript.scrollHeight;
    });
  }

  // setStatus writes the console's status line: text is [en, zh], or a
  // string in one language only (an error's own message). lang.js shows
  // the page's language and switches it with the page.
  function setStatus(text, kind) {
    const [en, zh] = Array.isArray(text) ? text : [text];
    if (globalThis.loglabLang && globalThis.loglabLang.say) globalThis.loglabLang.say(status, en, zh);
    else status.textContent = en;
    status.dataset.kind = kind || "";
  }

  // setPlaceholder puts the console's prompt in both languages.
  function setPlaceholder(en, zh) {
    if (globalThis.loglabLang && globalThis.loglabLang.attr) globalThis.loglabLang.attr(input, "placeholder", en, zh);
    else input.placeholder = en;
  }

  function ready(send) {
    // console.js keeps the history for this tab, so it survives a reload.
    const kept = globalThis.loglabConsole;
    const past = kept ? kept.history() : [];
    let cursor = past.length;
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const line = input.value.trim();
      if (!line) return;
      past.push(line);
      if (kept) kept.remember(past);
      cursor = past.length;
      input.value = "";
      send(line);
    });
    // Up and down walk the commands typed so far, as in a shell.
    input.addEventListener("keydown", (ev) => {
      if (ev.key !== "ArrowUp" && ev.key !== "ArrowDown") return;
      ev.preventDefault();
      cursor = Math.max(0, Math.min(past.length, cursor + (ev.key === "ArrowUp" ? -1 : 1)));
      input.value = past[cursor] || "";
    });
    // Anything in the view carrying data-command (a record, say) runs that
    // lab command when clicked: the UI speaks the same language as the console.
    document.addEventListener("click", (ev) => {
      const target = ev.target.closest("[data-command]");
      if (!target || document.body.dataset.ready !== "true" || !canDrive) return;
      send(target.dataset.command);
    });
    document.body.dataset.ready = "true";
    if (!canDrive) return; // the server's note stays in the prompt
    input.disabled = false;
    setPlaceholder("try: produce orders key=a value=1   (Tab completes; help lists the commands)",
      "试试：produce orders key=a value=1   （Tab 补全；help 列出全部命令）");
    // Ready to type, without scrolling a long page down to the prompt.
    input.focus({ preventScroll: true });
  }

  // lessonFromURL is the lesson /lab?lesson=ID&step=N opens (N 1-based).
  function lessonFromURL() {
    const id = document.querySelector(".workspace").dataset.lesson;
    if (!id) return null;
    const n = parseInt(new URLSearchParams(location.search).get("step") || "1", 10);
    return { lesson: id, step: Number.isFinite(n) && n > 0 ? n - 1 : 0 };
  }

  // The browser lab: the engine runs in this page. Commands are chained so
  // they run in the order typed; each returns a promise, so the page never
  // waits on the engine.
  async function startLab() {
    setStatus(["loading the engine…", "正在加载引擎…"]);
    const loaded = new Promise((resolve) => { globalThis.loglabReady = resolve; });
    const response = await fetch("/static/loglab.wasm");
    if (!response.ok) {
      throw new Error(`the WASM engine is missing (${response.status}); build it with: make wasm`);
    }
    const go = new Go();
    const { instance } = await WebAssembly.instantiateStreaming(response, go.importObject);
    go.run(instance);
    await loaded;
    let chain = Promise.resolve();
    // The engine sends the fragments of the view that changed since the
    // drawing it sent last. Should one have no place on the page (the page
    // and the engine disagree on what it shows), the whole view is drawn
    // again, as the live page asks the server for a snapshot.
    const draw = (u) => (applyUpdate(u) ? u : globalThis.loglab.redraw().then(applyUpdate).then(() => u));
    // The engine asks, before drawing a command's view, whether more
    // commands wait behind it: then it leaves the drawing to the last.
    let queued = 0;
    globalThis.loglabQueued = () => queued > 0;
    const send = (line) => {
      queued++;
      chain = chain.then(() => { queued--; return globalThis.loglab.run(line); }).then(draw).then((u) => {
        if (player && u.status) player.show(JSON.parse(u.status));
      });
      return chain;
    };
    if (lessons && document.getElementById("lesson")) {
      player = lessons.player({
        live: false,
        act(action, arg, at) {
          chain = chain.then(() => globalThis.loglab.lesson(action, arg, at)).then((json) => {
            const u = JSON.parse(json);
            applyUpdate(u);
            player.show(u.status, u.error);
          }).catch((err) => {
            // Say so, and keep the chain usable for the next command.
            setStatus(String(err.message || err), "error");
            player.show(undefined, String(err.message || err));
          });
          return chain;
        },
        data: (id) => Promise.resolve(JSON.parse(globalThis.loglab.lessonData(id))),
      });
    }
    const opening = lessonFromURL();
    if (player && opening) {
      setStatus(["replaying the lesson…", "正在重放课程…"]);
      await player.open(opening.lesson, opening.step);
    } else {
      for (const line of globalThis.loglab.starter.split("\n")) {
        await send(line);
      }
    }
    setStatus(["engine running in this page", "引擎在本页面中运行"], "ok");
    globalThis.loglabApp = { send, applyUpdate, setStatus, after: (work) => (chain = chain.then(work)) }; // for timeline.js
    ready(send);
  }

  // The live cluster: the server runs it and pushes every change to every
  // open page, including the results of this page's own commands. Each
  // update carries its id in the cluster's stream; when the connection
  // drops (a laptop asleep, the server restarting, a page too slow), the
  // page reconnects with ?since=ID, the last update it applied: the server
  // sends what it missed, or a snapshot (the whole view and transcript)
  // when it no longer holds all of it, so the page never silently skips
  // a change. The first connection asks since=0: a snapshot, which covers
  // whatever happened between the page's load and its connection.
  function startLive() {
    setStatus(["connecting…", "正在连接…"]);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The page says which of the server's clusters it shows.
    const cluster = document.querySelector("[data-cluster]")?.dataset.cluster || "live";
    let ws = null;
    let lastId = 0;
    let retry = 0;
    let started = false;
    const send = (msg) => {
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify(msg));
      return true;
    };
    if (lessons && document.getElementById("lesson")) {
      // Who drives the cluster moves the room's lesson and reveals its
      // questions; every other viewer predicts for themselves. Every page,
      // the sender's included, draws the server's lesson messages.
      player = lessons.player({
        live: true,
        canDrive: document.querySelector("[data-can-drive]")?.dataset.canDrive !== "false",
        predict(value, at) {
          if (!send({ type: "predict", value, at })) player.show(undefined, "not connected to the live cluster");
        },
        act(action, arg, at) {
          const msg = { type: "lesson", action };
          if (action === "open") { msg.lesson = arg.lesson; msg.step = arg.step; }
          else if (action === "answer") msg.value = arg;
          else if (action === "goto") msg.step = arg;
          if (at !== undefined) msg.at = at;
          // Sending on a socket still connecting throws, on a closed one
          // it is lost: say so, and leave the buttons usable.
          if (!send(msg)) player.show(undefined, "not connected to the live cluster");
        },
        data: (id) => fetch(`/api/lessons/${encodeURIComponent(id)}`).then((r) => {
          if (!r.ok) throw new Error(`lesson ${id}: HTTP ${r.status}`);
          return r.json();
        }),
      });
      lessons.liveMenu((id, step) => player.open(id, step));
    }

    function connect() {
      const params = new URLSearchParams({ cluster, since: String(lastId) });
      const sock = new WebSocket(`${scheme}://${location.host}/ws?${params}`);
      ws = sock;
      sock.addEventListener("message", (ev) => {
        if (ws !== sock) return;
        const msg = JSON.parse(ev.data);
        // Other scripts on the page (realtime.js) follow the messages too.
        document.dispatchEvent(new CustomEvent("loglab:message", { detail: msg }));
        if (msg.type === "update") {
          if (!applyUpdate(msg)) {
            // A fragment the page does not show: start over from a
            // snapshot rather than show a view half of one state.
            lastId = 0;
            sock.close(4000, "resync");
            return;
          }
          if (msg.id) lastId = msg.id;
        } else if (msg.type === "lesson" && player) {
          player.show(msg.status, msg.error, msg.round || 0);
        } else if ((msg.type === "predict" || msg.type === "tally") && player) {
          player.roomMessage(msg);
        }
      });
      sock.addEventListener("open", () => {
        if (ws !== sock) return;
        retry = 0;
        setStatus(["connected to the live cluster", "已连接到共享集群"], "ok");
        if (!started) {
          started = true;
          ready((line) => {
            if (!send({ type: "command", line })) setStatus(["not connected to the live cluster: the command was not sent", "未连接到共享集群：命令没有发出"], "error");
          });
        } else {
          input.disabled = !canDrive;
          document.body.dataset.ready = "true";
        }
      });
      sock.addEventListener("close", (ev) => {
        if (ws !== sock) return;
        input.disabled = true;
        document.body.dataset.ready = "false";
        // Quickly after a drop, then backing off to 10 s while the
        // server stays away.
        const wait = Math.min(10000, 500 * 2 ** retry);
        retry++;
        const s = Math.round(wait / 1000);
        setStatus([`disconnected${ev.reason ? ": " + ev.reason : ""} — reconnecting in ${s} s…`,
          `连接已断开${ev.reason ? "：" + ev.reason : ""} — ${s} 秒后重连…`], "error");
        setTimeout(connect, wait);
      });
    }
    connect();
  }

  try {
    if (mode === "lab") {
      startLab().catch((err) => setStatus(String(err.message || err), "error"));
    } else if (mode === "live") {
      startLive();
    }
  } catch (err) {
    setStatus(String(err.message || err), "error");
  }
})();
