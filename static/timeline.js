// timeline.js drives the browser lab's time controls (web/timeline.templ):
// play/pause at a speed, step, tick, a slider over the session's commands,
// undo, the keyboard, and the session as a script to download, open or
// share as a link (/lab#s=…). Going back in time is the engine's: it
// replays the session's commands up to that point on a fresh lab (same
// seed, same commands: the same cluster), so what the page shows after a
// rewind is what a fresh replay shows, transcript included.
//
// It speaks to the page through globalThis.loglabApp (app.js: send,
// applyUpdate, setStatus, after) and to the engine through
// globalThis.loglab (wasm/main_js.go). Every move goes through app.js's
// chain (after), so it never interleaves with a typed command.
//
// On a server's cluster page (/live, /clusters/:id) the same bar travels
// in the server's cluster's time: see startNative at the end.
"use strict";

(() => {
  const bar = document.getElementById("timeline");
  if (!bar) return;
  // On a server's cluster page the bar travels through the server
  // (startNative, below); in the browser lab through the engine.
  if (document.body.dataset.mode === "live" && bar.dataset.clusterTimeline) {
    startNative(bar, bar.dataset.clusterTimeline);
    return;
  }
  if (document.body.dataset.mode !== "lab") return;
  const $ = (id) => document.getElementById(id);
  const play = $("tl-play"), speed = $("tl-speed"), slider = $("tl-slider");
  const atOut = bar.querySelector("[data-tl-at]"), lengthOut = bar.querySelector("[data-tl-length]");
  const nowCode = $("tl-command"), message = $("tl-message"), help = $("tl-help-overlay");
  const shareURL = $("tl-share-url"), upload = $("tl-upload");

  // A frame of play is this much real time; each runs `tick` for the
  // frame's virtual time at the chosen speed (×0.1: 20ms, ×10: 2s).
  const frameMs = 200;
  let state = { at: 0, length: 0, commands: [], why: "", lesson: false };
  let playing = false;
  let app = null;
  let lastRun = null; // the last command the engine ran: {line, ok}

  function say(html, kind) {
    message.innerHTML = html;
    message.dataset.kind = kind || "";
  }
  function sayError(en, zh, detail) {
    say(both(en, zh) + (detail ? "\n" + escapeHTML(detail) : ""), "error");
  }

  // show draws the slider from the engine's timeline state.
  function show(next) {
    if (!next) return;
    state = typeof next === "string" ? JSON.parse(next) : next;
    // The engine's position, which the slider's preview while dragging
    // does not change: what the page shows is the lab at data-at.
    bar.dataset.at = String(state.at);
    bar.dataset.length = String(state.length);
    slider.max = String(state.length);
    slider.value = String(state.at);
    atOut.textContent = String(state.at);
    lengthOut.textContent = String(state.length);
    nowCode.textContent = state.at > 0 ? state.commands[state.at - 1] : "";
    const off = state.lesson || state.why !== "";
    bar.dataset.disabled = String(off);
    slider.disabled = off;
    for (const id of ["tl-back", "tl-undo", "tl-download", "tl-share"]) $(id).disabled = off;
    upload.disabled = state.lesson;
    if (state.lesson) say(both("A lesson is open: its Back and Reset buttons move in its time.", "课程进行中：用课程的“上一步”和“重置”在其时间中移动。"));
    else if (state.why) say(escapeHTML(state.why), "error");
  }

  // The engine's run answers carry the timeline after each command,
  // whoever sent it (the console, a clicked record, play): follow them.
  function followRuns() {
    const run = globalThis.loglab.run;
    globalThis.loglab.run = (line) => run(line).then((u) => {
      lastRun = { line, ok: !!(u && u.ok) };
      if (u && u.timeline) show(u.timeline);
      return u;
    });
    // Opening or closing a lesson hands the screen to its lab or back to
    // the sandbox: the bar follows (asynchronously, as every call that
    // waits for the engine).
    const lesson = globalThis.loglab.lesson;
    globalThis.loglab.lesson = (...args) => lesson(...args).then((answer) => {
      globalThis.loglab.history().then(show);
      return answer;
    });
  }

  // move runs one of the engine's moves in time (rewind, undo, replay) in
  // the chain and draws its answer; it resolves to whether it moved. A
  // refused move leaves the lab, the transcript and the view as they were.
  function move(what, errEn, errZh) {
    return new Promise((resolve) => {
      app.after(async () => {
        try {
          const u = JSON.parse(await what());
          show(u.timeline);
          if (u.error) {
            // The view is the lab's, unchanged; keep the transcript.
            sayError(errEn, errZh, u.error);
            resolve(false);
            return;
          }
          app.applyUpdate({ clear: u.clear, entry: u.entry, view: u.view });
          say("");
          resolve(true);
        } catch (err) {
          sayError(errEn, errZh, String(err.message || err));
          resolve(false);
        }
      });
    });
  }

  const rewind = (n) => move(() => globalThis.loglab.rewind(n), "Could not go back in time:", "无法回到过去：");
  const undo = () => move(() => globalThis.loglab.undo(), "Could not undo:", "无法撤销：");
  const replay = (script, errEn, errZh) => move(() => globalThis.loglab.replay(script), errEn, errZh);

  // Play: one `tick` per frame, each sent only after the previous one was
  // drawn, so a slow machine plays slower rather than piling up commands.
  // Every tick is a command of the session (it is in the history and the
  // transcript): replaying them one by one is what rebuilds the same
  // cluster, so they are not merged into one longer tick.
  function setPlaying(on) {
    if (on && (state.lesson || !app)) return;
    playing = on;
    bar.dataset.state = on ? "playing" : "paused";
    play.setAttribute("aria-pressed", String(on));
    if (on) frame();
  }
  function frame() {
    if (!playing) return;
    const started = performance.now();
    const line = `tick ${Math.max(1, Math.round(frameMs * Number(speed.value)))}ms`;
    app.send(line).then(() => {
      if (lastRun && lastRun.line === line && !lastRun.ok) {
        // The tick was refused (the end of virtual time, the event
        // budget): stop rather than repeat it.
        setPlaying(false);
        sayError("Play stopped: the tick was refused (see the console).", "播放已停止：tick 被拒绝（见控制台）。");
        return;
      }
      setTimeout(frame, Math.max(0, frameMs - (performance.now() - started)));
    });
  }

  // The session as a script: the lab's commands up to the slider, one a
  // line, in the lab language (a comment line first says what it is).
  function script() {
    const lines = state.commands.slice(0, state.at);
    return "# loglab session: open it with \"open script…\" in the browser lab\n" + lines.join("\n") + "\n";
  }

  function download() {
    const blob = new Blob([script()], { type: "text/plain" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "loglab-session.txt";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 0);
  }

  async function share() {
    const url = `${location.origin}${location.pathname}#s=${await compress(script())}`;
    history.replaceState(null, "", url);
    shareURL.hidden = false;
    shareURL.value = url;
    shareURL.select();
    try {
      await navigator.clipboard.writeText(url);
      say(both("Link copied: it opens this session.", "链接已复制：打开它即可重现本会话。"));
    } catch {
      say(both("Copy the link below: it opens this session.", "复制下面的链接：打开它即可重现本会话。"));
    }
  }

  // openFromURL opens the session a shared link carries, once the lab is
  // up; a link that does not decode, or whose script fails, says so and
  // leaves the starter session.
  async function openFromURL() {
    const m = /^#s=(.*)$/.exec(location.hash);
    if (!m) return;
    let text;
    try {
      text = await decompress(m[1]);
    } catch (err) {
      sayError("The shared link is damaged and could not be opened; this is a new session.", "分享的链接已损坏，无法打开；这是一个新会话。", String(err.message || err));
      return;
    }
    app.setStatus(["opening the shared session…", "正在打开分享的会话…"]);
    const ok = await replay(text, "The shared session could not be opened; this is a new session:", "无法打开分享的会话；这是一个新会话：");
    app.setStatus(ok ? ["shared session opened", "已打开分享的会话"] : ["engine running in this page", "引擎在本页面中运行"], ok ? "ok" : "error");
    if (ok) say(both("Opened the shared session.", "已打开分享的会话。"));
  }

  function toggleHelp(open) {
    help.hidden = open === undefined ? !help.hidden : !open;
  }

  // Keys act unless the learner is typing (the console, the share link)
  // or choosing in a list (a <select>: its arrows pick an option) — then
  // they are the field's. On the slider or a button they keep their
  // meaning here.
  function typing(target) {
    if (!target || !target.closest) return false;
    if (target.closest("select, option")) return true;
    const field = target.closest("input, textarea, [contenteditable='true']");
    return !!field && !["range", "file", "button", "checkbox", "radio"].includes(field.type);
  }
  function onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
    if (document.body.dataset.ready !== "true" || !app) return;
    if (ev.key === "?") {
      ev.preventDefault();
      toggleHelp();
    } else if (ev.key === "Escape" && !help.hidden) {
      toggleHelp(false);
    } else if (ev.key === " ") {
      // Also on a focused button: space is play/pause everywhere but in
      // a field, and the button must not be pressed as well.
      ev.preventDefault();
      setPlaying(!playing);
    } else if (ev.key === "ArrowRight") {
      ev.preventDefault();
      app.send("step");
    } else if (ev.key === "ArrowLeft") {
      ev.preventDefault();
      back();
    }
  }

  function back() {
    if (state.at === 0 || state.lesson || state.why) return;
    setPlaying(false);
    rewind(state.at - 1);
  }

  function start() {
    app = globalThis.loglabApp;
    if (!app || !globalThis.loglab || !globalThis.loglab.rewind) return;
    followRuns();
    bar.hidden = false;
    play.addEventListener("click", () => setPlaying(!playing));
    $("tl-back").addEventListener("click", back);
    $("tl-undo").addEventListener("click", () => { setPlaying(false); undo(); });
    $("tl-help").addEventListener("click", () => toggleHelp());
    $("tl-help-close").addEventListener("click", () => toggleHelp(false));
    $("tl-download").addEventListener("click", download);
    $("tl-share").addEventListener("click", () => share().catch((err) => sayError("Could not make the link:", "无法生成链接：", String(err.message || err))));
    // Dragging shows where it would go; letting go goes there.
    slider.addEventListener("input", () => {
      const n = Number(slider.value);
      atOut.textContent = String(n);
      nowCode.textContent = n > 0 ? state.commands[n - 1] : "";
    });
    slider.addEventListener("change", () => {
      setPlaying(false);
      if (Number(slider.value) !== state.at) rewind(Number(slider.value));
    });
    upload.addEventListener("change", async () => {
      const file = upload.files && upload.files[0];
      if (!file) return;
      setPlaying(false);
      const text = await file.text();
      upload.value = "";
      if (await replay(text, `The script ${file.name} was not opened:`, `脚本 ${file.name} 未能打开：`)) {
        say(both(`Opened ${file.name}.`, `已打开 ${file.name}。`));
      }
    });
    document.addEventListener("keydown", onKey);
    app.after(async () => show(await globalThis.loglab.history())).then(openFromURL);
  }

  // app.js marks the body ready once the engine ran the starter script.
  if (document.body.dataset.ready === "true") start();
  else {
    const watch = new MutationObserver(() => {
      if (document.body.dataset.ready !== "true") return;
      watch.disconnect();
      start();
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
  }

  // both is a message in the two languages the lab speaks (as web.T).
  function both(en, zh) {
    return `<span lang="en" data-l="en">${escapeHTML(en)}</span><span lang="zh-CN" data-l="zh">${escapeHTML(zh)}</span>`;
  }
  function escapeHTML(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  // A link carries the script compressed (deflate-raw) in its fragment,
  // base64url: the fragment never reaches the server.
  async function compress(text) {
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  async function decompress(b64) {
    if (!/^[A-Za-z0-9_-]+$/.test(b64)) throw new Error("the link's data is not base64url");
    const bin = atob(b64.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Response(stream).text();
  }

  // startNative drives the bar on a server's cluster page (/live,
  // /clusters/:id), drawn only for who may change the cluster. The server
  // keeps the session's commands (its command log) and travels in time by
  // replaying them on a fresh cluster (server/rewind.go): the bar asks it
  // to, and the rebuilt transcript and view reach this page, and every
  // page watching, over the websocket like any other change. The bar
  // reads where the session is again after the changes the websocket
  // brings, at most once a second (real time sends two a second), and the
  // session's commands only when the slider needs them.
  function startNative(bar, cluster) {
    const $ = (id) => document.getElementById(id);
    const api = `/api/v1/clusters/${encodeURIComponent(cluster)}`;
    const slider = $("tl-slider"), message = $("tl-message"), help = $("tl-help-overlay");
    const atOut = bar.querySelector("[data-tl-at]"), lengthOut = bar.querySelector("[data-tl-length]");
    const nowCode = $("tl-command"), shareURL = $("tl-share-url"), upload = $("tl-upload");
    let state = { at: 0, length: 0, now: "", why: "", lesson: false };
    // commands are the session's, read for the slider (?commands=1); they
    // hold for the length they were read at.
    let commands = null;
    let busy = false;

    function say(html, kind) {
      message.innerHTML = html;
      message.dataset.kind = kind || "";
    }
    function sayError(en, zh, detail) {
      say(both(en, zh) + (detail ? "\n" + escapeHTML(detail) : ""), "error");
    }

    // show draws the server's timeline: the cluster is after its last
    // command (a rewind drops what was ahead), command 1 its `cluster`.
    function show(next) {
      if (!next) return;
      if (next.length !== state.length || next.now !== state.now) commands = null;
      state = next;
      if (Array.isArray(next.commands)) commands = next.commands;
      bar.dataset.at = String(state.at);
      bar.dataset.length = String(state.length);
      slider.min = state.length > 0 ? "1" : "0";
      slider.max = String(state.length);
      slider.value = String(state.at);
      atOut.textContent = String(state.at);
      lengthOut.textContent = String(state.length);
      nowCode.textContent = state.now || "";
      const off = state.lesson || state.why !== "";
      bar.dataset.disabled = String(off);
      slider.disabled = off || busy;
      $("tl-back").disabled = $("tl-undo").disabled = off || busy || state.at <= 1;
      // Sharing needs the whole session; Download says why it cannot
      // give it and links the raw log instead.
      $("tl-share").disabled = off;
      $("tl-download").disabled = false;
      upload.disabled = state.lesson || busy;
      if (state.lesson) say(both("A lesson is open: its Back and Reset buttons move in its time.", "课程进行中：用课程的“上一步”和“重置”在其时间中移动。"));
      else if (state.why) say(escapeHTML(state.why), "error");
      else if (message.dataset.kind === "error" && message.dataset.sticky !== "true") say("");
    }

    // refresh reads where the session is: at most one read at a time and
    // one a second, the changes arriving meanwhile read once after.
    const refreshEveryMs = 1000;
    let reading = false, pending = false, lastRead = -Infinity, timer = 0;
    function refresh() {
      pending = true;
      if (reading || timer) return;
      const wait = lastRead + refreshEveryMs - performance.now();
      if (wait > 0) {
        timer = setTimeout(() => { timer = 0; refresh(); }, wait);
        return;
      }
      pending = false;
      reading = true;
      lastRead = performance.now();
      fetch(`${api}/timeline`, { headers: { Accept: "application/json" } })
        .then((r) => (r.ok ? r.json() : null))
        .then((t) => show(t))
        .catch(() => {})
        .finally(() => {
          reading = false;
          if (pending) refresh();
        });
    }

    // withCommands reads the session's commands once for this length (the
    // slider's preview), and resolves to them (null if it could not).
    let readingCommands = null;
    function withCommands() {
      if (commands) return Promise.resolve(commands);
      if (!readingCommands) {
        readingCommands = fetch(`${api}/timeline?commands=1`, { headers: { Accept: "application/json" } })
          .then((r) => (r.ok ? r.json() : null))
          .then((t) => { show(t); return commands; })
          .catch(() => null)
          .finally(() => { readingCommands = null; });
      }
      return readingCommands;
    }

    // post sends a move and draws its answer; the move's transcript and
    // view come over the websocket. It resolves to whether it moved.
    async function post(path, body, method, errEn, errZh) {
      if (busy) return false;
      busy = true;
      bar.dataset.busy = "true";
      show(state);
      message.dataset.sticky = "";
      try {
        const r = await fetch(api + path, { method, headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) });
        const answer = await r.json().catch(() => ({}));
        if (answer.timeline) show(answer.timeline);
        if (!r.ok) {
          message.dataset.sticky = "true";
          // A refused move says why in `error`; the server's other
          // refusals (clusterError) put a code there and the words in
          // `message`.
          sayError(errEn, errZh, answer.message || answer.error || `HTTP ${r.status}`);
          return false;
        }
        say(escapeHTML(answer.message || ""));
        return true;
      } catch (err) {
        sayError(errEn, errZh, String(err.message || err));
        return false;
      } finally {
        busy = false;
        bar.dataset.busy = "false";
        show(state);
      }
    }

    // Going back rebuilds the cluster for everyone watching it, and what
    // is dropped cannot be redone here: more than one command is dropped
    // only once the learner confirms.
    function rewind(n) {
      const dropped = state.at - n;
      if (dropped > 1 && !window.confirm(
        `Go back to command ${n} of ${state.length}? The last ${dropped} commands are dropped, for everyone watching this cluster, and cannot be redone.\n` +
        `回到第 ${n} 条命令（共 ${state.length} 条）？最后 ${dropped} 条命令将被丢弃（所有观看者都会看到），且无法重做。`)) {
        show(state); // the slider back where the cluster is
        return Promise.resolve(false);
      }
      return post("/timeline", { action: "rewind", to: n }, "POST", "Could not go back in time:", "无法回到过去：");
    }
    const undo = () => post("/timeline", { action: "undo" }, "POST", "Could not undo:", "无法撤销：");
    function back() {
      if (state.at > 1 && !state.lesson && !state.why && !busy) rewind(state.at - 1);
    }

    // Download gives the session as a script that "open script…" opens
    // (the lines that ran, as the share link has them); the raw command
    // log, typos and all, stays at commands.log.
    async function download() {
      const r = await fetch(`${api}/commands.log?for=lab`);
      const text = await r.text();
      if (!r.ok) {
        let why = text;
        try { why = JSON.parse(text).message || text; } catch { /* plain text */ }
        message.dataset.sticky = "true";
        say(both("Could not download the session:", "无法下载会话：") + "\n" + escapeHTML(why) + "\n" +
          `<a href="${api}/commands.log" download="loglab-${escapeHTML(cluster)}-commands.log">` + both("the raw command log", "原始命令日志") + "</a>", "error");
        return;
      }
      const a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
      a.download = `loglab-${cluster}.lab`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 0);
    }

    // The link opens the session in anyone's browser lab: the server
    // gives the commands as the lab replays them, compressed here as the
    // lab's own share does.
    async function share() {
      const r = await fetch(`${api}/commands.log?for=lab`);
      const text = await r.text();
      if (!r.ok) {
        let why = text;
        try { why = JSON.parse(text).message || text; } catch { /* plain text */ }
        throw new Error(why);
      }
      const url = `${location.origin}/lab#s=${await compress(text)}`;
      shareURL.hidden = false;
      shareURL.value = url;
      shareURL.select();
      try {
        await navigator.clipboard.writeText(url);
        say(both("Link copied: it opens this session in the browser lab.", "链接已复制：在浏览器实验室中打开本会话。"));
      } catch {
        say(both("Copy the link below: it opens this session in the browser lab.", "复制下面的链接：在浏览器实验室中打开本会话。"));
      }
    }

    // ← rebuilds the room's cluster, so it acts only where nothing else
    // takes the arrow: on the page itself or in the time bar (not on its
    // slider, whose arrows move it; letting go moves the cluster).
    function backKeyHere(target) {
      if (!target || target === document.body || target === document.documentElement) return true;
      return !!target.closest && !!target.closest("#timeline") && target.type !== "range" && !typing(target);
    }
    document.addEventListener("keydown", (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
      if (ev.key === "?") {
        ev.preventDefault();
        help.hidden = !help.hidden;
      } else if (ev.key === "Escape" && !help.hidden) {
        help.hidden = true;
      } else if (ev.key === "ArrowLeft" && backKeyHere(ev.target)) {
        ev.preventDefault();
        back();
      }
    });

    $("tl-back").addEventListener("click", back);
    $("tl-undo").addEventListener("click", undo);
    $("tl-help").addEventListener("click", () => { help.hidden = !help.hidden; });
    $("tl-help-close").addEventListener("click", () => { help.hidden = true; });
    $("tl-download").addEventListener("click", () => download().catch((err) => sayError("Could not download the session:", "无法下载会话：", String(err.message || err))));
    $("tl-share").addEventListener("click", () => share().catch((err) => sayError("Could not make the link:", "无法生成链接：", String(err.message || err))));
    // Dragging shows where it would go (the commands read on first use);
    // letting go goes there.
    const preview = () => {
      const n = Number(slider.value);
      atOut.textContent = String(n);
      const shown = (list) => {
        if (Number(slider.value) === n) nowCode.textContent = list && n > 0 ? list[n - 1] || "" : "";
      };
      if (commands) shown(commands);
      else withCommands().then(shown);
    };
    slider.addEventListener("pointerdown", () => { withCommands(); });
    slider.addEventListener("focus", () => { withCommands(); });
    slider.addEventListener("input", preview);
    slider.addEventListener("change", () => {
      if (Number(slider.value) !== state.at) rewind(Number(slider.value));
    });
    upload.addEventListener("change", async () => {
      const file = upload.files && upload.files[0];
      if (!file) return;
      const text = await file.text();
      upload.value = "";
      await post("/commands.log", { script: text }, "POST", `The script ${file.name} was not opened:`, `脚本 ${file.name} 未能打开：`);
    });
    // Every change of the cluster (whoever made it) and of its lesson
    // moves the timeline: read it again.
    document.addEventListener("loglab:message", (ev) => {
      const type = ev.detail && ev.detail.type;
      if (type === "update" || type === "lesson") refresh();
    });
    bar.hidden = false;
    refresh();
  }
})();
