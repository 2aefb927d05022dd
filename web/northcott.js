// Northcott's game, played from a Nim table of the gaps.
import { $, api, el, guard } from "./common.js";

export const nc = { state: "setup", board: "", rows: [], width: 12, setup: false, history: [], serial: 0 };

export function setNcState(state, text) {
  nc.state = state;
  $("nc-state").textContent = state;
  $("nc-state").dataset.state = state;
  $("nc-status").textContent = text;
}

export function boardText(rows) {
  return rows.map((r) => `${r.x}-${r.o}`).join(" ");
}

export function drawNorthcott(view) {
  const table = $("nc-board");
  // Keyboard focus stays on its square across the redraw.
  const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest("#nc-board td.square");
  const keep = focused ? { row: focused.dataset.row, col: focused.dataset.col } : null;
  table.replaceChildren();
  const head = el("tr", {}, el("th", { scope: "col" }, "row"));
  for (let c = 1; c <= nc.width; ++c) head.append(el("th", {}, String(c)));
  head.append(el("th", {}, "gap"));
  table.append(head);
  nc.rows.forEach((r, i) => {
    const tr = el("tr", {}, el("th", {}, `row ${i + 1}`));
    for (let c = 1; c <= nc.width; ++c) {
      const piece = r.x === c ? "X" : r.o === c ? "O" : "";
      const name = `row ${i + 1}, column ${c}` + (piece ? `: ${piece}` : "");
      tr.append(el("td", {
        class: "square" + (piece ? " piece-" + piece.toLowerCase() : ""),
        dataset: { row: i + 1, col: c }, onclick: guard(() => ncClick(i + 1, c)),
      }, el("button", { type: "button", class: "square-button", "aria-label": name }, piece)));
    }
    tr.append(el("td", { class: "gap" }, view ? String(view.gaps[i]) : ""));
    table.append(tr);
  });
  if (keep) {
    const square = table.querySelector(`td.square[data-row="${keep.row}"][data-col="${keep.col}"] button`);
    if (square) square.focus();
  }
  $("nc-gaps").textContent = view ? `${view.gaps.join(" ^ ")} = ${view.xor}` +
    (view.xor === 0 ? " (XOR 0: the player to move loses)" : " (XOR not 0: the player to move wins)") : "—";
}

export function ncShow(view) {
  nc.board = view.board;
  nc.rows = view.rows;
  drawNorthcott(view);
}

export async function ncNew(event) {
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

export async function ncStart(text) {
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

export async function ncArrive(view, mover) {
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
    const answer = await api("/api/northcott", {}, { board: nc.board, reply: "o", level: $("nc-level").value });  // POST: may solve
    const r = answer.reply;
    nc.history.push(`O: row ${r.row}, column ${r.from} to ${r.to}` + (r.closes ? "" : " (a retreat)"));
    ncHistory();
    ncShow(answer.after_reply);
    await ncArrive(answer.after_reply, "x");
  }), 500);
}

export async function ncClick(row, col) {
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

export function ncSetupMode() {
  nc.setup = true;
  nc.serial += 1;
  if (nc.rows.length !== Number($("nc-rows").value)) {
    nc.rows = Array.from({ length: Number($("nc-rows").value) }, () => ({ x: 1, o: nc.width }));
  }
  $("nc-setup-help").hidden = false;
  setNcState("setup", "place the pieces, then press Play from this board");
  drawNorthcott(null);
}

export async function ncHint() {
  if (nc.state !== "human-turn") throw new Error("a hint is for your move");
  const answer = await api("/api/northcott", {}, { board: nc.board, reply: "x", level: "perfect" });  // POST: may solve
  const r = answer.reply;
  const view = answer.after_move;
  $("nc-hint-text").textContent = view.xor === 0
    ? `The gaps' XOR is 0 already: every move loses against perfect play. Holding out longest: X in row ${r.row} to column ${r.to}.`
    : `Move X in row ${r.row} from column ${r.from} to ${r.to}: the gaps become ${answer.after_reply.gaps.join(" ^ ")} = 0, and whatever O does, you can make the XOR 0 again.`;
  $("nc-hint-text").hidden = false;
}

export function ncHistory() {
  $("nc-history").replaceChildren(...nc.history.map((h) => el("li", {}, h)));
}
