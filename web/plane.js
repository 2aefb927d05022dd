// The Explore view's pictures: a plane of positions a b (the table's other
// heaps fixed) on canvases, one cell per position, heap a down and heap b
// across, with axes, zoom (wheel, buttons), pan (drag), hover and click.
// Several pictures (normal and misère side by side) share one view.
import { el } from "./common.js";
import { niceStep } from "./plots.js";

export const NO_VALUE = 0xffffffff, NO_REMOTENESS = 0xffff;

// The colours of the cells, as [r, g, b].
export const CELL = {
  p: [38, 50, 56],          // a P-position: the player to move loses
  n: [207, 216, 220],       // an N-position, by outcome
  outside: [255, 255, 255], // not a position of the table
  differs: [211, 47, 47],   // the outcome changes between normal and misère play
  unknown: [176, 190, 197], // remoteness not stored
};
export const RAMP = { p: [[187, 222, 251], [13, 71, 161]], n: [[255, 224, 178], [230, 81, 0]] };

// The plot's ground, where no cell is.
const BACKGROUND = [246, 247, 249];

export const css = (rgb) => `rgb(${rgb.join(",")})`;

// Value 0 dark (a P-position); the others along one light ramp, from pale
// yellow (1) through green to blue (the largest value), so that values near
// each other look alike and Nim's nested squares of XOR read as squares.
export const VALUE_RAMP = [[255, 241, 168], [173, 221, 142], [65, 182, 196], [44, 127, 184], [37, 52, 148]];
export function valueRgb(v, max) {
  if (v === 0) return CELL.p;
  const t = max > 1 ? (v - 1) / (max - 1) : 0, x = t * (VALUE_RAMP.length - 1);
  const i = Math.min(Math.floor(x), VALUE_RAMP.length - 2), f = x - i;
  return VALUE_RAMP[i].map((c, k) => Math.round(c + (VALUE_RAMP[i + 1][k] - c) * f));
}

export function remotenessRgb(isP, r, max) {
  const [lo, hi] = isP ? RAMP.p : RAMP.n, t = max ? r / max : 0;
  return lo.map((x, i) => Math.round(x + (hi[i] - x) * t));
}

// The planes fetched last, so that a change of colours or comparison draws
// again without fetching (a 2048 x 2048 plane is 25 MB).
const planeCache = new Map();
const PLANES_KEPT = 4;

// A plane as /api/plane sends it: rows x cols values, then remoteness.
export async function fetchPlane(table, others) {
  const key = table + "|" + others.join(",");
  if (planeCache.has(key)) {
    const plane = planeCache.get(key);
    planeCache.delete(key);  // the most recent last
    planeCache.set(key, plane);
    return plane;
  }
  const plane = await downloadPlane(table, others);
  planeCache.set(key, plane);
  while (planeCache.size > PLANES_KEPT) planeCache.delete(planeCache.keys().next().value);
  return plane;
}

// A table written again under the same name (solved anew) must not be drawn from the cache.
export function forgetPlanes() {
  planeCache.clear();
}

async function downloadPlane(table, others) {
  const res = await fetch("/api/plane?" + new URLSearchParams({ table, others: others.join(",") }));
  if (!res.ok) throw new Error((await res.json()).error || res.statusText);
  const rows = Number(res.headers.get("X-Rows")), cols = Number(res.headers.get("X-Cols"));
  const buffer = await res.arrayBuffer(), n = rows * cols;
  const plane = {
    table, rows, cols, clipped: res.headers.get("X-Clipped") === "1",
    values: new Uint32Array(buffer, 0, n), remoteness: new Uint16Array(buffer, 4 * n, n),
  };
  plane.maxRemoteness = 0;
  for (const r of plane.remoteness) if (r !== NO_REMOTENESS && r > plane.maxRemoteness) plane.maxRemoteness = r;
  plane.maxValue = 0;
  for (const v of plane.values) if (v !== NO_VALUE && v > plane.maxValue) plane.maxValue = v;
  return plane;
}

// The colour of every cell of `plane` in a colour mode ("difference" also reads `other`).
export function cellColour(mode, plane, other) {
  const v = plane.values, r = plane.remoteness;
  switch (mode) {
    case "outcome":
      return (i) => (v[i] === NO_VALUE ? CELL.outside : v[i] === 0 ? CELL.p : CELL.n);
    case "remoteness":
      return (i) => (v[i] === NO_VALUE ? CELL.outside : r[i] === NO_REMOTENESS ? CELL.unknown
        : remotenessRgb(v[i] === 0, r[i], plane.maxRemoteness));
    case "difference":
      return (i) => {
        const w = other.values[i];
        if (v[i] === NO_VALUE || w === NO_VALUE) return CELL.outside;
        if ((v[i] === 0) !== (w === 0)) return CELL.differs;
        return v[i] === 0 ? CELL.p : CELL.n;
      };
    default:
      return (i) => (v[i] === NO_VALUE ? CELL.outside : valueRgb(v[i], plane.maxValue));
  }
}

// Which cell a screen pixel shows when it covers several: the one of the
// highest rank, so that a pixel over any P-position is drawn as one (and, in
// the difference picture, one over any change of outcome as a change).
export function cellRank(mode, plane, other) {
  const v = plane.values;
  if (mode === "difference") {
    const w = other.values;
    return (i) => (v[i] === NO_VALUE || w[i] === NO_VALUE ? 0 : (v[i] === 0) !== (w[i] === 0) ? 3 : v[i] === 0 ? 2 : 1);
  }
  return (i) => (v[i] === NO_VALUE ? 0 : v[i] === 0 ? 2 : 1);
}

// One pixel per cell, drawn later scaled up without smoothing.
export function paintCells(rows, cols, colourOf) {
  const image = document.createElement("canvas");
  image.width = cols;
  image.height = rows;
  const ctx = image.getContext("2d");
  const data = ctx.createImageData(cols, rows);
  for (let i = 0; i < rows * cols; ++i) {
    const c = colourOf(i);
    data.data.set(c, 4 * i);
    data.data[4 * i + 3] = 255;
  }
  ctx.putImageData(data, 0, 0);
  return image;
}

export const MARGIN = { left: 58, right: 22, top: 10, bottom: 34 };
export const MAX_CELL_PX = 48;

export class PlaneView {
  // onHover(cell or null), onClick(cell): cell = { a, b }.
  // room(): the width the pictures may take (default: the container's); the
  // height is what is left of the window below the pictures' top, so that the
  // axes and the legend stay on the first screen.
  constructor(container, { onHover, onClick, room, below = 0 }) {
    this.container = container;
    this.onHover = onHover;
    this.onClick = onClick;
    this.room = room || (() => container.clientWidth);
    this.below = below;
    this.mark = null;  // the cell of the position queried: ringed, and the centre of + and −
    this.figures = [];
    this.rows = 0;
    this.cols = 0;
    this.view = { x0: 0, y0: 0, scale: 1 };
    this.hover = null;
    new ResizeObserver(() => this.layout()).observe(container);
  }

  // pictures: [{ title, image }] of rows x cols cells; keep: keep the zoom and pan.
  show(pictures, rows, cols, keep) {
    const same = keep && rows === this.rows && cols === this.cols && this.figures.length;
    this.rows = rows;
    this.cols = cols;
    this.container.replaceChildren();
    this.figures = pictures.map((p, index) => {
      const canvas = document.createElement("canvas");
      canvas.dataset.picture = index;
      canvas.tabIndex = 0;
      canvas.setAttribute("role", "img");
      canvas.setAttribute("aria-label", `${p.title}: positions a b, heap a down, heap b across. ` +
        "Arrow keys move the cursor, Enter queries its cell, + and − zoom, 0 fits the whole plane.");
      const figure = el("figure", { class: "picture" }, el("figcaption", {}, p.title), canvas);
      this.container.append(figure);
      this.wire(canvas);
      return { canvas, image: p.image, colourOf: p.colourOf, rankOf: p.rankOf, reduced: null };
    });
    this.layout();
    if (!same) this.fit();
    this.draw();
  }

  clear() {
    this.figures = [];
    this.container.replaceChildren();
  }

  // The canvases' size from the container: square plots side by side, no
  // taller than most of the window.
  layout() {
    if (!this.figures.length) return;
    const gap = 16, count = this.figures.length;
    const room = Math.max(160, Math.floor((this.room() - gap * (count - 1)) / count));
    const top = this.container.getBoundingClientRect().top + window.scrollY;
    const tall = Math.max(220, Math.floor(window.innerHeight - top - this.below));
    const side = Math.max(100, Math.min(room - MARGIN.left - MARGIN.right, tall - MARGIN.top - MARGIN.bottom));
    const width = side + MARGIN.left + MARGIN.right, height = side + MARGIN.top + MARGIN.bottom;
    const ratio = window.devicePixelRatio || 1;
    for (const f of this.figures) {
      f.canvas.style.width = width + "px";
      f.canvas.style.height = height + "px";
      f.canvas.width = Math.round(width * ratio);
      f.canvas.height = Math.round(height * ratio);
    }
    this.width = width;
    this.height = height;
    if (this.fitted) this.fit();
    else this.draw();
  }

  plotSize() {
    return { w: this.width - MARGIN.left - MARGIN.right, h: this.height - MARGIN.top - MARGIN.bottom };
  }

  fitScale() {
    const { w, h } = this.plotSize();
    return Math.min(w / Math.max(this.cols, 1), h / Math.max(this.rows, 1));
  }

  fit() {
    this.view = { x0: 0, y0: 0, scale: this.fitScale() };
    this.fitted = true;
    this.draw();
  }

  // Zooms by `factor` keeping the cell under (x, y) (canvas pixels, CSS) in place.
  zoom(factor, x, y) {
    const { w, h } = this.plotSize();
    if (x === undefined && this.mark) {
      const c = this.centreOf(this.mark.a, this.mark.b);
      if (c.x >= MARGIN.left && c.x < MARGIN.left + w && c.y >= MARGIN.top && c.y < MARGIN.top + h) [x, y] = [c.x, c.y];
    }
    if (x === undefined) [x, y] = [MARGIN.left + w / 2, MARGIN.top + h / 2];
    const v = this.view;
    const scale = Math.min(MAX_CELL_PX, Math.max(this.fitScale(), v.scale * factor));
    const bx = v.x0 + (x - MARGIN.left) / v.scale, ay = v.y0 + (y - MARGIN.top) / v.scale;
    this.view = { x0: bx - (x - MARGIN.left) / scale, y0: ay - (y - MARGIN.top) / scale, scale };
    this.fitted = false;
    this.clamp();
    this.draw();
  }

  // Moves the view by (dx, dy) canvas pixels.
  pan(from, dx, dy) {
    this.view = { ...from, x0: from.x0 - dx / from.scale, y0: from.y0 - dy / from.scale };
    this.fitted = false;
    this.clamp();
    this.draw();
  }

  // Pans just enough to bring cell a b into sight.
  follow({ a, b }) {
    const { w, h } = this.plotSize(), v = this.view, spanX = w / v.scale, spanY = h / v.scale;
    if (b < v.x0) v.x0 = b;
    if (b + 1 > v.x0 + spanX) v.x0 = b + 1 - spanX;
    if (a < v.y0) v.y0 = a;
    if (a + 1 > v.y0 + spanY) v.y0 = a + 1 - spanY;
    this.clamp();
  }

  // Some of the plane stays in sight.
  clamp() {
    const { w, h } = this.plotSize(), v = this.view;
    const spanX = w / v.scale, spanY = h / v.scale;
    v.x0 = Math.min(Math.max(v.x0, Math.min(0, this.cols - spanX)), Math.max(0, this.cols - spanX));
    v.y0 = Math.min(Math.max(v.y0, Math.min(0, this.rows - spanY)), Math.max(0, this.rows - spanY));
  }

  // The cells in sight: a in [a0, a1], b in [b0, b1].
  visible() {
    const { w, h } = this.plotSize(), v = this.view;
    return {
      a0: Math.max(0, Math.floor(v.y0)), a1: Math.min(this.rows - 1, Math.ceil(v.y0 + h / v.scale) - 1),
      b0: Math.max(0, Math.floor(v.x0)), b1: Math.min(this.cols - 1, Math.ceil(v.x0 + w / v.scale) - 1),
    };
  }

  // The cell under (x, y) in CSS pixels of a canvas, or null.
  cellAt(x, y) {
    const { w, h } = this.plotSize(), v = this.view;
    if (x < MARGIN.left || y < MARGIN.top || x >= MARGIN.left + w || y >= MARGIN.top + h) return null;
    const b = Math.floor(v.x0 + (x - MARGIN.left) / v.scale), a = Math.floor(v.y0 + (y - MARGIN.top) / v.scale);
    return a >= 0 && b >= 0 && a < this.rows && b < this.cols ? { a, b } : null;
  }

  // The centre of cell a b in CSS pixels of a canvas.
  centreOf(a, b) {
    const v = this.view;
    return { x: MARGIN.left + (b + 0.5 - v.x0) * v.scale, y: MARGIN.top + (a + 0.5 - v.y0) * v.scale };
  }

  draw() {
    if (!this.figures.length || !this.width) return;
    const { w, h } = this.plotSize(), v = this.view, ratio = this.figures[0].canvas.width / this.width;
    for (const f of this.figures) {
      const ctx = f.canvas.getContext("2d");
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, this.width, this.height);
      ctx.save();
      ctx.beginPath();
      ctx.rect(MARGIN.left, MARGIN.top, w, h);
      ctx.clip();
      ctx.fillStyle = "#f6f7f9";
      ctx.fillRect(MARGIN.left, MARGIN.top, w, h);
      ctx.imageSmoothingEnabled = false;
      if (v.scale * ratio >= 1 || !f.rankOf) {
        ctx.drawImage(f.image, MARGIN.left - v.x0 * v.scale, MARGIN.top - v.y0 * v.scale,
          this.cols * v.scale, this.rows * v.scale);
      } else {
        // Several cells a pixel: each pixel the colour of its highest-ranked cell.
        const image = this.reduced(f, ratio);
        ctx.drawImage(image, MARGIN.left, MARGIN.top, w, h);
      }
      if (this.mark && this.mark.a < this.rows && this.mark.b < this.cols) {
        // The position queried: a ring of two colours, seen on dark and light cells.
        const c = this.centreOf(this.mark.a, this.mark.b), s = Math.max(v.scale, 8) / 2 + 3;
        ctx.lineWidth = 3;
        ctx.strokeStyle = "#ffffff";
        ctx.strokeRect(c.x - s - 1.5, c.y - s - 1.5, 2 * s + 3, 2 * s + 3);
        ctx.lineWidth = 2;
        ctx.strokeStyle = "#d81b60";
        ctx.strokeRect(c.x - s, c.y - s, 2 * s, 2 * s);
      }
      if (this.hover) {
        const c = this.centreOf(this.hover.a, this.hover.b);
        ctx.strokeStyle = "#1565c0";
        ctx.lineWidth = 2;
        const s = Math.max(v.scale, 6);
        ctx.strokeRect(c.x - s / 2 - 1, c.y - s / 2 - 1, s + 2, s + 2);
      }
      ctx.restore();
      this.drawAxes(ctx, w, h);
    }
  }

  // The plot area at `ratio` device pixels a CSS pixel, each device pixel the
  // colour of the highest-ranked cell under it; kept until the view moves.
  reduced(f, ratio) {
    const { w, h } = this.plotSize(), v = this.view;
    const W = Math.max(1, Math.round(w * ratio)), H = Math.max(1, Math.round(h * ratio));
    const key = [v.x0, v.y0, v.scale, W, H].join(",");
    if (f.reduced && f.reduced.key === key) return f.reduced.image;
    const best = new Int32Array(W * H).fill(-1), rank = new Int8Array(W * H);
    const r = this.visible(), k = v.scale * ratio;
    const columns = new Int32Array(r.b1 - r.b0 + 1);
    for (let b = r.b0; b <= r.b1; ++b) columns[b - r.b0] = Math.floor((b - v.x0) * k);
    for (let a = r.a0; a <= r.a1; ++a) {
      const y = Math.floor((a - v.y0) * k);
      if (y < 0 || y >= H) continue;
      const row = a * this.cols;
      for (let b = r.b0; b <= r.b1; ++b) {
        const x = columns[b - r.b0];
        if (x < 0 || x >= W) continue;
        const p = y * W + x, i = row + b, c = f.rankOf(i);
        if (c > rank[p] || best[p] < 0) {
          rank[p] = c;
          best[p] = i;
        }
      }
    }
    const image = paintCells(H, W, (p) => (best[p] < 0 ? BACKGROUND : f.colourOf(best[p])));
    f.reduced = { key, image };
    return image;
  }

  drawAxes(ctx, w, h) {
    const v = this.view, r = this.visible();
    ctx.fillStyle = "#5f6b73";
    ctx.strokeStyle = "#5f6b73";
    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    const step = niceStep(36 / v.scale);
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (let b = Math.ceil(r.b0 / step) * step; b <= r.b1; b += step) {
      const x = MARGIN.left + (b + 0.5 - v.x0) * v.scale;
      ctx.fillText(String(b), x, MARGIN.top + h + 5);
      ctx.beginPath();
      ctx.moveTo(x, MARGIN.top + h);
      ctx.lineTo(x, MARGIN.top + h + 3);
      ctx.stroke();
    }
    ctx.fillText("heap b →", MARGIN.left + w / 2, MARGIN.top + h + 19);
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let a = Math.ceil(r.a0 / step) * step; a <= r.a1; a += step) {
      const y = MARGIN.top + (a + 0.5 - v.y0) * v.scale;
      ctx.fillText(String(a), MARGIN.left - 6, y);
      ctx.beginPath();
      ctx.moveTo(MARGIN.left - 3, y);
      ctx.lineTo(MARGIN.left, y);
      ctx.stroke();
    }
    ctx.save();
    ctx.translate(10, MARGIN.top + h / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "center";
    ctx.fillText("← heap a", 0, 0);
    ctx.restore();
  }

  // Drag pans, a click without a drag picks a cell, the wheel zooms.
  wire(canvas) {
    let press = null;
    const at = (e) => {
      const box = canvas.getBoundingClientRect();
      return { x: e.clientX - box.left, y: e.clientY - box.top };
    };
    canvas.addEventListener("pointerdown", (e) => {
      press = { ...at(e), view: { ...this.view }, moved: false };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      const p = at(e);
      if (press) {
        const dx = p.x - press.x, dy = p.y - press.y;
        if (press.moved || Math.hypot(dx, dy) > 4) {
          press.moved = true;
          this.pan(press.view, dx, dy);
          return;
        }
      }
      const cell = this.cellAt(p.x, p.y);
      if ((cell && this.hover && cell.a === this.hover.a && cell.b === this.hover.b) || cell === this.hover) return;
      this.hover = cell;
      this.draw();
      this.onHover(cell);
    });
    canvas.addEventListener("pointerup", (e) => {
      const p = at(e), wasClick = press && !press.moved;
      press = null;
      const cell = this.cellAt(p.x, p.y);
      if (wasClick && cell) this.onClick(cell);
    });
    canvas.addEventListener("pointerleave", () => {
      if (press) return;
      this.hover = null;
      this.draw();
      this.onHover(null);
    });
    // The keyboard: arrows move a cursor cell (the hover), Enter or Space
    // queries it, + and - zoom toward it, 0 fits the plane.
    canvas.addEventListener("keydown", (e) => {
      const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      const r = this.visible();
      const here = this.hover || this.mark || { a: Math.round((r.a0 + r.a1) / 2), b: Math.round((r.b0 + r.b1) / 2) };
      if (steps[e.key]) {
        const [da, db] = steps[e.key], by = e.shiftKey ? 10 : 1;
        this.hover = {
          a: Math.min(this.rows - 1, Math.max(0, here.a + da * by)),
          b: Math.min(this.cols - 1, Math.max(0, here.b + db * by)),
        };
        this.follow(this.hover);
        this.draw();
        this.onHover(this.hover);
      } else if ((e.key === "Enter" || e.key === " ") && this.hover) {
        this.onClick(this.hover);
      } else if (e.key === "+" || e.key === "=") {
        const c = this.centreOf(here.a, here.b);
        this.zoom(1.5, c.x, c.y);
      } else if (e.key === "-") {
        const c = this.centreOf(here.a, here.b);
        this.zoom(1 / 1.5, c.x, c.y);
      } else if (e.key === "0") {
        this.fit();
      } else {
        return;
      }
      e.preventDefault();
    });
    canvas.addEventListener("blur", () => {
      if (!this.hover) return;
      this.hover = null;
      this.draw();
      this.onHover(null);
    });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const p = at(e);
      this.zoom(e.deltaY < 0 ? 1.25 : 0.8, p.x, p.y);
    }, { passive: false });
  }
}
