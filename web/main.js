// The page of `nimtb serve`: plain JavaScript modules over the server's JSON
// API (the same JSON as `nimtb query --json`, `info --json`, `dump --count
// --json`), one module per view; this one wires them to the page.
import { $, guard, guardIn, loadRules, loadTables, showView, tables } from "./common.js";
import { boardKeys, drawHeaps, game, hint, newGame, redo, retry, showClassChoices, showSetupChoices, startFromLink, undo } from "./play.js";
import { boardText, nc, ncHint, ncNew, ncSetupMode, ncStart } from "./northcott.js";
import { clearAnswer, describeCell, drawPictures, ex, explore, exploreFromLink, fitPosition, queryCell } from "./explore.js";
import { catalogueClick, genus, loadCatalogue, quotient, re, research, sequence, showCatalogue } from "./research.js";
import { csvText, downloadButtons } from "./export.js";
import { PlaneView } from "./plane.js";

export function wire() {
  // Research's catalogue is loaded when the view is first shown.
  const show = (view, linked) => {
    showView(view, linked);
    if (view === "research") guardIn("ct-error", loadCatalogue)();
  };
  for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => show(b.dataset.view));
  $("play-setup").addEventListener("submit", guard(newGame));
  $("play-undo").addEventListener("click", guard(undo));
  $("play-redo").addEventListener("click", guard(redo));
  $("play-board").addEventListener("keydown", boardKeys);
  $("play-hint").addEventListener("click", guard(hint));
  $("play-colour").addEventListener("change", drawHeaps);
  $("play-class").addEventListener("change", showClassChoices);
  $("play-size").addEventListener("change", showClassChoices);
  $("play-retry").addEventListener("click", guard(retry));
  $("play-opponent").addEventListener("change", showSetupChoices);
  showSetupChoices();
  $("play-layout").addEventListener("change", () => { $("play-heaps").hidden = $("play-layout").value !== "hand"; });
  $("play-heaps").hidden = true;
  $("nc-setup").addEventListener("submit", guard(ncNew));
  $("nc-setup-mode").addEventListener("click", guard(ncSetupMode));
  $("nc-play-setup").addEventListener("click", guard(() => ncStart(boardText(nc.rows))));
  $("nc-hint").addEventListener("click", guard(ncHint));
  $("ex-form").addEventListener("submit", guard(explore));
  ex.view = new PlaneView($("ex-pictures"), {
    onHover: (cell) => { $("ex-hover").textContent = describeCell(cell); },
    onClick: guard(queryCell),
    // Beside the answer on a wide screen: the pictures take what the answer leaves.
    room: () => {
      const box = $("ex-pictures").closest(".explore");
      const beside = getComputedStyle(box).gridTemplateColumns.split(" ").length > 1;
      return box.clientWidth - 34 - (beside ? 26 * 16 + 24 : 0);  // 34: the panel's padding and border
    },
    below: 90,  // the hover line and the legend
  });
  $("ex-table").addEventListener("change", () => fitPosition());
  $("ex-table").addEventListener("change", guard(() => { clearAnswer(); return drawPictures(); }));
  for (const id of ["ex-colour", "ex-compare"]) $(id).addEventListener("change", guard(() => drawPictures(true)));
  $("ex-zoom-in").addEventListener("click", () => ex.view.zoom(1.5));
  $("ex-zoom-out").addEventListener("click", () => ex.view.zoom(1 / 1.5));
  $("ex-zoom-fit").addEventListener("click", () => ex.view.fit());
  // The research forms each say their errors beside themselves.
  $("re-form").addEventListener("submit", guardIn("re-error", research));
  $("sq-form").addEventListener("submit", guardIn("sq-error", sequence));
  $("mq-form").addEventListener("submit", guardIn("mq-error", quotient));
  $("gn-form").addEventListener("submit", guardIn("gn-error", genus));
  $("ct-form").addEventListener("submit", (e) => e.preventDefault());
  for (const type of ["input", "change"]) $("ct-form").addEventListener(type, showCatalogue);
  $("ct-table").addEventListener("click", catalogueClick);
  wireDownloads();
  // #view, or #play?rules=...&heaps=... (a linked position: play.js's linkHere).
  const fromHash = () => {
    const [view, query] = location.hash.slice(1).split("?");
    show(["play", "northcott", "explore", "research"].includes(view) ? view : "play", query !== undefined);
    if (view === "play" && query) guard(() => startFromLink(new URLSearchParams(query)))();
    if (view === "explore" && query && tables.length) {
      guard(async () => { if (exploreFromLink(new URLSearchParams(query))) await explore(); await drawPictures(true); })();
    }
  };
  window.addEventListener("hashchange", fromHash);
  fromHash();
}

// Every picture and plot can be downloaded as SVG or PNG, and its data as CSV.
function wireDownloads() {
  const need = (x, what) => { if (!x) throw new Error(`nothing to download yet: ${what} first`); return x; };
  const stem = () => need($("ex-table").value, "choose a table").replace(/\.h5$/, "");
  downloadButtons($("ex-legend"), {
    id: "ex-pictures", title: "the pictures", name: () => `${stem()}-plane`,
    canvases: () => need([...document.querySelectorAll("#ex-pictures canvas")].length && [...document.querySelectorAll("#ex-pictures canvas")], "draw a picture"),
    // The table itself, as nimtb dump --csv writes it.
    csv: async () => {
      const res = await fetch("/api/dump?" + new URLSearchParams({ table: need($("ex-table").value, "choose a table") }));
      let text;
      try {
        text = await res.text();
      } catch {
        // The server ends an export it cannot finish without its last chunk: the body is refused whole.
        throw new Error("the export was cut short (the server's time for work ran out, or the connection broke), " +
                        "so nothing was saved; nimtb dump --csv writes any table whole");
      }
      if (!res.ok) throw new Error(JSON.parse(text).error);
      return text;
    },
  });
  const counts = (key) => () => {
    const c = need(re.count, "count a table's P-positions");
    const rows = key === "total" ? c.by_total : key === "largest" ? c.by_largest : need(c.by_remoteness, "a table with remoteness");
    const tuples = c.all.tuples !== undefined;
    return csvText([key, "positions", "p_positions", ...(tuples ? ["tuples", "p_tuples"] : [])],
      rows.map((r) => [r[key], r.positions, r.p_positions, ...(tuples ? [r.tuples, r.p_tuples] : [])]));
  };
  for (const [id, key] of [["re-plot-total", "total"], ["re-plot-largest", "largest"], ["re-plot-remoteness", "remoteness"]]) {
    downloadButtons($(id), { id, title: `P-positions by ${key}`, name: () => `${stem2()}-by-${key}`, svg: () => $(id), csv: counts(key) });
  }
  function stem2() {
    need(re.count, "count a table's P-positions");
    return re.countTable.replace(/\.h5$/, "");
  }
  downloadButtons($("sq-plot"), {
    id: "sq-plot", title: "g(n)", name: () => `${need(re.sequence, "compute a sequence").rules.replace(/[:,]/g, "_")}-sequence`,
    svg: () => $("sq-plot"),
    csv: () => csvText(["n", "g"], need(re.sequence, "compute a sequence").values.map((g, n) => [n, g])),
  });
  const quotientName = () => need(re.quotient, "compute a quotient").rules.replace(/[:,]/g, "_");
  downloadButtons($("mq-table"), {
    id: "mq-table", title: "the multiplication table", name: () => `${quotientName()}-quotient-table`, svg: () => $("mq-table"),
    csv: () => {
      const q = need(re.quotient, "compute a quotient");
      return csvText(["x", "y", "product", "product_in_p"],
        q.table.flatMap((row, x) => row.map((v, y) => [q.elements[x].word, q.elements[y].word, q.elements[v].word, q.elements[v].p ? 1 : 0])));
    },
  });
  // The presentation as the command prints it, and as LaTeX (`nimtb quotient --latex`).
  downloadButtons($("mq-presentation"), {
    id: "mq-presentation", title: "the presentation", name: () => `${quotientName()}-presentation`,
    text: () => {
      const q = need(re.quotient, "compute a quotient");
      return `rules        ${q.rules} (misère play)\nheaps        at most ${q.max_heap} tokens\norder        ${q.order}\n` +
        q.presentation.text;
    },
    latex: () => need(re.quotient, "compute a quotient").presentation.latex,
  });
  downloadButtons($("mq-phi"), {
    id: "mq-phi", title: "phi", name: () => `${quotientName()}-phi`, svg: () => $("mq-phi"),
    csv: () => {
      const q = need(re.quotient, "compute a quotient");
      return csvText(["heap", "element", "in_p"], q.phi.map((x, h) => [h, q.elements[x].word, q.elements[x].p ? 1 : 0]));
    },
  });
  downloadButtons($("gn-table"), {
    id: "gn-table", title: "the genus", name: () => `${need(re.genus, "compute a genus").rules.replace(/[:,]/g, "_")}-genus`,
    csv: () => csvText(["heap", "genus", "normal", "tame"],
      need(re.genus, "compute a genus").heaps.map((h) => [h.heap, h.genus, h.normal, h.tame ? 1 : 0])),
  });
  downloadButtons($("play-chart"), {
    id: "play-chart", title: "the game's values", name: () => "game", svg: () => $("play-chart"),
    csv: () => csvText(["move", "value", "remoteness", "to_move_wins"],
      need(game.positions.length && game.positions, "play a game").map((p, i) => [i, p.value, p.remoteness, p.wins ? 1 : 0])),
  });
}

wire();
// The views' state, for a person at the browser's console (and the browser
// tests, which read the explorer's view).
Object.assign(window, { nimtb: { game, nc, ex } }, { ex });
guard(async () => {
  await loadRules();
  await loadTables();
  // A link to an answer (#explore?table=T&position=P) opens it once the tables are known.
  const [view, query] = location.hash.slice(1).split("?");
  const linked = view === "explore" && query && exploreFromLink(new URLSearchParams(query));
  if (!linked) fitPosition();
  await drawPictures();
  if (linked) await explore();
})();
