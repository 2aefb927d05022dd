

// What every view of the page shares: the API, errors, elements, the
// views themselves, the tables of the server's folder and its rules.

export const $ = (id) => document.getElementById(id);

// GET (or POST with a JSON body) an API path; throws an Error with the server's message.
export async function api(path, params = {}, body = undefined) {
  const url = path + "?" + new URLSearchParams(params).toString();
  const res = await fetch(url, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const json = await res.json();
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

export function showView(name) {
  showError(null);  // an error belongs to the view that caused it
  for (const s of document.querySelectorAll(".view")) s.hidden = s.id !== name;
  for (const b of document.querySelectorAll("nav button")) {
    b.classList.toggle("active", b.dataset.view === name);
  }
  if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
}

export let tables = [];

export async function loadTables() {
  tables = (await api("/api/tables")).tables;
  for (const select of document.querySelectorAll(".table-select")) {
    const keep = select.value;
    select.replaceChildren(...tables.map((t) => el("option", { value: t.path },
      `${t.path} — ${t.rules} ${t.convention}, ${t.positions} positions`)));
    if (tables.some((t) => t.path === keep)) select.value = keep;
  }
}


// The rules the page offers, from the one table the command's help and
// play's help read too (GET /api/rules).
export async function loadRules() {
  const { named } = await api("/api/rules");
  $("rule-list").replaceChildren(...named.map((r) => el("option", { value: r.text }, r.name)));
}
