"""hardware/: the generated files match the pin map, the BOM parses, both pin maps are consistent."""

from __future__ import annotations

import csv
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_files_are_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "hardware" / "generate.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_svg_names_every_pin() -> None:
    svg = (ROOT / "hardware" / "wiring.svg").read_text(encoding="utf-8")
    data = tomllib.loads((ROOT / "hardware" / "pinout.toml").read_text(encoding="utf-8"))
    for variant in ("gpio", "pico"):
        for pin in [*data[variant]["rows"], *data[variant]["columns"], *data[variant]["buttons"].values()]:
            assert f">{pin:>2}  " in svg, (variant, pin)


def test_pico_pins_are_distinct_and_on_the_pico() -> None:
    pico = tomllib.loads((ROOT / "hardware" / "pinout.toml").read_text(encoding="utf-8"))["pico"]
    used = [*pico["rows"], *pico["columns"], *pico["buttons"].values(), pico["ws2812"], pico["buzzer"]]
    assert len(used) == len(set(used)) and all(0 <= p <= 28 for p in used)


def test_bom_is_a_clean_table() -> None:
    with (ROOT / "hardware" / "bom.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["variant"] in {"gpio", "serial", "both"} and int(r["qty"]) > 0 for r in rows)
    parts = {r["part"] for r in rows}
    assert {"reed switch", "small-signal diode", "LED driver", "addressable RGB LED"} <= parts
