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

// ---------------------------------------------------------------- views

function showView(name) {
  showError(null);  // an error belongs to the view that caused it
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

function clearAnswer() {
  $("ex-summary").textContent = "";
  delete $("ex-summary").dataset.value;
  $("ex-moves").replaceChildren();
  $("ex-line-title").hidden = true;
  $("ex-line").replaceChildren();
}

async function explore(event) {
  if (event) event.preventDefault();
  clearAnswer();  // no answer of another table or position stays under an error
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

// The pictures: planes of the chosen table (and of its other convention).
// serial: the latest drawing asked for; drawn: the latest finished.
const ex = { table: null, planes: [], others: [], companions: new Map(), serial: 0, drawn: 0, view: null };

function othersFor(t) {
  return t.max_heaps > 2 ? Array.from({ length: Math.min(t.max_heaps - 2, 6) }, () => 0) : [];
}

// A slider per heap besides a and b (up to six); the others stay empty.
function drawSliders(t) {
  const box = t.index === "colex-multiset-v1";
  const top = box ? t.max_heap_size : t.max_total;
  $("ex-others").replaceChildren(...ex.others.map((c, i) => {
    const shown = el("output", {}, String(c));
    const slider = el("input", {
      type: "range", min: 0, max: top, value: c, id: `ex-other-${i + 1}`,
      "aria-label": `heap ${i + 3}`,
    });
    slider.addEventListener("input", () => {
      ex.others[i] = Number(slider.value);
      shown.textContent = slider.value;
      schedulePictures();
    });
    return el("label", {}, `heap ${i + 3} `, slider, shown);
  }));
}

let pictureTimer = null;
function schedulePictures() {
  clearTimeout(pictureTimer);
  pictureTimer = setTimeout(guard(() => drawPictures(true)), 120);
}

async function companionOf(table) {
  if (!ex.companions.has(table)) {
    const c = await api("/api/companion", { table });
    ex.companions.set(table, c);
    if (!tables.some((t) => t.path === c.table)) await loadTables();  // solved just now
  }
  return ex.companions.get(table);
}

// Draws the planes of the chosen table; keep: keep the zoom and pan.
async function drawPictures(keep = false) {
  const serial = ++ex.serial;
  const t = tables.find((x) => x.path === $("ex-table").value);
  if (!t) return;
  if (t.path !== ex.table) {
    ex.table = t.path;
    ex.others = othersFor(t);
    drawSliders(t);
    keep = false;
  }
  if (t.max_heaps < 2) {
    ex.view.clear();
    $("ex-board-help").textContent = "The table holds one heap: there is no plane to draw.";
    $("ex-legend").replaceChildren();
    return;
  }
  const mode = $("ex-compare").value, colour = $("ex-colour").value;
  let pair = [t];
  if (mode !== "one") {
    const c = await companionOf(t.path);
    pair = t.convention === "normal" ? [t, c.info] : [c.info, t];
  }
  const others = [...ex.others];
  let planes;
  try {
    planes = await Promise.all(pair.map((x) => fetchPlane(x.path, others)));
  } catch (e) {
    // No picture of other heaps stays under the error (the sliders moved on).
    if (serial === ex.serial) {
      ex.planes = [];
      ex.view.clear();
      $("ex-legend").replaceChildren();
    }
    throw e;
  }
  if (serial !== ex.serial) return;  // a newer choice came first
  ex.planes = planes.map((p, i) => ({ ...p, info: pair[i] }));
  const [first] = ex.planes;
  const pictures = mode === "difference"
    ? [{ title: "normal against misère play", image: paintCells(first.rows, first.cols, cellColour("difference", first, ex.planes[1])) }]
    : ex.planes.map((p) => ({
      title: `${p.info.rules} ${p.info.convention}` + (p.info.convention === "misere" ? " (misère: the last move loses)" : ""),
      image: paintCells(p.rows, p.cols, cellColour(colour, p)),
    }));
  ex.view.show(pictures, first.rows, first.cols, keep);
  const named = ["a", "b", ...others.filter((c) => c > 0)].join(" ");
  $("ex-board-help").textContent = `Positions ${named}: heap a down, heap b across` +
    (others.length ? ", the other heaps set by the sliders" : "") +
    (first.clipped ? `; a and b up to ${first.rows - 1} of the table's larger range` : "") +
    ". Drag to pan, wheel or + − to zoom, hover to read a cell, click to query it.";
  drawLegend(mode, colour);
  ex.drawn = serial;
}

function swatch(rgb, text) {
  return el("span", { class: "swatch", style: `background:${css(rgb)}` }, text);
}

function drawLegend(mode, colour) {
  const legend = $("ex-legend");
  if (mode === "difference") {
    legend.replaceChildren(swatch(CELL.differs, " "), " the outcome differs  ",
      swatch(CELL.p, " "), " P in both  ", swatch(CELL.n, " "), " N in both");
  } else if (colour === "outcome") {
    legend.replaceChildren(swatch(CELL.p, " "), " P: the player to move loses  ",
      swatch(CELL.n, " "), " N: the player to move wins");
  } else if (colour === "remoteness") {
    const max = Math.max(...ex.planes.map((p) => p.maxRemoteness));
    const ramp = (r, label) => el("span", { class: "ramp", style: `background:linear-gradient(90deg,${css(r[0])},${css(r[1])})` }, label);
    legend.replaceChildren("remoteness 0 ", ramp(RAMP.p, "P"), ` ${max}   0 `, ramp(RAMP.n, "N"), ` ${max}`);
  } else {
    const seen = new Set();
    for (const p of ex.planes) for (const v of p.values) if (v !== NO_VALUE) seen.add(v);
    const sorted = [...seen].sort((x, y) => x - y);
    legend.replaceChildren("values: ", ...sorted.slice(0, 16).map((v) => {
      const s = swatch(valueRgb(v), String(v));
      if (v === 0) s.classList.add("dark");
      return s;
    }), sorted.length > 16 ? " …" : "");
  }
}

// What a cell holds, in each picture's table.
function describeCell(cell) {
  if (!cell) return "\u00a0";
  const position = [cell.a, cell.b, ...ex.others];
  const i = cell.a * ex.planes[0].cols + cell.b;
  const parts = ex.planes.map((p) => {
    const v = p.values[i], r = p.remoteness[i];
    if (v === NO_VALUE) return `${p.info.convention}: not in the table`;
    return `${p.info.convention}: value ${v} (${v === 0 ? "P" : "N"})` +
      (r === NO_REMOTENESS ? "" : `, remoteness ${r}`);
  });
  return `${heapsText(position)} — ${parts.join("; ")}`;
}

function queryCell(cell) {
  const i = cell.a * ex.planes[0].cols + cell.b;
  if (ex.planes[0].values[i] === NO_VALUE) throw new Error("that cell is not a position of the table");
  $("ex-position").value = [cell.a, cell.b, ...ex.others].join(" ");
  return explore();
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
  const bars = (id, rows, key, label) => barChart($(id), rows.map((r) => r[key]), [
    { name: "P-positions", cls: "p", values: rows.map((r) => r.p_positions) },
    { name: "N-positions", cls: "n", values: rows.map((r) => r.positions - r.p_positions) },
  ], label, "positions");
  bars("re-plot-total", c.by_total, "total", "total");
  bars("re-plot-largest", c.by_largest, "largest", "largest heap");
  if (c.by_remoteness) bars("re-plot-remoteness", c.by_remoteness, "remoteness", "remoteness");
  else $("re-plot-remoteness").replaceChildren();
}

async function sequence(event) {
  if (event) event.preventDefault();
  const rules = $("sq-rules").value.trim();
  const params = { rules };
  if ($("sq-until").checked) Object.assign(params, { until_proven: 1, limit: $("sq-max").value });
  else params.max_heap = $("sq-max").value;
  $("sq-summary").textContent = "computing…";
  $("sq-plot").replaceChildren();
  try {
    const s = await api("/api/sequence", params);
    $("sq-summary").textContent = `${s.rules}: g(0) to g(${s.max_heap}); ${s.period.explanation}`;
    sequencePlot($("sq-plot"), s);
  } catch (e) {
    $("sq-summary").textContent = "";
    throw e;
  }
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
  ex.view = new PlaneView($("ex-pictures"), {
    onHover: (cell) => { $("ex-hover").textContent = describeCell(cell); },
    onClick: guard(queryCell),
  });
  $("ex-table").addEventListener("change", guard(() => { clearAnswer(); return drawPictures(); }));
  for (const id of ["ex-colour", "ex-compare"]) $(id).addEventListener("change", guard(() => drawPictures(true)));
  $("ex-zoom-in").addEventListener("click", () => ex.view.zoom(1.5));
  $("ex-zoom-out").addEventListener("click", () => ex.view.zoom(1 / 1.5));
  $("ex-zoom-fit").addEventListener("click", () => ex.view.fit());
  $("re-form").addEventListener("submit", guard(research));
  $("sq-form").addEventListener("submit", guard(sequence));
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
  await drawPictures();
})();
