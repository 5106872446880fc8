"""Moved to verifiers.llm (the toolkit's one LLM client); this name stays for the imports in flight."""

from verifiers.llm import BudgetExceeded, Completion, LLMClient, LLMError, LLMSettings, LLMUse  # noqa: F401
