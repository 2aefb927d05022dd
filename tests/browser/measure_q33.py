# How long the page takes to draw Q_33 of octal:0.07, three times, click to
# image (the API included), and a screenshot; not a test (no timing is
# asserted). cd tests/browser && NIMTB=... SCREENSHOTS=DIR python3 measure_q33.py
import sys, time, unittest
from selenium.webdriver.common.by import By
import test_page

class Measure(test_page.Page):
    def test_q33(self):
        self.open("research")
        for run in range(3):
            f = self.by_id("mq-rules"); f.clear(); f.send_keys("octal:0.07")
            m = self.by_id("mq-max"); m.clear(); m.send_keys("33")
            self.driver.execute_script("document.getElementById('mq-table').replaceChildren()")
            t0 = time.perf_counter()
            self.by_id("mq-compute").click()
            self.wait_for(lambda d: d.find_elements(By.CSS_SELECTOR, "#mq-table image.cells") and "638 elements" in self.text("mq-summary"), timeout=60)
            t1 = time.perf_counter()
            print(f"Q_33 drawn in {t1 - t0:.2f} s (click to image, API included)", file=sys.stderr)
        self.driver.execute_script("document.getElementById('mq-table').scrollIntoView()")
        self.screenshot("q33-table")

if __name__ == "__main__":
    unittest.main()
