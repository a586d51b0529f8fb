"""hardware/: the generated files match the pin map, the BOM parses, both pin maps are consistent."""

from __future__ import annotations

import csv
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
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


def test_xiangqi_svg_names_every_pin_and_draws_90_points() -> None:
    svg = (ROOT / "hardware" / "wiring-xiangqi.svg").read_text(encoding="utf-8")
    data = tomllib.loads((ROOT / "hardware" / "pinout-xiangqi.toml").read_text(encoding="utf-8"))
    for variant in ("gpio", "pico"):
        for pin in [*data[variant]["rows"], *data[variant]["columns"], *data[variant]["buttons"].values()]:
            assert f">{pin:>2}  " in svg, (variant, pin)
    assert svg.count('fill="#9ecae1"') == 90 and svg.count('fill="#f7dc6f"') == 90  # a switch and an LED a point
    assert "river" in svg and "rank 9" in svg and "rank 0" in svg and "spi0-1cs,no_miso" in svg


def test_xiangqi_pico_pins_are_distinct_and_on_the_pico() -> None:
    pico = tomllib.loads((ROOT / "hardware" / "pinout-xiangqi.toml").read_text(encoding="utf-8"))["pico"]
    used = [*pico["rows"], *pico["columns"], *pico["buttons"].values(), pico["ws2812"], pico["buzzer"]]
    on_pins = set(range(23)) | {26, 27, 28}  # GP23-25 and GP29 are inside the Pico
    assert len(pico["rows"]) == 10 and len(pico["columns"]) == 9
    assert len(used) == len(set(used)) and set(used) <= on_pins


def test_the_firmware_pin_modules_name_their_board() -> None:
    namespace: dict[str, object] = {}
    exec((ROOT / "firmware" / "boardfw" / "pins_xiangqi.py").read_text(encoding="utf-8"), namespace)
    assert (namespace["FILES"], namespace["RANKS"], namespace["FIRST_RANK"]) == (9, 10, 0)
    exec((ROOT / "firmware" / "boardfw" / "pins.py").read_text(encoding="utf-8"), namespace)
    assert (namespace["FILES"], namespace["RANKS"], namespace["FIRST_RANK"]) == (8, 8, 1)


def test_xiangqi_bom_counts_one_switch_diode_and_led_a_point() -> None:
    with (ROOT / "hardware" / "bom-xiangqi.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["variant"] in {"gpio", "serial", "both"} and int(r["qty"]) > 0 for r in rows)
    qty = {(r["part"], r["variant"]): int(r["qty"]) for r in rows}
    assert qty[("reed switch", "both")] == qty[("small-signal diode", "both")] == 90
    assert qty[("LED", "gpio")] == qty[("addressable RGB LED", "serial")] == 90
    assert qty[("LED driver", "gpio")] == 2 and qty[("neodymium disc magnet", "both")] == 32
    for r in rows:  # a ref range says as many parts as qty
        first, _, last = r["ref"].partition("-")
        if last:
            digits = "".join(c for c in first if c.isdigit()), "".join(c for c in last if c.isdigit())
            assert int(digits[1]) - int(digits[0]) + 1 == int(r["qty"]), r["ref"]
