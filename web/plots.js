// Plots of the Research view, drawn as SVG by the page itself (nothing from a
// CDN: the page works offline). Every mark carries its data in data-*
// attributes and a <title>, so what is drawn can be read back.

export const SVG_NS = "http://www.w3.org/2000/svg";

export function svgEl(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

// A round step (1, 2 or 5 times a power of ten) of at least `least`.
export function niceStep(least) {
  const p = 10 ** Math.floor(Math.log10(Math.max(least, 1e-9)));
  for (const m of [1, 2, 5, 10]) if (m * p >= least) return m * p;
  return 10 * p;
}

// Compact numbers for axis labels: 950, 12k, 3.4M.
export function shortNumber(n) {
  if (n >= 1e6) return (n / 1e6).toFixed(n % 1e6 ? 1 : 0) + "M";
  if (n >= 1e4) return (n / 1e3).toFixed(0) + "k";
  return String(n);
}

export const PLOT = { width: 640, height: 260, left: 56, right: 12, top: 28, bottom: 40 };
export const WIDE = { ...PLOT, width: 1100, height: 300 };

// Axes over [x0, x1] x [0, y1] in a fresh plot of the given size; returns the two scales.
// The plot is never wider in its own units than on the screen, so that its
// text keeps its size on a phone. box.log: a logarithmic y axis (counts that
// differ a thousandfold).
export function axes(svg, x0, x1, y1, xLabel, yLabel, box = PLOT) {
  svg.replaceChildren();
  const shown = svg.getBoundingClientRect().width;
  if (shown > 0 && shown < box.width) box = { ...box, width: Math.max(300, Math.round(shown)) };
  svg.setAttribute("viewBox", `0 0 ${box.width} ${box.height}`);
  const w = box.width - box.left - box.right, h = box.height - box.top - box.bottom;
  const sx = (x) => box.left + ((x - x0) / Math.max(x1 - x0, 1e-9)) * w;
  const sy = box.log ? (y) => box.top + h - (Math.log10(1 + y) / Math.log10(1 + Math.max(y1, 1))) * h
    : (y) => box.top + h - (y / Math.max(y1, 1e-9)) * h;
  const g = svgEl("g", { class: "axes" });
  g.append(svgEl("line", { x1: box.left, y1: box.top + h, x2: box.left + w, y2: box.top + h }),
    svgEl("line", { x1: box.left, y1: box.top, x2: box.left, y2: box.top + h }));
  const labels = Math.max(2, Math.min(10, Math.floor(w / 60)));  // room for each label
  const xStep = box.wholeX ? Math.max(1, niceStep((x1 - x0) / labels)) : niceStep((x1 - x0) / labels);
  for (let x = Math.ceil(x0 / xStep) * xStep; x <= x1; x += xStep) {
    g.append(svgEl("line", { x1: sx(x), y1: box.top + h, x2: sx(x), y2: box.top + h + 4 }),
      svgEl("text", { x: sx(x), y: box.top + h + 16, "text-anchor": "middle" }, shortNumber(x)));
  }
  const ticks = [];
  if (box.log) for (let y = 1; y <= y1; y *= 10) ticks.push(y);
  else for (let y = 0, step = niceStep(y1 / 5); y <= y1; y += step) ticks.push(y);
  for (const y of box.log ? [0, ...ticks] : ticks) {
    g.append(svgEl("line", { class: "grid", x1: box.left, y1: sy(y), x2: box.left + w, y2: sy(y) }),
      svgEl("text", { x: box.left - 6, y: sy(y) + 4, "text-anchor": "end" }, shortNumber(y)));
  }
  g.append(svgEl("text", { x: box.left + w / 2, y: box.height - 4, "text-anchor": "middle", class: "label" }, xLabel),
    svgEl("text", { x: 12, y: box.top + h / 2, "text-anchor": "middle", class: "label",
      transform: `rotate(-90 12 ${box.top + h / 2})` }, yLabel));
  svg.append(g);
  return { sx, sy, box };
}

// Bars: for each x, one bar per series, stacked on a linear axis; where the
// first series is too small beside the others to be seen so (Wythoff's
// P-positions), side by side on a logarithmic axis instead.
// series: [{ name, cls, values }] with values[i] the height at xs[i].
export function barChart(svg, xs, series, xLabel, yLabel) {
  const totals = xs.map((_, i) => series.reduce((s, ser) => s + ser.values[i], 0));
  const top = Math.max(1, ...totals), first = Math.max(0, ...series[0].values);
  const log = first > 0 && first < top / 20;
  const x0 = xs.length ? xs[0] - 0.5 : 0, x1 = xs.length ? xs[xs.length - 1] + 0.5 : 1;
  const { sx, sy, box } = axes(svg, x0, x1, log ? top : top * 1.05, xLabel, log ? `${yLabel} (log scale)` : yLabel,
    { ...PLOT, log });
  const slot = Math.max(0.5, sx(1) - sx(0) - (xs.length > 60 ? 0 : 1));
  const width = log ? Math.max(0.5, slot / series.length) : slot;
  xs.forEach((x, i) => {
    let base = 0;
    series.forEach((ser, k) => {
      const v = ser.values[i];
      if (v > 0) {
        const from = log ? 0 : base, left = log ? sx(x) - slot / 2 + k * width : sx(x) - width / 2;
        svg.append(svgEl("rect", {
          class: "bar " + ser.cls, x: left, width, y: sy(from + v), height: sy(from) - sy(from + v),
          "data-x": x, "data-y": v,
        }, svgEl("title", {}, `${xLabel} ${x}: ${v} ${ser.name}`)));
      }
      base += v;
    });
  });
  svg.append(legendOf(series, box));
}

// The series' names in a row above the plot, clear of its bars.
export function legendOf(series, box = PLOT) {
  const g = svgEl("g", { class: "plot-legend" });
  series.forEach((ser, i) => {
    const x = box.left + 110 * i, y = 8;
    g.append(svgEl("rect", { class: "bar " + ser.cls, x, y, width: 10, height: 10 }),
      svgEl("text", { x: x + 14, y: y + 9 }, ser.name));
  });
  return g;
}

// g(n) of a single heap, n = 0..max, as `sequence --json` gives it; the
// periodic stretch shaded from the preperiod on, its first period darker.
export function sequencePlot(svg, seq) {
  const g = seq.values, n = g.length - 1;
  const { sx, sy } = axes(svg, 0, Math.max(n, 1), Math.max(1, ...g), "heap n", "g(n)", WIDE);
  const p = seq.period;
  if (p.period) {
    const top = sy(Math.max(1, ...g)), bottom = sy(0);
    const cls = p.basis === "proof" ? "proven" : "observed";
    const start = Math.min(p.preperiod, n), firstEnd = Math.min(p.preperiod + p.period, n);
    svg.append(svgEl("rect", {
      class: "period " + cls, x: sx(start), y: top, width: Math.max(sx(n) - sx(start), 1), height: bottom - top,
      "data-preperiod": p.preperiod, "data-period": p.period, "data-basis": p.basis,
    }, svgEl("title", {}, p.explanation)), svgEl("rect", {
      class: "period first " + cls, x: sx(start), y: top, width: Math.max(sx(firstEnd) - sx(start), 1), height: bottom - top,
    }, svgEl("title", {}, `the first period: heaps ${p.preperiod} to ${p.preperiod + p.period - 1}`)));
  }
  const dots = svgEl("g", { class: "dots" });
  g.forEach((v, i) => dots.append(svgEl("circle", { cx: sx(i), cy: sy(v), r: g.length > 2000 ? 1 : 1.8, "data-n": i, "data-g": v },
    svgEl("title", {}, `g(${i}) = ${v}`))));
  svg.append(dots);
}

// An element's colour: hues spread over the elements, the identity white.
export function elementColour(x, order) {
  if (x === 0) return "#ffffff";
  return `hsl(${Math.round((360 * x) / order)}, 65%, ${x % 2 ? 55 : 40}%)`;
}

// The multiplication table of a quotient: row x, column y, the product's
// colour, P-portion products outlined, the elements' words along the axes
// (as many as fit; every one when the cells are wide enough). The cells are
// one image drawn on a canvas, k pixels a cell (Q_33 of Dawson's Kayles,
// 638 elements, is 407,044 cells: as SVG rectangles the page took seconds),
// kept on the svg as `cells` ({canvas, k, margin}) to be read back; the
// cell under the pointer is told in `readout`.
export function quotientTable(svg, q, readout) {
  const n = q.order, margin = 44, size = 420, cell = size / n;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${margin + size} ${margin + size}`);
  const k = Math.max(1, Math.min(12, Math.floor(1024 / n)));  // canvas pixels a cell
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = n * k;
  const ctx = canvas.getContext("2d");
  const colours = Array.from({ length: n }, (_, v) => elementColour(v, n));
  for (let x = 0; x < n; x++) {
    const row = q.table[x];
    for (let y = 0; y < n; y++) {
      ctx.fillStyle = colours[row[y]];
      ctx.fillRect(y * k, x * k, k, k);
    }
  }
  if (k >= 4) {  // the P-portion outlined where a cell has room for it
    ctx.strokeStyle = "#111";
    ctx.lineWidth = 1;
    for (let x = 0; x < n; x++) {
      for (let y = 0; y < n; y++) if (q.elements[q.table[x][y]].p) ctx.strokeRect(y * k + 0.5, x * k + 0.5, k - 1, k - 1);
    }
  }
  svg.cells = { canvas, k, margin, size };
  svg.append(svgEl("image", {
    x: margin, y: margin, width: size, height: size, href: canvas.toDataURL(), class: "cells",
    "image-rendering": "pixelated", preserveAspectRatio: "none",
  }));
  // The axes: every element's word where a label has room, else every step-th.
  const step = Math.max(1, Math.ceil(11 / cell));
  const axes = svgEl("g", { class: "axes table-axes" });
  for (let e = 0; e < n; e += step) {
    const at = margin + (e + 0.5) * cell, word = q.elements[e].word;
    axes.append(svgEl("text", { x: margin - 3, y: at + 3, "text-anchor": "end" }, word),
      svgEl("text", { x: at, y: margin - 4, "text-anchor": "start", transform: `rotate(-60 ${at} ${margin - 4})` }, word));
  }
  svg.append(axes);
  const tell = (event) => {
    const box = svg.getBoundingClientRect(), scale = (margin + size) / box.width;
    const px = (event.clientX - box.left) * scale - margin, py = (event.clientY - box.top) * scale - margin;
    if (px < 0 || py < 0 || px >= size || py >= size) return;
    const x = Math.floor(py / cell), y = Math.floor(px / cell), v = q.table[x][y];
    if (readout) readout.textContent = `${q.elements[x].word} · ${q.elements[y].word} = ${q.elements[v].word}` +
      (q.elements[v].p ? " (in the P-portion)" : "");
  };
  svg.onmousemove = tell;
}

// phi(h) for every heap: the element's number, dark dots in the P-portion.
export function phiPlot(svg, q) {
  const { sx, sy } = axes(svg, 0, Math.max(q.max_heap, 1), Math.max(1, q.order - 1), "heap n", "element of phi(n)");
  const dots = svgEl("g", { class: "dots" });
  q.phi.forEach((x, h) => {
    if (h === 0) return;
    dots.append(svgEl("circle", {
      cx: sx(h), cy: sy(x), r: 2.5, class: q.elements[x].p ? "p" : "n", "data-n": h, "data-x": x,
    }, svgEl("title", {}, `phi(${h}) = ${q.elements[x].word}` + (q.elements[x].p ? " (P-portion)" : ""))));
  });
  svg.append(dots);
}

// A game's value and remoteness over its moves (as Gamesman's value history):
// x the number of moves made, one dot per position reached, green where the
// player to move there wins, dark where they lose; remoteness joined by a
// line, value by a dashed one. positions: [{ value, remoteness, wins, mover }].
export const GAME = { ...PLOT, width: 360, height: 210, left: 40, top: 30, bottom: 34, wholeX: true };
export function gameChart(svg, positions, names) {
  if (!positions.length) {
    svg.replaceChildren();
    return;
  }
  const last = positions.length - 1;
  const top = Math.max(1, ...positions.map((p) => Math.max(p.value, p.remoteness ?? 0)));
  const { sx, sy } = axes(svg, 0, Math.max(last, 1), top, "moves made", "value, remoteness", GAME);
  const line = (key, cls) => {
    const points = positions.map((p, i) => (p[key] === null ? null : `${sx(i)},${sy(p[key])}`)).filter(Boolean);
    if (points.length > 1) svg.append(svgEl("polyline", { class: "history " + cls, points: points.join(" ") }));
  };
  line("remoteness", "remoteness");
  line("value", "value");
  const dots = svgEl("g", { class: "dots" });
  positions.forEach((p, i) => {
    const who = names[p.mover] || `player ${p.mover + 1}`;
    const tell = `after ${i} moves: ${who} to move ${p.wins ? "wins" : "loses"}; value ${p.value}` +
      (p.remoteness === null ? "" : `, remoteness ${p.remoteness}`);
    const data = { "data-move": i, "data-value": p.value, "data-wins": p.wins ? 1 : 0 };
    if (p.remoteness !== null) {
      data["data-remoteness"] = p.remoteness;
      dots.append(svgEl("circle", { cx: sx(i), cy: sy(p.remoteness), r: 3.5, class: p.wins ? "wins" : "loses", ...data },
        svgEl("title", {}, tell)));
    }
    dots.append(svgEl("rect", { x: sx(i) - 2.5, y: sy(p.value) - 2.5, width: 5, height: 5, class: "value-mark", ...data },
      svgEl("title", {}, tell)));
  });
  svg.append(dots);
  const key = svgEl("g", { class: "plot-legend" });
  const x = GAME.left, y = 12;
  key.append(svgEl("text", { x, y: y + 4 }, "remoteness, to move:"),
    svgEl("circle", { cx: x + 132, cy: y, r: 3.5, class: "wins" }), svgEl("text", { x: x + 138, y: y + 4 }, "wins"),
    svgEl("circle", { cx: x + 174, cy: y, r: 3.5, class: "loses" }), svgEl("text", { x: x + 180, y: y + 4 }, "loses"),
    svgEl("rect", { x: x + 222, y: y - 2.5, width: 5, height: 5, class: "value-mark" }),
    svgEl("text", { x: x + 231, y: y + 4 }, "value"));
  svg.append(key);
}
