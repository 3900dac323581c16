"""The desktop app's own settings: a small dataclass saved as JSON in the platform's config
folder (platformdirs). It holds where things are (data folder, models.json) and which
embedding model to prefer — never an API key: keys come from the environment (or the OS
keyring), and a settings file that contains anything else is read without it.

`PULSE_CONFIG_DIR` overrides the folder (tests, portable installs).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

FILE_NAME = "desktop.json"
APP_NAME = "pulse"


def config_dir() -> Path:
    env = os.environ.get("PULSE_CONFIG_DIR")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))


def default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def config_path() -> Path:
    return config_dir() / FILE_NAME


@dataclass
class AppSettings:
    data_folder: str = ""          # where new memories go ("" = the platformdirs default)
    models_path: str = ""          # models.json of the model router ("" = PULSE_MODELS_PATH
                                   # or <config>/models.json)
    embedding_model: str = ""      # preferred model for new memories ("" = the engine default)
    last_memory: str = ""          # reopened at start
    last_export_folder: str = ""   # where the export dialog saved last
    # encrypted memories whose passphrase the user chose to keep in the OS keyring (the
    # passphrase itself is in the keyring, never here): docs/privacy.md
    keyring_memories: list[str] = field(default_factory=list)

    @property
    def data_dir(self) -> Path:
        return Path(self.data_folder) if self.data_folder else default_data_dir()

    @property
    def models_file(self) -> Path:
        if self.models_path:
            return Path(self.models_path)
        env = os.environ.get("PULSE_MODELS_PATH")
        if env:
            return Path(env)
        if os.environ.get("PULSE_CONFIG_DIR"):
            return config_dir() / "models.json"
        from core.memory import Memory  # the router's own default: the app and `pulse` agree

        return Memory.models_path()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> AppSettings:
        """Known string fields only: anything else (a key pasted by hand…) is dropped."""
        if not isinstance(data, dict):
            return cls()
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known and isinstance(v, str)}
        listed = data.get("keyring_memories")
        if isinstance(listed, list):
            values["keyring_memories"] = [p for p in listed if isinstance(p, str)]
        return cls(**values)


def load(path: str | Path | None = None) -> AppSettings:
    """The saved settings; defaults when the file is missing or unreadable (never a crash)."""
    path = Path(path) if path else config_path()
    try:
        return AppSettings.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return AppSettings()


def save(settings: AppSettings, path: str | Path | None = None) -> Path:
    """Write atomically (temp file + replace). Raises OSError with the reason on failure."""
    path = Path(path) if path else config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(settings.to_dict(), indent=2, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)
    return path


def apply_to_environment(settings: AppSettings) -> None:
    """Point the model router at the chosen models.json (it reads PULSE_MODELS_PATH)."""
    if settings.models_path:
        os.environ["PULSE_MODELS_PATH"] = settings.models_path
