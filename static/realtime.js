// realtime.js keeps the live page's real-time bar (web/realtime.templ)
// current. The server sends {"type":"realtime","state":{state,speed,reason}}
// to every page of the cluster when its driver changes (and to a page that
// connects while the driver has run); the bar's buttons are console
// commands (data-command), which app.js already sends. app.js owns the
// websocket and hands each message it reads to the page as a
// "loglab:message" event on document, whose detail is the parsed message.
"use strict";

(() => {
  const bar = document.getElementById("realtime");
  if (!bar) return;

  function show(st) {
    if (!st || !["off", "on", "paused"].includes(st.state)) return;
    const speed = Number(st.speed) || 1;
    bar.dataset.state = st.state;
    bar.querySelector("[data-rt-speed]").textContent = String(speed);
    bar.querySelector("[data-rt-reason]").textContent = st.reason || "";
    for (const b of bar.querySelectorAll("[data-rt-speed-value]")) {
      b.setAttribute("aria-pressed", String(Number(b.dataset.rtSpeedValue) === speed));
    }
  }

  document.addEventListener("loglab:message", (ev) => {
    const msg = ev.detail;
    if (msg && msg.type === "realtime") show(msg.state);
  });
  globalThis.loglabRealtime = { show };
})();
