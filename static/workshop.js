// The workshop bar on a live page: "Open my own cluster" asks the server
// for the participant's own cluster (POST /api/v1/clusters, JSON, so no
// other site's form can do it) and goes there.
(function () {
  "use strict";
  const form = document.getElementById("open-own-cluster");
  if (!form) return;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      const resp = await fetch("/api/v1/clusters", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: form.elements.name.value }),
      });
      const body = await resp.json();
      if (!resp.ok) throw new Error(`${body.error}: ${body.message}`);
      location.assign(body.url);
    } catch (err) {
      const status = document.getElementById("status");
      if (status) {
        // The server's message, in English: said as is, replacing a
        // status line kept in both languages (lang.js).
        const text = String(err.message || err);
        if (globalThis.loglabLang && globalThis.loglabLang.say) globalThis.loglabLang.say(status, text);
        else status.textContent = text;
      }
      button.disabled = false;
    }
  });
})();

// The instructor's overview redraws its table every few seconds from the
// same page the server renders, so new participants and their last
// commands appear without a reload.
(function () {
  "use strict";
  if (!document.getElementById("clusters-overview")) return;
  setInterval(async () => {
    try {
      const resp = await fetch("/instructor", { headers: { Accept: "text/html" } });
      if (!resp.ok) return;
      const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
      const fresh = doc.getElementById("clusters-overview");
      const shown = document.getElementById("clusters-overview");
      if (fresh && shown) shown.replaceWith(fresh);
    } catch (_) {
      // The server restarting: the next round tries again.
    }
  }, 5000);
})();
