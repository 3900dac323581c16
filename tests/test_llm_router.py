"""The model router (INGEST §4): strict models.json, keys only from the environment, and
`pulse models check` through the real SDKs against the fake server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from core.errors import PulseError, ValidationError
from core.llm.router import check_alias, load_router, parse_models
from tests.fakes.llm_server import anthropic_text, error, openai_text

GOOD = {"provider": "anthropic", "model": "claude-test", "api_key_env": "FAKE_LLM_KEY",
        "max_tokens": 512, "temperature": 0}


def test_valid_file_parses_with_optional_costs():
    router = parse_models({"models": {"fast": {**GOOD, "input_cost_per_mtok": 1.0,
                                               "output_cost_per_mtok": 5.0}},
                           "daily_budget_usd": 2})
    cfg = router.get("fast")
    assert cfg.cost(1_000_000, 0) == pytest.approx(1.0)
    assert router.daily_budget_usd == 2


@pytest.mark.parametrize("change, message", [
    ({"api_key": "sk-abc"}, "alias 'fast': unknown key 'api_key'"),
    ({"temprature": 0.2}, "alias 'fast': unknown key 'temprature'"),
    ({"provider": "gemini"}, "provider 'gemini'"),
    ({"api_key_env": "sk-ant-REALKEY1234567890"}, "never a key"),
    ({"max_tokens": "lots"}, "max_tokens must be a number"),
    ({"temperature": 5}, "temperature 5 is outside"),
    ({"input_cost_per_mtok": -1}, "input_cost_per_mtok -1 is outside"),
    ({"provider": "openai_compatible"}, "needs a base_url"),
])
def test_strict_validation_names_alias_and_key(change, message):
    with pytest.raises(ValidationError) as err:
        parse_models({"models": {"fast": {**GOOD, **change}}}, "models.json")
    assert message in str(err.value)


def test_missing_required_and_unknown_top_level():
    cfg = dict(GOOD)
    del cfg["api_key_env"]
    with pytest.raises(ValidationError, match="'api_key_env' is required"):
        parse_models({"models": {"fast": cfg}})
    with pytest.raises(ValidationError, match="unknown top-level key 'keys'"):
        parse_models({"models": {}, "keys": {}})


def test_path_from_env_and_unset_key(tmp_path, monkeypatch):
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"models": {"fast": GOOD}}))
    monkeypatch.setenv("PULSE_MODELS_PATH", str(path))
    monkeypatch.delenv("FAKE_LLM_KEY", raising=False)
    cfg = load_router().get("fast")
    with pytest.raises(PulseError, match="FAKE_LLM_KEY is not set"):
        cfg.api_key()
    with pytest.raises(PulseError, match="no model alias 'slow'"):
        load_router().get("slow")


def _models(tmp_path, fake, provider: str, **extra) -> str:
    url = fake.url if provider == "anthropic" else fake.openai_url
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"models": {"m": {**GOOD, "provider": provider, "base_url": url,
                                                 "max_retries": 1, **extra}}}))
    return str(path)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai_compatible"])
def test_models_check_end_to_end(fake_llm, tmp_path, monkeypatch, capsys, provider):
    from core.cli import main

    monkeypatch.setenv("FAKE_LLM_KEY", "test-key")
    monkeypatch.setenv("PULSE_MODELS_PATH", _models(tmp_path, fake_llm, provider))
    fake_llm.script(anthropic_text("ok") if provider == "anthropic" else openai_text("ok"))
    assert main(["models", "check", "m", "--prompt", "respond with ok", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["reply"] == "ok"
    req = fake_llm.requests[0]
    assert req["path"] == ("/v1/messages" if provider == "anthropic" else "/v1/chat/completions")
    assert req["body"]["messages"][-1]["content"] == "respond with ok"
    auth = req["headers"].get("x-api-key") or req["headers"].get("authorization", "")
    assert "test-key" in auth  # the key came from the environment variable


def test_models_check_reports_failure(fake_llm, tmp_path, monkeypatch, capsys):
    from core.cli import main

    monkeypatch.setenv("FAKE_LLM_KEY", "test-key")
    monkeypatch.setenv("PULSE_MODELS_PATH", _models(tmp_path, fake_llm, "openai",
                                                    max_retries=0))
    fake_llm.script(error(500))
    assert main(["models", "check", "m"]) == 1
    assert "model 'm'" in capsys.readouterr().err
    assert check_alias is not None
