// lesson.js is the lesson player: it draws a lesson's prose and the
// player's status (lessons.Status) in the panel beside the console, and
// turns its buttons into actions. It decides nothing itself: the engine's
// lessons.Session does, in the page (browser lab, WASM) or on the server
// (live page), and answers with a status this file only draws. On the
// landing page it fills in each lesson's progress instead.
//
// Every piece of chrome is written in both languages as web.T writes it
// (two spans, CSS shows the chosen one), so switching language redraws
// nothing; the lesson's prose comes rendered in both.
"use strict";

(() => {
  const PROGRESS = "loglab-lessons";

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  // T is web.T: chrome in both languages.
  function T(en, zh) {
    return `<span lang="en" data-l="en">${esc(en)}</span><span lang="zh-CN" data-l="zh">${esc(zh)}</span>`;
  }
  // prose is a lesson's rendered HTML in both languages (lessons.Render
  // leaves raw HTML out, so it is safe to insert).
  function prose(h, tag) {
    tag = tag || "div";
    return `<${tag} lang="en" data-l="en">${h.en}</${tag}><${tag} lang="zh-CN" data-l="zh">${h.zh}</${tag}>`;
  }

  // Progress per lesson id: the furthest step seen (1-based) and whether
  // the lesson was finished. Kept in this browser only.
  function loadProgress() {
    try { return JSON.parse(localStorage.getItem(PROGRESS) || "{}") || {}; } catch (_) { return {}; }
  }
  function saveProgress(id, step, steps, done) {
    const all = loadProgress();
    const p = all[id] || { step: 0, done: false };
    p.step = Math.max(p.step || 0, step);
    p.steps = steps;
    p.done = Boolean(p.done || done);
    all[id] = p;
    try { localStorage.setItem(PROGRESS, JSON.stringify(all)); } catch (_) { /* storage off: no progress */ }
  }
  function progressText(p, steps) {
    if (!p || !p.step) return T("not started", "未开始");
    if (p.done) return T("done ✓", "已完成 ✓");
    return T(`step ${p.step} of ${steps}`, `第 ${p.step} / ${steps} 步`);
  }

  function fillCatalogue() {
    const all = loadProgress();
    for (const card of document.querySelectorAll(".lesson-card[data-lesson-id]")) {
      const id = card.dataset.lessonId;
      const p = all[id];
      const out = card.querySelector("[data-progress]");
      out.innerHTML = progressText(p, card.dataset.steps);
      card.dataset.state = !p || !p.step ? "new" : p.done ? "done" : "started";
      if (p && p.step && !p.done) {
        out.insertAdjacentHTML("beforeend", ` <a href="/lab?lesson=${encodeURIComponent(id)}&amp;step=${p.step}">${T("continue", "继续")}</a>`);
      }
    }
  }

  // copyBySelection is the clipboard where navigator.clipboard is not
  // offered (a page served over plain http to a classroom, say).
  function copyBySelection(text) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (_) { ok = false; }
    area.remove();
    return ok;
  }

  // focusForm is the element of the vocabulary a step's focus names,
  // without the " = STATE" a lesson file may add.
  function focusForm(focus) {
    return (focus || "").split(" = ")[0].trim();
  }

  // player builds the panel's behaviour over a driver:
  //   driver.act(action, arg, at)  performs a lesson action meant for
  //                            step at (the answer comes back through
  //                            player.show)
  //   driver.data(id)          -> Promise<lessons.Rendered>
  //   driver.live              true on the live page (no URL to keep)
  //   driver.canDrive          false for a live page's viewer who does
  //                            not drive the cluster: they predict for
  //                            themselves (driver.predict(value, at))
  //                            and the lesson's moves are not theirs
  function player(driver) {
    const panel = document.getElementById("lesson");
    const body = document.getElementById("lesson-body");
    const ask = document.getElementById("lesson-ask");
    const tabs = document.getElementById("lesson-tabs");
    const title = document.getElementById("lesson-title");
    const stepLabel = document.getElementById("lesson-step");
    const link = document.getElementById("lesson-link");
    const input = document.getElementById("command");
    const workspace = document.querySelector(".workspace");
    let data = null;      // lessons.Rendered of the open lesson
    let loading = null;   // the id being fetched
    let status = null;    // lessons.Status
    let hints = 0;        // hints revealed on this step
    let drawnKey = "";    // lesson/step/phase last drawn
    let pending = false;  // an action is on its way
    let waitingError = ""; // a refusal heard while the lesson's prose loads
    // The room (live page): the prediction round the status belongs to,
    // a viewer's own pick in it, the drivers' tally of the room's picks.
    const room = { round: 0, mine: null, tally: null };

    function act(action, arg) {
      if (pending && action !== "close") return Promise.resolve();
      pending = true;
      panel.dataset.busy = "true";
      // The step this button was pressed on: an action that arrives after
      // the lesson moved on (a second click queued behind a slow command,
      // another viewer's Next in the room) is refused, not applied to the
      // next step.
      const at = status && action !== "open" && action !== "close" ? status.step : undefined;
      return Promise.resolve(driver.act(action, arg, at));
    }

    // The console's placeholder cannot hold two spans: lang.js keeps both
    // and shows the page's language.
    function setPlaceholder(en, zh) {
      if (!input) return;
      if (globalThis.loglabLang && globalThis.loglabLang.attr) globalThis.loglabLang.attr(input, "placeholder", en, zh);
      else input.placeholder = en;
    }

    panel.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b || b.disabled) return;
      if (b.dataset.lessonAction) act(b.dataset.lessonAction);
      else if (b.dataset.choice !== undefined) pickChoice(b.dataset.choice);
      else if (b.id === "lesson-hint") { hints++; draw(); showWithin(body, body.querySelector(`.hint[data-hint="${hints}"]`)); }
      else if (b.id === "lesson-close") {
        // The lab's sandbox starts with the starter cluster: a fresh page
        // gives it; the live room goes on with the lesson's cluster.
        if (driver.live) act("close");
        else location.assign("/lab");
      }
    });
    link.addEventListener("click", (ev) => {
      ev.preventDefault();
      const url = link.href;
      const done = () => { link.dataset.copied = "true"; setTimeout(() => { delete link.dataset.copied; }, 1500); };
      if (navigator.clipboard) {
        navigator.clipboard.writeText(url).then(done, () => copyBySelection(url) && done());
      } else if (copyBySelection(url)) {
        done();
      }
    });

    // On a phone the lesson and the cluster take turns (LessonTabs): the
    // cluster tab puts the step's element in sight.
    function setTab(tab) {
      workspace.dataset.tab = tab;
      if (!tabs) return;
      for (const b of tabs.querySelectorAll("button[data-tab]")) {
        b.setAttribute("aria-selected", String(b.dataset.tab === tab));
        if (b.dataset.tab === tab) delete b.dataset.fresh;
      }
    }
    if (tabs) {
      tabs.addEventListener("click", (ev) => {
        const b = ev.target.closest("button[data-tab]");
        if (!b) return;
        setTab(b.dataset.tab);
        if (b.dataset.tab === "cluster") refocus(true);
        else window.scrollTo(0, 0);
      });
    }

    // show is every answer of the driver: the status after an action (null
    // once the lesson is closed) and why an action was refused.
    function show(st, error, round) {
      if (round !== undefined) room.round = round;
      pending = false;
      delete panel.dataset.busy;
      if (st === undefined) {
        if (error) showError(error);
        return;
      }
      status = st;
      if (!st) {
        data = null;
        panel.hidden = true;
        workspace.classList.remove("with-lesson");
        setTab("lesson");
        delete document.body.dataset.lessonPhase;
        if (!driver.live) history.replaceState(null, "", "/lab");
        if (input && !watching()) {
          if (document.body.dataset.ready === "true") input.disabled = false;
          setPlaceholder("try: produce orders key=a value=1   (help lists the commands)", "试试：produce orders key=a value=1   （help 列出全部命令）");
        }
        // No panel to say it in: the console's status line does.
        const line = document.getElementById("status");
        if (error && line) {
          // In English only (the session's refusal): replaces a status
          // line lang.js keeps in both languages.
          if (globalThis.loglabLang && globalThis.loglabLang.say) globalThis.loglabLang.say(line, error);
          else line.textContent = error;
          line.dataset.kind = "error";
        }
        return;
      }
      if (!data || data.id !== st.lesson) {
        // Draw once the lesson's prose is here, with the last refusal
        // heard meanwhile: it would be lost with the early return.
        if (error) waitingError = error;
        if (loading === st.lesson) return;
        loading = st.lesson;
        driver.data(st.lesson).then((d) => {
          loading = null;
          if (d.error) { showError(d.error); return; }
          data = d;
          const why = waitingError;
          waitingError = "";
          if (status) show(status, why);
        }, (err) => { loading = null; showError(String(err.message || err)); });
        return;
      }
      const key = `${st.lesson}/${st.step}`;
      const moved = `${key}/${st.phase}` !== drawnKey;
      const newStep = !drawnKey.startsWith(key + "/");
      if (newStep) hints = 0;
      drawnKey = `${key}/${st.phase}`;
      const kept = [body.scrollTop, ask.scrollTop];
      draw();
      // A command in free play redraws the same step: leave the reader's
      // place alone. A new step or phase shows what it is about: a new
      // step opens on the lesson's tab, an answer marks the cluster's
      // (where it happened) as worth a look.
      if (moved) {
        // A new step opens on the lesson's tab; a phase that changes on
        // the other tab (the answer shown in the cluster, a goal reached
        // while typing) marks the tab not in view as worth a look.
        if (newStep) setTab("lesson");
        else if (tabs) {
          const other = workspace.dataset.tab === "cluster" ? "lesson" : "cluster";
          tabs.querySelector(`[data-tab="${other}"]`).dataset.fresh = "true";
        }
        placeReader(st);
      } else {
        [body.scrollTop, ask.scrollTop] = kept;
      }
      // After the redraw, which would wipe it: why the action was refused.
      if (error) showError(error);
      remember();
      refocus(true);
    }

    // showError says why an action was refused where the reader is
    // looking: at the top of the pinned question (the buttons pressed),
    // else at the top of the narration.
    function showError(text) {
      let e = document.getElementById("lesson-error");
      if (!e) {
        const at = ask.childElementCount ? ask : body;
        at.insertAdjacentHTML("afterbegin", `<p id="lesson-error" class="lesson-error" role="alert"></p>`);
        e = document.getElementById("lesson-error");
        at.scrollTop = 0;
      }
      e.textContent = text;
    }

    function remember() {
      const st = status;
      const done = st.last && st.phase !== "ask" && st.phase !== "goal";
      saveProgress(st.lesson, st.step + 1, st.steps, done);
      const url = `/lab?lesson=${encodeURIComponent(st.lesson)}&step=${st.step + 1}`;
      link.href = new URL(url, location.href).href;
      if (!driver.live) history.replaceState(null, "", url);
    }

    function draw() {
      const st = status;
      const step = data.steps[st.step];
      panel.hidden = false;
      workspace.classList.add("with-lesson");
      panel.dataset.lessonId = st.lesson;
      panel.dataset.step = String(st.step + 1);
      panel.dataset.phase = st.phase;
      document.body.dataset.lessonPhase = st.phase;
      title.innerHTML = prose(data.title, "span");
      stepLabel.innerHTML = T(`Step ${st.step + 1} of ${st.steps}`, `第 ${st.step + 1} / ${st.steps} 步`) +
        (st.goal ? ` <span class="goal-tag">${T("your turn", "轮到你")}</span>` : "");

      let html = "";
      for (const p of step.say || []) html += `<div class="say">${prose(p)}</div>`;
      // What the step asks stays pinned under the narration.
      let asked = "";
      if (step.question) asked += predictCard(step, st);
      if (st.goal) asked += goalBanner(st);
      const finished = st.last && st.phase !== "ask" && st.phase !== "goal";
      if (finished) {
        asked += `<p class="lesson-done">${T("You reached the end of this lesson.", "你已完成本课。")} <a href="/">${T("All lessons", "全部课程")}</a></p>`;
      }
      const hintList = step.hints || [];
      if (hintList.length) {
        html += `<div class="hints">`;
        hintList.slice(0, hints).forEach((h, i) => {
          html += `<p class="hint" data-hint="${i + 1}"><span class="hint-n">${T("Hint", "提示")} ${i + 1}</span> ${prose(h, "span")}</p>`;
        });
        if (hints < hintList.length) {
          html += `<button type="button" id="lesson-hint" class="hint-button">${T(
            `Show a hint (${hintList.length - hints} left)`, `显示提示（还有 ${hintList.length - hints} 条）`)}</button>`;
        }
        html += `</div>`;
      }
      if (st.phase !== "ask" && !watching()) {
        html += `<p class="free-play">${T(
          "The console and the cluster's buttons are yours: try anything. Next replays the lesson, so the next step still starts from the cluster it describes.",
          "控制台和集群上的按钮归你使用：随便试。“下一步”会重放课程，所以下一步仍从它所描述的集群开始。")}</p>`;
      }
      body.innerHTML = html;
      ask.innerHTML = asked;

      document.getElementById("lesson-back").disabled = st.step === 0;
      const next = document.getElementById("lesson-next");
      next.disabled = st.last || st.phase === "ask";
      // At the end the lab's way on is the catalogue; the live room's
      // driver closes the lesson instead.
      const finish = document.getElementById("lesson-finish");
      if (finish) {
        finish.hidden = !(finished && !driver.live);
        next.hidden = !finish.hidden;
      }
      watcherControls();
      // A viewer's console stays as the server drew it: disabled, saying
      // who runs commands here.
      if (input && document.body.dataset.ready === "true" && !watching()) {
        // Before the answer the step's commands have not run: the
        // session refuses commands, so the console says why instead.
        input.disabled = st.phase === "ask";
        if (st.phase === "ask") setPlaceholder("answer the question first", "请先回答问题");
        else setPlaceholder("a lab command (help lists them)", "输入实验命令（help 列出全部命令）");
      }
    }

    // placeReader opens a step's narration at its start (its question is
    // pinned below it) and scrolls the pinned part to what the phase asks
    // to read: the question, the explanation of the answer, the goal
    // reached, the end of the lesson.
    function placeReader(st) {
      body.scrollTop = 0;
      ask.scrollTop = 0;
      if (st.phase === "shown" && st.answer) {
        const whys = ask.querySelectorAll(".predict .why");
        // The engine's answer, and above all the learner's own.
        if (whys.length) { showWithin(ask, whys[whys.length - 1]); showWithin(ask, whys[0]); }
      } else if (st.phase === "reached") {
        showWithin(ask, ask.querySelector(".goal-banner"));
      }
      showWithin(ask, ask.querySelector(".lesson-done"));
    }

    // showWithin scrolls box (the narration or the pinned question), not
    // the page, as little as makes el visible (its top when it is taller
    // than the box).
    function showWithin(box, el) {
      if (!el) return;
      let top = 0;
      // Both boxes are positioned: offsets add up to box.
      for (let n = el; n && n !== box; n = n.offsetParent) top += n.offsetTop;
      const bottom = top + el.offsetHeight;
      if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight + 8;
      if (top < box.scrollTop) box.scrollTop = Math.max(0, top - 8);
    }

    function predictCard(step, st) {
      const asked = st.phase === "ask";
      const answer = ownAnswer(st);
      let html = `<div class="predict" data-state="${asked ? "ask" : "shown"}">`;
      html += `<p class="predict-label">${T("Predict first", "先预测")}</p>`;
      html += `<p class="question">${prose(step.question, "span")}</p><div class="choices-list">`;
      for (const c of step.choices) {
        const right = !asked && c.value === st.right;
        const picked = !asked && c.value === answer;
        // A watcher's own pick, before the reveal.
        const mine = asked && watching() && c.value === answer;
        const cls = ["choice-button", right ? "right" : "", picked || mine ? "picked" : "", picked && !right ? "wrong" : ""].join(" ").trim();
        let mark = "";
        if (right) mark += `<span class="mark-right">${T("✓ the engine's value", "✓ 引擎算出的值")}</span>`;
        if (picked) mark += `<span class="mark-picked">${right ? T("your answer: right", "你的答案：正确") : T("your answer: wrong", "你的答案：错误")}</span>`;
        html += `<button type="button" class="${cls}" data-choice="${esc(c.value)}"${asked ? "" : " disabled"}>${prose(c.text, "span")}${mark}${roomMark(c, asked)}</button>`;
      }
      html += `</div>`;
      if (!asked) {
        const pick = step.choices.find((c) => c.value === answer);
        const right = step.choices.find((c) => c.value === st.right);
        if (pick) {
          html += `<div class="why ${pick === right ? "right" : "wrong"}" data-why="${esc(pick.value)}">${yourPick(pick)}<strong>${pick === right
            ? T("Right.", "答对了。") : T("Not quite.", "不对。")}</strong> ${prose(pick.why, "span")}</div>`;
        }
        if (right && right !== pick) {
          html += `<div class="why right" data-why="${esc(right.value)}"><strong>${T("The engine's answer:", "引擎给出的答案：")}</strong> ${prose(right.text, "span")} — ${prose(right.why, "span")}</div>`;
        }
        if (!right) {
          html += `<div class="why wrong">${T("The engine computed", "引擎算出的值是")} <code>${esc(st.right || "")}</code></div>`;
        }
      } else {
        html += askNote();
      }
      return html + roomTally() + `</div>`;
    }

    function goalBanner(st) {
      if (st.phase === "reached") {
        return `<div class="goal-banner reached" id="goal-banner" role="status">${T("✓ Goal reached!", "✓ 目标达成！")}</div>`;
      }
      if (watching()) {
        return `<div class="goal-banner" id="goal-banner">${T(
          `Goal: ${driverName()} works on it. This turns green when the engine says it holds.`,
          `目标：${driverNameZh()}正在完成它。引擎判定达成时这里会变绿。`)}</div>`;
      }
      return `<div class="goal-banner" id="goal-banner">${T(
        "Goal: use the console or the cluster's buttons. This turns green when the engine says it holds.",
        "目标：使用控制台或集群上的按钮完成。引擎判定达成时这里会变绿。")}</div>`;
    }

    // refocus highlights the element the step is about and scrolls it to
    // the middle of its column: called after every change, since each
    // update replaces the cluster view. An element drawn with display:
    // contents (a replica's row) has no box of its own: its children carry
    // the highlight.
    function refocus(scroll) {
      // Only the current step's element: the view may still carry the
      // highlight of the step before.
      for (const lit of document.querySelectorAll("#cluster-view .lesson-focus")) lit.classList.remove("lesson-focus");
      if (!status || !data) return;
      const form = focusForm(status.focus);
      document.body.dataset.lessonFocus = form;
      if (!form) return;
      const el = document.querySelector(`#cluster-view [data-focus="${CSS.escape(form)}"]`);
      if (!el) return;
      const boxes = el.getClientRects().length ? [el] : Array.from(el.children);
      for (const b of boxes) b.classList.add("lesson-focus");
      if (scroll && boxes.length) {
        placeFocus(el, boxes);
        keepPlaced(el, boxes);
      }
    }

    // placeFocus scrolls the step's element to the middle of its column,
    // unless it is taller than the column: then its top, where a panel's
    // title says what it is.
    function placeFocus(el, boxes) {
      const column = el.closest(".cluster") || document.documentElement;
      // The cluster's controls stay at the top of its column and wrap to
      // more lines as it narrows: what they cover is not in sight.
      const controls = column === document.documentElement ? null : column.querySelector(".controls");
      if (controls && getComputedStyle(controls).position === "sticky") {
        column.style.scrollPaddingTop = `${Math.ceil(controls.getBoundingClientRect().height) + 8}px`;
      }
      const height = boxes.reduce((h, b) => h + b.getBoundingClientRect().height, 0);
      const tall = height > column.clientHeight * 0.75;
      boxes[0].scrollIntoView({ block: tall ? "start" : "center", inline: "nearest" });
    }

    // keepPlaced places the element again when it (or what is drawn above
    // it) changes size after it was placed: a diagram laid out, a panel
    // filled in by a later fragment. Until the reader scrolls or moves on:
    // then where they look is theirs.
    let placed = null;
    function keepPlaced(el, boxes) {
      if (placed && placed.el === el) return;
      if (placed) placed.stop();
      const column = el.closest(".cluster") || document.documentElement;
      const watch = new ResizeObserver(() => placeFocus(el, boxes));
      watch.observe(el);
      if (column !== document.documentElement) for (const child of column.children) watch.observe(child);
      const stop = () => {
        watch.disconnect();
        for (const type of ["wheel", "touchstart", "keydown", "pointerdown"]) removeEventListener(type, stop, true);
        if (placed && placed.el === el) placed = null;
      };
      for (const type of ["wheel", "touchstart", "keydown", "pointerdown"]) addEventListener(type, stop, true);
      placed = { el, stop };
    }


    // ---- The room: on the live page, each viewer predicts for themselves.

    // watching: a live page whose viewer does not drive the cluster. Their
    // answer is their own prediction; the driver's answer is the reveal.
    function watching() { return Boolean(driver.live && driver.canDrive === false); }
    // leading: the live page of a driver, whose answer reveals for the room.
    function leading() { return Boolean(driver.live && driver.canDrive !== false); }
    function onLive() { return (document.querySelector("[data-cluster]")?.dataset.cluster || "live") === "live"; }
    function driverName() { return onLive() ? "the instructor" : "the cluster's owner"; }
    function driverNameZh() { return onLive() ? "讲师" : "集群的主人"; }

    function pickChoice(value) {
      if (!watching()) { act("answer", value); return; }
      if (!status || status.phase !== "ask") return;
      driver.predict(value, status.step);
    }

    // ownAnswer is the answer the card judges: the viewer's own pick in
    // this round on a watcher's page, the driver's (Status.Answer) else.
    function ownAnswer(st) {
      if (!watching()) return st.answer;
      const m = room.mine;
      return m && m.round === room.round && m.lesson === st.lesson && m.step === st.step ? m.pick : "";
    }

    // roomMark is what a choice's button adds for the room: a watcher's
    // own pick before the reveal, the count of the room's picks on a
    // driver's page.
    function roomMark(c, asked) {
      if (watching()) {
        return asked && c.value === ownAnswer(status)
          ? `<span class="mark-picked mark-mine" data-mine="true">${T("your answer", "你的答案")}</span>` : "";
      }
      if (!leading()) return "";
      const t = currentTally();
      const i = t ? t.choices.indexOf(c.value) : -1;
      const n = i >= 0 ? t.counts[i] : 0;
      return `<span class="tally-count" data-count="${n}" title="participants who picked this" data-title-zh='选了这一项的学员'>${n}</span>`;
    }

    function currentTally() {
      const t = room.tally;
      return t && status && t.round === room.round && t.lesson === status.lesson && t.step === status.step ? t : null;
    }

    // roomTally is the driver's line under the choices: how many of the
    // participants watching answered.
    function roomTally() {
      if (!leading()) return "";
      const t = currentTally() || { answered: 0, watching: 0 };
      return `<p class="predict-tally" id="predict-tally" data-answered="${t.answered}" data-watching="${t.watching}">${T(
        `${t.answered} of ${t.watching} answered`, `${t.watching} 人中 ${t.answered} 人已作答`)}</p>`;
    }

    function askNote() {
      if (leading()) {
        return `<p class="predict-note">${T(
          "Each participant predicts on their own page; the counts come in beside the choices. Your answer is the reveal: it runs the step for everyone.",
          "每位学员在自己的页面上预测；人数显示在各选项旁。你的回答就是揭晓：它会为所有人运行这一步。")}</p>`;
      }
      if (watching()) {
        const mine = ownAnswer(status);
        return `<p class="predict-note">${mine
          ? T(`Your answer is yours alone; you may change it until ${driverName()} reveals the engine's.`, `你的答案只属于你；在${driverNameZh()}揭晓引擎的答案之前可以更改。`)
          : T(`Pick one for yourself: ${driverName()} reveals the engine's answer when the room has answered.`, `自己选一个：大家作答后，${driverNameZh()}会揭晓引擎的答案。`)}</p>`;
      }
      return `<p class="predict-note">${T("Pick one: the step runs after your answer.", "选一个：回答之后这一步才会运行。")}</p>`;
    }

    // yourPick names the watcher's own choice above its judgement.
    function yourPick(pick) {
      return watching() ? `<span class="why-pick">${T("Your answer:", "你的答案：")} ${prose(pick.text, "span")}</span> ` : "";
    }

    // roomMessage takes what the server tells this page alone about the
    // room's predictions: its own pick (type "predict", with why it was
    // refused) or the tally (type "tally", drivers only). Only the
    // question's card is drawn again: the narration keeps its place.
    function roomMessage(msg) {
      if (msg.type === "predict") room.mine = msg;
      else if (msg.type === "tally") room.tally = msg;
      if (status && data) redrawPredict();
      if (msg.error) showError(msg.error);
      else if (msg.type === "predict") document.getElementById("lesson-error")?.remove();
    }

    function redrawPredict() {
      const card = ask.querySelector(".predict");
      const step = data.steps[status.step];
      if (!card || !step || !step.question) return;
      const kept = ask.scrollTop;
      card.outerHTML = predictCard(step, status);
      ask.scrollTop = kept;
    }

    // watcherControls: the lesson's moves (Back, Reset, Next, Close) are
    // the driver's; a watcher's page hides them and says who moves it.
    function watcherControls() {
      if (!watching()) return;
      for (const id of ["lesson-back", "lesson-reset", "lesson-next", "lesson-close"]) {
        const b = document.getElementById(id);
        if (b) { b.hidden = true; b.disabled = true; }
      }
      if (!document.getElementById("lesson-watch-note")) {
        document.querySelector(".lesson-nav")?.insertAdjacentHTML("afterbegin",
          `<p id="lesson-watch-note" class="lesson-watch-note">${T(
            `${onLive() ? "The instructor moves" : "The cluster's owner moves"} the lesson; your answers are your own.`,
            `${onLive() ? "讲师" : "集群的主人"}推进课程；你的答案只属于你。`)}</p>`);
      }
    }

    return { show, refocus, roomMessage, open: (id, step) => act("open", { lesson: id, step }) };
  }

  // liveMenu lists the catalogue (GET /api/lessons, the shape of the
  // lab's loglab.lessons()) in the live page's lesson menu, when it is
  // first opened: most visits to the live page never open it.
  function liveMenu(open) {
    const menu = document.getElementById("lesson-menu");
    if (!menu) return;
    let filled = false;
    menu.addEventListener("toggle", () => {
      if (menu.open && !filled) { filled = true; fillMenu(open); }
    });
  }

  async function fillMenu(open) {
    const list = document.getElementById("lesson-menu-list");
    try {
      const r = await fetch("/api/lessons");
      if (!r.ok) throw new Error(`the lesson list: HTTP ${r.status}`);
      for (const l of await r.json()) {
        const li = document.createElement("li");
        // A native lesson (`mode: native`) runs only here, on the server.
        const badge = l.native ? ` <span class="native-badge">${T("native mode", "原生模式")}</span>` : "";
        li.innerHTML = `<button type="button" data-open-lesson="${esc(l.id)}">${prose(l.title, "span")}${badge}</button>`;
        list.appendChild(li);
      }
    } catch (err) {
      list.innerHTML = `<li class="lesson-error">${esc(String(err.message || err))}</li>`;
    }
    list.addEventListener("click", (ev) => {
      const b = ev.target.closest("[data-open-lesson]");
      if (!b) return;
      document.getElementById("lesson-menu").open = false;
      open(b.dataset.openLesson, 0);
    });
  }

  globalThis.loglabLessons = { player, liveMenu, focusForm };

  if (document.body.dataset.mode === "index") fillCatalogue();
})();
