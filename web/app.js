// The page of `nimtb serve`: plain JavaScript over the server's JSON API
// (the same JSON as `nimtb query --json`, `info --json`, `dump --count --json`).
"use strict";

const $ = (id) => document.getElementById(id);

// GET (or POST with a JSON body) an API path; throws an Error with the server's message.
async function api(path, params = {}, body = undefined) {
  const url = path + "?" + new URLSearchParams(params).toString();
  const res = await fetch(url, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error || res.statusText);
  return json;
}

function showError(e) {
  const p = $("error");
  p.textContent = e ? String(e.message || e) : "";
  p.hidden = !e;
}

// Runs an async action, showing its error instead of losing it.
function guard(action) {
  return async (...args) => {
    try {
      showError(null);
      await action(...args);
    } catch (e) {
      showError(e);
    }
  };
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

const heapsText = (heaps) => heaps.filter((h) => h > 0).join(" ") || "(empty)";
const remotenessText = (r) => (r === null ? "not stored" : String(r));

// The colour of a value on the boards: P-positions (value 0) dark, others by hue.
function valueColour(v) {
  if (v === null) return "transparent";
  if (v === 0) return "#263238";
  return `hsl(${((v - 1) * 67) % 360}, 65%, 74%)`;
}

// ---------------------------------------------------------------- views

function showView(name) {
  for (const s of document.querySelectorAll(".view")) s.hidden = s.id !== name;
  for (const b of document.querySelectorAll("nav button")) {
    b.classList.toggle("active", b.dataset.view === name);
  }
  if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
}

let tables = [];

async function loadTables() {
  tables = (await api("/api/tables")).tables;
  for (const select of document.querySelectorAll(".table-select")) {
    const keep = select.value;
    select.replaceChildren(...tables.map((t) => el("option", { value: t.path },
      `${t.path} — ${t.rules} ${t.convention}, ${t.positions} positions`)));
    if (tables.some((t) => t.path === keep)) select.value = keep;
  }
}

// ---------------------------------------------------------------- play

// The game's state machine: setup -> human-turn | computer-turn -> ... -> game-over.
const game = {
  state: "setup", table: null, convention: "normal", heaps: [], toMove: 0,
  sides: [], level: "perfect", history: [], probe: null, draws: [], serial: 0,
};

function setPlayState(state, text) {
  game.state = state;
  $("play-state").textContent = state;
  $("play-state").dataset.state = state;
  $("play-status").textContent = text;
}

async function newGame(event) {
  if (event) event.preventDefault();
  const params = { rules: $("play-rules").value.trim(), convention: $("play-convention").value };
  if ($("play-layout").value === "hand") params.position = $("play-heaps").value;
  else params.layout = $("play-layout").value;
  const found = await api("/api/find", params);
  const opponent = $("play-opponent").value, level = $("play-level").value;
  game.serial += 1;  // a computer move of an earlier game is dropped
  Object.assign(game, {
    table: found.table, convention: found.info.convention, heaps: found.start, toMove: 0,
    level, history: [], draws: [],
  });
  const person = { human: true, name: "you" };
  const computer = { human: false, name: `computer (${level})` };
  game.sides = opponent === "human"
    ? [{ human: true, name: "player 1" }, { human: true, name: "player 2" }]
    : $("play-first").value === "me" ? [person, computer] : [computer, person];
  $("play-table").textContent = `${found.table} (${found.info.rules}, ${found.info.convention})`;
  $("play-hint-text").hidden = true;
  if (!tables.some((t) => t.path === found.table)) await loadTables();  // solved just now
  await arrive();
}

// Probes the position reached and moves the state machine on.
async function arrive() {
  const serial = game.serial;
  const probe = await api("/api/query", { table: game.table, position: game.heaps.join(",") });
  if (serial !== game.serial) return;  // a new game or an undo came first
  game.probe = probe;
  drawHeaps();
  const p = game.probe;
  $("play-outcome").textContent = p.moves.length === 0 ? "no move is left"
    : p.to_move_wins ? "wins (N-position)" : "loses (P-position)";
  $("play-value").textContent = p.value;
  $("play-remoteness").textContent = remotenessText(p.remoteness);
  drawHistory();
  const side = game.sides[game.toMove];
  if (p.moves.length === 0) {
    // No move: in normal play the player to move loses, in misère play wins.
    const winner = game.convention === "normal" ? 1 - game.toMove : game.toMove;
    const name = game.sides[winner].name;
    setPlayState("game-over", `${name === "you" ? "you win" : name + " wins"} after ${game.history.length} moves`);
    await learnFromGame(winner);
    return;
  }
  if (side.human) {
    setPlayState("human-turn", `${side.name === "you" ? "your" : side.name + "'s"} move: click a token to take it and every token right of it`);
  } else {
    setPlayState("computer-turn", `${side.name} is thinking`);
    setTimeout(guard(async () => { if (serial === game.serial) await computerMove(); }), 500);
  }
}

async function computerMove() {
  const serial = game.serial;
  const answer = await api("/api/move", { table: game.table, position: game.heaps.join(","), level: game.level });
  if (serial !== game.serial) return;
  if (answer.draw) game.draws.push(answer.draw);
  await apply(answer.move);
}

async function learnFromGame(winner) {
  const learner = game.sides.findIndex((s) => !s.human);
  if (game.level !== "learning" || learner < 0 || game.draws.length === 0) return;
  await api("/api/learn", {}, { table: game.table, won: winner === learner, draws: game.draws });
}

// A move as the board shows it: heaps numbered from 1 in board order.
function moveText(m) {
  return m.heap ? `take ${m.take} from heap ${m.heap} (the ${m.heap_size})` : m.move;
}

async function apply(move) {
  game.history.push({ heaps: game.heaps, mover: game.toMove, text: moveText(move) });
  game.heaps = move.result;
  game.toMove = 1 - game.toMove;
  $("play-hint-text").hidden = true;
  await arrive();
}

function drawHeaps() {
  const board = $("play-board");
  board.replaceChildren();
  game.heaps.forEach((size, i) => {
    const row = el("div", { class: "heap", dataset: { heap: i + 1, size } },
      el("span", { class: "heap-label" }, `heap ${i + 1}`));
    const tokens = el("span", { class: "tokens" });
    for (let t = 0; t < size; ++t) {
      tokens.append(el("button", {
        class: "token", type: "button", title: `take ${size - t}`,
        dataset: { heap: i + 1, take: size - t }, onclick: guard(() => takeTokens(i + 1, size - t)),
      }));
    }
    row.append(tokens, el("span", { class: "heap-size" }, String(size)));
    board.append(row);
  });
  // Moves a click on a token cannot make (splits, several heaps at once) get buttons.
  const buttons = $("play-move-buttons");
  buttons.replaceChildren();
  if (game.state !== "game-over" && game.probe) {
    for (const m of game.probe.moves) {
      if (m.heap) continue;
      buttons.append(el("button", { type: "button", class: "move", onclick: guard(() => humanMove(m)) }, m.move));
    }
  }
}

async function takeTokens(heap, amount) {
  const m = game.probe.moves.find((x) => x.heap === heap && x.take === amount);
  if (!m) {
    const allowed = game.probe.moves.filter((x) => x.heap === heap).map((x) => x.take).sort((a, b) => a - b);
    throw new Error(`the rule does not allow taking ${amount} from heap ${heap}` +
      (allowed.length ? `; you may take ${allowed.join(", ")}` : "; no move is left in it"));
  }
  await humanMove(m);
}

async function humanMove(m) {
  if (game.state !== "human-turn" || game.busy) throw new Error("it is not your move");
  game.busy = true;  // one move per turn, however fast the clicks
  try {
    await apply(m);
  } finally {
    game.busy = false;
  }
}

async function undo() {
  if (game.state === "computer-turn") throw new Error("wait for the computer's move");
  // Back to the last position where a person was to move.
  if (!game.history.some((h) => game.sides[h.mover].human)) throw new Error("nothing to undo");
  let last;
  do {
    last = game.history.pop();
  } while (!game.sides[last.mover].human);
  game.heaps = last.heaps;
  game.toMove = last.mover;
  game.serial += 1;
  await arrive();
}

async function hint() {
  if (game.state !== "human-turn") throw new Error("a hint is for a person's move");
  const h = await api("/api/hint", { table: game.table, position: game.heaps.join(",") });
  $("play-hint-text").textContent = h.text;
  $("play-hint-text").hidden = false;
}

function drawHistory() {
  $("play-history").replaceChildren(...game.history.map((h) =>
    el("li", {}, `${game.sides[h.mover].name}: ${h.text}`)));
}

// ---------------------------------------------------------------- Northcott

const nc = { state: "setup", board: "", rows: [], width: 12, setup: false, history: [], serial: 0 };

function setNcState(state, text) {
  nc.state = state;
  $("nc-state").textContent = state;
  $("nc-state").dataset.state = state;
  $("nc-status").textContent = text;
}

function boardText(rows) {
  return rows.map((r) => `${r.x}-${r.o}`).join(" ");
}

function drawNorthcott(view) {
  const table = $("nc-board");
  table.replaceChildren();
  const head = el("tr", {}, el("th", {}, ""));
  for (let c = 1; c <= nc.width; ++c) head.append(el("th", {}, String(c)));
  head.append(el("th", {}, "gap"));
  table.append(head);
  nc.rows.forEach((r, i) => {
    const tr = el("tr", {}, el("th", {}, `row ${i + 1}`));
    for (let c = 1; c <= nc.width; ++c) {
      const piece = r.x === c ? "X" : r.o === c ? "O" : "";
      tr.append(el("td", {
        class: "square" + (piece ? " piece-" + piece.toLowerCase() : ""),
        dataset: { row: i + 1, col: c }, onclick: guard(() => ncClick(i + 1, c)),
      }, piece));
    }
    tr.append(el("td", { class: "gap" }, view ? String(view.gaps[i]) : ""));
    table.append(tr);
  });
  $("nc-gaps").textContent = view ? `${view.gaps.join(" ^ ")} = ${view.xor}` +
    (view.xor === 0 ? " (XOR 0: the player to move loses)" : " (XOR not 0: the player to move wins)") : "—";
}

function ncShow(view) {
  nc.board = view.board;
  nc.rows = view.rows;
  drawNorthcott(view);
}

async function ncNew(event) {
  if (event) event.preventDefault();
  const rows = Number($("nc-rows").value);
  const list = [];
  for (let i = 0; i < rows; ++i) {
    if ($("nc-start").value === "aligned") {
      list.push({ x: 1, o: nc.width });
    } else {
      const x = 1 + Math.floor(Math.random() * nc.width);
      let o;
      do o = 1 + Math.floor(Math.random() * nc.width); while (o === x);
      list.push({ x, o });
    }
  }
  await ncStart(boardText(list));
}

async function ncStart(text) {
  const answer = await api("/api/northcott", { board: text });
  nc.setup = false;
  $("nc-setup-help").hidden = true;
  nc.history = [];
  nc.serial += 1;
  ncShow(answer.after_move);
  $("nc-hint-text").hidden = true;
  ncHistory();
  await ncArrive(answer.after_move, $("nc-first").value === "me" ? "x" : "o");
}

async function ncArrive(view, mover) {
  const canMove = mover === "x" ? view.x_can_move : view.o_can_move;
  if (!canMove) {
    setNcState("game-over", mover === "x" ? "X cannot move: the computer wins" : "O cannot move: you win");
    return;
  }
  if (mover === "x") {
    setNcState("human-turn", "your move: click the square X should slide to");
    return;
  }
  setNcState("computer-turn", "the computer is thinking");
  const serial = nc.serial;
  setTimeout(guard(async () => {
    if (serial !== nc.serial) return;
    const answer = await api("/api/northcott", { board: nc.board, reply: "o", level: $("nc-level").value });
    const r = answer.reply;
    nc.history.push(`O: row ${r.row}, column ${r.from} to ${r.to}` + (r.closes ? "" : " (a retreat)"));
    ncHistory();
    ncShow(answer.after_reply);
    await ncArrive(answer.after_reply, "x");
  }), 500);
}

async function ncClick(row, col) {
  if (nc.setup) {
    const piece = document.querySelector("input[name=nc-piece]:checked").value;
    const r = nc.rows[row - 1];
    if ((piece === "x" ? r.o : r.x) === col) throw new Error("that square holds the other piece");
    r[piece] = col;
    drawNorthcott(null);
    return;
  }
  if (nc.state !== "human-turn" || nc.busy) throw new Error("it is not your move");
  nc.busy = true;  // one move per turn, however fast the clicks
  let answer;
  try {
    answer = await api("/api/northcott", { board: nc.board, piece: "x", row, to: col });
  } finally {
    nc.busy = false;
  }
  const from = nc.rows[row - 1].x;
  nc.history.push(`X: row ${row}, column ${from} to ${col}`);
  ncHistory();
  ncShow(answer.after_move);
  $("nc-hint-text").hidden = true;
  await ncArrive(answer.after_move, "o");
}

function ncSetupMode() {
  nc.setup = true;
  nc.serial += 1;
  if (nc.rows.length !== Number($("nc-rows").value)) {
    nc.rows = Array.from({ length: Number($("nc-rows").value) }, () => ({ x: 1, o: nc.width }));
  }
  $("nc-setup-help").hidden = false;
  setNcState("setup", "place the pieces, then press Play from this board");
  drawNorthcott(null);
}

async function ncHint() {
  if (nc.state !== "human-turn") throw new Error("a hint is for your move");
  const answer = await api("/api/northcott", { board: nc.board, reply: "x", level: "perfect" });
  const r = answer.reply;
  const view = answer.after_move;
  $("nc-hint-text").textContent = view.xor === 0
    ? `The gaps' XOR is 0 already: every move loses against perfect play. Holding out longest: X in row ${r.row} to column ${r.to}.`
    : `Move X in row ${r.row} from column ${r.from} to ${r.to}: the gaps become ${answer.after_reply.gaps.join(" ^ ")} = 0, and whatever O does, you can make the XOR 0 again.`;
  $("nc-hint-text").hidden = false;
}

function ncHistory() {
  $("nc-history").replaceChildren(...nc.history.map((h) => el("li", {}, h)));
}

// ---------------------------------------------------------------- explore

async function explore(event) {
  if (event) event.preventDefault();
  const table = $("ex-table").value;
  if (!table) throw new Error("no table in the server's folder yet: solve one with nimtb solve");
  const q = await api("/api/query", { table, position: $("ex-position").value, line: 1 });
  $("ex-summary").textContent = `${heapsText(q.position)}: the player to move ` +
    (q.to_move_wins ? "wins (N-position)" : "loses (P-position)") +
    `; value ${q.value}; remoteness ${remotenessText(q.remoteness)}.`;
  $("ex-summary").dataset.value = q.value;
  const head = el("tr", {}, ...["move", "leaves", "value", "remoteness", ""].map((h) => el("th", {}, h)));
  $("ex-moves").replaceChildren(head, ...q.moves.map((m) => el("tr", { class: m.wins ? "wins" : "" },
    el("td", {}, m.move),
    el("td", {}, el("a", { href: "#explore", onclick: guard(() => { $("ex-position").value = heapsText(m.result); return explore(); }) }, heapsText(m.result))),
    el("td", {}, String(m.value)), el("td", {}, remotenessText(m.remoteness)),
    el("td", {}, m.wins ? "wins" : "loses"))));
  $("ex-line-title").hidden = q.line.length === 0;
  $("ex-line").replaceChildren(...q.line.map((m) => el("li", {}, `${m.move} → ${heapsText(m.result)}`)));
}

async function drawGrid() {
  const t = tables.find((x) => x.path === $("ex-table").value);
  const grid = $("ex-grid");
  grid.replaceChildren();
  $("ex-legend").replaceChildren();
  if (!t) return;
  if (t.max_heaps < 2) {
    $("ex-board-help").textContent = "The table holds one heap: there is no board to draw.";
    $("ex-third-row").hidden = true;
    return;
  }
  const sliced = t.max_heaps >= 3;
  $("ex-third-row").hidden = !sliced;
  const params = { table: t.path };
  if (sliced) params.third = $("ex-third").value || "0";
  const g = await api("/api/grid", params);
  $("ex-board-help").textContent = (sliced
    ? `Positions a b ${g.third}: the slice of the third heap ${g.third}. `
    : "Positions a b: the stone game's board, the stone at row a and column b. ") +
    "Dark cells are P-positions (value 0); click a cell to query it.";
  grid.style.gridTemplateColumns = `repeat(${g.side}, var(--cell))`;
  for (let a = 0; a < g.side; ++a) {
    for (let b = 0; b < g.side; ++b) {
      const v = g.values[a][b];
      const position = sliced ? [a, b, g.third] : [a, b];
      grid.append(el("div", {
        class: "cell" + (v === 0 ? " p" : "") + (v === null ? " outside" : ""),
        title: v === null ? "outside the table" : `${position.join(" ")}: value ${v}, remoteness ${remotenessText(g.remoteness[a][b])}`,
        style: `background:${valueColour(v)}`,
        dataset: { a, b, value: v === null ? "" : v },
        onclick: v === null ? () => {} : guard(() => { $("ex-position").value = position.join(" "); return explore(); }),
      }, v === 0 ? "P" : ""));
    }
  }
  const seen = [...new Set(g.values.flat().filter((v) => v !== null))].sort((x, y) => x - y).slice(0, 16);
  $("ex-legend").append("values: ", ...seen.map((v) => el("span", { class: "swatch", style: `background:${valueColour(v)}` }, String(v))));
}

// ---------------------------------------------------------------- research

async function research(event) {
  if (event) event.preventDefault();
  const table = $("re-table").value;
  if (!table) throw new Error("no table in the server's folder yet: solve one with nimtb solve");
  $("re-summary").textContent = "counting…";
  const c = await api("/api/count", { table });
  const tuples = c.all.tuples !== undefined;
  const share = (r) => (r.positions ? (100 * r.p_positions / r.positions).toFixed(1) + "%" : "—");
  $("re-summary").textContent = `${c.rules} ${c.convention}, ${c.universe}: ${c.all.p_positions} P-positions of ${c.all.positions} (${share(c.all)})` +
    (tuples ? `; as ordered tuples of ${c.tuple_length} rows, ${c.all.p_tuples} of ${c.all.tuples}.` : "; tuples exceed 64 bits and are not counted.");
  const fill = (id, rows, key) => {
    const cols = [key, "positions", "P-positions", "share", ...(tuples ? ["tuples", "P-tuples"] : [])];
    $(id).replaceChildren(el("tr", {}, ...cols.map((h) => el("th", {}, h))),
      ...rows.map((r) => el("tr", {}, el("td", {}, String(r[key])), el("td", {}, String(r.positions)),
        el("td", { class: "p-count" }, String(r.p_positions)), el("td", {}, share(r)),
        ...(tuples ? [el("td", {}, String(r.tuples)), el("td", {}, String(r.p_tuples))] : []))));
  };
  fill("re-by-total", c.by_total, "total");
  fill("re-by-largest", c.by_largest, "largest");
}

// ---------------------------------------------------------------- wiring

function wire() {
  for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => showView(b.dataset.view));
  $("play-setup").addEventListener("submit", guard(newGame));
  $("play-undo").addEventListener("click", guard(undo));
  $("play-hint").addEventListener("click", guard(hint));
  $("play-layout").addEventListener("change", () => { $("play-heaps").hidden = $("play-layout").value !== "hand"; });
  $("play-heaps").hidden = true;
  $("nc-setup").addEventListener("submit", guard(ncNew));
  $("nc-setup-mode").addEventListener("click", guard(ncSetupMode));
  $("nc-play-setup").addEventListener("click", guard(() => ncStart(boardText(nc.rows))));
  $("nc-hint").addEventListener("click", guard(ncHint));
  $("ex-form").addEventListener("submit", guard(explore));
  $("ex-table").addEventListener("change", guard(drawGrid));
  $("ex-third").addEventListener("change", guard(drawGrid));
  $("re-form").addEventListener("submit", guard(research));
  const fromHash = () => {
    const view = location.hash.slice(1);
    showView(["play", "northcott", "explore", "research"].includes(view) ? view : "play");
  };
  window.addEventListener("hashchange", fromHash);
  fromHash();
}

wire();
guard(async () => {
  await loadTables();
  await drawGrid();
})();
