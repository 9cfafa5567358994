"""τ³-bench's knowledge base (``banking_knowledge``): its documents, the agent policy of each offline
retrieval configuration, and the two offline retrieval tools, as tau2 1.0.1 builds them.

The offline configurations (``RETRIEVAL``): ``bm25`` (the ``KB_search`` tool: BM25 over the
documents, by the ``rank-bm25`` package's ``BM25Okapi`` as officially, lower-cased text split on
whitespace, the 10 best), ``grep_only`` (the ``grep`` tool: documents ranked by how many times a
regular expression matches, case-insensitive, the 10 best), ``full_kb`` (every document in the
prompt), ``golden_retrieval`` (the task's required documents in the prompt) and ``no_knowledge``.
The others need an embeddings API or a sandboxed shell (``REFUSED`` says which).

The official code lists the documents in the order the file system lists their files (so its
``full_kb`` prompt, and the order of equal BM25 scores, differ from machine to machine); here they
are in file-name order. The official ``KB_search`` answer ends with the wall-clock time of the
search; here it reads 0 ms, so that a run's requests do not differ from the last run's for that
alone (which would defeat the response store).
"""

from __future__ import annotations

import functools
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolcall.benchmarks.tau2.environment import DATA

DOMAIN = "banking_knowledge"
FOLDER = DATA / DOMAIN
PROMPTS = FOLDER / "prompts"
TOP_K = 10
SEPARATOR = "\n\n---\n\n"

#: The offline retrieval configurations: the prompt template, and the retrieval tool it adds.
RETRIEVAL = {
    "bm25": ("classic_rag_bm25_no_grep.md", "KB_search"),
    "grep_only": ("grep_only.md", "grep"),
    "full_kb": ("full_kb.md", None),
    "golden_retrieval": ("required_docs.md", None),
    "no_knowledge": ("no_knowledge.md", None),
}
DEFAULT_RETRIEVAL = "bm25"
_EMBEDDINGS = "needs an embeddings API ({}), not offered offline"
_SHELL = "needs a sandboxed shell over the knowledge base, not offered"
#: The official configurations that are not offline, and why.
REFUSED = {
    **{
        name: _EMBEDDINGS.format("OpenAI text-embedding-3-large")
        for name in (
            "openai_embeddings",
            "openai_embeddings_grep",
            "openai_embeddings_reranker",
            "openai_embeddings_reranker_grep",
        )
    },
    **{
        name: _EMBEDDINGS.format("OpenRouter qwen3-embedding-8b")
        for name in (
            "qwen_embeddings",
            "qwen_embeddings_grep",
            "qwen_embeddings_reranker",
            "qwen_embeddings_reranker_grep",
        )
    },
    "bm25_grep": "is bm25 with the grep tool too: not offered yet (bm25 and grep_only are)",
    "bm25_reranker": "needs an LLM reranker model (a pointwise judge of each result), not offered",
    "bm25_reranker_grep": "needs an LLM reranker model (a pointwise judge of each result), not offered",
    "terminal_use": _SHELL,
    "terminal_use_write": _SHELL,
    "alltools": "needs an embeddings API (OpenAI text-embedding-3-large) and a sandboxed shell, not offered",
    "alltools-qwen": "needs an embeddings API (OpenRouter qwen3-embedding-8b) and a sandboxed shell, not offered",
}


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    content: str


@functools.cache
def documents() -> tuple[Document, ...]:
    """The knowledge base, in file-name order."""
    out = []
    for path in sorted((FOLDER / "documents").glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        out.append(Document(str(raw["id"]), str(raw["title"]), str(raw["content"])))
    return tuple(out)


def _by_id() -> dict[str, Document]:
    return {doc.id: doc for doc in documents()}


# --- the agent's policy ----------------------------------------------------------------------------


def _template(name: str) -> str:
    """A prompt template with its ``{{component:NAME}}`` parts put in."""
    text = (PROMPTS / name).read_text(encoding="utf-8")
    return re.sub(
        r"\{\{component:(\w+)\}\}",
        lambda m: (PROMPTS / "components" / f"{m.group(1)}.md").read_text(encoding="utf-8"),
        text,
    )


def full_knowledge_base() -> str:
    return SEPARATOR.join(f"## {doc.title}\n\n{doc.content}" for doc in documents())


def policy(retrieval: str, task: dict[str, Any] | None = None) -> str:
    """The agent's policy under a retrieval configuration (``golden_retrieval``: the task's
    required documents in it, found by title or id, as officially)."""
    template, _ = RETRIEVAL[retrieval]
    text = _template(template)
    if retrieval == "full_kb":
        # As officially: a regular-expression substitution, whose replacement's escapes are read.
        text = re.sub(r"\{\{full_knowledge_base\}\}", full_knowledge_base(), text)
    if retrieval == "golden_retrieval":
        by_title = {doc.title: doc for doc in documents()}
        by_id = _by_id()
        found = []
        for ref in (task or {}).get("required_documents") or []:
            doc = by_title.get(ref) or by_id.get(ref)
            if doc is not None:
                found.append(f"## {doc.title}\n\n{doc.content}")
        text = text.replace("{{required_documents}}", SEPARATOR.join(found) if found else "(No documents provided)")
    return text


# --- the retrieval tools ---------------------------------------------------------------------------

_BM25_LOCK = threading.Lock()
_BM25: list[Any] = []


def _bm25() -> Any:
    """The BM25 index of the documents, built once per process."""
    with _BM25_LOCK:
        if not _BM25:
            from rank_bm25 import BM25Okapi

            _BM25.append(BM25Okapi([doc.content.lower().split() for doc in documents()]))
        return _BM25[0]


def bm25_search(query: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
    """The ranked ``(document id, score)`` of the official BM25 retriever: the query lower-cased and
    split on whitespace, the best ``top_k`` (equal scores in document order)."""
    if not query or not query.strip():
        return []
    scores = _bm25().get_scores(query.lower().split())
    docs = documents()
    best = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[: min(top_k, len(docs))]
    return [(docs[i].id, float(scores[i])) for i in best]


def _listing(results: list[tuple[str, float]]) -> str:
    by_id = _by_id()
    lines = []
    for rank, (doc_id, score) in enumerate(results, 1):
        doc = by_id.get(doc_id)
        title = (doc.title if doc else None) or "Untitled"
        content = (doc.content if doc else None) or ""
        lines.append(f"{rank}. {title}\n   ID: {doc_id}\n   Score: {score:.4f}\n   Content: {content}\n")
    return "\n".join(lines)


def kb_search(query: str) -> str:
    """The answer of the official ``KB_search`` tool."""
    results = bm25_search(query)
    text = _listing(results) if results else "No relevant documents found."
    return text + "\n\n[Timing: retrieval=0ms, total=0ms]"


def grep_search(pattern: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
    """The ranked ``(document id, number of matches)`` of the official grep retriever: the pattern
    case-insensitive (taken literally when it is not a valid regular expression), the best ``top_k``."""
    if not pattern.strip():
        return []
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error:
        compiled = re.compile(re.escape(pattern), re.IGNORECASE)
    hits = []
    for doc in documents():
        count = len(compiled.findall(doc.content))
        if count:
            hits.append((doc.id, float(count)))
    hits.sort(key=lambda hit: hit[1], reverse=True)
    return hits[:top_k]


def grep(pattern: str) -> str:
    """The answer of the official ``grep`` tool."""
    results = grep_search(pattern)
    return _listing(results) if results else f"No matches found for pattern: {pattern}"


def refusal(retrieval: str) -> str | None:
    """Why a retrieval configuration is not offered (None when it is)."""
    if retrieval in RETRIEVAL:
        return None
    if retrieval in REFUSED:
        return f"{retrieval} {REFUSED[retrieval]}"
    return f"{retrieval!r} is not a retrieval configuration of tau2 1.0.1 (offline: {', '.join(RETRIEVAL)})"


def knowledge_base_path() -> Path:
    return FOLDER / "documents"
