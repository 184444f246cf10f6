// lang.js picks the page's language before it is drawn, so a Chinese
// reader never sees the English flash by: the choice remembered from the
// switch, else the first of the browser's preferred languages that loglab
// speaks, else English. Every piece of chrome is in the page in both
// languages (web.T) and CSS shows the chosen one.
"use strict";

(() => {
  const KEY = "loglab-lang";
  const root = document.documentElement;

  function preferred() {
    let saved = null;
    try { saved = localStorage.getItem(KEY); } catch (_) { /* storage off: follow the browser */ }
    if (saved === "en" || saved === "zh") return saved;
    for (const tag of navigator.languages || [navigator.language || "en"]) {
      const t = String(tag).toLowerCase();
      if (t.startsWith("zh")) return "zh";
      if (t.startsWith("en")) return "en";
    }
    return "en";
  }

  function apply(lang) {
    root.dataset.lang = lang;
    root.lang = lang === "zh" ? "zh-CN" : "en";
    document.dispatchEvent(new CustomEvent("loglab:lang", { detail: lang }));
  }

  apply(preferred());
  globalThis.loglabLang = () => root.dataset.lang;

  document.addEventListener("click", (ev) => {
    const button = ev.target.closest("[data-set-lang]");
    if (!button) return;
    const lang = button.dataset.setLang;
    try { localStorage.setItem(KEY, lang); } catch (_) { /* still switch this page */ }
    apply(lang);
  });
})();
