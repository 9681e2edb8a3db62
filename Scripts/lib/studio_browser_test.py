# SPDX-License-Identifier: Apache-2.0
"""The studio in a real browser: headless Chromium opens the page, a designer's session is played
through its controls (add events, drag, edit, draw a curve, feel, play, export), and the
exported AHAP is read back by the studio's own reader. Run by Scripts/studio-check.

usage: studio_browser_test.py BASE_URL SCREENSHOT HAPTIC_FILE
"""
import json
import math
import os
import struct
import sys
import tempfile
import time
import urllib.request
import wave

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

base, screenshot = sys.argv[1], sys.argv[2]
failures = []


def check(condition, message):
    print(message + (" ... ok" if condition else " ... FAILED"))
    if not condition:
        failures.append(message)


def click(selector, tries=10):
    """Clicks what `selector` finds, found again if a redraw (the preview after an edit) replaced it."""
    for attempt in range(tries):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            if attempt == tries - 1:
                raise


# Downloads (the page's .haptic) land here, to be read back.
downloads = tempfile.mkdtemp(prefix="studio-downloads-")
def click_at(selector, x, y, tries=10):
    """Clicks `selector`'s element at (x, y) from its centre, found again if a redraw replaced it."""
    for attempt in range(tries):
        try:
            ActionChains(driver).move_to_element_with_offset(driver.find_element(By.CSS_SELECTOR, selector), x, y).click().perform()
            return
        except StaleElementReferenceException:
            if attempt == tries - 1:
                raise


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900", "--disable-gpu",
                 "--autoplay-policy=no-user-gesture-required"]:
    options.add_argument(argument)
options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
driver.set_script_timeout(30)
wait = WebDriverWait(driver, 20)
try:
    driver.get(base + "/")
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "playing on"))
    check("simulated" in driver.find_element(By.ID, "status").text, "the page says it plays on the simulated chip")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#effects button")) == 123)
    check(True, "the ROM effects list shows 123 effects")

    # A tap, then a buzz after it; the buzz is lengthened by dragging its end handle.
    driver.find_element(By.ID, "add-transient").click()
    driver.find_element(By.ID, "add-continuous").click()
    model = driver.execute_script("return window.studio.model()")
    check([e["type"] for e in model["events"]] == ["transient", "continuous"], "two events added through the toolbar")
    buzz = model["events"][1]
    handle = driver.find_element(By.CSS_SELECTOR, ".event.selected .handle")
    ActionChains(driver).click_and_hold(handle).move_by_offset(80, 0).release().perform()
    longer = driver.execute_script("return window.studio.model()")["events"][1]["duration"]
    check(longer > buzz["duration"] + 0.05, f"dragging the buzz's end lengthened it ({buzz['duration']} s -> {longer} s)")

    # The inspector edits the selected event; dragging intensity taps the chip (feel while dragging).
    sharpness = driver.find_element(By.ID, "field-sharpness")
    sharpness.clear()
    sharpness.send_keys("0.25\n")
    intensity = driver.find_element(By.ID, "range-intensity")
    ActionChains(driver).click_and_hold(intensity).move_by_offset(-40, 0).release().perform()
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "latency"), "round trip"))
    latency = driver.find_element(By.ID, "latency").text
    check("played" in latency, f"feel while dragging reached the chip: {latency}")
    model = driver.execute_script("return window.studio.model()")
    check(abs(model["events"][1]["sharpness"] - 0.25) < 1e-9, "the inspector set the buzz's sharpness")

    # An intensity control curve, point by point: two clicks in its lane.
    for offset in (-200, 0):
        # Every edit redraws the timeline: the lane is found again each time.
        click_at("rect[data-curve='HapticIntensityControl']", offset, 0)
    points = driver.execute_script("return window.studio.model()")["curves"]["HapticIntensityControl"]
    check(len(points) == 2, f"two intensity control points drawn ({len(points)})")

    # The lower lane edits the time controls the renderer applies too, each exported as its own curve.
    Select(driver.find_element(By.ID, "curve-choice")).select_by_value("HapticAttackTimeControl")
    click_at("rect[data-curve='HapticAttackTimeControl']", 0, -5)
    attack = driver.execute_script("return window.studio.model()")["curves"]["HapticAttackTimeControl"]
    exported_ids = [element["ParameterCurve"]["ParameterID"] for element in driver.execute_script("return window.studio.exportAHAP()")["Pattern"]
                    if "ParameterCurve" in element]
    check(len(attack) == 1 and attack[0]["value"] > 0 and "HapticAttackTimeControl" in exported_ids,
          f"curves: an attack time control point drawn in the lower lane and exported ({attack}, curves {exported_ids})")
    driver.find_element(By.ID, "undo").click()
    Select(driver.find_element(By.ID, "curve-choice")).select_by_value("HapticSharpnessControl")

    # Undo and redo, from the keyboard and the toolbar: each edit one step, the model restored exactly.
    def work():
        model = driver.execute_script("return window.studio.model()")
        return {key: model[key] for key in ("events", "curves", "nextId", "audio")}

    def keys(*held, key):
        chain = ActionChains(driver)
        for modifier in held:
            chain = chain.key_down(modifier)
        chain = chain.send_keys(key)
        for modifier in reversed(held):
            chain = chain.key_up(modifier)
        chain.perform()

    before = work()
    driver.find_element(By.ID, "add-transient").click()
    after = work()
    keys(Keys.CONTROL, key="z")
    undone = work()
    keys(Keys.CONTROL, Keys.SHIFT, key="z")
    redone = work()
    driver.find_element(By.ID, "undo").click()
    check(len(after["events"]) == len(before["events"]) + 1 and undone == before and redone == after and work() == before,
          f"undo: Ctrl+Z, Ctrl+Shift+Z and the Undo button restore the model exactly ({len(after['events'])} events, then "
          f"{len(undone['events'])}, {len(redone['events'])}, {len(work()['events'])})")

    # Autosave: a reload brings the work back as it was left, the last edit included.
    driver.find_element(By.ID, "add-transient").click()
    saved = work()
    driver.refresh()
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "playing on"))
    restored = work()
    check(restored == saved and "autosaved" in driver.find_element(By.ID, "messages").text,
          f"autosave: a reload restores the work exactly ({len(restored['events'])} events, "
          f"{len(restored['curves']['HapticIntensityControl'])} intensity points)")
    # The tap added before the reload is deleted; undo brings it back, redo deletes it again.
    newest = max(event["id"] for event in saved["events"])
    click(f".event[data-id='{newest}']")
    driver.find_element(By.ID, "delete").click()
    deleted = work()
    driver.find_element(By.ID, "undo").click()
    back = work()
    driver.find_element(By.ID, "redo").click()
    check(deleted["events"] == before["events"] and back == saved and work() == deleted,
          "undo: after a reload, a delete undoes back to the restored work and redoes")

    # Play on the (simulated) chip: the report says it finished, and the actuator plot appears.
    driver.find_element(By.ID, "play").click()
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "report"), "played"))
    report = driver.find_element(By.ID, "report").text
    check(report.startswith("finished"), f"the pattern played to its end: {report}")
    check("simulated chip" in report, "the actuator plot is the simulated chip's record")

    # Export, then read it back with the studio's reader: the same events and curve.
    driver.find_element(By.ID, "export").click()
    exported = driver.find_element(By.ID, "ahap").get_attribute("value")
    ahap = json.loads(exported)
    model = driver.execute_script("return window.studio.model()")
    request = urllib.request.Request(base + "/api/import?name=exported.ahap", data=exported.encode(), method="POST")
    with urllib.request.urlopen(request) as response:
        imported = json.loads(response.read())
    check(imported["warnings"] == [], f"the exported AHAP reads without warnings {imported['warnings']}")
    read_back = json.loads(imported["ahap"])
    events = [element["Event"] for element in read_back["Pattern"] if "Event" in element]
    check(len(events) == 2 and events[0]["EventType"] == "HapticTransient" and events[1]["EventType"] == "HapticContinuous",
          "the read-back AHAP has the tap and the buzz")
    values = {p["ParameterID"]: p["ParameterValue"] for p in events[1]["EventParameters"]}
    buzz = model["events"][1]
    check(abs(events[1]["EventDuration"] - buzz["duration"]) < 1e-4 and abs(values["HapticSharpness"] - 0.25) < 1e-4
          and abs(values["HapticIntensity"] - buzz["intensity"]) < 1e-4, "the buzz reads back with the edited duration, sharpness and intensity")
    curves = [element["ParameterCurve"] for element in read_back["Pattern"] if "ParameterCurve" in element]
    check(len(curves) == 1 and len(curves[0]["ParameterCurveControlPoints"]) == 2, "the control curve reads back with its two points")
    # Re-import: the exported AHAP opened through the page is the model that was exported (what a
    # designer reopens is what they saved), ids aside.
    def designed(model):
        events = [{key: value for key, value in event.items() if key != "id"} for event in model["events"]]
        curves = {key: points for key, points in model["curves"].items() if points}
        return sorted(events, key=lambda event: (event["time"], event["type"])), curves

    with tempfile.NamedTemporaryFile("w", suffix=".ahap", delete=False) as file:
        file.write(exported)
    upload = driver.find_element(By.ID, "import")
    driver.execute_script("arguments[0].hidden = false", upload)
    upload.send_keys(file.name)
    driver.execute_script("arguments[0].hidden = true", upload)
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "messages"), file.name.split("/")[-1]))
    reopened = driver.execute_script("return window.studio.model()")
    check(designed(reopened) == designed(model),
          f"re-import: the exported AHAP opened in the page is the exported model ({len(reopened['events'])} events, "
          f"{sum(len(points) for points in designed(reopened)[1].values())} curve points)")

    # Meta's .haptic: the page's button, and the same export over the API. Each is held to what the
    # pattern itself says, computed here from the page's model (not one export against the other):
    # the amplitude envelope, read as Meta's reader reads it (linear between points, a step as two
    # points at one time), is the buzz's intensity times the intensity control inside the buzz and
    # 0 outside it; the frequency envelope inside the buzz is its sharpness; the tap is the one
    # emphasis, at its time, with its sharpness, and as strong as the tap or the envelope there,
    # whichever is stronger (the format's rule: an emphasis never below its envelope).
    def control(time):
        points = sorted(model["curves"].get("HapticIntensityControl", []), key=lambda point: point["time"])
        if not points or time < points[0]["time"]:
            return 1.0   # Core Haptics' neutral intensity control, before the curve starts
        for a, b in zip(points, points[1:]):
            if a["time"] <= time <= b["time"]:
                span = b["time"] - a["time"]
                return a["value"] + (b["value"] - a["value"]) * (time - a["time"]) / span if span > 0 else b["value"]
        return points[-1]["value"]

    tap = next(event for event in model["events"] if event["type"] == "transient")
    buzz = next(event for event in model["events"] if event["type"] == "continuous")
    buzz_end = buzz["time"] + buzz["duration"]

    def level(time):
        return buzz["intensity"] * control(time) if buzz["time"] <= time < buzz_end else 0.0

    def envelope_at(points, key, time):
        # The last segment that holds `time` (at a step, the level leaving it).
        value = points[0][key] if points else 0.0
        for a, b in zip(points, points[1:]):
            if a["time"] <= time <= b["time"] and b["time"] > a["time"]:
                value = a[key] + (b[key] - a[key]) * (time - a["time"]) / (b["time"] - a["time"])
        return value if points and points[0]["time"] <= time <= points[-1]["time"] else 0.0

    def differences(haptic):
        envelopes = haptic.get("signals", {}).get("continuous", {}).get("envelopes", {})
        amplitude = envelopes.get("amplitude", [])
        frequency = envelopes.get("frequency", [])
        found = []
        end = max(buzz_end, tap["time"])
        # Every millisecond, but 2 ms either side of the buzz's edges (where the level steps).
        for step in range(int(end * 1000)):
            time = step / 1000
            if abs(time - buzz["time"]) < 0.002 or abs(time - buzz_end) < 0.002:
                continue
            if abs(envelope_at(amplitude, "amplitude", time) - level(time)) > 1e-3:
                found.append(f"amplitude at {time:.3f} s: {envelope_at(amplitude, 'amplitude', time):.4f}, the pattern {level(time):.4f}")
            if buzz["time"] < time < buzz_end and abs(envelope_at(frequency, "frequency", time) - buzz["sharpness"]) > 1e-3:
                found.append(f"frequency at {time:.3f} s: {envelope_at(frequency, 'frequency', time):.4f}, the buzz's sharpness {buzz['sharpness']}")
        emphases = [point for point in amplitude if "emphasis" in point]
        strength = max(tap["intensity"] * control(tap["time"]), level(tap["time"]))
        if len(emphases) != 1:
            found.append(f"{len(emphases)} emphasis points, the pattern has one tap")
        elif (abs(emphases[0]["time"] - tap["time"]) > 1e-3 or abs(emphases[0]["emphasis"]["amplitude"] - strength) > 1e-3
              or abs(emphases[0]["emphasis"]["frequency"] - tap["sharpness"]) > 1e-3):
            found.append(f"the emphasis {emphases[0]}, the tap at {tap['time']} s, {strength:.4f}, sharpness {tap['sharpness']}")
        return found

    driver.find_element(By.ID, "download-haptic").click()
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "messages"), ".haptic written"))
    request = urllib.request.Request(base + "/api/export?format=haptic", data=exported.encode(), method="POST")
    with urllib.request.urlopen(request) as response:
        meta = json.loads(json.loads(response.read())["haptic"])
    found = differences(meta)
    check(not found, f"export: the API's .haptic is the pattern (buzz {buzz['time']}-{buzz_end:.3f} s at {buzz['intensity']:.3f} "
          f"under {len(model['curves'].get('HapticIntensityControl', []))} control points, the tap an emphasis at {tap['time']} s){': ' + '; '.join(found[:3]) if found else ''}")
    # The file the browser saved, read back and held to the same pattern.
    downloaded = os.path.join(downloads, "pattern.haptic")
    for _ in range(100):
        if os.path.exists(downloaded) and not os.path.exists(downloaded + ".crdownload"):
            break
        time.sleep(0.1)
    try:
        with open(downloaded) as file:
            saved = json.load(file)
    except (OSError, ValueError) as error:
        saved = {"error": str(error)}
    found = differences(saved)
    check(not found, f".haptic download: {downloaded} is the pattern, sampled every millisecond "
          f"({len(saved.get('signals', {}).get('continuous', {}).get('envelopes', {}).get('amplitude', []))} amplitude points)"
          f"{': ' + '; '.join(found[:3]) if found else ''}")

    # Import through the page (Meta's .haptic format): the reader's notes are shown, and it plays.
    upload = driver.find_element(By.ID, "import")
    driver.execute_script("arguments[0].hidden = false", upload)
    upload.send_keys(sys.argv[3])
    driver.execute_script("arguments[0].hidden = true", upload)
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "messages"), sys.argv[3].split("/")[-1]))
    model = driver.execute_script("return window.studio.model()")
    check(len(model["events"]) >= 2 and len(model["curves"]["HapticIntensityControl"]) >= 2,
          f"the .haptic file imported as {len(model['events'])} events and an intensity curve: {driver.find_element(By.ID, 'messages').text}")
    check(model["played"] is None, "an import clears the previous playback's plot")
    driver.find_element(By.ID, "play").click()
    wait.until(lambda d: d.execute_script("return window.studio.model().played !== null"))
    check(driver.find_element(By.ID, "report").text.startswith("finished"), "the imported pattern played to its end")
    # An AHAP with an audio event: kept, drawn and exported as it was (the studio does not edit sounds).
    with tempfile.NamedTemporaryFile("w", suffix=".ahap", delete=False) as file:
        json.dump({"Version": 1, "Pattern": [
            {"Event": {"Time": 0.1, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
            {"Event": {"Time": 0.1, "EventType": "AudioCustom", "EventWaveformPath": "sounds/tap.wav",
                       "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5}]}}]}, file)
    driver.execute_script("arguments[0].hidden = false", upload)
    upload.send_keys(file.name)
    driver.execute_script("arguments[0].hidden = true", upload)
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "messages"), "audio event(s) kept"))
    check(len(driver.find_elements(By.CSS_SELECTOR, "#timeline .audio-event")) == 1, "the audio event is drawn on the timeline")
    kept = [element["Event"] for element in driver.execute_script("return window.studio.exportAHAP()")["Pattern"]
            if element.get("Event", {}).get("EventType") == "AudioCustom"]
    check(len(kept) == 1 and kept[0]["EventWaveformPath"] == "sounds/tap.wav" and kept[0]["Time"] == 0.1,
          f"the audio event is exported as it was imported {kept}")
    # A sound: its waveform on the timeline, and haptics made from it, transients at its clicks.
    clicks = [0.3, 0.8, 1.4]
    rate = 44100
    samples = [0.0] * (2 * rate)
    for index in range(len(samples)):
        moment = index / rate
        samples[index] = 0.2 * moment / 2 * math.sin(2 * math.pi * 220 * moment)
    for click in clicks:
        for offset in range(80):
            samples[int(click * rate) + offset] += 0.9 * math.exp(-offset / 25) * (1 if offset % 2 == 0 else -1)
    with tempfile.NamedTemporaryFile(suffix=".wav", delete=False) as file:
        sound_path = file.name
    with wave.open(sound_path, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(rate)
        sound.writeframes(b"".join(struct.pack("<h", max(-32767, min(32767, int(value * 32767)))) for value in samples))
    picker = driver.find_element(By.ID, "sound-file")
    driver.execute_script("arguments[0].hidden = false", picker)
    picker.send_keys(sound_path)
    driver.execute_script("arguments[0].hidden = true", picker)
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "messages"), "of sound"))
    # The lane against the sound's real envelope: each drawn stroke's height (one per 5 ms window)
    # beside the window's peak-to-peak in the samples, and the loudest three (the clicks) at the
    # same places, one window either way. Read in the page in one step: a redraw may replace the element between a find
    # and a read.
    path = driver.execute_script(
        "const wave = document.querySelector('#timeline .sound-wave'); return wave ? wave.getAttribute('d') : ''")
    strokes = [[float(value) for value in stroke.replace("L", " ").split()] for stroke in path.split("M")[1:]]
    strokes = [stroke for stroke in strokes if len(stroke) == 4]
    drawn = [abs(stroke[3] - stroke[1]) for stroke in strokes]
    # Where each stroke is on the timeline, by the page's own scale: its window's index.
    left, per_second = driver.execute_script("return [left, pxPerSecond]")
    placed = [round((stroke[0] - left) / per_second / 0.005) for stroke in strokes]
    # The same 5 ms windows of the samples (the page reads them at its audio context's rate).
    bounds = [(int(i * 0.005 * rate), int((i + 1) * 0.005 * rate)) for i in range(int(len(samples) / rate / 0.005))]
    real = [max(samples[a:b]) - min(samples[a:b]) for a, b in bounds]

    def loudest(levels, count=3, apart=20):
        picked = []
        for index in sorted(range(len(levels)), key=lambda index: -levels[index]):
            if all(abs(index - other) >= apart for other in picked):
                picked.append(index)
            if len(picked) == count:
                break
        return sorted(picked)

    scale = max(drawn or [1]) / max(real)
    difference = sum(abs(a - b * scale) for a, b in zip(drawn, real)) / max(1, len(real)) / max(drawn or [1])
    # Within one window: the browser resamples the sound to its context's rate, whose filter spreads
    # a click into the window before it.
    at = sorted(placed[i] for i in loudest(drawn))
    check(abs(len(drawn) - len(real)) <= 1 and all(abs(a - b) <= 1 for a, b in zip(at, loudest(real))) and difference < 0.05,
          f"audio: the sound's lane follows its envelope ({len(drawn)} windows of 5 ms; the loudest drawn at "
          f"{[round(i * 0.005, 3) for i in at]} s, in the samples {[round(i * 0.005, 3) for i in loudest(real)]} s; "
          f"mean difference {difference:.3f} of full height)")
    driver.find_element(By.ID, "make-haptics").click()
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "messages"), "made from the sound"))
    model = driver.execute_script("return window.studio.model()")
    found = sorted(event["time"] for event in model["events"] if event["type"] == "transient")
    near = [min((abs(time - click) for time in found), default=1) for click in clicks]
    check(all(distance <= 0.01 for distance in near) and len(found) <= len(clicks) + 1
          and any(event["type"] == "continuous" for event in model["events"]),
          f"audio: made haptics from the sound, transients at {found} for clicks at {clicks}")
    # Play: the sound starts in the page with the pattern's request to the chip (the page's clock),
    # its whole length, on a running audio context.
    driver.execute_script("""
        window.heard = [];
        const start = AudioBufferSourceNode.prototype.start;
        AudioBufferSourceNode.prototype.start = function (...args) {
            window.heard.push({ at: performance.now(), seconds: this.buffer ? this.buffer.duration : 0, context: this.context.state });
            return start.apply(this, args);
        };
        const fetched = window.fetch;
        window.fetch = function (url, ...rest) {
            if (String(url).includes("/api/play")) window.heard.push({ request: performance.now() });
            return fetched.call(this, url, ...rest);
        };
        document.getElementById("report").textContent = "";""")
    driver.find_element(By.ID, "play").click()
    wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "report"), "played"))
    heard = driver.execute_script("return window.heard")
    starts = [entry for entry in heard if "seconds" in entry]
    requests = [entry["request"] for entry in heard if "request" in entry]
    lead = requests[0] - starts[0]["at"] if starts and requests else None
    check(len(starts) == 1 and abs(starts[0]["seconds"] - 2.0) < 0.01 and starts[0]["context"] == "running"
          and lead is not None and 0 <= lead <= 50,
          f"audio: the sound starts with the pattern: {starts[0]['seconds'] if starts else 0:.2f} s of sound started "
          f"{lead if lead is not None else float('nan'):.1f} ms before the pattern's play request, its audio context "
          f"{starts[0]['context'] if starts else 'never made'}")

    driver.save_screenshot(screenshot)
    image = Image.open(screenshot).convert("RGB")
    colours = len(image.resize((350, 225)).getcolors(maxcolors=1 << 20) or [])
    check(image.size[0] >= 1000 and colours > 50, f"the screenshot is not blank ({image.size[0]}x{image.size[1]}, {colours} colours)")
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    check(not errors, f"no errors in the browser console {errors}")
finally:
    driver.quit()

if failures:
    print(f"studio browser test: {len(failures)} failed")
    sys.exit(1)
print("studio browser test: all passed")
