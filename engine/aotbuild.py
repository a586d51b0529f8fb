"""Compiling the kernels with ``numba.pycc`` (imported only by :func:`engine.aot.build`).

pycc's wrappers hold the GIL for the whole call, unlike ``@njit(nogil=True)``: a search would
then starve the timer and the UCI thread that must stop it. The exported search therefore
releases the GIL itself around the kernel, exactly as numba's own nogil wrapper does.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numba import types
from numba.extending import intrinsic

from engine.movegen import gen_moves, make_move, perft_kernel, unmake_move
from engine.search import search
from engine.tables import _fill
from engine.xq_movegen import gen_moves as xq_gen_moves
from engine.xq_movegen import in_check_of as xq_in_check_of
from engine.xq_movegen import make_move as xq_make_move
from engine.xq_movegen import make_null as xq_make_null
from engine.xq_movegen import perft_kernel as xq_perft_kernel
from engine.xq_movegen import unmake_move as xq_unmake_move
from engine.xq_movegen import unmake_null as xq_unmake_null
from engine.xq_rules import game_end as xq_game_end
from engine.xq_search import search as xq_search

if TYPE_CHECKING:

    def _save_thread() -> Any:
        """Release the GIL; returns the thread state."""

    def _restore_thread(state: Any) -> None:
        """Take the GIL back."""

else:

    @intrinsic
    def _save_thread(typingctx: Any) -> Any:
        """Release the GIL; returns the thread state (PyEval_SaveThread)."""

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return context.get_python_api(builder).save_thread()

        return types.voidptr(), codegen

    @intrinsic
    def _restore_thread(typingctx: Any, state: Any) -> Any:
        """Take the GIL back (PyEval_RestoreThread)."""

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            context.get_python_api(builder).restore_thread(args[0])
            return context.get_dummy_value()

        return types.none(types.voidptr), codegen


def search_without_gil(tb: Any, ev: Any, bb: Any, mb: Any, st: Any, hist: Any, undo: Any, tt: Any, ws: Any,
                       depth: int, alpha: int, beta: int, ply: int, do_null: bool) -> int:
    """``search`` with the GIL released; compiled only by pycc (the JIT has nogil=True)."""
    state = _save_thread()
    score: int = search(tb, ev, bb, mb, st, hist, undo, tt, ws, depth, alpha, beta, ply, do_null)
    _restore_thread(state)
    return score


def perft_entry(tb: Any, bb: Any, mb: Any, st: Any, hist: Any, undo: Any, mv: Any, depth: int, ply: int,
                bulk: bool) -> int:
    """``perft_kernel`` behind a plain function: pycc cannot export a recursive function itself."""
    count: int = perft_kernel(tb, bb, mb, st, hist, undo, mv, depth, ply, bulk)
    return count


def xq_search_without_gil(tb: Any, mb: Any, st: Any, hist: Any, undo: Any, tt: Any, ws: Any,
                          depth: int, alpha: int, beta: int, ply: int, do_null: bool) -> int:
    """The xiangqi ``search`` with the GIL released."""
    state = _save_thread()
    score: int = xq_search(tb, mb, st, hist, undo, tt, ws, depth, alpha, beta, ply, do_null)
    _restore_thread(state)
    return score


def xq_perft_entry(tb: Any, mb: Any, st: Any, hist: Any, undo: Any, mv: Any, depth: int, ply: int,
                   bulk: bool) -> int:
    """The xiangqi ``perft_kernel`` behind a plain function (pycc exports no recursion)."""
    state = _save_thread()
    count: int = xq_perft_kernel(tb, mb, st, hist, undo, mv, depth, ply, bulk)
    _restore_thread(state)
    return count


def _python(dispatcher: Any) -> Any:
    """The plain function behind a numba dispatcher, for pycc to compile."""
    return dispatcher.py_func


def _ro(dtype: Any, ndim: int) -> Any:
    return types.Array(dtype, ndim, "C", readonly=True)


def _rw(dtype: Any, ndim: int) -> Any:
    return types.Array(dtype, ndim, "C")


U64, I64, B = types.uint64, types.int64, types.boolean
TB, BB, MB, ST, HIST, UNDO = _ro(U64, 1), _rw(U64, 1), _rw(I64, 1), _rw(I64, 1), _rw(U64, 1), _rw(I64, 2)
XTB, XA, XU = _ro(I64, 1), _rw(I64, 1), _rw(I64, 2)
# the argument types the Python driver passes (engine/searcher.py, engine/position.py)
CHESS_EXPORTS: dict[str, tuple[Any, Any]] = {
    "search": (search_without_gil, I64(TB, _ro(I64, 1), BB, MB, ST, HIST, UNDO, _rw(I64, 1), _rw(I64, 1),
                                       I64, I64, I64, I64, B)),
    "gen_moves": (_python(gen_moves), I64(TB, BB, ST, _rw(I64, 1), B)),
    "make_move": (_python(make_move), types.none(TB, BB, MB, ST, HIST, UNDO, I64)),
    "unmake_move": (_python(unmake_move), types.none(TB, BB, MB, ST, HIST, UNDO, I64)),
    "perft": (perft_entry, I64(TB, BB, MB, ST, HIST, UNDO, _rw(I64, 2), I64, I64, B)),
    "fill": (_python(_fill), I64(_rw(U64, 1), _rw(U64, 1), _rw(U64, 1))),
}
# xiangqi: tables, mailbox, state and history are all int64
XIANGQI_EXPORTS: dict[str, tuple[Any, Any]] = {
    "xq_search": (xq_search_without_gil, I64(XTB, XA, XA, XA, XU, XA, XA, I64, I64, I64, I64, B)),
    "xq_gen_moves": (_python(xq_gen_moves), I64(XTB, XA, XA, XA, B)),
    "xq_make_move": (_python(xq_make_move), types.none(XTB, XA, XA, XA, XU, I64)),
    "xq_unmake_move": (_python(xq_unmake_move), types.none(XTB, XA, XA, XA, XU, I64)),
    "xq_perft": (xq_perft_entry, I64(XTB, XA, XA, XA, XU, XU, I64, I64, B)),
    "xq_in_check_of": (_python(xq_in_check_of), B(XTB, XA, XA, I64)),
    "xq_game_end": (_python(xq_game_end), I64(XTB, XA, XA, XA, XU, XA, I64)),
    "xq_make_null": (_python(xq_make_null), types.none(XTB, XA, XA, XU)),
    "xq_unmake_null": (_python(xq_unmake_null), types.none(XA, XA, XU)),
}
#: Each game's module (engine.aot.GAMES) and what it exports.
EXPORTS: dict[str, dict[str, tuple[Any, Any]]] = {"chess": CHESS_EXPORTS, "xiangqi": XIANGQI_EXPORTS}


def compile_module(name: str, out: Path, exports: dict[str, tuple[Any, Any]], *, cpu: str) -> Path:
    """Build extension module ``name`` of ``exports`` in ``out`` for ``cpu`` ("host" or an LLVM CPU name)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc is "pending deprecation"; the JIT stays the fallback
        pycc = importlib.import_module("numba.pycc")
    cc = pycc.CC(name)
    cc.output_dir = str(out)
    cc.target_cpu = cpu
    for exported, (func, sig) in exports.items():
        cc.export(exported, sig)(func)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cc.compile()
    return out / str(cc.output_file)
