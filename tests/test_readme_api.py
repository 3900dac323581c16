"""The README's Python example runs as written against the demo memory: the one public API
(core.memory.Memory) does what the README says it does."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_python_example_runs(demo_db: Path, tmp_path: Path, capsys) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(from core\.memory import Memory\n.*?)```", text, re.S).group(1)
    db = tmp_path / "nadia.db"
    shutil.copy(demo_db, db)                   # the demo is already imported: the call is a no-op
    chat = tmp_path / "chats.json"
    chat.write_text('[{"speaker": "Nadia", "text": "Coffee with Dana was lovely."}]',
                    encoding="utf-8")
    code = (code.replace('"nadia.db"', repr(str(db))).replace('"chats.json"', repr(str(chat)))
            .replace('"nadia.html"', repr(str(tmp_path / "nadia.html")))
            .replace('"resources/', '"' + str(ROOT / "resources") + "/"))
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "CORRECTIONS" in out                              # the brief was printed
    assert (tmp_path / "nadia.html").stat().st_size > 100_000
