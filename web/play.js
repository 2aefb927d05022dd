// Play: a heap game against the table's computer, or between two people.
import { $, api, el, guard, loadTables, remotenessText, tables } from "./common.js";

// The game's state machine: setup -> human-turn | computer-turn -> ... -> game-over.
export const game = {
  state: "setup", table: null, convention: "normal", heaps: [], toMove: 0,
  sides: [], level: "perfect", history: [], probe: null, draws: [], serial: 0,
};

export function setPlayState(state, text) {
  game.state = state;
  $("play-state").textContent = state;
  $("play-state").dataset.state = state;
  $("play-status").textContent = text;
}

export async function newGame(event) {
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
export async function arrive() {
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

export async function computerMove() {
  const serial = game.serial;
  const answer = await api("/api/move", { table: game.table, position: game.heaps.join(","), level: game.level });
  if (serial !== game.serial) return;
  if (answer.draw) game.draws.push(answer.draw);
  await apply(answer.move);
}

export async function learnFromGame(winner) {
  const learner = game.sides.findIndex((s) => !s.human);
  if (game.level !== "learning" || learner < 0 || game.draws.length === 0) return;
  await api("/api/learn", {}, { table: game.table, won: winner === learner, draws: game.draws });
}

// A move as the board shows it: heaps numbered from 1 in board order.
export function moveText(m) {
  return m.heap ? `take ${m.take} from heap ${m.heap} (the ${m.heap_size})` : m.move;
}

export async function apply(move) {
  game.history.push({ heaps: game.heaps, mover: game.toMove, text: moveText(move) });
  game.heaps = move.result;
  game.toMove = 1 - game.toMove;
  $("play-hint-text").hidden = true;
  await arrive();
}

export function drawHeaps() {
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

export async function takeTokens(heap, amount) {
  const m = game.probe.moves.find((x) => x.heap === heap && x.take === amount);
  if (!m) {
    const allowed = game.probe.moves.filter((x) => x.heap === heap).map((x) => x.take).sort((a, b) => a - b);
    throw new Error(`the rule does not allow taking ${amount} from heap ${heap}` +
      (allowed.length ? `; you may take ${allowed.join(", ")}` : "; no move is left in it"));
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
  let last;
  do {
    last = game.history.pop();
  } while (!game.sides[last.mover].human);
  game.heaps = last.heaps;
  game.toMove = last.mover;
  game.serial += 1;
  await arrive();
}

export async function hint() {
  if (game.state !== "human-turn") throw new Error("a hint is for a person's move");
  const h = await api("/api/hint", { table: game.table, position: game.heaps.join(",") });
  $("play-hint-text").textContent = h.text;
  $("play-hint-text").hidden = false;
}

export function drawHistory() {
  $("play-history").replaceChildren(...game.history.map((h) =>
    el("li", {}, `${game.sides[h.mover].name}: ${h.text}`)));
}
