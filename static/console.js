// console.js helps the learner type lab commands: Tab completes command
// and option names, the command's usage line shows under the input while
// it is typed, and the command history outlives a reload of the tab. The
// vocabulary is the engine's own command table, which the page carries as
// JSON (#lab-commands); app.js still runs the commands and walks the
// history with ↑/↓, reading it from loglabConsole.
"use strict";

(() => {
  const input = document.getElementById("command");
  const table = document.getElementById("lab-commands");
  if (!input || !table) return;
  const commands = JSON.parse(table.textContent) || [];
  const list = document.getElementById("completions");
  const usage = document.getElementById("usage");

  // History lives in sessionStorage: per tab, as a shell's is per
  // terminal, and per page (the browser lab and each live cluster keep
  // their own). Storage can be refused (privacy settings); the console
  // then simply forgets on reload.
  const historyKey = `loglab:history:${location.pathname}`;
  const historyLimit = 200;
  globalThis.loglabConsole = {
    history() {
      try {
        const saved = JSON.parse(sessionStorage.getItem(historyKey) || "[]");
        return Array.isArray(saved) ? saved.filter((l) => typeof l === "string") : [];
      } catch { return []; }
    },
    remember(past) {
      try { sessionStorage.setItem(historyKey, JSON.stringify(past.slice(-historyLimit))); } catch { /* not kept */ }
    },
  };

  // commandOf is the command a line's words start with; a two-word name
  // ("show log") wins over a one-word one.
  function commandOf(words) {
    if (words.length >= 2) {
      const two = commands.find((c) => c.name === `${words[0]} ${words[1]}`);
      if (two) return two;
    }
    return words.length ? commands.find((c) => c.name === words[0]) : undefined;
  }

  // candidates are the completions of partial, the word being typed after
  // the words before it: a command's first word, the second word of a
  // grouped command ("show" → log, isr, …), or an option of the command
  // not given yet ("key=", "--execute "). Each carries what follows it.
  function candidates(words, partial) {
    const unique = (xs) => [...new Set(xs)];
    if (words.length === 0) {
      return unique(commands.map((c) => c.name.split(" ")[0]))
        .filter((w) => w.startsWith(partial)).map((w) => `${w} `);
    }
    if (words.length === 1 && !commands.some((c) => c.name === words[0])) {
      return commands.map((c) => c.name.split(" "))
        .filter((n) => n.length === 2 && n[0] === words[0] && n[1].startsWith(partial))
        .map((n) => `${n[1]} `);
    }
    const cmd = commandOf(words);
    if (!cmd || partial.includes("=")) return [];
    const given = new Set(words.map((w) => w.split("=")[0]));
    return (cmd.options || [])
      .filter((o) => o.startsWith(partial) && !given.has(o))
      .map((o) => (o.startsWith("--") ? `${o} ` : `${o}=`));
  }

  function commonPrefix(xs) {
    let p = xs[0];
    for (const x of xs) while (!x.startsWith(p)) p = p.slice(0, -1);
    return p;
  }

  function showList(items, current) {
    list.replaceChildren(...items.map((item, i) => {
      const li = document.createElement("li");
      li.textContent = item.trim();
      if (i === current) li.className = "current";
      return li;
    }));
    list.hidden = false;
  }

  function hideList() {
    list.hidden = true;
    list.replaceChildren();
  }

  function showUsage() {
    const cmd = commandOf(input.value.trim().split(/\s+/).filter(Boolean));
    usage.textContent = cmd ? `${cmd.usage} — ${cmd.summary}` : "";
  }

  function put(text, rest) {
    input.value = text + rest;
    input.setSelectionRange(text.length, text.length);
    showUsage();
  }

  // cycle is the list a Tab showed; the next Tab, with the line untouched,
  // puts its candidates in turn.
  let cycle = null;
  input.addEventListener("keydown", (ev) => {
    if (ev.key !== "Tab" || ev.ctrlKey || ev.altKey || ev.metaKey) return;
    if (cycle && input.value === cycle.line) {
      ev.preventDefault();
      const n = cycle.items.length;
      cycle.i = ev.shiftKey ? (cycle.i <= 0 ? n - 1 : cycle.i - 1) : (cycle.i + 1) % n;
      put(cycle.head + cycle.items[cycle.i], cycle.rest);
      cycle.line = input.value;
      showList(cycle.items, cycle.i);
      return;
    }
    if (ev.shiftKey) return;
    const caret = input.selectionStart ?? input.value.length;
    const before = input.value.slice(0, caret);
    const rest = input.value.slice(caret);
    const [, head, partial] = before.match(/^(.*?)(\S*)$/s);
    const items = candidates(head.trim().split(/\s+/).filter(Boolean), partial);
    cycle = null;
    if (items.length === 0) { hideList(); return; } // Tab moves focus as usual
    ev.preventDefault();
    if (items.length === 1) {
      put(head + items[0], rest);
      hideList();
      return;
    }
    put(head + commonPrefix(items), rest);
    showList(items, -1);
    cycle = { head, rest, items, i: -1, line: input.value };
  });
  // Typing starts over; ↑/↓ (app.js sets the value) still updates the usage.
  input.addEventListener("input", () => { cycle = null; hideList(); showUsage(); });
  input.addEventListener("keyup", (ev) => { if (ev.key === "ArrowUp" || ev.key === "ArrowDown") showUsage(); });
  input.form?.addEventListener("submit", () => { cycle = null; hideList(); usage.textContent = ""; });
})();
