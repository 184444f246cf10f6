// morph.js morphs the cluster view's HTML into the page (app.js's
// applyUpdate): globalThis.loglabMorph(el, html, keepLessonFocus).
//
// Most updates change numbers, classes and text inside a fragment whose
// shape stays: a partition's offsets, its replicas' bars, its record strip.
// For such a subtree (the same tags, ids and node kinds, child for child)
// the morph is a walk of both trees that sets what differs, the result
// idiomorph's own matching gives when nothing moved. Where the shape
// differs (a record appended, a message in flight), idiomorph morphs that
// element, as it morphed the whole fragment before. Idiomorph alone, on a
// 3-broker, 12-partition cluster playing, was a quarter of the page's time:
// its node matching costs the same whether or not anything moved.
"use strict";

(() => {
  if (!globalThis.Idiomorph) return; // app.js falls back to outerHTML

  // Form fields keep the learner's state by idiomorph's rules (value,
  // checked, selection), so they always go through it.
  const FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA", "OPTION"]);

  // One template parses every fragment: its innerHTML parses in the
  // template's own inert document, where a DOMParser made a new document
  // for each fragment.
  const parser = document.createElement("template");
  function parse(html) {
    parser.innerHTML = html;
    const el = parser.content.firstElementChild;
    parser.content.replaceChildren();
    return el;
  }

  // alike: a and b are the same node where a morph in place would keep
  // one for the other: same kind, and for elements the same tag and id.
  function alike(a, b) {
    if (a.nodeType !== b.nodeType) return false;
    if (a.nodeType !== Node.ELEMENT_NODE) return true;
    return a.tagName === b.tagName && a.id === b.id && !FIELDS.has(a.tagName);
  }

  function sameChildren(from, to) {
    let a = from.firstChild, b = to.firstChild;
    for (; a && b; a = a.nextSibling, b = b.nextSibling) {
      if (!alike(a, b)) return false;
    }
    return a === null && b === null;
  }

  // syncAttributes makes from's attributes to's; the lesson step's
  // highlight (a class the page put there) stays, as app.js keeps it
  // through idiomorph.
  function syncAttributes(from, to, keepFocus) {
    for (const { name, value } of to.attributes) {
      let want = value;
      if (name === "class" && keepFocus && from.classList.contains("lesson-focus") && !to.classList.contains("lesson-focus")) {
        want = value ? value + " lesson-focus" : "lesson-focus";
      }
      if (from.getAttribute(name) !== want) from.setAttribute(name, want);
    }
    for (let i = from.attributes.length - 1; i >= 0; i--) {
      const name = from.attributes[i].name;
      if (to.hasAttribute(name)) continue;
      if (name === "class" && keepFocus && from.classList.contains("lesson-focus")) {
        from.setAttribute("class", "lesson-focus");
        continue;
      }
      from.removeAttribute(name);
    }
  }

  function idiomorph(from, to, keepFocus) {
    const options = { morphStyle: "outerHTML" };
    if (keepFocus) {
      options.callbacks = {
        beforeNodeMorphed(a, b) {
          if (a.nodeType === Node.ELEMENT_NODE && a.classList.contains("lesson-focus")) b.classList.add("lesson-focus");
          return true;
        },
      };
    }
    Idiomorph.morph(from, to, options);
  }

  // morphElement makes from (on the page) show to (parsed), alike.
  function morphElement(from, to, keepFocus) {
    if (!sameChildren(from, to)) {
      idiomorph(from, to, keepFocus);
      return;
    }
    syncAttributes(from, to, keepFocus);
    for (let a = from.firstChild, b = to.firstChild; a; a = a.nextSibling, b = b.nextSibling) {
      // isEqualNode compares a whole subtree natively: most of a changed
      // fragment is as it was, and is left without a walk.
      if (a.nodeType === Node.ELEMENT_NODE) { if (!a.isEqualNode(b)) morphElement(a, b, keepFocus); }
      else if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue;
    }
  }

  globalThis.loglabMorph = (el, html, keepFocus) => {
    const to = parse(html);
    if (!to || !alike(el, to)) {
      idiomorph(el, to || html, keepFocus);
      return;
    }
    morphElement(el, to, keepFocus);
  };
})();
