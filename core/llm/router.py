"""The model router (INGEST §4): `models.json` maps aliases to providers, validated strictly.

    {"models": {"fast": {"provider": "anthropic", "model": "claude-haiku-4-5",
                         "api_key_env": "ANTHROPIC_API_KEY", "max_tokens": 2048,
                         "temperature": 0,
                         "input_cost_per_mtok": 1.0, "output_cost_per_mtok": 5.0}},
     "ingest": {"triage": "fast", "extract": "strong"},
     "daily_budget_usd": 5.0}

`ingest` (optional) names the two aliases of the LLM extraction pipeline, as the seed's pipeline
has them: a cheap model triages every observation (extract / skip / defer), a strong one
extracts what triage lets through. `--extractor llm` uses this pair; `--extractor ALIAS` lets
ALIAS extract, after triage by `ingest.triage` when it is set (else by ALIAS too).

Path: the `path` argument, else $PULSE_MODELS_PATH, else models.json in the user config folder.
The file never holds a key, only the NAME of the environment variable that does.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import PulseError, ValidationError, shown
from core.files import read_text

PROVIDERS = ("anthropic", "openai", "openai_compatible")
REQUIRED = ("provider", "model", "api_key_env", "max_tokens", "temperature")
OPTIONAL = ("base_url", "input_cost_per_mtok", "output_cost_per_mtok", "max_retries",
            "timeout_s")
TOP_KEYS = ("models", "daily_budget_usd", "ingest")
INGEST_ROLES = ("triage", "extract")
PIPELINE = "llm"            # `--extractor llm`: the ingest pair; never an alias name
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
_LOOKS_LIKE_KEY = re.compile(r"^(sk-|sk_|key-|AIza|xai-|gsk_)|[a-z0-9]{24,}")


@dataclass(frozen=True)
class ModelConfig:
    alias: str
    provider: str
    model: str
    api_key_env: str
    max_tokens: int
    temperature: float
    base_url: str | None = None
    input_cost_per_mtok: float = 0.0
    output_cost_per_mtok: float = 0.0
    max_retries: int = 2
    timeout_s: float = 60.0

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_cost_per_mtok
                + output_tokens * self.output_cost_per_mtok) / 1_000_000

    def api_key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if not key:
            raise PulseError(f"model {shown(self.alias)}: the environment variable "
                             f"{self.api_key_env} is not set")
        return key


@dataclass(frozen=True)
class Router:
    path: Path
    models: dict[str, ModelConfig]
    daily_budget_usd: float | None = None
    ingest: dict[str, str] | None = None     # {"triage": alias, "extract": alias}

    def get(self, alias: str) -> ModelConfig:
        if alias not in self.models:
            known = ", ".join(sorted(self.models)) or "none"
            raise PulseError(f"{self.path}: no model alias {shown(alias)} (known: {known})")
        return self.models[alias]

    def pipeline(self, extractor: str) -> tuple[ModelConfig, ModelConfig]:
        """(triage, extract) for `--extractor llm` or `--extractor ALIAS`."""
        pair = self.ingest or {}
        if extractor == PIPELINE:
            if "extract" not in pair:
                raise PulseError(f"{self.path}: --extractor llm needs an \"ingest\" section "
                                 f'naming the aliases, like {{"triage": "fast", '
                                 f'"extract": "strong"}}')
            extract = self.get(pair["extract"])
            return (self.get(pair["triage"]) if "triage" in pair else extract), extract
        extract = self.get(extractor)
        return (self.get(pair["triage"]) if "triage" in pair else extract), extract

    def budget(self) -> float | None:
        env = os.environ.get("PULSE_DAILY_BUDGET_USD")
        if env:
            try:
                value = float(env)
            except ValueError:
                raise PulseError(f"PULSE_DAILY_BUDGET_USD={shown(env)} is not a number") from None
            if not math.isfinite(value) or value < 0:
                raise PulseError(f"PULSE_DAILY_BUDGET_USD={shown(env)} must be ≥ 0")
            return value
        return self.daily_budget_usd


def default_models_path(memory: Any = None) -> Path:
    env = os.environ.get("PULSE_MODELS_PATH")
    if env:
        return Path(env)
    if memory is not None:
        configured = memory.meta("models_path")
        if configured:
            return Path(configured)
    from platformdirs import user_config_dir

    return Path(user_config_dir("pulse", appauthor=False)) / "models.json"


def _number(label: str, key: str, value: Any, low: float, high: float, integer: bool = False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise ValidationError(f"{label}: {key} must be a number")
    if integer and not float(value).is_integer():
        raise ValidationError(f"{label}: {key} must be a whole number")
    if not low <= value <= high:
        raise ValidationError(f"{label}: {key} {shown(value)} is outside {low:g}..{high:g}")
    return int(value) if integer else float(value)


def parse_models(data: Any, source: str = "models.json") -> Router:
    if not isinstance(data, dict):
        raise ValidationError(f"{source}: must be a JSON object with a 'models' map")
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise ValidationError(f"{source}: unknown top-level key {shown(unknown[0])}")
    models = data.get("models")
    if not isinstance(models, dict):
        raise ValidationError(f"{source}: 'models' must be an object of aliases")
    budget = data.get("daily_budget_usd")
    if budget is not None:
        budget = _number(source, "daily_budget_usd", budget, 0, 1e9)
    out: dict[str, ModelConfig] = {}
    for alias, cfg in models.items():
        label = f"{source}: alias {shown(alias)}"
        if not isinstance(alias, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]{1,64}", alias):
            raise ValidationError(f"{label}: an alias is 1-64 letters, digits, _ . -")
        if not isinstance(cfg, dict):
            raise ValidationError(f"{label}: must be an object")
        bad = sorted(set(cfg) - set(REQUIRED) - set(OPTIONAL))
        if bad:
            hint = " (keys never go in models.json: name the variable in api_key_env)" \
                if "key" in bad[0] else ""
            raise ValidationError(f"{label}: unknown key {shown(bad[0])}{hint}")
        for key in REQUIRED:
            if key not in cfg:
                raise ValidationError(f"{label}: {shown(key)} is required")
        if cfg["provider"] not in PROVIDERS:
            raise ValidationError(f"{label}: provider {shown(cfg['provider'])} is not one of "
                                  f"{', '.join(PROVIDERS)}")
        if not isinstance(cfg["model"], str) or not cfg["model"].strip():
            raise ValidationError(f"{label}: model must be a non-empty string")
        env = cfg["api_key_env"]
        if not isinstance(env, str) or not _ENV_NAME.match(env) or _LOOKS_LIKE_KEY.search(env):
            raise ValidationError(f"{label}: api_key_env must be the NAME of an environment "
                                  f"variable (like ANTHROPIC_API_KEY), never a key")
        base_url = cfg.get("base_url")
        if base_url is not None and (not isinstance(base_url, str)
                                     or not re.match(r"^https?://", base_url)):
            raise ValidationError(f"{label}: base_url must be an http(s) URL")
        if cfg["provider"] == "openai_compatible" and not base_url:
            raise ValidationError(f"{label}: openai_compatible needs a base_url")
        out[alias] = ModelConfig(
            alias=alias, provider=cfg["provider"], model=cfg["model"], api_key_env=env,
            max_tokens=_number(label, "max_tokens", cfg["max_tokens"], 1, 1_000_000, True),
            temperature=_number(label, "temperature", cfg["temperature"], 0, 2),
            base_url=base_url,
            input_cost_per_mtok=_number(label, "input_cost_per_mtok",
                                        cfg.get("input_cost_per_mtok", 0), 0, 10_000),
            output_cost_per_mtok=_number(label, "output_cost_per_mtok",
                                         cfg.get("output_cost_per_mtok", 0), 0, 10_000),
            max_retries=_number(label, "max_retries", cfg.get("max_retries", 2), 0, 10, True),
            timeout_s=_number(label, "timeout_s", cfg.get("timeout_s", 60), 1, 3600))
    ingest = data.get("ingest")
    if ingest is not None:
        if not isinstance(ingest, dict):
            raise ValidationError(f"{source}: 'ingest' must be an object like "
                                  f'{{"triage": "fast", "extract": "strong"}}')
        bad = sorted(set(ingest) - set(INGEST_ROLES))
        if bad:
            raise ValidationError(f"{source}: ingest: unknown key {shown(bad[0])} (triage, "
                                  f"extract)")
        for role, alias in ingest.items():
            if not isinstance(alias, str) or alias not in out:
                known = ", ".join(sorted(out)) or "none"
                raise ValidationError(f"{source}: ingest.{role}: {shown(alias)} is not an alias "
                                      f"of 'models' (known: {known})")
    if PIPELINE in out:
        raise ValidationError(f"{source}: alias {shown(PIPELINE)} is reserved for the ingest "
                              f"pipeline (--extractor llm); rename it")
    return Router(Path(source), out, budget, dict(ingest) if ingest else None)


def load_router(path: str | Path | None = None, memory: Any = None) -> Router:
    path = Path(path) if path is not None else default_models_path(memory)
    if not path.is_file():
        raise PulseError(f"{path}: no models.json (set PULSE_MODELS_PATH or create it)")
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    return parse_models(data, str(path))


def check_alias(alias: str, *, prompt: str = "respond with ok",
                path: str | Path | None = None) -> dict[str, Any]:
    """`pulse models check ALIAS`: one real call through the alias's provider."""
    from core.llm.providers import LLMError, complete_text

    cfg = load_router(path).get(alias)
    start = time.perf_counter()
    try:
        reply = complete_text(cfg, prompt)
    except LLMError as exc:
        return {"ok": False, "alias": alias, "provider": cfg.provider, "model": cfg.model,
                "error": str(exc)}
    return {"ok": True, "alias": alias, "provider": cfg.provider, "model": cfg.model,
            "reply": reply.text, "input_tokens": reply.input_tokens,
            "output_tokens": reply.output_tokens,
            "cost_usd": round(cfg.cost(reply.input_tokens, reply.output_tokens), 8),
            "latency_ms": round((time.perf_counter() - start) * 1000, 1)}
