"""How much one write of the index snapshot holds: docs/reliability.md promises the snapshot
(hundreds of MB at 100k-1M events) is cut into chunks of at most 16 MB, each its own short
write transaction, so other processes' writes go on between them. An index whose vector
column alone is larger than one chunk (4,300 rows of 1,024 float32 dimensions: 17.6 MB) is
stored in chunks of at most 16 MiB and reads back row for row. (An index built in memory: the
file holds one event of the model, for its dimension.)"""

from __future__ import annotations

import numpy as np

from core.memory import Memory
from core.scoring import snapshot
from tests.test_snapshot_boundaries import MODEL, index_in_memory

LIMIT = 16 << 20        # the promised bound of one chunk (one write transaction)


def test_a_snapshot_is_written_in_chunks_of_at_most_16_mb(memory: Memory) -> None:
    n, dim = 4_300, 1_024
    index = index_in_memory(memory, n, dim, seed=3)
    written = snapshot.write(memory.conn, lambda: index)
    assert written is not None and written["rows"] == n
    chunks = memory.conn.execute("SELECT part, length(data) FROM index_snapshot"
                                 " WHERE part != 'head' ORDER BY part, seq").fetchall()
    matrix = [size for part, size in chunks if part.endswith(":matrix")]
    assert sum(matrix) == n * dim * 4 > LIMIT and len(matrix) >= 2
    assert max(size for _, size in chunks) <= LIMIT
    assert sum(size for _, size in chunks) == written["bytes"]
    cold = snapshot.load(memory.conn, MODEL)
    assert cold is not None and len(cold) == n
    for name in ("ids", "matrix", "ts_days", "emotions", "obs_id", "live"):
        assert np.array_equal(getattr(cold, name), getattr(index, name)), name
