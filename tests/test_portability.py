"""No POSIX-only code on the paths Windows takes (issue 18 §3).

The engine (core/), the app (pulse_desktop/) and the bundle's entry scripts are scanned with
`ast` for what exists only on POSIX or behaves differently on Windows:
- modules that do not exist there (fcntl, termios, pwd, resource, …);
- os and signal functions and constants that do not exist there (os.fork, os.setsid,
  os.getuid, signal.SIGKILL, signal.alarm, …) and subprocess options Windows refuses
  (preexec_fn, start_new_session, pass_fds);
- shell assumptions (`sh`, shell=True) and hard-coded POSIX paths (/tmp, /dev/…, ~/.local);
- text files opened without an encoding (Windows would use its ANSI code page, not UTF-8).

Such code is allowed when guarded: inside an `if`/`and` that tests sys.platform, os.name,
platform.system() or hasattr(os|signal, …), or in a `try` that catches ImportError,
AttributeError or OSError. The scanner is itself tested on code that breaks each rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = [*sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "pulse_desktop").rglob("*.py")),
           ROOT / "packaging" / "entry_desktop.py", ROOT / "packaging" / "entry_cli.py"]

POSIX_MODULES = {"fcntl", "termios", "tty", "pty", "pwd", "grp", "resource", "posix", "syslog",
                 "crypt", "spwd", "nis", "readline"}
POSIX_OS = {"fork", "forkpty", "setsid", "setpgrp", "setpgid", "getpgid", "killpg", "getuid",
            "geteuid", "getgid", "getegid", "setuid", "setgid", "mkfifo", "mknod", "nice",
            "sync", "uname", "getloadavg", "chown", "lchown", "fchown", "statvfs", "wait3",
            "wait4", "WNOHANG", "posix_spawn", "posix_spawnp", "register_at_fork", "pipe2",
            "sched_setaffinity", "sched_getaffinity", "O_NONBLOCK"}
POSIX_SIGNAL = {"SIGKILL", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGCHLD", "SIGPIPE",
                "SIGQUIT", "SIGSTOP", "SIGCONT", "SIGTSTP", "SIGWINCH", "alarm", "setitimer",
                "pause", "siginterrupt", "pthread_kill", "pthread_sigmask", "sigwait"}
POSIX_POPEN_KWARGS = {"preexec_fn", "start_new_session", "pass_fds", "process_group", "user",
                      "group", "extra_groups", "umask"}
POSIX_PATH_PREFIXES = ("/tmp", "/dev/", "/proc/", "/usr/", "/etc/", "/var/", "/home/",
                       "~/.local", "~/.config", "~/.cache")
GUARD_NAMES = {("sys", "platform"), ("os", "name")}
GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError", "OSError",
                    "Exception"}


def _is_guard(test: ast.AST) -> bool:
    """Does this expression ask which platform it runs on?"""
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and (node.value.id, node.attr) in GUARD_NAMES:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) \
                and (node.func.value.id, node.func.attr) == ("platform", "system"):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "hasattr" and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in ("os", "signal"):
            return True
    return False


def _catches_platform_errors(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in GUARD_EXCEPTIONS for n in names)


def _returns_early_unless_guarded(statement: ast.stmt) -> bool:
    """`if not sys.platform.startswith("linux"): return …` — what follows it is guarded."""
    return isinstance(statement, ast.If) and _is_guard(statement.test) and bool(statement.body) \
        and isinstance(statement.body[-1], (ast.Return, ast.Raise))


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    child, parent = node, parents.get(node)
    while parent is not None:
        for block in ("body", "orelse", "finalbody"):
            statements = getattr(parent, block, None)
            if isinstance(statements, list) and child in statements:
                earlier = statements[:statements.index(child)]
                if any(_returns_early_unless_guarded(s) for s in earlier):
                    return True
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and _is_guard(parent.test):
            return True
        if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And):
            earlier = parent.values[:parent.values.index(child)] if child in parent.values \
                else []
            if any(_is_guard(v) for v in earlier):
                return True
        if isinstance(parent, ast.Try) and child in parent.body \
                and any(_catches_platform_errors(h) for h in parent.handlers):
            return True
        child, parent = parent, parents.get(parent)
    return False


def _is_docstring(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    expr = parents.get(node)
    return isinstance(expr, ast.Expr)


def _text_mode_without_encoding(call: ast.Call) -> bool:
    keywords = {k.arg for k in call.keywords}
    if "encoding" in keywords:
        return False
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        mode = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "mode"), None)
        if mode is None:
            return True
        return isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
            and "b" not in mode.value
    return isinstance(func, ast.Attribute) and func.attr in ("read_text", "write_text")


def scan(source: str, name: str = "<source>") -> list[str]:
    """Every unguarded POSIX-only construct in `source`, as 'name:line: what'."""
    tree = ast.parse(source, filename=name)
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    found: list[tuple[int, str]] = []

    def flag(node: ast.AST, what: str) -> None:
        if not _guarded(node, parents):
            found.append((node.lineno, what))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in POSIX_MODULES:
                    flag(node, f"imports {alias.name} (POSIX only)")
        elif isinstance(node, ast.ImportFrom) and node.module \
                and node.module.split(".")[0] in POSIX_MODULES:
            flag(node, f"imports from {node.module} (POSIX only)")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module, attr = node.value.id, node.attr
            if module == "os" and attr in POSIX_OS:
                flag(node, f"os.{attr} (not on Windows)")
            elif module == "signal" and attr in POSIX_SIGNAL:
                flag(node, f"signal.{attr} (not on Windows)")
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in POSIX_POPEN_KWARGS and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) \
                        and node.func.value.id == "subprocess":
                    flag(node, f"subprocess {keyword.arg}= (not on Windows)")
                if keyword.arg == "shell" and isinstance(keyword.value, ast.Constant) \
                        and keyword.value.value is True:
                    flag(node, "shell=True (cmd.exe is not sh)")
            if isinstance(node.func, ast.Attribute) and node.func.attr == "get_context" \
                    and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value in ("fork", "forkserver"):
                flag(node, f"multiprocessing {node.args[0].value!r} context (not on Windows)")
            if node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) \
                    and node.args[0].elts and isinstance(node.args[0].elts[0], ast.Constant) \
                    and node.args[0].elts[0].value in ("sh", "bash", "/bin/sh"):
                flag(node, f"runs {node.args[0].elts[0].value} (no POSIX shell on Windows)")
            if _text_mode_without_encoding(node):
                flag(node, "text file without encoding= (Windows' default is not UTF-8)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith(POSIX_PATH_PREFIXES) \
                and not _is_docstring(node, parents):
            flag(node, f"hard-coded POSIX path {node.value[:30]!r}")
    return [f"{name}:{line}: {what}" for line, what in sorted(found)]


def test_no_unguarded_posix_only_code_in_the_engine_the_app_or_the_bundle() -> None:
    offenders = []
    for path in SCANNED:
        offenders += scan(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_scanner_finds_each_kind_and_accepts_guards() -> None:
    bad = '''
import fcntl
from resource import getrlimit
import os, signal, subprocess, multiprocessing
pid = os.fork()
os.setsid()
os.kill(pid, signal.SIGKILL)
signal.alarm(3)
subprocess.Popen(["x"], start_new_session=True)
subprocess.run(["sh", "-c", "ls"])
subprocess.run("ls", shell=True)
multiprocessing.get_context("fork")
LOG = "/tmp/pulse.log"
open("notes.txt", "w")
open("notes.txt")
Path("x").read_text()
def fds():
    found = os.listdir("/proc/self/fd")
    if sys.platform != "linux":
        return []
'''
    found = scan(bad)
    for what in ("imports fcntl", "imports from resource", "os.fork", "os.setsid",
                  "signal.SIGKILL", "signal.alarm", "start_new_session=", "runs sh",
                  "shell=True", "'fork' context", "'/tmp/pulse.log'", "'/proc/self/fd'"):
        assert any(what in line for line in found), (what, found)
    assert sum("without encoding" in line for line in found) == 3, found

    good = '''
"""Docstrings may say /tmp/x."""
import os, sys, signal, subprocess
if sys.platform != "win32":
    import fcntl
    pid = os.fork()
else:
    import msvcrt
try:
    import resource
except ImportError:
    resource = None
if hasattr(os, "geteuid") and os.geteuid() == 0:
    pass
def fds():
    if sys.platform != "linux":
        return []
    return os.listdir("/proc/self/fd")
STOP = signal.SIGKILL if os.name == "posix" else signal.SIGTERM
os.kill(1, signal.SIGTERM)
open("notes.txt", "w", encoding="utf-8")
open("data.bin", "rb")
Path("x").read_text(encoding="utf-8")
'''
    assert scan(good) == []
