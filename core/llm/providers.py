"""Providers through the official SDKs: `anthropic` (Messages, forced tool use) and `openai` /
`openai_compatible` (Chat Completions, a forced function tool; base_url for LM Studio, vLLM,
Ollama, a proxy). Keys come from the environment variable the alias names, never a file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.llm.router import ModelConfig


class LLMError(Exception):
    """A failed call (network, HTTP status after the SDK's own retries). Retryable."""


class MalformedOutput(LLMError):
    """The model answered, but not with parseable JSON for the forced tool."""


@dataclass
class Reply:
    data: dict[str, Any] | None
    text: str
    input_tokens: int
    output_tokens: int


_clients: dict[tuple[Any, ...], Any] = {}


def _without_key(cfg: ModelConfig, exc: BaseException) -> str:
    """The error text with the API key (or any long fragment of it) masked: providers echo
    a wrong key back ("Incorrect API key provided: sk-…"), and error text reaches job rows,
    summaries and the terminal."""
    text = str(exc)
    try:
        key = cfg.api_key()
    except Exception:  # no key configured: nothing to mask
        return text
    if not key:
        return text
    text = text.replace(key, "[redacted key]")
    # providers often echo a shortened key ("sk-abc***xyz"): mask long runs of its characters
    for size in range(min(len(key), 40), 7, -1):
        for start in range(0, len(key) - size + 1):
            fragment = key[start:start + size]
            if fragment in text:
                text = text.replace(fragment, "[redacted key]")
    return text


def _client(cfg: ModelConfig) -> Any:
    key = (cfg.provider, cfg.base_url, cfg.api_key_env, cfg.max_retries, cfg.timeout_s,
           cfg.api_key())
    client = _clients.get(key)
    if client is None:
        if cfg.provider == "anthropic":
            import anthropic

            client = anthropic.Anthropic(api_key=cfg.api_key(), base_url=cfg.base_url,
                                         max_retries=cfg.max_retries, timeout=cfg.timeout_s)
        else:
            import openai

            kwargs: dict[str, Any] = {"api_key": cfg.api_key(), "max_retries": cfg.max_retries,
                                      "timeout": cfg.timeout_s}
            if cfg.base_url:
                kwargs["base_url"] = cfg.base_url
            client = openai.OpenAI(**kwargs)
        _clients[key] = client
    return client


def _anthropic_sampling(cfg: ModelConfig) -> dict[str, Any]:
    """temperature, where the installed SDK still takes it (anthropic 2.x dropped the
    parameter from messages.create; the server default applies then)."""
    import inspect

    import anthropic

    params = inspect.signature(anthropic.resources.Messages.create).parameters
    return {"temperature": cfg.temperature} if "temperature" in params else {}


def _sdk_errors(cfg: ModelConfig) -> tuple[type[BaseException], ...]:
    if cfg.provider == "anthropic":
        import anthropic

        return (anthropic.APIError,)
    import openai

    return (openai.APIError,)


def call_tool(cfg: ModelConfig, *, system: str, user: str, tool: str, description: str,
              schema: dict[str, Any]) -> Reply:
    """One call that must answer by calling `tool` with arguments matching `schema`."""
    client = _client(cfg)
    try:
        if cfg.provider == "anthropic":
            msg = client.messages.create(
                model=cfg.model, max_tokens=cfg.max_tokens, **_anthropic_sampling(cfg),
                system=system, messages=[{"role": "user", "content": user}],
                tools=[{"name": tool, "description": description, "input_schema": schema}],
                tool_choice={"type": "tool", "name": tool})
            usage = getattr(msg, "usage", None)
            tin = int(getattr(usage, "input_tokens", 0) or 0)
            tout = int(getattr(usage, "output_tokens", 0) or 0)
            text = ""
            for block in msg.content:
                if getattr(block, "type", "") == "tool_use" and block.name == tool:
                    data = block.input
                    if not isinstance(data, dict):
                        raise MalformedOutput(f"tool input is {type(data).__name__}, not an object")
                    return Reply(data, json.dumps(data), tin, tout)
                if getattr(block, "type", "") == "text":
                    text += block.text
            return Reply(_parse_json(text), text, tin, tout)
        resp = client.chat.completions.create(
            model=cfg.model, max_tokens=cfg.max_tokens, temperature=cfg.temperature,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            tools=[{"type": "function", "function": {"name": tool, "description": description,
                                                     "parameters": schema}}],
            tool_choice={"type": "function", "function": {"name": tool}})
    except _sdk_errors(cfg) as exc:
        raise LLMError(f"{cfg.alias}: {type(exc).__name__}: {_without_key(cfg, exc)}") from None
    usage = getattr(resp, "usage", None)
    tin = int(getattr(usage, "prompt_tokens", 0) or 0)
    tout = int(getattr(usage, "completion_tokens", 0) or 0)
    if not resp.choices:
        raise MalformedOutput("no choices in the answer")
    message = resp.choices[0].message
    for call in message.tool_calls or []:
        fn = getattr(call, "function", None)
        if fn is not None and fn.name == tool:
            return Reply(_parse_json(fn.arguments or ""), fn.arguments or "", tin, tout)
    return Reply(_parse_json(message.content or ""), message.content or "", tin, tout)


def _parse_json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise MalformedOutput(f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise MalformedOutput(f"a JSON {type(data).__name__}, not an object")
    return data


def complete_text(cfg: ModelConfig, prompt: str) -> Reply:
    """A plain completion (models check)."""
    client = _client(cfg)
    try:
        if cfg.provider == "anthropic":
            msg = client.messages.create(model=cfg.model, max_tokens=min(cfg.max_tokens, 256),
                                         **_anthropic_sampling(cfg),
                                         messages=[{"role": "user", "content": prompt}])
            text = "".join(getattr(b, "text", "") for b in msg.content)
            return Reply(None, text, int(msg.usage.input_tokens or 0),
                         int(msg.usage.output_tokens or 0))
        resp = client.chat.completions.create(
            model=cfg.model, max_tokens=min(cfg.max_tokens, 256), temperature=cfg.temperature,
            messages=[{"role": "user", "content": prompt}])
    except _sdk_errors(cfg) as exc:
        raise LLMError(f"{type(exc).__name__}: {_without_key(cfg, exc)}") from None
    usage = resp.usage
    return Reply(None, resp.choices[0].message.content or "",
                 int(getattr(usage, "prompt_tokens", 0) or 0),
                 int(getattr(usage, "completion_tokens", 0) or 0))
