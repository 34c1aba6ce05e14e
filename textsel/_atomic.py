"""Fits that leave the estimator as it was when they fail (Ctrl-C included)."""

from __future__ import annotations

import functools

__all__ = ["atomic_fit"]


def atomic_fit(fit):
    """Wrap ``fit`` so that when it raises, KeyboardInterrupt included, the estimator's attributes
    are put back as they were before the call: an unfitted estimator stays unfitted, a fitted
    one keeps its previous model.  (Fits assign new arrays rather than writing into old ones, so
    a shallow copy of the attributes is enough.)"""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper
