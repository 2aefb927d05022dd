// The page of `nimtb serve`: plain JavaScript modules over the server's JSON
// API (the same JSON as `nimtb query --json`, `info --json`, `dump --count
// --json`), one module per view; this one wires them to the page.
import { $, guard, loadRules, loadTables, showView } from "./common.js";
import { game, hint, newGame, retry, showSetupChoices, undo } from "./play.js";
import { boardText, nc, ncHint, ncNew, ncSetupMode, ncStart } from "./northcott.js";
import { clearAnswer, describeCell, drawPictures, ex, explore, fitPosition, queryCell } from "./explore.js";
import { quotient, research, sequence } from "./research.js";
import { PlaneView } from "./plane.js";

export function wire() {
  for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => showView(b.dataset.view));
  $("play-setup").addEventListener("submit", guard(newGame));
  $("play-undo").addEventListener("click", guard(undo));
  $("play-hint").addEventListener("click", guard(hint));
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
  $("re-form").addEventListener("submit", guard(research));
  $("sq-form").addEventListener("submit", guard(sequence));
  $("mq-form").addEventListener("submit", guard(quotient));
  const fromHash = () => {
    const view = location.hash.slice(1);
    showView(["play", "northcott", "explore", "research"].includes(view) ? view : "play");
  };
  window.addEventListener("hashchange", fromHash);
  fromHash();
}

wire();
// The views' state, for a person at the browser's console (and the browser
// tests, which read the explorer's view).
Object.assign(window, { nimtb: { game, nc, ex } }, { ex });
guard(async () => {
  await loadRules();
  await loadTables();
  fitPosition();
  await drawPictures();
})();
