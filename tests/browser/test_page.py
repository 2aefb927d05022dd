"""Browser tests of `nimtb serve`: headless Chromium driven by Selenium plays
through the page's own controls and checks every claim the page makes against
the table, as `nimtb query --json` reads it. Screenshots of each view go to
$SCREENSHOTS (ctest sets it to build/tests/screenshots).

Run by ctest with Debian's /usr/bin/python3 (python3-selenium), chromium and
chromium-driver, which tools/setup.sh installs.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from test_cli import NIMTB, run  # noqa: E402
from test_serve import Server  # noqa: E402

SCREENSHOTS = os.environ.get("SCREENSHOTS", os.path.join(tempfile.gettempdir(), "nimtb-screenshots"))


def query(table, position):
    code, out, err = run("query", table, position or "0", "--json")
    assert code == 0, err
    return json.loads(out)


class Page(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="nimtb-browser-")
        cls.tables = os.path.join(cls.dir, "tables")
        os.makedirs(cls.tables)
        for args, name in [(["--rules", "nim", "--heaps", "3", "--max-heap", "15"], "nim-normal-k3-h15.h5"),
                           (["--rules", "subtract:1,3,4", "--misere", "--heaps", "2", "--max-heap", "20"],
                            "subtract-1_3_4-misere-k2-h20.h5")]:
            code, out, err = run("solve", *args, "-o", os.path.join(cls.tables, name), "--quiet")
            assert code == 0, err
        cls.server = Server(cls.tables)
        options = webdriver.ChromeOptions()
        for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
            options.add_argument(a)
        cls.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        os.makedirs(SCREENSHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    # -- helpers

    def open(self, view):
        self.driver.get(self.server.url + "#" + view)
        self.wait_for(lambda d: d.execute_script("return document.readyState") == "complete")

    def wait_for(self, condition, timeout=20):
        return WebDriverWait(self.driver, timeout).until(condition)

    def by_id(self, name):
        return self.driver.find_element(By.ID, name)

    def text(self, name):
        return self.by_id(name).text

    def state(self, prefix, wanted):
        return self.wait_for(lambda d: d.find_element(By.ID, prefix + "-state").get_attribute("data-state")
                             if d.find_element(By.ID, prefix + "-state").get_attribute("data-state") in wanted
                             else False)

    def no_error(self):
        self.assertTrue(self.by_id("error").get_attribute("hidden"), self.text("error"))

    def screenshot(self, name):
        path = os.path.join(SCREENSHOTS, name + ".png")
        self.driver.save_screenshot(path)
        print(f"screenshot: {path}", file=sys.stderr)

    def choose_table(self, select, table):
        """Picks `table` in a table list once the page has listed the server's two tables."""
        self.wait_for(lambda d: len(d.find_elements(By.CSS_SELECTOR, f"#{select} option")) == 2)
        Select(self.by_id(select)).select_by_value(table)

    def board_heaps(self):
        # Read in one script: the board may be redrawn between two element reads.
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#play-board .heap')].map(h => Number(h.dataset.size))")

    def history_length(self):
        return self.driver.execute_script("return document.querySelectorAll('#play-history li').length")

    def settled(self, moves):
        """Waits until `moves` moves are made and a person is to move, or the game is over."""
        self.wait_for(lambda d: self.history_length() == moves
                      and self.text("play-state") == "human-turn" or self.text("play-state") == "game-over")

    # -- the views

    def test_play_a_whole_game_against_the_perfect_computer(self):
        self.open("play")
        Select(self.by_id("play-level")).select_by_value("perfect")
        Select(self.by_id("play-layout")).select_by_value("classic")
        Select(self.by_id("play-first")).select_by_value("me")
        self.by_id("play-new").click()
        rng = random.Random(3)
        table = os.path.join(self.tables, "nim-normal-k3-h15.h5")
        moves, hinted, undone = 0, False, False
        self.computer_could_win = False
        while True:
            self.settled(self.history_length())
            state = self.text("play-state")
            self.no_error()
            heaps = self.board_heaps()
            q = query(table, " ".join(map(str, heaps)))
            # Every claim about the position, against the table.
            self.assertEqual(self.text("play-value"), str(q["value"]))
            self.assertEqual(self.text("play-remoteness"), str(q["remoteness"]))
            self.assertEqual(self.text("play-outcome"),
                             "no move is left" if not q["moves"] else
                             "wins (N-position)" if q["to_move_wins"] else "loses (P-position)")
            if moves > 0:
                # The perfect computer, having moved, never leaves me a won position
                # unless it had none to move to.
                self.assertFalse(q["to_move_wins"] and self.computer_could_win, heaps)
            if state == "game-over":
                break
            if not hinted:
                self.by_id("play-hint").click()
                self.wait_for(lambda d: d.find_element(By.ID, "play-hint-text").is_displayed())
                self.assertIn("XOR of the heaps is 3 ^ 4 ^ 5 = 2", self.text("play-hint-text"))
                self.assertIn("take 2 from heap 1 (the 3)", self.text("play-hint-text"))
                hinted = True
            move = rng.choice(q["moves"])
            before, made = heaps, self.history_length()
            self.driver.find_element(
                By.CSS_SELECTOR, f'#play-board .token[data-heap="{move["heap"]}"][data-take="{move["take"]}"]').click()
            moves += 1
            # My move and the computer's answer (unless my move ended the game).
            self.settled(made + 2)
            if not undone and moves == 2 and self.text("play-state") == "human-turn":
                # Undo takes back my move and the computer's answer.
                self.by_id("play-undo").click()
                self.wait_for(lambda d: self.board_heaps() == before and self.history_length() == made)
                undone = True
                continue
            # The computer answers from the position my move left.
            left = query(table, " ".join(map(str, move["result"])))
            self.computer_could_win = left["to_move_wins"]
        self.screenshot("play")
        # The page names the winner as the rules do: the last mover wins in normal play.
        history = [li.text for li in self.driver.find_elements(By.CSS_SELECTOR, "#play-history li")]
        last = history[-1]
        self.assertIn(self.text("play-status").split(" after ")[0],
                      "you win" if last.startswith("you:") else "computer (perfect) wins")
        self.assertIn(f"after {len(history)} moves", self.text("play-status"))
        # 3 4 5 is an N-position: I move first and played at random; the computer
        # wins unless I played perfectly throughout.
        self.assertTrue(all(re.match(r"^(you|computer \(perfect\)): (take \d+ from heap \d \(the \d+\))$", h)
                            for h in history), history)

    def test_northcott_from_a_set_up_board(self):
        self.open("northcott")
        Select(self.by_id("nc-rows")).select_by_value("2")
        Select(self.by_id("nc-first")).select_by_value("me")
        self.by_id("nc-setup-mode").click()
        self.state("nc", ("setup",))

        def cell(row, col):
            return self.driver.find_element(By.CSS_SELECTOR, f'#nc-board td[data-row="{row}"][data-col="{col}"]')

        def place(piece, row, col):
            self.driver.find_element(By.CSS_SELECTOR, f'input[name=nc-piece][value="{piece}"]').click()
            cell(row, col).click()

        # Row 1: X at 2, O at 6 (gap 3); row 2: X at 12, O at 10 (gap 1). XOR 2: X wins.
        place("o", 1, 6), place("x", 1, 2), place("o", 2, 10), place("x", 2, 12)
        self.screenshot("northcott-setup")
        self.by_id("nc-play-setup").click()

        def board():
            # Read in one script: the board may be redrawn between two element reads.
            cells = self.driver.execute_script(
                "return [...document.querySelectorAll('#nc-board td.square')]"
                ".map(td => [Number(td.dataset.row), Number(td.dataset.col), td.textContent])")
            rows = []
            for r in (1, 2):
                x = [c for row, c, t in cells if row == r and t == "X"]
                o = [c for row, c, t in cells if row == r and t == "O"]
                self.assertEqual((len(x), len(o)), (1, 1))
                rows.append((x[0], o[0]))
            return rows

        def settled(moves):
            self.wait_for(lambda d: self.driver.execute_script(
                "return document.querySelectorAll('#nc-history li').length") == moves
                and self.text("nc-state") == "human-turn" or self.text("nc-state") == "game-over")

        first = True
        for turn in range(200):
            settled(2 * turn)
            state = self.text("nc-state")
            self.no_error()
            rows = board()
            gaps = [abs(x - o) - 1 for x, o in rows]
            if first:
                self.assertEqual(rows, [(2, 6), (12, 10)])
                first = False
            x = gaps[0] ^ gaps[1]
            # The page's claim about the gaps, against the board it draws.
            self.assertTrue(self.text("nc-gaps").startswith(f"{gaps[0]} ^ {gaps[1]} = {x}"), self.text("nc-gaps"))
            if state == "game-over":
                break
            # I keep the XOR at 0 after my moves: whatever O does, even a retreat
            # from closed gaps, leaves me a non-zero XOR.
            self.assertNotEqual(x, 0, rows)
            # My Nim move: the row whose gap loses its top bit of the XOR.
            r = next(i for i, g in enumerate(gaps) if g ^ x < g)
            xcol, ocol = rows[r]
            take = gaps[r] - (gaps[r] ^ x)
            cell(r + 1, xcol + take if xcol < ocol else xcol - take).click()
            if turn == 0:
                self.screenshot("northcott")
        else:
            self.fail("the game did not end")
        self.assertEqual(self.text("nc-status"), "O cannot move: you win")
        self.screenshot("northcott-end")

    def test_explorer_board_cells_hold_the_tables_values(self):
        self.open("explore")
        table = "subtract-1_3_4-misere-k2-h20.h5"
        self.choose_table("ex-table", table)
        self.wait_for(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ex-grid .cell")) == 21 * 21)
        self.no_error()
        path = os.path.join(self.tables, table)
        for a, b in [(0, 0), (2, 7), (7, 2), (5, 5), (20, 13), (1, 0)]:
            c = self.driver.find_element(By.CSS_SELECTOR, f'#ex-grid .cell[data-a="{a}"][data-b="{b}"]')
            q = query(path, f"{a} {b}")
            self.assertEqual(c.get_attribute("data-value"), str(q["value"]), (a, b))
            self.assertEqual(c.text == "P", q["value"] == 0, (a, b))
            self.assertNotIn(c.value_of_css_property("background-color"), ("rgba(0, 0, 0, 0)", "transparent"))
        # Clicking a cell queries it.
        self.driver.find_element(By.CSS_SELECTOR, '#ex-grid .cell[data-a="2"][data-b="7"]').click()
        self.wait_for(lambda d: d.find_element(By.ID, "ex-summary").text.startswith("2 7:"))
        q = query(path, "2 7")
        self.assertIn(f"value {q['value']}; remoteness {q['remoteness']}", self.text("ex-summary"))
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#ex-moves tr")
        self.assertEqual(len(rows) - 1, len(q["moves"]))
        self.assertTrue(rows[1].text.startswith(q["moves"][0]["move"]))
        self.screenshot("explore")
        # Three heaps: a slice per third heap.
        Select(self.by_id("ex-table")).select_by_value("nim-normal-k3-h15.h5")
        self.wait_for(lambda d: d.find_element(By.ID, "ex-third-row").is_displayed())
        third = self.by_id("ex-third")
        third.clear()
        third.send_keys("6\n")
        self.driver.execute_script("document.getElementById('ex-third').dispatchEvent(new Event('change'))")
        self.wait_for(lambda d: "slice of the third heap 6" in d.find_element(By.ID, "ex-board-help").text)
        c = self.driver.find_element(By.CSS_SELECTOR, '#ex-grid .cell[data-a="3"][data-b="5"]')
        self.assertEqual(c.get_attribute("data-value"), "0")  # 3 ^ 5 ^ 6 = 0
        self.assertEqual(c.text, "P")
        self.screenshot("explore-slice")

    def test_research_counts_match_dump_count(self):
        self.open("research")
        table = "nim-normal-k3-h15.h5"
        self.choose_table("re-table", table)
        self.by_id("re-count").click()
        self.wait_for(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#re-by-total tr")) > 1)
        code, out, err = run("dump", os.path.join(self.tables, table), "--count", "--json")
        c = json.loads(out)
        shown = [int(td.text) for td in self.driver.find_elements(By.CSS_SELECTOR, "#re-by-total td.p-count")]
        self.assertEqual(shown, [r["p_positions"] for r in c["by_total"]])
        self.assertIn(f"{c['all']['p_positions']} P-positions of {c['all']['positions']}", self.text("re-summary"))
        self.assertIn(f"{c['all']['p_tuples']} of {c['all']['tuples']}", self.text("re-summary"))
        self.screenshot("research")


if __name__ == "__main__":
    unittest.main()
