"""How the records in this folder were made (run once; the files are kept as they were written).

The games are published scores: master games of Liu Dahua's collection as the wukong-xiangqi
game viewer lists them (event, players, moves in coordinates), and the opening of the handicap
game Xu Yinchuan - Nie Weiping (Guangzhou 1999) that the xqbase Chinese-chess PGN standard
prints as its example. The move text in Chinese is written by cchess (an independent writer, not
ours); ICCS, WXF, ASCII digits and traditional characters are spelled from it by the mechanical
maps below, so nothing here comes from boardctl's own writer. Each file is one way people publish
records: with or without tags (never a ``Game`` tag, but one control file), GB18030 or UTF-8
(with a BOM, CRLF lines), comments and variations.

Run from the repository root: ``.venv/bin/python tests/data/xiangqi_records/make.py``.
"""

from __future__ import annotations

from pathlib import Path

import cchess

HERE = Path(__file__).parent

#: (file stem, event, red, black, date, moves in coordinates) from the published scores.
GAMES = [
    ("liu-dianzhong-liu-dahua-1997", "Jiafun Cup National Champion", "Liu Dianzhong", "Liu Dahua", "1997",
     "h2e2 b9c7 h0g2 h7f7 g3g4 h9g7 b2c2 i9h9 b0a2 a9b9 a0b0 b7b3 c3c4 h9h5 i0h0 h5d5 c2c6 c9e7 e2f2 d5d6 c4c5 "
     "b3b2 h0h8 b2g2 b0b9 c7b9 h8b8 g2a2 c0a2 b9d8 c6c9 d9e8 c9a9 d6d7 b8b9 e8d9 b9b8 d9e8 f2d2 d7a7 b8b9 e8d9 "
     "b9d9 e9e8 c5d5 d8b7 a9f9 g6g5 d2g2 f7f8 g4g5 g7f9 d9f9 a7a9 f9a9 b7a9 g5g6 a9c8 g2e2 e8e9 e2e6 f8e8 e6e8 "
     "e9e8 i3i4 e7c9 g6h6 c8e7 d5e5 e7c6 e5e6 c6b4 a2c4 a6a5 h6i6 b4c2"),
    ("liu-dahua-huang-yong-1991", "Chinese National Champion", "Liu Dahua", "Huang Yong", "1991",
     "h2e2 h9g7 h0g2 i9h9 c3c4 g6g5 b0c2 b9c7 b2b4 c9e7 g3g4 g5g4 b4g4 g7h5 a0b0 a9b9 b0b6 h9h8 e3e4 h8f8 e4e5 "
     "e6e5 b6b5 c6c5 b5c5 h5f4 c5e5 d9e8 g2f4 f8f4 g4g2 h7f7 c4c5 f4c4 i0i1 b7b2 c2e3 c4c0 g2b2 b9b2 e3g4 b2b6 "
     "i1f1 b6d6 f0e1 c0c4 g0i2 e9d9 f1f3 d6d1 c5b5 d1d4 f3f6 d4e4 e5e4 c4e4 e2d2 e4e6 f6f5 d9e9 b5c5 c7a8 c5d5 "
     "a8c7 d5e5 e6b6 f5f3 e7g5 f3c3 g9e7 d2c2 c7b9 e5f5 b9d8 c2e2 b6c6 c3d3 f7f8 f5g5 c6e6 e2h2 f8h8 g5f5 d8b7 "
     "f5f6 e6d6 d3e3 e7c9 h2g2 e9d9 f6e6 d6d4 g4h6 e8f7 h6f7 h8f8 g2g9 f9e8 f7h8 d9e9 e6f6 f8f7 g9h9 b7d8"),
    ("liu-dahua-zheng-naidong-1996", "Chinese National Champion", "Liu Dahua", "Zheng Naidong", "1996",
     "h2e2 h7e7 h0g2 h9g7 i0h0 i9i8 b0c2 i8d8 c3c4 b9a7 h0h5 d8d3 c0a2 b7c7 b2b6 d9e8 a0b0 a9b9 g3g4 d3c3 b0b2 "
     "e7d7 g2f4 g6g5 h5g5 c9e7 g5b5 c3a3 f4d5 b9c9 b6b7 d7d6 g4g5 a6a5 b5b3 a3b3 b2b3 c6c5 b3b6 c7c6 b6b2 c9c7 "
     "c4c5 c6c2 c5c6 c7c6 b7g7 d6d7 g7d7 e8d7 d5b4"),
    ("liu-dahua-hu-ronghua-1996", "Chinese National Champion", "Liu Dahua", "Hu Ronghua", "1996",
     "g0e2 g6g5 c3c4 g9e7 b0c2 b9a7 a0a1 a9a8 a1f1 c6c5 c4c5 a8c8 c2d4 c8c5 f1f4 h9g7 h0g2 b7c7 b2d2 f9e8 f0e1 "
     "a6a5 i0f0 a7b5 d4b5 c5b5 g3g4 i9f9 f4f9 e8f9 f0f4 f9e8 h2h0 g5g4 f4g4 h7h9 g4c4 c7d7 h0g0 h9g9"),
    ("liu-dahua-xu-jianmiao-1997", "Chinese National Champion", "Liu Dahua", "Xu Jianmiao", "1997",
     "c3c4 h9g7 h2g2 b7e7 b0c2 b9c7 a0b0 a9b9 b2b6 g6g5 g0e2 c7a8 b6b7 b9b7 b0b7 e7e3 c2e3 h7b7 i0i1 c9e7 g3g4 "
     "e6e5 g4g5 e5e4 g2g7 b7g7 g5g6 e4e3 g6g7 i9h9 h0g2 h9h3 g2f4 h3g3 g7f7 g3f3 f4d5 f3f7 d5e3 f7f3 e3d5 c6c5"),
    ("liu-dahua-hu-ronghua-1997", "China Team Championship", "Liu Dahua", "Hu Ronghua", "1997",
     "c3c4 b7c7 b2e2 h7e7 h0g2 h9g7 i0h0 c6c5 b0a2 c5c4 a0b0 b9a7 h2i2 a9b9 b0b9 a7b9 h0h4 c7c0 d0e1 c0c2 e1d2 "
     "c2e2 i2e2 i9i8 h4c4 c9a7 a2c3 i8b8 c4g4 b8b0 e0e1 b9c7 g4g6 g7e8 g3g4 b0b4 c3e4 e7e4 e2e4 e6e5 e4e8 d9e8 "
     "g6c6 b4g4 c6c7 g4g2 c7a7"),
    ("liu-dahua-xu-tianhong-1996", "Chinese National Champion", "Liu Dahua", "Xu Tianhong", "1996",
     "h0g2 g6g5 b2d2 h9g7 b0c2 b9c7 a0b0 a9b9 c3c4 i9i8 h2h6 g7h5 g0e2 c9e7 b0b6 b7a7 b6b9 c7b9 f0e1 i8c8 c2d4 "
     "c6c5 c4c5 c8c5 h6a6 i6i5 a6a4 d9e8 g3g4 b9c7 i0f0 a7a3 f0f8 g5g4 a4g4 h7f7 f8g8 h5i3 g4f4 i3g2 d2g2 c5d5 "
     "d4c2 a3a8 g8g7 e9d9 f4d4 d5h5 g7g4 a8c8 d4d1 d9e9 d1c1"),
]

#: Xu Yinchuan gives nine pieces (five pawns, both advisors and elephants): the set-up and the first
#: moves. The record writes the side to move ``r`` (red), as the standard's example does.
HANDICAP_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR w - - 0 1"
HANDICAP_MOVES = ["b2e2", "h7e7", "e2e7", "g9e7", "h2e2", "h9g7", "h0g2", "i9h9", "b0c2", "b9a7", "a0d0", "a9b9"]

WXF_PIECES = {**dict.fromkeys("车車俥", "R"), **dict.fromkeys("马馬傌", "H"), **dict.fromkeys("炮砲包", "C"),
              **dict.fromkeys("相象", "E"), **dict.fromkeys("仕士", "A"), **dict.fromkeys("帅将帥將", "K"),
              **dict.fromkeys("兵卒", "P")}
DIGITS = {**{c: str(i) for i, c in enumerate("一二三四五六七八九", 1)}, **{chr(0xFF10 + i): str(i) for i in range(10)}}
OPS = {"进": "+", "退": "-", "平": "."}
TRADITIONAL_RED = str.maketrans({"帅": "帥", "车": "俥", "马": "傌", "进": "進", "后": "後"})
TRADITIONAL_BLACK = str.maketrans({"将": "將", "车": "車", "马": "馬", "炮": "包", "进": "進", "后": "後"})


def chinese(moves: list[str], fen: str = cchess.FULL_INIT_FEN) -> list[str]:
    board = cchess.ChessBoard(fen)
    out = []
    for uci in moves:
        move = board.move_iccs(uci)
        assert move is not None, uci
        out.append(move.to_text())
        board.next_turn()
    return out


def wxf(text: str) -> str:
    if text[0] in "前后":
        return f"{WXF_PIECES[text[1]]}{'+' if text[0] == '前' else '-'}{OPS[text[2]]}{DIGITS[text[3]]}"
    return f"{WXF_PIECES[text[0]]}{DIGITS[text[1]]}{OPS[text[2]]}{DIGITS[text[3]]}"


def ascii_digits(text: str) -> str:
    return "".join(str(ord(c) - 0xFF10) if 0xFF10 <= ord(c) <= 0xFF19 else c for c in text)


def movetext(moves: list[str], *, per_line: int = 4, comments: dict[int, str] | None = None,
             variations: dict[int, str] | None = None) -> str:
    lines, line = [], []
    for ply, move in enumerate(moves):
        if ply % 2 == 0:
            line.append(f"{ply // 2 + 1}.")
        line.append(move)
        if comments and ply in comments:
            line.append("{" + comments[ply] + "}")
        if variations and ply in variations:
            line.append("(" + variations[ply] + ")")
        if ply % (2 * per_line) == 2 * per_line - 1:
            lines.append(" ".join(line))
            line = []
    line.append("*")
    lines.append(" ".join(line))
    return "\n".join(lines) + "\n"


def tags(event: str, red: str, black: str, date: str, **more: str) -> str:
    head = {"Event": event, "Date": date, "Red": red, "Black": black, "Result": "*", **more}
    return "".join(f'[{k} "{v}"]\n' for k, v in head.items()) + "\n"


def main() -> None:
    written: dict[str, bytes] = {}
    stem, event, red, black, date, line = GAMES[0]
    moves = line.split()
    text = chinese(moves)
    written[f"{stem}.chinese-fullwidth.tags.gb18030.pgn"] = (
        tags(event, red, black, date) + movetext(text)).encode("gb18030")
    stem, event, red, black, date, line = GAMES[1]
    written[f"{stem}.chinese-fullwidth.notags.utf8.pgn"] = movetext(chinese(line.split())).encode("utf-8")
    stem, event, red, black, date, line = GAMES[2]
    written[f"{stem}.chinese-ascii.tags.utf8-bom-crlf.pgn"] = ("\ufeff" + tags(event, red, black, date) + movetext(
        [ascii_digits(m) for m in chinese(line.split())])).replace("\n", "\r\n").encode("utf-8")
    stem, event, red, black, date, line = GAMES[3]
    iccs = [f"{m[:2].upper()}-{m[2:].upper()}" for m in line.split()]
    written[f"{stem}.iccs.notags.pgn"] = movetext(iccs, per_line=6).encode("ascii")
    stem, event, red, black, date, line = GAMES[4]
    written[f"{stem}.wxf.tags.pgn"] = (tags(event, red, black, date, Format="WXF")
                                       + movetext([wxf(m) for m in chinese(line.split())], per_line=6)).encode("ascii")
    stem, event, red, black, date, line = GAMES[5]
    text = chinese(line.split())
    comments = {0: "仙人指路", 9: "黑方再进卒", len(text) - 1: "红方攻势强大"}
    variations = {1: "1... 卒７进１ 2. 马八进七 马８进７"}
    written[f"{stem}.chinese-fullwidth.comments-variations.gb18030.pgn"] = (
        tags(event, red, black, date) + movetext(text, comments=comments, variations=variations)).encode("gb18030")
    stem, event, red, black, date, line = GAMES[6]
    plies = chinese(line.split())
    traditional = [m.translate(TRADITIONAL_RED if i % 2 == 0 else TRADITIONAL_BLACK) for i, m in enumerate(plies)]
    written[f"{stem}.chinese-traditional.tags.utf8.pgn"] = (
        tags(event, red, black, date) + movetext(traditional)).encode("utf-8")
    handicap = chinese(HANDICAP_MOVES, HANDICAP_FEN)
    written["xu-yinchuan-nie-weiping-1999.fen.chinese.gb18030.pgn"] = (
        tags("许银川让九子对聂棋圣", "许银川", "聂卫平", "1999.12.09", FEN=HANDICAP_FEN.replace(" w ", " r "))
        + movetext(handicap)).encode("gb18030")
    stem, event, red, black, date, line = GAMES[0]
    written[f"{stem}.chinese-fullwidth.game-tag.utf8.pgn"] = (
        '[Game "Chinese Chess"]\n' + tags(event, red, black, date) + movetext(chinese(line.split()))).encode("utf-8")
    for name, data in written.items():
        (HERE / name).write_bytes(data)
    expected = {stem: line.split() for stem, *_, line in GAMES}
    expected["xu-yinchuan-nie-weiping-1999"] = HANDICAP_MOVES
    (HERE / "moves.txt").write_text("".join(f"{k} {' '.join(v)}\n" for k, v in expected.items()), encoding="ascii")


if __name__ == "__main__":
    main()
