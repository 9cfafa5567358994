"""Build an ACEBench data root in the per-user cache from the pinned GitHub files.

Every file is checked against the sha256 sums shipped in ``acebench_manifest.json``. The prompt
texts are read out of the official ``model_inference/**.py`` files with ``ast``: the downloaded code
is parsed, never imported or executed. The root appears atomically (built in a temporary folder,
then renamed), so concurrent xdist workers and interrupted downloads never see half a root.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pytest_toolcall.datasets.acebench import DataError

MANIFEST_PATH = Path(__file__).with_name("acebench_manifest.json")
#: Where the pinned files are fetched from; a mirror with the same layout may replace it.
DEFAULT_URL = "https://raw.githubusercontent.com/{repository}/{commit}"
URL_ENV = "TOOLCALL_DATA_URL"


def load_manifest() -> dict[str, Any]:
    return json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))


def cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pytest-toolcall"


def ensure_root(manifest: dict[str, Any] | None = None, cache: Path | None = None) -> Path:
    """The cached data root for the pinned commit, downloaded on first use."""
    manifest = manifest or load_manifest()
    root = (cache or cache_home()) / "acebench" / manifest["commit"]
    if (root / "prompts.json").is_file():
        return root
    base = (os.environ.get(URL_ENV) or DEFAULT_URL).format(**manifest).rstrip("/")
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".download-", dir=root.parent))
    try:
        _download_all(base, manifest["files"], staging)
        prompts = extract_prompts(staging, manifest)
        (staging / "prompts.json").write_text(json.dumps(prompts, ensure_ascii=False, indent=1), encoding="utf-8")
        for path in manifest["files"]:
            if path.endswith(".py"):
                (staging / path).unlink()  # only the texts are kept
        try:
            staging.rename(root)
        except OSError:
            if not (root / "prompts.json").is_file():  # not a concurrent winner: a real failure
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return root


def _download_all(base: str, files: dict[str, str], target: Path) -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda item: _download(base, item[0], item[1], target), files.items()))


def _download(base: str, path: str, sha256: str, target: Path) -> None:
    url = f"{base}/{path}"
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            content = response.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DataError(
            f"cannot download the ACEBench data ({url}: {reason}). Without network access, point "
            "--toolcall-data-dir (or TOOLCALL_DATA_DIR) at a local copy holding data_all/ and prompts.json"
        ) from None
    digest = hashlib.sha256(content).hexdigest()
    if digest != sha256:
        raise DataError(f"{url}: sha256 {digest} does not match the pinned {sha256}; refusing the file")
    destination = target / path
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_bytes(content)


def extract_prompts(root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """``prompts.json``: every module-level string constant of the official prompt files, by file."""
    files = {}
    for path in manifest["files"]:
        if path.endswith(".py"):
            files[path] = string_constants((root / path).read_text(encoding="utf-8"))
    return {
        "source": manifest["repository"],
        "commit": manifest["commit"],
        "note": "module-level string constants extracted with ast from the files named below",
        "files": files,
    }


def string_constants(source: str) -> dict[str, str]:
    """``NAME = "text"`` assignments at module level; the code is parsed, not run."""
    constants = {}
    for node in ast.parse(source).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            constants[node.targets[0].id] = node.value.value
    return constants
