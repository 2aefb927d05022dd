// Research: counts of P-positions, and single-heap sequences.
import { $, api, el, minus } from "./common.js";
import { barChart, phiPlot, quotientTable, sequencePlot } from "./plots.js";

// The latest of each, for the downloads.
export const re = { count: null, sequence: null, quotient: null, genus: null };

export async function research(event) {
  if (event) event.preventDefault();
  const table = $("re-table").value;
  if (!table) throw new Error("no table in the server's folder yet: solve one with nimtb solve");
  $("re-summary").textContent = "counting…";
  let c;
  try {
    c = await api("/api/count", { table });
  } catch (e) {
    $("re-summary").textContent = "";
    throw e;
  }
  re.count = c;
  re.countTable = table;
  const tuples = c.all.tuples !== undefined;
  // Counts may exceed 2^53 (BigInts): shown exactly, divided as Numbers.
  const share = (r) => (Number(r.positions) ? (100 * Number(r.p_positions) / Number(r.positions)).toFixed(1) + "%" : "—");
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
    { name: "P-positions", cls: "p", values: rows.map((r) => Number(r.p_positions)) },
    { name: "N-positions", cls: "n", values: rows.map((r) => Number(minus(r.positions, r.p_positions))) },
  ], label, "positions");
  bars("re-plot-total", c.by_total, "total", "total");
  bars("re-plot-largest", c.by_largest, "largest", "largest heap");
  if (c.by_remoteness) bars("re-plot-remoteness", c.by_remoteness, "remoteness", "remoteness");
  else $("re-plot-remoteness").replaceChildren();
}

export async function sequence(event) {
  if (event) event.preventDefault();
  const rules = $("sq-rules").value.trim();
  const params = { rules };
  if ($("sq-until").checked) Object.assign(params, { until_proven: 1, limit: $("sq-max").value });
  else params.max_heap = $("sq-max").value;
  $("sq-summary").textContent = "computing…";
  $("sq-plot").replaceChildren();
  try {
    const s = await api("/api/sequence", params);
    re.sequence = s;
    $("sq-summary").textContent = `${s.rules}: g(0) to g(${s.max_heap}); ${s.period.explanation}`;
    sequencePlot($("sq-plot"), s);
  } catch (e) {
    $("sq-summary").textContent = "";
    throw e;
  }
}

// `quotient --analyze`: a sentence, and a table of the idempotents.
function structure(q) {
  const s = q.structure, form = q.standard_form;
  const word = (x) => q.elements[x].word;
  const words = (xs) => xs.map(word).join(", ") || "–";
  const tame = s.tame === null ? "wild (no T_n)"
    : `tame: T_${s.tame}, misère Nim's quotient with heaps below ${2 ** s.tame}`;
  const standard = form.steps.length === 0 ? "no shorter code is the same game"
    : `standard form ${form.rules}: heap n here is heap n + ${form.shift} there`;
  $("mq-structure").textContent = `${tame}; ${s.idempotents.length} idempotents, ` +
    `${s.divisibility_classes} classes of mutual divisibility; the kernel, ` +
    `${s.kernel.length} elements, is the subgroup of ${word(s.kernel_identity)}; ${standard}`;
  const head = el("tr", {}, ...["idempotent", "subgroup", "component", "lower covers",
    "P in subgroup"].map((h) => el("th", { scope: "col" }, h)));
  $("mq-idempotents").replaceChildren(el("caption", {}, "Idempotents"), head,
    ...s.idempotents.map((part) => el("tr", { dataset: { element: part.element } },
      el("td", {}, word(part.element)), el("td", {}, String(part.subgroup.length)),
      el("td", {}, String(part.component.length)), el("td", {}, words(part.lower_covers)),
      el("td", {}, words(part.p_in_subgroup)))));
}

// phi heap by heap in the generators' words, ten heaps a row as Winning
// Ways tabulates a sequence; elements in the P-portion marked.
function phiWords(q) {
  const head = el("tr", {}, el("th", { scope: "col" }, "heap"),
    ...[...Array(10).keys()].map((k) => el("th", { scope: "col" }, `+${k}`)));
  const rows = [];
  for (let row = 0; row <= q.max_heap; row += 10) {
    const cells = [];
    for (let h = row; h < row + 10 && h <= q.max_heap; ++h) {
      const x = q.elements[q.phi[h]];
      cells.push(el("td", { class: x.p ? "p" : "", title: `phi(${h}) = ${x.word}${x.p ? ", in the P-portion" : ""}` },
        x.word, ...(x.p ? [el("span", { class: "visually-hidden" }, " (P)")] : [])));
    }
    rows.push(el("tr", {}, el("th", { scope: "row" }, String(row)), ...cells));
  }
  $("mq-phi-words").replaceChildren(
    el("caption", {}, "phi(n) in the generators' words, heap n = row + column; in the P-portion: dark"), head, ...rows);
}

export async function quotient(event) {
  if (event) event.preventDefault();
  const params = { rules: $("mq-rules").value.trim(), max_heap: $("mq-max").value };
  $("mq-summary").textContent = "computing…";
  $("mq-presentation").textContent = "";
  $("mq-structure").textContent = "";
  $("mq-idempotents").replaceChildren();
  $("mq-table").replaceChildren();
  $("mq-cell").textContent = "";
  $("mq-phi").replaceChildren();
  $("mq-phi-words").replaceChildren();
  try {
    const q = await api("/api/quotient", params);
    re.quotient = q;
    const inP = q.elements.filter((e) => e.p).map((e) => e.word);
    $("mq-summary").textContent = `${q.rules}, heaps up to ${q.max_heap}: ${q.order} elements; ` +
      `P-portion ${inP.join(", ")}`;
    $("mq-presentation").textContent = "generators " +
      q.generators.map((g) => `${g.name} = heap ${g.heap}`).join(", ") + "; relations " +
      (q.relations.map((r) => `${r.left} = ${r.right}`).join(", ") || "none");
    structure(q);
    quotientTable($("mq-table"), q, $("mq-cell"));
    phiPlot($("mq-phi"), q);
    phiWords(q);
  } catch (e) {
    $("mq-summary").textContent = "";
    throw e;
  }
}

// "4^{146}" as 4 with 146 raised, as the genus is written.
function genusText(genus) {
  const [base, rest] = genus.split("^{");
  return rest === undefined ? [genus] : [base, el("sup", {}, rest.replace(/}$/, ""))];
}

// Conway's genus of each heap (`nimtb genus --json`): ten heaps a row, the
// wild heaps (whose genus is no nim heap's) marked.
export async function genus(event) {
  if (event) event.preventDefault();
  const params = { rules: $("gn-rules").value.trim(), max_heap: $("gn-max").value };
  $("gn-summary").textContent = "computing…";
  $("gn-table").replaceChildren();
  try {
    const g = await api("/api/genus", params);
    re.genus = g;
    $("gn-summary").textContent = `${g.rules}, heaps up to ${g.max_heap}: ` +
      (g.first_wild === null ? "every heap is tame" : `heap ${g.first_wild} is the first wild heap`) +
      (g.alternates_from === null ? "" : `; every superscript alternates from γ${g.alternates_from} on`) + ".";
    const head = el("tr", {}, el("th", { scope: "col" }, "heap"),
      ...[...Array(10).keys()].map((k) => el("th", { scope: "col" }, `+${k}`)));
    const rows = [];
    for (let row = 0; row <= g.max_heap; row += 10) {
      const cells = g.heaps.slice(row, row + 10).map((h) => el("td", {
        class: h.tame ? "" : "p", title: `heap ${h.heap}: genus ${h.genus}${h.tame ? ", tame" : ", wild"}`,
      }, ...genusText(h.genus), ...(h.tame ? [] : [el("span", { class: "visually-hidden" }, " (wild)")])));
      rows.push(el("tr", {}, el("th", { scope: "row" }, String(row)), ...cells));
    }
    $("gn-table").replaceChildren(el("caption", {}, "the genus of heap n = row + column; wild heaps dark"), head, ...rows);
  } catch (e) {
    $("gn-summary").textContent = "";
    throw e;
  }
}

// The catalogue of octal games (the project's docs/catalogue.csv and
// docs/quotient_catalogue.csv, compiled into the server as /catalogue.csv
// and /quotient_catalogue.csv): loaded once, when Research is first shown,
// and filtered as its form changes.
const catalogue = { rows: null, loading: null };
const CATALOGUE_SHOWN = 100;

// CSV as RFC 4180 writes it (Python's csv module): fields, a quoted field
// doubling its quotes. Rows of strings.
export function parseCsv(text) {
  const rows = [];
  let row = [], field = "", quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; ++i; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { row.push(field); field = ""; }
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") ++i;
      row.push(field); rows.push(row); row = []; field = "";
    } else field += c;
  }
  if (field || row.length) { row.push(field); rows.push(row); }
  return rows;
}

async function csvRows(path) {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`the catalogue ${path}: the server answered ${res.status}`);
  const [head, ...rows] = parseCsv(await res.text());
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i] ?? ""])));
}

// A code as the catalogue names it: trailing zeros dropped (0.770 is 0.77,
// 4.00 is 4.0), a leading point read as 0.
function codeName(code) {
  const [whole, tail = ""] = code.trim().replace(/^octal:/, "").split(".");
  return `${whole || "0"}.${tail.replace(/0+$/, "") || "0"}`;
}

// Once, however often Research is shown; again after a failure.
export function loadCatalogue() {
  catalogue.loading ??= (async () => {
    $("ct-summary").textContent = "loading the catalogue…";
    const [normal, misere] = await Promise.all([csvRows("/catalogue.csv"), csvRows("/quotient_catalogue.csv")]);
    const byCode = new Map(misere.map((q) => [codeName(q.code), q]));
    catalogue.rows = normal.map((r) => ({ ...r, misere: byCode.get(codeName(r.code)) }));
    showCatalogue();
  })().catch((e) => {
    catalogue.loading = null;
    $("ct-summary").textContent = "";
    throw e;
  });
  return catalogue.loading;
}

function misereKeeps(q, filter) {
  if (!filter) return true;
  if (!q) return false;
  return filter === "tame" ? q.tame.startsWith("T_") : filter === "wild" ? q.tame === "no"
    : filter === "proven" ? q.proven.startsWith("heap") : q.stopped !== "";
}

export function showCatalogue() {
  if (!catalogue.rows) return;
  const typed = $("ct-code").value.trim().replace(/^octal:/, "");
  const prefix = typed.startsWith(".") ? "0" + typed : typed;
  const status = $("ct-status").value, misere = $("ct-misere").value;
  const keep = catalogue.rows.filter((r) => r.code.startsWith(prefix) && (!status || r.status === status) &&
    misereKeeps(r.misere, misere));
  const shown = keep.slice(0, CATALOGUE_SHOWN);
  $("ct-summary").textContent = `${keep.length} of ${catalogue.rows.length} codes` +
    (keep.length > shown.length ? `; the first ${shown.length} shown: narrow the form to see the others.` : ".");
  const head = el("tr", {}, ...["code", "normal play", "largest value", "published", "misère quotient",
    "tame", "quotient proven", "compute"].map((h) => el("th", { scope: "col" }, h)));
  const normalText = (r) => r.status === "not proven" ? (r.stopped || `not proven up to heap ${r.computed_up_to}`)
    : `period ${r.period} from heap ${r.preperiod}${r.status === "trivial" ? " (trivial)" : ""}`;
  const published = (r) => r.published_agrees ? `${r.published_agrees} (as ${r.published_game})` : (r.published || "");
  const rows = shown.map((r) => {
    const q = r.misere;
    return el("tr", {},
      el("th", { scope: "row" }, r.code), el("td", {}, normalText(r)), el("td", {}, r.largest_value),
      el("td", {}, published(r)),
      el("td", {}, q ? `|Q_${q.reached}| = ${q.order_reached}${q.stopped ? `; stopped: ${q.stopped}` : ""}` : "not catalogued"),
      el("td", {}, q ? (q.tame === "no" ? "no" : q.tame) : ""),
      el("td", {}, q ? (q.proven.startsWith("heap") ? `yes: ${q.proven}` : "no") : ""),
      el("td", {},
        el("button", { type: "button", dataset: { code: r.code, what: "sequence" }, "aria-label": `compute g(n) of ${r.code}` }, "g(n)"),
        el("button", { type: "button", dataset: { code: r.code, what: "quotient" }, "aria-label": `compute the quotient of ${r.code}` }, "quotient")));
  });
  $("ct-table").replaceChildren(el("caption", {}, "octal codes; the buttons fill the forms above and compute"), head, ...rows);
}

// A catalogue button: the code in the sequence (until proven, as far as the
// catalogue went, within the page's limit) or quotient form, computed there.
export function catalogueClick(event) {
  const b = event.target.closest("button[data-code]");
  if (!b) return;
  const r = catalogue.rows.find((x) => x.code === b.dataset.code);
  if (b.dataset.what === "sequence") {
    $("sq-rules").value = `octal:${r.code}`;
    $("sq-until").checked = true;
    $("sq-max").value = String(Math.min(Number(r.computed_up_to), Number($("sq-max").max)));
    $("sq-form").scrollIntoView();
    $("sq-form").requestSubmit();
  } else {
    $("mq-rules").value = `octal:${r.code}`;
    $("mq-max").value = String(Math.max(1, Math.min(r.misere ? Number(r.misere.reached) : 20, 20)));
    $("mq-form").scrollIntoView();
    $("mq-form").requestSubmit();
  }
}
