// Explore: a position's answer, and pictures of planes of positions.
import { $, api, el, guard, heapsText, loadTables, remotenessText, tables } from "./common.js";
import { CELL, NO_REMOTENESS, NO_VALUE, RAMP, cellColour, cellRank, css, fetchPlane, paintCells, valueRgb } from "./plane.js";

export function clearAnswer() {
  $("ex-summary").textContent = "";
  delete $("ex-summary").dataset.value;
  $("ex-moves").replaceChildren();
  $("ex-line-title").hidden = true;
  $("ex-line").replaceChildren();
}

// A position the chosen table holds, for the box's first query: 3 4 5, or
// as much of it as the table's heaps and tokens allow.
export function fitPosition() {
  const t = tables.find((x) => x.path === $("ex-table").value);
  if (!t) return;
  const heaps = [];
  for (const h of [3, 4, 5].slice(0, t.max_heaps)) {
    const room = t.max_total === null ? t.max_heap_size : t.max_total - heaps.reduce((x, y) => x + y, 0);
    if (Math.min(h, room) > 0) heaps.push(Math.min(h, room));
  }
  const now = $("ex-position").value.trim().split(/[\s,]+/).filter(Boolean).map(Number);
  const fits = now.filter((h) => h > 0).length <= t.max_heaps &&
    (t.max_total === null ? now.every((h) => h <= t.max_heap_size) : now.reduce((x, y) => x + y, 0) <= t.max_total);
  if (!fits) $("ex-position").value = heaps.join(" ") || "0";
}

// The table and the position a link names (#explore?table=T&position=P):
// chosen, and true when there is a position to answer.
export function exploreFromLink(params) {
  const table = params.get("table");
  if (table && tables.some((t) => t.path === table)) $("ex-table").value = table;
  if (!params.get("position")) return false;
  $("ex-position").value = params.get("position");
  return true;
}

export async function explore(event) {
  if (event) event.preventDefault();
  clearAnswer();  // no answer of another table or position stays under an error
  const table = $("ex-table").value;
  if (!table) throw new Error("no table in the server's folder yet: solve one with nimtb solve");
  const q = await api("/api/query", { table, position: $("ex-position").value, line: 1 });
  // The address names the table and the position: a link opens this answer.
  history.replaceState(null, "", "#explore?" + new URLSearchParams({ table, position: q.position.join(" ") || "0" }));
  await markPosition(q.position);
  $("ex-summary").textContent = `${heapsText(q.position)}: the player to move ` +
    (q.to_move_wins ? "wins (N-position)" : "loses (P-position)") +
    `; value ${q.value}; remoteness ${remotenessText(q.remoteness)}.`;
  $("ex-summary").dataset.value = q.value;
  const head = el("tr", {}, ...["move", "leaves", "value", "remoteness", "the mover"].map((h) => el("th", { scope: "col" }, h)));
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
export const ex = { table: null, planes: [], others: [], companions: new Map(), serial: 0, drawn: 0, view: null };

export function othersFor(t) {
  return t.max_heaps > 2 ? Array.from({ length: Math.min(t.max_heaps - 2, 6) }, () => 0) : [];
}

// A slider per heap besides a and b (up to six); the others stay empty.
export function drawSliders(t) {
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

export let pictureTimer = null;
export function schedulePictures() {
  clearTimeout(pictureTimer);
  pictureTimer = setTimeout(guard(() => drawPictures(true)), 120);
}

// Follows a solve on the server, its progress on screen, until it ends;
// Cancel stops it (the server then writes nothing).
export async function followJob(job, what, positions) {
  const box = $("ex-progress"), bar = $("ex-progress-bar"), text = $("ex-progress-text");
  box.hidden = false;
  const cancel = guard(() => api("/api/job/cancel", {}, { id: job }));
  $("ex-cancel").onclick = cancel;
  try {
    for (;;) {
      const s = await api("/api/job", { id: job });
      const share = s.total ? s.done / s.total : 0;
      bar.value = share;
      text.textContent = `solving ${what} (${positions} positions): ${Math.round(100 * share)}%`;
      if (s.state === "done") return s.answer;
      if (s.state !== "running") throw new Error(s.error);
      await new Promise((done) => setTimeout(done, 250));
    }
  } finally {
    box.hidden = true;
    $("ex-cancel").onclick = null;
  }
}

export async function companionOf(table) {
  if (!ex.companions.has(table)) {
    let c = await api("/api/companion", {}, { table });  // POST: found, or a job solving it
    if (c.job) {
      const t = tables.find((x) => x.path === table);
      const other = t && t.convention === "normal" ? "misère" : "normal-play";
      try {
        c = await followJob(c.job, `the ${other} table`, c.positions);
      } catch (e) {
        $("ex-compare").value = "one";  // back to the picture there is
        throw e;
      }
    }
    ex.companions.set(table, c);
    if (!tables.some((t) => t.path === c.table)) await loadTables();  // solved just now
  }
  return ex.companions.get(table);
}

// Draws the planes of the chosen table; keep: keep the zoom and pan.
export async function drawPictures(keep = false) {
  const serial = ++ex.serial;
  const t = tables.find((x) => x.path === $("ex-table").value);
  if (!t) return;
  if (t.path !== ex.table) {
    ex.table = t.path;
    ex.view.mark = null;
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
  $("ex-pictures").closest(".explore").classList.toggle("stacked", mode === "side");
  let pair = [t];
  if (mode !== "one") {
    const c = await companionOf(t.path);
    pair = t.convention === "normal" ? [t, c.info] : [c.info, t];
  }
  const others = [...ex.others];
  let planes;
  try {
    // One after the other: a big picture is costly work the server admits one at a time.
    planes = [];
    for (const x of pair) planes.push(await fetchPlane(x.path, others));
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
  const picture = (title, mode, plane, other) => {
    const colourOf = cellColour(mode, plane, other);
    return { title, colourOf, rankOf: cellRank(mode, plane, other), image: paintCells(plane.rows, plane.cols, colourOf) };
  };
  const pictures = mode === "difference"
    ? [picture("normal against misère play", "difference", first, ex.planes[1])]
    : ex.planes.map((p) => picture(
      `${p.info.rules} ${p.info.convention}` + (p.info.convention === "misere" ? " (misère: the last move loses)" : ""),
      colour, p));
  ex.view.show(pictures, first.rows, first.cols, keep);
  const named = ["a", "b", ...others.filter((c) => c > 0)].join(" ");
  $("ex-board-help").textContent = `Positions ${named}: heap a down, heap b across` +
    (others.length ? ", the other heaps set by the sliders" : "") +
    (first.clipped ? `; a and b up to ${first.rows - 1} of the table's larger range` : "") +
    ". Drag to pan, wheel or + − to zoom, hover to read a cell, click to query it.";
  drawLegend(mode, colour);
  ex.drawn = serial;
}

// A colour of the legend, its text black or white, whichever reads better on it.
export function swatch(rgb, text) {
  const lin = rgb.map((c) => { const x = c / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
  const light = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  const ink = (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) ? "#000" : "#fff";
  const e = el("span", { class: "swatch", "data-rgb": rgb.join(",") }, text || "\u00a0");
  // Styles set through the CSSOM: the page's Content-Security-Policy refuses style attributes.
  Object.assign(e.style, { background: css(rgb), color: ink });
  return e;
}

export function drawLegend(mode, colour) {
  const legend = $("ex-legend");
  if (mode === "difference") {
    legend.replaceChildren(swatch(CELL.differs), " the outcome differs  ",
      swatch(CELL.p), " P in both  ", swatch(CELL.n), " N in both");
  } else if (colour === "outcome") {
    legend.replaceChildren(swatch(CELL.p), " P: the player to move loses  ",
      swatch(CELL.n), " N: the player to move wins");
  } else if (colour === "remoteness") {
    const max = Math.max(...ex.planes.map((p) => p.maxRemoteness));
    const ramp = (r, label) => {
      const e = el("span", { class: "ramp" }, label);
      e.style.background = `linear-gradient(90deg,${css(r[0])},${css(r[1])})`;
      return e;
    };
    legend.replaceChildren("remoteness 0 ", ramp(RAMP.p, "P"), ` ${max}   0 `, ramp(RAMP.n, "N"), ` ${max}`);
  } else {
    const max = Math.max(...ex.planes.map((p) => p.maxValue));
    const steps = [...new Set([1, Math.ceil(max / 4), Math.ceil(max / 2), Math.ceil((3 * max) / 4), max])].filter((v) => v >= 1 && v <= max);
    legend.replaceChildren("value ", swatch(valueRgb(0, max), "0"), " (P)  ",
      ...steps.flatMap((v) => [swatch(valueRgb(v, max), String(v)), " "]));
  }
}

// Rings the queried position on the picture: heaps a and b its first two,
// the sliders set to the others (the picture redrawn when they change).
async function markPosition(position) {
  const t = tables.find((x) => x.path === $("ex-table").value);
  if (!t || t.max_heaps < 2 || !ex.view) return;
  const heaps = position.filter((h) => h > 0);
  while (heaps.length < 2) heaps.push(0);
  const rest = heaps.slice(2);
  if (rest.length > ex.others.length) {  // beyond the sliders: not on this picture
    ex.view.mark = null;
    ex.view.draw();
    return;
  }
  const others = ex.others.map((_, i) => rest[i] || 0);
  ex.view.mark = { a: heaps[0], b: heaps[1] };
  if (others.join() !== ex.others.join()) {
    ex.others = others;
    drawSliders(t);
    await drawPictures(true);
  } else {
    ex.view.draw();
  }
}

// What a cell holds, in each picture's table.
export function describeCell(cell) {
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

export function queryCell(cell) {
  const i = cell.a * ex.planes[0].cols + cell.b;
  if (ex.planes[0].values[i] === NO_VALUE) throw new Error("that cell is not a position of the table");
  $("ex-position").value = [cell.a, cell.b, ...ex.others].join(" ");
  return explore();
}
