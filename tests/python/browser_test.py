"""`huarong serve` in a real browser: headless Chromium driven through WebDriver (Selenium's
Python bindings with Debian's chromedriver).

Usage: browser_test.py HUARONG TABLES_DIR SCREENSHOT_DIR [UNIVERSE_DIR]

Starts `huarong serve` on a free port with the distance tables in TABLES_DIR, loads the page at
横刀立马, makes three moves by clicking pieces (and, for a piece with several destinations, the
highlighted place), checks after each that the page shows the distance the API gives for the
position and for every listed move, then asks for the solution and plays it to the goal.
Screenshots: `serve-moves.png` (a piece's destinations shown) and `serve-solved.png`.
With UNIVERSE_DIR (the Klotski universe's outputs) served too, the puzzles view: the database's
rows listed most moves first, filtered by metric, and a row opened by a click at its distance
(`serve-puzzles.png`).
"""

import json
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

HENGDAO = "VCCV/VCCV/VHHV/VSSV/S..S"


def api(base, layout, metric="piece"):
    q = urllib.parse.urlencode({"layout": layout, "metric": metric})
    with urllib.request.urlopen(f"{base}/api/position?{q}") as r:
        return json.load(r)


def shown(driver):
    """The position, distance and listed moves the page shows."""
    board = driver.find_element(By.ID, "board")
    distance = driver.find_element(By.ID, "distance").get_attribute("data-distance")
    moves = {
        li.get_attribute("data-position"): li.get_attribute("data-distance")
        for li in driver.find_elements(By.CSS_SELECTOR, "#moves li")
    }
    return board.get_attribute("data-position"), distance, moves


def check_against_api(driver, base, position):
    page_pos, distance, moves = shown(driver)
    truth = api(base, position)
    assert page_pos == truth["position"], (page_pos, truth["position"])
    assert distance == str(truth["distance"]), (distance, truth["distance"])
    assert moves == {m["position"]: str(m["distance"]) for m in truth["moves"]}, moves
    return truth


def wait(driver, timeout):
    """A wait that asks again when the page re-renders the element it looked at (a list redrawn
    between finding a row and reading it), as it does when the element is not there yet."""
    return WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))


def wait_for_position(driver, position, timeout=10):
    wait(driver, timeout).until(
        lambda d: d.find_element(By.ID, "board").get_attribute("data-position") == position
    )


def check_puzzles(driver, base, shots):
    """The puzzles view lists the database as the API does and opens a row at its distance."""
    with urllib.request.urlopen(f"{base}/api/puzzles?metric=piece&limit=5") as r:
        db = json.load(r)["databases"][0]
    col = {name: k for k, name in enumerate(db["columns"])}
    wait(driver, 10).until(
        lambda d: d.find_element(By.ID, "puzzles").is_displayed()
        and d.find_elements(By.CSS_SELECTOR, "#db-rows a.puzzle")
    )
    driver.find_element(By.CSS_SELECTOR, '#db-metric option[value="piece"]').click()
    first = db["rows"][0]
    wait(driver, 10).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "#db-rows a.puzzle").text
        == f"{first[col['moves']]} (piece) {first[col['piece_set']]} {first[col['layout']]}"
    )
    count = driver.find_element(By.ID, "db-count").text
    assert count.startswith(f"{db['matching']} puzzles"), count
    assert first[col["moves"]] == "138", first  # Super Century's cluster heads the database
    driver.find_element(By.CSS_SELECTOR, "#db-rows a.puzzle").click()
    wait_for_position(driver, first[col["layout"]])
    wait(driver, 10).until(
        lambda d: d.find_element(By.ID, "distance").get_attribute("data-distance") == "138"
    )
    driver.save_screenshot(str(shots / "serve-puzzles.png"))
    print(f"puzzles view: {db['matching']} piece-metric puzzles, the first opened at 138 moves")


def main():
    huarong, tables, shots = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    universe = sys.argv[4] if len(sys.argv) > 4 else None
    shots.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [huarong, "serve", "--port", "0", "--tables", tables]
        + (["--tables", universe] if universe else []),
        stdout=subprocess.PIPE,
        text=True,
    )
    driver = None
    try:
        line = server.stdout.readline()
        assert line.startswith("serving on http://"), line
        base = line.split()[2].rstrip("/")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--window-size=1240,820",
        ]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

        q = urllib.parse.urlencode({"layout": HENGDAO, "metric": "piece"})
        driver.get(f"{base}/#{q}")
        wait_for_position(driver, HENGDAO)
        truth = check_against_api(driver, base, HENGDAO)
        assert truth["distance"] == 81, truth["distance"]
        codes = driver.find_element(By.ID, "codes").text
        assert codes == "CommonCode 1A9BF0C00 · ShortCode 4WVE1", codes
        print("loaded 横刀立马: 81 moves shown, as the API says, and its codes")

        # Three moves by clicking, each a closer move, by a piece with several destinations when
        # there is one (click the piece, then the highlighted place).
        position = HENGDAO
        for step in range(3):
            by_piece = {}
            for m in truth["moves"]:
                by_piece.setdefault(m["piece"], []).append(m)
            closer = [k for k, ms in by_piece.items()
                      if any(m["change"] == "closer" for m in ms)]
            several = [k for k in closer if len(by_piece[k]) > 1]
            piece = (several or closer)[0]
            choice = min(by_piece[piece], key=lambda m: m["distance"])
            driver.find_element(By.CSS_SELECTOR, f'#board rect.piece[data-piece="{piece}"]').click()
            if len(by_piece[piece]) > 1:
                ghosts = driver.find_elements(By.CSS_SELECTOR, "#board rect.ghost")
                assert ghosts, "a piece with several moves shows its destinations"
                if step == 0:
                    driver.save_screenshot(str(shots / "serve-moves.png"))
                target = driver.find_element(
                    By.CSS_SELECTOR,
                    f'#board rect.ghost[data-position="{choice["position"]}"]',
                )
                target.click()
            position = choice["position"]
            wait_for_position(driver, position)
            truth = check_against_api(driver, base, position)
            print(f"move {step + 1}: piece {piece} -> {position}, {truth['distance']} to go; "
                  f"{len(truth['moves'])} moves listed with the API's distances")

        # The hint is an optimal move.
        driver.find_element(By.ID, "hint").click()
        hinted = driver.find_element(By.CSS_SELECTOR, "#moves li.hinted")
        assert int(hinted.get_attribute("data-distance")) == truth["distance"] - 1

        # Solve, then play the solution to the goal.
        driver.find_element(By.ID, "solve").click()
        wait(driver, 10).until(
            lambda d: d.find_element(By.ID, "playpause").is_enabled()
        )
        progress = driver.find_element(By.ID, "progress").text
        assert progress == f"0 / {truth['distance']}", progress
        driver.find_element(By.ID, "playpause").click()
        wait(driver, 120).until(
            lambda d: d.find_element(By.ID, "distance").get_attribute("data-distance") == "0"
        )
        final = driver.find_element(By.ID, "board").get_attribute("data-position")
        end = check_against_api(driver, base, final)
        assert end["goal"] is True
        assert "solved" in driver.find_element(By.ID, "verdict").text
        time.sleep(0.5)
        driver.save_screenshot(str(shots / "serve-solved.png"))
        print(f"played the solution: {truth['distance']} moves to the goal {final}")

        if universe:
            check_puzzles(driver, base, shots)

        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not severe, severe
        print(f"screenshots in {shots}")
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
