"""Short ACEBench answers whose arithmetic would cost minutes and gigabytes under the official eval:
refused while decoding, in bounded memory (the answer fails, as it does officially: no expected value
comes near such a size)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pytest_toolcall.benchmarks.acebench.decode import DecodeError, decode_multi_turn, decode_single_turn

HOSTILE = [
    # an f-string over a list repeated twice (135 bytes: 61 s and 2.8 GB before the size caps)
    "[ApiName(query=f'{[[[0]*10000]*10000]*2}'+'', limit=10, language='en', region='us', safe=True)]",
    "[ApiName(query=f'{[[0]*10000]*10000}'+'')]",
    "[ApiName(query='%s'%([[0]*10000]*10000,))]",
    "[ApiName(query=[[0]*10000]*10000)]",
    "[ApiName(query=f'{[[0]*1000]*999}'*2)]",
    "[ApiName(query=((10**1000)**1000)**1000)]",
    "[ApiName(query=(10**1000)**1000//(7**1000)**900)]",
    "[ApiName(query=" + "+".join(["[[0]*100]*90"] * 200) + ")]",
]


@pytest.mark.parametrize("text", HOSTILE, ids=[f"hostile{i}" for i in range(len(HOSTILE))])
def test_hostile_arithmetic_is_refused(text: str) -> None:
    for decode in (decode_single_turn, decode_multi_turn):
        with pytest.raises(DecodeError, match="arithmetic refused"):
            decode(text)


_MEASURE = """
import json, sys
from pytest_toolcall.benchmarks.acebench.decode import DecodeError, decode_multi_turn, decode_single_turn
for text in json.loads(sys.stdin.read()):
    for decode in (decode_single_turn, decode_multi_turn):
        try:
            decode(text)
        except DecodeError:
            pass
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


@pytest.mark.slow
def test_all_of_them_fit_in_a_few_hundred_mb() -> None:
    # A fresh process decodes every hostile answer; its peak memory is the measure (kB on Linux). The
    # timeout only guards against a hang.
    # VmHWM is this process's own peak: ru_maxrss would carry over the high-water mark of the xdist
    # worker that started it (Linux keeps it across exec).
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE], input=json.dumps(HOSTILE), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) < 300 * 1024


def test_the_same_shapes_at_a_sane_size_decode_to_pythons_values() -> None:
    (call,) = decode_single_turn("[ApiName(query=f'{[[0]*2]*2}'+'', n=[[1]*3]*2, m=(10**3)**2//7)]")
    assert call.args == {"query": str([[0] * 2] * 2), "n": [[1] * 3] * 2, "m": (10**3) ** 2 // 7}
