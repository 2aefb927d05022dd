// Play: a heap game against the table's computer, or between two people.
import { $, api, el, guard, loadTables, remotenessText, showError, tables } from "./common.js";
import { gameChart } from "./plots.js";

// The game's state machine: setup -> human-turn | computer-turn -> ... -> game-over.
// `positions` holds the answer for every position reached, the current one
// last; a move becomes part of the game only once the server has answered
// for the position it leaves, so a server that stops and restarts leaves the
// board, the history and the chart as they were.
export const game = {
  state: "setup", table: null, convention: "normal", heaps: [], toMove: 0,
  sides: [], level: "perfect", history: [], positions: [], probe: null, draws: [], serial: 0,
  last: null, pending: null,
  undone: [],  // what Undo took back, latest last: each { history, positions } for Redo
  pins: false,  // the heaps are rows of pins, a move knocks down a run of them (Kayles)
  rows: null,   // in pin games, each row's pins, standing (true) or knocked down: heaps are its runs
  pick: null,   // in pin games, the pin chosen first: { heap, pin }, both from 1
};

// Pin games keep every row where it is: a run knocked down leaves a gap,
// and the heaps of the position are the runs of standing pins, row by row,
// left to right (heap i of the position is runs(rows)[i - 1]).
function runs(rows) {
  const out = [];
  rows.forEach((pins, row) => {
    for (let c = 0; c < pins.length; ++c) {
      if (!pins[c] || (c > 0 && pins[c - 1])) continue;
      let end = c;
      while (end < pins.length && pins[end]) ++end;
      out.push({ row, start: c, size: end - c });
    }
  });
  return out;
}
const heapsOfRows = (rows) => runs(rows).map((r) => r.size);

// The pins a move knocks down, from 1 within its heap: the run a person
// chose, or for a move of the table (whose parts are ascending) the run
// that leaves the smaller part on the left.
function runOf(m) {
  if (m.run) return m.run;
  const left = m.touches[0].leaves.length ? m.touches[0].leaves[0] : 0;
  return [left + 1, left + m.take];
}

// The rows after a pin game's move, and where the run was: { rows, row, cells }.
function rowsAfter(rows, m) {
  const place = runs(rows)[m.heap - 1];
  const [a, b] = runOf(m);
  const out = rows.map((pins) => [...pins]);
  const cells = [];
  for (let c = place.start + a - 1; c <= place.start + b - 1; ++c) {
    out[place.row][c] = false;
    cells.push(c);
  }
  return { rows: out, row: place.row, cells };
}

// A rule whose every move takes a run of tokens from one heap and leaves
// at most the two rows either side of it is played on rows of pins, as
// Kayles is: its moves are exactly the runs (docs/MOVES.md).
const playsOnPins = (shape) => shape.one_heap && shape.max_parts === 2 && shape.removes_tokens;

export function setPlayState(state, text) {
  game.state = state;
  $("play-state").textContent = state;
  $("play-state").dataset.state = state;
  $("play-status").textContent = text;
  // Undo, Redo and Hint work in a game, on a person's move.
  const personToMove = state === "human-turn";
  $("play-hint").disabled = !personToMove;
  $("play-undo").disabled = !personToMove ||
    !game.history.some((h) => game.sides[h.mover].human);
  $("play-redo").disabled = !personToMove || game.undone.length === 0;
  $("play-retry").hidden = !game.pending;
  drawHeaps();  // tokens answer clicks only while the game goes on
}

// Level and First mean something only against the computer.
export function showSetupChoices() {
  const computer = $("play-opponent").value === "computer";
  $("play-level").closest("label").hidden = !computer;
  $("play-first").closest("label").hidden = !computer;
}

// The position of the board as the server reads it.
const positionText = (heaps) => heaps.join(",");
const probeOf = (heaps) => api("/api/query", { table: game.table, position: positionText(heaps) });

export async function newGame(event) {
  if (event) event.preventDefault();
  const params = { rules: $("play-rules").value.trim(), convention: $("play-convention").value };
  if ($("play-layout").value === "hand") params.position = $("play-heaps").value;
  else params.layout = $("play-layout").value;
  const opponent = $("play-opponent").value, level = $("play-level").value;
  game.serial += 1;  // a computer move of an earlier game is dropped
  let found, probe;
  try {
    found = await api("/api/find", {}, params);  // POST: the server may solve it now
    game.table = found.table;
    probe = await probeOf(found.start);
  } catch (e) {
    clearGame();  // a rule refused leaves no game of another rule on the board
    throw e;
  }
  Object.assign(game, {
    rules: found.info.rules, convention: found.info.convention, heaps: found.start, toMove: 0,
    level, history: [], positions: [], draws: [], last: null, pending: null, undone: [],
    pins: playsOnPins(found.info.move_shape), pick: null, rows: null,
  });
  if (game.pins) {
    game.rows = found.start.map((n) => Array(n).fill(true));
    game.heaps = heapsOfRows(game.rows);
  }
  const person = { human: true, name: "you" };
  const computer = { human: false, name: `computer (${level})` };
  game.sides = opponent === "human"
    ? [{ human: true, name: "player 1" }, { human: true, name: "player 2" }]
    : $("play-first").value === "me" ? [person, computer] : [computer, person];
  $("play-table").textContent = `${found.table} (${found.info.rules}, ${found.info.convention})`;
  $("play-hint-text").hidden = true;
  if (!tables.some((t) => t.path === found.table)) await loadTables();  // solved just now
  await settle(probe);
}

function clearGame() {
  Object.assign(game, { table: null, heaps: [], history: [], positions: [], probe: null, last: null, pending: null,
    undone: [], pick: null, pins: false, rows: null });
  $("play-table").textContent = "—";
  for (const id of ["play-outcome", "play-value", "play-remoteness"]) $(id).textContent = "—";
  $("play-hint-text").hidden = true;
  drawHistory();
  setPlayState("setup", "no game: choose a rule the server knows and press New game");
}

// The board after a move: each heap it touches replaced, in its place, by
// what it leaves (a split's parts side by side), so that heaps keep
// their rows; an emptied heap stays as an empty row.
export function boardAfter(heaps, move) {
  if (!move.touches) return move.result;
  const out = [];
  heaps.forEach((size, i) => {
    const t = move.touches.find((x) => x.heap === i + 1);
    if (!t) out.push(size);
    else if (t.leaves.length === 0) out.push(0);
    else out.push(...t.leaves);
  });
  return out;
}

// Class mode hides what would give the answer away: who wins, the value,
// the remoteness, the chart, hints and the colours of moves. It is off by
// default: the page's first reader is someone finding out how a game works,
// for whom those are the lesson; a teacher switches it on, and the link the
// page's address then holds (class=1) opens every student's page that way.
// The tokens' size (large: for a projector) travels in the link too.
export function classMode() {
  return $("play-class").checked;
}

export function showClassChoices() {
  $("play").classList.toggle("class-mode", classMode());
  $("play").classList.toggle("large", $("play-size").value === "large");
  if (classMode()) $("play-hint-text").hidden = true;
  if (game.probe) linkHere();
  drawHeaps();
}

// The page's address names the game and the position on the board, so that
// it can be linked to or bookmarked: #play?rules=octal:0.77&convention=normal&heaps=3,4,5
// (startFromLink starts a game there), and class mode and the tokens' size when chosen.
function linkHere() {
  const params = new URLSearchParams({ rules: game.rules, convention: game.convention, heaps: game.heaps.join(",") });
  if (classMode()) params.set("class", "1");
  if ($("play-size").value === "large") params.set("size", "large");
  history.replaceState(null, "", "#play?" + params);
}

// A game from a link made by linkHere: the form filled in, then New game.
export async function startFromLink(params) {
  $("play-class").checked = params.get("class") === "1";
  $("play-size").value = params.get("size") === "large" ? "large" : "normal";
  showClassChoices();
  if (!params.get("rules") || !params.get("heaps")) return;
  $("play-rules").value = params.get("rules");
  $("play-convention").value = params.get("convention") === "misere" ? "misere" : "normal";
  $("play-layout").value = "hand";
  $("play-heaps").hidden = false;
  $("play-heaps").value = params.get("heaps").replaceAll(",", " ");
  await newGame();
}

// The answer for the position reached: moves the state machine on.
async function settle(probe) {
  const serial = game.serial;
  game.probe = probe;
  game.pick = null;
  game.positions.push({ value: probe.value, remoteness: probe.remoteness, wins: probe.to_move_wins,
    mover: game.toMove });
  linkHere();
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
    setPlayState("human-turn", `${side.name === "you" ? "your" : side.name + "'s"} move: ${howToMove()}`);
  } else {
    setPlayState("computer-turn", `${side.name} is thinking`);
    setTimeout(() => { if (serial === game.serial) computerMove(); }, 500);
  }
}

// The computer's move. When the server does not answer, the game waits on
// "Try again" with nothing changed.
export async function computerMove() {
  const serial = game.serial;
  game.pending = null;
  try {
    const answer = await api("/api/move", { table: game.table, position: positionText(game.heaps), level: game.level });
    if (serial !== game.serial) return;
    await apply(answer.move, answer.draw);
  } catch (e) {
    if (serial !== game.serial) return;
    game.pending = computerMove;
    setPlayState("computer-turn", `${game.sides[game.toMove].name} could not move: the server did not answer`);
    showError(e);
  }
}

export async function retry() {
  const again = game.pending;
  if (!again) throw new Error("nothing to try again");
  await again();
}

export async function learnFromGame(winner) {
  const learner = game.sides.findIndex((s) => !s.human);
  if (game.level !== "learning" || learner < 0 || game.draws.length === 0) return;
  await api("/api/learn", {}, { table: game.table, won: winner === learner, draws: game.draws });
}

// A take from one heap that leaves it whole or empty (not a split, not a
// move of several heaps): what a click on a token makes. Moves carry the
// fields of docs/MOVES.md: heap counted from 1, null for several heaps.
export function plainTake(m) {
  return m.heap !== null && m.leaves.length <= 1;
}

// A move as the board shows it: heaps numbered from 1 in board order.
// In pin games every move is a run knocked down; the computer's moves come
// from the table, whose parts the board keeps in ascending order (a take
// from an end leaves the row on the left), which places their run.
export function moveText(m) {
  if (game.pins && m.heap !== null) {
    // Pins counted along the row as the board shows it, gaps included.
    const place = runs(game.rows)[m.heap - 1];
    const [a, b] = runOf(m).map((x) => place.start + x);
    const pins = a === b ? `pin ${a}` : `pins ${a}–${b}`;
    const left = m.touches[0].leaves;
    return `knock down ${pins} of row ${place.row + 1}` + (left.length ? `, leaving ${left.join(" and ")}` : "");
  }
  return plainTake(m) ? `take ${m.take} from heap ${m.heap} (the ${m.heap_size})` : m.move;
}

// The table's move that takes `take` tokens from heap `heap` of the board
// and leaves `leaves` there (in board order, empty rows left out), or
// undefined: the table lists the moves of the first of equal heaps only,
// so a move of another heap of that size is its twin's, made on this heap.
function twinMove(heap, take, leaves) {
  const size = game.heaps[heap - 1];
  const sorted = [...leaves].sort((a, b) => a - b).join(",");
  const same = (x) => x.heap !== null && x.heap_size === size && x.take === take && x.leaves.join(",") === sorted;
  const twin = game.probe.moves.find((x) => same(x) && x.heap === heap) || game.probe.moves.find(same);
  return twin && { ...twin, heap, touches: [{ heap, size, leaves }] };
}

// The move that knocks down pins a..b of a heap (from 1, either order): the
// rows left of and right of the run stay, in their places.
function runMove(heap, a, b) {
  if (a > b) [a, b] = [b, a];
  const size = game.heaps[heap - 1];
  const m = twinMove(heap, b - a + 1, [a - 1, size - b].filter((x) => x > 0));
  return m && { ...m, run: [a, b] };
}

// The move a click on a token or a pin makes (for a pin, with the pin
// chosen first), or null where the rule has none. `at`: { heap, take } or
// { heap, pin }, from 1.
function moveAt(at) {
  const heap = Number(at.heap);
  if (!game.pins) {
    const size = game.heaps[heap - 1], take = Number(at.take);
    return twinMove(heap, take, size > take ? [size - take] : []);
  }
  const pin = Number(at.pin);
  return runMove(heap, game.pick && game.pick.heap === heap ? game.pick.pin : pin, pin);
}

// What a person is asked to do, from the moves the rule has here: a click
// on a token where some move is a plain take, a button for every other
// move (a split, a move of several heaps).
function howToMove() {
  if (game.pins) {
    return "click a pin, then the last pin of the run to knock down (the same pin again to knock it down alone)";
  }
  const clicks = game.probe.moves.some(plainTake), buttons = game.probe.moves.some((m) => !plainTake(m));
  const click = "click a token to take it and every token right of it";
  if (clicks && buttons) return `${click}, or choose a move below`;
  return clicks ? click : "choose a move below";
}

// Makes `move`: first the answer for the position it leaves, then the move.
export async function apply(move, draw) {
  const serial = game.serial;
  const pinned = game.pins ? rowsAfter(game.rows, move) : null;
  const heaps = pinned ? heapsOfRows(pinned.rows) : boardAfter(game.heaps, move);
  const probe = await probeOf(heaps);
  if (serial !== game.serial) return;
  game.undone = [];  // a move of its own ends what Redo could bring back
  game.history.push({ heaps: game.heaps, rows: game.rows, mover: game.toMove, text: moveText(move), result: heaps,
    rowsAfter: pinned && pinned.rows });
  if (draw) game.draws.push(draw);
  game.last = { mover: game.toMove, touches: move.touches || [], before: game.heaps,
    row: pinned && pinned.row, cells: pinned && pinned.cells };
  game.heaps = heaps;
  if (pinned) game.rows = pinned.rows;
  game.toMove = 1 - game.toMove;
  $("play-hint-text").hidden = true;
  await settle(probe);
}

// The rows the last move changed, in the board after it: the touched heap's
// index shifted by the parts of earlier splits.
function changedRows() {
  const rows = new Map();
  if (!game.last) return rows;
  let shift = 0;
  game.last.before.forEach((size, i) => {
    const t = game.last.touches.find((x) => x.heap === i + 1);
    const parts = t ? Math.max(1, t.leaves.length) : 1;
    if (t) for (let k = 0; k < parts; ++k) rows.set(i + shift + k, { was: size, part: k });
    shift += parts - 1;
  });
  return rows;
}

// The board by keyboard: Left and Right choose one token more or fewer to
// take from the focused heap, Up and Down go to the heap above or below
// (taking as many, or all of a smaller heap), Home and End to the first and
// last heap; Enter or Space takes (the token is a button). In pin games
// Left and Right go to the next pin, Up and Down keep the column, Enter
// chooses a pin and then knocks down the run to the pin it is pressed on,
// and Escape lets go of the pin chosen.
export function boardKeys(e) {
  const from = e.target;
  if (!from.classList || !from.classList.contains("token") || from.disabled) return;
  const rows = [...$("play-board").querySelectorAll(".heap")]
    .map((r) => [...r.querySelectorAll("button.token:not(:disabled)")]).filter((r) => r.length);
  const r = rows.findIndex((row) => row.includes(from));
  if (r < 0) return;
  // A row's tokens take all, ..., 2, 1 from left to right; pins keep their
  // column from row to row.
  const c = rows[r].indexOf(from), take = Number(from.dataset.take);
  const at = (row, col) => rows[row][Math.max(0, Math.min(col, rows[row].length - 1))];
  const taking = (row) => game.pins ? at(row, c) : at(row, rows[row].length - take);  // the same amount, or all of a smaller heap
  if (e.key === "Escape" && game.pick) {
    e.preventDefault();
    choosePin(null);
    return;
  }
  const to = {
    ArrowLeft: () => at(r, c - 1), ArrowRight: () => at(r, c + 1),
    ArrowUp: () => taking(Math.max(0, r - 1)), ArrowDown: () => taking(Math.min(rows.length - 1, r + 1)),
    Home: () => taking(0), End: () => taking(rows.length - 1),
  }[e.key];
  if (!to) return;
  e.preventDefault();
  const next = to();
  from.tabIndex = -1;
  next.tabIndex = 0;
  next.focus();
}

export function drawHeaps() {
  const board = $("play-board");
  // Keyboard focus stays on the board across the redraw: on the same token
  // or pin where it is still there, else on the heap it was on, else on the
  // first heap left.
  const focused = document.activeElement;
  const keep = focused && focused.classList && focused.classList.contains("token") && board.contains(focused)
    ? focused.dataset : null;
  board.replaceChildren();
  const changed = changedRows();
  const who = game.last ? game.sides[game.last.mover].name : "";
  const over = game.state === "game-over" || !game.probe;
  const colour = $("play-colour").checked && !classMode() && game.state === "human-turn";
  // A token's or a pin's button: its move's colours when asked, and where a
  // pin is chosen, the pins that end a run the rule allows.
  const tokenButton = (data, label) => {
    const button = el("button", { class: "token", type: "button", dataset: data,
      ...(over ? { disabled: "" } : {}) });
    button.addEventListener("click", guard(() => (game.pins ? choosePin(data) : takeTokens(data.heap, data.take))));
    const picked = Boolean(game.pick && game.pick.heap === data.heap);
    if (game.pins) button.setAttribute("aria-pressed", String(picked && game.pick.pin === data.pin));
    const m = over || (game.pins && game.pick && !picked) ? null : moveAt(data);
    if (game.pins && picked && m) button.classList.add("reach");
    const says = colour && m ? (m.wins ? "wins" : "loses") : null;
    if (says) button.classList.add(says);
    const text = label + (says ? ` (${says === "wins" ? "a winning" : "a losing"} move)` : "");
    button.title = text;
    button.setAttribute("aria-label", text);
    return button;
  };
  if (game.pins && game.rows) drawPinRows(board, tokenButton, who);
  else game.heaps.forEach((size, i) => {
    const mark = changed.get(i);
    const row = el("div", { class: "heap" + (mark ? " changed" : ""), dataset: { heap: i + 1, size } },
      el("span", { class: "heap-label" }, `heap ${i + 1}`));
    const tokens = el("span", { class: "tokens" + (game.pins ? " pins" : "") });
    for (let t = 0; t < size; ++t) {
      const data = game.pins ? { heap: i + 1, pin: t + 1 } : { heap: i + 1, take: size - t };
      // A token is a button only where a click on it makes a move of the rule
      // (Grundy's game takes none: its tokens are there to be counted).
      if (!game.pins && !over && !moveAt(data)) {
        tokens.append(el("span", { class: "token still", "aria-hidden": "true" }));
        continue;
      }
      tokens.append(tokenButton(data, `take ${size - t} from heap ${i + 1}`));
    }
    // What the last move took, faded, where it was.
    if (mark && mark.part === 0) {
      const left = changedParts(i, changed);
      for (let t = left; t < mark.was; ++t) tokens.append(el("span", { class: "token taken", "aria-hidden": "true" }));
    }
    row.append(tokens, el("span", { class: "heap-size" }, String(size)));
    if (mark && mark.part === 0) row.append(el("span", { class: "moved-by" }, `← ${who}: ${game.history.at(-1).text}`));
    board.append(row);
  });
  // One token is in the Tab order (a roving tabindex): Tab passes the
  // board in one step, and the arrow keys move within it (boardKeys).
  const tokens = [...board.querySelectorAll("button.token:not(:disabled)")];
  const at = (sel) => board.querySelector(`button.token${sel}:not(:disabled)`);
  const current = (keep && (at(`[data-heap="${keep.heap}"]${keep.pin ? `[data-pin="${keep.pin}"]` : `[data-take="${keep.take}"]`}`) ||
    at(`[data-heap="${keep.heap}"]`))) || tokens[0];
  for (const t of tokens) t.tabIndex = t === current ? 0 : -1;
  if (keep) {
    if (current) current.focus();
    else $("play-new").focus();
  }
  $("play-colour-key").hidden = !colour;
  // Moves a click cannot make (splits of token games, several heaps at
  // once) get buttons, in the board's order: the best move is not first.
  const buttons = $("play-move-buttons");
  buttons.replaceChildren();
  if (!over && !game.pins) {
    const order = (m) => [m.heap ?? Infinity, m.take ?? 0, ...(m.leaves || m.result)];
    const before = (a, b) => {
      const x = order(a), y = order(b);
      for (let k = 0; k < Math.min(x.length, y.length); ++k) if (x[k] !== y[k]) return x[k] - y[k];
      return x.length - y.length;
    };
    for (const m of game.probe.moves.filter((x) => !plainTake(x)).sort(before)) {
      const says = colour ? (m.wins ? "wins" : "loses") : null;
      buttons.append(el("button", { type: "button", class: "move" + (says ? " " + says : ""),
        ...(says ? { "aria-label": `${m.move} (${says === "wins" ? "a winning" : "a losing"} move)` } : {}),
        onclick: guard(() => humanMove(m)) }, m.move));
    }
  }
}

// The rows of a pin game: each row where it began, its standing pins
// buttons (their heap is the run they stand in), the pins knocked down
// gaps, those of the last move drawn faded where they stood.
function drawPinRows(board, tokenButton, who) {
  const heapOf = new Map();  // "row:cell" -> { heap, pin }, from 1
  runs(game.rows).forEach((r, i) => {
    for (let k = 0; k < r.size; ++k) heapOf.set(`${r.row}:${r.start + k}`, { heap: i + 1, pin: k + 1 });
  });
  game.rows.forEach((pins, row) => {
    const last = game.last && game.last.row === row;
    const standing = runs([pins]).map((r) => r.size);
    const line = el("div", { class: "heap" + (last ? " changed" : ""), dataset: { row: row + 1 } },
      el("span", { class: "heap-label" }, `row ${row + 1}`));
    const cells = el("span", { class: "tokens pins" });
    pins.forEach((up, c) => {
      if (!up) {
        const fresh = last && game.last.cells.includes(c);
        cells.append(el("span", { class: "token " + (fresh ? "taken" : "down"), "aria-hidden": "true" }));
        return;
      }
      const at = heapOf.get(`${row}:${c}`);
      cells.append(tokenButton(at, `pin ${c + 1} of row ${row + 1}`));
    });
    line.append(cells, el("span", { class: "heap-size" }, standing.length ? standing.join(" + ") : "0"));
    if (last) line.append(el("span", { class: "moved-by" }, `← ${who}: ${game.history.at(-1).text}`));
    board.append(line);
  });
}

// Tokens left in the rows a touched heap became.
function changedParts(first, changed) {
  let n = 0;
  for (let i = first; changed.has(i) && (i === first || changed.get(i).part > 0); ++i) n += game.heaps[i];
  return n;
}

function checkTurn() {
  if (game.state !== "human-turn") throw new Error(game.state === "game-over" ? "the game is over: press New game" : "it is not your move");
}

export async function takeTokens(heap, amount) {
  checkTurn();
  const m = twinMove(heap, amount, game.heaps[heap - 1] > amount ? [game.heaps[heap - 1] - amount] : []);
  if (!m) {
    const size = game.heaps[heap - 1];
    const allowed = game.probe.moves.filter((x) => plainTake(x) && x.heap_size === size).map((x) => x.take).sort((a, b) => a - b);
    throw new Error(`the rule does not allow taking ${amount} from heap ${heap}` +
      (allowed.length ? `; you may take ${allowed.join(", ")}` : "; no move is left in it"));
  }
  await humanMove(m);
}

// A pin game's click: the first pin of a run, then its last (the same pin
// again for that pin alone). A pin of another heap starts again there;
// null lets go.
export async function choosePin(pin) {
  checkTurn();
  const first = game.pick;
  if (!pin || !first || first.heap !== pin.heap) {
    game.pick = pin && { heap: pin.heap, pin: pin.pin };
    drawHeaps();
    return;
  }
  game.pick = null;
  const m = runMove(pin.heap, first.pin, pin.pin);
  if (!m) {
    drawHeaps();
    // Pins named by their place in the row, as the board and the history name them.
    const place = runs(game.rows)[pin.heap - 1];
    const [a, b] = [first.pin, pin.pin].sort((x, y) => x - y).map((x) => place.start + x);
    const takes = [...new Set(game.probe.moves.filter((x) => x.heap !== null && x.heap_size === game.heaps[pin.heap - 1])
      .map((x) => x.take))].sort((x, y) => x - y);
    throw new Error(`the rule does not allow knocking down ${a === b ? `pin ${a}` : `pins ${a}–${b}`} of row ${place.row + 1}` +
      (takes.length ? `; from this run of pins it knocks down runs of ${takes.join(", ")}, at the places it allows` : "; no move is left in it"));
  }
  await humanMove(m);
}

export async function humanMove(m) {
  if (game.state !== "human-turn" || game.busy) throw new Error("it is not your move");
  game.busy = true;  // one move per turn, however fast the clicks
  try {
    await apply(m);
  } finally {
    game.busy = false;
  }
}

export async function undo() {
  if (game.state === "computer-turn") throw new Error("wait for the computer's move");
  // Back to the last position where a person was to move.
  if (!game.history.some((h) => game.sides[h.mover].human)) throw new Error("nothing to undo");
  let cut = game.history.length;
  do --cut; while (!game.sides[game.history[cut].mover].human);
  const back = game.history[cut];
  const probe = await probeOf(back.heaps);  // nothing changes unless the server answers
  // For Redo: the moves taken back, and the positions between them (the
  // one Undo returns to, and the one Redo returns to, settle() adds).
  game.undone.push({ history: game.history.slice(cut), positions: game.positions.slice(cut + 1, -1) });
  game.history.length = cut;
  game.positions.length = cut;
  game.heaps = back.heaps;
  game.rows = back.rows;
  game.toMove = back.mover;
  game.last = null;
  game.pending = null;
  game.serial += 1;
  await settle(probe);
}

// Brings back the moves the last Undo took back, as they were made.
export async function redo() {
  if (game.state !== "human-turn") throw new Error("Redo is for a person's move");
  if (!game.undone.length) throw new Error("nothing to redo");
  const { history, positions } = game.undone.at(-1);
  const last = history.at(-1);
  const probe = await probeOf(last.result);  // nothing changes unless the server answers
  game.undone.pop();
  game.history.push(...history);
  game.positions.push(...positions);
  game.heaps = last.result;
  game.rows = last.rowsAfter;
  game.toMove = 1 - last.mover;
  game.last = null;
  game.pending = null;
  game.serial += 1;
  await settle(probe);
}

export async function hint() {
  if (game.state !== "human-turn") throw new Error("a hint is for a person's move");
  if (classMode()) throw new Error("class mode hides hints: switch it off for one");
  const h = await api("/api/hint", { table: game.table, position: positionText(game.heaps) });
  $("play-hint-text").textContent = h.text;
  $("play-hint-text").hidden = false;
}

export function drawHistory() {
  const list = $("play-history");
  list.replaceChildren(...game.history.map((h) =>
    el("li", {}, `${game.sides[h.mover].name}: ${h.text}`)));
  list.scrollTop = list.scrollHeight;  // the last move in sight
  gameChart($("play-chart"), game.positions, game.sides.map((s) => s.name));
}
