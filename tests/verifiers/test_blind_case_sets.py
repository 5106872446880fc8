"""Blind case sets from outside the project, each labelled by someone who never saw the verifier:
set C (data/verifier_cases_C.jsonl, 483 cases from projects not used before), set D
(data/verifier_cases_D.jsonl, 150 reward-style cases: long model-style responses, hedges, Chinese
answers, units), set R (data/verifier_cases_R.jsonl, 200 real model outputs from public evaluation
files) and set S (data/verifier_cases_S.jsonl, 200 more from 16 other files: Gaokao, MMLU-Pro, long <think>
traces, agent runs), set F (data/verifier_cases_F.jsonl, 160 answer-form pairs, each with the question
it assumes, checked with that question) and set T (data/verifier_cases_T.jsonl, 159 real outputs of small
models from 8 more repositories: invented follow-up turns, answer-first formats, r1_zero tags) and set U
(data/verifier_cases_U.jsonl, 158 outputs of about 20 models from 10 more: JSON answer fields, Chinese tool use,
critics' judgements) and set V (data/verifier_cases_V.jsonl, 204 outputs from 9 more: Gaokao 2026 multi-part
answers, MATH-V, MMLU-Pro, Omni-MATH, Chinese R1 traces) and set W (data/verifier_cases_W.jsonl, 26 PaL
programs and chains of thought of Codex) set M (data/verifier_cases_M.jsonl, 249 answers in 16 languages) and set X (data/verifier_cases_X.jsonl, 243
reward-hack probes and tricky right answers), set Y (data/verifier_cases_Y.jsonl, 276 structured answers: intervals,
tuples, matrices, equations, the forms a question names) and set Z (data/verifier_cases_Z.jsonl, 273 responses to
integer golds as a DAPO corpus has them) and set AA (data/verifier_cases_AA.jsonl, 266 responses to exact non-integer
golds) and set AB (data/verifier_cases_AB.jsonl, 260 long reasoning-model responses) and set AC
(data/verifier_cases_AC.jsonl, 230 real outputs: Russian olympiad responses, SVAMP) and set AD (data/verifier_cases_AD.jsonl,
306 reward-hack probes, second round) and set AE (data/verifier_cases_AE.jsonl, 393 real outputs
from four more repositories) and set AF (data/verifier_cases_AF.jsonl, 373 answers with units, percentages,
money, times and scientific notation) and set AG (data/verifier_cases_AG.jsonl, 365: small RL models' real outputs
and a third round of reward-hack probes) and set AH (data/verifier_cases_AH.jsonl, 311: math models' real
outputs on MATH, AIME and an olympiad, and a fourth round of probes) and set AI (data/verifier_cases_AI.jsonl,
351: CMMLU letters, MGSM in three languages, probes on Chinese answer lines, options, percentages and units) and
set AJ (data/verifier_cases_AJ.jsonl, 321: RL rollouts, a cut-off reasoning model, probes on corrections and loops) and
set AK (data/verifier_cases_AK.jsonl, 212: benchmark models on residues, determinants and circuits, gpt-4.1 on GSM8K,
probes on answer lines that commit twice) and set AL (data/verifier_cases_AL.jsonl, 390: s1 answer sections, gemma-2b
base outputs, probes on forms, units and counts) and set AM (data/verifier_cases_AM.jsonl, 414: small models on
MATH-500, probes on corrections after an answer line) and set AN (data/verifier_cases_AN.jsonl, 244: DAPO/GRPO
rollout logs, probes on forms the answer is written in) and set AO (data/verifier_cases_AO.jsonl, 128: four models on
the 2024 gaokao paper, probes) and set AP (data/verifier_cases_AP.jsonl, 160: R1-format rollouts stored without their
closing `</answer>`, probes) and set AQ (data/verifier_cases_AQ.jsonl, 175: tutor-style responses of small instruct
models with closing remarks, probes on quantities and units) and set AR (data/verifier_cases_AR.jsonl, 171: AP Calculus
multiple choice in the `X: explanation` format, Russian and Bengali university problems, probes on matrices and ODEs)
and set AS (data/verifier_cases_AS.jsonl, 273: Plan-and-Solve and few-shot outputs on AQuA, GSM8K, SVAMP, probes on
formats RL pipelines use) and set AT (data/verifier_cases_AT.jsonl, 158: program-of-thought, GRPO and GSPO rollouts with
`<think>` tags) and set AU (data/verifier_cases_AU.jsonl, 263: school-exam chat answers with `Key Points` summaries,
true/false questions, FinQA-style spans, probes on units and scales) and set AV (data/verifier_cases_AV.jsonl, 123:
Sky-T1 on OlympiadBench, MATH-500 and AMC 2023, probes on restatements after the answer) and set AW
(data/verifier_cases_AW.jsonl, 169: MGSM in German and Swahili, an agent's `Tools used:` lines, probes in seven languages)
and set AX (data/verifier_cases_AX.jsonl, 258: tool-calling transcripts, programs with printed output, self-refine answers,
answer-sheet rows) and set AY (data/verifier_cases_AY.jsonl, 151: Korean CSAT with circled options, Gaokao in Chinese and
English) and set AZ (data/verifier_cases_AZ.jsonl, 136: Qwen2.5-Math zero-shot with `<answer>` tags, probes) and set BA
(data/verifier_cases_BA.jsonl, 125: Abel on GSM8K and choice questions ending `#### C`) and set BB
(data/verifier_cases_BB.jsonl, 145: MMLU-Pro with ten options A-J) and set BC (data/verifier_cases_BC.jsonl, 252: GRPO
evaluation rollouts and small models on GSM8K and MATH, probes) and set BD (data/verifier_cases_BD.jsonl, 267: MMLU-Pro
business, chemistry and engineering items, probes on units, scientific notation and magnitudes) and set BE
(data/verifier_cases_BE.jsonl, 145: Japanese answers to one pfgen-bench question, probes in eight languages) and set
BF (data/verifier_cases_BF.jsonl, 121: Omni-MATH, MMLU-Pro two-statement items, QwQ on MATH-500, AIME 2025) and set
BG (data/verifier_cases_BG.jsonl, 137: JSON replies with golds written as solutions, MathQA's one-line options) and set
BH (data/verifier_cases_BH.jsonl, 248: GSM8K `####` logs, probes on few-shot leakage) and set BI
(data/verifier_cases_BI.jsonl, 121: rStar rollouts on AMC 2024, PRM800K-style step lists, r1_zero answers, probes) and
set BJ (data/verifier_cases_BJ.jsonl, 125: gpt-3.5-turbo's answer phrases on TheoremQA, probes) and set BK
(data/verifier_cases_BK.jsonl, 125: Open-Reasoner-Zero 7B on AIME 2024 and MATH-500, probes) and set BL
(data/verifier_cases_BL.jsonl, 216: MathQA rationales, GMAT quant, AQuA-RAT with `# <answer>` lines, probes) and set BM
(data/verifier_cases_BM.jsonl, 155: Program-of-Thought and tool-integrated outputs with printed values, probes) and set
BN (data/verifier_cases_BN.jsonl, 151: ASDiv, SVAMP and GSM8K logs with golds as stored, probes on written forms) and
set BO (data/verifier_cases_BO.jsonl, 195: reflection and self-consistency traces, Chinese answers after a reflection,
probes) and set BP (data/verifier_cases_BP.jsonl, 266: geometry and measurement answers on MathVista text and a
geometry bank, probes) and set BS (data/verifier_cases_BS.jsonl, 176: small models' GSM8K answers and GRPO rollouts,
`The answer is:` probes with number words, compound times and units) and set BT (data/verifier_cases_BT.jsonl, 66:
Qwen2.5-1.5B-Instruct on MATH-500, probes on equivalent and close forms) and set BU (data/verifier_cases_BU.jsonl, 134:
markdown-rich chat answers, headings, bold values, tables and code blocks) and set BV (data/verifier_cases_BV.jsonl, 179:
Bengali word problems and exams with Bengali-digit golds, probes in five scripts) and set BW (data/verifier_cases_BW.jsonl,
78: GSM8K samples ending in `####` sentences, deepseek-reasoner on MMLU-Pro, probes) and set BX
(data/verifier_cases_BX.jsonl, 198: Countdown answers of a base and a GRPO-trained model, GSM8K RL rollouts, probes on
responses that could fool a lenient checker) and set BY (data/verifier_cases_BY.jsonl, 175: Countdown and 24-game
answers of GPT-4 and GRPO-trained models, probes on expressions) and set BZ (data/verifier_cases_BZ.jsonl, 192:
AQuA-RAT answers of GPT-3, gpt-3.5-turbo and a Llama model, probes on the precision side of multiple choice) and set
CA (data/verifier_cases_CA.jsonl, 128: Llama-3.3-70B on the PHYSICS benchmark, golds its final_answers lists as stored,
probes on science numbers) and set CB (data/verifier_cases_CB.jsonl, 121: MATH-500 answers stored in four
repositories, probes on structured answers: sets, intervals, tuples, vectors, matrices) and set CC
(data/verifier_cases_CC.jsonl, 196: GSM8K answers against golds as their files store them, floats, units, signs, and a
benchmark's JSON answer objects) and set CD (data/verifier_cases_CD.jsonl, 136: GRPO-trained small models' outputs and
probes on RL failure modes);
see their notes and decisions. Every case agrees with its label, except those
decided in writing in data/verifier_cases_<set>_decisions.json: disputed labels (kept, our verdict
pinned, with the reason) and an explicit xfail list of false NEGATIVES with reasons. A false positive
is never expected: precision first, so each one is fixed in code or disputed with a written reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import verifiers

DATA = Path(__file__).parent / "data"
SETS = (
    "C",
    "D",
    "R",
    "S",
    "F",
    "T",
    "U",
    "V",
    "W",
    "M",
    "X",
    "Y",
    "Z",
    "AA",
    "AB",
    "AC",
    "AD",
    "AE",
    "AF",
    "AG",
    "AH",
    "AI",
    "AJ",
    "AK",
    "AL",
    "AM",
    "AN",
    "AO",
    "AP",
    "AQ",
    "AR",
    "AS",
    "AT",
    "AU",
    "AV",
    "AW",
    "AX",
    "AY",
    "AZ",
    "BA",
    "BB",
    "BC",
    "BD",
    "BE",
    "BF",
    "BG",
    "BH",
    "BI",
    "BJ",
    "BK",
    "BL",
    "BM",
    "BN",
    "BO",
    "BP",
    "BQ",
    "BR",
    "BS",
    "BT",
    "BU",
    "BV",
    "BW",
    "BX",
    "BY",
    "BZ",
    "CA",
    "CB",
    "CC",
    "CD",
)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


CASES = {name: _lines(DATA / f"verifier_cases_{name}.jsonl") for name in SETS}
DECIDED = {
    name: {d["id"]: d for d in json.loads((DATA / f"verifier_cases_{name}_decisions.json").read_text("utf-8"))["cases"]}
    for name in SETS
}  # fmt: skip
BUDGET_S = 5.0  # generous: what is tested is the verdict; the bench measures the time
# number words of 15 languages are not read (English ones are): set M's known false negatives are mostly those
XFAIL_SHARE = {
    "M": 0.20,
    "AF": 0.26,
    "AR": 0.13,
    "AT": 0.23,
    "AU": 0.21,
    "AX": 0.11,
    "BC": 0.12,
    "BE": 0.5,
    "BG": 0.16,
    "BJ": 0.23,
    "BL": 0.12,
    "BP": 0.1,
    "CA": 0.29,
}  # AF: unit conversions not done and rounding not tolerated;
# AR: probes on matrices written by entries or as lists, ODE families with renamed constants, Bengali prose;
# AT: program-of-thought code (never run) and answers only inside <think>; AU: true/false answered in prose, text spans;
# AX: tool-calling transcripts that end in unmarked prose against list golds; BC: GRPO rollouts cut by the token
# limit before any marked answer, invented dialogue turns, and undone computations the labeller counts equal;
# BE: 66 Japanese answers to one pfgen-bench question in prose without an answer marker (concluding sentences in
# Japanese are not read), number words of other languages; BG: roundings of sqrt(34) against golds written as prose,
# ratios against ratio options; BJ: TheoremQA's rounded float golds (`5.667` for 17/3: a decimal is the exact rational it
# writes, by convention), brackets compared by kind, lists in order, approximation chains; BL: probes on option contents
# restated in unmarked sentences, ratios in words, currency suffixes; BP: whole worked solutions stored as golds with
# several values, bare numbers on a last line after working, option letters for yes/no options; CA: PHYSICS' golds are
# JSON lists of parts stored as strings, read as written
MAX_XFAIL_SHARE = 0.10  # the known false negatives (C: 39 of 483, D: 8 of 150, R: 1 of 200, S: 3 of 200, F: 1 of 160, T: 2 of 159, U: 1 of 158, V: 9 of 204, W: 1 of 26, X: 2 of 243, Y: 19 of 276, Z: 4 of 273, AA: 0 of 266, AB: 3 of 260, AC: 0 of 230, AD: 7 of 306, AE: 30 of 393, AG: 28 of 365, AH: 16 of 311, AI: 21 of 351, AJ: 14 of 321, AK: 4 of 212, AL: 15 of 390, AM: 4 of 414, AN: 11 of 244, AO: 11 of 128, AP: 12 of 160, AQ: 16 of 175, AS: 15 of 273, AV: 1 of 123, AW: 1 of 169, AY: 10 of 151, AZ: 5 of 136, BA: 9 of 125, BB: 5 of 145, BD: 17 of 267, BF: 8 of 121, BH: 5 of 248, BI: 4 of 121, BK: 4 of 125, BM: 6 of 155, BN: 2 of 151, BO: 0 of 195, BQ: 3 of 128, BR: 0 of 56, BS: 0 of 176, BT: 1 of 66, BU: 4 of 134, BV: 9 of 179, BW: 2 of 78, BX: 3 of 198, BY: 2 of 175, BZ: 8 of 192, CB: 3 of 121, CC: 15 of 196, CD: 1 of 136; M: 48 of 249, AF: 90 of 373, AR: 21 of 171, AT: 35 of 158, AU: 50 of 263, AX: 25 of 258, BC: 28 of 252, BE: 72 of 145, BG: 21 of 137, BJ: 28 of 125, BL: 23 of 216, BP: 26 of 266, CA: 36 of 128): may only shrink


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()


@pytest.mark.parametrize("name", SETS)
def test_decisions_name_real_cases_and_never_excuse_a_false_positive(name):
    by_id = {c["id"]: c for c in CASES[name]}
    decided = DECIDED[name]
    assert set(decided) <= set(by_id)
    for d in decided.values():
        case = by_id[d["id"]]
        assert d["decision"] in ("disputed", "xfail") and len(d["why"]) > 20, d["id"]
        assert d["label"] == case["equivalent"], f"{d['id']}: the decision must quote the label as it is"
        if d["decision"] == "xfail":
            assert case["equivalent"] is True, f"{d['id']}: only a false negative may be xfailed"
        else:
            assert d["ours"] != case["equivalent"], f"{d['id']}: a dispute pins the other verdict"
    assert sum(d["decision"] == "xfail" for d in decided.values()) <= XFAIL_SHARE.get(
        name, MAX_XFAIL_SHARE
    ) * len(CASES[name])


ALL = [(name, c) for name in SETS for c in CASES[name]]


@pytest.mark.parametrize(("name", "case"), ALL, ids=[c["id"] for _, c in ALL])
def test_case(name, case):
    d = DECIDED[name].get(case["id"])
    v = verifiers.check(case["pred"], case["gold"], timeout=BUDGET_S, question=case.get("question"))
    if d is not None and d["decision"] == "xfail" and not v.equivalent:
        pytest.xfail(d["why"])
    want = d["ours"] if d is not None and d["decision"] == "disputed" else case["equivalent"]
    assert v.equivalent == want, (
        f"{case['cls']} ({case['why']}): pred={case['pred'][-150:]!r} gold={case['gold']!r} -> {v}"
    )
