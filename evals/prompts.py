"""How a problem becomes what the model sees (`PromptSpec`), and the store key of what it is sent."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from evals.benchmarks import Problem

TEMPLATES = {
    "dapo": None,  # mathdata.export.DAPO_TEMPLATE, filled in lazily (export imports pyarrow)
    "boxed": "{problem}\nPlease reason step by step, and put your final answer within \\boxed{}.",
    "raw": "{problem}",
}


@dataclass(frozen=True)
class PromptSpec:
    """How a problem becomes what the model sees.

    `template` holds `{problem}` (replaced literally, so LaTeX braces in a template are safe);
    `mode` "chat" sends messages (the server or tokenizer applies the model's chat template),
    "completion" sends the text as a raw prompt. A verl file's own chat prompt is used as is
    unless a template was asked for explicitly (`use_file_prompts=False`).
    """

    name: str = "dapo"
    template: str = ""
    system: str | None = None
    mode: str = "chat"
    use_file_prompts: bool = True

    @classmethod
    def make(cls, prompt: str | None = None, *, system: str | None = None, mode: str = "chat") -> PromptSpec:
        """`prompt`: None (DAPO, or a verl file's own), a template name (dapo, boxed, raw), a file
        holding a template, or a template text containing {problem}."""
        if mode not in ("chat", "completion"):
            raise ValueError(f"--mode {mode!r}: use chat or completion")
        explicit = prompt is not None
        prompt = prompt or "dapo"
        if prompt in TEMPLATES:
            name, text = prompt, TEMPLATES[prompt]
            if text is None:
                from mathdata.export import DAPO_TEMPLATE

                text = DAPO_TEMPLATE
        elif "{problem}" in prompt:
            name, text = "custom", prompt
        elif Path(prompt).is_file():
            name, text = f"file:{prompt}", Path(prompt).read_text(encoding="utf-8")
        else:
            raise ValueError(
                f"--prompt {prompt[:60]!r}: not a template name ({', '.join(TEMPLATES)}), "
                "a file, or a text containing {problem}"
            )
        if "{problem}" not in text:
            raise ValueError(f"--prompt {name}: the template has no {{problem}} placeholder")
        return cls(name, text, system, mode, use_file_prompts=not explicit)

    def render(self, p: Problem) -> list[dict] | str:
        if p.messages and self.use_file_prompts:
            msgs = list(p.messages)
            if self.system and msgs[0]["role"] != "system":
                msgs = [{"role": "system", "content": self.system}, *msgs]
            if self.mode == "completion":
                return "\n\n".join(m["content"] for m in msgs)
            return msgs
        text = self.template.replace("{problem}", p.problem)
        if self.mode == "completion":
            return f"{self.system}\n\n{text}" if self.system else text
        msgs = [{"role": "user", "content": text}]
        return [{"role": "system", "content": self.system}, *msgs] if self.system else msgs

    def describe(self) -> dict:
        return {
            "name": self.name,
            "mode": self.mode,
            "template": self.template,
            "system": self.system,
            "verl_file_prompts": "used as written" if self.use_file_prompts else "replaced by the template",
        }


def prompt_key(prompt: list[dict] | str) -> str:
    """The store key of a rendered prompt: a hash of exactly what the model is sent."""
    blob = json.dumps(prompt, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]
