# The one interrupt check of textsel's compiled loops (the C solvers get it as their
# ts_interrupt_check; the Cython kernels call it between bounded stretches of work).
from cpython.exc cimport PyErr_CheckSignals


cdef inline int stop_requested(void *interrupt) noexcept nogil:
    # interrupt: a textsel._ext.ccore.Interrupt (anything with an ``error`` attribute), shared by
    # every thread of one call.  1 once its error is set, by a sibling thread or by what Python's
    # signal handlers raise here (KeyboardInterrupt, recorded so that every thread stops and the
    # caller raises it once the work has been unwound); 0 to go on.  Signal handlers only run on
    # the main thread; elsewhere PyErr_CheckSignals returns at once.
    with gil:
        group = <object> interrupt
        if group.error is not None:
            return 1
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            group.error = exc
            return 1
    return 0
