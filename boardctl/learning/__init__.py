"""Learning on the board (issue 15): opening lessons, ratings, tournaments, spoken moves.

Everything here is game-neutral; what needs python-chess (SAN, legality) lives in
``boardctl.variants.chess``. See docs/learning.md.
"""
