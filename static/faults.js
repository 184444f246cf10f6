// Clickable faults drawn in SVG (a link, a packet, a cut link) are
// role="button" elements, not <button>s: give them a button's keys, Enter
// and Space, by clicking them, so app.js runs their data-command as it
// does for a mouse.
(() => {
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const el = ev.target;
    if (!(el instanceof Element) || el instanceof HTMLButtonElement) return;
    if (el.getAttribute("role") !== "button" || !el.hasAttribute("data-command")) return;
    ev.preventDefault();
    el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
  });
})();
