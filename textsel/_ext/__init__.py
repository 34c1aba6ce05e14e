"""textsel's compiled kernels, one extension module each (Cython; ``ccore`` over the C core).

- ``ccore``: the C core of ``csrc/`` (LSQR, the dual coordinate-descent SVM, sparse products),
  called without the GIL; ``STATUS``, the one status vocabulary of every kernel
  (``ts_status`` of ``csrc/textsel.h``), and ``Interrupt``, the shared Ctrl-C check.
- ``counting``: per-class document frequencies in one pass over CSR row blocks.
- ``dealing``: what each class costs the counting pass, and greedy longest-first dealing.
- ``scoring``: Forman's metrics cell by cell, BNS by inverse-normal lookup.
- ``submatrix``: the top-k prefix of each row of rank-ordered columns (``prefix_columns``).
- ``curves``: model masking's curves and the AUC / best-F1 scan.
- ``pool``: large result tables from a pool of recently freed blocks.

``core.pxd`` declares the C header for Cython, ``fused.pxd`` the element types every CSR
kernel is compiled for; each module has a ``.pyi`` stub.  Nothing here is public API.
"""
