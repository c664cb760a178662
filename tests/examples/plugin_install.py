"""Install an example plug-in for the tests: a real ``pip install`` into a temporary folder.

The package is copied first (so the build leaves nothing in the checkout) and installed with
``pip install --no-deps --target <tmp>``: the repo's own environment and dependencies stay
untouched. Subprocesses given that folder on ``PYTHONPATH`` see the distribution's metadata,
entry points included, exactly as if it were installed in site-packages. The build runs
without isolation when the local setuptools can build wheels offline (setuptools >= 70.1, or
an older one with ``wheel``: the dev extras bring it), a few seconds; else pip fetches the build
backend as usual (about a minute on a machine with no pip cache).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["ECHO_PACKAGE", "REPO", "pip_install", "run_python"]

REPO = Path(__file__).resolve().parents[2]
ECHO_PACKAGE = REPO / "examples" / "llmbridge-echo"


def pip_install(package: Path, workdir: Path) -> Path:
    """Install ``package`` into ``workdir/site`` and return that folder."""
    source = workdir / "src" / package.name
    shutil.copytree(
        package, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    site = workdir / "site"
    base = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-input", "-q"]
    base += ["--disable-pip-version-check", "--target", str(site)]
    errors: list[str] = []
    for extra in (["--no-build-isolation"], []):
        proc = subprocess.run(
            [*base, *extra, str(source)], capture_output=True, text=True, timeout=600
        )
        if proc.returncode == 0:
            return site
        errors.append(f"$ pip install {' '.join(extra)} ...\n{proc.stdout}{proc.stderr}")
        shutil.rmtree(site, ignore_errors=True)
    raise AssertionError(f"could not pip install {package.name}:\n" + "\n".join(errors))


def run_python(
    code_or_args: str | list[str], *, path: list[Path], cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    """Run ``python -c code`` (or ``python *args``) with ``path`` in front of ``PYTHONPATH``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, path), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("NO_COLOR", None)
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )
