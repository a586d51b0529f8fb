"""Bit tricks for numba kernels: LLVM popcount / count-trailing-zeros intrinsics and uint64 constants.

numba types ``uint64 op int64`` as float64, so kernels only ever mix bitboards with the
uint64 constants defined here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from engine.jit import ALL_AHEAD, njit

_F = TypeVar("_F", bound=Callable[..., Any])

U0 = np.uint64(0)
U1 = np.uint64(1)
U7 = np.uint64(7)
U8 = np.uint64(8)
U9 = np.uint64(9)
U16 = np.uint64(16)
U32 = np.uint64(32)
U63 = np.uint64(63)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
FILE_A = np.uint64(0x0101010101010101)
FILE_H = np.uint64(0x8080808080808080)
RANK_1 = np.uint64(0xFF)
RANK_2 = np.uint64(0xFF00)
RANK_3 = np.uint64(0xFF0000)
RANK_6 = np.uint64(0xFF0000000000)
RANK_7 = np.uint64(0xFF000000000000)
RANK_8 = np.uint64(0xFF00000000000000)


def kernel(*, nogil: bool = False, inline: bool = False) -> Callable[[_F], _F]:
    """``njit`` as every engine kernel uses it: cached, and without numba's runtime.

    The runtime's atomic reference counting on every array argument cost about a fifth of
    the search time, and kernels never allocate (docs/engine.md, Numba notes). ``inline``
    pastes the kernel into its callers, for small ones called at every node.
    """
    return njit(  # type: ignore[no-any-return]
        cache=True, nogil=nogil, _nrt=False, inline="always" if inline else "never"
    )


if TYPE_CHECKING:

    def popcount(x: np.uint64) -> int:
        """Number of set bits."""

    def lsb(x: np.uint64) -> int:
        """Index of the lowest set bit."""

elif ALL_AHEAD:
    # The kernels run from the ahead-of-time build; these only keep the modules importable.

    def popcount(x: np.uint64) -> int:
        return int(x).bit_count()

    def lsb(x: np.uint64) -> int:
        return (int(x) & -int(x)).bit_length() - 1

else:
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def popcount(typingctx: Any, x: Any) -> Any:
        """Number of set bits of a uint64, as int64 (LLVM ctpop)."""
        sig = types.int64(types.uint64)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.ctpop(args[0])

        return sig, codegen


    @intrinsic
    def lsb(typingctx: Any, x: Any) -> Any:
        """Index of the lowest set bit of a non-zero uint64, as int64 (LLVM cttz)."""
        sig = types.int64(types.uint64)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

        return sig, codegen
