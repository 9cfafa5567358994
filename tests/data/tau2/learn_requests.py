"""How ``requests/requests-<domain>.json.xz`` were learned: the official runner itself (tau2 1.0.1,
a2c0247: ``run_domain`` with a ``TextRunConfig``, two trials, the default seed 300) against a local
HTTP server that records every request body the official code sends over the wire (through
litellm's OpenAI provider) and answers with scripted replies. Run outside the test suite, with the
official code installed (see ``learn_official.py``):

    TAU2_DATA_DIR=... python learn_requests.py OUT_DIR airline|retail|telecom|banking_knowledge

The replies are those of official loop runs learned before (``loop/results_loop-<domain>.json.gz``,
``telecom/results_telecom-loop.json.gz``) or, for banking_knowledge, of the scripted simulations
graded officially (``banking/results_banking.json.gz``, its user's opening line made the
``simulation <id>`` one and a ``KB_search`` call its agent's first; retrieval ``bm25``, the
plugin's default offline configuration, its answer's timing 0 ms as the plugin's): per task,
trial 1 plays the run of one kind and trial 2 of another (the trial is read from the request's
``seed``, so a client that sends no seed, or another one, gets no reply). The runs' user says
``simulation <id>`` before the agent's first reply; a side's k-th request in a run gets that side's
k-th message of the run. Written: the results file as ``tau2 run`` saves it, and every request body
with the simulation it belongs to, the side, its index and the reply it got.
"""

import functools
import gzip
import json
import lzma
import random
import re
import sys
import threading
import time
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import tau2.knowledge.pipeline as pipeline_module
from tau2.data_model.simulation import TextRunConfig
from tau2.data_model.tasks import Task
from tau2.domains.banking_knowledge.environment import get_environment
from tau2.runner.batch import run_domain

OUT = Path(sys.argv[1])
DOMAIN = sys.argv[2]
HERE = Path(__file__).parent
SOURCE = {
    "airline": HERE / "loop" / "results_loop-airline.json.gz",
    "retail": HERE / "loop" / "results_loop-retail.json.gz",
    "telecom": HERE / "telecom" / "results_telecom-loop.json.gz",
    "banking_knowledge": HERE / "banking" / "results_banking.json.gz",
}[DOMAIN]
# Trials 1 and 2 of a task replay runs of these kinds (the first one the task has, in order).
KINDS = {
    "airline": (("gold",), ("wrong_args", "hallucinated_tool", "transfer")),
    "retail": (("gold",), ("hallucinated_tool", "wrong_args", "transfer")),
    "telecom": (("gold",), ("bad_user_call", "two_calls", "missing_user_action", "wrong_args")),
    "banking_knowledge": (("gold",), ("wrong_arg", "no_last_write", "extra_read")),
}[DOMAIN]
# banking_knowledge: tasks chosen to cover the user's own tools (a card application, a discovered
# tool the agent gives the user), ACTION tasks, the agent's discovered tools, a transfer request.
BANKING_TASKS = ("task_001", "task_004", "task_015", "task_016", "task_033", "task_049")
RETRIEVAL = "bm25"
TASKS = 6
SEED, TRIALS = 300, 2

random.seed(SEED)  # as the official runner draws the trials' seeds
SEEDS = [random.randint(0, 1000000) for _ in range(TRIALS)]

saved = json.loads(gzip.open(SOURCE).read())


@functools.cache
def kb_pipeline():
    pipeline = get_environment(retrieval_variant=RETRIEVAL).tools._kb_pipeline
    pipeline._retriever_top_k_override = 11
    return pipeline


def untied_query(task):
    """The first query whose BM25 ranking has no equal scores among its 11 best: the words of the
    name of one of the task's required documents, else its title, else a sentence of the scenario
    (officially equal scores are in the file system's order of the documents, which varies from
    machine to machine: a divergence the plugin's README says)."""
    documents = task["required_documents"]
    words = [re.sub(r"[_()]+", " ", d.removeprefix("doc_")).rsplit(" ", 1)[0].strip() for d in documents]
    titles = [kb_pipeline().get_document_title(d) for d in documents]
    scenario = Task.model_validate(task).user_scenario.instructions
    sentences = [t.replace("*", "").strip() for t in re.split(r"(?<=[.?!])\s+", str(scenario))]
    for query in [*words, *titles, *sentences]:
        scores = [score for _, score in kb_pipeline().retrieve(query)]
        if len(set(scores)) == len(scores):
            return query
    raise AssertionError(f"{task['id']}: every query has equal scores")


by_task = {}
tasks_by_id = {t["id"]: t for t in saved["tasks"]}
if DOMAIN == "banking_knowledge":
    saved["simulations"] = [s for s in saved["simulations"] if s["task_id"] in BANKING_TASKS]
    for sim in saved["simulations"]:
        assert sim["messages"][1]["role"] == "user"
        sim["messages"][1]["content"] = f"simulation {sim['id']}"
        # The agent first searches the knowledge base.
        query = untied_query(tasks_by_id[sim["task_id"]])
        call = {"id": "kb_0", "name": "KB_search", "arguments": {"query": query}, "requestor": "assistant"}
        sim["messages"][2:2] = [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "id": "kb_0", "content": "", "requestor": "assistant"},
        ]
    # The search's wall-clock time made 0 ms, as the plugin writes it (a divergence its README says).
    pipeline_module.time = types.SimpleNamespace(perf_counter=lambda: 0.0)
for sim in saved["simulations"]:
    by_task.setdefault(sim["task_id"], []).append(sim)


def kind_of(sim):
    return sim["id"].rsplit("]-", 1)[1] if DOMAIN == "telecom" else sim["id"].rsplit("-", 1)[1]


tasks = {t["id"]: t for t in saved["tasks"]}


def _instructions(task):
    """The scenario as the official user prompt has it."""
    return str(Task.model_validate(task).user_scenario)


chosen = {}  # task id -> [sim of trial 1, sim of trial 2]
prompts_seen = set()
for task_id, sims in by_task.items():
    scenario = _instructions(tasks[task_id])
    # The user's first request must tell the task.
    if any(scenario in seen or seen in scenario for seen in prompts_seen):
        continue
    picked = []
    for wanted in KINDS:
        match = [s for s in sims if kind_of(s) in wanted and s["termination_reason"] != "max_steps"]
        match.sort(key=lambda s: wanted.index(kind_of(s)))
        if match:
            picked.append(match[0])
    if len(picked) == TRIALS:
        chosen[task_id] = picked
        prompts_seen.add(scenario)
    if len(chosen) == TASKS:
        break
runs = {sim["id"]: sim for pair in chosen.values() for sim in pair}
REQUESTS = []


def reply_for(body):
    trial = SEEDS.index(body["seed"])
    messages = body["messages"]
    system = messages[0]["content"]
    user_side = "<scenario>" in system
    if user_side:
        matches = [t for t in chosen if _instructions(tasks[t]) in system]
        assert len(matches) == 1, matches
        task_id = matches[0]
        sim = chosen[task_id][trial]
        done = sum(1 for m in messages if m["role"] == "assistant")  # its own, flipped
        role = "user"
    else:
        opening = next(m["content"] for m in messages if m["role"] == "user")
        sim = runs[opening.removeprefix("simulation ")]
        done = sum(1 for m in messages if m["role"] == "assistant") - 1  # the greeting
        role = "assistant"
    REQUESTS.append({"simulation": sim["id"], "side": "user" if user_side else "agent", "index": done, "body": body})
    reply = [m for m in sim["messages"][1:] if m["role"] == role][done]
    return {"content": reply.get("content"), "tool_calls": reply.get("tool_calls")}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        reply = reply_for(body)
        REQUESTS[-1]["reply"] = reply
        calls = [
            {
                "id": f"call_{len(REQUESTS)}_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for i, c in enumerate(reply.get("tool_calls") or [])
        ]
        reply["tool_calls"] = [{"id": c["id"], **c["function"]} for c in calls] or None
        message = {"role": "assistant", "content": reply.get("content")}
        if calls:
            message["tool_calls"] = calls
        answer = {
            "id": f"chatcmpl-{len(REQUESTS)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    save = OUT / f"results_requests-{DOMAIN}.json"
    save.unlink(missing_ok=True)
    config = TextRunConfig(
        domain=DOMAIN,
        task_ids=list(chosen),
        num_trials=TRIALS,
        seed=SEED,
        llm_agent="openai/agent",
        llm_args_agent={"temperature": 0.0, "api_base": base, "api_key": "sk-test"},
        llm_user="openai/user",
        llm_args_user={"temperature": 0.0, "api_base": base, "api_key": "sk-test"},
        max_concurrency=1,
        save_to=str(save),
        **({"retrieval_config": RETRIEVAL} if DOMAIN == "banking_knowledge" else {}),
    )
    results = run_domain(config)
    server.shutdown()
    sims = {(s.task_id, s.trial): s for s in results.simulations}
    runs_out = []
    for (task_id, trial), sim in sorted(sims.items()):
        replayed = chosen[task_id][trial]["id"]
        runs_out.append(
            {
                "simulation_id": sim.id,
                "task_id": task_id,
                "trial": trial,
                "seed": sim.seed,
                "replays": replayed,
                "reward": sim.reward_info.reward if sim.reward_info else None,
                "termination_reason": str(sim.termination_reason.value),
                "requests": [
                    {k: r[k] for k in ("side", "index", "body", "reply")}
                    for r in REQUESTS
                    if r["simulation"] == replayed
                ],
            }
        )
    out = OUT / f"requests-{DOMAIN}.json.xz"  # xz: a request repeats the long ones before it
    with lzma.open(out, "wt", preset=9) as fh:
        json.dump({"seeds": SEEDS, "runs": runs_out}, fh, indent=1, sort_keys=True)
    print(out, len(runs_out), "runs", len(REQUESTS), "requests", "saved", save)


main()
