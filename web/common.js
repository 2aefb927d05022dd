

// What every view of the page shares: the API, errors, elements, the
// views themselves, the tables of the server's folder and its rules.

export const $ = (id) => document.getElementById(id);

// JSON with every whole number exact: one beyond 2^53 (a count of tuples)
// becomes a BigInt rather than the nearest double. Show numbers with
// String(); compute with Number() or the helpers below.
export function parseJson(text) {
  return JSON.parse(text, (key, value, context) =>
    typeof value === "number" && !Number.isSafeInteger(value) && context && /^-?\d+$/.test(context.source)
      ? BigInt(context.source) : value);
}

// a - b exactly, for counts that may be BigInts; a Number when it is safe.
export function minus(a, b) {
  const d = BigInt(a) - BigInt(b);
  return d >= BigInt(Number.MIN_SAFE_INTEGER) && d <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(d) : d;
}

// GET (or POST with a JSON body) an API path; throws an Error with the
// server's message, or one that says the server is not answering.
export async function api(path, params = {}, body = undefined, options = {}) {
  const url = path + "?" + new URLSearchParams(params).toString();
  let res;
  try {
    res = await fetch(url, {
      signal: options.signal,
      ...(body === undefined ? {} : {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      }),
    });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new Error("the server is not answering: is nimtb serve still running? Nothing was changed; try again once it is.");
  }
  const text = await res.text();
  let json;
  try {
    json = parseJson(text);
  } catch (e) {
    throw new Error(`the server answered ${res.status} ${res.statusText} without JSON`);
  }
  if (!res.ok) throw new Error(json.error || res.statusText);
  return json;
}

export function showError(e) {
  const p = $("error");
  p.textContent = e ? String(e.message || e) : "";
  p.hidden = !e;
}

// Runs an async action, showing its error instead of losing it.
export function guard(action) {
  return async (...args) => {
    try {
      showError(null);
      await action(...args);
    } catch (e) {
      showError(e);
    }
  };
}

// The same, the error shown in the element `id` beside the form that
// caused it, not in the banner at the top of the page.
export function guardIn(id, action) {
  return async (...args) => {
    const shown = $(id);
    showError(null);
    shown.hidden = true;
    try {
      await action(...args);
    } catch (e) {
      shown.textContent = String(e.message || e);
      shown.hidden = false;
    }
  };
}

export function el(tag, attrs = {}, ...children) {
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

export const heapsText = (heaps) => heaps.filter((h) => h > 0).join(" ") || "(empty)";
export const remotenessText = (r) => (r === null ? "not stored" : String(r));

// `linked`: the address holds more than the view (a linked position), and stays.
export function showView(name, linked = false) {
  showError(null);  // an error belongs to the view that caused it
  for (const s of document.querySelectorAll(".view")) s.hidden = s.id !== name;
  for (const b of document.querySelectorAll("nav button")) {
    b.classList.toggle("active", b.dataset.view === name);
  }
  if (!linked && location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
}

export let tables = [];

// The table a view opens on before anyone chooses: Nim's in normal play
// where the folder has one (where a class starts), else Nim's, else the first.
function firstChoice() {
  const nim = tables.filter((t) => t.rules === "nim");
  const t = nim.find((x) => x.convention === "normal") || nim[0] || tables[0];
  return t ? t.path : "";
}

export async function loadTables() {
  tables = (await api("/api/tables")).tables;
  for (const select of document.querySelectorAll(".table-select")) {
    const keep = select.value;
    select.replaceChildren(...tables.map((t) => el("option", { value: t.path },
      `${t.path} — ${t.rules} ${t.convention}, ${t.positions} positions`)));
    select.value = tables.some((t) => t.path === keep) ? keep : firstChoice();
  }
}


// The rules the page offers, from the one table the command's help and
// play's help read too (GET /api/rules).
export async function loadRules() {
  const { named } = await api("/api/rules");
  $("rule-list").replaceChildren(...named.map((r) => el("option", { value: r.text }, r.name)));
}
