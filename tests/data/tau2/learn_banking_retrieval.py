"""How ``banking/retrieval.json.gz`` was learned: what the official tau2 1.0.1 (a2c0247)
``banking_knowledge`` environment builds for each offline retrieval configuration, and what its
retrieval tools answer. Run outside the test suite, with the official code installed with its
``knowledge`` extra (``rank-bm25``; see ``learn_official.py``):

    TAU2_DATA_DIR=... python learn_banking_retrieval.py OUT_DIR

Recorded, per configuration (``bm25``, ``grep_only``, ``full_kb``, ``golden_retrieval``,
``no_knowledge``): the agent's tools as the official toolkit declares them (name, OpenAI schema,
tool type, whether replayed) and the user's; the agent policy, as sha256 and length, and its text
when short (``full_kb``'s: its template and the set of its document sections, since the official
code lists the documents in the order the file system lists them); ``golden_retrieval``'s policy
for every task. For ``bm25`` (``KB_search``) and ``grep_only`` (``grep``): the ranked ``(document
id, score)`` list, and for some the answer text (its ``[Timing: ...]`` line, wall-clock, cut), for
queries made from every task's scenario and from document titles, plus edge cases (empty, spaces,
upper case, punctuation, a pattern that is not a regular expression, one that matches nothing).
"""

import gzip
import hashlib
import json
import re
import sys
from pathlib import Path

from tau2.domains.banking_knowledge.environment import get_environment, get_knowledge_base, get_tasks
from tau2.domains.banking_knowledge.retrieval import (
    build_policy,
    format_full_knowledge_base,
    load_prompt_template,
    resolve_variant,
)

OUT = Path(sys.argv[1])
CONFIGS = ("bm25", "grep_only", "full_kb", "golden_retrieval", "no_knowledge")
SEPARATOR = "\n\n---\n\n"


def digest(text):
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "length": len(text)}


def untimed(text):
    return re.sub(r"\n\n\[Timing: [^\]]*\]$", "", text)


def tools_of(env):
    toolkit = env.tools
    out = []
    for tool in env.get_tools():
        out.append(
            {
                "schema": tool.openai_schema,
                "tool_type": toolkit.tool_type(tool.name).value,
                "mutates_state": toolkit.tool_mutates_state(tool.name),
            }
        )
    return out


def user_tools_of(env):
    toolkit = env.user_tools
    return [
        {
            "schema": tool.openai_schema,
            "tool_type": toolkit.tool_type(tool.name).value,
            "mutates_state": toolkit.tool_mutates_state(tool.name),
        }
        for tool in env.get_user_tools()
    ]


def queries(tasks, kb):
    out = ["", "   ", "CREDIT CARD", "credit card annual fee", "fee|charge", "credit.*card", "(unclosed", "zzzqqq"]
    out += ["Gold Rewards Card?", "overdraft, fees; and: waivers!", "debit card lost stolen replacement"]
    for task in tasks:
        words = re.findall(r"[A-Za-z']+", str(task.user_scenario.instructions))
        out.append(" ".join(words[20:32]))
    for doc in sorted(kb.get_all_documents(), key=lambda d: d.id)[::25]:
        out.append(doc.title)
    return out


def main():
    tasks = get_tasks()
    kb = get_knowledge_base()
    learned = {"configs": {}, "documents": sorted(kb.documents), "kb_search": [], "grep": []}
    for name in CONFIGS:
        env = get_environment(retrieval_variant=name, task=tasks[0])
        policy = env.get_policy()
        entry = {"tools": tools_of(env), "user_tools": user_tools_of(env), "policy": digest(policy)}
        if name == "full_kb":
            variant = resolve_variant(name)
            sections = format_full_knowledge_base(kb).split(SEPARATOR)
            entry["full_kb"] = {
                "template": load_prompt_template(variant.prompt_template, knowledge_base=None),
                "sections": sorted(hashlib.sha256(p.encode()).hexdigest() for p in sections),
            }
        if name == "golden_retrieval":
            variant = resolve_variant(name)
            entry["per_task"] = {task.id: digest(build_policy(variant, kb, task)) for task in tasks}
        else:
            entry["text"] = policy if len(policy) < 20000 else None
        learned["configs"][name] = entry
    bm25 = get_environment(retrieval_variant="bm25", task=tasks[0]).tools
    grep = get_environment(retrieval_variant="grep_only", task=tasks[0]).tools
    for index, query in enumerate(queries(tasks, kb)):
        keep = index < 12 or index % 20 == 0  # the answer's text: its format, for some queries
        result = bm25._kb_pipeline.retrieve(query, return_timing=True)
        learned["kb_search"].append(
            {
                "query": query,
                "results": [[doc_id, score] for doc_id, score in result.results],
                "answer": untimed(bm25.KB_search(query)) if keep else None,
            }
        )
        try:
            hits = grep._grep_pipeline.retrieve(query)
            answer = grep.grep(query)
        except Exception as exc:  # recorded as the official tool would fail
            hits, answer = None, f"{type(exc).__name__}: {exc}"
        hits = hits if hits is None else [list(h) for h in hits]
        learned["grep"].append({"pattern": query, "results": hits, "answer": answer if keep else None})
    out = OUT / "retrieval.json.gz"
    with gzip.open(out, "wt") as fh:
        json.dump(learned, fh, indent=1)  # (not sorted: the schemas keep the official order of their fields)
    print(out, len(learned["kb_search"]), "queries")


main()
