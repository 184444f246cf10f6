// lang.js picks the page's language before it is drawn, so a Chinese
// reader never sees the English flash by: the choice remembered from the
// switch, else the first of the browser's preferred languages that loglab
// speaks, else English. Every piece of chrome is in the page in both
// languages (web.T) and CSS shows the chosen one.
//
// An attribute cannot hold two spans, so a tooltip, a placeholder or an
// aria-label is written in English with its Chinese beside it:
// title="…" data-title-zh="…" (placeholder, aria-label alike). In Chinese
// this file puts the Chinese in the attribute and keeps the English in
// data-title-en, on load, on every switch and on whatever the page
// morphs in later (the live server's fragments are the same English bytes
// for every viewer). A line a script writes (the console's status) goes
// through loglabLang.say(el, en, zh), which keeps both and shows one.
"use strict";

(() => {
  const KEY = "loglab-lang";
  const ATTRS = ["title", "placeholder", "aria-label"];
  const SELECTOR = ATTRS.map((a) => `[data-${a}-zh]`).join(",") + ",[data-text-zh]";
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

  // translate puts el's attributes in lang. The English is whatever the
  // attribute holds when it is not the Chinese: a morph that writes a new
  // English title is taken as the English from then on.
  function translate(el, lang) {
    for (const a of ATTRS) {
      const zh = el.getAttribute(`data-${a}-zh`);
      if (zh === null) continue;
      const cur = el.getAttribute(a);
      if (lang === "zh") {
        if (cur !== zh) {
          el.setAttribute(`data-${a}-en`, cur ?? "");
          el.setAttribute(a, zh);
        }
      } else {
        const en = el.getAttribute(`data-${a}-en`);
        if (en !== null && cur === zh) el.setAttribute(a, en);
      }
    }
    // Text alike (an SVG <title>, a status line): data-text-zh.
    const zh = el.getAttribute("data-text-zh");
    if (zh === null) return;
    const cur = el.textContent;
    if (lang === "zh") {
      if (cur !== zh) {
        el.setAttribute("data-text-en", cur);
        el.textContent = zh;
      }
    } else {
      const en = el.getAttribute("data-text-en");
      if (en !== null && cur === zh) el.textContent = en;
    }
  }

  function translateAll(lang) {
    if (!document.body) return;
    for (const el of document.querySelectorAll(SELECTOR)) translate(el, lang);
  }

  function apply(lang) {
    root.dataset.lang = lang;
    root.lang = lang === "zh" ? "zh-CN" : "en";
    translateAll(lang);
    follow(lang);
    document.dispatchEvent(new CustomEvent("loglab:lang", { detail: lang }));
  }

  const current = () => root.dataset.lang;
  globalThis.loglabLang = current;

  // say writes a line of text in both languages, showing the page's; with
  // no zh (an error the server wrote, in English only) the text as is.
  current.say = (el, en, zh) => {
    if (!el) return;
    if (zh === undefined || zh === null) {
      el.removeAttribute("data-text-zh");
      el.removeAttribute("data-text-en");
      el.textContent = en;
      return;
    }
    el.setAttribute("data-text-en", en);
    el.setAttribute("data-text-zh", zh);
    el.textContent = current() === "zh" ? zh : en;
  };
  // attr sets a title, placeholder or aria-label in both languages.
  current.attr = (el, name, en, zh) => {
    if (!el) return;
    el.setAttribute(`data-${name}-zh`, zh);
    el.setAttribute(`data-${name}-en`, en);
    el.setAttribute(name, current() === "zh" ? zh : en);
  };

  // In Chinese, what is added or morphed later is translated as it lands;
  // in English the server's attributes already are the page's, and
  // nothing is observed (a morph costs the page no more than before).
  const observer = new MutationObserver((records) => {
    if (current() !== "zh") return;
    const seen = new Set();
    for (const r of records) {
      if (r.type === "attributes") {
        if (!seen.has(r.target)) { seen.add(r.target); translate(r.target, "zh"); }
        continue;
      }
      // A morph that rewrites an SVG <title>'s English text.
      const host = r.type === "characterData" ? r.target.parentElement : r.target;
      if (host && host.hasAttribute && host.hasAttribute("data-text-zh") && !seen.has(host)) { seen.add(host); translate(host, "zh"); }
      if (r.type === "characterData") continue;
      for (const n of r.addedNodes) {
        if (n.nodeType !== Node.ELEMENT_NODE) continue;
        if (n.matches(SELECTOR) && !seen.has(n)) { seen.add(n); translate(n, "zh"); }
        for (const el of n.querySelectorAll(SELECTOR)) {
          if (!seen.has(el)) { seen.add(el); translate(el, "zh"); }
        }
      }
    }
  });
  let loaded = false;
  function follow(lang) {
    if (!loaded) return;
    if (lang !== "zh") { observer.disconnect(); return; }
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ATTRS.concat(ATTRS.map((a) => `data-${a}-zh`), ["data-text-zh"]),
    });
  }
  document.addEventListener("DOMContentLoaded", () => {
    loaded = true;
    translateAll(current());
    follow(current());
  });

  apply(preferred());

  document.addEventListener("click", (ev) => {
    const button = ev.target.closest("[data-set-lang]");
    if (!button) return;
    const lang = button.dataset.setLang;
    try { localStorage.setItem(KEY, lang); } catch (_) { /* still switch this page */ }
    apply(lang);
  });
})();
