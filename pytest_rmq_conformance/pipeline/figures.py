"""Internal: matplotlib for every sweep report's plots, imported only when a plot is drawn.

:func:`figure_class` is matplotlib's ``Figure`` on the non-interactive Agg backend (or an
:class:`ImportError` naming the ``sweep`` extra); :func:`png_bytes` saves one as a small PNG.
"""

from __future__ import annotations

import io

__all__ = ["figure_class", "png_bytes", "samples", "DPI", "MARKERS"]

DPI = 110
MARKERS = "osD^vP<>Xp"  # a strategy's line is told apart by its marker too, not by colour alone
_INSTALL_HINT = "the sweep report's plots need matplotlib, of the sweep extra: pip install '.[sweep]' in a clone of pytest-rmq-conformance"


def figure_class():
    """matplotlib's ``Figure``, on the non-interactive Agg backend."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure


def png_bytes(fig) -> bytes:
    """The figure as a PNG of at most 256 colours: a third of the bytes, and the same picture."""
    from PIL import Image

    drawn, written = io.BytesIO(), io.BytesIO()
    fig.savefig(drawn, format="png", dpi=DPI)
    Image.open(drawn).convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(written, "PNG", optimize=True)
    return written.getvalue()


def samples(count: int, what: str) -> str:
    """How many samples a plot stands on, for its title: ``"n = 12,000 sends"``.

    >>> samples(12000, "sends")
    'n = 12,000 sends'
    """
    return f"n = {count:,} {what}"
