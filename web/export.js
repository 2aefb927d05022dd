// Downloads of what the page draws: each picture and plot as SVG or PNG,
// and its data as CSV (the table's CSV is `nimtb dump --csv`'s, from the
// server; a plot's is the numbers it draws, exactly).
import { el, guard } from "./common.js";

export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// Rows as CSV (RFC 4180): fields with a comma, quote or line break quoted.
export function csvText(header, rows) {
  const field = (x) => {
    const s = String(x ?? "");
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(field).join(",")).join("\n") + "\n";
}

// An SVG of the page as a file of its own: the styles the page's CSS gives
// each mark written into the mark, on a white ground.
const STYLED = ["fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "font-size", "font-family", "text-anchor"];
export function svgText(svg) {
  const copy = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll("*")], to = [copy, ...copy.querySelectorAll("*")];
  from.forEach((node, i) => {
    const style = getComputedStyle(node);
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    for (const p of STYLED) to[i].style.setProperty(p, style.getPropertyValue(p));
  });
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  const box = svg.viewBox.baseVal;
  copy.setAttribute("width", box.width);
  copy.setAttribute("height", box.height);
  const ground = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const [k, v] of Object.entries({ x: 0, y: 0, width: box.width, height: box.height, fill: "#ffffff" })) ground.setAttribute(k, v);
  copy.prepend(ground);
  return new XMLSerializer().serializeToString(copy);
}

// Canvases side by side as one canvas.
function joined(canvases) {
  const gap = 16, out = document.createElement("canvas");
  out.width = canvases.reduce((w, c) => w + c.width, 0) + gap * (canvases.length - 1);
  out.height = Math.max(...canvases.map((c) => c.height));
  const ctx = out.getContext("2d");
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, out.width, out.height);
  let x = 0;
  for (const c of canvases) {
    ctx.drawImage(c, x, 0);
    x += c.width + gap;
  }
  return out;
}

const blobOf = (canvas) => new Promise((done) => canvas.toBlob(done, "image/png"));

async function pngOfSvg(svg) {
  const box = svg.viewBox.baseVal, scale = 2;
  const image = new Image();
  image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svgText(svg));
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = box.width * scale;
  canvas.height = box.height * scale;
  canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
  return blobOf(canvas);
}

// A canvas picture as SVG: the picture itself, embedded as PNG.
function svgOfCanvas(canvas) {
  const url = canvas.toDataURL("image/png");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${canvas.width}" height="${canvas.height}">` +
    `<image width="${canvas.width}" height="${canvas.height}" href="${url}"/></svg>`;
}

// Buttons under a figure. what: { id (of the figure), title, name (of the files), svg: () => SVGElement, canvases: () => [canvas],
// csv: () => string or Promise of one }; each button is there when its source is.
export function downloadButtons(after, what) {
  const name = typeof what.name === "function" ? what.name : () => what.name;
  const bar = el("p", { class: "downloads", "data-for": what.id }, "Download ");
  const button = (label, make) => el("button", {
    type: "button", class: "download", "data-kind": label.toLowerCase(), "aria-label": `download ${what.title} as ${label}`,
    onclick: guard(async () => download(...await make())),
  }, label);
  const svgBlob = (text) => new Blob([text], { type: "image/svg+xml" });
  if (what.svg) {
    bar.append(button("SVG", () => [`${name()}.svg`, svgBlob(svgText(what.svg()))]), " ",
      button("PNG", async () => [`${name()}.png`, await pngOfSvg(what.svg())]), " ");
  }
  if (what.canvases) {
    bar.append(button("SVG", () => [`${name()}.svg`, svgBlob(svgOfCanvas(joined(what.canvases())))]), " ",
      button("PNG", async () => [`${name()}.png`, await blobOf(joined(what.canvases()))]), " ");
  }
  if (what.csv) {
    bar.append(button("CSV", async () => [`${name()}.csv`, new Blob([await what.csv()], { type: "text/csv" })]));
  }
  if (what.text) {
    bar.append(button("Text", () => [`${name()}.txt`, new Blob([what.text()], { type: "text/plain" })]), " ");
  }
  if (what.latex) {
    bar.append(button("LaTeX", () => [`${name()}.tex`, new Blob([what.latex()], { type: "application/x-tex" })]));
  }
  after.after(bar);
  return bar;
}
