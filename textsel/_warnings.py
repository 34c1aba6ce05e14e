"""Where textsel's warnings point: at the user's line, the first frame outside the package (the
one home of the stack level every library warning is raised with)."""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the first caller outside textsel (a
    user's script, or scikit-learn's code where it called textsel), not to textsel's own lines."""
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
