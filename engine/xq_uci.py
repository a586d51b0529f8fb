"""Fixed xiangqi positions for ``bench`` (UCI) and the benchmarks: openings, middlegames, endgames."""

from __future__ import annotations

BENCH_FENS = (
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 4 5",
    "r2akab1r/9/1cn1b1n2/p1p1p1p1p/9/2P3c2/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 6 7",
    "2bakab2/9/2n1c1n2/p3p1p1p/2r6/2P1P4/P5P1P/2N1C4/4A4/2BAK1BR1 w - - 0 15",
    "3ak4/4a4/4b4/p3p3p/9/2P6/P3P3P/4B4/4A4/2BAK4 w - - 0 30",
    "4ka3/4a4/9/9/4N4/9/9/9/4A4/3AK4 w - - 0 40",
    "3k5/9/9/9/4R4/9/9/9/9/4K4 w - - 0 50",
    "2ba1k3/4a4/4b4/9/2p6/9/4P4/4B4/4A4/2BAK1c2 b - - 0 45",
)
